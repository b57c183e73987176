/*
 * tests/api/check_rope_layers.c -- /rope and /attention per layer of a pasted config
 * (api/rope_layers.c, api/model_layers.c): `layer` / `layer_type`, `layer_kind`, `layer_kinds`,
 * and the 422 that lists the kinds when a rotation needs one.
 *
 * The config is v5's per-layer-type rope_parameters (the shape of Gemma 3 / OLMo 3 under
 * transformers v5), head_dim 4, layers sliding, full, sliding, full:
 *   sliding_attention: default, rope_theta 10000 -> inv_freq = 10000^(-2j/4) = [1, 0.01];
 *   full_attention:    linear factor 8, rope_theta 1e6 -> [1, 1e6^(-1/2)] / 8 = [0.125, 0.000125].
 * Tolerance: relative 1e-15 (one rounding of pow and one division).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

#define CFG                                                                                        \
    "'config': {'model_type': 'gemma3_text', 'num_hidden_layers': 4, 'head_dim': 4,"               \
    " 'layer_types': ['sliding_attention', 'full_attention', 'sliding_attention',"                 \
    " 'full_attention'], 'rope_parameters': {"                                                     \
    "'sliding_attention': {'rope_type': 'default', 'rope_theta': 10000},"                          \
    " 'full_attention': {'rope_type': 'linear', 'factor': 8, 'rope_theta': 1000000}}}"

static double inv(const json_t *j, size_t i)
{
    return au_number(json_array_get(json_object_get(j, "inv_freq"), i));
}

static const char *src(const json_t *j, const char *key)
{
    const json_t *s = json_object_get(json_object_get(j, "resolved"), "sources");
    return json_string_value(json_object_get(s, key));
}

START_TEST(test_choose_layer)
{
    json_t *j = au_ok(api_rope, "{" CFG ", 'layer': 2}");
    ck_close(inv(j, 0), 1.0, 0, 1e-15);
    ck_close(inv(j, 1), 0.01, 0, 1e-15);
    ck_assert_str_eq(src(j, "base"), "config.rope_parameters.sliding_attention.rope_theta");
    const json_t *lk = json_object_get(j, "layer_kind");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(lk, "layers"), 1)), 2);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(lk, "layer_types"), 0)),
                     "sliding_attention");
    ck_assert_ptr_null(json_object_get(j, "layer_kinds"));
    json_decref(j);

    j = au_ok(api_rope, "{" CFG ", 'layer_type': 'full_attention'}");
    ck_close(inv(j, 0), 0.125, 0, 1e-15);
    ck_close(inv(j, 1), 0.000125, 0, 1e-15);
    ck_assert_str_eq(src(j, "scaling.factor"), "config.rope_parameters.full_attention.factor");
    json_decref(j);
}
END_TEST

/* No choice: the full-attention kind at the top (per-layer-type parameters have no answer as a
 * whole), every kind with its layers and result in layer_kinds. */
START_TEST(test_list_kinds)
{
    json_t *j = au_ok(api_rope, "{" CFG "}");
    ck_close(inv(j, 0), 0.125, 0, 1e-15);
    const json_t *ks = json_object_get(j, "layer_kinds");
    ck_assert_uint_eq(json_array_size(ks), 2);
    const json_t *k0 = json_array_get(ks, 0), *k1 = json_array_get(ks, 1);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(k0, "layers"), 1)), 2);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(k1, "layers"), 1)), 3);
    ck_close(inv(json_object_get(k0, "result"), 1), 0.01, 0, 1e-15);
    ck_close(inv(json_object_get(k1, "result"), 1), 0.000125, 0, 1e-15);
    json_decref(j);
}
END_TEST

/* Entries equal as JSON are one kind (layers that differ only in attention window): no list. */
START_TEST(test_equal_entries_one_kind)
{
    json_t *j = au_ok(api_rope, "{'config': {'num_hidden_layers': 2, 'head_dim': 4,"
                                " 'layer_types': ['sliding_attention', 'full_attention'],"
                                " 'rope_parameters': {'sliding_attention': {'rope_type': 'default',"
                                " 'rope_theta': 10000}, 'full_attention': {'rope_type': 'default',"
                                " 'rope_theta': 10000}}}, 'q': [1, 0, 0, 0], 'positions': [1]}");
    ck_assert_ptr_null(json_object_get(j, "layer_kinds"));
    ck_close(inv(j, 1), 0.01, 0, 1e-15);
    json_decref(j);
}
END_TEST

START_TEST(test_errors)
{
    au_expect_422_msg(api_rope, "{" CFG ", 'q': [1, 0, 0, 0]}", "/layer", "kind 1");
    au_expect_422_msg(api_rope, "{" CFG ", 'include': ['cos_sin'], 'seq_len': 2}", "/layer",
                      "layer_type");
    au_expect_422_msg(api_rope, "{" CFG ", 'layer': 4}", "/layer", "(4)");
    au_expect_422_msg(api_rope, "{" CFG ", 'layer_type': 'chunked_attention'}", "/layer_type",
                      "kind 0");
    au_expect_422_msg(api_rope, "{" CFG ", 'layer': 0, 'layer_type': 'full_attention'}",
                      "/layer_type", "layer 0");
    au_expect_422_msg(api_rope, "{'head_dim': 4, 'layer': 0}", "/layer", "config");
    au_expect_422(api_rope, "{" CFG ", 'layer': -1}", "/layer", NULL);
    /* SmolLM3's default: every 4th layer has no RoPE */
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'smollm3', 'num_hidden_layers': 8,"
                      " 'head_dim': 4}, 'layer': 3}",
                      "/layer", "no RoPE");
}
END_TEST

/*
 * /attention's rope method acts for the layer it is given: q = k = e0 at positions 0, 1 (half
 * layout: pair 0 is (x0, x2)); k at position 1 is (cos t, 0, sin t, 0) with t = inv_freq[0], so
 * scores[0][1] = cos t: cos 1 for layer 0 (sliding), cos 0.125 for layer 1 (full). Without a
 * layer, a 422 at its pointer.
 */
START_TEST(test_attention_layer)
{
    static const char *const BODY = "{'q': [[1, 0, 0, 0], [1, 0, 0, 0]], 'k': [[1, 0, 0, 0],"
                                    " [1, 0, 0, 0]], 'v': [[1], [2]], 'scale': 1, 'causal': false,"
                                    " 'method': 'rope', 'rope': {" CFG "%s}}";
    char body[1024];
    const char *layers[] = {", 'layer': 0", ", 'layer': 1"};
    const double want[] = {cos(1.0), cos(0.125)};
    for (size_t i = 0; i < 2; i++) {
        snprintf(body, sizeof body, BODY, layers[i]);
        json_t *j = au_ok(api_attention, body);
        const json_t *s = json_object_get(j, "scores");
        ck_close(au_number(json_array_get(json_array_get(s, 0), 1)), want[i], 1e-15, 0);
        json_decref(j);
    }
    snprintf(body, sizeof body, BODY, "");
    au_expect_422_msg(api_attention, body, "/rope/layer", "kind");
}
END_TEST

static const char *ignored(const json_t *j, const char *path)
{
    const json_t *ig = json_object_get(json_object_get(j, "resolved"), "ignored");
    return json_string_value(json_object_get(ig, path));
}

/*
 * No silent drops (api/rope_keys.c): a position key that cannot change the answer is listed in
 * resolved.ignored with its reason; one that could, and that posenc does not read, is a 422 at
 * its pointer.
 */
START_TEST(test_no_silent_drops)
{
    json_t *j = au_ok(api_rope, "{'config': {'head_dim': 4, 'rope_theta': 500000,"
                                " 'sliding_window': 4096, 'max_position_embeddings': 8192},"
                                " 'base': 10000}");
    ck_assert_ptr_nonnull(strstr(ignored(j, "config.sliding_window"), "attention window"));
    ck_assert_ptr_nonnull(strstr(ignored(j, "config.rope_theta"), "request's base"));
    ck_assert_ptr_nonnull(strstr(ignored(j, "config.max_position_embeddings"), "context length"));
    ck_close(inv(j, 1), 0.01, 0, 1e-15); /* the request's base 10000: 10000^(-1/2) */
    json_decref(j);
    /* a wrapper's own position keys do not reach the text model (a type posenc does not know
     * needs a rotary key of its own: rope_theta) */
    j = au_ok(api_rope, "{'config': {'model_type': 'x', 'max_position_embeddings': 2,"
                        " 'text_config': {'head_dim': 4, 'rope_theta': 10000}}}");
    ck_assert_ptr_nonnull(strstr(ignored(j, "config.max_position_embeddings"), "wrapper"));
    json_decref(j);
    /* llama_4_scaling_beta under a model type whose attention does not read it: listed */
    j = au_ok(api_rope, "{'config': {'model_type': 'llama', 'head_dim': 4, 'rope_parameters':"
                        " {'rope_type': 'default', 'rope_theta': 10000,"
                        " 'llama_4_scaling_beta': 0.1}}, 'q': [1, 0, 0, 0], 'positions': [5]}");
    ck_assert_ptr_nonnull(
        strstr(ignored(j, "config.rope_parameters.llama_4_scaling_beta"), "only Ministral 3"));
    ck_assert_ptr_null(json_object_get(j, "q_scale"));
    json_decref(j);
    au_expect_422(api_rope, "{'config': {'head_dim': 4, 'rope_foo': 2}}", "/config/rope_foo", NULL);
    au_expect_422(api_rope, "{'config': {'head_dim': 4, 'alibi': true}}", "/config/alibi", NULL);
    au_expect_422(api_rope, "{'config': {'head_dim': 4, 'position_embedding_type': 'absolute'}}",
                  "/config/position_embedding_type", NULL);
    /* model types whose HF code never rotates (POST /model/method: learned_absolute, alibi,
     * t5_relative), without a key that says so: BLOOM (ALiBi), GPT-2 and OPT (learned tables),
     * T5 (buckets); a wrapped one is named at its text config. Before: a 200 with RoPE numbers
     * (base 10000 over n_embd / n_head), and /attention's rope method scored with them. */
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'bloom', 'hidden_size': 64, 'n_head': 2},"
                  " 'positions': [0]}",
                  "/config/model_type", NULL);
    au_expect_422(api_rope, "{'config': {'model_type': 'gpt2', 'n_embd': 64, 'n_head': 2}}",
                  "/config/model_type", NULL);
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'opt', 'hidden_size': 64,"
                  " 'num_attention_heads': 2, 'num_hidden_layers': 2}, 'layer': 0}",
                  "/config/model_type", NULL);
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'x', 'text_config': {'model_type': 't5',"
                  " 'd_model': 64, 'num_heads': 2, 'd_kv': 32}}}",
                  "/config/text_config/model_type", NULL);
    au_expect_422(api_attention,
                  "{'method': 'rope', 'rope': {'config': {'model_type': 'bloom',"
                  " 'hidden_size': 8, 'n_head': 2}}, 'q': [[1, 0, 0, 0]],"
                  " 'k': [[1, 0, 0, 0]]}",
                  "/rope/config/model_type", NULL);
    au_expect_422(api_rope,
                  "{'config': {'head_dim': 4, 'rope_scaling': {'type': 'linear', 'factor': 2,"
                  " 'short_mscale': 1.1}}}",
                  "/config/rope_scaling/short_mscale", NULL);
}
END_TEST

/*
 * Ministral 3's query scale (modeling_ministral3.py): q_rotated x s(p), s(p) = 1 + beta ln(1 +
 * floor(p / L0)), beta 0.1, L0 = rope_parameters.original_max_position_embeddings = 4. Positions
 * 0, 3, 4, 9: floor(p / 4) = 0, 0, 1, 2 -> s = 1, 1, 1 + 0.1 ln 2, 1 + 0.1 ln 3. q = e0, head_dim
 * 4, half layout, theta 10000: pair 0 = (x0, x2) turns by p rad (inv_freq[0] = 1), so
 * q_rotated[i] = s(p_i) (cos p_i, 0, sin p_i, 0). k is not scaled: scores = q_rotated . k_rot.
 * The scales at the cos/sin positions come as query_scale.
 */
START_TEST(test_ministral3_query_scale)
{
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'ministral3', 'head_dim': 4,"
                                " 'rope_parameters': {'rope_type': 'default', 'rope_theta': 10000,"
                                " 'llama_4_scaling_beta': 0.1, 'original_max_position_embeddings':"
                                " 4}}, 'q': [1, 0, 0, 0], 'k': [1, 0, 0, 0],"
                                " 'positions': [0, 3, 4, 9], 'include': ['cos_sin']}");
    const double p[] = {0, 3, 4, 9};
    const double s[] = {1.0, 1.0, 1.0 + 0.1 * log(2.0), 1.0 + 0.1 * log(3.0)};
    const json_t *qs = json_object_get(j, "q_scale"), *ts = json_object_get(j, "query_scale");
    const json_t *qr = json_object_get(j, "q_rotated"), *kr = json_object_get(j, "k_rotated");
    const json_t *sc = json_object_get(j, "scores");
    for (size_t i = 0; i < 4; i++) {
        ck_close(au_number(json_array_get(qs, i)), s[i], 0, 1e-15);
        ck_close(au_number(json_array_get(ts, i)), s[i], 0, 1e-15);
        ck_close(au_number(json_array_get(json_array_get(qr, i), 0)), s[i] * cos(p[i]), 1e-15, 0);
        ck_close(au_number(json_array_get(json_array_get(qr, i), 2)), s[i] * sin(p[i]), 1e-15, 0);
        ck_close(au_number(json_array_get(json_array_get(kr, i), 0)), cos(p[i]), 1e-15, 0);
        /* scores[i][i] = s(p_i) (cos^2 + sin^2) = s(p_i) */
        ck_close(au_number(json_array_get(json_array_get(sc, i), i)), s[i], 1e-15, 0);
    }
    const json_t *src = json_object_get(json_object_get(j, "resolved"), "sources");
    ck_assert_str_eq(json_string_value(json_object_get(src, "query_scale.beta")),
                     "config.rope_parameters.llama_4_scaling_beta");
    json_decref(j);
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'ministral3', 'head_dim': 4, 'rope_parameters':"
                  " {'rope_type': 'default', 'llama_4_scaling_beta': 0.1}}}",
                  "/config/rope_parameters/llama_4_scaling_beta", NULL);
}
END_TEST

/*
 * /rope without `layer` refuses a layer_types that HF's layer_type_validation refuses
 * (configuration_utils.py: one known type per layer), as /rope with `layer` and POST
 * /model/method do: a 422 at the key (wrong length) or at the entry (unknown type). Before
 * issue 15's fix both answered 200 with a warning.
 */
START_TEST(test_layer_types_checked_without_layer)
{
    au_expect_422_msg(api_rope,
                      "{'config': {'num_hidden_layers': 3, 'head_dim': 4,"
                      " 'layer_types': ['full_attention', 'sliding_attention']}}",
                      "/config/layer_types", "num_hidden_layers");
    au_expect_422_msg(api_rope,
                      "{'config': {'num_hidden_layers': 2, 'head_dim': 4,"
                      " 'layer_types': ['full_attention', 'global_attention']}}",
                      "/config/layer_types/1", "global_attention");
    au_expect_422(api_rope,
                  "{'config': {'num_hidden_layers': 2, 'head_dim': 4,"
                  " 'layer_types': ['full_attention', 7]}}",
                  "/config/layer_types/1", NULL);
    /* a wrapper: the pointer names the text config's key */
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'x', 'text_config': {'num_hidden_layers': 3,"
                      " 'head_dim': 4, 'layer_types': ['full_attention']}}}",
                      "/config/text_config/layer_types", "num_hidden_layers");
    /* the right length with known types still answers */
    json_t *j = au_ok(api_rope, "{'config': {'num_hidden_layers': 2, 'head_dim': 4,"
                                " 'layer_types': ['full_attention', 'full_attention']}}");
    ck_close(inv(j, 1), 0.01, 0, 1e-15);
    json_decref(j);
}
END_TEST

/*
 * OLMo 3 with one flat rope_scaling: only its full-attention layers are scaled; the sliding ones
 * use the same base with rope_type default (transformers 4.57.1 modeling_olmo3.py rotary_embs;
 * vLLM olmo2.py). Layer types from Olmo3Config's default: every 4th layer full. head_dim 8 / 2 =
 * 4, base 10000:
 *   sliding (layer 0): inv_freq = [1, 10000^(-1/2)] = [1, 0.01], attention_factor 1;
 *   full (layer 3): YaRN, factor 8, L0 64: corr(r) = 4 ln(64 / (2 pi r)) / (2 ln 10000) gives
 *   low = max(floor(corr(32) = -0.249), 0) = 0, high = ceil(corr(1) = 0.504) = 1, so pair 0
 *   keeps 1 and pair 1 is 0.01 / 8 = 0.00125; attention_factor as given, 1.5.
 * Before the fix every layer had the YaRN numbers (one kind).
 */
#define OLMO3                                                                                      \
    "'config': {'model_type': 'olmo3', 'num_hidden_layers': 4, 'hidden_size': 8,"                  \
    " 'num_attention_heads': 2, 'rope_theta': 10000, 'max_position_embeddings': 512,"              \
    " 'sliding_window': 16, 'rope_scaling': {'rope_type': 'yarn', 'factor': 8,"                    \
    " 'original_max_position_embeddings': 64, 'attention_factor': 1.5}}"

START_TEST(test_olmo3_sliding_unscaled)
{
    json_t *j = au_ok(api_rope, "{" OLMO3 ", 'layer': 0}");
    ck_close(inv(j, 0), 1.0, 0, 0);
    ck_close(inv(j, 1), 0.01, 0, 1e-15);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "layer_kind"), "method")),
                     "rope");
    json_decref(j);
    j = au_ok(api_rope, "{" OLMO3 ", 'layer': 3}");
    ck_close(inv(j, 0), 1.0, 0, 0);
    ck_close(inv(j, 1), 0.00125, 0, 1e-15);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.5, 0, 0);
    json_decref(j);
    j = au_ok(api_model_method, "{" OLMO3 "}");
    const json_t *layers = json_object_get(j, "layers");
    static const int WANT[4] = {0, 0, 0, 1};
    for (size_t l = 0; l < 4; l++)
        ck_assert_int_eq(json_integer_value(json_array_get(layers, l)), WANT[l]);
    json_decref(j);
}
END_TEST

/*
 * /rope without `layer` refuses a malformed no_rope_layers (Llama 4, SmolLM3: an array of 0 / 1
 * indexed by layer) or MiniMax's attn_type_list (0 / 1 per layer), as /rope with `layer` and
 * POST /model/method do: a 422 naming the key (not an array, wrong length) or the entry by JSON
 * pointer. Before: 200 with the numbers of a config whose layer structure HF would not read.
 */
START_TEST(test_layer_lists_checked_without_layer)
{
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'smollm3', 'num_hidden_layers': 3, 'head_dim': 4,"
                      " 'no_rope_layers': [1, 0]}}",
                      "/config/no_rope_layers", "num_hidden_layers");
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'smollm3', 'num_hidden_layers': 2, 'head_dim': 4,"
                  " 'no_rope_layers': [1, 2]}}",
                  "/config/no_rope_layers/1", NULL);
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'smollm3', 'num_hidden_layers': 2, 'head_dim': 4,"
                  " 'no_rope_layers': 'all'}}",
                  "/config/no_rope_layers", NULL);
    /* nested: the pointer names the text config's key */
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'llama4', 'text_config': {'model_type': "
                  "'llama4_text', 'num_hidden_layers': 2, 'head_dim': 4, 'no_rope_layers': [1]}}}",
                  "/config/text_config/no_rope_layers", NULL);
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'minimax', 'num_hidden_layers': 3, 'head_dim': 4,"
                  " 'attn_type_list': [0, 1]}}",
                  "/config/attn_type_list", NULL);
    au_expect_422(api_rope,
                  "{'config': {'model_type': 'minimax', 'num_hidden_layers': 2, 'head_dim': 4,"
                  " 'attn_type_list': [0, 'softmax']}}",
                  "/config/attn_type_list", NULL);
    /* well-formed lists still answer: [] is Llama 4 / SmolLM3's default pattern */
    const char *const OK[] = {
        "{'config': {'model_type': 'smollm3', 'num_hidden_layers': 2, 'head_dim': 4,"
        " 'no_rope_layers': [1, 0]}}",
        "{'config': {'model_type': 'smollm3', 'num_hidden_layers': 2, 'head_dim': 4,"
        " 'no_rope_layers': []}}",
        "{'config': {'model_type': 'minimax', 'num_hidden_layers': 2, 'head_dim': 4,"
        " 'attn_type_list': [0, 1]}}",
    };
    /* inv_freq[1] = base^(-2/4): SmolLM3Config's default_theta 2e6 (2e6^-0.5 =
     * 7.0710678118654752e-4; 10000 before issue 15's sweep), MiniMaxConfig's default_theta 1e6 */
    static const double INV1[] = {7.0710678118654752e-4, 7.0710678118654752e-4, 0.001};
    for (size_t i = 0; i < sizeof OK / sizeof OK[0]; i++) {
        json_t *j = au_ok(api_rope, OK[i]);
        ck_close(inv(j, 1), INV1[i], 0, 1e-15);
        json_decref(j);
    }
}
END_TEST

/*
 * rope_scaling.rope_theta next to a top-level rope_theta: HF v5's
 * RotaryEmbeddingConfigMixin.convert_rope_params_to_dict makes rope_scaling the rope_parameters
 * and only then does rope_parameters.setdefault("rope_theta", <top-level>), so the inner value
 * wins, as rope_parameters.rope_theta does. head_dim 4, linear factor 2, theta 1e6:
 * inv_freq = [1, 1e6^(-1/2)] / 2 = [0.5, 0.0005] (the top-level 10000 would give 0.005).
 * Before the fix: base 10000 from config.rope_theta, the inner key "ignored" because "a request
 * field wins over it".
 */
START_TEST(test_rope_scaling_theta_wins)
{
    json_t *j = au_ok(api_rope, "{'config': {'head_dim': 4, 'rope_theta': 10000,"
                                " 'rope_scaling': {'type': 'linear', 'factor': 2,"
                                " 'rope_theta': 1000000}}}");
    ck_close(inv(j, 0), 0.5, 0, 1e-15);
    ck_close(inv(j, 1), 0.0005, 0, 1e-15);
    ck_assert_str_eq(src(j, "base"), "config.rope_scaling.rope_theta");
    ck_assert_ptr_null(ignored(j, "config.rope_scaling.rope_theta"));
    ck_assert_ptr_nonnull(strstr(ignored(j, "config.rope_theta"), "rope_scaling.rope_theta"));
    json_decref(j);
    /* a request's base still wins over both */
    j = au_ok(api_rope, "{'config': {'head_dim': 4, 'rope_theta': 10000,"
                        " 'rope_scaling': {'type': 'linear', 'factor': 2,"
                        " 'rope_theta': 1000000}}, 'base': 100}");
    ck_close(inv(j, 1), 0.05, 0, 1e-15); /* 100^(-1/2) / 2 */
    ck_assert_ptr_nonnull(strstr(ignored(j, "config.rope_scaling.rope_theta"), "base"));
    json_decref(j);
    /* partial_rotary_factor the same way (setdefault): head_dim 8, the inner 0.5 -> rotary_dim 4 */
    j = au_ok(api_rope, "{'config': {'head_dim': 8, 'partial_rotary_factor': 1.0,"
                        " 'rope_scaling': {'type': 'linear', 'factor': 2,"
                        " 'partial_rotary_factor': 0.5}}}");
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(j, "resolved"), "rotary_dim")), 4);
    ck_assert_ptr_nonnull(strstr(src(j, "rotary_dim"), "rope_scaling.partial_rotary_factor"));
    json_decref(j);
}
END_TEST

Suite *rope_layers_suite(void)
{
    Suite *s = suite_create("rope_layers");
    TCase *tc = tcase_create("per_layer");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_choose_layer);
    tcase_add_test(tc, test_list_kinds);
    tcase_add_test(tc, test_equal_entries_one_kind);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_attention_layer);
    tcase_add_test(tc, test_no_silent_drops);
    tcase_add_test(tc, test_ministral3_query_scale);
    tcase_add_test(tc, test_layer_types_checked_without_layer);
    tcase_add_test(tc, test_layer_lists_checked_without_layer);
    tcase_add_test(tc, test_olmo3_sliding_unscaled);
    tcase_add_test(tc, test_rope_scaling_theta_wins);
    suite_add_tcase(s, tc);
    return s;
}
