/*
 * tests/api/check_arena.c -- the parsed form of a body is counted (api/arena.h): capped per request
 * by max_parse_bytes (413), reported to the caller's budget hook (503 overloaded with Retry-After
 * when it refuses), released when the request ends; valid JSON is never answered "malformed"
 * for want of memory. Before the arena, a 16 MiB body of `{}` entries grew the daemon by 1.25 GB.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/arena.h"
#include "tests/lib/api_util.h"

/* A body {"d_model": 4, "positions": [0], "x": [{}, {}, ...]} with n empty objects: about 3 bytes
 * of text each, each a jansson object with its own hashtable (hundreds of bytes). */
static char *braces_body(size_t n, size_t *len)
{
    const char *head = "{\"d_model\":4,\"positions\":[0],\"x\":[";
    size_t hl = strlen(head);
    char *b = malloc(hl + 3 * n + 3);
    ck_assert_ptr_nonnull(b);
    memcpy(b, head, hl);
    size_t k = hl;
    for (size_t i = 0; i < n; i++) {
        memcpy(b + k, i ? ",{}" : "{} ", 3);
        k += 3;
    }
    memcpy(b + k, "]}", 3);
    *len = k + 2;
    return b;
}

typedef struct {
    size_t held, peak, refuse_above;
    int calls, last_zero;
} fake_budget;

static int fake_hold(void *cls, size_t bytes)
{
    fake_budget *f = cls;
    f->calls++;
    if (bytes > f->held && f->refuse_above && bytes > f->refuse_above)
        return -1;
    f->held = bytes;
    if (bytes > f->peak)
        f->peak = bytes;
    f->last_zero = bytes == 0;
    return 0;
}

static const api_route *sinusoidal(void)
{
    return &api_route_sinusoidal;
}

START_TEST(test_over_cap_is_413)
{
    /* 100,000 `{}` = 300 KB of text; as jansson objects far more than 1 MiB. */
    au_lim.max_parse_bytes = 1 << 20;
    size_t len;
    char *body = braces_body(100000, &len);
    fake_budget f = {0};
    api_opts o = {.hold = fake_hold, .hold_cls = &f};
    api_response r;
    api_handle_route(&au_ctx, sinusoidal(), body, len, "t", &o, &r);
    ck_assert_int_eq(r.status, 413);
    ck_assert_msg(strstr(r.body, "max_parse_bytes (1048576") != NULL, "%s", r.body);
    ck_assert_uint_eq(r.n_headers, 0);
    ck_assert_uint_le(f.peak, 1 << 20); /* never held past the cap */
    ck_assert_uint_eq(f.held, 0);       /* everything released */
    ck_assert(f.last_zero);
    api_response_free(&r);
    free(body);
}
END_TEST

START_TEST(test_budget_refusal_is_503_overloaded)
{
    size_t len;
    char *body = braces_body(20000, &len);
    fake_budget f = {.refuse_above = 64 << 10}; /* the daemon's budget has 64 KiB left */
    api_opts o = {.hold = fake_hold, .hold_cls = &f};
    api_response r;
    api_handle_route(&au_ctx, sinusoidal(), body, len, "t", &o, &r);
    ck_assert_int_eq(r.status, 503);
    ck_assert_msg(strstr(r.body, "urn:posenc:problem:overloaded") != NULL, "%s", r.body);
    ck_assert_uint_eq(r.n_headers, 1);
    ck_assert_str_eq(r.headers[0].name, "Retry-After");
    ck_assert_str_eq(r.headers[0].value, "1");
    ck_assert_uint_eq(f.held, 0);
    api_response_free(&r);
    free(body);
}
END_TEST

START_TEST(test_counted_and_released)
{
    /* A normal body: answered as before, its tree counted while it lived, then released. The
     * unknown member "x" is a 422 naming /x (the tree was built: 2,000 objects). */
    size_t len;
    char *body = braces_body(2000, &len);
    fake_budget f = {0};
    api_opts o = {.hold = fake_hold, .hold_cls = &f};
    api_response r;
    api_handle_route(&au_ctx, sinusoidal(), body, len, "t", &o, &r);
    ck_assert_int_eq(r.status, 422);
    ck_assert_msg(strstr(r.body, "\"pointer\":\"/x\"") != NULL, "%s", r.body);
    ck_assert_uint_gt(f.peak, 3 * 2000); /* more than the text: each {} is an object */
    ck_assert_uint_eq(f.held, 0);
    api_response_free(&r);
    free(body);
    const char *ok = "{\"d_model\":4,\"positions\":[1]}";
    api_handle_route(&au_ctx, sinusoidal(), ok, strlen(ok), "t", &o, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(f.held, 0);
    api_response_free(&r);
}
END_TEST

START_TEST(test_plain_malloc_outside_an_arena)
{
    /* jansson used outside a request (no current arena) still works and frees normally. */
    api_arena_install();
    json_t *j = json_pack("{s:[i,i,i]}", "a", 1, 2, 3);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_array_size(json_object_get(j, "a")), 3);
    json_decref(j);
}
END_TEST

Suite *arena_suite(void)
{
    Suite *s = suite_create("arena");
    TCase *tc = tcase_create("parse");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_over_cap_is_413);
    tcase_add_test(tc, test_budget_refusal_is_503_overloaded);
    tcase_add_test(tc, test_counted_and_released);
    tcase_add_test(tc, test_plain_malloc_outside_an_arena);
    suite_add_tcase(s, tc);
    return s;
}
