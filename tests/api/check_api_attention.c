/*
 * tests/api/check_api_attention.c -- POST /attention through api_handle (pure, no sockets): a
 * hand-derived 2-token case, the lesson's point that plain attention is permutation-equivariant
 * while position-aware methods are not, the sinusoidal and t5 methods on hand-checkable inputs,
 * golden cases from tests/vectors/attention (by id), and every 422 rule with its pointer.
 * Tolerances: ck_assert_double_eq is exact (0; sums of exact binary fractions, copied values),
 * ck_assert_double_eq_tol states its own.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* Every request goes to POST /attention; request bodies are written with ' for " (api_util.h). */
static json_t *ok(const char *body_sq)
{
    return au_ok(api_attention, body_sq);
}

static void expect_422(const char *body_sq, const char *ptr, const char *code)
{
    au_expect_422(api_attention, body_sq, ptr, code);
}

/* ---- tests ------------------------------------------------------------------------------- */

/*
 * Hand derivation, 2 tokens, d = 2: q = k = I (rows e0, e1), v = [[1, 2], [3, 4]], scale 1/sqrt(2).
 * - scores = I / sqrt(2) = [[a, 0], [0, a]], a = 1/sqrt(2) = 0.7071...
 * - row 0 weights: (e^a, 1) / (e^a + 1); row 1 mirrored: (1, e^a) / (e^a + 1).
 * - output row 0 = w00 (1, 2) + w01 (3, 4) = (1 + 2 w01, 2 + 2 w01);
 *   row 1 = (1 + 2 w11, 2 + 2 w11) with w11 = w00.
 * - causal: row 0 sees key 0 only, so scores[0][1] is null, its weights are (1, 0) and
 *   output row 0 = v0 = (1, 2); row 1 is unchanged.
 */
START_TEST(test_hand_two_tokens)
{
    const double a = 1.0 / sqrt(2.0), ea = exp(a);
    const double w00 = ea / (ea + 1.0), w01 = 1.0 / (ea + 1.0);
    json_t *j = ok("{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]], 'v': [[1, 2], [3, 4]]}");
    ck_assert_double_eq_tol(au_num(j, "scores", 0, 0, -1), a, 1e-15);
    ck_assert_double_eq(au_num(j, "scores", 0, 1, -1), 0.0);
    ck_assert_double_eq_tol(au_num(j, "weights", 0, 0, -1), w00, 1e-15);
    ck_assert_double_eq_tol(au_num(j, "weights", 0, 1, -1), w01, 1e-15);
    ck_assert_double_eq_tol(au_num(j, "weights", 1, 1, -1), w00, 1e-15);
    ck_assert_double_eq_tol(au_num(j, "output", 0, 0, -1), 1.0 + 2.0 * w01, 1e-14);
    ck_assert_double_eq_tol(au_num(j, "output", 0, 1, -1), 2.0 + 2.0 * w01, 1e-14);
    ck_assert_double_eq_tol(au_num(j, "output", 1, 0, -1), 1.0 + 2.0 * w00, 1e-14);
    json_t *res = json_object_get(j, "resolved");
    ck_assert_str_eq(json_string_value(json_object_get(res, "method")), "none");
    ck_assert_double_eq_tol(json_number_value(json_object_get(res, "scale")), a, 1e-16);
    json_decref(j);

    j = ok("{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]], 'v': [[1, 2], [3, 4]],"
           " 'causal': true, 'method': 'none'}");
    ck_assert(json_is_null(au_at(j, "scores", 0, 1, -1)));
    ck_assert(au_num(j, "weights", 0, 1, -1) == 0.0);
    ck_assert(au_num(j, "weights", 0, 0, -1) == 1.0);
    ck_assert_double_eq(au_num(j, "output", 0, 0, -1), 1.0);
    ck_assert_double_eq(au_num(j, "output", 0, 1, -1), 2.0);
    ck_assert_double_eq_tol(au_num(j, "weights", 1, 0, -1), w01, 1e-15);
    json_decref(j);

    /* scale 1 (T5's convention) gives scores = I */
    j = ok("{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]], 'scale': 1}");
    ck_assert_double_eq(au_num(j, "scores", 1, 1, -1), 1.0);
    ck_assert_ptr_null(json_object_get(j, "output"));
    json_decref(j);
}
END_TEST

/* Builds a request with q, k, v rows permuted by perm (row i = original row perm[i]). */
static const double PQ[4][3] = {
    {0.9, -0.3, 0.2}, {-0.5, 1.1, 0.4}, {0.3, 0.8, -1.2}, {1.4, 0.1, 0.6}};
static const double PK[4][3] = {
    {0.2, 0.7, -0.4}, {1.0, -0.9, 0.3}, {-0.6, 0.5, 1.1}, {0.4, 0.4, 0.9}};
static const double PV[4][2] = {{1.0, -2.0}, {0.5, 3.0}, {-1.5, 0.25}, {2.0, 1.0}};

static size_t put_mat(char *b, size_t n, const double *x, size_t rows, size_t cols, const int *perm)
{
    size_t len = (size_t)snprintf(b, n, "[");
    for (size_t i = 0; i < rows; i++) {
        const double *r = x + (size_t)perm[i] * cols;
        len += (size_t)snprintf(b + len, n - len, "%s[", i ? "," : "");
        for (size_t c = 0; c < cols; c++)
            len += (size_t)snprintf(b + len, n - len, "%s%.17g", c ? "," : "", r[c]);
        len += (size_t)snprintf(b + len, n - len, "]");
    }
    len += (size_t)snprintf(b + len, n - len, "]");
    return len;
}

static json_t *run_perm(const int *perm, const char *tail)
{
    char body[4096];
    size_t len = (size_t)snprintf(body, sizeof body, "{'q': ");
    len += put_mat(body + len, sizeof body - len, &PQ[0][0], 4, 3, perm);
    len += (size_t)snprintf(body + len, sizeof body - len, ", 'k': ");
    len += put_mat(body + len, sizeof body - len, &PK[0][0], 4, 3, perm);
    len += (size_t)snprintf(body + len, sizeof body - len, ", 'v': ");
    len += put_mat(body + len, sizeof body - len, &PV[0][0], 4, 2, perm);
    snprintf(body + len, sizeof body - len, "%s}", tail);
    return ok(body);
}

/* Largest |out_perm[i] - out[perm[i]]| over the output (head 0 when there is a head axis). */
static double perm_gap(json_t *base, json_t *permuted, const int *perm, int head_axis)
{
    double gap = 0.0;
    for (int i = 0; i < 4; i++) {
        for (int c = 0; c < 2; c++) {
            double x = head_axis ? au_num(permuted, "output", 0, i, c)
                                 : au_num(permuted, "output", i, c, -1);
            double y = head_axis ? au_num(base, "output", 0, perm[i], c)
                                 : au_num(base, "output", perm[i], c, -1);
            gap = fmax(gap, fabs(x - y));
        }
    }
    return gap;
}

/*
 * The lesson's point: attention without positions is permutation-equivariant -- shuffling the
 * tokens (q, k, v rows together) shuffles the output rows the same way -- so it cannot tell word
 * order. ALiBi, sinusoidal and T5 make the output depend on where each token sits.
 */
START_TEST(test_permutation)
{
    static const int id[4] = {0, 1, 2, 3};
    static const int perm[4] = {2, 0, 3, 1};
    static const struct {
        const char *tail;
        int head_axis;
        int equivariant;
    } cases[] = {
        {"", 0, 1},
        {", 'method': 'none'", 0, 1},
        {", 'method': 'alibi', 'alibi': {'num_heads': 2}", 1, 0},
        {", 'method': 'sinusoidal'", 0, 0},
        {", 'method': 't5', 't5': {'bias': [0, -1, -2, -3, 1, 0.5, 0.25, 0.125]}", 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        json_t *a = run_perm(id, cases[c].tail), *b = run_perm(perm, cases[c].tail);
        double gap = perm_gap(a, b, perm, cases[c].head_axis);
        if (cases[c].equivariant)
            ck_assert_msg(gap <= 1e-14, "case %zu: gap %g", c, gap);
        else
            ck_assert_msg(gap > 1e-3, "case %zu: permutation did not change anything (%g)", c, gap);
        json_decref(a);
        json_decref(b);
    }
}
END_TEST

/* Golden cases (tests/vectors/attention). */
START_TEST(test_oracle_cases)
{
    au_oracle_case(api_attention, "tests/vectors/attention/none.json", "attn-none-00-T4-d4-full");
    au_oracle_case(api_attention, "tests/vectors/attention/none.json", "attn-none-02-T5-d8-causal");
    au_oracle_case(api_attention, "tests/vectors/attention/alibi.json",
                   "attn-alibi-00-h2-T4-causal-press");
    au_oracle_case(api_attention, "tests/vectors/attention/alibi.json",
                   "attn-alibi-03-h3-T5-symmetric-press");
}
END_TEST

/*
 * alibi, hand-checked: 1 head, slope 1/2 (press with 1 head is 2^-8; give slopes instead), q = k =
 * 0 so the logits are 0 and scores = bias. Causal: scores[i][j] = -(i - j)/2 for j <= i, null
 * above. mode follows causal; the response has a head axis.
 */
START_TEST(test_alibi_method)
{
    json_t *j = ok("{'q': [[0], [0], [0]], 'k': [[0], [0], [0]], 'causal': true,"
                   " 'method': 'alibi', 'alibi': {'slopes': [0.5]}}");
    ck_assert_double_eq(au_num(j, "scores", 0, 2, 0), -1.0);
    ck_assert_double_eq(au_num(j, "scores", 0, 2, 1), -0.5);
    ck_assert(json_is_null(au_at(j, "scores", 0, 0, 1)));
    double s = 1.0 + exp(-0.5) + exp(-1.0);
    ck_assert_double_eq_tol(au_num(j, "weights", 0, 2, 0), exp(-1.0) / s, 1e-15);
    json_t *ra = json_object_get(json_object_get(j, "resolved"), "alibi");
    ck_assert_str_eq(json_string_value(json_object_get(ra, "mode")), "causal");
    json_decref(j);
    j = ok("{'q': [[0], [0], [0]], 'k': [[0], [0], [0]], 'method': 'alibi',"
           " 'alibi': {'num_heads': 2, 'mode': 'symmetric'}}");
    /* press, 2 heads: 1/16, 1/256; symmetric: -m |i - j| above the diagonal too */
    ck_assert_double_eq(au_num(j, "scores", 0, 0, 2), -2.0 / 16.0);
    ck_assert_double_eq(au_num(j, "scores", 1, 0, 2), -2.0 / 256.0);
    json_decref(j);
}
END_TEST

/*
 * sinusoidal, hand-derived: q = k = 0 (d = 2), so q' = k' = PE(t) = (sin t, cos t) (vaswani,
 * omega_0 = 1) and scores[i][j] = PE(i).PE(j)/sqrt(2) = cos(i - j)/sqrt(2). That depends on i - j
 * only, so an offset leaves the scores unchanged (the relative-position property of sinusoids).
 */
START_TEST(test_sinusoidal_method)
{
    json_t *j = ok("{'q': [[0, 0], [0, 0], [0, 0]], 'k': [[0, 0], [0, 0], [0, 0]],"
                   " 'method': 'sinusoidal'}");
    json_t *o = ok("{'q': [[0, 0], [0, 0], [0, 0]], 'k': [[0, 0], [0, 0], [0, 0]],"
                   " 'method': 'sinusoidal', 'sinusoidal': {'offset': 1000, 'd_model': 2}}");
    for (int i = 0; i < 3; i++) {
        for (int c = 0; c < 3; c++) {
            double want = cos((double)(i - c)) / sqrt(2.0);
            ck_assert_double_eq_tol(au_num(j, "scores", i, c, -1), want, 1e-15);
            ck_assert_double_eq_tol(au_num(o, "scores", i, c, -1), want, 1e-12);
        }
    }
    json_t *rs = json_object_get(json_object_get(o, "resolved"), "sinusoidal");
    ck_assert_int_eq(json_integer_value(json_object_get(rs, "offset")), 1000);
    ck_assert_str_eq(json_string_value(json_object_get(rs, "layout")), "interleaved");
    json_decref(j);
    json_decref(o);
    /* v is not encoded: with q = k = 0 and one token, output = v */
    j = ok("{'q': [[0, 0]], 'k': [[0, 0]], 'v': [[5, 7]], 'method': 'sinusoidal'}");
    ck_assert_double_eq(au_num(j, "output", 0, 0, -1), 5.0);
    json_decref(j);
}
END_TEST

/*
 * t5, hand-derived: q = k = 0, so scores = bias[bucket(j - i)]. With bias[b] = b (32 buckets,
 * bidirectional by default when not causal): r = 0 → 0, r = -1 → 1, r = -2 → 2, r = +1 → 17,
 * r = +2 → 18 (docs/conventions.md#t5-buckets). Causal: bidirectional defaults to false and the
 * future is masked; past buckets are the same 1, 2.
 */
START_TEST(test_t5_method)
{
    char bias[512];
    size_t len = (size_t)snprintf(bias, sizeof bias, "[");
    for (int b = 0; b < 32; b++)
        len += (size_t)snprintf(bias + len, sizeof bias - len, "%s%d", b ? "," : "", b);
    snprintf(bias + len, sizeof bias - len, "]");
    char body[1024];
    snprintf(body, sizeof body,
             "{'q': [[0], [0], [0]], 'k': [[0], [0], [0]], 'method': 't5', 't5': {'bias': %s}}",
             bias);
    json_t *j = ok(body);
    static const double want[3][3] = {{0, 17, 18}, {1, 0, 17}, {2, 1, 0}};
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++)
            ck_assert_double_eq(au_num(j, "scores", i, c, -1), want[i][c]);
    json_t *rt = json_object_get(json_object_get(j, "resolved"), "t5");
    ck_assert(json_is_true(json_object_get(rt, "bidirectional")));
    ck_assert_int_eq(json_integer_value(json_object_get(rt, "num_buckets")), 32);
    json_decref(j);

    snprintf(body, sizeof body,
             "{'q': [[0], [0], [0]], 'k': [[0], [0], [0]], 'causal': true, 'method': 't5',"
             " 't5': {'bias': %s}}",
             bias);
    j = ok(body);
    ck_assert(json_is_null(au_at(j, "scores", 0, 1, -1)));
    ck_assert_double_eq(au_num(j, "scores", 2, 0, -1), 2.0);
    ck_assert(json_is_false(
        json_object_get(json_object_get(json_object_get(j, "resolved"), "t5"), "bidirectional")));
    json_decref(j);

    /* [H][num_buckets]: a head axis; head 1 reads its own row. causal buckets (4): r=0 → 0,
     * r = -1 → 1 */
    j = ok("{'q': [[0], [0]], 'k': [[0], [0]], 'method': 't5',"
           " 't5': {'bias': [[0, 1, 2, 3], [0, 10, 20, 30]], 'bidirectional': false,"
           " 'max_distance': 8}}");
    ck_assert_double_eq(au_num(j, "scores", 1, 1, 0), 10.0);
    ck_assert_double_eq(au_num(j, "scores", 0, 1, 0), 1.0);
    ck_assert_double_eq(au_num(j, "scores", 1, 0, 1), 0.0); /* future → bucket 0 */
    json_decref(j);
}
END_TEST

START_TEST(test_errors)
{
    /* oracle errors.json: err-attention-method-unknown */
    expect_422("{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]], 'method': 'xpos'}", "/method",
               "invalid-field");
    /* 1-wide rows cannot hold a rotation pair: the rope object's head_dim (defaulting to d) */
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'rope'}", "/rope/head_dim", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'shaw', 'shaw': {}}",
               "/shaw/max_relative_position", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 4}", "/method", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'alibi': {'num_heads': 1}}", "/alibi", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'alibi', 'alibi': {'num_heads': 1},"
               " 't5': {'bias': [0, 0]}}",
               "/t5", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'alibi'}", "/alibi", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'alibi', 'alibi': 3}", "/alibi", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'alibi', 'alibi': {'num_heads': 1,"
               " 'seq_len': 1}}",
               "/alibi/seq_len", "unknown-field");
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'alibi', 'alibi': {'num_heads': 1,"
               " 'mode': 'causal'}}",
               "/alibi/mode", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'causal': true, 'method': 'alibi',"
               " 'alibi': {'num_heads': 1, 'mode': 'symmetric'}}",
               "/alibi/mode", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'alibi', 'alibi': {'num_heads': 0}}",
               "/alibi/num_heads", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 'alibi', 'alibi': {'num_heads': 2,"
               " 'slopes': [1]}}",
               "/alibi/slopes", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'colour': 1}", "/colour", "unknown-field");
    expect_422("{'k': [[1]]}", "/q", NULL);
    expect_422("{'q': [[1]]}", "/k", NULL);
    expect_422("{'q': [[1], [2]], 'k': [[1]]}", "/k", NULL);
    expect_422("{'q': [[1, 2]], 'k': [[1]]}", "/k/0", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'v': [[1], [2]]}", "/v", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'scale': -1}", "/scale", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'causal': 1}", "/causal", NULL);
    expect_422("{'q': [1, 2], 'k': [[1]]}", "/q", NULL);
    expect_422("{'q': [[1]], 'k': [['a']]}", "/k/0/0", NULL);
    /* overflow is a 422, never NaN in the output */
    expect_422("{'q': [[1e200]], 'k': [[1e200]]}", "/q", NULL);
    /* sinusoidal */
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'sinusoidal',"
               " 'sinusoidal': {'d_model': 4}}",
               "/sinusoidal/d_model", NULL);
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'sinusoidal',"
               " 'sinusoidal': {'convention': 'fairseq'}}",
               "/sinusoidal/convention", NULL);
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'sinusoidal', 'sinusoidal': {'base': 1}}",
               "/sinusoidal/base", NULL);
    expect_422(
        "{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'sinusoidal', 'sinusoidal': {'offset': -1}}",
        "/sinusoidal/offset", NULL);
    expect_422("{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'sinusoidal', 'sinusoidal': {'theta': 1}}",
               "/sinusoidal/theta", "unknown-field");
    /* t5 */
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 't5', 't5': {}}", "/t5/bias", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 't5', 't5': {'bias': [0, 1]}}", "/t5/bias",
               NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 't5', 't5': {'bias': [0, 1, 2, 3],"
               " 'num_buckets': 8}}",
               "/t5/bias", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 't5', 't5': {'bias': [[0, 1, 2, 3]],"
               " 'max_distance': 1}}",
               "/t5/max_distance", NULL);
    expect_422("{'q': [[1]], 'k': [[1]], 'method': 't5', 't5': {'bias': [0, 1, 2, 3],"
               " 'bidirectional': 'no'}}",
               "/t5/bidirectional", NULL);
    /* r = -1 reads bucket 1 (4 bidirectional buckets): 1e308 + 1e308 overflows */
    expect_422("{'q': [[1], [1]], 'k': [[1], [1]], 'method': 't5',"
               " 't5': {'bias': [0, 1e308, 2, 3]}, 'scale': 1e308}",
               "/t5", NULL);
    /* output limit */
    au_lim.max_output_elements = 20;
    expect_422("{'q': [[1], [2], [3], [4]], 'k': [[1], [2], [3], [4]]}", "/q", "limit-exceeded");
}
END_TEST

Suite *api_attention_suite(void)
{
    Suite *s = suite_create("api_attention");
    TCase *tc = tcase_create("attention");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_hand_two_tokens);
    tcase_add_test(tc, test_permutation);
    tcase_add_test(tc, test_oracle_cases);
    tcase_add_test(tc, test_alibi_method);
    tcase_add_test(tc, test_sinusoidal_method);
    tcase_add_test(tc, test_t5_method);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}
