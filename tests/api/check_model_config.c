/*
 * tests/check_model_config.c -- POST /rope with pasted config.json files whose meaning lives in
 * Hugging Face's model code (api/model_config.c): multimodal wrappers (text_config), config-class
 * defaults (Gemma 3's omitted rope_theta and head_dim), adjacent-pair rotation by model_type
 * (GLM-4, ERNIE 4.5, DeepSeek-V3.2, Llama 4), HunYuan's dynamic `alpha`, the DeepSeek-only softmax
 * factor, and llama3 with low_freq_factor == high_freq_factor (Llama 4).
 *
 * The configs are read from tests/vectors/configs/ (provenance: PROVENANCE.md there). Expected
 * numbers come from a float64 Python script written from HF's formulas (not from posenc); each
 * value is quoted with the expression that gives it. Tolerance: relative 1e-13, absolute 1e-16.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

#define REL 1e-13
#define ABS 1e-16
#define DIR "tests/vectors/configs/"

/* POSTs {"config": <file>, <extra>} to /rope; returns the parsed body, status in *st. */
static json_t *post_file(const char *file, const char *extra, int *st)
{
    json_error_t e;
    json_t *cfg = json_load_file(file, 0, &e);
    ck_assert_msg(cfg != NULL, "%s: %s", file, e.text);
    char *cfg_text = json_dumps(cfg, JSON_COMPACT);
    json_decref(cfg);
    size_t n = strlen(cfg_text) + (extra ? strlen(extra) : 0) + 32;
    char *body = malloc(n);
    ck_assert_ptr_nonnull(body);
    snprintf(body, n, "{\"config\": %s%s%s}", cfg_text, extra ? ", " : "", extra ? extra : "");
    char *text = au_send(api_rope, body, st);
    json_t *j = au_parse(text);
    free(text);
    free(body);
    free(cfg_text);
    return j;
}

static json_t *ok_file(const char *file, const char *extra)
{
    int st = 0;
    json_t *j = post_file(file, extra, &st);
    char *dump = json_dumps(j, JSON_COMPACT);
    ck_assert_msg(st == 200, "%s: status %d: %s", file, st, dump);
    free(dump);
    return j;
}

static const json_t *res(const json_t *j, const char *key)
{
    return json_object_get(json_object_get(j, "resolved"), key);
}

static const char *src(const json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(res(j, "sources"), key));
    ck_assert_msg(s != NULL, "resolved.sources.%s missing", key);
    return s;
}

static void want_freq(const json_t *j, size_t i, double want)
{
    double got = au_number(json_array_get(json_object_get(j, "inv_freq"), i));
    ck_assert_msg(au_close(got, want, ABS, REL), "inv_freq[%zu] = %.17g, want %.17g", i, got, want);
}

/*
 * DeepSeek-V3.2-Exp (verbatim): modeling_deepseek_v32.py always rotates adjacent pairs (there is
 * no rope_interleave), and DeepseekV3Attention multiplies the softmax scale by mscale^2.
 * Python float64, d = qk_rope_head_dim 64, b = 10000, s = 40, L0 = 4096, beta 32 / 1, truncate:
 *   lo = floor(64 ln(4096/(32*2pi)) / (2 ln 1e4)) = 10, hi = ceil(64 ln(4096/(2pi)) / (2 ln 1e4))
 *   = 23; inv_freq[j] = (1/(s b^(2j/d)))(1-e) + b^(-2j/d) e, e = 1 - clamp((j-lo)/(hi-lo), 0, 1)
 *   inv_freq[0] = 1.0, [10] = 0.056234132519034905, [20] = 0.0007905694150420945,
 *   [31] = 3.33380358040831e-06; attention_factor = g(40,1)/g(40,1) = 1;
 *   softmax_scale_factor = (0.1 ln 40 + 1)^2 = 1.8738542070926265.
 */
START_TEST(test_deepseek_v32)
{
    json_t *j = ok_file(DIR "deepseek_v32.json", NULL);
    ck_assert_str_eq(json_string_value(res(j, "layout")), "interleaved");
    ck_assert_ptr_nonnull(strstr(src(j, "layout"), "deepseek_v32"));
    ck_assert_int_eq(json_integer_value(res(j, "rotary_dim")), 64);
    want_freq(j, 0, 1.0);
    want_freq(j, 10, 0.056234132519034905);
    want_freq(j, 20, 0.0007905694150420945);
    want_freq(j, 31, 3.33380358040831e-06);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    ck_close(au_number(json_object_get(j, "softmax_scale_factor")), 1.8738542070926265, 0, REL);
    json_decref(j);
}
END_TEST

/*
 * Gemma 3 12B (wrapper): text_config omits rope_theta and head_dim. Gemma3TextConfig defaults:
 * rope_theta 1e6, head_dim 256 (hidden_size / heads = 3840/16 = 240 is NOT what HF uses).
 * linear factor 8: inv_freq[j] = 1e6^(-2j/256) / 8:
 *   [0] = 0.125, [1] = 0.11221089155591428, [64] = 0.000125, [127] = 1.3924673249935028e-07.
 * Sources name the nested path; sliding layers' base (rope_local_base_freq default 10000) is
 * warned about.
 */
START_TEST(test_gemma3_wrapper_defaults)
{
    json_t *j = ok_file(DIR "gemma3_12b_it.json", NULL);
    ck_assert_int_eq(json_integer_value(res(j, "head_dim")), 256);
    ck_close(au_number(res(j, "base")), 1000000.0, 0, 0);
    ck_assert_str_eq(json_string_value(res(j, "layout")), "half");
    ck_assert_ptr_nonnull(strstr(src(j, "base"), "Gemma3TextConfig"));
    ck_assert_ptr_nonnull(strstr(src(j, "head_dim"), "Gemma3TextConfig"));
    ck_assert_str_eq(src(j, "scaling"), "config.text_config.rope_scaling");
    ck_assert_str_eq(src(j, "scaling.factor"), "config.text_config.rope_scaling.factor");
    ck_assert_str_eq(src(j, "scaling.type"), "config.text_config.rope_scaling.rope_type");
    want_freq(j, 0, 0.125);
    want_freq(j, 1, 0.11221089155591428);
    want_freq(j, 64, 0.000125);
    want_freq(j, 127, 1.3924673249935028e-07);
    ck_assert(au_warned(j, "rope_local_base_freq"));
    json_decref(j);
}
END_TEST

/*
 * Llama 4 Scout (wrapper): llama3 with low_freq_factor = high_freq_factor = 1, accepted as by HF
 * (both band edges at L0 = 8192: wavelengths below kept, above divided by 16; no medium band).
 * d = 128, b = 5e5: wavelength 2pi/theta_j crosses 8192 between j = 34 (6695.1) and 35 (8218.7).
 *   [0] = 1.0, [34] = 0.0009384738703573801 (kept), [35] = 5e5^(-70/128)/16 =
 *   4.7781061769823416e-05, [63] = 1.5344629944572555e-07. Adjacent pairs (modeling_llama4.py
 *   view_as_complex). no_rope_layers / attn_temperature_tuning are warned about.
 */
START_TEST(test_llama4_equal_factors)
{
    json_t *j = ok_file(DIR "llama4_scout_17b_16e.json", NULL);
    ck_assert_str_eq(json_string_value(json_object_get(res(j, "scaling"), "type")), "llama3");
    ck_assert_str_eq(json_string_value(res(j, "layout")), "interleaved");
    ck_assert_str_eq(src(j, "base"), "config.text_config.rope_theta");
    want_freq(j, 0, 1.0);
    want_freq(j, 34, 0.0009384738703573801);
    want_freq(j, 35, 4.7781061769823416e-05);
    want_freq(j, 63, 1.5344629944572555e-07);
    ck_assert(au_warned(j, "attn_temperature_tuning"));
    json_decref(j);
}
END_TEST

/*
 * GLM-4-9B-0414: modeling_glm4.py rotates adjacent pairs of the first rotary_dim = 0.5 x 128 = 64
 * dims. q = e_0 at position 3: pair 0 = dims (0, 1) at theta_0 = 1, so q_rotated[0] = cos 3 =
 * -0.9899924966004454 and q_rotated[1] = sin 3 = 0.1411200080598672 (half layout would put the
 * sine at dim 32). inv_freq[1] = 1e4^(-2/64) = 0.7498942093324559.
 */
START_TEST(test_glm4_adjacent_pairs)
{
    json_t *j = ok_file(DIR "glm4_9b_0414.json",
                        "\"positions\": [3], \"q\": [1" /* 127 zeros follow */
                        ",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
                        ",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
                        ",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
                        ",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]");
    ck_assert_str_eq(json_string_value(res(j, "layout")), "interleaved");
    ck_assert_int_eq(json_integer_value(res(j, "rotary_dim")), 64);
    ck_assert_ptr_nonnull(strstr(src(j, "layout"), "modeling_glm4.py"));
    want_freq(j, 1, 0.7498942093324559);
    const json_t *q = json_array_get(json_object_get(j, "q_rotated"), 0);
    ck_close(au_number(json_array_get(q, 0)), -0.9899924966004454, 1e-15, 0);
    ck_close(au_number(json_array_get(q, 1)), 0.1411200080598672, 1e-15, 0);
    ck_close(au_number(json_array_get(q, 32)), 0.0, 0, 0);
    json_decref(j);
}
END_TEST

/* ERNIE 4.5 0.3B: GLM's rotate_half, full head: interleaved, d = 128, b = 5e5:
 * inv_freq[1] = 5e5^(-2/128) = 0.8146172338565447, [63] = 2.455140791131609e-06. */
START_TEST(test_ernie45_adjacent_pairs)
{
    json_t *j = ok_file(DIR "ernie4_5_0p3b.json", NULL);
    ck_assert_str_eq(json_string_value(res(j, "layout")), "interleaved");
    ck_assert_ptr_nonnull(strstr(src(j, "layout"), "ernie4_5"));
    want_freq(j, 1, 0.8146172338565447);
    want_freq(j, 63, 2.455140791131609e-06);
    json_decref(j);
}
END_TEST

/*
 * Hunyuan-MT-7B (hunyuan_v1_dense): rope_scaling {type dynamic, alpha 100000}:
 * HunYuanDenseV1RotaryEmbedding uses base' = 1e4 x 100000^(128/126) = 1200508057.7484066 and
 * attention factor 1 (factor unused): inv_freq[1] = base'^(-2/128) = 0.7213315377359566,
 * [63] = base'^(-126/128) = 1.1547819846894589e-09.
 * The same alpha under another model_type is a 422 naming it.
 */
START_TEST(test_hunyuan_alpha)
{
    json_t *j = ok_file(DIR "hunyuan_mt_7b.json", NULL);
    const json_t *sc = res(j, "scaling");
    ck_assert_str_eq(json_string_value(json_object_get(sc, "type")), "ntk");
    ck_close(au_number(json_object_get(sc, "effective_base")), 1200508057.7484066, 0, REL);
    ck_assert_str_eq(src(j, "scaling.alpha"), "config.rope_scaling.alpha (HunYuan dynamic alpha)");
    want_freq(j, 1, 0.7213315377359566);
    want_freq(j, 63, 1.1547819846894589e-09);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    json_decref(j);

    au_expect_422(api_rope,
                  "{'config': {'model_type': 'llama', 'head_dim': 128, 'max_position_embeddings':"
                  " 4096, 'rope_scaling': {'type': 'dynamic', 'factor': 2.0, 'alpha': 1000.0}}}",
                  "/config/rope_scaling/alpha", NULL);
}
END_TEST

/*
 * Ministral 3 8B (wrapper mistral3 -> text_config ministral3): yarn with mscale_all_dim 1.
 * HF's Ministral3Attention keeps scaling = head_dim^-0.5 (no mscale^2): softmax_scale_factor 1
 * (posenc said (0.1 ln 16 + 1)^2 = 1.63 before), with a warning. attention_factor =
 * g(16,1)/g(16,1) = 1. d = 128, b = 1e6, s = 16, L0 = 16384: lo = 20, hi = 37;
 * inv_freq[0] = 1.0, [20] = 1e6^(-40/128) = 0.01333521432163324 (ramp 0), [63] =
 * 7.755861004698247e-08. llama_4_scaling_beta is read as the query scale (resolved.query_scale).
 */
START_TEST(test_ministral3_no_softmax_factor)
{
    json_t *j = ok_file(DIR "ministral3_8b.json", NULL);
    ck_close(au_number(json_object_get(j, "softmax_scale_factor")), 1.0, 0, 0);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    ck_assert(au_warned(j, "DeepSeek family"));
    /* llama_4_scaling_beta: Ministral 3's query scale, read (no longer a warning) */
    const json_t *qs = res(j, "query_scale");
    ck_close(au_number(json_object_get(qs, "beta")), 0.1, 0, 0);
    ck_close(au_number(json_object_get(qs, "original_max_position_embeddings")), 16384.0, 0, 0);
    ck_assert_str_eq(src(j, "query_scale.beta"),
                     "config.text_config.rope_parameters.llama_4_scaling_beta");
    ck_assert_str_eq(src(j, "base"), "config.text_config.rope_parameters.rope_theta");
    want_freq(j, 0, 1.0);
    want_freq(j, 20, 0.01333521432163324);
    want_freq(j, 63, 7.755861004698247e-08);
    json_decref(j);
}
END_TEST

/* POST /model/method on the Gemma 3 12B wrapper: 40 sliding layers (base = Gemma3TextConfig's
 * rope_local_base_freq 10000, no scaling) and 8 full layers (5, 11, ..., 47: (l + 1) % 6 == 0;
 * base 1e6, linear 8); each kind's base source names where the value comes from. */
START_TEST(test_method_gemma3_kinds)
{
    int st = 0;
    json_error_t e;
    json_t *cfg = json_load_file(DIR "gemma3_12b_it.json", 0, &e);
    ck_assert_ptr_nonnull(cfg);
    char *text = json_dumps(cfg, JSON_COMPACT);
    char *resp = au_send(api_model_method, text, &st);
    ck_assert_msg(st == 200, "%s", resp);
    json_t *j = au_parse(resp);
    ck_assert_str_eq(json_string_value(json_object_get(j, "text_config")), "config.text_config");
    const json_t *kinds = json_object_get(j, "kinds");
    ck_assert_uint_eq(json_array_size(kinds), 2);
    for (size_t i = 0; i < 2; i++) {
        const json_t *k = json_array_get(kinds, i);
        const char *lt = json_string_value(json_object_get(k, "layer_type"));
        const char *bs = json_string_value(json_object_get(json_object_get(k, "sources"), "base"));
        double base = au_number(json_object_get(json_object_get(k, "parameters"), "base"));
        size_t n = json_array_size(json_object_get(k, "layers"));
        if (strcmp(lt, "sliding_attention") == 0) {
            ck_assert_uint_eq(n, 40);
            ck_close(base, 10000.0, 0, 0);
            ck_assert_ptr_nonnull(strstr(bs, "rope_local_base_freq"));
        } else {
            ck_assert_uint_eq(n, 8);
            ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(k, "layers"), 0)),
                             5);
            ck_close(base, 1000000.0, 0, 0);
            ck_assert_ptr_nonnull(strstr(bs, "Gemma3TextConfig"));
        }
    }
    json_decref(j);
    json_decref(cfg);
    free(resp);
    free(text);
}
END_TEST

/* POST /model/method with multi-axis RoPE in a wrapper (the shape of Qwen3-VL's text_config:
 * rope_scaling {mrope_interleaved, mrope_section [24, 20, 20], rope_type default}): one RoPE kind,
 * variant mrope_interleaved, sections reported (no note: /rope computes it since axes type
 * mrope_interleaved exists); no 422. */
START_TEST(test_method_mrope)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'qwen3_vl', 'text_config': {'model_type': 'qwen3_vl_text',"
                      " 'num_hidden_layers': 2, 'head_dim': 128, 'rope_theta': 5000000,"
                      " 'rope_scaling': {'mrope_interleaved': true, 'mrope_section': [24, 20, 20],"
                      " 'rope_type': 'default'}}}");
    const json_t *k = json_array_get(json_object_get(j, "kinds"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(k, "variant")), "mrope_interleaved");
    const json_t *sc = json_object_get(json_object_get(k, "parameters"), "scaling");
    ck_assert_uint_eq(json_array_size(json_object_get(sc, "mrope_section")), 3);
    ck_assert_ptr_null(json_object_get(k, "note"));
    json_decref(j);
}
END_TEST

/*
 * Qwen3.5 (qwen3_5 wrapper, text model qwen3_5_text; the shape of the published text_config:
 * linear-attention layers with a full-attention layer every 4th, head_dim 256, partial rotary
 * 0.25, interleaved M-RoPE [11, 11, 10] in rope_parameters): the linear-attention layers have no
 * positions, the full ones one RoPE kind, mrope_interleaved over rotary_dim 64, scale
 * 256^-0.5 = 0.0625 named from modeling_qwen3_5.py (Qwen3NextAttention: head_dim**-0.5) and no
 * "not in posenc's table" warning (before: two, RoPE table and attention-scale table).
 */
START_TEST(test_method_qwen3_5)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'qwen3_5', 'text_config': {'model_type': 'qwen3_5_text',"
                      " 'num_hidden_layers': 4, 'head_dim': 256, 'hidden_size': 1024,"
                      " 'num_attention_heads': 8, 'layer_types': ['linear_attention',"
                      " 'linear_attention', 'linear_attention', 'full_attention'],"
                      " 'rope_parameters': {'mrope_interleaved': true, 'mrope_section': [11, 11,"
                      " 10], 'partial_rotary_factor': 0.25, 'rope_theta': 10000000,"
                      " 'rope_type': 'default'}}}");
    ck_assert_ptr_null(json_object_get(j, "warnings"));
    const json_t *kinds = json_object_get(j, "kinds");
    ck_assert_uint_eq(json_array_size(kinds), 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(kinds, 0), "method")),
                     "none");
    const json_t *k = json_array_get(kinds, 1);
    ck_assert_str_eq(json_string_value(json_object_get(k, "variant")), "mrope_interleaved");
    const json_t *p = json_object_get(k, "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "rotary_dim")), 64);
    ck_close(au_number(json_object_get(p, "scale")), 0.0625, 0, 0);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(json_object_get(k, "sources"), "scale")),
               "modeling_qwen3_5.py"));
    json_decref(j);
}
END_TEST

/*
 * Qwen3.5 class defaults (Qwen3_5TextConfig __post_init__: partial_rotary_factor 0.25 by
 * setdefault, head_dim 256, layer_types from full_attention_interval 4): a text_config that says
 * none of them has linear layers 0-2 and a RoPE layer 3 rotating 0.25 * 256 = 64 dims, each
 * value named as the class default. Before: one RoPE kind over all four layers with head_dim
 * 1024 / 8 = 128, all of it rotated.
 */
START_TEST(test_method_qwen3_5_defaults)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'qwen3_5', 'text_config': {'model_type': 'qwen3_5_text',"
                      " 'num_hidden_layers': 4, 'hidden_size': 1024, 'num_attention_heads': 8,"
                      " 'rope_parameters': {'mrope_interleaved': true, 'mrope_section': [11, 11,"
                      " 10], 'rope_theta': 10000000, 'rope_type': 'default'}}}");
    const json_t *layers = json_object_get(j, "layers");
    static const int WANT[4] = {0, 0, 0, 1};
    for (size_t l = 0; l < 4; l++)
        ck_assert_int_eq(json_integer_value(json_array_get(layers, l)), WANT[l]);
    const json_t *k = json_array_get(json_object_get(j, "kinds"), 1);
    const json_t *p = json_object_get(k, "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "head_dim")), 256);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "rotary_dim")), 64);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(json_object_get(k, "sources"), "rotary_dim")),
               "Qwen3_5TextConfig"));
    json_decref(j);
}
END_TEST

/*
 * Qwen3-VL-8B-Instruct (verbatim): POST /rope with the pasted file is M-RoPE from
 * text_config.rope_scaling; every member of that object is accounted for: mrope_section and
 * mrope_interleaved (they change the numbers) named in resolved.sources, rope_type ("default";
 * only "mrope" / "default" are accepted here, both plain M-RoPE) in resolved.ignored. A member
 * posenc does not read is a 422 naming it (it was dropped silently before).
 */
START_TEST(test_mrope_config_keys)
{
    json_t *j = ok_file(DIR "qwen3_vl_8b_instruct.json", NULL);
    ck_assert_str_eq(src(j, "axes"),
                     "config.text_config.rope_scaling.mrope_section (mrope_interleaved)");
    ck_assert_str_eq(src(j, "axes_interleaved"),
                     "config.text_config.rope_scaling.mrope_interleaved");
    const json_t *ign = res(j, "ignored");
    ck_assert_ptr_nonnull(json_object_get(ign, "config.text_config.rope_scaling.rope_type"));
    json_decref(j);
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'qwen2_vl', 'hidden_size': 256,"
                  " 'num_attention_heads': 2, 'rope_scaling': {'type': 'mrope',"
                  " 'mrope_section': [16, 24, 24], 'mrope_scale': 2}}}",
                  "/config/rope_scaling/mrope_scale", NULL);
}
END_TEST

Suite *model_config_suite(void)
{
    Suite *s = suite_create("model_config");
    TCase *tc = tcase_create("wrappers_defaults_layouts");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_deepseek_v32);
    tcase_add_test(tc, test_gemma3_wrapper_defaults);
    tcase_add_test(tc, test_llama4_equal_factors);
    tcase_add_test(tc, test_glm4_adjacent_pairs);
    tcase_add_test(tc, test_ernie45_adjacent_pairs);
    tcase_add_test(tc, test_hunyuan_alpha);
    tcase_add_test(tc, test_ministral3_no_softmax_factor);
    tcase_add_test(tc, test_method_gemma3_kinds);
    tcase_add_test(tc, test_method_mrope);
    tcase_add_test(tc, test_method_qwen3_5);
    tcase_add_test(tc, test_method_qwen3_5_defaults);
    tcase_add_test(tc, test_mrope_config_keys);
    suite_add_tcase(s, tc);
    return s;
}
