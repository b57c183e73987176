/*
 * tests/api/check_api_defer.c -- api_opts.defer_work (api/api.h): the daemon tries tiny requests on
 * its HTTP thread under a low work bound (server/http.c). A request within the bound is answered
 * byte for byte as without it; one over it comes back deferred (status 0, no body) and is answered
 * when sent again without the bound; a request over max_work itself still gets its 422 then; a
 * route that does not count its work (/attention) is never deferred.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/api_util.h"

/* api_handle_route of body_sq on route path with defer_work (0: none); the response in *out. */
static void run(const char *path, const char *body_sq, size_t defer_work, api_response *out)
{
    char *body = au_dq(body_sq);
    api_opts opts = {.defer_work = defer_work};
    api_handle_route(&au_ctx, au_route(path), body, strlen(body), "t", &opts, out);
    free(body);
}

/* Asserts that path answers body_sq under defer_work exactly as without it (status and bytes). */
static void expect_same(const char *path, const char *body_sq, size_t defer_work)
{
    api_response a, b;
    run(path, body_sq, 0, &a);
    run(path, body_sq, defer_work, &b);
    ck_assert_int_eq(b.deferred, 0);
    ck_assert_int_eq(b.status, a.status);
    ck_assert_uint_eq(b.len, a.len);
    ck_assert(a.body != NULL && b.body != NULL);
    ck_assert(memcmp(a.body, b.body, a.len) == 0);
    api_response_free(&a);
    api_response_free(&b);
}

/* Asserts that path defers body_sq under defer_work: no status, no body. */
static void expect_deferred(const char *path, const char *body_sq, size_t defer_work)
{
    api_response r;
    run(path, body_sq, defer_work, &r);
    ck_assert_int_eq(r.deferred, 1);
    ck_assert_int_eq(r.status, 0);
    ck_assert(r.body == NULL && r.stream == NULL);
    api_response_free(&r);
}

/* Asserts that path answers body_sq under defer_work (not deferred) with status. */
static void expect_status(const char *path, const char *body_sq, size_t defer_work, int status)
{
    api_response r;
    run(path, body_sq, defer_work, &r);
    ck_assert_int_eq(r.deferred, 0);
    ck_assert_int_eq(r.status, status);
    api_response_free(&r);
}

/* head_dim 8, q and k one vector each rotated at 2 positions: rotations (2 + 2) × 8 = 32 and
 * scores 2 × 2 × 8 = 32 multiply-adds, 64 units in all (api/rope_positions.c counts cos/sin as
 * work only when the answer includes them). */
#define ROPE_SMALL                                                                                 \
    "{'head_dim': 8, 'positions': [0, 1], 'q': [1,2,3,4,5,6,7,8], 'k': [8,7,6,5,4,3,2,1]}"

START_TEST(test_within_bound_same_answer)
{
    expect_same("/rope", ROPE_SMALL, 64);
    expect_same("/rope", ROPE_SMALL, (size_t)1 << 18);
    /* 3 positions x d_model 4 = 12 x 32 = 384 units */
    expect_same("/sinusoidal", "{'d_model': 4, 'seq_len': 3}", 384);
    /* errors other than the work bound are answered at once, the same */
    expect_same("/rope", "{'head_dim': 7}", 64);
}
END_TEST

START_TEST(test_over_bound_deferred)
{
    expect_deferred("/rope", ROPE_SMALL, 63);
    expect_deferred("/sinusoidal", "{'d_model': 4, 'seq_len': 3}", 383);
    /* over max_work itself: deferred first, then the 422 without the bound */
    au_lim.max_work = 1000;
    expect_deferred("/sinusoidal", "{'d_model': 64, 'seq_len': 64}", 500);
    expect_status("/sinusoidal", "{'d_model': 64, 'seq_len': 64}", 0, 422);
}
END_TEST

START_TEST(test_route_without_work_count_never_deferred)
{
    /* /attention (counts_work 0): T = 2, d = 2: 144 units, far over a bound of 1 */
    expect_status("/attention", "{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]]}", 1, 200);
}
END_TEST

Suite *api_defer_suite(void)
{
    Suite *s = suite_create("api_defer");
    TCase *tc = tcase_create("defer_work");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_within_bound_same_answer);
    tcase_add_test(tc, test_over_bound_deferred);
    tcase_add_test(tc, test_route_without_work_count_never_deferred);
    suite_add_tcase(s, tc);
    return s;
}
