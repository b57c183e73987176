/*
 * tests/check_api_attention_rope.c -- /attention method "rope" through api_handle (no sockets).
 * Expected values derived by hand below.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "api.h"
#include "cache.h"

static json_t *run(const char *body, int *status)
{
    api_limits lim;
    api_limits_default(&lim);
    pe_cache *c = pe_cache_create(1u << 20, 1024);
    api_ctx ctx = {0};
    ctx.lim = &lim;
    ctx.cache = c;
    api_response r;
    api_handle(&ctx, api_attention, body, strlen(body), "t", &r);
    *status = r.status;
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    api_response_free(&r);
    pe_cache_destroy(c);
    ck_assert_ptr_nonnull(j);
    return j;
}

static double at(const json_t *j, const char *key, size_t i, size_t k)
{
    return json_number_value(json_array_get(json_array_get(json_object_get(j, key), i), k));
}

START_TEST(test_rope_two_tokens)
{
    /* One pair, 0.5 rad per position, positions 0 and 1, scale 1/sqrt(2).
     * q0 = (1,0) at 0 stays (1,0); q1 = (0,1) at 1 turns to (-sin .5, cos .5).
     * k0 = (1,0) stays (1,0);      k1 = (1,0) at 1 turns to (cos .5, sin .5).
     * logits·sqrt2: q0k0 = 1, q0k1 = cos .5, q1k0 = -sin .5, q1k1 = -sin.5 cos.5 + cos.5 sin.5 = 0. */
    int st;
    json_t *j = run("{\"method\":\"rope\",\"q\":[[1,0],[0,1]],\"k\":[[1,0],[1,0]],"
                    "\"rope\":{\"inv_freq\":[0.5]}}",
                    &st);
    ck_assert_int_eq(st, 200);
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
    int st;
    json_t *a = run("{\"method\":\"rope\",\"q\":[[1,2],[3,-1]],\"k\":[[0.5,1],[2,2]],"
                    "\"rope\":{\"head_dim\":2}}",
                    &st);
    ck_assert_int_eq(st, 200);
    json_t *b = run("{\"method\":\"rope\",\"q\":[[1,2],[3,-1]],\"k\":[[0.5,1],[2,2]],"
                    "\"rope\":{\"offset\":1000}}",
                    &st);
    ck_assert_int_eq(st, 200);
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
    int st;
    json_t *j = run("{\"method\":\"rope\",\"q\":[[1,0,0,0],[0,0,0,1]],\"k\":[[1,0,0,0],[0,1,0,0]],"
                    "\"rope\":{\"scaling\":{\"type\":\"yarn\",\"factor\":40,"
                    "\"original_max_position_embeddings\":4096,\"mscale\":1,\"mscale_all_dim\":1}}}",
                    &st);
    ck_assert_int_eq(st, 200);
    double g = 0.1 * log(40.0) + 1;
    ck_assert_double_eq_tol(at(j, "scores", 0, 0), 0.5 * g * g, 1e-14);
    json_decref(j);
}
END_TEST

START_TEST(test_rope_errors)
{
    int st;
    json_t *j = run("{\"method\":\"rope\",\"q\":[[1,0]],\"k\":[[1,0]],\"rope\":{\"head_dim\":4}}", &st);
    ck_assert_int_eq(st, 422);
    const char *p = json_string_value(
        json_object_get(json_array_get(json_object_get(j, "errors"), 0), "pointer"));
    ck_assert_str_eq(p, "/rope/head_dim");
    json_decref(j);
    j = run("{\"method\":\"rope\",\"q\":[[1,0]],\"k\":[[1,0]],"
            "\"rope\":{\"scaling\":{\"type\":\"linear\",\"factr\":2}}}",
            &st);
    ck_assert_int_eq(st, 422);
    p = json_string_value(json_object_get(json_array_get(json_object_get(j, "errors"), 0), "pointer"));
    ck_assert_str_eq(p, "/rope/scaling/factr");
    json_decref(j);
    /* odd width: RoPE needs pairs */
    j = run("{\"method\":\"rope\",\"q\":[[1,0,1]],\"k\":[[1,0,1]]}", &st);
    ck_assert_int_eq(st, 422);
    p = json_string_value(json_object_get(json_array_get(json_object_get(j, "errors"), 0), "pointer"));
    ck_assert_str_eq(p, "/rope/head_dim");
    json_decref(j);
}
END_TEST

Suite *api_attention_rope_suite(void)
{
    Suite *s = suite_create("api_attention_rope");
    TCase *tc = tcase_create("rope");
    tcase_add_test(tc, test_rope_two_tokens);
    tcase_add_test(tc, test_rope_offset_keeps_scores);
    tcase_add_test(tc, test_rope_softmax_scale_factor);
    tcase_add_test(tc, test_rope_errors);
    suite_add_tcase(s, tc);
    return s;
}
