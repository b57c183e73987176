/*
 * tests/api/check_model_break.c -- pasted configs that answered 200 with numbers Hugging Face does
 * not compute (issue 15, outside review). Each value is derived by hand from the HF file named:
 *   - cohere / cohere2 rotate adjacent pairs (modeling_cohere*.py rotate_half: x[..., ::2],
 *     x[..., 1::2]; repeat_interleave of the frequencies);
 *   - cohere2 applies RoPE only in its sliding layers (`if self.sliding_window is not None`), the
 *     layer types following sliding_window_pattern (default 4): with 8 layers, 3 and 7 are full;
 *   - class defaults a file may omit: Gemma2Config / GemmaConfig head_dim 256 (PaliGemma 2's
 *     text_config: 2304 / 8 would be 288), NemotronConfig partial_rotary_factor 0.5,
 *     StableLmConfig 0.25, GPTJConfig rotary_dim 64;
 *   - Qwen3-Next: layer_types default from full_attention_interval (4), linear-attention layers
 * take no positions; Mllama's cross_attention_layers take none (MllamaTextCrossAttention);
 *   - chatglm (remote code) and bamba (BambaConfig fixes its RoPE) are 422s, not a guess;
 *   - MPT's attn_config.alibi_bias_max other than 8 is a 422 (transformers' MptModel uses 8).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

static const char *resolved_str(const json_t *j, const char *key)
{
    return json_string_value(json_object_get(json_object_get(j, "resolved"), key));
}

static json_int_t resolved_int(const json_t *j, const char *key)
{
    return json_integer_value(json_object_get(json_object_get(j, "resolved"), key));
}

/* method of layer l in a /model/method answer */
static const char *layer_method(const json_t *j, size_t l)
{
    json_int_t k = json_integer_value(json_array_get(json_object_get(j, "layers"), l));
    json_t *kind = json_array_get(json_object_get(j, "kinds"), (size_t)k);
    return json_string_value(json_object_get(kind, "method"));
}

#define COHERE2                                                                                    \
    "'model_type': 'cohere2', 'hidden_size': 64, 'num_attention_heads': 4, "                       \
    "'num_hidden_layers': 8, 'rope_theta': 50000, 'sliding_window': 4096, "                        \
    "'sliding_window_pattern': 4"

START_TEST(test_cohere)
{
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'cohere', 'hidden_size': 64, "
                                "'num_attention_heads': 4, 'num_hidden_layers': 2}}");
    ck_assert_str_eq(resolved_str(j, "layout"), "interleaved");
    json_decref(j);
    j = au_ok(api_model_method, "{" COHERE2 "}");
    for (size_t l = 0; l < 8; l++)
        ck_assert_str_eq(layer_method(j, l), (l + 1) % 4 == 0 ? "none" : "rope");
    json_decref(j);
    j = au_ok(api_rope, "{'config': {" COHERE2 "}, 'layer': 0}");
    ck_assert_str_eq(resolved_str(j, "layout"), "interleaved");
    json_decref(j);
    au_expect_422(api_rope, "{'config': {" COHERE2 "}, 'layer': 3}", "/layer", NULL);
}
END_TEST

START_TEST(test_class_defaults)
{
    /* PaliGemma 2 3B's text_config as published: no head_dim */
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'paligemma', 'text_config': "
                                "{'hidden_size': 2304, 'model_type': 'gemma2', "
                                "'num_attention_heads': 8, 'num_hidden_layers': 26}}}");
    ck_assert_int_eq(resolved_int(j, "head_dim"), 256);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), pow(10000.0, -2.0 / 256.0), 0.0, 1e-15);
    json_decref(j);
    j = au_ok(api_rope, "{'config': {'model_type': 'nemotron', 'hidden_size': 512, "
                        "'num_attention_heads': 4, 'head_dim': 128, 'num_hidden_layers': 2}}");
    ck_assert_int_eq(resolved_int(j, "rotary_dim"), 64); /* 128 x 0.5 */
    json_decref(j);
    j = au_ok(api_rope, "{'config': {'model_type': 'stablelm', 'hidden_size': 2560, "
                        "'num_attention_heads': 32, 'num_hidden_layers': 2}}");
    ck_assert_int_eq(resolved_int(j, "rotary_dim"), 20); /* floor(80 x 0.25) */
    json_decref(j);
    j = au_ok(api_rope, "{'config': {'model_type': 'gptj', 'n_embd': 4096, 'n_head': 16}}");
    ck_assert_int_eq(resolved_int(j, "rotary_dim"), 64);
    json_decref(j);
    /* rotary_dim null: GPT-J rotates the whole head (pos_embd_dim = rotary_dim or embed_dim) */
    j = au_ok(api_rope, "{'config': {'model_type': 'gptj', 'n_embd': 4096, 'n_head': 16, "
                        "'rotary_dim': null}}");
    ck_assert_int_eq(resolved_int(j, "rotary_dim"), 256);
    json_decref(j);
}
END_TEST

START_TEST(test_layer_structures)
{
    json_t *j =
        au_ok(api_model_method,
              "{'model_type': 'qwen3_next', 'hidden_size': 2048, 'num_attention_heads': 16, "
              "'head_dim': 256, 'num_hidden_layers': 8, 'partial_rotary_factor': 0.25, "
              "'rope_theta': 10000000}");
    for (size_t l = 0; l < 8; l++)
        ck_assert_str_eq(layer_method(j, l), (l + 1) % 4 == 0 ? "rope" : "none");
    json_decref(j);
    j = au_ok(api_model_method, "{'model_type': 'mllama', 'text_config': {'model_type': "
                                "'mllama_text_model', 'hidden_size': 64, 'num_attention_heads': "
                                "4, 'num_hidden_layers': 5, 'cross_attention_layers': [3], "
                                "'rope_theta': 500000}}");
    for (size_t l = 0; l < 5; l++)
        ck_assert_str_eq(layer_method(j, l), l == 3 ? "none" : "rope");
    json_decref(j);
}
END_TEST

START_TEST(test_refused)
{
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'chatglm', 'hidden_size': 4096, "
                  "'num_attention_heads': 32, 'num_layers': 2, 'kv_channels': 128}}",
                  "/config/model_type", NULL);
    au_expect_422(api_model_method,
                  "{'model_type': 'bamba', 'hidden_size': 4096, 'num_attention_heads': 32, "
                  "'num_hidden_layers': 4, 'attn_layer_indices': [2], 'rope_theta': 10000}",
                  "/model_type", NULL);
}
END_TEST

START_TEST(test_mpt_bias_max)
{
    /* transformers' MptModel: build_mpt_alibi_tensor(..., alibi_bias_max=8) whatever the file says,
     * MosaicML's remote code reads it: any other value is a 422 (before: 200, the default slopes)
     */
    au_expect_422(api_model_method,
                  "{'model_type': 'mpt', 'd_model': 64, 'n_heads': 4, 'n_layers': 1, "
                  "'attn_config': {'alibi': true, 'alibi_bias_max': 16}}",
                  "/attn_config/alibi_bias_max", NULL);
    json_t *j = au_ok(api_model_method, "{'model_type': 'mpt', 'd_model': 64, 'n_heads': 4, "
                                        "'n_layers': 1, 'attn_config': {'alibi': true, "
                                        "'alibi_bias_max': 8}}");
    json_t *req = json_object_get(json_array_get(json_object_get(j, "kinds"), 0), "request");
    json_object_set_new(req, "seq_len", json_integer(2));
    char *body = json_dumps(req, 0);
    int st = 0;
    char *resp = au_send(api_alibi, body, &st);
    ck_assert_int_eq(st, 200);
    json_t *a = au_parse(resp);
    /* m_h = h x 8 / 4 (h = 1..4), slope 2^-m: 2^-2 for head 0 */
    ck_close(au_num(a, "slopes", 0, -1, -1), 0.25, 0.0, 1e-15);
    json_decref(a);
    free(resp);
    free(body);
    json_decref(j);
}
END_TEST

/* HF v5 RotaryEmbeddingConfigMixin: rope_parameters.setdefault("rope_theta", top-level) keeps the
 * inner value; the same for partial_rotary_factor. head 16, rotary 8, base 500:
 * inv_freq[1] = 500^(-2/8). Before: the top-level 10000 and 1.0 were read. (stablelm, whose
 * attention cuts the rotated part: llama's rotates the whole head, tests/api/check_full_head.c.) */
START_TEST(test_v5_params_win)
{
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'stablelm', 'hidden_size': 64, "
                                "'num_attention_heads': 4, 'rope_theta': 10000, "
                                "'partial_rotary_factor': 1.0, 'rope_parameters': {'rope_type': "
                                "'default', 'rope_theta': 500, 'partial_rotary_factor': 0.5}}}");
    ck_assert_int_eq(resolved_int(j, "rotary_dim"), 8);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), pow(500.0, -0.25), 0.0, 1e-15);
    json_decref(j);
}
END_TEST

/* POST /model/method refuses what POST /rope refuses: a position key posenc does not read (Phi-3.5
 * MoE's short_mscale, ChatGLM's rope_ratio). Before: 200, the kind's parameters silently without
 * it. */
START_TEST(test_method_unread_keys)
{
    au_expect_422(api_model_method,
                  "{'model_type': 'llama', 'hidden_size': 64, 'num_attention_heads': 4, "
                  "'num_hidden_layers': 2, 'rope_ratio': 5}",
                  "/rope_ratio", NULL);
    au_expect_422(api_model_method,
                  "{'config': {'model_type': 'llava', 'text_config': {'model_type': 'llama', "
                  "'hidden_size': 64, 'num_attention_heads': 4, 'num_hidden_layers': 2, "
                  "'rope_scaling': {'rope_type': 'linear', 'factor': 2, 'short_mscale': 1.2}}}}",
                  "/config/text_config/rope_scaling/short_mscale", NULL);
}
END_TEST

/* Gemma 3n (modeling_gemma3n.py): as Gemma 3, sliding layers use rope_local_base_freq (here 10000)
 * without scaling, full layers rope_theta (1e6). Before: one kind, base 1e6 for every layer.
 * Layer 0's inv_freq[1] = 10000^(-2/256). */
#define GEMMA3N                                                                                    \
    "{'model_type': 'gemma3n', 'text_config': {'model_type': 'gemma3n_text', 'hidden_size': "      \
    "2048, 'num_attention_heads': 8, 'head_dim': 256, 'num_hidden_layers': 5, 'rope_theta': "      \
    "1000000.0, 'rope_local_base_freq': 10000.0, 'sliding_window': 512, 'layer_types': "           \
    "['sliding_attention', 'sliding_attention', 'sliding_attention', 'sliding_attention', "        \
    "'full_attention']}}"

START_TEST(test_gemma3n_local_base)
{
    json_t *j = au_ok(api_model_method, GEMMA3N);
    ck_assert_int_eq((int)json_array_size(json_object_get(j, "kinds")), 2);
    json_decref(j);
    j = au_ok(api_rope, "{'config': " GEMMA3N ", 'layer': 0}");
    ck_close(au_num(j, "inv_freq", 1, -1, -1), pow(10000.0, -2.0 / 256.0), 0.0, 1e-15);
    json_decref(j);
    j = au_ok(api_rope, "{'config': " GEMMA3N ", 'layer': 4}");
    ck_close(au_num(j, "inv_freq", 1, -1, -1), pow(1e6, -2.0 / 256.0), 0.0, 1e-15);
    json_decref(j);
}
END_TEST

/* layer_types entries posenc cannot place: a 422 at the entry (before: read as full attention with
 * RoPE, 200). HF's layer_type_validation refuses unknown types too. */
START_TEST(test_unknown_layer_type)
{
    au_expect_422(api_model_method,
                  "{'model_type': 'llama', 'hidden_size': 64, 'num_attention_heads': 4, "
                  "'num_hidden_layers': 2, 'layer_types': ['full_attention', 'banana']}",
                  "/layer_types/1", NULL);
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'llama', 'hidden_size': 64, 'num_attention_heads': 4, "
                  "'num_hidden_layers': 2, 'layer_types': ['full_attention', 'hybrid']}, "
                  "'layer': 1}",
                  "/config/layer_types/1", NULL);
}
END_TEST

/* MiniMax-Text-01's attn_type_list: 0 = lightning attention, no positions; 1 = softmax with RoPE
 * (before: every layer RoPE). Qwen (v1)'s use_dynamic_ntk / use_logn_attn change the base and the
 * queries past seq_length: true is a 422 (before: dropped silently), false is ignored. */
START_TEST(test_minimax_qwen1)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'minimax', 'hidden_size': 512, 'num_attention_heads': 4, "
                      "'head_dim': 128, 'num_hidden_layers': 4, 'rotary_dim': 64, 'rope_theta': "
                      "10000000, 'attn_type_list': [0, 0, 0, 1]}");
    for (size_t l = 0; l < 4; l++)
        ck_assert_str_eq(layer_method(j, l), l == 3 ? "rope" : "none");
    json_decref(j);
#define QWEN1                                                                                      \
    "'model_type': 'qwen', 'hidden_size': 4096, 'num_attention_heads': 32, "                       \
    "'num_hidden_layers': 2, 'rotary_emb_base': 10000, 'seq_length': 8192"
    au_expect_422(api_rope, "{'config': {" QWEN1 ", 'use_dynamic_ntk': true}}",
                  "/config/use_dynamic_ntk", NULL);
    au_expect_422(api_model_method, "{" QWEN1 ", 'use_logn_attn': true}", "/use_logn_attn", NULL);
    j = au_ok(api_rope,
              "{'config': {" QWEN1 ", 'use_dynamic_ntk': false, 'use_logn_attn': false}}");
    json_decref(j);
}
END_TEST

/* A long model_type of 2-byte characters (breaker2). "aa" + 30 x "\u00e9" (2 bytes each) is 62
 * bytes; the 48-byte model_type field kept 47, half of the 23rd character, and jansson's json_pack
 * refused the answer's model_type: a 503 "out of memory". Now the field keeps "aa" + 22 x "\u00e9"
 * (46 bytes, whole characters). With "a" + 30 x "\u00e9" the warning's %.40s keeps "a", 19 whole
 * characters and half of the 20th: json_string refused it and the JSON answer lost that warning;
 * now the half character is U+FFFD (EF BF BD), as in /rope's answers. Seen failing before the fix
 * (503, then no warnings member). */
START_TEST(test_long_model_type_utf8)
{
    char e30[61] = "";
    for (int i = 0; i < 30; i++)
        strcat(e30, "\xc3\xa9");
    char req[400];
    snprintf(req, sizeof req,
             "{'model_type': 'aa%s', 'hidden_size': 32, 'num_attention_heads': 4, "
             "'rope_theta': 10000, 'num_hidden_layers': 2}",
             e30);
    json_t *j = au_ok(api_model_method, req);
    char want[64] = "aa";
    for (int i = 0; i < 22; i++)
        strcat(want, "\xc3\xa9");
    ck_assert_str_eq(json_string_value(json_object_get(j, "model_type")), want);
    json_decref(j);
    snprintf(req, sizeof req,
             "{'model_type': 'a%s', 'hidden_size': 32, 'num_attention_heads': 4, "
             "'rope_theta': 10000, 'num_hidden_layers': 2}",
             e30);
    j = au_ok(api_model_method, req);
    json_t *warn = json_object_get(j, "warnings");
    ck_assert_uint_ge(json_array_size(warn), 1);
    const char *w0 = json_string_value(json_array_get(warn, 0));
    ck_assert_ptr_nonnull(strstr(w0, "\xc3\xa9\xef\xbf\xbd\" is not in posenc's table"));
    json_decref(j);
}
END_TEST

Suite *model_break_suite(void)
{
    Suite *s = suite_create("model_break");
    TCase *tc = tcase_create("break");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_cohere);
    tcase_add_test(tc, test_class_defaults);
    tcase_add_test(tc, test_layer_structures);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_mpt_bias_max);
    tcase_add_test(tc, test_v5_params_win);
    tcase_add_test(tc, test_method_unread_keys);
    tcase_add_test(tc, test_gemma3n_local_base);
    tcase_add_test(tc, test_unknown_layer_type);
    tcase_add_test(tc, test_minimax_qwen1);
    tcase_add_test(tc, test_long_model_type_utf8);
    suite_add_tcase(s, tc);
    return s;
}
