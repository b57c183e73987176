/*
 * tests/api/check_public_reports.c -- behaviours that public bug reports settled, checked on
 * POST /rope and POST /model/method (the list, with posenc's answer to each report, is in
 * docs/models.md, "Public bug reports checked"). Each test names the report (repository#number)
 * whose settled behaviour it pins; reports already pinned elsewhere are not repeated here.
 *
 * Expected numbers are derived by hand from the formulas of docs/conventions.md (derivations in
 * the comments), not taken from core/.
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

static const json_t *res_get(const json_t *j, const char *key)
{
    return json_object_get(json_object_get(j, "resolved"), key);
}

static const char *src_get(const json_t *j, const char *key)
{
    return json_string_value(json_object_get(res_get(j, "sources"), key));
}

/* ---- Mistral 4 (model_type mistral4; transformers#47435) ---------------------------------------
 *
 * The text config as transformers v5 saves Mistral4Config (configuration_mistral4.py): head_dim
 * is qk_nope_head_dim + qk_rope_head_dim (64 + 64 = 128) and rope_parameters carries
 * partial_rotary_factor = qk_rope_head_dim / head_dim = 0.5, so HF rotates
 * int(128 x 0.5) = 64 dims: the whole qk_rope_head_dim slice (posenc's head_dim), not 32 of
 * it. rope_interleave is omitted: Mistral4Config defaults it to true. */
static const char MISTRAL4_TEXT[] =
    "{'model_type': 'mistral4', 'hidden_size': 4096, 'num_attention_heads': 32,"
    " 'num_key_value_heads': 32, 'num_hidden_layers': 2, 'head_dim': 128,"
    " 'qk_rope_head_dim': 64, 'qk_nope_head_dim': 64, 'v_head_dim': 128, 'kv_lora_rank': 256,"
    " 'q_lora_rank': 1024, 'max_position_embeddings': 1048576,"
    " 'rope_parameters': {'type': 'yarn', 'rope_type': 'yarn', 'rope_theta': 10000.0,"
    " 'factor': 128.0, 'original_max_position_embeddings': 8192, 'beta_fast': 32.0,"
    " 'beta_slow': 1.0, 'mscale': 1.0, 'mscale_all_dim': 1.0, 'llama_4_scaling_beta': 0.1,"
    " 'partial_rotary_factor': 0.5}}";

START_TEST(test_mistral4_rope)
{
    /*
     * d = 64, b = 10^4, s = 128, L0 = 8192, beta 32 / 1 (docs/conventions.md#yarn):
     * c(32) = 64 ln(8192 / (64 pi)) / (2 ln 10^4) = 64 x 3.7073 / 18.4207 = 12.88 -> 12;
     * c(1) = 64 x 7.1730 / 18.4207 = 24.92 -> 25. So theta_0 = 1 (extrapolated) and
     * theta_31 = 10^4^(-62/64) / 128 (interpolated).
     * A = g(128, 1) / g(128, 1) = 1; the softmax factor (transformers#47435 gives Mistral 4
     * DeepSeek's mscale^2): (0.1 ln 128 + 1)^2.
     * Query scale at p = 9000 (Mistral4Attention, get_llama_4_attn_scale):
     * 1 + 0.1 ln(1 + floor(9000 / 8192)) = 1 + 0.1 ln 2.
     */
    char body[2048];
    snprintf(
        body, sizeof body, "{'config': %s, 'positions': [0, 9000], 'q': [%s]}", MISTRAL4_TEXT,
        "1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,"
        " 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,"
        " 0, 0, 0, 0, 0, 0, 0");
    json_t *j = au_ok(api_rope, body);
    ck_assert_int_eq(json_integer_value(res_get(j, "head_dim")), 64);
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 64);
    const json_t *inv = json_object_get(j, "inv_freq");
    ck_assert_uint_eq(json_array_size(inv), 32);
    ck_close(au_number(json_array_get(inv, 0)), 1.0, 0, 0);
    ck_close(au_number(json_array_get(inv, 31)), 1.0 / pow(10000.0, 62.0 / 64.0) / 128.0, ABS, REL);
    ck_assert_int_eq((int)au_number(json_object_get(res_get(j, "scaling"), "ramp_low")), 12);
    ck_assert_int_eq((int)au_number(json_object_get(res_get(j, "scaling"), "ramp_high")), 25);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    double g = 0.1 * log(128.0) + 1.0;
    ck_close(au_number(json_object_get(j, "softmax_scale_factor")), g * g, ABS, REL);
    ck_assert(!au_warned(j, "softmax_scale_factor is 1"));
    ck_assert_str_eq(json_string_value(res_get(j, "layout")), "interleaved");
    ck_assert_ptr_nonnull(strstr(src_get(j, "rotary_dim"), "qk_nope_head_dim"));
    /* the query scale: q = e_0 at p = 0 is unscaled, at p = 9000 scaled by 1 + 0.1 ln 2 */
    const json_t *qs = res_get(j, "query_scale");
    ck_assert_ptr_nonnull(qs);
    ck_close(au_number(json_object_get(qs, "beta")), 0.1, 0, 0);
    ck_close(au_number(json_object_get(qs, "original_max_position_embeddings")), 8192.0, 0, 0);
    double s = 1.0 + 0.1 * log(2.0);
    /* interleaved: pair 0 is dims (0, 1), turned by 9000 x theta_0 = 9000 rad */
    ck_close(au_num(j, "q_rotated", 1, 0, -1), s * cos(9000.0), 1e-15, 1e-13);
    ck_close(au_num(j, "q_rotated", 1, 1, -1), s * sin(9000.0), 1e-15, 1e-13);
    ck_close(au_num(j, "q_rotated", 0, 0, -1), 1.0, 0, 0);
    json_decref(j);
}
END_TEST

START_TEST(test_mistral4_rotary_mismatch)
{
    /* partial_rotary_factor 1.0: HF's cos/sin then span int(128 x 1.0) = 128 dims against a
     * 64-wide q_rot slice, a shape error in Mistral4Attention; posenc refuses the factor at its
     * pointer instead of guessing (before Mistral 4 was known it rotated all 64 dims). */
    char *cfg = au_dq(MISTRAL4_TEXT);
    char *p = strstr(cfg, "\"partial_rotary_factor\": 0.5");
    ck_assert_ptr_nonnull(p);
    memcpy(p, "\"partial_rotary_factor\": 1.0", strlen("\"partial_rotary_factor\": 1.0"));
    size_t n = strlen(cfg) + 32;
    char *body = malloc(n);
    ck_assert_ptr_nonnull(body);
    snprintf(body, n, "{\"config\": %s}", cfg);
    int st = 0;
    char *text = au_send(api_rope, body, &st);
    ck_assert_msg(st == 422, "status %d: %s", st, text);
    json_t *j = au_parse(text);
    const json_t *e0 = json_array_get(json_object_get(j, "errors"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(e0, "pointer")),
                     "/config/rope_parameters/partial_rotary_factor");
    json_decref(j);
    free(text);
    free(body);
    free(cfg);
}
END_TEST

START_TEST(test_mistral4_method)
{
    /* Mistral4Attention: scaling = qk_head_dim^-0.5 = (64 + 64)^-0.5 (DeepSeek's rule), and
     * model_type mistral4 is a RoPE model of posenc's table (no "not in posenc's table"). */
    json_t *j = au_ok(api_model_method, MISTRAL4_TEXT);
    const json_t *k0 = json_array_get(json_object_get(j, "kinds"), 0);
    const json_t *par = json_object_get(k0, "parameters");
    ck_assert_str_eq(json_string_value(json_object_get(k0, "method")), "rope");
    ck_close(au_number(json_object_get(par, "scale")), 1.0 / sqrt(128.0), ABS, REL);
    ck_assert_int_eq(json_integer_value(json_object_get(par, "rotary_dim")), 64);
    ck_assert(!au_warned(j, "not in posenc's table"));
    json_decref(j);
}
END_TEST

/* ---- odd rotary dims (transformers#48101, #35233) ----------------------------------------------
 *
 * RoPE turns dims in pairs: an odd rotated width (hidden_size 520 / 8 heads = 65 with every dim
 * rotating; GPT-J's rotary_dim 63) has no HF answer (apply_rotary_pos_emb fails on the shapes,
 * and transformers#48101 settled that the config should be refused), nor does a rotary_dim wider
 * than the head. POST /rope refused them; POST /model/method described them with a 200. */
START_TEST(test_method_odd_rotary)
{
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'llama', 'hidden_size': 520, 'num_attention_heads': 8,"
                      " 'num_hidden_layers': 1}",
                      "/hidden_size", "even");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'gptj', 'n_embd': 512, 'n_head': 8, 'rotary_dim': 63,"
                      " 'n_layer': 1}",
                      "/rotary_dim", "even");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'gptj', 'n_embd': 512, 'n_head': 8, 'rotary_dim': 72,"
                      " 'n_layer': 1}",
                      "/rotary_dim", "head_dim");
    /* an odd head with an even rotated part is HF's ordinary partial rotary: still a 200 */
    json_t *j = au_ok(api_model_method, "{'model_type': 'gptj', 'n_embd': 520, 'n_head': 8,"
                                        " 'rotary_dim': 32, 'n_layer': 1}");
    const json_t *par =
        json_object_get(json_array_get(json_object_get(j, "kinds"), 0), "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(par, "rotary_dim")), 32);
    json_decref(j);
}
END_TEST

/* ---- regressions: behaviours posenc already had, pinned to the report that settled them --------
 */

START_TEST(test_yarn_factor_kept)
{
    /* transformers#38224 (fixed by #40320): a YaRN factor given beside
     * original_max_position_embeddings is used as given, not replaced by max_position_embeddings
     * / original (40960 / 32768 = 1.25 here). A = 0.1 ln 4 + 1. */
    json_t *j =
        au_ok(api_rope, "{'config': {'model_type': 'qwen3', 'hidden_size': 4096,"
                        " 'num_attention_heads': 32, 'head_dim': 128, 'rope_theta': 1000000,"
                        " 'max_position_embeddings': 40960, 'rope_scaling': {'rope_type': 'yarn',"
                        " 'factor': 4.0, 'original_max_position_embeddings': 32768}}}");
    ck_close(au_number(json_object_get(res_get(j, "scaling"), "factor")), 4.0, 0, 0);
    ck_close(au_number(json_object_get(j, "attention_factor")), 0.1 * log(4.0) + 1.0, ABS, REL);
    json_decref(j);
}
END_TEST

START_TEST(test_yarn_attention_factor_given)
{
    /* vllm-project/vllm#46280, ml-explore/mlx-lm#1507 (both following transformers'
     * _compute_yarn_parameters): an explicit attention_factor replaces the computed one, so
     * factor 64 with attention_factor 1.0 gives A = 1, not 0.1 ln 64 + 1 = 1.4159. */
    json_t *j =
        au_ok(api_rope, "{'config': {'model_type': 'llama', 'hidden_size': 64,"
                        " 'num_attention_heads': 8, 'max_position_embeddings': 16384,"
                        " 'rope_scaling': {'rope_type': 'yarn', 'factor': 64.0,"
                        " 'attention_factor': 1.0, 'original_max_position_embeddings': 256}}}");
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    json_decref(j);
}
END_TEST

/* n comma-separated 1.0s into buf (a LongRoPE factor list that changes nothing). */
static void ones(char *buf, size_t cap, int n)
{
    size_t k = 0;
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, cap - k, i ? ", 1.0" : "1.0");
}

#define PHI4_MINI_LONGROPE                                                                         \
    "{'config': {'model_type': 'phi3', 'hidden_size': 3072, 'num_attention_heads': 24,"            \
    " 'partial_rotary_factor': 0.75, 'max_position_embeddings': 131072,"                           \
    " 'original_max_position_embeddings': 4096, 'rope_scaling': {'type': 'longrope',"              \
    " 'short_factor': [%s], 'long_factor': [%s]}}, 'seq_len': 10}"

START_TEST(test_longrope_partial_lists)
{
    /* Phi-4-mini's shape (apache/tvm#18102, mlc-ai/mlc-llm#3268): head 128, partial_rotary_factor
     * 0.75, so rotary_dim 96 and the LongRoPE lists hold rotary_dim / 2 = 48 numbers; lists of
     * head_dim / 2 = 64 are refused at the list. A = sqrt(1 + ln 32 / ln 4096) (factor
     * 131072 / 4096 = 32, Phi-3's top-level original_max_position_embeddings). */
    char l48[48 * 5 + 8], l64[64 * 5 + 8], body[1400];
    ones(l48, sizeof l48, 48);
    ones(l64, sizeof l64, 64);
    snprintf(body, sizeof body, PHI4_MINI_LONGROPE, l48, l48);
    json_t *j = au_ok(api_rope, body);
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 96);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "inv_freq")), 48);
    ck_close(au_number(json_object_get(j, "attention_factor")), sqrt(1.0 + log(32.0) / log(4096.0)),
             ABS, REL);
    json_decref(j);
    snprintf(body, sizeof body, PHI4_MINI_LONGROPE, l64, l64);
    au_expect_422_msg(api_rope, body, "/config/rope_scaling/short_factor", "rotary_dim/2 is 48");
}
END_TEST

START_TEST(test_neox_japanese_rotary_pct)
{
    /* transformers#48652: GPT-NeoX-Japanese rotates int(head_dim x rotary_pct) dims (80 x 0.5 =
     * 40), inv_freq over those 40; GPTNeoXJapaneseConfig's rotary_pct default is 1.0. */
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'gpt_neox_japanese',"
                                " 'hidden_size': 2560, 'num_attention_heads': 32,"
                                " 'rotary_pct': 0.5, 'rotary_emb_base': 10000}}");
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 40);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), 1.0 / pow(10000.0, 2.0 / 40.0), ABS, REL);
    json_decref(j);
    j = au_ok(api_rope, "{'config': {'model_type': 'gpt_neox_japanese', 'hidden_size': 2560,"
                        " 'num_attention_heads': 32}}");
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 80);
    json_decref(j);
}
END_TEST

START_TEST(test_type_and_rope_type_disagree)
{
    /* transformers#32166 / #32182: old configs name the type `type`, new ones `rope_type`;
     * transformers versions disagree on which wins when both are present (4.43's LlamaConfig
     * copied `type` over `rope_type`, later versions read `rope_type` first), so posenc refuses
     * the pair when they differ, and takes either when alone (tests/vectors/rope/aliases.json). */
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'llama', 'hidden_size': 64,"
                      " 'num_attention_heads': 8, 'rope_scaling': {'type': 'linear',"
                      " 'rope_type': 'dynamic', 'factor': 2.0}}}",
                      "/config/rope_scaling/rope_type", "different values");
}
END_TEST

START_TEST(test_deepseek_v2_lite_mscale)
{
    /* DeepSeek-V2-Lite's scaling (mscale = mscale_all_dim = 0.707, factor 40): the rotary
     * attention factor is the ratio g(40, 0.707) / g(40, 0.707) = 1, and the softmax scale is
     * multiplied by g(40, mscale_all_dim)^2 = (0.0707 ln 40 + 1)^2 = 1.5896 -- HF's
     * DeepseekV2Attention since transformers#47435; the two corrections that
     * onnxruntime/mobius#548 and kekzl/imp#880 had conflated. Layout: DeepseekV2Config's
     * rope_interleave default (adjacent pairs). */
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'deepseek_v2', 'hidden_size': 2048,"
                                " 'num_attention_heads': 16, 'qk_rope_head_dim': 64,"
                                " 'qk_nope_head_dim': 128, 'max_position_embeddings': 163840,"
                                " 'rope_theta': 10000, 'rope_scaling': {'type': 'yarn',"
                                " 'factor': 40, 'mscale': 0.707, 'mscale_all_dim': 0.707,"
                                " 'original_max_position_embeddings': 4096, 'beta_fast': 32,"
                                " 'beta_slow': 1}}}");
    double g = 0.1 * 0.707 * log(40.0) + 1.0;
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    ck_close(au_number(json_object_get(j, "softmax_scale_factor")), g * g, ABS, REL);
    ck_assert_str_eq(json_string_value(res_get(j, "layout")), "interleaved");
    json_decref(j);
}
END_TEST

START_TEST(test_llama3_equal_band_factors)
{
    /* transformers#32182 made a llama3 high_freq_factor that is not above low_freq_factor a
     * warning (_validate_llama3_rope_parameters). With both 4 there is no medium band: a pair
     * whose wavelength 2 pi / theta is below 8192 / 4 keeps theta, one above it is divided by 8
     * (H 128, b 500000: pair 0 kept, pair 63 divided). posenc answers the same numbers and, like
     * HF, warns. */
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'llama', 'hidden_size': 4096,"
                                " 'num_attention_heads': 32, 'rope_theta': 500000,"
                                " 'rope_scaling': {'rope_type': 'llama3', 'factor': 8,"
                                " 'low_freq_factor': 4, 'high_freq_factor': 4,"
                                " 'original_max_position_embeddings': 8192}}}");
    ck_close(au_num(j, "inv_freq", 0, -1, -1), 1.0, 0, 0);
    ck_close(au_num(j, "inv_freq", 63, -1, -1), 1.0 / pow(500000.0, 126.0 / 128.0) / 8.0, ABS, REL);
    ck_assert(au_warned(j, "high_freq_factor"));
    json_decref(j);
}
END_TEST

START_TEST(test_glm_partial_default)
{
    /* ml-explore/mlx-lm#1698: GlmConfig, Glm4Config and Glm4MoeConfig set partial_rotary_factor
     * 0.5 when the file omits it (`kwargs.setdefault("partial_rotary_factor", 0.5)`), so
     * THUDM/glm-4-9b-chat-hf (head_dim 128, no such key) rotates 64 dims: inv_freq has 32
     * entries, theta_1 = 10^4^(-2/64). */
    static const char *const TYPES[] = {"glm", "glm4", "glm4_moe"};
    for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++) {
        char body[256];
        snprintf(body, sizeof body,
                 "{'config': {'model_type': '%s', 'hidden_size': 4096,"
                 " 'num_attention_heads': 32, 'head_dim': 128, 'rope_theta': 10000}}",
                 TYPES[t]);
        json_t *j = au_ok(api_rope, body);
        ck_assert_msg(json_integer_value(res_get(j, "rotary_dim")) == 64, "%s: rotary_dim %lld",
                      TYPES[t], (long long)json_integer_value(res_get(j, "rotary_dim")));
        ck_assert_uint_eq(json_array_size(json_object_get(j, "inv_freq")), 32);
        ck_close(au_num(j, "inv_freq", 1, -1, -1), 1.0 / pow(10000.0, 2.0 / 64.0), ABS, REL);
        json_decref(j);
    }
}
END_TEST

START_TEST(test_qwen3_next_defaults)
{
    /* Qwen3NextConfig (configuration_qwen3_next.py): head_dim 256 and
     * kwargs.setdefault("partial_rotary_factor", 0.25), so a file without both rotates
     * int(256 x 0.25) = 64 dims (the rotary slice that vLLM-Kunlun#273 and maxtext#4616 / #4764
     * had to honour). Before: head_dim hidden_size / heads = 128, all rotating. */
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'qwen3_next', 'hidden_size': 2048,"
                                " 'num_attention_heads': 16, 'rope_theta': 10000000}}");
    ck_assert_int_eq(json_integer_value(res_get(j, "head_dim")), 256);
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 64);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), 1.0 / pow(10000000.0, 2.0 / 64.0), ABS, REL);
    json_decref(j);
}
END_TEST

#define OLMO3_YARN                                                                                 \
    "{'model_type': 'olmo3', 'hidden_size': 4096, 'num_attention_heads': 32,"                      \
    " 'num_hidden_layers': 8, 'max_position_embeddings': 65536, 'rope_theta': 500000,"             \
    " 'sliding_window': 4096, 'rope_scaling': {'rope_type': 'yarn', 'factor': 8.0,"                \
    " 'original_max_position_embeddings': 8192, 'attention_factor': 1.2079441541679836,"           \
    " 'beta_fast': 32, 'beta_slow': 1}}"

START_TEST(test_olmo3_scaling_caveat)
{
    /* OLMo 3: the references disagree. The transformers 5 releases whose modeling_olmo3.py
     * built one rotary embedding from the config's scaling handed it to every layer; transformers
     * 4.57, today's Olmo3Config (rope_scaling under full_attention only), the OLMo 3 paper and
     * vLLM's Olmo3 keep the sliding-window layers unscaled, which posenc answers
     * (test_olmo3_sliding_unscaled); transformers#45945 (to restore the split) was closed and
     * vllm-project/vllm#43419 (to follow those releases) is disputed. A warning names both, and
     * the full-attention kind is those releases' answer for every layer. Layer 0 is a sliding
     * one (Olmo3Config: every 4th layer full), layer 3 a full one. */
    json_t *j = au_ok(api_rope, "{'config': " OLMO3_YARN ", 'layer': 3}");
    ck_assert_str_eq(json_string_value(json_object_get(res_get(j, "scaling"), "type")), "yarn");
    ck_assert(au_warned(j, "transformers 5 releases"));
    json_decref(j);
    j = au_ok(api_rope, "{'config': " OLMO3_YARN ", 'layer_type': 'full_attention'}");
    ck_assert_str_eq(json_string_value(json_object_get(res_get(j, "scaling"), "type")), "yarn");
    json_decref(j);
    j = au_ok(api_rope, "{'config': " OLMO3_YARN ", 'layer': 0}");
    ck_assert(!json_is_object(res_get(j, "scaling")) ||
              strcmp(json_string_value(json_object_get(res_get(j, "scaling"), "type")), "yarn"));
    ck_assert(au_warned(j, "sliding"));
    json_decref(j);
    j = au_ok(api_model_method, OLMO3_YARN);
    ck_assert(au_warned(j, "sliding"));
    json_decref(j);
    /* no scaling: nothing to warn about */
    j = au_ok(api_rope,
              "{'config': {'model_type': 'olmo3', 'hidden_size': 4096,"
              " 'num_attention_heads': 32, 'num_hidden_layers': 8, 'rope_theta': 500000}}");
    ck_assert(!au_warned(j, "sliding"));
    json_decref(j);
}
END_TEST

START_TEST(test_olmo3_default_theta)
{
    /* Olmo3Config's default base is 500000 (configuration_olmo3.py: default_theta, set on both
     * rope_parameters entries when the file gives no rope_theta); before, a file without
     * rope_theta got RoPE's 10000. head_dim 2048 / 32 = 64: inv_freq[1] = 500000^(-2/64) =
     * 0.6635...; layer 3 is the full-attention one of four. */
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'olmo3', 'hidden_size': 2048,"
                                " 'num_attention_heads': 32, 'num_hidden_layers': 4}, 'layer': 3}");
    ck_close(au_num(j, "inv_freq", 1, -1, -1), pow(500000.0, -2.0 / 64.0), ABS, REL);
    const char *src = json_string_value(json_object_get(res_get(j, "sources"), "base"));
    ck_assert_msg(src != NULL && strstr(src, "Olmo3Config") != NULL, "sources.base: %s", src);
    json_decref(j);
}
END_TEST

START_TEST(test_mistral4_rope_parameters_max_position)
{
    /* Mistral4Config's default rope_parameters carry max_position_embeddings, which its
     * validation ignores (ignore_keys_at_rope_validation) and modeling_rope_utils never reads:
     * a file saved with it is answered (the key listed in resolved.ignored), not refused. */
    char *cfg = au_dq(MISTRAL4_TEXT);
    char *p = strstr(cfg, "\"partial_rotary_factor\"");
    ck_assert_ptr_nonnull(p);
    size_t n = strlen(cfg) + 128;
    char *body = malloc(n);
    ck_assert_ptr_nonnull(body);
    snprintf(body, n, "{\"config\": %.*s\"max_position_embeddings\": 1048576, %s}", (int)(p - cfg),
             cfg, p);
    int st = 0;
    char *text = au_send(api_rope, body, &st);
    ck_assert_msg(st == 200, "status %d: %s", st, text);
    json_t *j = au_parse(text);
    const json_t *ign = res_get(j, "ignored");
    ck_assert_ptr_nonnull(json_object_get(ign, "config.rope_parameters.max_position_embeddings"));
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 64);
    json_decref(j);
    free(text);
    /* and POST /model/method takes the same file */
    snprintf(body, n, "%.*s\"max_position_embeddings\": 1048576, %s", (int)(p - cfg), cfg, p);
    text = au_send(api_model_method, body, &st);
    ck_assert_msg(st == 200, "status %d: %s", st, text);
    free(text);
    free(body);
    free(cfg);
}
END_TEST

Suite *public_reports_suite(void)
{
    Suite *s = suite_create("public_reports");
    TCase *tc = tcase_create("reports");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_mistral4_rope);
    tcase_add_test(tc, test_mistral4_rotary_mismatch);
    tcase_add_test(tc, test_mistral4_method);
    tcase_add_test(tc, test_method_odd_rotary);
    tcase_add_test(tc, test_yarn_factor_kept);
    tcase_add_test(tc, test_yarn_attention_factor_given);
    tcase_add_test(tc, test_longrope_partial_lists);
    tcase_add_test(tc, test_neox_japanese_rotary_pct);
    tcase_add_test(tc, test_type_and_rope_type_disagree);
    tcase_add_test(tc, test_deepseek_v2_lite_mscale);
    tcase_add_test(tc, test_llama3_equal_band_factors);
    tcase_add_test(tc, test_glm_partial_default);
    tcase_add_test(tc, test_qwen3_next_defaults);
    tcase_add_test(tc, test_olmo3_scaling_caveat);
    tcase_add_test(tc, test_olmo3_default_theta);
    tcase_add_test(tc, test_mistral4_rope_parameters_max_position);
    suite_add_tcase(s, tc);
    return s;
}
