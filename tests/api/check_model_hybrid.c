/*
 * tests/api/check_model_hybrid.c -- hybrid and attention-free model types (issue 15): POST
 * /model/method and /rope for jamba, nemotron_h, granitemoehybrid, falcon_h1, lfm2, zamba2,
 * kimi_linear, nemotron-nas, minimax_m2 and the Mamba / RWKV families, against the rules read in
 * Hugging Face's configuration_<type>.py / modeling_<type>.py (each assertion says which). Small
 * hand-written configs; the published files are in the corpus (check_model_corpus.c).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* The method of layer l of a /model/method answer j. */
static const char *layer_method(const json_t *j, size_t l)
{
    return au_str(au_layer_kind(j, l), "method");
}

/* JambaConfig.layers_block_type: "attention" where i % attn_layer_period == attn_layer_offset,
 * else "mamba"; JambaAttention applies no rotary embedding (modeling_jamba.py): every layer is
 * "none", attention layers (mixer attention) apart from the Mamba ones. 16 layers, period 8,
 * offset 4: attention at 4 and 12. Scale 1/sqrt(4096 / 32) = 1/sqrt(128). */
START_TEST(test_jamba)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'jamba', 'num_hidden_layers': 16, "
                                        "'hidden_size': 4096, 'num_attention_heads': 32, "
                                        "'attn_layer_period': 8, 'attn_layer_offset': 4, "
                                        "'max_position_embeddings': 262144}");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "num_layers")), 16);
    for (size_t l = 0; l < 16; l++) {
        ck_assert_str_eq(layer_method(j, l), "none");
        ck_assert_str_eq(au_str(au_layer_kind(j, l), "mixer"), l % 8 == 4 ? "attention" : "mamba");
    }
    ck_assert_uint_eq(json_array_size(json_object_get(j, "kinds")), 2);
    const json_t *att = au_layer_kind(j, 4);
    double sc = au_number(json_object_get(json_object_get(att, "parameters"), "scale"));
    ck_assert_msg(fabs(sc - 1.0 / sqrt(128.0)) < 1e-15, "scale %.17g", sc);
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);
    /* the defaults: period 8, offset 4 (JambaConfig) */
    j = au_ok(api_model_method, "{'model_type': 'jamba', 'num_hidden_layers': 8}");
    ck_assert_str_eq(au_str(au_layer_kind(j, 4), "mixer"), "attention");
    ck_assert_str_eq(au_str(au_layer_kind(j, 3), "mixer"), "mamba");
    json_decref(j);
    /* JambaConfig._check_supported_offset: offset < period */
    au_expect_422(api_model_method,
                  "{'model_type': 'jamba', 'num_hidden_layers': 8, 'attn_layer_period': 4, "
                  "'attn_layer_offset': 4}",
                  "/attn_layer_offset", NULL);
    /* /rope has nothing to rotate in a model without RoPE layers: a 422, not Llama's numbers */
    au_expect_422(api_rope, "{'config': {'model_type': 'jamba', 'num_hidden_layers': 8}}",
                  "/config/model_type", NULL);
}
END_TEST

/* NemotronHConfig: hybrid_override_pattern, one character per layer (M mamba, * attention, -
 * MLP, E MoE); the attention layers take no positions (NemotronHAttention). */
START_TEST(test_nemotron_h)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'nemotron_h', 'num_hidden_layers': 6, "
                                        "'hidden_size': 64, 'num_attention_heads': 4, "
                                        "'head_dim': 16, 'hybrid_override_pattern': 'M-M*-E'}");
    static const char *const MIX[] = {"mamba", "mlp", "mamba", "attention", "mlp", "moe"};
    ck_assert_int_eq(json_integer_value(json_object_get(j, "num_layers")), 6);
    for (size_t l = 0; l < 6; l++) {
        ck_assert_str_eq(layer_method(j, l), "none");
        ck_assert_str_eq(au_str(au_layer_kind(j, l), "mixer"), MIX[l]);
    }
    json_decref(j);
    au_expect_422(api_model_method,
                  "{'model_type': 'nemotron_h', 'num_hidden_layers': 2, "
                  "'hybrid_override_pattern': 'MX'}",
                  "/hybrid_override_pattern", NULL);
}
END_TEST

/* GraniteMoeHybridConfig: layer_types "mamba" / "attention"; GraniteMoeHybridModel builds a
 * rotary embedding only for position_embedding_type "rope". Scale attention_multiplier. */
START_TEST(test_granite_hybrid)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'granitemoehybrid', 'num_hidden_layers': 4, "
                      "'hidden_size': 64, 'num_attention_heads': 4, 'attention_multiplier': "
                      "0.015625, 'position_embedding_type': 'nope', 'rope_theta': 10000, "
                      "'layer_types': ['mamba', 'attention', 'mamba', 'attention']}");
    ck_assert_str_eq(layer_method(j, 1), "none");
    ck_assert_str_eq(au_str(au_layer_kind(j, 1), "mixer"), "attention");
    ck_assert_str_eq(au_str(au_layer_kind(j, 0), "mixer"), "mamba");
    ck_assert(au_number(json_object_get(json_object_get(au_layer_kind(j, 1), "parameters"),
                                        "scale")) == 0.015625);
    json_decref(j);
    j = au_ok(api_model_method, "{'model_type': 'granitemoehybrid', 'num_hidden_layers': 2, "
                                "'hidden_size': 64, 'num_attention_heads': 4, "
                                "'position_embedding_type': 'rope', 'rope_theta': 10000000, "
                                "'layer_types': ['attention', 'attention']}");
    ck_assert_str_eq(layer_method(j, 0), "rope");
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);
    au_expect_422(api_model_method,
                  "{'model_type': 'granitemoehybrid', 'num_hidden_layers': 1, "
                  "'position_embedding_type': 'alibi', 'layer_types': ['attention']}",
                  "/position_embedding_type", NULL);
}
END_TEST

/* Falcon-H1: every layer runs attention (LlamaAttention with RoPE) beside its Mamba mixer;
 * FalconH1Attention multiplies k by key_multiplier before RoPE: the scale is key_multiplier /
 * sqrt(head_dim). */
START_TEST(test_falcon_h1)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'falcon_h1', 'num_hidden_layers': 2, "
                                        "'hidden_size': 64, 'num_attention_heads': 4, "
                                        "'head_dim': 16, 'rope_theta': 100000000000.0, "
                                        "'key_multiplier': 0.5}");
    ck_assert_str_eq(layer_method(j, 0), "rope");
    double sc =
        au_number(json_object_get(json_object_get(au_layer_kind(j, 0), "parameters"), "scale"));
    ck_assert_msg(fabs(sc - 0.5 / 4.0) < 1e-15, "scale %.17g", sc);
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);
}
END_TEST

/* Lfm2Config: layer_types "conv" / "full_attention" (else full_attn_idxs); the base is `theta`,
 * else rope_theta, else 1e6. */
START_TEST(test_lfm2)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'lfm2', 'num_hidden_layers': 3, "
                                        "'hidden_size': 64, 'num_attention_heads': 4, "
                                        "'theta': 2000000.0, 'rope_theta': 1000000.0, "
                                        "'full_attn_idxs': [1]}");
    ck_assert_str_eq(layer_method(j, 0), "none");
    ck_assert_str_eq(au_str(au_layer_kind(j, 0), "mixer"), "conv");
    ck_assert_str_eq(layer_method(j, 1), "rope");
    const json_t *p = json_object_get(au_layer_kind(j, 1), "parameters");
    ck_assert(au_number(json_object_get(p, "base")) == 2000000.0); /* theta wins */
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);
    /* use_pos_enc (the published LFM2 files' own key): Lfm2Config does not read it and
     * Lfm2Attention always rotates, so it is listed in resolved.ignored (before: dropped
     * silently, neither used nor listed) */
    j = au_ok(api_rope, "{'config': {'model_type': 'lfm2', 'num_hidden_layers': 2, "
                        "'hidden_size': 64, 'num_attention_heads': 4, 'use_pos_enc': true, "
                        "'full_attn_idxs': [1]}, 'layer': 1, 'seq_len': 2}");
    const json_t *ign = json_object_get(json_object_get(j, "resolved"), "ignored");
    ck_assert(json_object_get(ign, "config.use_pos_enc") != NULL);
    json_decref(j);
}
END_TEST

/* Mamba, Mamba 2, Falcon-Mamba, RWKV: no attention at all; every layer "none", never a 422. */
START_TEST(test_attention_free)
{
    static const char *const T[] = {"mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv7", "xlstm"};
    for (size_t i = 0; i < 6; i++) {
        char body[160];
        snprintf(body, sizeof body,
                 "{'model_type': '%s', 'num_hidden_layers': 3, "
                 "'hidden_size': 64}",
                 T[i]);
        json_t *j = au_ok(api_model_method, body);
        ck_assert_uint_eq(json_array_size(json_object_get(j, "kinds")), 1);
        ck_assert_str_eq(layer_method(j, 2), "none");
        /* no attention: no scale */
        ck_assert(json_object_get(json_object_get(au_layer_kind(j, 0), "parameters"), "scale") ==
                  NULL);
        json_decref(j);
    }
}
END_TEST

/* MiniMaxM2Config.convert_rope_params_to_dict: partial_rotary_factor = rotary_dim / head_dim
 * (head_dim / 2 without rotary_dim), base default 5e6; rotate_half (glm4_moe's). */
START_TEST(test_minimax_m2)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'minimax_m2', 'num_hidden_layers': 2, "
                                        "'hidden_size': 3072, 'num_attention_heads': 48, "
                                        "'head_dim': 128}");
    const json_t *p = json_object_get(au_layer_kind(j, 0), "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "rotary_dim")), 64);
    ck_assert(au_number(json_object_get(p, "base")) == 5000000.0);
    ck_assert_str_eq(au_str(p, "layout"), "half");
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);
}
END_TEST

/* Zamba2Config: hybrid layers rotate with use_mem_rope over attention_head_dim = 2 hidden_size /
 * heads; use_long_context changes the base (not applied: a 422 naming it, never a silent drop). */
START_TEST(test_zamba2)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'zamba2', 'num_hidden_layers': 3, 'hidden_size': 64, "
                      "'num_attention_heads': 4, 'use_mem_rope': true, 'rope_theta': 10000, "
                      "'layers_block_type': ['mamba', 'hybrid', 'mamba']}");
    ck_assert_str_eq(layer_method(j, 0), "none");
    ck_assert_str_eq(layer_method(j, 1), "rope");
    const json_t *p = json_object_get(au_layer_kind(j, 1), "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "head_dim")), 32);
    /* Zamba2Attention: (head_dim / 2)^-0.5 = 1/4 */
    ck_assert(au_number(json_object_get(p, "scale")) == 0.25);
    json_decref(j);
    static const char *const LONG = "{'config': {'model_type': 'zamba2', 'num_hidden_layers': 2, "
                                    "'hidden_size': 64, 'num_attention_heads': 4, "
                                    "'use_mem_rope': true, 'use_long_context': true, "
                                    "'layers_block_type': ['mamba', 'hybrid']}}";
    au_expect_422(api_model_method, LONG, "/config/use_long_context", NULL);
    au_expect_422(api_rope, LONG, "/config/use_long_context", NULL);
    /* 2 hidden_size // heads past int64 (hidden_size 2^62, one head): a head_dim over max_dim at
     * /config/hidden_size, computed without a signed overflow (UBSan stopped the daemon at
     * model_hybrid_rope.c's 2 * hidden_size before the fix: make asan) */
    static const char *const HUGE = "{'config': {'model_type': 'zamba2', 'num_hidden_layers': 2, "
                                    "'hidden_size': 4611686018427387904, "
                                    "'num_attention_heads': 1, 'use_mem_rope': true, "
                                    "'layers_block_type': ['mamba', 'hybrid']}, 'layer': 1}";
    au_expect_422(api_rope, HUGE, "/config/hidden_size", NULL);
    au_expect_422(api_attention,
                  "{'method': 'rope', 'rope': {'config': {'model_type': 'zamba2', "
                  "'num_hidden_layers': 2, 'hidden_size': 4611686018427387904, "
                  "'num_attention_heads': 1, 'layers_block_type': ['mamba', 'hybrid']}, "
                  "'layer': 1}, 'q': [[1, 0]], 'k': [[1, 0]]}",
                  "/q/0", NULL);
    /* Kimi Linear's NoPE attention rows are qk_nope_head_dim + qk_rope_head_dim wide: past int64
     * a 422 at /q/0 too (UBSan: model_hybrid_rope.c's sum before the fix) */
    au_expect_422(api_attention,
                  "{'method': 'rope', 'rope': {'config': {'model_type': 'kimi_linear', "
                  "'num_hidden_layers': 4, 'hidden_size': 64, 'num_attention_heads': 4, "
                  "'qk_nope_head_dim': 9223372036854775807, 'qk_rope_head_dim': 64}, "
                  "'layer': 3}, 'q': [[1, 0]], 'k': [[1, 0]]}",
                  "/q/0", NULL);
}
END_TEST

/* Keys HF's config class overrides: MiniMaxM2Config sets partial_rotary_factor = rotary_dim /
 * head_dim (head_dim // 2 without rotary_dim) whatever the file says; MiniMaxConfig
 * (MiniMax-Text-01, M1) has no rotary_dim and rotates head_dim x partial_rotary_factor
 * (Gemma2RotaryEmbedding), while MiniMax's own code rotates rotary_dim: a file whose keys disagree
 * is a 422 naming the key. */
START_TEST(test_minimax_conflicts)
{
    au_expect_422(
        api_rope,
        "{'config': {'model_type': 'minimax_m2', 'num_hidden_layers': 2, 'head_dim': 128, "
        "'hidden_size': 3072, 'num_attention_heads': 48, 'partial_rotary_factor': 0.25}}",
        "/config/partial_rotary_factor", NULL);
    json_t *m = au_ok(api_model_method,
                      "{'model_type': 'minimax', 'num_hidden_layers': 2, 'head_dim': 128, "
                      "'hidden_size': 6144, 'num_attention_heads': 64, 'rotary_dim': 64, "
                      "'rope_theta': 10000000, 'attn_type_list': [0, 1]}");
    ck_assert_int_eq(au_warned(m, "MiniMaxConfig has no rotary_dim"), 1);
    json_decref(m);
    /* agreeing keys answer: rotary_dim 64 = 128 x 0.5 */
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'minimax', 'num_hidden_layers': 2, 'head_dim': 128, "
                      "'hidden_size': 6144, 'num_attention_heads': 64, 'rotary_dim': 64, "
                      "'partial_rotary_factor': 0.5, 'rope_theta': 10000000, "
                      "'attn_type_list': [0, 1]}");
    ck_assert_str_eq(layer_method(j, 0), "none");
    ck_assert_str_eq(layer_method(j, 1), "rope");
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);
}
END_TEST

/* LongCat-Flash (modular_longcat_flash.py): DeepseekV3Attention's MLA with
 * apply_rotary_pos_emb_interleave always (adjacent pairs), q (its rotary part included) times
 * mla_scale_q_lora = sqrt(hidden_size / q_lora_rank) before q.k, scaling (qk_nope + qk_rope)^-0.5:
 * the rotary scores' multiplier is sqrt(6144 / 1536) / sqrt(192) = 2 / sqrt(192). */
START_TEST(test_longcat_flash)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'longcat_flash', 'num_layers': 2, 'hidden_size': 6144, "
                      "'num_attention_heads': 64, 'q_lora_rank': 1536, 'kv_lora_rank': 512, "
                      "'qk_nope_head_dim': 128, 'qk_rope_head_dim': 64, 'rope_theta': 10000000}");
    const json_t *p = json_object_get(au_layer_kind(j, 1), "parameters");
    ck_assert_str_eq(layer_method(j, 1), "rope");
    ck_assert_str_eq(au_str(p, "layout"), "interleaved");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "head_dim")), 64);
    double sc = au_number(json_object_get(p, "scale"));
    ck_assert_msg(fabs(sc - 2.0 / sqrt(192.0)) < 1e-15, "scale %.17g", sc);
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);
}
END_TEST

/* Ling 2.0 (bailing_moe_v2, remote code inclusionAI/Ling-V2 modeling_bailing_moe_v2.py): HF's
 * default rope init over head_dim x partial_rotary_factor, rotate_half on the first rotary_dim
 * dims, SDPA's 1/sqrt(head_dim): in the tables, no "not in posenc's table" warning. */
START_TEST(test_bailing_moe_v2)
{
    json_t *j =
        au_ok(api_model_method,
              "{'model_type': 'bailing_moe_v2', 'num_hidden_layers': 2, 'hidden_size': 2048, "
              "'num_attention_heads': 16, 'head_dim': 128, 'partial_rotary_factor': 0.5, "
              "'rope_theta': 600000}");
    const json_t *p = json_object_get(au_layer_kind(j, 0), "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "rotary_dim")), 64);
    ck_assert_str_eq(au_str(p, "layout"), "half");
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);
}
END_TEST

/* No silent drops on POST /rope: the keys that place a hybrid model's layers (and Falcon-H1's
 * key_multiplier, a scale) are named in resolved.ignored with their reason. */
START_TEST(test_hybrid_keys_accounted)
{
    json_t *r = au_ok(api_rope, "{'config': {'model_type': 'zamba2', 'num_hidden_layers': 2, "
                                "'hidden_size': 64, 'num_attention_heads': 4, 'use_mem_rope': "
                                "true, 'use_long_context': false, 'rope_theta': 10000, "
                                "'layers_block_type': ['mamba', 'hybrid']}, 'layer': 1}");
    const json_t *ign = json_object_get(json_object_get(r, "resolved"), "ignored");
    static const char *const K[] = {"config.use_mem_rope", "config.use_long_context",
                                    "config.layers_block_type"};
    for (size_t i = 0; i < 3; i++)
        ck_assert_msg(json_object_get(ign, K[i]) != NULL, "%s not in resolved.ignored", K[i]);
    json_decref(r);
    r = au_ok(api_rope, "{'config': {'model_type': 'falcon_h1', 'num_hidden_layers': 2, "
                        "'hidden_size': 64, 'num_attention_heads': 4, 'rope_theta': 1e11, "
                        "'key_multiplier': 0.5}}");
    ign = json_object_get(json_object_get(r, "resolved"), "ignored");
    ck_assert(json_object_get(ign, "config.key_multiplier") != NULL);
    json_decref(r);
}
END_TEST

/* POST /attention on a hybrid model's NoPE attention layer (Jamba layer 4): q and k as sent,
 * scores = q.k x the model's scale (JambaAttention: 1/sqrt(head_dim), head_dim = 16 / 4 = 4 here:
 * q.k = 1 * 1 + 2 * 0 = 1 at every pair -> 0.5); a Mamba layer has no attention: a 422. */
START_TEST(test_attention_nope)
{
#define JAMBA8                                                                                     \
    "'config': {'model_type': 'jamba', 'num_hidden_layers': 8, 'hidden_size': 16, "                \
    "'num_attention_heads': 4}"
    json_t *j =
        au_ok(api_attention, "{'q': [[1, 2, 0, 0], [1, 5, 0, 0]], 'k': [[1, 0, 0, 0], "
                             "[1, 0, 0, 0]], 'method': 'rope', 'rope': {" JAMBA8 ", 'layer': 4}}");
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            ck_assert(au_num(j, "scores", a, b, -1) == 0.5);
    const json_t *rr = json_object_get(json_object_get(j, "resolved"), "rope");
    ck_assert_str_eq(au_str(rr, "method"), "none");
    ck_assert_str_eq(au_str(rr, "mixer"), "attention");
    json_decref(j);
    au_expect_422(api_attention,
                  "{'q': [[1, 0, 0, 0]], 'k': [[1, 0, 0, 0]], 'method': 'rope', 'rope': {" JAMBA8
                  ", 'layer': 0}}",
                  "/rope/layer", NULL);
    /* the chosen layer is answered for itself: layer 0 is a Mamba block (was a 422 at
     * /rope/config/model_type saying the attention layers' reason), a layer past the config's 8
     * is out of range (was the same model_type error) */
    au_expect_422_msg(
        api_attention,
        "{'q': [[1, 0, 0, 0]], 'k': [[1, 0, 0, 0]], 'method': 'rope', 'rope': {" JAMBA8
        ", 'layer': 0}}",
        "/rope/layer", "layer 0 uses no RoPE (a Mamba");
    au_expect_422_msg(api_rope, "{" JAMBA8 ", 'layer': 3, 'q': [1, 0, 0, 0]}", "/layer",
                      "layer 3 uses no RoPE (a Mamba");
    au_expect_422_msg(api_rope, "{" JAMBA8 ", 'layer': 8, 'q': [1, 0, 0, 0]}", "/layer",
                      "must be below the config's number of layers (8)");
    /* rows narrower than the model's head (hidden_size / heads = 4): the scale would be
     * 1/sqrt(2) = 0.71, not the model's 0.5 (was a 200 with that scale, named as Jamba's) */
    au_expect_422_msg(api_attention,
                      "{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'rope', 'rope': {" JAMBA8
                      ", 'layer': 4}}",
                      "/q/0", "must have 4 numbers (a head of this model");
    /* Llama 4's no-RoPE layer (head_dim 8) with rows of 4: the same rule */
    au_expect_422_msg(api_attention,
                      "{'q': [[1, 0, 0, 0]], 'k': [[1, 0, 0, 0]], 'method': 'rope', 'rope': "
                      "{'config': {'model_type': 'llama4_text', 'num_hidden_layers': 4, "
                      "'head_dim': 8, 'rope_theta': 500000}, 'layer': 3}}",
                      "/q/0", "must have 8 numbers (a head of this model");
}
END_TEST

/* Nemotron-NAS (model_type "nemotron-nas", DeciLMForCausalLM; Hub remote code
 * modeling_decilm.py DeciLMDecoderLayer): block_configs[l].attention.no_op -> no attention
 * sublayer (mixer "mlp", "none" when the ffn is a no-op too), replace_with_linear -> a linear map
 * (DeciLMLinearAttention, mixer "linear"), else DeciLMAttention: Llama's RoPE over head_dim =
 * hidden_size // num_attention_heads = 64 / 8 = 8 with the config's rope_theta and llama3
 * rope_scaling. Layers 0 and 3 rotate; 1 (no_op), 2 (linear), 4 (no_op, ffn no_op) do not. */
#define NAS_CFG                                                                                    \
    "{'model_type': 'nemotron-nas', 'architectures': ['DeciLMForCausalLM'], "                      \
    "'num_hidden_layers': 5, 'hidden_size': 64, 'num_attention_heads': 8, "                        \
    "'rope_theta': 500000.0, 'max_position_embeddings': 131072, 'rope_scaling': {'factor': 8.0, "  \
    "'high_freq_factor': 4.0, 'low_freq_factor': 1.0, 'original_max_position_embeddings': 8192, "  \
    "'rope_type': 'llama3'}, 'block_configs': ["                                                   \
    "{'attention': {'n_heads_in_group': 8, 'no_op': false, 'replace_with_linear': false}, "        \
    "'ffn': {'ffn_mult': 2.625, 'no_op': false}}, "                                                \
    "{'attention': {'n_heads_in_group': null, 'no_op': true, 'replace_with_linear': false}, "      \
    "'ffn': {'ffn_mult': 2.625, 'no_op': false}}, "                                                \
    "{'attention': {'n_heads_in_group': null, 'no_op': false, 'replace_with_linear': true}, "      \
    "'ffn': {'ffn_mult': 2.625, 'no_op': false}}, "                                                \
    "{'attention': {'n_heads_in_group': 4, 'no_op': false, 'replace_with_linear': false, "         \
    "'window_length': 4096}, 'ffn': {'no_op': true}}, "                                            \
    "{'attention': {'no_op': true}, 'ffn': {'no_op': true}}]}"
START_TEST(test_nemotron_nas)
{
    json_t *j = au_ok(api_model_method, NAS_CFG);
    static const char *const METHOD[] = {"rope", "none", "none", "rope", "none"};
    static const char *const MIX[] = {NULL, "mlp", "linear", NULL, "none"};
    ck_assert_int_eq(json_integer_value(json_object_get(j, "num_layers")), 5);
    for (size_t l = 0; l < 5; l++) {
        ck_assert_str_eq(layer_method(j, l), METHOD[l]);
        if (MIX[l] != NULL)
            ck_assert_str_eq(au_str(au_layer_kind(j, l), "mixer"), MIX[l]);
    }
    /* 0 and 3 differ only in window: one RoPE kind; 4 kinds in all */
    ck_assert_uint_eq(json_array_size(json_object_get(j, "kinds")), 4);
    ck_assert_ptr_eq(au_layer_kind(j, 0), au_layer_kind(j, 3));
    const json_t *p = json_object_get(au_layer_kind(j, 0), "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "head_dim")), 8);
    ck_assert(au_number(json_object_get(p, "base")) == 500000.0);
    /* DeciLMAttention: 1/sqrt(head_dim) = 1/sqrt(8) */
    ck_assert_msg(fabs(au_number(json_object_get(p, "scale")) - 1.0 / sqrt(8.0)) < 1e-16, "scale");
    ck_assert_int_eq(au_warned(j, "not in posenc's table"), 0);
    json_decref(j);

    /* POST /rope: a no-attention layer has nothing to rotate (a 422 at /layer, as Jamba's Mamba
     * layers) */
    au_expect_422_msg(api_rope, "{'config': " NAS_CFG ", 'layer': 1}", "/layer", "no_op");
    au_expect_422_msg(api_rope, "{'config': " NAS_CFG ", 'layer': 2}", "/layer",
                      "replace_with_linear");
    /* nor any attention scores (POST /attention): before, a 200 with RoPE scores */
    au_expect_422_msg(api_attention,
                      "{'q': [[1, 0, 0, 0, 0, 0, 0, 0]], 'k': [[1, 0, 0, 0, 0, 0, 0, 0]], "
                      "'method': 'rope', 'rope': {'config': " NAS_CFG ", 'layer': 1}}",
                      "/rope/layer", "no_op");
    /* layer 3: Llama's llama3 inv_freq for the same keys. By hand (modeling_rope_utils.py
     * _compute_llama3_parameters): inv_freq_i = 500000^(-2i/8); wavelen = 2 pi / inv_freq;
     * low_freq_wavelen = 8192 / 1, high_freq_wavelen = 8192 / 4 = 2048.
     *   i = 0: 1 (wavelen 6.3 < 2048: kept);  i = 1: 500000^-0.25 = 0.0376060309308639 (167.1:
     *   kept);  i = 2: 500000^-0.5 = 0.00141421356 (wavelen 4442.9: smooth = (8192 / wavelen -
     *   1) / (4 - 1) = 0.28127, inv (1 - smooth) / 8 + smooth inv = 0.000524846160993);  i = 3:
     *   500000^-0.75 (wavelen 118143 > 8192): / 8 = 6.64786987118e-06. */
    j = au_ok(api_rope, "{'config': " NAS_CFG ", 'layer': 3, 'seq_len': 3, "
                        "'include': ['cos_sin']}");
    const json_t *inv = json_object_get(j, "inv_freq");
    ck_assert_uint_eq(json_array_size(inv), 4);
    /* block_configs places the layers, not this kind's numbers: listed in resolved.ignored (before:
     * neither used nor listed) */
    ck_assert(json_object_get(json_object_get(json_object_get(j, "resolved"), "ignored"),
                              "config.block_configs") != NULL);
    double want[4];
    for (int i = 0; i < 4; i++) {
        double f = pow(500000.0, -2.0 * i / 8.0), wl = 2.0 * M_PI / f;
        double sm = (8192.0 / wl - 1.0) / 3.0;
        want[i] = wl < 2048.0 ? f : wl > 8192.0 ? f / 8.0 : (1.0 - sm) * f / 8.0 + sm * f;
    }
    ck_assert(fabs(want[2] - 0.000524846160993) < 1e-15 &&
              fabs(want[3] - 6.64786987118e-06) < 1e-16);
    for (size_t i = 0; i < 4; i++) {
        double got = au_number(json_array_get(inv, i));
        ck_assert_msg(fabs(got - want[i]) <= 1e-15 * want[i], "inv_freq[%zu] %.17g", i, got);
    }
    /* and equal to model_type llama's answer for the same rope keys */
    json_t *ll = au_ok(api_rope, "{'config': {'model_type': 'llama', 'num_hidden_layers': 5, "
                                 "'hidden_size': 64, 'num_attention_heads': 8, 'rope_theta': "
                                 "500000.0, 'max_position_embeddings': 131072, 'rope_scaling': "
                                 "{'factor': 8.0, 'high_freq_factor': 4.0, 'low_freq_factor': 1.0, "
                                 "'original_max_position_embeddings': 8192, 'rope_type': "
                                 "'llama3'}}, 'seq_len': 3, 'include': ['cos_sin']}");
    ck_assert(json_equal(inv, json_object_get(ll, "inv_freq")));
    ck_assert(json_object_get(j, "cos") != NULL && json_object_get(j, "sin") != NULL);
    ck_assert(json_equal(json_object_get(j, "cos"), json_object_get(ll, "cos")));
    ck_assert(json_equal(json_object_get(j, "sin"), json_object_get(ll, "sin")));
    json_decref(ll);
    json_decref(j);

    /* DeciLMDecoderLayer reads block_configs[layer_idx]: one per layer, each with its attention */
    au_expect_422(api_model_method,
                  "{'model_type': 'nemotron-nas', 'num_hidden_layers': 2, 'hidden_size': 64, "
                  "'num_attention_heads': 8, 'block_configs': [{'attention': {'no_op': true}}]}",
                  "/block_configs", NULL);
    au_expect_422(api_model_method,
                  "{'model_type': 'nemotron-nas', 'num_hidden_layers': 1, 'hidden_size': 64, "
                  "'num_attention_heads': 8, 'block_configs': [{'attention': {'no_op': 'yes'}}]}",
                  "/block_configs/0/attention/no_op", NULL);
    au_expect_422(api_model_method,
                  "{'model_type': 'nemotron-nas', 'num_hidden_layers': 1, 'hidden_size': 64, "
                  "'num_attention_heads': 8, 'block_configs': [{'attention': "
                  "{'n_heads_in_group': 3}}]}",
                  "/block_configs/0/attention/n_heads_in_group", NULL);
    /* DeciLMAttention's head is hidden_size // num_attention_heads (8), whatever head_dim says */
    au_expect_422(api_model_method,
                  "{'model_type': 'nemotron-nas', 'num_hidden_layers': 1, 'hidden_size': 64, "
                  "'num_attention_heads': 8, 'head_dim': 16, 'block_configs': [{'attention': "
                  "{'n_heads_in_group': 8}}]}",
                  "/head_dim", NULL);
}
END_TEST

Suite *model_hybrid_suite(void)
{
    Suite *s = suite_create("model_hybrid");
    TCase *tc = tcase_create("hybrid");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_jamba);
    tcase_add_test(tc, test_nemotron_h);
    tcase_add_test(tc, test_granite_hybrid);
    tcase_add_test(tc, test_falcon_h1);
    tcase_add_test(tc, test_lfm2);
    tcase_add_test(tc, test_attention_free);
    tcase_add_test(tc, test_minimax_m2);
    tcase_add_test(tc, test_zamba2);
    tcase_add_test(tc, test_minimax_conflicts);
    tcase_add_test(tc, test_longcat_flash);
    tcase_add_test(tc, test_bailing_moe_v2);
    tcase_add_test(tc, test_hybrid_keys_accounted);
    tcase_add_test(tc, test_attention_nope);
    tcase_add_test(tc, test_nemotron_nas);
    suite_add_tcase(s, tc);
    return s;
}
