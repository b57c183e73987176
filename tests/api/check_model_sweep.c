/*
 * tests/api/check_model_sweep.c -- issue 15's coverage sweep of Hugging Face transformers' model
 * types (docs/models.md, "Coverage of transformers model types"): the answers that were a 200
 * with numbers HF's code does not compute.
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
 * POST /rope with the config of a model that uses another position method answered 200 with
 * plain RoPE at base 10000 over hidden_size / heads, no warning: a BERT, a BLOOM or a T5 has no
 * RoPE at all. Now a 422 at /config/model_type naming the method (as POST /model/method
 * describes it). A model_type posenc does not know, without any rotary key, is a 422 too
 * (POST /model/method refused it already; Baichuan 2 13B, for one, uses ALiBi).
 */
static const struct {
    const char *config;
    const char *needle;
} OTHER[] = {
    {"{'model_type': 'bert', 'hidden_size': 768, 'num_attention_heads': 12}", "learned"},
    {"{'model_type': 'roberta', 'hidden_size': 768, 'num_attention_heads': 12}", "learned"},
    {"{'model_type': 'gpt2', 'n_embd': 768, 'n_head': 12}", "learned"},
    {"{'model_type': 'opt', 'hidden_size': 2048, 'num_attention_heads': 32}", "learned"},
    {"{'model_type': 't5', 'd_model': 512, 'num_heads': 8, 'd_kv': 64}", "T5"},
    {"{'model_type': 'bloom', 'hidden_size': 1024, 'n_head': 16}", "ALiBi"},
    {"{'model_type': 'mpt', 'd_model': 4096, 'n_heads': 32, 'attn_config': {'alibi': true}}",
     "ALiBi"},
    {"{'model_type': 'falcon', 'hidden_size': 2048, 'num_attention_heads': 32, 'alibi': true}",
     "ALiBi"},
    {"{'model_type': 'baichuan', 'hidden_size': 5120, 'num_attention_heads': 40}", "does not know"},
    /* ModernBERT-decoder's keys: named, not a guess at 10000 (modernbert itself answers:
     * tests/api/check_model_modernbert.c) */
    {"{'model_type': 'modernbert-decoder', 'hidden_size': 768, 'num_attention_heads': 12,"
     " 'global_rope_theta': 160000.0, 'local_rope_theta': 10000.0}",
     "global_rope_theta"},
    /* a wrapper whose text config is BERT-like (the text model's type decides) */
    {"{'model_type': 'x', 'text_config': {'model_type': 'bert', 'hidden_size': 768,"
     " 'num_attention_heads': 12}}",
     "learned"},
};

START_TEST(test_rope_refuses_other_methods)
{
    char body[512];
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 2}", OTHER[_i].config);
    const char *ptr = strstr(OTHER[_i].config, "text_config") != NULL
                          ? "/config/text_config/model_type"
                          : "/config/model_type";
    au_expect_422_msg(api_rope, body, ptr, OTHER[_i].needle);
}
END_TEST

/* What still answers: Falcon without ALiBi rotates (modeling_falcon.py FalconRotaryEmbedding);
 * an unknown type with a rotary key of its own is read from that key; no model_type at all is
 * the caller's own description (head_dim 4, base 10000: inv_freq[1] = 10000^-0.5 = 0.01). */
START_TEST(test_rope_still_answers)
{
    static const char *const OK[] = {
        "{'config': {'model_type': 'falcon', 'head_dim': 4, 'alibi': false}, 'seq_len': 2}",
        "{'config': {'model_type': 'afmoe', 'head_dim': 4, 'rope_theta': 10000}, 'seq_len': 2}",
        "{'config': {'head_dim': 4}, 'seq_len': 2}",
    };
    for (size_t i = 0; i < sizeof OK / sizeof OK[0]; i++) {
        json_t *j = au_ok(api_rope, OK[i]);
        ck_close(au_num(j, "inv_freq", 1, -1, -1), 0.01, 0, 1e-15);
        json_decref(j);
    }
}
END_TEST

/*
 * A file without rope_theta: HF v5 reads the config class's default_theta (configuration_<type>
 * .py), posenc used PreTrainedConfig's 10000 for each of these. head_dim 4, so inv_freq[1] =
 * base^(-2/4) = 1 / sqrt(base).
 */
static const struct {
    const char *config;
    double inv1;    /* 1 / sqrt(the class's default_theta) */
    const char *hf; /* the class sources.base must name */
} THETA[] = {
    {"{'model_type': 'mixtral', 'head_dim': 4}", 1e-3, "MixtralConfig"},      /* 1e6 */
    {"{'model_type': 'phimoe', 'head_dim': 4}", 1e-3, "PhimoeConfig"},        /* 1e6 */
    {"{'model_type': 'qwen2_vl', 'head_dim': 4}", 1e-3, "Qwen2VLTextConfig"}, /* 1e6 */
    {"{'model_type': 'qwen2_5_vl', 'text_config': {'model_type': 'qwen2_5_vl_text',"
     " 'head_dim': 4}}",
     1e-3, "Qwen2_5_VLTextConfig"}, /* 1e6 */
    {"{'model_type': 'ernie4_5', 'head_dim': 4}", 0.0014142135623730950, "Ernie4_5Config"},
    {"{'model_type': 'ernie4_5_moe', 'head_dim': 4}", 0.0014142135623730950,
     "Ernie4_5_MoeConfig"}, /* 5e5 */
    {"{'model_type': 'llama4', 'text_config': {'model_type': 'llama4_text', 'head_dim': 4}}",
     0.0014142135623730950, "Llama4TextConfig"},                                          /* 5e5 */
    {"{'model_type': 'bitnet', 'head_dim': 4}", 0.0014142135623730950, "BitNetConfig"},   /* 5e5 */
    {"{'model_type': 'smollm3', 'head_dim': 4}", 7.0710678118654752e-4, "SmolLM3Config"}, /* 2e6 */
    {"{'model_type': 'helium', 'head_dim': 4}", 0.0031622776601683794, "HeliumConfig"},   /* 1e5 */
    {"{'model_type': 'gpt_oss', 'head_dim': 4, 'rope_scaling': {'rope_type': 'default'}}",
     0.0025819888974716112, "GptOssConfig"}, /* 150000 */
    {"{'model_type': 'apertus', 'head_dim': 4}", 2.886751345948129e-4, "ApertusConfig"}, /* 1.2e7 */
    {"{'model_type': 'flex_olmo', 'head_dim': 4}", 0.0014142135623730950, "FlexOlmoConfig"},
    /* CwmConfig's class rope_parameters (llama3 over 8192, factor 16) only when the file has none:
     * with a default-type scaling object the base is its default_theta 1e6 */
    {"{'model_type': 'cwm', 'head_dim': 4, 'rope_scaling': {'rope_type': 'default'}}", 1e-3,
     "CwmConfig"},
};

START_TEST(test_class_default_theta)
{
    char body[512];
    snprintf(body, sizeof body, "{'config': %s, 'seq_len': 2}", THETA[_i].config);
    json_t *j = au_ok(api_rope, body);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), THETA[_i].inv1, 0, 1e-15);
    const json_t *src = json_object_get(json_object_get(j, "resolved"), "sources");
    const char *b = json_string_value(json_object_get(src, "base"));
    ck_assert_msg(b != NULL && strstr(b, THETA[_i].hf) != NULL, "%s: %s", THETA[_i].config,
                  b ? b : "(none)");
    json_decref(j);
}
END_TEST

/*
 * Class head_dim defaults (a number in the class, not hidden_size / heads): Qwen3Config 128,
 * Llama4TextConfig 128, HeliumConfig 128, Qwen3VLTextConfig 128, GptOssConfig 64,
 * Gemma3nTextConfig 256. Each config's hidden_size / heads gives another width, so inv_freq's
 * length (head_dim / 2) tells which was used; before, every one was hidden_size / heads.
 */
START_TEST(test_class_default_head_dim)
{
    static const struct {
        const char *config;
        size_t n;
    } HD[] = {
        {"{'model_type': 'qwen3', 'hidden_size': 2048, 'num_attention_heads': 32}", 64},
        {"{'model_type': 'helium', 'hidden_size': 2048, 'num_attention_heads': 32}", 64},
        {"{'model_type': 'qwen3_vl', 'text_config': {'model_type': 'qwen3_vl_text',"
         " 'hidden_size': 2048, 'num_attention_heads': 32, 'rope_theta': 5000000}}",
         64},
        /* Gemma3nTextConfig head_dim 256: 2048 / 16 = 128 would give 64 entries */
        {"{'model_type': 'gemma3n_text', 'hidden_size': 2048, 'num_attention_heads': 16}", 128},
        {"{'model_type': 'llama4_text', 'hidden_size': 2048, 'num_attention_heads': 32}", 64},
        {"{'model_type': 'gpt_oss', 'hidden_size': 2048, 'num_attention_heads': 16,"
         " 'rope_scaling': {'rope_type': 'default'}}",
         32},
    };
    char body[512];
    for (size_t i = 0; i < sizeof HD / sizeof HD[0]; i++) {
        snprintf(body, sizeof body, "{'config': %s, 'seq_len': 2}", HD[i].config);
        json_t *j = au_ok(api_rope, body);
        ck_assert_msg(json_array_size(json_object_get(j, "inv_freq")) == HD[i].n, "%s: %zu",
                      HD[i].config, json_array_size(json_object_get(j, "inv_freq")));
        json_decref(j);
    }
}
END_TEST

/*
 * gpt-oss without rope_scaling / rope_parameters: GptOssConfig.__post_init__ puts YaRN in place
 * (factor 32, original 4096, beta_fast 32, beta_slow 1, truncate false). posenc answered plain
 * RoPE. YaRN's attention factor 0.1 ln(32) + 1 = 1.3465735902799727; with head_dim 64 and base
 * 150000 the lowest pair (j = 0, wavelength 2 pi < 4096 / 32) keeps inv_freq[0] = 1.
 */
START_TEST(test_gpt_oss_class_yarn)
{
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'gpt_oss', 'hidden_size': 2880,"
                                " 'num_attention_heads': 64, 'head_dim': 64}, 'seq_len': 2}");
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.3465735902799727, 0, 1e-15);
    ck_close(au_num(j, "inv_freq", 0, -1, -1), 1.0, 0, 1e-15);
    const json_t *sc = json_object_get(json_object_get(j, "resolved"), "scaling");
    ck_assert_str_eq(json_string_value(json_object_get(sc, "type")), "yarn");
    json_decref(j);
}
END_TEST

/* The method of each of layers 0..n-1 of a /model/method answer: "rope" / "none". */
static void methods(const json_t *j, char *out, size_t n)
{
    for (size_t l = 0; l < n; l++)
        out[l] = strcmp(au_str(au_layer_kind(j, l), "method"), "rope") == 0 ? 'R' : '-';
    out[n] = '\0';
}

/*
 * Per-layer RoPE that the type's code decides (4 layers each):
 * - afmoe: AfmoeConfig's layer_types default "sliding_attention" if (i + 1) % 4 else
 *   "full_attention", and AfmoeAttention rotates only `if self.is_local_attention`
 *   (modular_afmoe.py): layers 0-2 RoPE, layer 3 none. Before: RoPE on all 4 (and "not in
 *   posenc's table").
 * - exaone4 with sliding_window 4096 and no layer_types: Exaone4Config derives layer_types from
 *   sliding_window_pattern 4 the same way, and Exaone4Attention rotates `if self.sliding_window
 *   is None or self.is_sliding`: RRR-. Before: no RoPE on any layer (every layer read as full).
 * - exaone4 without the sliding_window key: the class default is 4096, not None: RRR-. Before:
 *   RoPE on all 4.
 * - exaone4 with sliding_window null (EXAONE 4.0 1.2B): every layer rotates: RRRR.
 * - exaone_moe (K-EXAONE: ExaoneMoeAttention is Exaone4Attention): RRR-. Before: "not in
 *   posenc's table", RoPE on all 4.
 * - cohere2 without the sliding_window key: Cohere2Config's default is 4096, layer_types from
 *   _sliding_window_pattern 4, and Cohere2Attention rotates `if self.sliding_window is not None`
 *   (its layer's window): RRR-. Before: no RoPE on any layer. With sliding_window null: ----.
 */
START_TEST(test_layer_rules)
{
    static const struct {
        const char *config;
        const char *want;
    } L[] = {
        {"{'model_type': 'afmoe', 'hidden_size': 512, 'num_attention_heads': 4, 'head_dim': 128,"
         " 'num_hidden_layers': 4, 'rope_theta': 10000, 'sliding_window': 2048}",
         "RRR-"},
        {"{'model_type': 'exaone4', 'hidden_size': 512, 'num_attention_heads': 4,"
         " 'num_hidden_layers': 4, 'rope_theta': 1000000, 'sliding_window': 4096}",
         "RRR-"},
        {"{'model_type': 'exaone4', 'hidden_size': 512, 'num_attention_heads': 4,"
         " 'num_hidden_layers': 4, 'rope_theta': 1000000}",
         "RRR-"},
        {"{'model_type': 'exaone4', 'hidden_size': 512, 'num_attention_heads': 4,"
         " 'num_hidden_layers': 4, 'rope_theta': 1000000, 'sliding_window': null}",
         "RRRR"},
        {"{'model_type': 'exaone_moe', 'hidden_size': 512, 'num_attention_heads': 4,"
         " 'num_hidden_layers': 4, 'rope_theta': 1000000, 'sliding_window': 4096}",
         "RRR-"},
        {"{'model_type': 'cohere2', 'hidden_size': 512, 'num_attention_heads': 4,"
         " 'num_hidden_layers': 4, 'rope_theta': 50000}",
         "RRR-"},
        {"{'model_type': 'cohere2', 'hidden_size': 512, 'num_attention_heads': 4,"
         " 'num_hidden_layers': 4, 'rope_theta': 50000, 'sliding_window': null}",
         "----"},
    };
    char got[8];
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        json_t *j = au_ok(api_model_method, L[i].config);
        methods(j, got, 4);
        ck_assert_msg(strcmp(got, L[i].want) == 0, "%s: %s, want %s", L[i].config, got, L[i].want);
        ck_assert_msg(!au_warned(j, "not in posenc's table"), "%s", L[i].config);
        json_decref(j);
    }
}
END_TEST

/* NanoChat rotates by minus the angle (modular_nanochat.py rotate_half: cat(x2, -x1)): q at
 * position 1 comes out (x1 cos + x2 sin, x2 cos - x1 sin), posenc's half layout (x1 cos - x2 sin,
 * x2 cos + x1 sin). Before: a 200 with the latter ("not in posenc's table"). Now a 422. */
START_TEST(test_nanochat_refused)
{
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'nanochat', 'hidden_size': 512,"
                      " 'num_attention_heads': 4, 'rope_theta': 10000}, 'seq_len': 2}",
                      "/config/model_type", "minus the angle");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'nanochat', 'hidden_size': 512, 'num_attention_heads': 4,"
                      " 'num_hidden_layers': 2, 'rope_theta': 10000}",
                      "/model_type", "minus the angle");
}
END_TEST

/*
 * Solar Open without rope_scaling: SolarOpenConfig.convert_rope_params_to_dict puts YaRN factor 2
 * over 65536 in place, rope_theta its default_theta 1e6, partial_rotary_factor 1.0 (not
 * Glm4MoeConfig's 0.5). YaRN's attention factor 0.1 ln 2 + 1 = 1.0693147180559945. head_dim 4:
 * the correction range is floor(4 ln(65536 / (32 2 pi)) / (2 ln 1e6)) = floor(0.838) = 0 to
 * ceil(4 ln(65536 / (2 pi)) / (2 ln 1e6)) = ceil(1.339) = 2, so pair 1 sits at ramp 1/2 and
 * mixes half its extrapolated 1e6^-0.5 = 1e-3 with half its interpolated 1e-3 / 2: 0.00075.
 * Before: plain RoPE at 10000 ("not in posenc's table").
 */
START_TEST(test_solar_open_class_rope)
{
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'solar_open', 'head_dim': 4},"
                                " 'seq_len': 2}");
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0693147180559945, 0, 1e-15);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), 0.00075, 0, 1e-15);
    ck_assert_int_eq(json_array_size(json_object_get(j, "inv_freq")), 2);
    json_decref(j);
}
END_TEST

/*
 * Youtu-LLM (youtu): YoutuAttention is DeepseekV3Attention and YoutuConfig's rope_interleave
 * defaults to true: adjacent pairs over qk_rope_head_dim, scale (qk_nope_head_dim +
 * qk_rope_head_dim)^-0.5 = 192^-0.5 = 0.07216878364870322. Before: half layout, scale
 * qk_rope_head_dim^-0.5 with "not in posenc's table".
 */
START_TEST(test_youtu_deepseek_rules)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'youtu', 'hidden_size': 2048, 'num_attention_heads': 16,"
                      " 'num_hidden_layers': 2, 'qk_rope_head_dim': 64, 'qk_nope_head_dim': 128,"
                      " 'rope_theta': 1600000}");
    const json_t *p = json_object_get(json_array_get(json_object_get(j, "kinds"), 0), "parameters");
    ck_assert_str_eq(json_string_value(json_object_get(p, "layout")), "interleaved");
    ck_close(au_number(json_object_get(p, "scale")), 0.07216878364870322, 0, 1e-15);
    ck_assert(!au_warned(j, "not in posenc's table"));
    json_decref(j);
}
END_TEST

/*
 * A type whose config class defaults rope_theta differently in different transformers releases
 * (Qwen3VLTextConfig: 5e6 in 4.57, 500000 in v5; PersimmonConfig: 25000 in 4.x, 10000 in v5):
 * without rope_theta, a 422 at the key. Before: a 200 at 10000, neither release's number. With
 * the key (at the top or in rope_parameters) it answers: 5e6^-0.5 = 4.4721359549995794e-4.
 */
START_TEST(test_disputed_theta)
{
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'qwen3_vl', 'text_config': {'model_type':"
                      " 'qwen3_vl_text', 'head_dim': 4}}, 'seq_len': 2}",
                      "/config/text_config/rope_theta", "4.57");
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'persimmon', 'head_dim': 4}, 'seq_len': 2}",
                      "/config/rope_theta", "25000");
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'qwen3_vl_text', 'head_dim': 4,"
                                " 'rope_parameters': {'rope_type': 'default', 'rope_theta':"
                                " 5000000}}, 'seq_len': 2}");
    ck_close(au_num(j, "inv_freq", 1, -1, -1), 4.4721359549995794e-4, 0, 1e-15);
    json_decref(j);
}
END_TEST

/*
 * CWM without rope_parameters: CwmConfig puts llama3 in place (factor 16, low / high frequency
 * factors 1 / 4 over 8192, rope_theta 1e6). head_dim 4: pair 1 turns at 1e6^-0.5 = 1e-3, a
 * wavelength of 6283 between 8192 / 4 = 2048 (high) and 8192 / 1 (low): smooth = (8192 / 6283.19
 * - 1) / 3 = 0.101254..., inv = (1 - smooth) 1e-3 / 16 + smooth 1e-3 = 1.5617e-4 (computed below
 * exactly). Pair 0 (wavelength 2 pi < 2048) keeps 1. Before: plain RoPE at 10000.
 */
START_TEST(test_cwm_class_llama3)
{
    json_t *j = au_ok(api_rope, "{'config': {'model_type': 'cwm', 'head_dim': 4}, 'seq_len': 2}");
    double wl = 2.0 * M_PI / 1e-3, smooth = (8192.0 / wl - 1.0) / (4.0 - 1.0);
    double want = (1.0 - smooth) * 1e-3 / 16.0 + smooth * 1e-3;
    ck_close(au_num(j, "inv_freq", 1, -1, -1), want, 0, 1e-14);
    ck_close(au_num(j, "inv_freq", 0, -1, -1), 1.0, 0, 1e-15);
    json_decref(j);
}
END_TEST

Suite *model_sweep_suite(void)
{
    Suite *s = suite_create("model_sweep");
    TCase *tc = tcase_create("sweep");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_loop_test(tc, test_rope_refuses_other_methods, 0,
                        (int)(sizeof OTHER / sizeof OTHER[0]));
    tcase_add_test(tc, test_rope_still_answers);
    tcase_add_loop_test(tc, test_class_default_theta, 0, (int)(sizeof THETA / sizeof THETA[0]));
    tcase_add_test(tc, test_class_default_head_dim);
    tcase_add_test(tc, test_gpt_oss_class_yarn);
    tcase_add_test(tc, test_layer_rules);
    tcase_add_test(tc, test_nanochat_refused);
    tcase_add_test(tc, test_solar_open_class_rope);
    tcase_add_test(tc, test_youtu_deepseek_rules);
    tcase_add_test(tc, test_disputed_theta);
    tcase_add_test(tc, test_cwm_class_llama3);
    suite_add_tcase(s, tc);
    return s;
}
