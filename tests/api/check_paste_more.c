/*
 * tests/api/check_paste_more.c -- pasted configs that HF computes and posenc refused or described
 * wrongly (issue 15, the remaining points): an odd head_dim whose rotated part is even (HF's
 * ordinary partial rotary), YaRN's beta_fast / beta_slow given as 0 (HF's `or` default) and
 * RecurrentGemma's recurrent blocks (no attention, so no position method).
 *
 * Expected numbers are derived by hand (derivations in the comments), not taken from core/.
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
#define ABS 1e-15

static const json_t *res_get(const json_t *j, const char *key)
{
    return json_object_get(json_object_get(j, "resolved"), key);
}

/* ---- odd head_dim, even rotated part ---------------------------------------------------------
 *
 * HF's partial rotary splits q into q[..., :rotary_dim] (rotated) and q[..., rotary_dim:] (passed
 * through) whatever the parity of head_dim (modeling_stablelm.py, modeling_phi.py,
 * modeling_gptj.py); only a head that rotates whole needs an even width (transformers#48101). */

START_TEST(test_odd_head_explicit_rotary)
{
    /*
     * head_dim 5, rotary_dim 4, base 10^4, half layout: inv_freq_j = 10^4^(-2j/4) = 1, 0.01.
     * Position 1, q = [1, 2, 3, 4, 5]: the half layout pairs (0, 2) and (1, 3):
     *   q0' = 1 cos 1 - 3 sin 1,        q2' = 3 cos 1 + 1 sin 1,
     *   q1' = 2 cos 0.01 - 4 sin 0.01,  q3' = 4 cos 0.01 + 2 sin 0.01,
     *   q4' = 5 (passes through, not scaled).
     */
    json_t *j = au_ok(api_rope, "{'head_dim': 5, 'rotary_dim': 4, 'positions': [1],"
                                " 'q': [1, 2, 3, 4, 5]}");
    ck_assert_int_eq(json_integer_value(res_get(j, "head_dim")), 5);
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 4);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "inv_freq")), 2);
    ck_close(au_num(j, "inv_freq", 0, -1, -1), 1.0, 0, 0);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), 0.01, ABS, REL);
    double c1 = cos(1.0), s1 = sin(1.0), c2 = cos(0.01), s2 = sin(0.01);
    double want[5] = {c1 - 3 * s1, 2 * c2 - 4 * s2, 3 * c1 + s1, 4 * c2 + 2 * s2, 5.0};
    for (int i = 0; i < 5; i++)
        ck_close(au_num(j, "q_rotated", 0, i, -1), want[i], ABS, REL);
    json_decref(j);

    /* adjacent pairs (GPT-J's rotate_every_two): (0, 1) and (2, 3), the fifth dim untouched */
    j = au_ok(api_rope, "{'head_dim': 5, 'rotary_dim': 4, 'layout': 'interleaved',"
                        " 'positions': [1], 'q': [1, 2, 3, 4, 5]}");
    double want_il[5] = {c1 - 2 * s1, 2 * c1 + s1, 3 * c2 - 4 * s2, 4 * c2 + 3 * s2, 5.0};
    for (int i = 0; i < 5; i++)
        ck_close(au_num(j, "q_rotated", 0, i, -1), want_il[i], ABS, REL);
    json_decref(j);
}
END_TEST

START_TEST(test_odd_head_from_config)
{
    /*
     * StableLM-style: hidden 99 / 3 heads = head_dim 33, partial_rotary_factor 0.25:
     * rotary_dim = int(33 x 0.25) = int(8.25) = 8 (StableLmAttention.rotary_ndims),
     * inv_freq_j = 10^4^(-2j/8) = 1, 0.1, 0.01, 0.001.
     */
    static const char CFG[] =
        "{'model_type': 'stablelm', 'hidden_size': 99, 'num_attention_heads': 3,"
        " 'partial_rotary_factor': 0.25, 'rope_theta': 10000, 'max_position_embeddings': 4096,"
        " 'num_hidden_layers': 2}";
    char body[512];
    snprintf(body, sizeof body, "{'config': %s}", CFG);
    json_t *j = au_ok(api_rope, body);
    ck_assert_int_eq(json_integer_value(res_get(j, "head_dim")), 33);
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 8);
    const double want[4] = {1.0, 0.1, 0.01, 0.001};
    for (int i = 0; i < 4; i++)
        ck_close(au_num(j, "inv_freq", i, -1, -1), want[i], ABS, REL);
    json_decref(j);

    /* POST /model/method's request for that kind is a 200 on POST /rope (it was a 422) */
    j = au_ok(api_model_method, CFG);
    const json_t *kind = json_array_get(json_object_get(j, "kinds"), 0);
    char *req = json_dumps(json_object_get(kind, "request"), JSON_COMPACT);
    int st = 0;
    char *text = au_send(api_rope, req, &st);
    ck_assert_msg(st == 200, "status %d: %s", st, text);
    free(text);
    free(req);
    json_decref(j);
}
END_TEST

START_TEST(test_odd_head_whole_refused)
{
    /* a head that rotates whole must be even: no partial factor, or rotary_dim = head_dim */
    au_expect_422_msg(api_rope, "{'head_dim': 5}", "/head_dim", "even");
    au_expect_422_msg(api_rope, "{'head_dim': 5, 'rotary_dim': 5}", "/head_dim", "even");
    au_expect_422_msg(api_rope, "{'head_dim': 5, 'rotary_dim': 3}", "/rotary_dim", "even");
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'llama', 'hidden_size': 99,"
                      " 'num_attention_heads': 3}}",
                      "/config/hidden_size", "even");
}
END_TEST

START_TEST(test_odd_head_multiaxis)
{
    /*
     * Multi-axis (axial, 2 axes): head_dim 5, rotary_dim 4 -> 2 pairs, one per axis, each with
     * frequency base^0 = 1 (each axis spans rotary_dim / 2 = 2 dims). Position (1, 2), q = [1, 2,
     * 3, 4, 5], half layout: pair (0, 2) turns by 1 (axis 0), pair (1, 3) by 2 (axis 1):
     *   q0' = cos 1 - 3 sin 1, q2' = 3 cos 1 + sin 1, q1' = 2 cos 2 - 4 sin 2,
     *   q3' = 4 cos 2 + 2 sin 2, q4' = 5 (passes through).
     */
    json_t *j = au_ok(api_rope, "{'head_dim': 5, 'rotary_dim': 4, 'axes': {'type': 'axial'},"
                                " 'positions': [[1, 2]], 'q': [1, 2, 3, 4, 5]}");
    double c1 = cos(1.0), s1 = sin(1.0), c2 = cos(2.0), s2 = sin(2.0);
    double want[5] = {c1 - 3 * s1, 2 * c2 - 4 * s2, 3 * c1 + s1, 4 * c2 + 2 * s2, 5.0};
    for (int i = 0; i < 5; i++)
        ck_close(au_num(j, "q_rotated", 0, i, -1), want[i], ABS, REL);
    json_decref(j);
    au_expect_422_msg(api_rope, "{'head_dim': 5, 'axes': {'type': 'axial'}, 'positions': [[1, 2]]}",
                      "/head_dim", "even");
}
END_TEST

/* ---- YaRN beta_fast / beta_slow = 0 -----------------------------------------------------------
 *
 * HF's _compute_yarn_parameters (modeling_rope_utils.py, transformers 4.4x to today's v5) reads
 * `beta_fast or 32` and `beta_slow or 1`: a 0 is falsy and takes the default, so nothing divides
 * by it. posenc refused 0 with a 422 (issue 15's breaker thought HF divided by it); it now uses
 * the default and says so (resolved.sources, a warning). */

START_TEST(test_yarn_beta_fast_zero)
{
    /*
     * head_dim 16, base 10^4, factor 4, L0 1024, beta_fast 0 -> 32, beta_slow 1:
     * c(r) = 16 ln(1024 / (2 pi r)) / (2 ln 10^4);
     * c(32) = 16 ln 5.0930 / 18.4207 = 16 x 1.6279 / 18.4207 = 1.414 -> floor 1,
     * c(1) = 16 ln 162.97 / 18.4207 = 16 x 5.0936 / 18.4207 = 4.424 -> ceil 5.
     * ramp r_j = clamp((j - 1) / 4, 0, 1); inv_freq_j = theta_j (1 - r_j) + theta_j / 4 r_j with
     * theta_j = 10^4^(-2j/16) = 10^(-j/2): j = 1 -> 10^-0.5 (r = 0); j = 3 -> r = 1/2,
     * 10^-1.5 (1/2 + 1/8) = 0.625 x 10^-1.5; j = 6 -> r = 1, 10^-3 / 4.
     * A = 0.1 ln 4 + 1 (beta does not enter it).
     */
    json_t *j = au_ok(api_rope, "{'head_dim': 16, 'scaling': {'type': 'yarn', 'factor': 4,"
                                " 'original_max_position_embeddings': 1024, 'beta_fast': 0}}");
    const json_t *sc = res_get(j, "scaling");
    ck_close(au_number(json_object_get(sc, "beta_fast")), 32.0, 0, 0);
    ck_assert_int_eq((int)au_number(json_object_get(sc, "ramp_low")), 1);
    ck_assert_int_eq((int)au_number(json_object_get(sc, "ramp_high")), 5);
    ck_close(au_num(j, "inv_freq", 0, -1, -1), 1.0, 0, 0);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), pow(10.0, -0.5), ABS, REL);
    ck_close(au_num(j, "inv_freq", 3, -1, -1), 0.625 * pow(10.0, -1.5), ABS, REL);
    ck_close(au_num(j, "inv_freq", 6, -1, -1), 1e-3 / 4.0, ABS, REL);
    ck_close(au_number(json_object_get(j, "attention_factor")), 0.1 * log(4.0) + 1.0, ABS, REL);
    ck_assert(au_warned(j, "/scaling/beta_fast is 0"));
    ck_assert(au_warned(j, "beta_fast or 32"));
    json_decref(j);
}
END_TEST

START_TEST(test_yarn_beta_slow_zero_config)
{
    /* the same from a pasted config (beta_slow 0 -> 1): numbers as beta_slow 1, the source and
     * the warning name the file's key and HF's default */
    static const char CFG0[] =
        "{'config': {'model_type': 'llama', 'head_dim': 16, 'hidden_size': 64,"
        " 'num_attention_heads': 4, 'rope_scaling': {'rope_type': 'yarn', 'factor': 4,"
        " 'original_max_position_embeddings': 1024, 'beta_slow': %s}}}";
    char b0[512], b1[512];
    snprintf(b0, sizeof b0, CFG0, "0");
    snprintf(b1, sizeof b1, CFG0, "1");
    json_t *j0 = au_ok(api_rope, b0), *j1 = au_ok(api_rope, b1);
    au_same(j0, j1, "inv_freq");
    au_same(j0, j1, "attention_factor");
    const char *src =
        json_string_value(json_object_get(res_get(j0, "sources"), "scaling.beta_slow"));
    ck_assert_ptr_nonnull(src);
    ck_assert_msg(strstr(src, "config.rope_scaling.beta_slow = 0") && strstr(src, "default 1"),
                  "source: %s", src);
    ck_assert(au_warned(j0, "config.rope_scaling.beta_slow is 0"));
    ck_assert(!au_warned(j1, "is 0"));
    json_decref(j0);
    json_decref(j1);
    /* POST /model/method takes the file too (it was a 422 at /rope_scaling/beta_slow) */
    snprintf(b0, sizeof b0,
             "{'model_type': 'llama', 'head_dim': 16, 'hidden_size': 64,"
             " 'num_attention_heads': 4, 'num_hidden_layers': 1, 'rope_scaling': {'rope_type':"
             " 'yarn', 'factor': 4, 'original_max_position_embeddings': 1024, 'beta_slow': 0}}");
    json_decref(au_ok(api_model_method, b0));
    /* below 0 is still refused */
    au_expect_422(api_rope,
                  "{'head_dim': 16, 'scaling': {'type': 'yarn', 'factor': 4,"
                  " 'original_max_position_embeddings': 1024, 'beta_slow': -1}}",
                  "/scaling/beta_slow", NULL);
}
END_TEST

/* ---- RecurrentGemma -----------------------------------------------------------------------------
 *
 * RecurrentGemmaConfig.layers_block_type = (block_types * 100)[:num_hidden_layers], default
 * block_types (recurrent, recurrent, attention); RecurrentGemmaDecoderLayer builds a
 * RecurrentGemmaRecurrentBlock (RG-LRU and a conv1d: no attention, no position method) or a
 * RecurrentGemmaSdpaAttention (rotate_half RoPE on the first partial_rotary_factor = 0.5 of the
 * head, base rope_theta 10000; scale head_dim^-0.5). posenc described every layer as RoPE. */
static const char RGEMMA[] =
    "{'model_type': 'recurrent_gemma', 'hidden_size': 2560, 'num_attention_heads': 10,"
    " 'num_hidden_layers': 26, 'attention_window_size': 2048, 'num_key_value_heads': 1,"
    " 'lru_width': 2560, 'conv1d_width': 4, 'vocab_size': 256000}";

START_TEST(test_recurrent_gemma_method)
{
    json_t *j = au_ok(api_model_method, RGEMMA);
    const json_t *layers = json_object_get(j, "layers"), *kinds = json_object_get(j, "kinds");
    ck_assert_uint_eq(json_array_size(layers), 26);
    ck_assert_uint_eq(json_array_size(kinds), 2);
    /* layer l is an attention block when l % 3 == 2: 2, 5, ..., 23 (8 layers); 18 recurrent */
    for (int l = 0; l < 26; l++) {
        const char *m = au_str(au_layer_kind(j, (size_t)l), "method");
        ck_assert_msg(strcmp(m, l % 3 == 2 ? "rope" : "none") == 0, "layer %d: %s", l, m);
    }
    const json_t *none = json_array_get(kinds, 0), *rope = json_array_get(kinds, 1);
    ck_assert_str_eq(json_string_value(json_object_get(none, "method")), "none");
    ck_assert_uint_eq(json_array_size(json_object_get(none, "layers")), 18);
    const char *rule = json_string_value(json_object_get(none, "rule"));
    ck_assert_ptr_nonnull(rule);
    ck_assert_msg(strstr(rule, "RecurrentGemmaRecurrentBlock") && strstr(rule, "no attention"),
                  "rule: %s", rule);
    /* the mixer is the RG-LRU recurrent block, not attention without positions */
    ck_assert_str_eq(json_string_value(json_object_get(none, "mixer")), "recurrent");
    /* the attention blocks: head_dim 2560 / 10 = 256, rotary 0.5 x 256 = 128 (class default),
     * base 10000 (class default), half layout, scale 256^-0.5 = 1/16 */
    const json_t *par = json_object_get(rope, "parameters");
    ck_assert_uint_eq(json_array_size(json_object_get(rope, "layers")), 8);
    ck_assert_int_eq(json_integer_value(json_object_get(par, "head_dim")), 256);
    ck_assert_int_eq(json_integer_value(json_object_get(par, "rotary_dim")), 128);
    ck_close(au_number(json_object_get(par, "base")), 10000.0, 0, 0);
    ck_assert_str_eq(json_string_value(json_object_get(par, "layout")), "half");
    ck_close(au_number(json_object_get(par, "scale")), 1.0 / 16.0, 0, 0);
    const char *ss = json_string_value(json_object_get(json_object_get(rope, "sources"), "scale"));
    ck_assert_msg(ss && strstr(ss, "modeling_recurrent_gemma.py"), "scale source: %s", ss);
    json_decref(j);
}
END_TEST

START_TEST(test_recurrent_gemma_rope)
{
    char body[1024];
    /* an attention block: inv_freq_j = 10^4^(-2j/128) = 10^(-j/16): 1, ..., 0.1 (j = 16), ...
     * 10^(-63/16) (j = 63); the block_types / window keys listed as not changing the numbers */
    snprintf(body, sizeof body, "{'config': %s, 'layer': 5}", RGEMMA);
    json_t *j = au_ok(api_rope, body);
    ck_assert_int_eq(json_integer_value(res_get(j, "rotary_dim")), 128);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "inv_freq")), 64);
    ck_close(au_num(j, "inv_freq", 16, -1, -1), 0.1, ABS, REL);
    ck_close(au_num(j, "inv_freq", 63, -1, -1), pow(10.0, -63.0 / 16.0), ABS, REL);
    const json_t *ign = res_get(j, "ignored");
    ck_assert_ptr_nonnull(json_object_get(ign, "config.attention_window_size"));
    json_decref(j);
    /* a recurrent block has nothing to rotate */
    snprintf(body, sizeof body, "{'config': %s, 'layer': 0}", RGEMMA);
    au_expect_422_msg(api_rope, body, "/layer", "RecurrentGemmaRecurrentBlock");
    /* block_types from the file: attention, recurrent, attention for 3 layers */
    json_t *m = au_ok(api_model_method, "{'model_type': 'recurrent_gemma', 'hidden_size': 256,"
                                        " 'num_attention_heads': 2, 'num_hidden_layers': 3,"
                                        " 'block_types': ['attention', 'recurrent']}");
    const char *want[3] = {"rope", "none", "rope"};
    for (int l = 0; l < 3; l++)
        ck_assert_str_eq(au_str(au_layer_kind(m, (size_t)l), "method"), want[l]);
    json_decref(m);
    /* what HF cannot build: an unknown block, a factor other than 0.5 (torch.chunk into
     * int(1 / 0.25) = 4 pieces does not unpack into two) */
    au_expect_422(api_model_method,
                  "{'model_type': 'recurrent_gemma', 'hidden_size': 256,"
                  " 'num_attention_heads': 2, 'num_hidden_layers': 3, 'block_types': ['mlp']}",
                  "/block_types", NULL);
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'recurrent_gemma', 'hidden_size': 256,"
                      " 'num_attention_heads': 2, 'num_hidden_layers': 3,"
                      " 'partial_rotary_factor': 0.25}, 'layer': 2}",
                      "/config/partial_rotary_factor", "torch.chunk");
}
END_TEST

/* ---- Falcon with alibi: true ------------------------------------------------------------------
 *
 * FalconAttention (modeling_falcon.py), alibi branch: attention_logits = (q.k^T + alibi) x
 * inv_norm_factor with inv_norm_factor = 1/sqrt(head_dim): the bias is scaled with the scores.
 * BLOOM adds it unscaled (baddbmm(alibi, q, k^T, alpha = 1/sqrt(head_dim))), MPT too. The slopes
 * themselves are BLOOM's build_alibi_tensor: 2^(-8(i+1)/H) for H a power of two. */

START_TEST(test_falcon_alibi_bias_scale)
{
    /* falcon-rw-1b's shape: hidden 2048, 32 heads, 24 layers: head_dim 64, bias_scale 1/8 */
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'falcon', 'alibi': true, 'hidden_size': 2048,"
                      " 'num_attention_heads': 32, 'num_hidden_layers': 24, 'multi_query': false,"
                      " 'parallel_attn': false, 'new_decoder_architecture': false, 'bias': true}");
    const json_t *kinds = json_object_get(j, "kinds");
    ck_assert_uint_eq(json_array_size(kinds), 1);
    const json_t *k = json_array_get(kinds, 0);
    ck_assert_str_eq(json_string_value(json_object_get(k, "method")), "alibi");
    const json_t *par = json_object_get(k, "parameters");
    ck_close(au_number(json_object_get(par, "bias_scale")), 0.125, 0, 0);
    ck_close(au_number(json_object_get(par, "scale")), 0.125, 0, 0);
    const char *bs =
        json_string_value(json_object_get(json_object_get(k, "sources"), "bias_scale"));
    ck_assert_msg(bs && strstr(bs, "modeling_falcon.py"), "source: %s", bs);
    /* the kind's request (one position, as the corpus test sends it): the unscaled slopes
     * 2^(-(i+1)/4), i = 0 .. 31 */
    json_t *rq = json_deep_copy(json_object_get(k, "request"));
    json_object_set_new(rq, "seq_len", json_integer(1));
    char *req = json_dumps(rq, JSON_COMPACT);
    json_decref(rq);
    int st = 0;
    char *text = au_send(api_alibi, req, &st);
    ck_assert_msg(st == 200, "status %d: %s", st, text);
    json_t *a = au_parse(text);
    ck_close(au_num(a, "slopes", 0, -1, -1), pow(2.0, -0.25), 1e-16, 1e-15);
    ck_close(au_num(a, "slopes", 31, -1, -1), pow(2.0, -8.0), 1e-16, 1e-15);
    json_decref(a);
    free(text);
    free(req);
    json_decref(j);
    /* BLOOM adds its bias unscaled: no bias_scale */
    j = au_ok(api_model_method, "{'model_type': 'bloom', 'hidden_size': 2560, 'n_head': 32,"
                                " 'n_layer': 30}");
    par = json_object_get(json_array_get(json_object_get(j, "kinds"), 0), "parameters");
    ck_assert_ptr_null(json_object_get(par, "bias_scale"));
    json_decref(j);
}
END_TEST

Suite *paste_more_suite(void)
{
    Suite *s = suite_create("paste_more");
    TCase *tc = tcase_create("paste_more");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_odd_head_explicit_rotary);
    tcase_add_test(tc, test_odd_head_from_config);
    tcase_add_test(tc, test_odd_head_whole_refused);
    tcase_add_test(tc, test_odd_head_multiaxis);
    tcase_add_test(tc, test_yarn_beta_fast_zero);
    tcase_add_test(tc, test_yarn_beta_slow_zero_config);
    tcase_add_test(tc, test_recurrent_gemma_method);
    tcase_add_test(tc, test_recurrent_gemma_rope);
    tcase_add_test(tc, test_falcon_alibi_bias_scale);
    suite_add_tcase(s, tc);
    return s;
}
