/*
 * tests/api/check_paste_break.c -- configs pasted as an ML engineer would (wrappers, v5
 * rope_parameters, the class defaults of the day's models) that answered 200 with a misleading
 * text: a warning cut short, a warning naming a key where the file does not have it, a warning
 * contradicting resolved.ignored. Each expectation says what the file holds and where.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* OLMo 3 with a flat yarn rope_scaling (olmo3_1_32b.json's, 4 layers): every 4th layer full */
#define OLMO3_YARN                                                                                 \
    "{'model_type': 'olmo3', 'hidden_size': 512, 'num_attention_heads': 4,"                        \
    " 'num_hidden_layers': 4, 'rope_theta': 500000, 'max_position_embeddings': 65536,"             \
    " 'rope_scaling': {'rope_type': 'yarn', 'factor': 8, 'original_max_position_embeddings': "     \
    "8192}}"

START_TEST(test_olmo3_warning_whole)
{
    /* The warning ends by telling how to get transformers 5's numbers (layer_type
     * "full_attention"); at 256 bytes a warning was cut after "vllm-project/vllm", dropping
     * that instruction. Both routes carry it. */
    json_t *j = au_ok(api_rope, "{'config': " OLMO3_YARN ", 'seq_len': 2}");
    ck_assert_msg(au_warned(j, "ask for layer_type \"full_attention\""), "warning cut short");
    json_decref(j);
    j = au_ok(api_model_method, OLMO3_YARN);
    ck_assert_msg(au_warned(j, "ask for layer_type \"full_attention\""), "warning cut short");
    json_decref(j);
}
END_TEST

START_TEST(test_wrapper_warning_path)
{
    /* A LLaVA wrapper: the text model's rope_scaling is at config.text_config.rope_scaling. The
     * warning about its beta_fast (a yarn field under a linear type) named
     * config.rope_scaling.beta_fast, a key the file does not have (resolved.ignored and POST
     * /model/method named the nested one). */
    static const char CFG[] =
        "{'model_type': 'llava', 'text_config': {'model_type': 'llama', 'hidden_size': 512,"
        " 'num_attention_heads': 4, 'num_hidden_layers': 2, 'max_position_embeddings': 4096,"
        " 'rope_scaling': {'rope_type': 'linear', 'factor': 2, 'beta_fast': 3}}}";
    char body[512];
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 2}", CFG);
    json_t *j = au_ok(api_rope, body);
    ck_assert_msg(au_warned(j, "config.text_config.rope_scaling.beta_fast is not used"),
                  "warning does not name the nested key");
    const char *w0 = json_string_value(json_array_get(json_object_get(j, "warnings"), 0));
    ck_assert_ptr_nonnull(w0);
    ck_assert_msg(strncmp(w0, "config.text_config.", 19) == 0, "%s", w0);
    json_decref(j);
    /* /model/method already named it so: not rebased twice */
    j = au_ok(api_model_method, CFG);
    ck_assert(au_warned(j, "config.text_config.rope_scaling.beta_fast is not used"));
    ck_assert(!au_warned(j, "text_config.text_config"));
    json_decref(j);
}
END_TEST

START_TEST(test_mistral4_param_max_position)
{
    /* Mistral4Config writes rope_parameters.max_position_embeddings; resolved.ignored says HF's
     * validation ignores it and no rope function reads it. A warning beside it said "is not
     * modelled by posenc and was ignored" (and, in a mistral3 wrapper, at config.rope_parameters:
     * the wrong place). One account, in resolved.ignored. */
    static const char M4[] =
        "{'model_type': 'mistral4', 'hidden_size': 4096, 'num_attention_heads': 32,"
        " 'num_hidden_layers': 2, 'head_dim': 128, 'qk_rope_head_dim': 64, 'qk_nope_head_dim': 64,"
        " 'max_position_embeddings': 1048576, 'rope_parameters': {'rope_type': 'yarn',"
        " 'rope_theta': 10000.0, 'factor': 128.0, 'original_max_position_embeddings': 8192,"
        " 'beta_fast': 32.0, 'beta_slow': 1.0, 'mscale': 1.0, 'mscale_all_dim': 1.0,"
        " 'llama_4_scaling_beta': 0.1, 'partial_rotary_factor': 0.5,"
        " 'max_position_embeddings': 1048576}}";
    char body[1024];
    static const char *const WRAP[][2] = {{"", ""},
                                          {"{'model_type': 'mistral3', 'text_config': ", "}"}};
    static const char *const KEY[] = {"config.rope_parameters.max_position_embeddings",
                                      "config.text_config.rope_parameters.max_position_embeddings"};
    for (int w = 0; w < 2; w++) {
        snprintf(body, sizeof body, "{'config': %s%s%s, 'seq_len': 2}", WRAP[w][0], M4, WRAP[w][1]);
        json_t *j = au_ok(api_rope, body);
        ck_assert_msg(!au_warned(j, "max_position_embeddings"), "warned (wrapper %d)", w);
        const json_t *ign = json_object_get(json_object_get(j, "resolved"), "ignored");
        ck_assert_msg(json_object_get(ign, KEY[w]) != NULL, "%s not in resolved.ignored", KEY[w]);
        json_decref(j);
    }
    /* qk_nope_head_dim + qk_rope_head_dim past int64: floor(whole x 0.5) is not the slice, a 422
     * at the factor (UBSan: rope_config.c's sum before the fix, make asan) */
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'mistral4', 'hidden_size': 64,"
                  " 'num_attention_heads': 4, 'qk_rope_head_dim': 64,"
                  " 'qk_nope_head_dim': 9223372036854775807, 'rope_parameters': {'rope_type':"
                  " 'default', 'rope_theta': 10000, 'partial_rotary_factor': 0.5}}, 'seq_len': 2}",
                  "/config/rope_parameters/partial_rotary_factor", NULL);
}
END_TEST

START_TEST(test_olmo3_per_type_default_layers)
{
    /* OLMo 3 in the v5 form: rope_parameters per layer type, no layer_types. Olmo3Config's
     * layer_types default is every 4th layer full, the others sliding, so layer 0 reads
     * rope_parameters.sliding_attention (rope_type default): inv_freq_31 = 500000^(-62/64),
     * attention factor 1. posenc took every layer for full_attention (the default pattern was
     * applied only to a flat scaling object): layer 0 got the YaRN numbers (attention factor
     * 0.1 ln 8 + 1 = 1.2079), a 200 with the wrong numbers. */
    static const char CFG[] =
        "{'model_type': 'olmo3', 'hidden_size': 512, 'num_attention_heads': 4,"
        " 'num_hidden_layers': 4, 'max_position_embeddings': 65536, 'rope_parameters':"
        " {'full_attention': {'rope_type': 'yarn', 'factor': 8,"
        " 'original_max_position_embeddings': 8192, 'rope_theta': 500000},"
        " 'sliding_attention': {'rope_type': 'default', 'rope_theta': 500000}}}";
    char body[1024];
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 1, 'layer': 0}", CFG);
    json_t *j = au_ok(api_rope, body);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    ck_close(au_num(j, "inv_freq", 63, -1, -1), pow(500000.0, -126.0 / 128.0), 0, 1e-15);
    json_decref(j);
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 1, 'layer': 3}", CFG);
    j = au_ok(api_rope, body);
    ck_close(au_number(json_object_get(j, "attention_factor")), 0.1 * log(8.0) + 1.0, 0, 1e-15);
    json_decref(j);
    j = au_ok(api_model_method, CFG);
    const json_t *layers = json_object_get(j, "layers");
    for (size_t l = 0; l < 4; l++)
        ck_assert_int_eq(json_integer_value(json_array_get(layers, l)), l == 3 ? 1 : 0);
    const json_t *k0 = json_array_get(json_object_get(j, "kinds"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(k0, "layer_type")), "sliding_attention");
    json_decref(j);
}
END_TEST

START_TEST(test_mistral4_class_rope_parameters)
{
    /* A mistral4 text config without rope_parameters (or with null): Mistral4Config.__post_init__
     * puts its own in place: yarn, rope_theta 10^4, factor 128, original 8192, beta 32 / 1,
     * mscale = mscale_all_dim = 1, llama_4_scaling_beta 0.1, partial_rotary_factor 64 / 128. So
     * d = 64: theta_31 = 10^4^(-62/64) / 128 (ramp 12..25, see test_mistral4_rope), softmax factor
     * (0.1 ln 128 + 1)^2, q x (1 + 0.1 ln 2) at position 9000; the file's top-level rope_theta is
     * not read (setdefault keeps the default's). posenc answered plain RoPE (theta_31 =
     * 10^6^(-62/64), factor 1, no query scale): a 200 with the wrong numbers. */
    static const char M4[] =
        "{'model_type': 'mistral4', 'hidden_size': 4096, 'num_attention_heads': 32,"
        " 'num_hidden_layers': 2, 'qk_rope_head_dim': 64, 'qk_nope_head_dim': 64,"
        " 'rope_theta': 1000000, 'max_position_embeddings': 1048576%s}";
    static const char *const EXTRA[] = {"", ", 'rope_parameters': null"};
    char cfg[512], body[1024];
    for (int w = 0; w < 4; w++) {
        snprintf(cfg, sizeof cfg, M4, EXTRA[w % 2]);
        if (w < 2)
            snprintf(body, sizeof body, "{'config': %s, 'positions': [0, 9000]}", cfg);
        else
            snprintf(body, sizeof body,
                     "{'config': {'model_type': 'mistral3', 'text_config': %s},"
                     " 'positions': [0, 9000]}",
                     cfg);
        json_t *j = au_ok(api_rope, body);
        ck_close(au_num(j, "inv_freq", 31, -1, -1), pow(10000.0, -62.0 / 64.0) / 128.0, 0, 1e-14);
        double g = 0.1 * log(128.0) + 1.0;
        ck_close(au_number(json_object_get(j, "softmax_scale_factor")), g * g, 0, 1e-15);
        const json_t *res = json_object_get(j, "resolved");
        const json_t *qs = json_object_get(res, "query_scale");
        ck_assert_ptr_nonnull(qs);
        ck_close(au_number(json_object_get(qs, "beta")), 0.1, 0, 0);
        const json_t *src = json_object_get(res, "sources");
        ck_assert_str_eq(json_string_value(json_object_get(src, "scaling")),
                         "default of Mistral4Config: rope_parameters");
        ck_assert_str_eq(json_string_value(json_object_get(src, "base")),
                         "default of Mistral4Config: rope_parameters.rope_theta");
        json_decref(j);
    }
}
END_TEST

START_TEST(test_mpt_without_alibi)
{
    /* transformers' MptModel (modeling_mpt.py) has only wte, no position table, and adds
     * build_mpt_alibi_tensor's bias in every forward: attn_config.alibi is never read, and
     * MptAttentionConfig's default is alibi false. POST /model/method described an MPT file
     * without alibi true as learned_absolute (the table MosaicML's remote code adds), numbers
     * transformers does not compute: now a 422 naming both, as alibi_bias_max other than 8 is. */
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'mpt', 'd_model': 768, 'n_heads': 12, 'n_layers': 2,"
                      " 'attn_config': {'alibi': false}}",
                      "/attn_config/alibi", "transformers' MptModel applies ALiBi");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'mpt', 'd_model': 768, 'n_heads': 12, 'n_layers': 2}",
                      "/model_type", "learned_pos_emb");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'mpt', 'd_model': 768, 'n_heads': 12, 'n_layers': 2,"
                      " 'attn_config': {}}",
                      "/attn_config", "POST /alibi");
    /* alibi true is answered as before: ALiBi in every layer */
    json_t *j = au_ok(api_model_method, "{'model_type': 'mpt', 'd_model': 768, 'n_heads': 12,"
                                        " 'n_layers': 2, 'attn_config': {'alibi': true}}");
    const json_t *k0 = json_array_get(json_object_get(j, "kinds"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(k0, "method")), "alibi");
    json_decref(j);
}
END_TEST

START_TEST(test_same_object_twice)
{
    /* A file carrying its scaling twice, as rope_scaling and as an identical rope_parameters
     * (a v4 file re-saved by a v5 tool). HF v5 reads rope_scaling, else rope_parameters
     * (convert_rope_params_to_dict), and they are equal: llama3 factor 8, base 500000, d = 128:
     * the lowest pair's wavelength 2 pi x 500000^(126/128) > L0 / low_freq_factor = 8192, so
     * inv_freq_63 = 500000^(-126/128) / 8. The answer was a 422 "concerns positions and posenc
     * does not read it: it could change the numbers" at /config/rope_parameters; now the numbers,
     * with rope_parameters in resolved.ignored. Unequal objects stay a 422. */
    static const char SC[] = "{'rope_type': 'llama3', 'factor': 8, 'low_freq_factor': 1,"
                             " 'high_freq_factor': 4, 'original_max_position_embeddings': 8192,"
                             " 'rope_theta': 500000}";
    char body[1024];
    snprintf(body, sizeof body,
             "{'config': {'model_type': 'llama', 'hidden_size': 512, 'num_attention_heads': 4,"
             " 'num_hidden_layers': 2, 'max_position_embeddings': 131072, 'rope_scaling': %s,"
             " 'rope_parameters': %s}, 'seq_len': 1}",
             SC, SC);
    json_t *j = au_ok(api_rope, body);
    ck_close(au_num(j, "inv_freq", 63, -1, -1), pow(500000.0, -126.0 / 128.0) / 8.0, 0, 1e-15);
    const json_t *ign = json_object_get(json_object_get(j, "resolved"), "ignored");
    ck_assert_ptr_nonnull(json_object_get(ign, "config.rope_parameters"));
    json_decref(j);
    char *p = strstr(body, "'factor': 8, 'low_freq_factor': 1, 'high_freq_factor': 4, "
                           "'original_max_position_embeddings': 8192, 'rope_theta': 500000}}");
    ck_assert_ptr_nonnull(p);
    memcpy(p, "'factor': 4", strlen("'factor': 4")); /* rope_parameters' factor now differs */
    au_expect_422(api_rope, body, "/config/rope_parameters", NULL);
}
END_TEST

START_TEST(test_mistral4_odd_rope_head)
{
    /* qk_rope_head_dim 31: Mistral4Config's default partial_rotary_factor 31 / 64 rotates
     * floor(64 x 31 / 64) = 31 dims, odd: both routes refuse it at the key that makes it.
     * POST /model/method named the pointer "" (the root) once the rotary dim came from the
     * class's rope_parameters, which the file does not hold. */
    static const char CFG[] = "{'model_type': 'mistral4', 'hidden_size': 720,"
                              " 'num_attention_heads': 8, 'num_hidden_layers': 2,"
                              " 'qk_rope_head_dim': 31, 'qk_nope_head_dim': 33}";
    au_expect_422_msg(api_model_method, CFG, "/qk_rope_head_dim", "even");
    char body[512];
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 1}", CFG);
    au_expect_422_msg(api_rope, body, "/config/qk_rope_head_dim", "even");
}
END_TEST

/* POST /model/method's kind sent through POST /rope as its ready `request` (seq_len 1) must give
 * the inv_freq of POST /rope with the file (cfg, single-quoted) and `layer`; returns the kind's
 * answer (the caller frees it). */
static json_t *kind_as_layer(const json_t *kind, const char *cfg, int layer)
{
    json_t *req = json_deep_copy(json_object_get(kind, "request"));
    json_object_set_new(req, "seq_len", json_integer(1));
    char *body = json_dumps(req, JSON_COMPACT);
    json_t *a = au_ok(api_rope, body);
    char fb[512];
    snprintf(fb, sizeof fb, "{'config': %s, 'seq_len': 1, 'layer': %d}", cfg, layer);
    json_t *b = au_ok(api_rope, fb);
    au_same(a, b, "inv_freq");
    json_decref(b);
    free(body);
    json_decref(req);
    return a;
}

START_TEST(test_wrapper_text_class_method)
{
    /* A Qwen3.5 wrapper whose text_config has no model_type: Qwen3_5Config builds
     * Qwen3_5TextConfig from it (head_dim 256, partial_rotary_factor 0.25: 64 rotated dims,
     * scale 256^-0.5 = 1/16), as POST /rope with a layer answers. POST /model/method's kind was
     * read from a copy of text_config without model_type: head_dim 512 / 4 = 128, all rotated,
     * scale 128^-0.5, and its ready request gave those numbers too. */
    static const char CFG[] =
        "{'model_type': 'qwen3_5', 'text_config': {'hidden_size': 512, 'num_attention_heads': 4,"
        " 'num_hidden_layers': 8, 'rope_parameters': {'rope_type': 'default'}}}";
    json_t *j = au_ok(api_model_method, CFG);
    json_int_t k3 = json_integer_value(json_array_get(json_object_get(j, "layers"), 3));
    const json_t *kind = json_array_get(json_object_get(j, "kinds"), (size_t)k3);
    const json_t *par = json_object_get(kind, "parameters");
    ck_assert_int_eq(json_integer_value(json_object_get(par, "head_dim")), 256);
    ck_assert_int_eq(json_integer_value(json_object_get(par, "rotary_dim")), 64);
    ck_close(au_number(json_object_get(par, "scale")), 1.0 / 16.0, 0, 0);
    /* the kind's request through POST /rope: the same numbers as the layer on the file */
    json_t *a = kind_as_layer(kind, CFG, 3);
    ck_assert_uint_eq(json_array_size(json_object_get(a, "inv_freq")), 32);
    json_decref(a);
    json_decref(j);
}
END_TEST

START_TEST(test_gemma3_flat_params_sliding_kind)
{
    /* Gemma 3 with its scaling in a flat v5 rope_parameters (llama3, factor 4): the sliding
     * layers use rope_local_base_freq (Gemma3TextConfig's 10000) without scaling, as POST /rope
     * with layer 0 answers. POST /model/method's sliding kind removed rope_scaling only: it kept
     * the llama3 rope_parameters (parameters.scaling.type llama3, and its request gave the full
     * layers' numbers). d = 32, base 10^4: with llama3 the lowest pair (wavelength 2 pi
     * 10^4^(30/32) = 3.6e4 > 8192) is divided by 4; unscaled it is 10^4^(-30/32). */
    static const char CFG[] =
        "{'model_type': 'gemma3_text', 'hidden_size': 256, 'num_attention_heads': 4,"
        " 'num_hidden_layers': 8, 'head_dim': 32, 'rope_parameters': {'rope_type': 'llama3',"
        " 'factor': 4.0, 'low_freq_factor': 1.0, 'high_freq_factor': 4.0,"
        " 'original_max_position_embeddings': 8192}}";
    json_t *j = au_ok(api_model_method, CFG);
    json_int_t k0 = json_integer_value(json_array_get(json_object_get(j, "layers"), 0));
    const json_t *kind = json_array_get(json_object_get(j, "kinds"), (size_t)k0);
    const json_t *par = json_object_get(kind, "parameters");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(par, "scaling"), "type")),
                     "default");
    json_t *a = kind_as_layer(kind, CFG, 0);
    ck_close(au_num(a, "inv_freq", 15, -1, -1), pow(10000.0, -30.0 / 32.0), 0, 1e-15);
    json_decref(a);
    json_decref(j);
}
END_TEST

START_TEST(test_per_type_missing_entry)
{
    /* Per-layer-type rope_parameters with only a full_attention entry (linear, factor 8). For a
     * sliding layer Gemma3TextConfig and Olmo3Config fill {"rope_type": "default"} with a
     * rope_theta of their own rule (convert_rope_params_to_dict); posenc read the full_attention
     * entry instead: a 200 with the scaled numbers (inv_freq_0 = 1/8) for layer 0. Now a 422 at
     * the object naming the missing entry, with or without a layer chosen. */
    static const char *const MT[] = {"gemma3_text", "olmo3"};
    char body[768];
    for (int i = 0; i < 2; i++) {
        for (int sel = 0; sel < 2; sel++) {
            snprintf(body, sizeof body,
                     "{'config': {'model_type': '%s', 'hidden_size': 256, 'num_attention_heads': 4,"
                     " 'head_dim': 64, 'num_hidden_layers': 6, 'rope_parameters': {"
                     "'full_attention': {'rope_type': 'linear', 'factor': 8, 'rope_theta': 1e6}}},"
                     " 'seq_len': 1%s}",
                     MT[i], sel ? ", 'layer': 0" : "");
            au_expect_422_msg(api_rope, body, "/config/rope_parameters", "sliding_attention");
        }
    }
}
END_TEST

Suite *paste_break_suite(void)
{
    Suite *s = suite_create("paste_break");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_olmo3_warning_whole);
    tcase_add_test(tc, test_wrapper_warning_path);
    tcase_add_test(tc, test_mistral4_param_max_position);
    tcase_add_test(tc, test_olmo3_per_type_default_layers);
    tcase_add_test(tc, test_mistral4_class_rope_parameters);
    tcase_add_test(tc, test_mpt_without_alibi);
    tcase_add_test(tc, test_same_object_twice);
    tcase_add_test(tc, test_mistral4_odd_rope_head);
    tcase_add_test(tc, test_wrapper_text_class_method);
    tcase_add_test(tc, test_gemma3_flat_params_sliding_kind);
    tcase_add_test(tc, test_per_type_missing_entry);
    suite_add_tcase(s, tc);
    return s;
}
