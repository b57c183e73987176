/*
 * tests/api/check_cfg_break.c -- published config.json files (issue 15, the cfg-breaker pass)
 * that posenc refused or answered differently from Hugging Face transformers. Each case keeps
 * the published keys that matter, says which repository published them, and derives the
 * expected numbers from the HF code it cites (not from posenc's output).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* CohereForAI/c4ai-command-r7b-12-2024 config.json (Cohere2ForCausalLM, transformers
 * 4.48.0.dev0), layers cut to 8; it and Command A / Tiny Aya carry
 * "position_embedding_type": "rope_gptj", which Cohere2Config does not read. */
#define COMMAND_R7B                                                                                \
    "{'architectures': ['Cohere2ForCausalLM'], 'head_dim': 128, 'hidden_size': 4096,"              \
    " 'layer_switch': 4, 'logit_scale': 0.25, 'max_position_embeddings': 132096,"                  \
    " 'model_type': 'cohere2', 'num_attention_heads': 32, 'num_hidden_layers': 8,"                 \
    " 'num_key_value_heads': 8, 'order_of_interleaved_layers': 'local_attn_first',"                \
    " 'position_embedding_type': 'rope_gptj', 'rope_scaling': null, 'rope_theta': 50000,"          \
    " 'rotary_pct': 1.0, 'sliding_window': 4096, 'sliding_window_pattern': 4}"

START_TEST(test_cohere2_rope_gptj)
{
    /* Was a 422 at /config/position_embedding_type ("this model's positions are not RoPE") on
     * POST /rope and POST /model/method. HF: Cohere2Config has no position_embedding_type;
     * modeling_cohere2.py rotates adjacent pairs (rotate_half on repeat_interleave'd cos/sin) at
     * rope_theta over head_dim 128 on the sliding layers (3 of every 4), none on the full ones.
     * inv_freq[1] = 50000^(-2/128). */
    json_t *j = au_ok(api_rope, "{'config': " COMMAND_R7B ", 'layer': 0, 'seq_len': 2}");
    ck_assert_str_eq(au_str(json_object_get(j, "resolved"), "layout"), "interleaved");
    ck_assert(au_close(au_num(j, "inv_freq", 1, -1, -1), pow(50000.0, -2.0 / 128.0), 1e-15, 1e-12));
    const json_t *ign = json_object_get(json_object_get(j, "resolved"), "ignored");
    ck_assert_ptr_nonnull(json_object_get(ign, "config.position_embedding_type"));
    json_decref(j);
    j = au_ok(api_model_method, COMMAND_R7B);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "kinds")), 2); /* rope, none */
    json_decref(j);
    /* another value still says the model is not RoPE */
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'cohere2', 'hidden_size': 512,"
                      " 'num_attention_heads': 4, 'num_hidden_layers': 4, 'rope_theta': 50000,"
                      " 'position_embedding_type': 'absolute'}, 'layer': 0}",
                      "/config/position_embedding_type", NULL);
}
END_TEST

/* microsoft/Phi-3.5-MoE-instruct config.json's rope_scaling (longrope with short_mscale and
 * long_mscale, both 1.243163121016122; 64 factors each, the long ones here 1.02 for brevity,
 * short all 1.0 as published). */
#define PHIMOE(mt, sm, lm)                                                                         \
    "{'model_type': '" mt "', 'hidden_size': 4096, 'num_attention_heads': 32,"                     \
    " 'num_hidden_layers': 2, 'max_position_embeddings': 131072, 'rope_theta': 10000.0,"           \
    " 'rope_scaling': {'type': 'longrope', 'original_max_position_embeddings': 4096,"              \
    " 'short_mscale': " sm ", 'long_mscale': " lm                                                  \
    ", 'short_factor': [" F64(1.0) "],"                                                            \
                                   " 'long_factor': [" F64(1.02) "]}}"
#define F8(x) #x "," #x "," #x "," #x "," #x "," #x "," #x "," #x
#define F64(x) F8(x) "," F8(x) "," F8(x) "," F8(x) "," F8(x) "," F8(x) "," F8(x) "," F8(x)

START_TEST(test_phimoe_mscale)
{
    /* Was a 422 at /config/rope_scaling/long_mscale ("a scaling field posenc does not read").
     * HF modular_phimoe.py PhimoeRotaryEmbedding.forward: cos and sin times long_mscale when
     * seq_len = max(position_ids) + 1 > original_max_position_embeddings, else short_mscale, in
     * place of longrope's attention factor. The published values are equal; 1.1 / 1.3 (edited)
     * show the choice. */
    char body[4096];
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 4096}",
             PHIMOE("phimoe", "1.243163121016122", "1.243163121016122"));
    json_t *j = au_ok(api_rope, body);
    ck_assert(au_close(au_num(j, "attention_factor", -1, -1, -1), 1.243163121016122, 0, 1e-15));
    json_decref(j);
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 4096}", PHIMOE("phimoe", "1.1", "1.3"));
    j = au_ok(api_rope, body);
    ck_assert(au_close(au_num(j, "attention_factor", -1, -1, -1), 1.1, 0, 1e-15));
    json_decref(j);
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 4097}", PHIMOE("phimoe", "1.1", "1.3"));
    j = au_ok(api_rope, body);
    ck_assert(au_close(au_num(j, "attention_factor", -1, -1, -1), 1.3, 0, 1e-15));
    /* the long list at 4097: inv_freq[0] = 1 / 1.02 */
    ck_assert(au_close(au_num(j, "inv_freq", 0, -1, -1), 1.0 / 1.02, 0, 1e-15));
    json_decref(j);
    /* any other model_type: still the 422 at the key (read for phimoe only) */
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 4097}", PHIMOE("phi3", "1.1", "1.3"));
    au_expect_422(api_rope, body, "/config/rope_scaling/short_mscale", NULL);
}
END_TEST

START_TEST(test_dual_chunk_listed)
{
    /* Qwen/Qwen2.5-7B-Instruct-1M config.json: dual_chunk_attention_config (vLLM's) was dropped
     * without a word (neither in resolved.sources nor resolved.ignored). HF's Qwen2 rotates
     * plainly at rope_theta 1e7: inv_freq[1] = 1e7^(-2/128); the key is listed in
     * resolved.ignored. */
    json_t *j =
        au_ok(api_rope, "{'config': {'model_type': 'qwen2', 'hidden_size': 3584,"
                        " 'num_attention_heads': 28, 'num_key_value_heads': 4,"
                        " 'num_hidden_layers': 28, 'max_position_embeddings': 1010000,"
                        " 'rope_theta': 10000000.0, 'rope_scaling': null,"
                        " 'dual_chunk_attention_config': {'chunk_size': 262144, 'local_size': 8192,"
                        " 'original_max_position_embeddings': 262144},"
                        " 'sliding_window': 32768, 'use_sliding_window': false}, 'seq_len': 2}");
    ck_assert(au_close(au_num(j, "inv_freq", 1, -1, -1), pow(1e7, -2.0 / 128.0), 1e-15, 1e-12));
    const json_t *ign = json_object_get(json_object_get(j, "resolved"), "ignored");
    ck_assert_ptr_nonnull(json_object_get(ign, "config.dual_chunk_attention_config"));
    json_decref(j);
}
END_TEST

/* moonshotai/Kimi-K2-Instruct config.json (model_type kimi_k2, architectures
 * DeepseekV3ForCausalLM, auto_map to the repository's modeling_deepseek.py), layers cut to 2 */
#define KIMI_K2                                                                                    \
    "{'architectures': ['DeepseekV3ForCausalLM'], 'model_type': 'kimi_k2', 'hidden_size': 7168,"   \
    " 'num_attention_heads': 64, 'num_key_value_heads': 64, 'num_hidden_layers': 2,"               \
    " 'kv_lora_rank': 512, 'q_lora_rank': 1536, 'qk_nope_head_dim': 128, 'qk_rope_head_dim': 64,"  \
    " 'v_head_dim': 128, 'max_position_embeddings': 131072, 'rope_theta': 50000.0,"                \
    " 'rope_scaling': {'beta_fast': 1.0, 'beta_slow': 1.0, 'factor': 32.0, 'mscale': 1.0,"         \
    " 'mscale_all_dim': 1.0, 'original_max_position_embeddings': 4096, 'type': 'yarn'}}"

START_TEST(test_kimi_k2_deepseek)
{
    /* Kimi K2 is DeepSeek-V3's architecture under model_type kimi_k2 (no transformers port; the
     * Hub's modeling_deepseek.py, as vLLM's DeepseekV3 path): apply_rotary_pos_emb permutes q and
     * k into adjacent pairs, softmax_scale = (128 + 64)^-0.5 x mscale(32, 1)^2 with mscale(s, m)
     * = 0.1 m ln s + 1. Before: half layout, scale 1/sqrt(64) = 0.125 (LlamaAttention's rule,
     * assumed) and softmax_scale_factor 1 with a warning. */
    json_t *j = au_ok(api_rope, "{'config': " KIMI_K2 ", 'seq_len': 2}");
    ck_assert_str_eq(au_str(json_object_get(j, "resolved"), "layout"), "interleaved");
    double m = 0.1 * log(32.0) + 1.0;
    ck_assert(au_close(au_num(j, "softmax_scale_factor", -1, -1, -1), m * m, 0, 1e-15));
    ck_assert(au_close(au_num(j, "attention_factor", -1, -1, -1), 1.0, 0, 1e-15));
    json_decref(j);
    j = au_ok(api_model_method, KIMI_K2);
    const json_t *par =
        json_object_get(json_array_get(json_object_get(j, "kinds"), 0), "parameters");
    ck_assert(au_close(au_number(json_object_get(par, "scale")), 1.0 / sqrt(192.0), 0, 1e-15));
    json_decref(j);
}
END_TEST

START_TEST(test_deepseek_v4_refused)
{
    /* DeepSeek-V4-Flash's keys (deepseek-ai/DeepSeek-V4-Flash config.json as other projects'
     * fixtures copy it: compress_ratios, compress_rope_theta 160000, qk_rope_head_dim 64 of
     * head_dim 512; a yarn rope_scaling), 4 layers. HF's DeepseekV4Config.__post_init__
     * (configuration_deepseek_v4.py) builds rope_parameters {"main": default at rope_theta,
     * "compress": the yarn at compress_rope_theta with attention_factor 1.0}. posenc answered one
     * kind, every layer rope_theta 10000 with the yarn and attention factor 0.1 ln 16 + 1, which
     * is no layer's numbers. Now a 422 at model_type on both routes; compress_rope_theta in
     * another model_type's file is a 422 at the key (it was dropped without a word). */
    static const char CFG[] =
        "{'architectures': ['DeepseekV4ForCausalLM'], 'model_type': 'deepseek_v4',"
        " 'hidden_size': 4096, 'num_hidden_layers': 4, 'num_attention_heads': 64,"
        " 'num_key_value_heads': 1, 'head_dim': 512, 'qk_rope_head_dim': 64,"
        " 'max_position_embeddings': 1048576, 'rope_theta': 10000, 'compress_rope_theta': 160000.0,"
        " 'compress_ratios': [0, 0, 4, 128], 'sliding_window': 128, 'rope_scaling': {'type':"
        " 'yarn', 'factor': 16, 'original_max_position_embeddings': 65536}}";
    char body[1024];
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 2}", CFG);
    au_expect_422_msg(api_rope, body, "/config/model_type", "compress_rope_theta");
    au_expect_422_msg(api_model_method, CFG, "/model_type", "compress_rope_theta");
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'llama', 'hidden_size': 256,"
                  " 'num_attention_heads': 4, 'compress_rope_theta': 160000}, 'seq_len': 2}",
                  "/config/compress_rope_theta", NULL);
}
END_TEST

START_TEST(test_glm5_half_mla_scale)
{
    /* GLM-5 (model_type glm_moe_dsa; GlmMoeDsaConfig's defaults, which follow zai-org/GLM-5:
     * qk_nope_head_dim 192, qk_rope_head_dim 64, rope_theta 1e6) with "rope_interleave": true,
     * which the config class documents. HF's GlmMoeDsaAttention (modeling_glm_moe_dsa.py) never
     * reads it: apply_rotary_pos_emb is rotate_half; scaling = (192 + 64)^-0.5 = 1/16. Before:
     * adjacent pairs (from rope_interleave) and 1/sqrt(64) = 0.125 "assumed". */
    static const char CFG[] =
        "{'architectures': ['GlmMoeDsaForCausalLM'], 'model_type': 'glm_moe_dsa',"
        " 'hidden_size': 6144, 'num_hidden_layers': 2, 'num_attention_heads': 64,"
        " 'num_key_value_heads': 64, 'q_lora_rank': 2048, 'kv_lora_rank': 512,"
        " 'qk_nope_head_dim': 192, 'qk_rope_head_dim': 64, 'v_head_dim': 256,"
        " 'max_position_embeddings': 202752, 'rope_theta': 1000000, 'rope_interleave': true}";
    char body[1024];
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 2}", CFG);
    json_t *j = au_ok(api_rope, body);
    ck_assert_str_eq(au_str(json_object_get(j, "resolved"), "layout"), "half");
    ck_assert(au_close(au_num(j, "inv_freq", 1, -1, -1), pow(1e6, -2.0 / 64.0), 1e-15, 1e-12));
    json_decref(j);
    j = au_ok(api_model_method, CFG);
    const json_t *par =
        json_object_get(json_array_get(json_object_get(j, "kinds"), 0), "parameters");
    ck_assert(au_close(au_number(json_object_get(par, "scale")), 1.0 / 16.0, 0, 1e-15));
    json_decref(j);
}
END_TEST

Suite *cfg_break_suite(void)
{
    Suite *s = suite_create("cfg_break");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_cohere2_rope_gptj);
    tcase_add_test(tc, test_phimoe_mscale);
    tcase_add_test(tc, test_dual_chunk_listed);
    tcase_add_test(tc, test_kimi_k2_deepseek);
    tcase_add_test(tc, test_deepseek_v4_refused);
    tcase_add_test(tc, test_glm5_half_mla_scale);
    suite_add_tcase(s, tc);
    return s;
}
