/*
 * tests/http/check_inline.c -- --inline-work (server/http.c): tiny compute requests answered on the
 * HTTP thread give the same answers as through the compute pool. Two daemons, one with
 * --inline-work 16384 and one without; each request gets the same status from both, and a 200
 * the same bytes: a small /rope (10,240 work units: inline), a small /sinusoidal (inline), the
 * demo's /alibi heatmap and a /rope of 512 positions (both over 16,384 units: deferred to the
 * pool after the inline attempt), a body over 16 KiB (never tried inline) and a 422. Made to fail
 * once: with a deferred attempt sent as if answered, the /rope of 512 positions got no answer.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/http_util.h"

static th_server pool_srv, inline_srv;

static void start(void)
{
    static const char *const args[] = {"--inline-work", "16384", NULL};
    ck_assert_int_eq(th_server_start(&pool_srv, NULL), 0);
    ck_assert_int_eq(th_server_start(&inline_srv, args), 0);
}

static void stop(void)
{
    th_server_stop(&pool_srv);
    th_server_stop(&inline_srv);
}

/* POSTs json to path on both daemons; asserts the same status (want) and, for a 200, the same
 * body. */
static void expect_same(const char *path, const char *json, long want)
{
    th_resp a, b;
    ck_assert_int_eq(th_post(&pool_srv, path, json, &a), 0);
    ck_assert_int_eq(th_post(&inline_srv, path, json, &b), 0);
    ck_assert_int_eq(a.status, want);
    ck_assert_int_eq(b.status, want);
    if (want == 200) {
        ck_assert_uint_eq(a.len, b.len);
        ck_assert(memcmp(a.body, b.body, a.len) == 0);
    }
    th_resp_free(&a);
    th_resp_free(&b);
}

/* Appends to s (capacity cap, length *n) the JSON array of 128 numbers (c + 1) / div written with
 * `digits` significant digits. */
static void vec(char *s, size_t cap, size_t *n, double div, int digits)
{
    for (int c = 0; c < 128; c++)
        *n += (size_t)snprintf(s + *n, cap - *n, "%s%.*g", c ? "," : "[", digits, (c + 1) / div);
    *n += (size_t)snprintf(s + *n, cap - *n, "]");
}

/* A /rope body: head_dim 128, positions 0 .. np-1, q and k one vector each whose numbers have
 * `digits` significant digits, then `pad` spaces before the closing brace. malloc'd. */
static char *rope_body(int np, int digits, size_t pad)
{
    size_t cap = 64 + 12 * (size_t)np + 2 * 128 * (size_t)(digits + 8) + pad;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    size_t n = (size_t)snprintf(s, cap, "{\"head_dim\":128,\"positions\":[");
    for (int i = 0; i < np; i++)
        n += (size_t)snprintf(s + n, cap - n, "%s%d", i ? "," : "", i);
    n += (size_t)snprintf(s + n, cap - n, "],\"q\":");
    vec(s, cap, &n, 89.0, digits);
    n += (size_t)snprintf(s + n, cap - n, ",\"k\":");
    vec(s, cap, &n, 97.0, digits);
    memset(s + n, ' ', pad);
    snprintf(s + n + pad, cap - n - pad, "}");
    return s;
}

START_TEST(test_same_answers)
{
    char *small = rope_body(8, 8, 0);   /* the bench's shape: 10,240 units */
    char *wide = rope_body(512, 8, 0);  /* 512 x 512 scores: over 16,384 units */
    char *big = rope_body(8, 8, 16384); /* over 16 KiB: never tried inline */
    ck_assert_uint_le(strlen(small), 16384);
    ck_assert_uint_gt(strlen(big), 16384);
    expect_same("/rope", small, 200);
    expect_same("/rope", wide, 200);
    expect_same("/rope", big, 200);
    expect_same("/sinusoidal", "{\"d_model\": 8, \"seq_len\": 4}", 200);
    expect_same("/alibi", "{\"num_heads\": 8, \"seq_len\": 16, \"mode\": \"causal\"}", 200);
    expect_same("/rope", "{\"head_dim\": 7}", 422);
    free(small);
    free(wide);
    free(big);
}
END_TEST

Suite *inline_suite(void)
{
    Suite *s = suite_create("inline");
    TCase *tc = tcase_create("inline_work");
    tcase_add_checked_fixture(tc, start, stop);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_same_answers);
    suite_add_tcase(s, tc);
    return s;
}
