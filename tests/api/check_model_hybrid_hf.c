/*
 * tests/api/check_model_hybrid_hf.c -- hybrid model types where posenc's first answer differed
 * from Hugging Face's configuration_<type>.py / modeling_<type>.py (found by breaking issue 15's
 * work): Nemotron-H's head_dim, GraniteMoeHybrid's layers_block_type alias, Kimi Linear's
 * default layer placement. Each assertion names the HF rule it checks.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

static double kind_scale(const json_t *kind)
{
    return au_number(json_object_get(json_object_get(kind, "parameters"), "scale"));
}

/* NemotronHConfig (configuration_nemotron_h.py) has head_dim = 128 by default and
 * NemotronHAttention uses config.head_dim: it never divides hidden_size by the heads. The
 * published Nemotron-H-4B-Base-8K file has hidden_size 3072, 32 heads and (remote code's)
 * attention_head_dim 128, no head_dim: HF's scale is 128^-0.5, not (3072 / 32)^-0.5 = 96^-0.5.
 * Pattern "M*": layer 1 is the attention layer. */
START_TEST(test_nemotron_h_head_dim)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'nemotron_h', 'hidden_size': 3072, 'num_attention_heads': "
                      "32, 'attention_head_dim': 128, 'num_hidden_layers': 2, "
                      "'hybrid_override_pattern': 'M*'}");
    const json_t *att = au_layer_kind(j, 1);
    ck_assert_str_eq(au_str(att, "mixer"), "attention");
    double sc = kind_scale(att);
    ck_assert_msg(fabs(sc - 1.0 / sqrt(128.0)) < 1e-16, "scale %.17g, want 128^-0.5", sc);
    json_decref(j);
    /* an attention_head_dim that NemotronHConfig would not read: HF's 128 is answered and the
     * warning names the key and the other reading */
    j = au_ok(api_model_method,
              "{'model_type': 'nemotron_h', 'hidden_size': 3072, "
              "'num_attention_heads': 32, 'attention_head_dim': 64, 'num_hidden_layers': 2, "
              "'hybrid_override_pattern': 'M*'}");
    sc = kind_scale(au_layer_kind(j, 1));
    ck_assert_msg(fabs(sc - 1.0 / sqrt(128.0)) < 1e-16, "scale %.17g, want 128^-0.5", sc);
    ck_assert_int_ge(au_warned(j, "attention_head_dim"), 1);
    json_decref(j);
    /* head_dim given: it wins (80, not hidden_size / heads = 4480 / 40 = 112) */
    j = au_ok(api_model_method,
              "{'model_type': 'nemotron_h', 'hidden_size': 4480, "
              "'num_attention_heads': 40, 'head_dim': 80, 'num_hidden_layers': 2, "
              "'hybrid_override_pattern': 'M*'}");
    sc = kind_scale(au_layer_kind(j, 1));
    ck_assert_msg(fabs(sc - 1.0 / sqrt(80.0)) < 1e-16, "scale %.17g, want 80^-0.5", sc);
    json_decref(j);
}
END_TEST

/* GraniteMoeHybridConfig.attribute_map {"layers_block_type": "layer_types"}: a file that names
 * the list layers_block_type places the same layers as layer_types. Layers 1 and 3 are
 * attention, with RoPE for position_embedding_type "rope" (GraniteMoeHybridModel builds the
 * rotary embedding then). Before: every layer "mamba" and /rope a 422. */
START_TEST(test_granite_layers_block_type)
{
    static const char *const CFG =
        "{'model_type': 'granitemoehybrid', 'hidden_size': 64, 'num_attention_heads': 4, "
        "'num_hidden_layers': 4, 'position_embedding_type': 'rope', 'rope_theta': 10000, "
        "'layers_block_type': ['mamba', 'attention', 'mamba', 'attention']}";
    json_t *j = au_ok(api_model_method, CFG);
    for (size_t l = 0; l < 4; l++)
        ck_assert_str_eq(au_str(au_layer_kind(j, l), "method"), l % 2 ? "rope" : "none");
    ck_assert_str_eq(au_str(au_layer_kind(j, 0), "mixer"), "mamba");
    json_decref(j);
    /* both spellings at once with different lists: which one HF keeps depends on the order of
     * the keys, a 422 names the second */
    au_expect_422(api_model_method,
                  "{'model_type': 'granitemoehybrid', 'num_hidden_layers': 2, "
                  "'layer_types': ['mamba', 'attention'], "
                  "'layers_block_type': ['attention', 'mamba']}",
                  "/layers_block_type", NULL);
}
END_TEST

/* KimiLinearConfig.__post_init__ without layer_types or linear_attn_config: today's
 * configuration_kimi_linear.py places full attention where (i + 1) % 4 == 0 (0-based 3, 7: the
 * 1-based 4, 8 of the published Kimi-Linear-48B full_attn_layers); the first release's rule was
 * "i and i % 4 == 0" (4, 8). posenc follows today's and its source says so. 8 layers. */
START_TEST(test_kimi_default_layers)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'kimi_linear', 'num_hidden_layers': 8, "
                                        "'hidden_size': 2304, 'num_attention_heads': 32}");
    for (size_t l = 0; l < 8; l++)
        ck_assert_msg(strcmp(au_str(au_layer_kind(j, l), "mixer"),
                             l == 3 || l == 7 ? "attention" : "linear_attention") == 0,
                      "layer %zu: %s", l, au_str(au_layer_kind(j, l), "mixer"));
    const char *src = json_string_value(
        json_object_get(json_object_get(au_layer_kind(j, 3), "sources"), "layers"));
    ck_assert_ptr_nonnull(src);
    ck_assert_msg(strstr(src, "i % 4 == 0") != NULL, "source names the earlier rule: %s", src);
    json_decref(j);
}
END_TEST

/* LongcatFlashConfig (configuration_longcat_flash.py): default_theta 1e7, hidden_size 6144,
 * q_lora_rank 1536 when the file omits them; LongcatFlashMLA multiplies q by sqrt(hidden_size /
 * q_lora_rank) whatever the file's mla_scale_q_lora says (Meituan's remote code and vLLM only
 * when it is true): posenc answers transformers and names the other reading in a warning.
 * Scale 2 / sqrt(128 + 64) as in check_model_hybrid.c. Before: base 10000, a 422 at
 * /hidden_size, no warning. */
START_TEST(test_longcat_class_defaults)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'longcat_flash', 'num_layers': 2, 'num_attention_heads': 64, "
                      "'kv_lora_rank': 512, 'qk_nope_head_dim': 128, 'qk_rope_head_dim': 64, "
                      "'mla_scale_q_lora': false}");
    const json_t *p = json_object_get(au_layer_kind(j, 0), "parameters");
    ck_assert_str_eq(au_str(au_layer_kind(j, 0), "method"), "rope");
    ck_assert_msg(au_number(json_object_get(p, "base")) == 1e7, "base %.17g",
                  au_number(json_object_get(p, "base")));
    double sc = au_number(json_object_get(p, "scale"));
    ck_assert_msg(fabs(sc - 2.0 / sqrt(192.0)) < 1e-15, "scale %.17g", sc);
    ck_assert_int_ge(au_warned(j, "mla_scale_q_lora"), 1);
    json_decref(j);
    /* the flag true (the published files): no warning about it */
    j = au_ok(api_model_method,
              "{'model_type': 'longcat_flash', 'num_layers': 2, 'hidden_size': 6144, "
              "'q_lora_rank': 1536, 'num_attention_heads': 64, 'mla_scale_q_lora': true}");
    ck_assert_int_eq(au_warned(j, "mla_scale_q_lora"), 0);
    json_decref(j);
}
END_TEST

/* The layer count where the file gives no num_hidden_layers: NemotronHConfig derives it from the
 * pattern / list (num_hidden_layers is deprecated there); xLSTMConfig reads num_blocks (the
 * published NX-AI/xLSTM-7b file has no num_hidden_layers); JambaConfig's default is 32 layers
 * (attention at 4, 12, 20, 28), said in a warning. Before: each a 422 at /num_hidden_layers. */
START_TEST(test_layer_count_defaults)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'nemotron_h', 'hidden_size': 64, "
                                        "'num_attention_heads': 4, "
                                        "'hybrid_override_pattern': 'M*M'}");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "num_layers")), 3);
    ck_assert_str_eq(au_str(au_layer_kind(j, 1), "mixer"), "attention");
    json_decref(j);
    j = au_ok(api_model_method, "{'model_type': 'xlstm', 'num_blocks': 48, 'embedding_dim': 4096, "
                                "'num_heads': 8}");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "num_layers")), 48);
    ck_assert_str_eq(au_str(au_layer_kind(j, 47), "mixer"), "xlstm");
    json_decref(j);
    j = au_ok(api_model_method, "{'model_type': 'jamba', 'hidden_size': 4096, "
                                "'num_attention_heads': 32}");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "num_layers")), 32);
    for (size_t l = 0; l < 32; l++)
        ck_assert_str_eq(au_str(au_layer_kind(j, l), "mixer"), l % 8 == 4 ? "attention" : "mamba");
    ck_assert_int_ge(au_warned(j, "num_hidden_layers"), 1);
    json_decref(j);
}
END_TEST

/* MiniMaxConfig (configuration_minimax.py): default_theta 1e6; without layer_types, layer_types =
 * full_attention where (i + 1) % 2 (layers 0, 2), linear_attention the others; it never reads
 * attn_type_list (MiniMax's remote code does: posenc keeps that reading of the published
 * MiniMax-Text-01 file and names HF's in a warning). Before: every layer RoPE at base 10000, and
 * attn_type_list followed silently. */
START_TEST(test_minimax_layers)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'minimax', 'num_hidden_layers': 4, "
                                        "'hidden_size': 512, 'num_attention_heads': 8, "
                                        "'head_dim': 64}");
    for (size_t l = 0; l < 4; l++)
        ck_assert_str_eq(au_str(au_layer_kind(j, l), "method"), l % 2 ? "none" : "rope");
    ck_assert_str_eq(au_str(au_layer_kind(j, 1), "mixer"), "linear_attention");
    const json_t *p = json_object_get(au_layer_kind(j, 0), "parameters");
    ck_assert_msg(au_number(json_object_get(p, "base")) == 1e6, "base %.17g",
                  au_number(json_object_get(p, "base")));
    json_decref(j);
    j = au_ok(api_model_method, "{'model_type': 'minimax', 'num_hidden_layers': 4, "
                                "'hidden_size': 512, 'num_attention_heads': 8, 'head_dim': 64, "
                                "'attn_type_list': [0, 1, 0, 1]}");
    for (size_t l = 0; l < 4; l++)
        ck_assert_str_eq(au_str(au_layer_kind(j, l), "method"), l % 2 ? "rope" : "none");
    ck_assert_int_ge(au_warned(j, "attn_type_list"), 1);
    json_decref(j);
}
END_TEST

/* 422 texts: Nemotron-H's list sets the layer count, so its error says so rather than "(0
 * layers)"; GraniteMoeHybrid's empty layer_types is the class default (every layer Mamba:
 * layers_block_type returns layer_types only when it is non-empty), not a 422. */
START_TEST(test_hybrid_list_messages)
{
    au_expect_422_msg(api_model_method, "{'model_type': 'nemotron_h', 'layers_block_type': []}",
                      "/layers_block_type", "the layer count is its length");
    au_expect_422_msg(api_model_method, "{'model_type': 'nemotron_h', 'layer_types': 'M*'}",
                      "/layer_types", "the layer count is its length");
    /* transformers 4.x read it as every layer Mamba, the strict v5 class keeps it empty (no type
     * for the model to index): a 422 that names both */
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'granitemoehybrid', 'num_hidden_layers': 2, "
                      "'layer_types': []}",
                      "/layer_types", "empty");
}
END_TEST

/* transformers v5 renames legacy layer types when it loads or saves a config
 * (configuration_utils.py remap_legacy_layer_types: mamba -> linear_attention, attention ->
 * full_attention; Zamba2Config's own default list says linear_attention): a file saved by v5
 * places the same layers. Before: a 422 at /layers_block_type/0 and /layer_types/0. */
START_TEST(test_v5_layer_type_names)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'zamba2', 'num_hidden_layers': 3, 'hidden_size': 64, "
                      "'num_attention_heads': 4, 'use_mem_rope': true, 'rope_theta': 10000, "
                      "'layers_block_type': ['linear_attention', 'hybrid', 'linear_attention']}");
    ck_assert_str_eq(au_str(au_layer_kind(j, 0), "mixer"), "mamba");
    ck_assert_str_eq(au_str(au_layer_kind(j, 1), "method"), "rope");
    json_decref(j);
    j = au_ok(api_model_method,
              "{'model_type': 'granitemoehybrid', 'num_hidden_layers': 2, 'hidden_size': 64, "
              "'num_attention_heads': 4, 'position_embedding_type': 'rope', 'rope_theta': 10000, "
              "'layer_types': ['linear_attention', 'full_attention']}");
    ck_assert_str_eq(au_str(au_layer_kind(j, 0), "mixer"), "mamba");
    ck_assert_str_eq(au_str(au_layer_kind(j, 1), "method"), "rope");
    json_decref(j);
}
END_TEST

/* POST /attention on a no-RoPE attention layer scores q and k as sent with the model's scale,
 * which is the model's only for rows of the model's head_dim: Jamba's hidden_size / heads = 128
 * (JambaAttention), Nemotron-H's NemotronHConfig head_dim 128. Rows of 4 numbers are a 422 at
 * /q/0 as on a RoPE layer (before: a 200 scaled by 4^-0.5 = 0.5 under the model's name). */
START_TEST(test_attention_nope_head_dim)
{
    au_expect_422(api_attention,
                  "{'q': [[1, 2, 0, 0]], 'k': [[1, 0, 0, 0]], 'method': 'rope', 'rope': {'config': "
                  "{'model_type': 'jamba', 'num_hidden_layers': 8, 'hidden_size': 4096, "
                  "'num_attention_heads': 32}, 'layer': 4}}",
                  "/q/0", NULL);
    au_expect_422(api_attention,
                  "{'q': [[1, 2, 0, 0]], 'k': [[1, 0, 0, 0]], 'method': 'rope', 'rope': {'config': "
                  "{'model_type': 'nemotron_h', 'hidden_size': 3072, 'num_attention_heads': 32, "
                  "'hybrid_override_pattern': 'M*'}, 'layer': 1}}",
                  "/q/0", NULL);
    /* the model's head: accepted (16 / 4 = 4) */
    json_t *j = au_ok(api_attention,
                      "{'q': [[1, 2, 0, 0]], 'k': [[1, 0, 0, 0]], 'method': 'rope', 'rope': "
                      "{'config': {'model_type': 'jamba', 'num_hidden_layers': 8, 'hidden_size': "
                      "16, 'num_attention_heads': 4}, 'layer': 4}}");
    ck_assert(au_num(j, "scores", 0, 0, -1) == 0.5);
    json_decref(j);
}
END_TEST

/* Falcon-H1 with partial_rotary_factor and the default rope type: transformers 5's
 * FalconH1RotaryEmbedding.compute_default_rope_parameters reads no factor and apply_rotary_pos_emb
 * rotates the whole head (16 dims); transformers 4.x built head_dim x factor frequencies that
 * FalconH1Attention could not apply. The answer is the whole head with a warning naming the key
 * and modeling_falcon_h1.py (api/model_full_head.c; before: 8 dims, transformers 4.x's init). */
START_TEST(test_falcon_h1_partial)
{
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'falcon_h1', 'num_hidden_layers': 2, "
                                "'hidden_size': 64, 'num_attention_heads': 4, 'head_dim': 16, "
                                "'rope_theta': 10000, 'partial_rotary_factor': 0.5}, "
                                "'seq_len': 2}");
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(j, "resolved"), "rotary_dim")), 16);
    ck_assert_int_ge(au_warned(j, "partial_rotary_factor"), 1);
    ck_assert_int_ge(au_warned(j, "modeling_falcon_h1.py"), 1);
    json_decref(j);
}
END_TEST

Suite *model_hybrid_hf_suite(void)
{
    Suite *s = suite_create("model_hybrid_hf");
    TCase *tc = tcase_create("hybrid_hf");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_nemotron_h_head_dim);
    tcase_add_test(tc, test_granite_layers_block_type);
    tcase_add_test(tc, test_kimi_default_layers);
    tcase_add_test(tc, test_longcat_class_defaults);
    tcase_add_test(tc, test_layer_count_defaults);
    tcase_add_test(tc, test_minimax_layers);
    tcase_add_test(tc, test_hybrid_list_messages);
    tcase_add_test(tc, test_attention_nope_head_dim);
    tcase_add_test(tc, test_v5_layer_type_names);
    tcase_add_test(tc, test_falcon_h1_partial);
    suite_add_tcase(s, tc);
    return s;
}
