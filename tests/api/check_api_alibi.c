/*
 * tests/api/check_api_alibi.c -- POST /alibi through api_handle (pure, no sockets): the lesson's
 * example, masking (weights exactly 0, bias null), the KV-cache alignment Tq < Tk, golden cases
 * from tests/vectors/alibi (by id), and every 422 rule with its JSON pointer.
 * Tolerances: ck_assert_double_eq is exact (0; used for powers of two and values copied through),
 * ck_assert_double_eq_tol states its own.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* Every request goes to POST /alibi; request bodies are written with ' for " (api_util.h). */
static json_t *ok(const char *body_sq)
{
    return au_ok(api_alibi, body_sq);
}

/* Asserts a 422 whose first error names ptr (and whose type is code when code != NULL). */
static void expect_422(const char *body_sq, const char *ptr, const char *code)
{
    au_expect_422(api_alibi, body_sq, ptr, code);
}

/* ---- tests ------------------------------------------------------------------------------- */

/*
 * The lesson's example: a query at position 3 sees keys 0..3 with raw scores (2, 1, 3, 2). With
 * 8 heads (press slopes 1/2 .. 1/256) the bias of head 0 is -(1/2)(3, 2, 1, 0) and the weights are
 * softmax(scores + bias). Numbers: oracle case alibi-teaching-8heads-press (positions 4 and 1..4
 * there; only the distances matter), tolerance 1e-12 as in the case.
 */
START_TEST(test_teaching_example)
{
    json_t *j = ok("{'num_heads': 8, 'query_positions': [3], 'key_positions': [0, 1, 2, 3],"
                   " 'scores': [[2, 1, 3, 2]]}");
    static const double w0[4] = {0.0741989711191941, 0.045003950902923445, 0.5482603600826604,
                                 0.332536717895222};
    static const double w7[4] = {0.19528547503706956, 0.07212269115115598, 0.5350043953912343,
                                 0.19758743842054027};
    static const double b0[4] = {-1.5, -1.0, -0.5, 0.0};
    for (int c = 0; c < 4; c++) {
        ck_assert_double_eq_tol(au_num(j, "weights", 0, 0, c), w0[c], 1e-12);
        ck_assert_double_eq_tol(au_num(j, "weights", 7, 0, c), w7[c], 1e-12);
        ck_assert_double_eq(au_num(j, "bias", 0, 0, c), b0[c]); /* exact powers of 2 */
    }
    ck_assert_double_eq(au_num(j, "slopes", 0, -1, -1), 0.5);
    ck_assert_double_eq(au_num(j, "slopes", 7, -1, -1), 1.0 / 256.0);
    /* the lesson's 3-decimal figures */
    ck_assert_double_eq_tol(au_num(j, "weights", 0, 0, 2), 0.548, 5e-4);
    ck_assert_double_eq_tol(au_num(j, "weights", 7, 0, 3), 0.198, 5e-4);
    json_t *res = json_object_get(j, "resolved");
    ck_assert_str_eq(json_string_value(json_object_get(res, "slopes_rule")), "press");
    ck_assert_str_eq(json_string_value(json_object_get(res, "mode")), "causal");
    json_decref(j);
}
END_TEST

/* Causal, seq_len 3, all-zero scores: row 0 sees only key 0 (weight exactly 1, the others exactly
 * 0 and their bias null); row 2 sees all three. */
START_TEST(test_masked_exact_zero)
{
    json_t *j = ok("{'num_heads': 2, 'seq_len': 3, 'scores': [[0,0,0],[0,0,0],[0,0,0]]}");
    for (int h = 0; h < 2; h++) {
        ck_assert(json_is_null(au_at(j, "bias", h, 0, 1)));
        ck_assert(json_is_null(au_at(j, "bias", h, 0, 2)));
        ck_assert(json_is_null(au_at(j, "bias", h, 1, 2)));
        ck_assert(au_num(j, "weights", h, 0, 1) == 0.0);
        ck_assert(au_num(j, "weights", h, 0, 2) == 0.0);
        ck_assert(au_num(j, "weights", h, 1, 2) == 0.0);
        ck_assert(au_num(j, "weights", h, 0, 0) == 1.0);
        ck_assert(json_is_number(au_at(j, "bias", h, 2, 0)));
    }
    /* head 0, slope 2^-4 (press, 2 heads): row 1 = softmax(-1/16, 0) */
    double e = exp(-1.0 / 16.0);
    ck_assert_double_eq_tol(au_num(j, "weights", 0, 1, 0), e / (e + 1.0), 1e-15);
    /* symmetric: nothing masked */
    json_t *s = ok("{'num_heads': 2, 'seq_len': 3, 'mode': 'symmetric',"
                   " 'scores': [[0,0,0],[0,0,0],[0,0,0]]}");
    ck_assert_double_eq(au_num(s, "bias", 0, 0, 2), -2.0 / 16.0);
    ck_assert(au_num(s, "weights", 0, 0, 2) > 0.0);
    json_decref(s);
    json_decref(j);
}
END_TEST

/* Tq < Tk without positions: the single query is the last position (KV-cache decode step), so
 * it equals explicit query_positions [2], key_positions [0, 1, 2]. */
START_TEST(test_kv_cache_alignment)
{
    const char *q = "{'num_heads': 4, 'q': [[0.3, -1.2]], 'k': [[1, 0], [0.5, 2], [-1, 1]],"
                    " 'v': [[1, 2], [3, 4], [5, 6]]}";
    const char *e = "{'num_heads': 4, 'query_positions': [2], 'key_positions': [0, 1, 2],"
                    " 'q': [[0.3, -1.2]], 'k': [[1, 0], [0.5, 2], [-1, 1]],"
                    " 'v': [[1, 2], [3, 4], [5, 6]]}";
    json_t *a = ok(q), *b = ok(e);
    json_t *res = json_object_get(a, "resolved");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(res, "query_positions"), 0)),
                     2);
    au_same(a, b, "weights");
    au_same(a, b, "output");
    au_same(a, b, "bias");
    /* head 0 slope 1/4 (press, 4 heads): bias -(1/4)(2, 1, 0); nothing masked for the last query */
    ck_assert_double_eq(au_num(a, "bias", 0, 0, 0), -0.5);
    ck_assert_double_eq(au_num(a, "bias", 0, 0, 1), -0.25);
    ck_assert_double_eq(au_num(a, "bias", 0, 0, 2), 0.0);
    /* logits q.k/sqrt(2): (0.3, 0.15-2.4, -0.3-1.2)/sqrt(2); weights = softmax(logits + bias) */
    double l[3] = {0.3 / sqrt(2.0) - 0.5, (0.15 - 2.4) / sqrt(2.0) - 0.25, -1.5 / sqrt(2.0)};
    double m = l[0], s = 0.0;
    for (int c = 0; c < 3; c++)
        s += exp(l[c] - m);
    for (int c = 0; c < 3; c++)
        ck_assert_double_eq_tol(au_num(a, "weights", 0, 0, c), exp(l[c] - m) / s, 1e-15);
    /* same with scores: Tq = 1 < Tk = 3 */
    json_t *sc = ok("{'num_heads': 1, 'slopes': [1], 'scores': [[0, 0, 0]]}");
    ck_assert_double_eq(au_num(sc, "bias", 0, 0, 0), -2.0);
    json_decref(sc);
    json_decref(a);
    json_decref(b);
}
END_TEST

/* Golden cases (tests/vectors/alibi), compared field by field with each case's tolerance. */
START_TEST(test_oracle_cases)
{
    au_oracle_case(api_alibi, "tests/vectors/alibi/qkv_causal.json",
                   "alibi-qkv-12-h2-q1-k6-d4-causal-press");
    au_oracle_case(api_alibi, "tests/vectors/alibi/qkv_causal.json",
                   "alibi-qkv-16-h2-q3-k3-d4-causal-slopes1.5_0.0625");
    au_oracle_case(api_alibi, "tests/vectors/alibi/qkv_symmetric.json",
                   "alibi-qkv-14-h2-q2-k5-d4-symmetric-press");
    au_oracle_case(api_alibi, "tests/vectors/alibi/scores.json", "alibi-scores-h3-L3-causal");
    au_oracle_case(api_alibi, "tests/vectors/alibi/bias_causal.json",
                   "alibi-bias-press-h3-L5-causal");
    au_oracle_case(api_alibi, "tests/vectors/alibi/bias_positions.json",
                   "alibi-bias-positions-h2-q10_11_12-k8to12-causal");
    au_oracle_case(api_alibi, "tests/vectors/alibi/slopes_mpt.json", "alibi-slopes-mpt-bmax16-h12");
    au_oracle_case(api_alibi, "tests/vectors/alibi/slopes_press.json", "alibi-slopes-press-h71");
}
END_TEST

/* [H][Tq][Tk] scores: each head uses its own matrix. H = 2, slopes (0, 1), one query at 1. */
START_TEST(test_scores_per_head)
{
    json_t *j = ok("{'num_heads': 2, 'slopes': [0, 1], 'query_positions': [1],"
                   " 'key_positions': [0, 1], 'scores': [[[0, 0]], [[1, 0]]]}");
    /* head 0: softmax(0, 0) = (1/2, 1/2); head 1: softmax(1 - 1, 0 - 0) = (1/2, 1/2) too */
    ck_assert_double_eq_tol(au_num(j, "weights", 0, 0, 0), 0.5, 1e-15);
    ck_assert_double_eq_tol(au_num(j, "weights", 1, 0, 0), 0.5, 1e-15);
    json_decref(j);
    j = ok("{'num_heads': 2, 'slopes': [0, 1], 'query_positions': [1],"
           " 'key_positions': [0, 1], 'scores': [[[0, 0]], [[0, 0]]]}");
    /* head 1: softmax(-1, 0) */
    ck_assert_double_eq_tol(au_num(j, "weights", 1, 0, 0), 1.0 / (1.0 + exp(1.0)), 1e-15);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(j, "resolved"), "slopes_rule")),
        "explicit");
    json_decref(j);
}
END_TEST

/* include_bias false returns slopes only; slopes with num_heads omitted take H from the list. */
START_TEST(test_include_bias_and_slopes)
{
    json_t *j = ok("{'num_heads': 3, 'seq_len': 1, 'include_bias': false}");
    ck_assert_ptr_null(json_object_get(j, "bias"));
    ck_assert_ptr_null(json_object_get(j, "weights"));
    /* press, 3 heads: 1/16, 1/256, 1/4 (docs/conventions.md#alibi) */
    ck_assert_double_eq(au_num(j, "slopes", 0, -1, -1), 1.0 / 16);
    ck_assert_double_eq(au_num(j, "slopes", 1, -1, -1), 1.0 / 256);
    ck_assert_double_eq(au_num(j, "slopes", 2, -1, -1), 1.0 / 4);
    json_decref(j);
    /* without the bias in the response, the weights still include it: softmax(0 - 1/16, 0) */
    j = ok("{'num_heads': 2, 'seq_len': 2, 'include_bias': false, 'scores': [[0, 0], [0, 0]]}");
    ck_assert_ptr_null(json_object_get(j, "bias"));
    double e = exp(-1.0 / 16.0);
    ck_assert_double_eq_tol(au_num(j, "weights", 0, 1, 0), e / (e + 1.0), 1e-15);
    ck_assert(au_num(j, "weights", 0, 0, 1) == 0.0);
    json_decref(j);
    j = ok("{'slopes': [0.5, 0.25], 'seq_len': 2}");
    ck_assert_int_eq(json_array_size(json_object_get(j, "bias")), 2);
    ck_assert_double_eq(au_num(j, "bias", 1, 1, 0), -0.25);
    json_decref(j);
    /* mpt with alibi_bias_max 16, 4 heads: 2^-4, 2^-8, 2^-12, 2^-16 */
    j = ok("{'num_heads': 4, 'seq_len': 1, 'slopes_rule': 'mpt', 'alibi_bias_max': 16}");
    ck_assert_double_eq(au_num(j, "slopes", 3, -1, -1), ldexp(1.0, -16));
    ck_assert_double_eq(
        json_number_value(json_object_get(json_object_get(j, "resolved"), "alibi_bias_max")), 16.0);
    json_decref(j);
}
END_TEST

START_TEST(test_errors)
{
    /* oracle errors.json: err-alibi-num-heads-zero, -slopes-length, -scores-and-q,
     * -causal-row-without-visible-key */
    expect_422("{'num_heads': 0, 'seq_len': 4}", "/num_heads", "invalid-field");
    expect_422("{'num_heads': 4, 'seq_len': 3, 'slopes': [0.5, 0.25]}", "/slopes", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'scores': [[0.1, 0.2], [0.3, 0.4]],"
               " 'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]]}",
               "/scores", NULL);
    expect_422("{'num_heads': 1, 'query_positions': [0], 'key_positions': [3, 4],"
               " 'mode': 'causal'}",
               "/query_positions/0", NULL);
    expect_422("{'num_heads': 1, 'q_positions': [5, 1], 'k_positions': [2, 3]}", "/q_positions/1",
               NULL);
    expect_422("{'num_heads': 2000, 'seq_len': 2}", "/num_heads", "limit-exceeded");
    expect_422("{'num_heads': 2.5, 'seq_len': 2}", "/num_heads", NULL);
    expect_422("{'seq_len': 2}", "/num_heads", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'slopes': [0.5, -1]}", "/slopes/1", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'slopes': [0.5, 1], 'slopes_rule': 'press'}",
               "/slopes", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'slopes': []}", "/slopes", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'alibi_bias_max': 16}", "/alibi_bias_max", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'slopes_rule': 'mpt', 'alibi_bias_max': 0}",
               "/alibi_bias_max", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'slopes_rule': 'bloom'}", "/slopes_rule", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'mode': 'both'}", "/mode", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'include_bias': 'yes'}", "/include_bias", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'offset': 1}", "/offset", "unknown-field");
    expect_422("{'num_heads': 2, 'query_positions': [1]}", "/key_positions", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'query_positions': [1], 'key_positions': [1]}",
               "/seq_len", NULL);
    expect_422("{'num_heads': 2, 'query_positions': [], 'key_positions': [1]}", "/query_positions",
               NULL);
    expect_422("{'num_heads': 2, 'query_positions': [-1], 'key_positions': [1]}",
               "/query_positions/0", NULL);
    expect_422("{'num_heads': 2, 'query_positions': [1], 'q_positions': [2], 'key_positions': [1]}",
               "/q_positions", NULL);
    expect_422("{'num_heads': 2}", "/seq_len", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 3, 'scores': [[0, 0], [0, 0]]}", "/scores", NULL);
    expect_422("{'num_heads': 2, 'seq_len': 2, 'scores': [[0, 0, 0], [0, 0, 0]]}", "/scores/0",
               NULL);
    expect_422("{'num_heads': 3, 'seq_len': 1, 'scores': [[[0]], [[0]]]}", "/scores", NULL);
    expect_422("{'num_heads': 1, 'seq_len': 2, 'scores': [[0, 0], [0, 0]], 'v': [[1], [2]]}", "/v",
               NULL);
    expect_422("{'num_heads': 1, 'seq_len': 2, 'q': [[1, 0]], 'k': [[1, 0], [0, 1]]}", "/q", NULL);
    expect_422("{'num_heads': 1, 'q': [[1, 0]], 'k': [[1, 0, 0]]}", "/k/0", NULL);
    expect_422("{'num_heads': 1, 'q': [[1, 0]], 'k': [[1, 0]], 'v': [[1], [2]]}", "/v", NULL);
    expect_422("{'num_heads': 1, 'q': [[1, 0]]}", "/k", NULL);
    expect_422("{'num_heads': 1, 'k': [[1, 0]]}", "/q", NULL);
    expect_422("{'num_heads': 1, 'seq_len': 2, 'v': [[1], [2]]}", "/v", NULL);
    /* more queries than keys without positions: the end alignment is impossible */
    expect_422("{'num_heads': 1, 'q': [[1], [2]], 'k': [[1]]}", "/q", NULL);
    expect_422("{'num_heads': 1, 'scores': [[1], [2]]}", "/scores", NULL);
    /* non-finite results are refused, never written as NaN */
    expect_422("{'num_heads': 1, 'q': [[1e200]], 'k': [[1e200]]}", "/q", NULL);
    expect_422("{'num_heads': 1, 'seq_len': 3, 'slopes': [1e308]}", "/slopes/0", NULL);
    /* one query at position 1: bias (-1e308, 0), and -1.7e308 - 1e308 overflows */
    expect_422("{'slopes': [1e308], 'scores': [[-1.7e308, -1.7e308]]}", "/scores", NULL);
    /* output size: 8 x 1000 x 1000 x (bias + nothing) + positions > 4,194,304 */
    expect_422("{'num_heads': 8, 'seq_len': 1000}", "/seq_len", "limit-exceeded");
}
END_TEST

/* The output limit is checked before allocating: 1024 heads x 1e6 x 1e6 would be 8 EB. */
START_TEST(test_huge_request_refused_early)
{
    expect_422("{'num_heads': 1024, 'seq_len': 1000000}", "/seq_len", "limit-exceeded");
    /* but the same positions without bias are fine (slopes + echoed positions only) */
    au_lim.max_output_elements = 5000;
    expect_422("{'num_heads': 4, 'seq_len': 3000, 'include_bias': false}", "/seq_len",
               "limit-exceeded");
    json_t *j = ok("{'num_heads': 4, 'seq_len': 2000, 'include_bias': false}");
    ck_assert_int_eq(json_array_size(json_object_get(j, "slopes")), 4);
    json_decref(j);
}
END_TEST

Suite *api_alibi_suite(void)
{
    Suite *s = suite_create("api_alibi");
    TCase *tc = tcase_create("alibi");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_teaching_example);
    tcase_add_test(tc, test_masked_exact_zero);
    tcase_add_test(tc, test_kv_cache_alignment);
    tcase_add_test(tc, test_oracle_cases);
    tcase_add_test(tc, test_scores_per_head);
    tcase_add_test(tc, test_include_bias_and_slopes);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_huge_request_refused_early);
    suite_add_tcase(s, tc);
    return s;
}
