/*
 * tests/api/check_model_types.c -- model types of 2025-2026 added to posenc's tables in issue 15's
 * second pass (api/model_types.c, api/model_scale.c, api/model_config.c's adjacent-pair rows):
 * multimodal wrappers and remote-code models whose config.json names a model_type posenc used to
 * answer from the file's own rotary keys with two "not in posenc's table" warnings.
 *
 * Expected values are derived by hand in the comments (not from posenc's output).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/*
 * Each config below is the shape of the model's published config.json (the keys that concern
 * positions and heads). Before this pass every one answered with "model_type ... is not in
 * posenc's table of RoPE models" and/or "... of attention scales: 1/sqrt(head_dim) is assumed";
 * now the kind names the HF (or remote-code) file its scale follows, and the scale is
 * head_dim^-0.5 (each row's attention: scaling = head_dim**-0.5).
 */
static const struct {
    const char *body;
    double head_dim;
    const char *file; /* the file sources.scale must name */
} KNOWN[] = {
    /* microsoft/Phi-4-multimodal-instruct: model_type phi4mm (remote code), flat, longrope */
    {"{'model_type': 'phi4mm', 'hidden_size': 3072, 'num_attention_heads': 24,"
     " 'num_hidden_layers': 2, 'partial_rotary_factor': 0.75, 'rope_theta': 10000.0,"
     " 'max_position_embeddings': 131072, 'original_max_position_embeddings': 4096}",
     128.0, "modeling_phi4mm.py"},
    {"{'model_type': 'phi4_multimodal', 'hidden_size': 3072, 'num_attention_heads': 24,"
     " 'num_hidden_layers': 2, 'partial_rotary_factor': 0.75, 'rope_theta': 10000.0}",
     128.0, "modeling_phi4_multimodal.py"},
    /* stepfun-ai/step3: step3_vl wrapper, text_config step3_text, head_dim 256 */
    {"{'model_type': 'step3_vl', 'text_config': {'model_type': 'step3_text',"
     " 'hidden_size': 7168, 'num_attention_heads': 64, 'head_dim': 256, 'num_hidden_layers': 2,"
     " 'rope_theta': 500000}}",
     256.0, "step3"},
    /* GLM-4.5V: glm4v_moe wrapper, text glm4v_moe_text (partial rotary 0.5, mrope) */
    {"{'model_type': 'glm4v_moe', 'text_config': {'model_type': 'glm4v_moe_text',"
     " 'hidden_size': 4096, 'num_attention_heads': 96, 'head_dim': 128, 'num_hidden_layers': 2,"
     " 'partial_rotary_factor': 0.5, 'rope_theta': 10000,"
     " 'rope_scaling': {'rope_type': 'default', 'mrope_section': [8, 12, 12]}}}",
     128.0, "modeling_glm4v_moe.py"},
    /* Qwen2.5-Omni: thinker_config.text_config qwen2_5_omni_text with mrope */
    {"{'model_type': 'qwen2_5_omni', 'thinker_config': {'model_type': 'qwen2_5_omni_thinker',"
     " 'text_config': {'model_type': 'qwen2_5_omni_text', 'hidden_size': 3584,"
     " 'num_attention_heads': 28, 'num_hidden_layers': 2, 'rope_theta': 1000000.0,"
     " 'rope_scaling': {'type': 'mrope', 'mrope_section': [16, 24, 24]}}}}",
     128.0, "modeling_qwen2_5_omni.py"},
    /* Qwen3-Omni: thinker_config.text_config qwen3_omni_moe_text, interleaved mrope */
    {"{'model_type': 'qwen3_omni_moe', 'thinker_config': {'model_type':"
     " 'qwen3_omni_moe_thinker', 'text_config': {'model_type': 'qwen3_omni_moe_text',"
     " 'hidden_size': 2048, 'num_attention_heads': 32, 'head_dim': 128, 'num_hidden_layers': 2,"
     " 'rope_theta': 1000000, 'rope_scaling': {'rope_type': 'default', 'mrope_section': [24, 20,"
     " 20], 'mrope_interleaved': true}}}}",
     128.0, "modeling_qwen3_omni_moe.py"},
    /* openbmb/MiniCPM-V-2_6: Qwen2 keys at the root, model_type minicpmv */
    {"{'model_type': 'minicpmv', 'hidden_size': 3584, 'num_attention_heads': 28,"
     " 'num_hidden_layers': 2, 'rope_theta': 1000000.0, 'version': 2.6}",
     128.0, "modeling_minicpmv.py"},
    /* rednote-hilab/dots.ocr: Qwen2 keys at the root, model_type dots_ocr */
    {"{'model_type': 'dots_ocr', 'hidden_size': 1536, 'num_attention_heads': 12,"
     " 'num_hidden_layers': 2, 'rope_theta': 1000000}",
     128.0, "modeling_dots_ocr.py"},
    /* types already in the RoPE table that lacked a scale row */
    {"{'model_type': 'internlm2', 'hidden_size': 4096, 'num_attention_heads': 32,"
     " 'num_hidden_layers': 2, 'rope_theta': 1000000}",
     128.0, "modeling_internlm2.py"},
    {"{'model_type': 'seed_oss', 'hidden_size': 5120, 'num_attention_heads': 80, 'head_dim': 128,"
     " 'num_hidden_layers': 2, 'rope_theta': 10000000.0}",
     128.0, "modeling_seed_oss.py"},
    {"{'model_type': 'apertus', 'hidden_size': 4096, 'num_attention_heads': 32,"
     " 'num_hidden_layers': 2, 'rope_theta': 12000000}",
     128.0, "modeling_apertus.py"},
    {"{'model_type': 'arcee', 'hidden_size': 2560, 'num_attention_heads': 20,"
     " 'num_hidden_layers': 2, 'rope_theta': 10000}",
     128.0, "modeling_arcee.py"},
    {"{'model_type': 'dots1', 'hidden_size': 4096, 'num_attention_heads': 32, 'head_dim': 128,"
     " 'num_hidden_layers': 2, 'rope_theta': 10000}",
     128.0, "modeling_dots1.py"},
};

START_TEST(test_known_types)
{
    json_t *j = au_ok(api_model_method, KNOWN[_i].body);
    ck_assert_msg(!au_warned(j, "not in posenc's table"), "%s", KNOWN[_i].body);
    const json_t *kinds = json_object_get(j, "kinds");
    const json_t *k = json_array_get(kinds, json_array_size(kinds) - 1);
    ck_assert_str_eq(json_string_value(json_object_get(k, "method")), "rope");
    const json_t *p = json_object_get(k, "parameters");
    ck_assert_msg(au_close(au_number(json_object_get(p, "scale")), 1.0 / sqrt(KNOWN[_i].head_dim),
                           0.0, 1e-15),
                  "%s", KNOWN[_i].body);
    const char *src = json_string_value(json_object_get(json_object_get(k, "sources"), "scale"));
    ck_assert_msg(src != NULL && strstr(src, KNOWN[_i].file) != NULL, "%s: %s", KNOWN[_i].file,
                  src ? src : "(none)");
    json_decref(j);
}
END_TEST

/* ERNIE 4.5 VL (HF ernie4_5_vl_moe, text_config ernie4_5_vl_moe_text): head_dim 12 (6 pairs),
 * mrope_section [2, 2, 2] summing to 6 */
#define ERNIE_VL                                                                                   \
    "'config': {'model_type': 'ernie4_5_vl_moe', 'text_config': {'model_type':"                    \
    " 'ernie4_5_vl_moe_text', 'hidden_size': 24, 'num_attention_heads': 2, 'num_hidden_layers': "  \
    "2,"                                                                                           \
    " 'rope_parameters': {'rope_type': 'default', 'rope_theta': 500000, 'mrope_section': [2, 2,"   \
    " 2]}}}"

/*
 * modeling_ernie4_5_vl_moe.py rotates adjacent pairs (rotate_half_text: x[0::2], x[1::2];
 * cos / sin repeat_interleave(2)). q = e0 at position m and k = e1 at position n: pair 0 (dims 0,
 * 1) turns at inv_freq[0] = 1, so q' = (cos m, sin m), k' = (-sin n, cos n) and q'.k' =
 * sin(m - n): scores[1][0] = sin(1) = 0.8414709848078965, scores[0][1] = -sin(1). Before: the
 * half layout pairs dim 0 with dim 6 and dim 1 with dim 7, so q'.k' = 0 (and the two "not in
 * posenc's table" warnings).
 */
START_TEST(test_ernie_vl_adjacent_pairs)
{
    json_t *j = au_ok(api_rope, "{" ERNIE_VL ", 'positions': [0, 1], 'q': [1, 0, 0, 0, 0, 0, 0, 0,"
                                " 0, 0, 0, 0], 'k': [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}");
    ck_close(au_num(j, "scores", 1, 0, -1), 0.8414709848078965, 1e-15, 1e-15);
    ck_close(au_num(j, "scores", 0, 1, -1), -0.8414709848078965, 1e-15, 1e-15);
    ck_close(au_num(j, "scores", 1, 1, -1), 0.0, 1e-15, 0);
    json_decref(j);
    j = au_ok(api_model_method, "{" ERNIE_VL "}");
    ck_assert(!au_warned(j, "not in posenc's table"));
    const json_t *p = json_object_get(json_array_get(json_object_get(j, "kinds"), 0), "parameters");
    ck_assert_str_eq(json_string_value(json_object_get(p, "layout")), "interleaved");
    json_decref(j);
}
END_TEST

/* An image position (coordinates not all equal) under ERNIE 4.5 VL: its h/w/t assignment is not
 * Qwen's mrope that posenc would otherwise read from mrope_section: a 422 at /positions. Text
 * positions as tuples ([1, 1, 1]) are answered (same as 1: the test above). */
START_TEST(test_ernie_vl_image_positions)
{
    au_expect_422_msg(api_rope,
                      "{" ERNIE_VL ", 'positions': [[0, 0, 0], [1, 2, 3]], 'q': [1, 0, 0, 0, 0, 0,"
                      " 0, 0, 0, 0, 0, 0]}",
                      "/positions", "ERNIE 4.5 VL");
    json_t *j = au_ok(api_rope, "{" ERNIE_VL ", 'positions': [[0, 0, 0], [1, 1, 1]], 'q': [1, 0, 0,"
                                " 0, 0, 0, 0, 0, 0, 0, 0, 0], 'k': [0, 1, 0, 0, 0, 0, 0, 0, 0, 0,"
                                " 0, 0]}");
    ck_close(au_num(j, "scores", 1, 0, -1), 0.8414709848078965, 1e-15, 1e-15);
    json_decref(j);
}
END_TEST

/*
 * GLM-4.5V's text model without partial_rotary_factor: Glm4vMoeTextConfig.__post_init__ sets
 * kwargs.setdefault("partial_rotary_factor", 0.5) (configuration_glm4v_moe.py), and
 * Glm4vMoeTextRotaryEmbedding rotates int(head_dim x 0.5) = 64 of head_dim 128. Before: all 128
 * dims rotated (the file's keys only).
 */
START_TEST(test_glm4v_moe_text_partial_default)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'glm4v_moe', 'text_config': {'model_type': 'glm4v_moe_text',"
                      " 'hidden_size': 4096, 'num_attention_heads': 96, 'head_dim': 128,"
                      " 'num_hidden_layers': 2, 'rope_theta': 10000}}");
    const json_t *k = json_array_get(json_object_get(j, "kinds"), 0);
    const json_t *p = json_object_get(k, "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "rotary_dim")), 64);
    json_decref(j);
}
END_TEST

/*
 * Step3's text config names its context length `max_position_embedding` (singular: vLLM
 * step3_text.py reads config.max_position_embedding; stepfun-ai/step3's config has it, 65536).
 * Without scaling no RoPE number reads a length, so it is listed in resolved.ignored and the
 * answer is plain RoPE over head_dim 256: pair 0 turns at 500000^0 = 1 rad per position, so its
 * sin at position 1 is sin(1). Before: a 422 at
 * the key ("concerns positions and posenc does not read it").
 */
START_TEST(test_step3_length_key)
{
    json_t *j = au_ok(api_model_method, "{"
                                        "'model_type': 'step3_vl', 'text_config': {"
                                        "'model_type': 'step3_text', 'hidden_size': 7168,"
                                        " 'num_attention_heads': 64, 'head_dim': 256,"
                                        " 'num_hidden_layers': 2, 'rope_theta': 500000,"
                                        " 'max_position_embedding': 65536, 'rope_scaling': null}}");
    ck_assert(!au_warned(j, "not in posenc's table"));
    json_decref(j);
    j = au_ok(api_rope, "{"
                        "'config': {'model_type': 'step3_vl', 'text_config': {"
                        "'model_type': 'step3_text', 'hidden_size': 7168,"
                        " 'num_attention_heads': 64, 'head_dim': 256, 'num_hidden_layers': 2,"
                        " 'rope_theta': 500000, 'max_position_embedding': 65536,"
                        " 'rope_scaling': null}}, 'positions': [0, 1], 'include': ['cos_sin']}");
    const json_t *ign = json_object_get(json_object_get(j, "resolved"), "ignored");
    ck_assert_ptr_nonnull(json_object_get(ign, "config.text_config.max_position_embedding"));
    /* inv_freq[0] = 500000^0 = 1: sin at position 1, pair 0 = sin(1) */
    ck_close(au_num(j, "sin", 1, 0, -1), 0.8414709848078965, 1e-15, 1e-15);
    json_decref(j);
}
END_TEST

Suite *model_types_suite(void)
{
    Suite *s = suite_create("model_types");
    TCase *tc = tcase_create("types_2025");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_loop_test(tc, test_known_types, 0, (int)(sizeof KNOWN / sizeof KNOWN[0]));
    tcase_add_test(tc, test_ernie_vl_adjacent_pairs);
    tcase_add_test(tc, test_ernie_vl_image_positions);
    tcase_add_test(tc, test_glm4v_moe_text_partial_default);
    tcase_add_test(tc, test_step3_length_key);
    suite_add_tcase(s, tc);
    return s;
}
