/*
 * tests/core/check_relative.c -- relative-position attention: core/relative.h (Shaw et al.
 * arXiv:1803.02155, Transformer-XL arXiv:1901.02860) and /attention methods "shaw" and
 * "transformer_xl" through api_handle (pure, no sockets): hand-derived values, the sign
 * conventions (Shaw indexes key - query; Transformer-XL query - key, and with causal false the keys
 * after the query use negative distances, R(-x) = (-sin, cos)), clamping, golden cases from
 * tests/vectors/relative/relative.json by id, and the 422 rules with their pointers.
 * Tolerances: ck_assert_double_eq is exact (sums of exact binary fractions, or the same libm call
 * on the same argument); ck_assert_double_eq_tol states its own.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>

#include "api/api.h"
#include "core/relative.h"
#include "tests/lib/api_util.h"

/* ---- core ----------------------------------------------------------------------------------- */

START_TEST(test_shaw_row)
{
    /* r = clip(key - query, -K, K) + K, K = 2 */
    ck_assert_uint_eq(pe_shaw_row(3, 0, 2), 0); /* key 3 before: clipped to -2 */
    ck_assert_uint_eq(pe_shaw_row(1, 0, 2), 1);
    ck_assert_uint_eq(pe_shaw_row(0, 0, 2), 2);
    ck_assert_uint_eq(pe_shaw_row(0, 1, 2), 3);
    ck_assert_uint_eq(pe_shaw_row(0, 9, 2), 4); /* key 9 after: clipped to +2 */
    /* no overflow at the int64 extremes */
    ck_assert_uint_eq(pe_shaw_row(INT64_MIN, INT64_MAX, 2), 4);
    ck_assert_uint_eq(pe_shaw_row(INT64_MAX, INT64_MIN, 2), 0);
}
END_TEST

START_TEST(test_shaw_key_bias_hand)
{
    /* q0 = (1, 0), q1 = (0, 1); K = 1, aK rows (1,2), (3,4), (5,6); scale 0.5.
     * r(0,0) = 1, r(0,1) = 2, r(1,0) = 0, r(1,1) = 1, so
     * bias = 0.5 * [[q0.a1, q0.a2], [q1.a0, q1.a1]] = 0.5 * [[3, 5], [2, 4]] (exact). */
    const double q[] = {1, 0, 0, 1};
    const double a[] = {1, 2, 3, 4, 5, 6};
    double bias[4];
    ck_assert_int_eq(pe_shaw_key_bias(q, 2, 2, 2, a, 1, NULL, NULL, 0.5, bias), PE_OK);
    ck_assert_double_eq(bias[0], 1.5);
    ck_assert_double_eq(bias[1], 2.5);
    ck_assert_double_eq(bias[2], 1.0);
    ck_assert_double_eq(bias[3], 2.0);
    /* explicit positions: query at 5, keys at 0 and 9 -> rows 0 and 2 */
    const int64_t qp[] = {5}, kp[] = {0, 9};
    ck_assert_int_eq(pe_shaw_key_bias(q, 1, 2, 2, a, 1, qp, kp, 1.0, bias), PE_OK);
    ck_assert_double_eq(bias[0], 1.0);
    ck_assert_double_eq(bias[1], 5.0);
    ck_assert_int_eq(pe_shaw_key_bias(q, 2, 2, 2, a, 0, NULL, NULL, 1.0, bias), PE_ERR_ARG);
    const double big[] = {1e300, 0, 1e300, 0, 1e300, 0};
    const double qb[] = {1e10, 0};
    ck_assert_int_eq(pe_shaw_key_bias(qb, 1, 1, 2, big, 1, NULL, NULL, 1.0, bias),
                     PE_ERR_NONFINITE);
}
END_TEST

START_TEST(test_shaw_value_term_hand)
{
    /* weights [[0.25, 0.75], [1, 0]], aV rows (1), (2), (4), dv 1, out starts at (10), (20):
     * out0 += 0.25 aV[1] + 0.75 aV[2] = 0.5 + 3 = 3.5; out1 += 1 aV[0] + 0 = 1 (exact). */
    const double w[] = {0.25, 0.75, 1.0, 0.0};
    const double av[] = {1, 2, 4};
    double out[] = {10, 20};
    ck_assert_int_eq(pe_shaw_value_term(w, 2, 2, av, 1, 1, NULL, NULL, out), PE_OK);
    ck_assert_double_eq(out[0], 13.5);
    ck_assert_double_eq(out[1], 21.0);
}
END_TEST

START_TEST(test_txl_sinusoid_sign)
{
    /* d_r 4, base 10000: w = (1, 1/10000^(2/4) = 0.01); R(d) = [sin d, sin 0.01d, cos d,
     * cos 0.01d] and R(-d) = (-sin, cos) exactly (sin is odd in libm). */
    double r[4], rn[4];
    ck_assert_int_eq(pe_txl_sinusoid(2, 10000.0, 4, r), PE_OK);
    ck_assert_int_eq(pe_txl_sinusoid(-2, 10000.0, 4, rn), PE_OK);
    ck_assert_double_eq(r[0], sin(2.0));
    ck_assert_double_eq(r[2], cos(2.0));
    ck_assert_double_eq_tol(r[1], sin(0.02), 1e-17);
    ck_assert_double_eq_tol(r[3], cos(0.02), 1e-16);
    for (int t = 0; t < 2; t++) {
        ck_assert_double_eq(rn[t], -r[t]);
        ck_assert_double_eq(rn[2 + t], r[2 + t]);
    }
    ck_assert(r[0] != 0.0); /* so the sign check above can fail */
    ck_assert_int_eq(pe_txl_sinusoid(1, 10000.0, 3, r), PE_ERR_ARG);
}
END_TEST

START_TEST(test_txl_delta_range)
{
    int64_t lo = 0;
    size_t n = 0;
    ck_assert_int_eq(pe_txl_delta_range(4, 4, NULL, NULL, 0, &lo, &n), PE_OK);
    ck_assert_int_eq(lo, -3); /* -(tk-1) .. tq-1 */
    ck_assert_uint_eq(n, 7);
    ck_assert_int_eq(pe_txl_delta_range(4, 4, NULL, NULL, 2, &lo, &n), PE_OK);
    ck_assert_int_eq(lo, -2); /* clipped to +-2 */
    ck_assert_uint_eq(n, 5);
    const int64_t qp[] = {10}, kp[] = {3, 4};
    ck_assert_int_eq(pe_txl_delta_range(1, 2, qp, kp, 0, &lo, &n), PE_OK);
    ck_assert_int_eq(lo, 6);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(pe_txl_delta_range(0, 4, NULL, NULL, 0, &lo, &n), PE_ERR_ARG);
}
END_TEST

START_TEST(test_txl_table_and_bias_hand)
{
    /* d = 1, d_r = 2, w_r = [[2, 3]]: P(delta) = 2 sin(delta) + 3 cos(delta) (w_0 = 1).
     * q = (1), (1), v_bias = 0.5, scale 1: bias[i][j] = 1.5 * P(i - j). */
    const double w_r[] = {2.0, 3.0};
    double work[2], rel[3];
    ck_assert_int_eq(pe_txl_rel_table(-1, 3, 10000.0, 2, w_r, 1, work, rel), PE_OK);
    for (int m = 0; m < 3; m++) {
        double dl = (double)(m - 1);
        ck_assert_double_eq_tol(rel[m], 2.0 * sin(dl) + 3.0 * cos(dl), 1e-15);
    }
    const double q[] = {1.0, 1.0}, vb[] = {0.5};
    double bias[4];
    ck_assert_int_eq(pe_txl_position_bias(q, 2, 2, 1, vb, rel, -1, 3, NULL, NULL, 0, 1.0, bias),
                     PE_OK);
    ck_assert_double_eq(bias[0], 1.5 * rel[1]); /* delta 0 */
    ck_assert_double_eq(bias[1], 1.5 * rel[0]); /* query 0, key 1: delta -1 */
    ck_assert_double_eq(bias[2], 1.5 * rel[2]); /* delta +1 */
    ck_assert(fabs(bias[1] - bias[2]) > 1.0);   /* 3 (sin 1 - sin(-1)) apart */
    /* identity w_r needs d == d_r */
    ck_assert_int_eq(pe_txl_rel_table(0, 1, 10000.0, 2, NULL, 1, work, rel), PE_ERR_ARG);
    /* a distance outside the table */
    ck_assert_int_eq(pe_txl_position_bias(q, 2, 2, 1, vb, rel, 0, 1, NULL, NULL, 0, 1.0, bias),
                     PE_ERR_ARG);
}
END_TEST

/* ---- /attention through api_handle ----------------------------------------------------------- */

/* Every request goes to POST /attention; request bodies are written with ' for " (api_util.h). */
static json_t *ok(const char *body_sq)
{
    return au_ok(api_attention, body_sq);
}

static void expect_422(const char *body_sq, const char *ptr, const char *code)
{
    au_expect_422(api_attention, body_sq, ptr, code);
}

/* scores[i][j] (NAN when null). */
static double score(json_t *j, size_t i, size_t c)
{
    json_t *v = au_at(j, "scores", (int)i, (int)c, -1);
    return json_is_null(v) ? NAN : json_number_value(v);
}

/* Runs one golden case (oracle README tolerance rule: |a - e| <= abs + rel |e|). */
static void oracle_case(const char *id)
{
    au_oracle_case(api_attention, "tests/vectors/relative/relative.json", id);
}

START_TEST(test_oracle_cases)
{
    oracle_case("attn-shaw-00-T4-d4-k2-keys-only");
    oracle_case("attn-shaw-01-T5-d4-k2-keys-values");
    oracle_case("attn-shaw-02-T5-d4-k2-causal");
    oracle_case("attn-shaw-03-T6-d2-k1-causal-no-value-table");
    oracle_case("attn-shaw-05-T4-d4-k3-scale1");
    oracle_case("attn-txl-00-T4-d4-causal-identity-wr");
    oracle_case("attn-txl-01-T5-d4-causal-wr-square");
    oracle_case("attn-txl-02-T5-d4-causal-wr-d_r-8");
    oracle_case("attn-txl-03-T6-d4-causal-clamp2");
    oracle_case("attn-txl-05-T4-d4-causal-base100");
    oracle_case("attn-txl-06-T4-d4-bidirectional");
    oracle_case("attn-rel-err-shaw-table-rows");
    oracle_case("attn-rel-err-txl-odd-d-without-wr");
}
END_TEST

/*
 * Shaw indexes key - query: d = 1, q = (1), (1), k = 0, K = 1, aK rows (-1), (0), (1), scale 1.
 * score[0][1] (key after the query, row 2) = +1; score[1][0] (key before, row 0) = -1;
 * the diagonal uses row 1 = 0 (content term 0 because k = 0). Exact.
 */
START_TEST(test_shaw_sign)
{
    json_t *j = ok("{'q': [[1], [1]], 'k': [[0], [0]], 'scale': 1, 'method': 'shaw', "
                   "'shaw': {'max_relative_position': 1, 'key_embeddings': [[-1], [0], [1]]}}");
    ck_assert_double_eq(score(j, 0, 1), 1.0);
    ck_assert_double_eq(score(j, 1, 0), -1.0);
    ck_assert_double_eq(score(j, 0, 0), 0.0);
    json_t *res = json_object_get(json_object_get(j, "resolved"), "shaw");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "table_rows")), 3);
    json_decref(j);
}
END_TEST

/*
 * Transformer-XL with causal false uses negative distances (XLNet): d = 2, q = (1, 0) on both
 * rows, k = 0 (no content term), u = v = 0, identity w_r, base 10000, so w_0 = 1 and
 * P(delta) = R(delta) = (sin delta, cos delta); score[i][j] = (1/sqrt 2) sin(i - j).
 * score[1][0] = +sin(1)/sqrt 2 and score[0][1] = -sin(1)/sqrt 2 (delta = -1, not |delta|).
 * With causal true score[0][1] is masked (null) and score[1][0] is unchanged.
 */
START_TEST(test_txl_negative_distances)
{
    const double want = sin(1.0) / sqrt(2.0);
    json_t *j = ok("{'q': [[1, 0], [1, 0]], 'k': [[0, 0], [0, 0]], 'causal': false, "
                   "'method': 'transformer_xl', 'transformer_xl': {}}");
    ck_assert_double_eq_tol(score(j, 1, 0), want, 1e-15);
    ck_assert_double_eq_tol(score(j, 0, 1), -want, 1e-15);
    ck_assert_double_eq_tol(score(j, 0, 0), 0.0, 1e-15);
    ck_assert(score(j, 0, 1) < 0.0);
    json_t *res = json_object_get(json_object_get(j, "resolved"), "transformer_xl");
    ck_assert(json_is_true(json_object_get(res, "negative_distances")));
    json_decref(j);

    j = ok("{'q': [[1, 0], [1, 0]], 'k': [[0, 0], [0, 0]], 'causal': true, "
           "'method': 'transformer_xl'}"); /* the object may be omitted: every member optional */
    ck_assert(isnan(score(j, 0, 1)));
    ck_assert_double_eq_tol(score(j, 1, 0), want, 1e-15);
    json_decref(j);
}
END_TEST

/*
 * clamp_len 1, T 3, same inputs as above: score[2][0] (delta 2, clipped to 1) equals score[1][0]
 * (delta 1) exactly, and score[0][2] equals score[0][1] (delta -2 clipped to -1); without the
 * clamp they are sin(2)/sqrt 2 = 0.643 and sin(1)/sqrt 2 = 0.595. u shifts only the content term:
 * with k = (1, 0) rows and u = (0.5, 0), every score grows by scale * 0.5 * 1 (q + u).k.
 */
START_TEST(test_txl_clamp_and_u)
{
    json_t *j = ok("{'q': [[1, 0], [1, 0], [1, 0]], 'k': [[0, 0], [0, 0], [0, 0]], "
                   "'method': 'transformer_xl', 'transformer_xl': {'clamp_len': 1}}");
    ck_assert_double_eq(score(j, 2, 0), score(j, 1, 0));
    ck_assert_double_eq(score(j, 0, 2), score(j, 0, 1));
    json_decref(j);
    j = ok("{'q': [[1, 0], [1, 0], [1, 0]], 'k': [[0, 0], [0, 0], [0, 0]], "
           "'method': 'transformer_xl'}");
    ck_assert_double_eq_tol(score(j, 2, 0), sin(2.0) / sqrt(2.0), 1e-15); /* 0.643 */
    ck_assert_double_eq_tol(score(j, 1, 0), sin(1.0) / sqrt(2.0), 1e-15); /* 0.595 */
    json_decref(j);

    json_t *a = ok("{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [1, 0]], 'method': 'transformer_xl'}");
    json_t *b = ok("{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [1, 0]], 'method': 'transformer_xl', "
                   "'transformer_xl': {'u': [0.5, 0]}}");
    for (size_t i = 0; i < 2; i++)
        for (size_t c = 0; c < 2; c++)
            ck_assert_double_eq_tol(score(b, i, c) - score(a, i, c), 0.5 / sqrt(2.0), 1e-15);
    json_decref(a);
    json_decref(b);
}
END_TEST

START_TEST(test_errors)
{
    /* shaw */
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'shaw', 'shaw': "
               "{'max_relative_position': 1, 'key_embeddings': [[0, 0], [0, 0], [0, 0]], "
               "'keys': 1}}",
               "/shaw/keys", "unknown-field");
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'shaw', 'shaw': "
               "{'key_embeddings': [[0, 0], [0, 0], [0, 0]]}}",
               "/shaw/max_relative_position", "invalid-field");
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'shaw', 'shaw': "
               "{'max_relative_position': 1.5, 'key_embeddings': [[0, 0], [0, 0], [0, 0]]}}",
               "/shaw/max_relative_position", "invalid-field");
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'shaw', 'shaw': "
               "{'max_relative_position': 1}}",
               "/shaw/key_embeddings", "invalid-field");
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'shaw', 'shaw': "
               "{'max_relative_position': 1, 'key_embeddings': [[0, 0], [0, 0], [0, 0]], "
               "'value_embeddings': [[0], [0], [0]]}}",
               "/shaw/value_embeddings", "invalid-field"); /* needs v */
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'v': [[1, 2, 3]], 'method': 'shaw', 'shaw': "
               "{'max_relative_position': 1, 'key_embeddings': [[0, 0], [0, 0], [0, 0]], "
               "'value_embeddings': [[0, 0], [0, 0], [0, 0]]}}",
               "/shaw/value_embeddings/0", "invalid-field"); /* rows of dv = 3 */
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'shaw', 'shaw': "
               "{'max_relative_position': 1, 'key_embeddings': [[0, 0], [0, 0], [0, 0]]}, "
               "'transformer_xl': {}}",
               "/transformer_xl", "invalid-field"); /* another method's object */
    /* transformer_xl */
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'transformer_xl', "
               "'transformer_xl': {'r_w_bias': [0, 0]}}",
               "/transformer_xl/r_w_bias", "unknown-field");
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'transformer_xl', "
               "'transformer_xl': {'u': [0, 0, 0]}}",
               "/transformer_xl/u", "invalid-field");
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'transformer_xl', "
               "'transformer_xl': {'v': [0]}}",
               "/transformer_xl/v", "invalid-field");
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'transformer_xl', "
               "'transformer_xl': {'w_r': [[1, 2, 3], [4, 5, 6]]}}",
               "/transformer_xl/w_r/0", "invalid-field"); /* odd d_r */
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'transformer_xl', "
               "'transformer_xl': {'clamp_len': 0}}",
               "/transformer_xl/clamp_len", "invalid-field");
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'transformer_xl', "
               "'transformer_xl': {'base': 1}}",
               "/transformer_xl/base", "invalid-field");
    expect_422("{'q': [[1, 0, 0]], 'k': [[1, 0, 0]], 'method': 'transformer_xl'}",
               "/transformer_xl", "invalid-field"); /* odd d without w_r */
}
END_TEST

Suite *relative_suite(void)
{
    Suite *s = suite_create("relative");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_shaw_row);
    tcase_add_test(core, test_shaw_key_bias_hand);
    tcase_add_test(core, test_shaw_value_term_hand);
    tcase_add_test(core, test_txl_sinusoid_sign);
    tcase_add_test(core, test_txl_delta_range);
    tcase_add_test(core, test_txl_table_and_bias_hand);
    suite_add_tcase(s, core);
    TCase *api = tcase_create("api");
    tcase_add_checked_fixture(api, au_setup, au_teardown);
    tcase_add_test(api, test_oracle_cases);
    tcase_add_test(api, test_shaw_sign);
    tcase_add_test(api, test_txl_negative_distances);
    tcase_add_test(api, test_txl_clamp_and_u);
    tcase_add_test(api, test_errors);
    suite_add_tcase(s, api);
    return s;
}
