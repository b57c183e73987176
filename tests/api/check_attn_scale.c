/*
 * tests/api/check_attn_scale.c -- a pasted config's own attention scale (api/model_scale.h) in
 * POST /attention (method rope, rope.config) and POST /model/method (parameters.scale).
 * HF (transformers v5): Gemma 2 scaling = query_pre_attn_scalar**-0.5 and soft-capping
 * 50 tanh(s / 50) (modeling_gemma2.py); Gemma 4 scaling = 1.0 (modeling_gemma4.py); Llama
 * head_dim**-0.5 (modeling_llama.py); Granite attention_multiplier (modeling_granite.py);
 * DeepSeek-V3 qk_head_dim**-0.5 x mscale^2 (modeling_deepseek_v3.py). Values derived by hand in
 * the comments: q = k = e0 rows; at positions 0 and 1 pair 0 (inv_freq 1) turns by 0 and 1 rad,
 * so q'_i . k'_j = cos(i - j) before the scale.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* gemma-2-27b's attention: head_dim 128, query_pre_attn_scalar 144 (they differ), softcap 50. */
#define GEMMA2_27B(softcap)                                                                        \
    "{'model_type': 'gemma2', 'num_hidden_layers': 2, 'hidden_size': 4608, "                       \
    "'num_attention_heads': 32, 'head_dim': 128, 'query_pre_attn_scalar': 144, "                   \
    "'rope_theta': 10000.0, 'attn_logit_softcapping': " softcap "}"

/* {"method": "rope", "q": [e0, e0], "k": [e0, e0] (width d), "rope": {"config": cfg}} + extra. */
static json_t *attend(int d, const char *cfg_sq, const char *extra, int *status)
{
    char row[2048] = "[1";
    for (int i = 1; i < d; i++)
        strcat(row, ",0");
    strcat(row, "]");
    size_t n = 2 * strlen(row) * 2 + strlen(cfg_sq) + 256;
    char *body = malloc(n);
    ck_assert_ptr_nonnull(body);
    snprintf(body, n, "{'method': 'rope', 'q': [%s, %s], 'k': [%s, %s], 'rope': {'config': %s}%s}",
             row, row, row, row, cfg_sq, extra);
    json_t *j = au_call(api_attention, body, status);
    free(body);
    return j;
}

static const char *res_str(const json_t *j, const char *a, const char *b, const char *c)
{
    const json_t *v = json_object_get(json_object_get(j, "resolved"), a);
    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Gemma 2 27B: scale 144^-0.5 = 1/12 (not 128^-0.5), then 50 tanh(s / 50):
 * scores[0][0] = 50 tanh((1/12) / 50) = 50 tanh(1/600), scores[1][0] = 50 tanh(cos 1 / 600).
 * Before this change: scores[0][0] = 1/sqrt(128) = 0.0884, no capping. */
START_TEST(test_gemma2)
{
    int st = 0;
    json_t *j = attend(128, GEMMA2_27B("50.0"), "", &st);
    ck_assert_int_eq(st, 200);
    ck_close(au_num(j, "scores", 0, 0, -1), 50.0 * tanh(1.0 / 600.0), 0.0, 1e-15);
    ck_close(au_num(j, "scores", 1, 0, -1), 50.0 * tanh(cos(1.0) / 600.0), 0.0, 1e-15);
    ck_close(au_num(j, "scores", 1, 1, -1), 50.0 * tanh(1.0 / 600.0), 0.0, 1e-15);
    json_t *res = json_object_get(j, "resolved");
    ck_close(au_num(res, "scale", -1, -1, -1), 1.0 / 12.0, 0.0, 1e-16);
    ck_close(au_num(res, "attn_logit_softcapping", -1, -1, -1), 50.0, 0.0, 0.0);
    ck_assert_ptr_nonnull(strstr(res_str(j, "scale_source", NULL, NULL),
                                 "config.query_pre_attn_scalar (modeling_gemma2.py"));
    ck_assert_ptr_nonnull(
        strstr(res_str(j, "rope", "sources", "scale"), "config.query_pre_attn_scalar"));
    ck_assert_ptr_nonnull(res_str(j, "rope", "sources", "attn_logit_softcapping"));
    /* used, so no longer ignored */
    ck_assert_ptr_null(res_str(j, "rope", "ignored", "config.query_pre_attn_scalar"));
    ck_assert_ptr_null(json_object_get(res, "caveats"));
    json_decref(j);
    /* attn_logit_softcapping null (None): no capping, scores[0][0] = 1/12 */
    j = attend(128, GEMMA2_27B("null"), "", &st);
    ck_assert_int_eq(st, 200);
    ck_close(au_num(j, "scores", 0, 0, -1), 1.0 / 12.0, 0.0, 1e-16);
    ck_close(au_num(j, "scores", 1, 0, -1), cos(1.0) / 12.0, 0.0, 1e-15);
    ck_assert_ptr_null(json_object_get(json_object_get(j, "resolved"), "attn_logit_softcapping"));
    json_decref(j);
}
END_TEST

/* An explicit scale wins: scores[0][0] = 0.5 x 1 (softcap null), said so in the source, and
 * query_pre_attn_scalar is ignored because of it. */
START_TEST(test_explicit_scale)
{
    int st = 0;
    json_t *j = attend(128, GEMMA2_27B("null"), ", 'scale': 0.5", &st);
    ck_assert_int_eq(st, 200);
    ck_close(au_num(j, "scores", 0, 0, -1), 0.5, 0.0, 0.0);
    ck_close(au_num(json_object_get(j, "resolved"), "scale", -1, -1, -1), 0.5, 0.0, 0.0);
    ck_assert_ptr_nonnull(strstr(res_str(j, "scale_source", NULL, NULL), "request"));
    ck_assert_str_eq(res_str(j, "rope", "ignored", "config.query_pre_attn_scalar"),
                     "the request's scale wins");
    json_decref(j);
}
END_TEST

/* Gemma 4 (scaling = 1.0): scores[1][0] = cos 1 (not cos 1 / sqrt 2); Llama: cos 1 / sqrt 2;
 * Granite attention_multiplier 1/64: scores[0][0] = 1/64. */
START_TEST(test_gemma4_llama_granite)
{
    int st = 0;
    json_t *j = attend(2,
                       "{'model_type': 'gemma4_text', 'num_hidden_layers': 1, 'hidden_size': 8, "
                       "'num_attention_heads': 4, 'head_dim': 2, 'rope_theta': 10000.0}",
                       "", &st);
    ck_assert_msg(st == 200, "gemma4 status %d", st);
    ck_close(au_num(j, "scores", 1, 0, -1), cos(1.0), 0.0, 1e-15);
    ck_close(au_num(j, "scores", 0, 0, -1), 1.0, 0.0, 1e-15);
    ck_close(au_num(json_object_get(j, "resolved"), "scale", -1, -1, -1), 1.0, 0.0, 0.0);
    ck_assert_ptr_nonnull(strstr(res_str(j, "scale_source", NULL, NULL), "modeling_gemma4.py"));
    json_decref(j);
    j = attend(2,
               "{'model_type': 'llama', 'num_hidden_layers': 1, 'hidden_size': 8, "
               "'num_attention_heads': 4, 'head_dim': 2, 'rope_theta': 10000.0}",
               "", &st);
    ck_assert_int_eq(st, 200);
    ck_close(au_num(j, "scores", 1, 0, -1), cos(1.0) / sqrt(2.0), 0.0, 1e-15);
    ck_assert_ptr_nonnull(strstr(res_str(j, "scale_source", NULL, NULL), "modeling_llama.py"));
    ck_assert_ptr_null(json_object_get(json_object_get(j, "resolved"), "caveats"));
    json_decref(j);
    j = attend(2,
               "{'model_type': 'granite', 'num_hidden_layers': 1, 'hidden_size': 8, "
               "'num_attention_heads': 4, 'head_dim': 2, 'rope_theta': 10000.0, "
               "'attention_multiplier': 0.015625}",
               "", &st);
    ck_assert_int_eq(st, 200);
    ck_close(au_num(j, "scores", 0, 0, -1), 0.015625, 0.0, 0.0);
    ck_assert_str_eq(res_str(j, "rope", "sources", "scale"),
                     "config.attention_multiplier (modeling_granite.py: scaling = "
                     "attention_multiplier; GraniteConfig default 1.0)");
    json_decref(j);
}
END_TEST

/* DeepSeek-V3 with YaRN (factor 4, mscale = mscale_all_dim = 1: attention_factor 1): scale
 * (6 + 2)^-0.5, times softmax_scale_factor (0.1 ln 4 + 1)^2: scores[0][0] = that x 1. */
START_TEST(test_deepseek)
{
    int st = 0;
    json_t *j = attend(2,
                       "{'model_type': 'deepseek_v3', 'num_hidden_layers': 1, 'hidden_size': 8, "
                       "'num_attention_heads': 1, 'qk_rope_head_dim': 2, 'qk_nope_head_dim': 6, "
                       "'rope_theta': 10000.0, 'max_position_embeddings': 64, 'rope_scaling': "
                       "{'type': 'yarn', 'factor': 4, 'original_max_position_embeddings': 16, "
                       "'mscale': 1, 'mscale_all_dim': 1}}",
                       "", &st);
    ck_assert_msg(st == 200, "deepseek status %d", st);
    double m = 0.1 * log(4.0) + 1.0;
    ck_close(au_num(j, "scores", 0, 0, -1), m * m / sqrt(8.0), 0.0, 1e-15);
    ck_close(au_num(json_object_get(j, "resolved"), "scale", -1, -1, -1), 1.0 / sqrt(8.0), 0.0,
             1e-16);
    json_decref(j);
}
END_TEST

/* A model_type not in the table: 1/sqrt(head_dim) with a caveat naming it; a bad key: 422. */
START_TEST(test_unknown_and_errors)
{
    int st = 0;
    json_t *j = attend(2,
                       "{'model_type': 'made_up_lm', 'num_hidden_layers': 1, 'head_dim': 2, "
                       "'rope_theta': 10000.0}",
                       "", &st);
    ck_assert_int_eq(st, 200);
    ck_close(au_num(j, "scores", 1, 0, -1), cos(1.0) / sqrt(2.0), 0.0, 1e-15);
    json_t *cv = json_object_get(json_object_get(j, "resolved"), "caveats");
    ck_assert_int_eq((int)json_array_size(cv), 1);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(cv, 0)), "\"made_up_lm\""));
    json_decref(j);
    au_expect_422(api_attention,
                  "{'method': 'rope', 'q': [[1,0]], 'k': [[1,0]], 'rope': {'config': "
                  "{'model_type': 'gemma2', 'head_dim': 2, 'query_pre_attn_scalar': 0}}}",
                  "/rope/config/query_pre_attn_scalar", NULL);
}
END_TEST

/* POST /model/method: each kind's parameters.scale with its source; /rope lists the key as
 * ignored (it changes the scores, not RoPE's numbers). */
START_TEST(test_model_method_and_rope)
{
    json_t *j = au_ok(api_model_method, GEMMA2_27B("50.0"));
    json_t *k0 = json_array_get(json_object_get(j, "kinds"), 0);
    ck_close(au_num(json_object_get(k0, "parameters"), "scale", -1, -1, -1), 1.0 / 12.0, 0.0,
             1e-16);
    ck_close(au_num(json_object_get(k0, "parameters"), "attn_logit_softcapping", -1, -1, -1), 50.0,
             0.0, 0.0);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(json_object_get(k0, "sources"), "scale")),
               "config.query_pre_attn_scalar"));
    json_decref(j);
    /* T5: no scaling in either stack (modeling_t5.py) */
    j = au_ok(api_model_method, "{'model_type': 't5', 'num_layers': 2, 'd_model': 8, "
                                "'num_heads': 2, 'd_kv': 4}");
    json_t *kinds = json_object_get(j, "kinds");
    ck_assert_int_eq((int)json_array_size(kinds), 2);
    for (size_t i = 0; i < 2; i++)
        ck_close(
            au_num(json_object_get(json_array_get(kinds, i), "parameters"), "scale", -1, -1, -1),
            1.0, 0.0, 0.0);
    json_decref(j);
    j = au_ok(api_rope, "{'positions': [0], 'config': " GEMMA2_27B("50.0") "}");
    ck_assert_ptr_nonnull(
        strstr(res_str(j, "ignored", "config.query_pre_attn_scalar", NULL), "attention scale"));
    json_decref(j);
}
END_TEST

Suite *attn_scale_suite(void)
{
    Suite *s = suite_create("attn_scale");
    TCase *tc = tcase_create("attn_scale");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_gemma2);
    tcase_add_test(tc, test_explicit_scale);
    tcase_add_test(tc, test_gemma4_llama_granite);
    tcase_add_test(tc, test_deepseek);
    tcase_add_test(tc, test_unknown_and_errors);
    tcase_add_test(tc, test_model_method_and_rope);
    suite_add_tcase(s, tc);
    return s;
}
