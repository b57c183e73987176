/*
 * tests/api/check_api_attention_rope.c -- /attention method "rope" through api_handle (no sockets).
 * Expected values derived by hand below.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* Every request goes to POST /attention (api_util.h; these bodies are plain JSON). */
static json_t *ok(const char *body)
{
    return au_ok(api_attention, body);
}

/* scores or weights [i][k] */
static double at(const json_t *j, const char *key, int i, int k)
{
    return au_num(j, key, i, k, -1);
}

START_TEST(test_rope_two_tokens)
{
    /* One pair, 0.5 rad per position, positions 0 and 1, scale 1/sqrt(2).
     * q0 = (1,0) at 0 stays (1,0); q1 = (0,1) at 1 turns to (-sin .5, cos .5).
     * k0 = (1,0) stays (1,0);      k1 = (1,0) at 1 turns to (cos .5, sin .5).
     * logits·sqrt2: q0k0 = 1, q0k1 = cos .5, q1k0 = -sin .5, q1k1 = -sin.5 cos.5 + cos.5 sin.5 = 0.
     */
    json_t *j = ok("{\"method\":\"rope\",\"q\":[[1,0],[0,1]],\"k\":[[1,0],[1,0]],"
                   "\"rope\":{\"inv_freq\":[0.5]}}");
    double s = 1 / sqrt(2.0);
    ck_assert_double_eq_tol(at(j, "scores", 0, 0), s, 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 0, 1), s * cos(0.5), 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 1, 0), -s * sin(0.5), 1e-15);
    ck_assert_double_eq_tol(at(j, "scores", 1, 1), 0.0, 1e-15);
    /* weights row 0 = softmax(s, s cos .5) */
    double e0 = exp(s), e1 = exp(s * cos(0.5));
    ck_assert_double_eq_tol(at(j, "weights", 0, 0), e0 / (e0 + e1), 1e-15);
    json_decref(j);
}
END_TEST

START_TEST(test_rope_offset_keeps_scores)
{
    /* RoPE scores depend only on m - n: shifting both positions by an offset of 1000 changes
     * nothing (up to rounding of the larger angles, far below 1e-12). */
    json_t *a = ok("{\"method\":\"rope\",\"q\":[[1,2],[3,-1]],\"k\":[[0.5,1],[2,2]],"
                   "\"rope\":{\"head_dim\":2}}");
    json_t *b = ok("{\"method\":\"rope\",\"q\":[[1,2],[3,-1]],\"k\":[[0.5,1],[2,2]],"
                   "\"rope\":{\"offset\":1000}}");
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < 2; k++)
            ck_assert_double_eq_tol(at(a, "scores", i, k), at(b, "scores", i, k), 1e-12);
    json_decref(a);
    json_decref(b);
}
END_TEST

START_TEST(test_rope_softmax_scale_factor)
{
    /* DeepSeek-style yarn: mscale = mscale_all_dim = 1, factor 40 → attention_factor 1 and
     * logits × g² with g = 0.1 ln 40 + 1. Token 0 at position 0 is not rotated, so
     * score[0][0] = (q0·k0) / sqrt(4) × g² = 1 × 0.5 × g². */
    json_t *j =
        ok("{\"method\":\"rope\",\"q\":[[1,0,0,0],[0,0,0,1]],\"k\":[[1,0,0,0],[0,1,0,0]],"
           "\"rope\":{\"scaling\":{\"type\":\"yarn\",\"factor\":40,"
           "\"original_max_position_embeddings\":4096,\"mscale\":1,\"mscale_all_dim\":1}}}");
    double g = 0.1 * log(40.0) + 1;
    ck_assert_double_eq_tol(at(j, "scores", 0, 0), 0.5 * g * g, 1e-14);
    json_decref(j);
}
END_TEST

START_TEST(test_rope_errors)
{
    au_expect_422(api_attention,
                  "{\"method\":\"rope\",\"q\":[[1,0]],\"k\":[[1,0]],\"rope\":{\"head_dim\":4}}",
                  "/rope/head_dim", NULL);
    au_expect_422(api_attention,
                  "{\"method\":\"rope\",\"q\":[[1,0]],\"k\":[[1,0]],"
                  "\"rope\":{\"scaling\":{\"type\":\"linear\",\"factr\":2}}}",
                  "/rope/scaling/factr", NULL);
    /* odd width: RoPE needs pairs */
    au_expect_422(api_attention, "{\"method\":\"rope\",\"q\":[[1,0,1]],\"k\":[[1,0,1]]}",
                  "/rope/head_dim", NULL);
}
END_TEST

Suite *api_attention_rope_suite(void)
{
    Suite *s = suite_create("api_attention_rope");
    TCase *tc = tcase_create("rope");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_rope_two_tokens);
    tcase_add_test(tc, test_rope_offset_keeps_scores);
    tcase_add_test(tc, test_rope_softmax_scale_factor);
    tcase_add_test(tc, test_rope_errors);
    suite_add_tcase(s, tc);
    return s;
}
