/*
 * tests/api/check_api_attention_methods.c -- POST /attention under each position method on the same
 * hand-checkable input: 2 tokens, d = 2, q = k = I (rows e0, e1), v = [[1, 2], [3, 4]],
 * scale 1. Every expected number is derived below from the method's definition.
 *
 * Shared algebra: a score row [a, b] gives weights (sig(a - b), sig(b - a)) with
 * sig(x) = 1/(1 + e^-x), so with w = weights[i][1] the output row is
 * w0 (1, 2) + w (3, 4) = (1 + 2w, 2 + 2w). v never carries the position: any method that added it
 * to v would change these outputs.
 * Not covered here: shaw / transformer_xl (their own suites).
 * Tolerances: scores that are sums of binary fractions are exact (ck_assert_double_eq); the
 * sinusoidal scores (sin 1, cos 1) are compared at 1e-15; weights at 1e-15 and outputs at 1e-14
 * (one exp and a division differ from the softmax's by an ulp or two).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* A fake table source with "small" = [[0.5, -0.5], [0.25, 0.75], [1, 1]] (3 positions, d = 2). */
static const double small_data[6] = {0.5, -0.5, 0.25, 0.75, 1.0, 1.0};
static const store_table SMALL = {3, 2, small_data};

static const store_table *fake_acquire(void *self, const char *name)
{
    (void)self;
    return strcmp(name, "small") == 0 ? &SMALL : NULL;
}

static void fake_release(void *self, const store_table *t)
{
    (void)self;
    (void)t;
}

static const store_source SOURCE = {NULL, fake_acquire, fake_release};

static void setup(void)
{
    au_open(1 << 20, 1024);
    au_ctx.tables = &SOURCE;
}

static double sig(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* POSTs `{q, k, v, scale: 1, <extra>}` (' for ") and returns the 200 response. */
static json_t *run(const char *extra_sq)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]], 'v': [[1, 2], [3, 4]], "
             "'scale': 1, %s}",
             extra_sq);
    return au_ok(api_attention, body);
}

/* x[i][j] of a [2][2] matrix, or of head 0 of a [H][2][2] one. */
static json_t *cell(json_t *j, const char *key, size_t i, size_t k)
{
    json_t *m = json_object_get(j, key);
    if (json_is_array(json_array_get(json_array_get(m, 0), 0)))
        m = json_array_get(m, 0); /* leading head axis */
    return json_array_get(json_array_get(m, i), k);
}

static double at(json_t *j, const char *key, size_t i, size_t k)
{
    json_t *v = cell(j, key, i, k);
    ck_assert_msg(json_is_number(v), "%s[%zu][%zu] is not a number", key, i, k);
    return json_number_value(v);
}

/* Checks weights and outputs from the second weight of each row (see the header comment). */
static void check_rows(json_t *j, double w01, double w11)
{
    ck_assert_double_eq_tol(at(j, "weights", 0, 1), w01, 1e-15);
    ck_assert_double_eq_tol(at(j, "weights", 0, 0), 1.0 - w01, 1e-15);
    ck_assert_double_eq_tol(at(j, "weights", 1, 1), w11, 1e-15);
    ck_assert_double_eq_tol(at(j, "output", 0, 0), 1.0 + 2.0 * w01, 1e-14);
    ck_assert_double_eq_tol(at(j, "output", 0, 1), 2.0 + 2.0 * w01, 1e-14);
    ck_assert_double_eq_tol(at(j, "output", 1, 0), 1.0 + 2.0 * w11, 1e-14);
    ck_assert_double_eq_tol(at(j, "output", 1, 1), 2.0 + 2.0 * w11, 1e-14);
}

/* none: scores = q k^T = I; row 0 [1, 0] → w01 = sig(-1), row 1 [0, 1] → w11 = sig(1). */
START_TEST(test_none)
{
    json_t *j = run("'method': 'none'");
    ck_assert_double_eq(at(j, "scores", 0, 0), 1.0);
    ck_assert_double_eq(at(j, "scores", 0, 1), 0.0);
    check_rows(j, sig(-1.0), sig(1.0));
    json_decref(j);
}
END_TEST

/*
 * sinusoidal (vaswani, d_model 2 → one frequency w0 = 10000^0 = 1, interleaved [sin p, cos p]):
 * PE(0) = [0, 1], PE(1) = [s, c] with s = sin 1, c = cos 1. q' = k' = I + PE = [[1, 1],
 * [s, 1 + c]]. scores: s00 = 2, s01 = s10 = s + 1 + c, s11 = s^2 + (1 + c)^2 = 2 + 2c.
 * w01 = sig(s + c - 1), w11 = sig((2 + 2c) - (1 + s + c)) = sig(1 + c - s).
 */
START_TEST(test_sinusoidal)
{
    const double s = sin(1.0), c = cos(1.0);
    json_t *j = run("'method': 'sinusoidal'");
    ck_assert_double_eq_tol(at(j, "scores", 0, 0), 2.0, 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 0, 1), 1.0 + s + c, 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 1, 0), 1.0 + s + c, 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 1, 1), 2.0 + 2.0 * c, 1e-15);
    check_rows(j, sig(s + c - 1.0), sig(1.0 + c - s));
    json_decref(j);
}
END_TEST

/*
 * alibi, one head, explicit slope m = 0.5, symmetric (causal false): bias -m|i - j| =
 * [[0, -0.5], [-0.5, 0]], scores [[1, -0.5], [-0.5, 1]] → w01 = sig(-1.5), w11 = sig(1.5).
 * Causal: row 0 sees key 0 only (score null, weights (1, 0), output v0 = (1, 2)); row 1 keeps
 * bias -m(1 - 0) → w11 = sig(1.5). Press's rule for one head: m = 2^(-8/1) = 1/256, so
 * row 0 is [1, -1/256] → w01 = sig(-1 - 1/256).
 */
START_TEST(test_alibi)
{
    json_t *j = run("'method': 'alibi', 'alibi': {'slopes': [0.5]}");
    ck_assert_double_eq(at(j, "scores", 0, 1), -0.5);
    ck_assert_double_eq(at(j, "scores", 1, 0), -0.5);
    ck_assert_double_eq(at(j, "scores", 1, 1), 1.0);
    check_rows(j, sig(-1.5), sig(1.5));
    json_decref(j);
    j = run("'method': 'alibi', 'causal': true, 'alibi': {'slopes': [0.5]}");
    ck_assert(json_is_null(cell(j, "scores", 0, 1)));
    ck_assert_double_eq(at(j, "weights", 0, 1), 0.0);
    ck_assert_double_eq(at(j, "output", 0, 0), 1.0);
    ck_assert_double_eq(at(j, "output", 0, 1), 2.0);
    ck_assert_double_eq(at(j, "scores", 1, 0), -0.5);
    ck_assert_double_eq_tol(at(j, "weights", 1, 1), sig(1.5), 1e-15);
    json_decref(j);
    j = run("'method': 'alibi', 'alibi': {'num_heads': 1}");
    ck_assert_double_eq(at(j, "scores", 0, 1), -1.0 / 256.0);
    ck_assert_double_eq_tol(at(j, "weights", 0, 1), sig(-1.0 - 1.0 / 256.0), 1e-15);
    json_decref(j);
}
END_TEST

/*
 * t5, bidirectional (causal false), num_buckets 4: B = 4/2 = 2 per side, exact range E = B/2 = 1.
 * r = key - query: r = 0 → bucket 0; r = -1 → n = 1 >= E → E + trunc(ln(1/1)/... * (B-E)) = 1,
 * capped at B - 1 = 1 → bucket 1; r = +1 → the same plus the offset B → bucket 3.
 * bias [0.5, -1, 7, 2]: scores = I + [[b0, b3], [b1, b0]] = [[1.5, 2], [-1, 1.5]]
 * → w01 = sig(0.5), w11 = sig(2.5). (b2 = offset + bucket 0 would need r > 0 with n = 0: unused.)
 */
START_TEST(test_t5)
{
    json_t *j = run("'method': 't5', 't5': {'bias': [0.5, -1, 7, 2], 'num_buckets': 4}");
    ck_assert_double_eq(at(j, "scores", 0, 0), 1.5);
    ck_assert_double_eq(at(j, "scores", 0, 1), 2.0);
    ck_assert_double_eq(at(j, "scores", 1, 0), -1.0);
    ck_assert_double_eq(at(j, "scores", 1, 1), 1.5);
    check_rows(j, sig(0.5), sig(2.5));
    json_decref(j);
}
END_TEST

/*
 * rope, head_dim 2 with the lesson's explicit inv_freq 0.5 rad per position (half layout: the one
 * pair is (x0, x1)): position p turns q and k by theta = 0.5 p,
 * x' = (x0 cos theta - x1 sin theta, x0 sin theta + x1 cos theta). Position 0 leaves e0 alone;
 * position 1 turns e1 into (-sin 0.5, cos 0.5). scores: s00 = 1, s01 = s10 = e0 . (-sin 0.5,
 * cos 0.5) = -sin 0.5, s11 = sin^2 + cos^2 = 1 → w01 = sig(-1 - sin 0.5), w11 = sig(1 + sin 0.5).
 */
START_TEST(test_rope)
{
    const double sn = sin(0.5);
    json_t *j = run("'method': 'rope', 'rope': {'inv_freq': [0.5]}");
    ck_assert_double_eq_tol(at(j, "scores", 0, 0), 1.0, 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 0, 1), -sn, 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 1, 0), -sn, 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 1, 1), 1.0, 1e-15);
    check_rows(j, sig(-1.0 - sn), sig(1.0 + sn));
    json_decref(j);
}
END_TEST

/*
 * learned, table "small" = [[0.5, -0.5], [0.25, 0.75], [1, 1]]:
 * - offset 1 → positions 1, 2 → rows [0.25, 0.75], [1, 1]; q' = k' = [[1.25, 0.75], [1, 2]].
 *   s00 = 1.5625 + 0.5625 = 2.125, s01 = s10 = 1.25 + 1.5 = 2.75, s11 = 1 + 4 = 5
 *   → w01 = sig(0.625), w11 = sig(2.25).
 * - extend copy, offset 3 → positions 3, 4 → rows 3 mod 3 = 0 and 4 mod 3 = 1:
 *   q' = [[1.5, -0.5], [0.25, 1.75]]; s00 = 2.25 + 0.25 = 2.5, s01 = 0.375 - 0.875 = -0.5,
 *   s11 = 0.0625 + 3.0625 = 3.125 → w01 = sig(-3), w11 = sig(3.625).
 * - extend interpolate, target_length 5: row i at x = i (3-1)/(5-1) = i/2; offset 1 → x = 0.5
 *   (midpoint of rows 0 and 1: [0.375, 0.125]) and x = 1 (row 1: [0.25, 0.75]).
 *   q' = [[1.375, 0.125], [0.25, 1.75]]; s00 = 1.890625 + 0.015625 = 1.90625,
 *   s01 = 0.34375 + 0.21875 = 0.5625, s11 = 3.125 → w01 = sig(-1.34375), w11 = sig(2.5625).
 */
START_TEST(test_learned)
{
    json_t *j = run("'method': 'learned', 'learned': {'table': 'small', 'offset': 1}");
    ck_assert_double_eq(at(j, "scores", 0, 0), 2.125);
    ck_assert_double_eq(at(j, "scores", 0, 1), 2.75);
    ck_assert_double_eq(at(j, "scores", 1, 0), 2.75);
    ck_assert_double_eq(at(j, "scores", 1, 1), 5.0);
    check_rows(j, sig(0.625), sig(2.25));
    json_t *res = json_object_get(json_object_get(j, "resolved"), "learned");
    ck_assert_str_eq(json_string_value(json_object_get(res, "table")), "small");
    ck_assert_str_eq(json_string_value(json_object_get(res, "extend")), "error");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "offset")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(res, "rows")), 3);
    json_decref(j);

    j = run("'method': 'learned', 'learned': {'table': 'small', 'offset': 3, 'extend': 'copy'}");
    ck_assert_double_eq(at(j, "scores", 0, 0), 2.5);
    ck_assert_double_eq(at(j, "scores", 0, 1), -0.5);
    ck_assert_double_eq(at(j, "scores", 1, 1), 3.125);
    check_rows(j, sig(-3.0), sig(3.625));
    json_decref(j);

    j = run("'method': 'learned', 'learned': {'table': 'small', 'offset': 1, 'extend': "
            "'interpolate', 'target_length': 5}");
    ck_assert_double_eq(at(j, "scores", 0, 0), 1.90625);
    ck_assert_double_eq(at(j, "scores", 0, 1), 0.5625);
    ck_assert_double_eq(at(j, "scores", 1, 1), 3.125);
    check_rows(j, sig(-1.34375), sig(2.5625));
    res = json_object_get(json_object_get(j, "resolved"), "learned");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "target_length")), 5);
    json_decref(j);
}
END_TEST

Suite *api_attention_methods_suite(void)
{
    Suite *s = suite_create("api_attention_methods");
    TCase *tc = tcase_create("two_tokens");
    tcase_add_checked_fixture(tc, setup, au_teardown);
    tcase_add_test(tc, test_none);
    tcase_add_test(tc, test_sinusoidal);
    tcase_add_test(tc, test_alibi);
    tcase_add_test(tc, test_t5);
    tcase_add_test(tc, test_rope);
    tcase_add_test(tc, test_learned);
    suite_add_tcase(s, tc);
    return s;
}
