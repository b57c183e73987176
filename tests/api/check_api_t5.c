/*
 * tests/api/check_api_t5.c -- POST /t5/buckets through api_handle (pure, no sockets): the bucket
 * boundaries of the defaults (bidirectional and causal), the [Tq][Tk] matrix form, golden cases
 * from tests/vectors/t5 (by id), resolved defaults, and every 422 rule with its pointer.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* Every request goes to POST /t5/buckets; request bodies are written with ' for " (api_util.h). */
static json_t *ok(const char *body_sq)
{
    return au_ok(api_t5_buckets, body_sq);
}

static void expect_422(const char *body_sq, const char *ptr, const char *code)
{
    au_expect_422(api_t5_buckets, body_sq, ptr, code);
}

/* Sends the relative positions rel[0..n-1] with extra fields and checks buckets == want. */
static void check_buckets(const long *rel, const long *want, size_t n, const char *extra)
{
    char body[8192];
    size_t len = (size_t)snprintf(body, sizeof body, "{'relative_positions': [");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(body + len, sizeof body - len, "%s%ld", i ? "," : "", rel[i]);
    snprintf(body + len, sizeof body - len, "]%s}", extra);
    json_t *j = ok(body);
    json_t *b = json_object_get(j, "buckets");
    ck_assert_int_eq(json_array_size(b), n);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(b, i);
        ck_assert_msg(json_is_integer(v), "buckets[%zu] is not an integer", i);
        ck_assert_msg(json_integer_value(v) == want[i], "r = %ld: bucket %lld, want %ld (%s)",
                      rel[i], (long long)json_integer_value(v), want[i], extra);
    }
    json_decref(j);
}

/*
 * Defaults (32 buckets, max_distance 128), bidirectional (docs/conventions.md#t5-buckets): n = |r|
 * below 8 is its own bucket; then 8-11 → 8, 12-15 → 9, 16-22 → 10, 23-31 → 11, 32-45 → 12,
 * 46-63 → 13, 64-90 → 14, >= 91 → 15; r > 0 adds 16. Each run's first and last value is tested
 * (n = 16, 32, 64 are the exact-log traps: the log term is exactly 2, 4, 6).
 */
START_TEST(test_bidirectional_boundaries)
{
    static const long rel[] = {0,     -1,      -7,  -8,  -11, -12, -15, -16, -22,  -23,
                               -31,   -32,     -45, -46, -63, -64, -90, -91, -127, -128,
                               -1000, -100000, 1,   7,   8,   16,  32,  64,  91,   1000};
    static const long want[] = {0,  1,  7,  8,  8,  9,  9,  10, 10, 11, 11, 12, 12, 13, 13,
                                14, 14, 15, 15, 15, 15, 15, 17, 23, 24, 26, 28, 30, 31, 31};
    check_buckets(rel, want, sizeof rel / sizeof rel[0], "");
    check_buckets(rel, want, sizeof rel / sizeof rel[0],
                  ", 'bidirectional': true, 'num_buckets': 32, 'max_distance': 128.0");
}
END_TEST

/* Causal defaults: n = max(-r, 0); n < 16 is its own bucket; 16-18 → 16, 19-20 → 17,
 * 21-23 → 18, ..., 99-112 → 30, >= 113 → 31; every future key is bucket 0. */
START_TEST(test_causal_boundaries)
{
    static const long rel[] = {0,   -1,   -15,  -16,  -18,   -19, -20, -21,   -23,
                               -99, -112, -113, -128, -1000, 1,   5,   100000};
    static const long want[] = {0, 1, 15, 16, 16, 17, 17, 18, 18, 30, 30, 31, 31, 31, 0, 0, 0};
    check_buckets(rel, want, sizeof rel / sizeof rel[0], ", 'bidirectional': false");
}
END_TEST

/* Smallest legal configurations: bidirectional num_buckets 4 (E = 1), causal 2 (E = 1); with
 * max_distance 2: bidirectional n = 0 → 0, n >= 1 → 1 (+2 when r > 0); causal n >= 1 → 1. */
START_TEST(test_smallest_configs)
{
    static const long rel[] = {0, -1, -5, 1, 5};
    static const long want_bi[] = {0, 1, 1, 3, 3};
    static const long want_c[] = {0, 1, 1, 0, 0};
    check_buckets(rel, want_bi, 5, ", 'num_buckets': 4, 'max_distance': 2");
    check_buckets(rel, want_c, 5, ", 'num_buckets': 2, 'max_distance': 2, 'bidirectional': false");
}
END_TEST

/* Matrix form: oracle case t5-matrix-bidir-q100-k-spread (r = key - 100). */
START_TEST(test_matrix)
{
    json_t *j = ok("{'query_positions': [100], 'key_positions': [0, 20, 36, 52, 68, 84, 92, 99,"
                   " 100, 101, 108, 116, 132, 164, 228, 300]}");
    static const long want[16] = {15, 14, 14, 13, 12, 10, 8, 1, 0, 17, 24, 26, 28, 30, 31, 31};
    json_t *b = json_object_get(j, "buckets");
    ck_assert_int_eq(json_array_size(b), 1);
    ck_assert_int_eq(json_array_size(json_array_get(b, 0)), 16);
    for (size_t c = 0; c < 16; c++)
        ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(b, 0), c)), want[c]);
    json_t *res = json_object_get(j, "resolved");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "n_queries")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(res, "n_keys")), 16);
    json_decref(j);
    /* aliases, 2 x 2: [[0, 17], [1, 0]] */
    j = ok("{'q_positions': [0, 1], 'k_positions': [0, 1]}");
    b = json_object_get(j, "buckets");
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(b, 0), 1)), 17);
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(b, 1), 0)), 1);
    json_decref(j);
}
END_TEST

/* Golden cases (tests/vectors/t5): buckets must match exactly. */
static void oracle_case(const char *file, const char *id)
{
    json_t *c = au_load_case(file, id);
    int st = 0;
    json_t *act = au_run_case(api_t5_buckets, c, &st);
    ck_assert_msg(st == 200, "%s: status %d", id, st);
    ck_assert_msg(json_equal(json_object_get(json_object_get(c, "expected"), "buckets"),
                             json_object_get(act, "buckets")),
                  "%s: buckets differ", id);
    json_decref(act);
    json_decref(c);
}

START_TEST(test_oracle_cases)
{
    oracle_case("tests/vectors/t5/buckets_bidirectional.json", "t5-bidir-full");
    oracle_case("tests/vectors/t5/buckets_bidirectional.json", "t5-bidir-nb16-md64");
    oracle_case("tests/vectors/t5/buckets_causal.json", "t5-causal-nb64-md256");
    oracle_case("tests/vectors/t5/buckets_matrix.json", "t5-matrix-bidir-q3-k20");
}
END_TEST

START_TEST(test_resolved_defaults)
{
    json_t *j = ok("{'relative_positions': [3]}");
    json_t *res = json_object_get(j, "resolved");
    ck_assert(json_is_true(json_object_get(res, "bidirectional")));
    ck_assert_int_eq(json_integer_value(json_object_get(res, "num_buckets")), 32);
    ck_assert_int_eq(json_integer_value(json_object_get(res, "max_distance")), 128);
    ck_assert_int_eq(json_integer_value(json_object_get(res, "n_relative_positions")), 1);
    json_decref(j);
}
END_TEST

START_TEST(test_errors)
{
    /* oracle errors.json: err-t5-num-buckets-zero */
    expect_422("{'relative_positions': [-2, -1, 0, 1, 2], 'num_buckets': 0}", "/num_buckets",
               "invalid-field");
    expect_422("{'relative_positions': [0], 'num_buckets': 3}", "/num_buckets", NULL);
    expect_422("{'relative_positions': [0], 'num_buckets': 1, 'bidirectional': false}",
               "/num_buckets", NULL);
    expect_422("{'relative_positions': [0], 'num_buckets': 4.5}", "/num_buckets", NULL);
    expect_422("{'relative_positions': [0], 'num_buckets': 2000000}", "/num_buckets",
               "limit-exceeded");
    /* E = 8 for the bidirectional default: max_distance must be > 8 */
    expect_422("{'relative_positions': [0], 'max_distance': 8}", "/max_distance", NULL);
    expect_422("{'relative_positions': [0], 'max_distance': 0}", "/max_distance", NULL);
    expect_422("{'relative_positions': [0], 'num_buckets': 1200}", "/max_distance", NULL);
    expect_422("{'relative_positions': [0], 'bidirectional': 'yes'}", "/bidirectional", NULL);
    expect_422("{'relative_positions': [0], 'buckets': 32}", "/buckets", "unknown-field");
    expect_422("{}", "/relative_positions", NULL);
    expect_422("{'relative_positions': []}", "/relative_positions", NULL);
    expect_422("{'relative_positions': 3}", "/relative_positions", NULL);
    expect_422("{'relative_positions': [1, 4.5]}", "/relative_positions/1", NULL);
    expect_422("{'relative_positions': ['3']}", "/relative_positions/0", NULL);
    expect_422("{'relative_positions': [-2147483647]}", "/relative_positions/0", NULL);
    expect_422("{'relative_positions': [0], 'query_positions': [0], 'key_positions': [0]}",
               "/relative_positions", NULL);
    expect_422("{'query_positions': [0]}", "/key_positions", NULL);
    expect_422("{'key_positions': [0]}", "/query_positions", NULL);
    expect_422("{'query_positions': [-1], 'key_positions': [0]}", "/query_positions/0", NULL);
    expect_422("{'query_positions': [0], 'key_positions': []}", "/key_positions", NULL);
    expect_422("{'query_positions': [0], 'q_positions': [1], 'key_positions': [0]}", "/q_positions",
               NULL);
    au_lim.max_output_elements = 10;
    expect_422("{'query_positions': [0, 1, 2, 3], 'key_positions': [0, 1, 2, 3]}", "/key_positions",
               "limit-exceeded");
    au_lim.max_positions = 3;
    expect_422("{'relative_positions': [0, 1, 2, 3]}", "/relative_positions", "limit-exceeded");
}
END_TEST

Suite *api_t5_suite(void)
{
    Suite *s = suite_create("api_t5");
    TCase *tc = tcase_create("t5");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_bidirectional_boundaries);
    tcase_add_test(tc, test_causal_boundaries);
    tcase_add_test(tc, test_smallest_configs);
    tcase_add_test(tc, test_matrix);
    tcase_add_test(tc, test_oracle_cases);
    tcase_add_test(tc, test_resolved_defaults);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}
