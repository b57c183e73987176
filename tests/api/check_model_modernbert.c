/*
 * tests/api/check_model_modernbert.c -- ModernBERT (model_type modernbert): two RoPE kinds, read
 * as Hugging Face's ModernBertConfig / modeling_modernbert.py (transformers v5) build them.
 *
 * Derivations by hand (configuration_modernbert.py, modeling_modernbert.py):
 *   layer_types default: "sliding_attention" if i % global_attn_every_n_layers (default 3) else
 *     "full_attention", so layers 0, 3, 6, ... are full (from layer 0, unlike Gemma 3's
 *     (i + 1) % n);
 *   rope_parameters.full_attention.rope_theta = global_rope_theta (default_theta global 160000),
 *     sliding_attention's = local_rope_theta (local 10000);
 *   compute_default_rope_parameters: dim = hidden_size // num_attention_heads, inv_freq[j] =
 *     base^(-2j/dim). With hidden 8, heads 2: dim 4, inv_freq = (1, base^-0.5):
 *     160000^-0.5 = 1/400 = 0.0025, 10000^-0.5 = 0.01, 40000^-0.5 = 0.005, 250000^-0.5 = 0.002;
 *   rotate_half (half layout); eager_attention_forward scale head_dim^-0.5 = 4^-0.5 = 0.5.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

#define MB "'model_type': 'modernbert', 'hidden_size': 8, 'num_attention_heads': 2"

/* POST /model/method: six layers, no pattern key (3): full 0, 3; sliding 1, 2, 4, 5; bases
 * from ModernBertConfig's defaults, named as such. */
START_TEST(test_method_two_kinds_defaults)
{
    json_t *j = au_ok(api_model_method, "{" MB ", 'num_hidden_layers': 6}");
    static const int WANT[6] = {0, 1, 1, 0, 1, 1};
    for (int l = 0; l < 6; l++)
        ck_assert_int_eq((int)au_num(j, "layers", l, -1, -1), WANT[l]);
    const json_t *full = au_layer_kind(j, 0), *sliding = au_layer_kind(j, 1);
    ck_assert_str_eq(au_str(full, "layer_type"), "full_attention");
    ck_assert_str_eq(au_str(sliding, "layer_type"), "sliding_attention");
    const json_t *fp = json_object_get(full, "parameters"),
                 *sp = json_object_get(sliding, "parameters");
    ck_close(json_number_value(json_object_get(fp, "base")), 160000.0, 0, 0);
    ck_close(json_number_value(json_object_get(sp, "base")), 10000.0, 0, 0);
    ck_assert_str_eq(au_str(fp, "layout"), "half");
    ck_close(json_number_value(json_object_get(fp, "scale")), 0.5, 0, 1e-15);
    ck_assert_msg(strstr(au_str(json_object_get(sliding, "sources"), "base"), "local_rope_theta"),
                  "%s", au_str(json_object_get(sliding, "sources"), "base"));
    /* the sliding kind's ready request answers its base: inv_freq[1] = 10000^-0.5 */
    json_t *req = json_deep_copy(json_object_get(sliding, "request"));
    json_object_set_new(req, "seq_len", json_integer(2));
    char *body = json_dumps(req, JSON_COMPACT);
    json_t *r = au_ok(api_rope, body);
    ck_close(au_num(r, "inv_freq", 1, -1, -1), 0.01, 0, 1e-15);
    json_decref(r);
    free(body);
    json_decref(req);
    json_decref(j);
}
END_TEST

/* POST /rope with `layer`: the file's bases (global 250000, local 40000) and pattern (every 2nd
 * layer full: 0, 2, 4 full; 1, 3 sliding). */
START_TEST(test_rope_layer_picks_base)
{
    static const struct {
        int layer;
        double inv1;
    } CASES[] = {{0, 0.002}, {1, 0.005}, {2, 0.002}, {3, 0.005}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char body[400];
        snprintf(body, sizeof body,
                 "{'config': {" MB ", 'num_hidden_layers': 5, 'global_attn_every_n_layers': 2, "
                 "'global_rope_theta': 250000.0, 'local_rope_theta': 40000.0, "
                 "'local_attention': 128, 'position_embedding_type': 'absolute'}, "
                 "'layer': %d, 'seq_len': 2}",
                 CASES[i].layer);
        json_t *r = au_ok(api_rope, body);
        ck_close(au_num(r, "inv_freq", 1, -1, -1), CASES[i].inv1, 0, 1e-15);
        /* no silent drop: the published files' position_embedding_type is listed as unread */
        const json_t *ign = json_object_get(json_object_get(r, "resolved"), "ignored");
        ck_assert_ptr_nonnull(json_object_get(ign, "config.position_embedding_type"));
        json_decref(r);
    }
}
END_TEST

/* ModernBertConfig reads no rope_theta (4.x: global_rope_theta / local_rope_theta; v5's
 * convert_rope_params_to_dict pops only those): a top-level rope_theta 490000 leaves the full
 * layers at the class's 160000 (inv_freq[1] = 1/400, not 490000^-0.5 = 1/700) and is listed as
 * not read. */
START_TEST(test_rope_theta_not_read)
{
    json_t *r = au_ok(api_rope, "{'config': {" MB ", 'num_hidden_layers': 3, 'rope_theta': "
                                "490000.0}, 'layer': 0, 'seq_len': 2}");
    ck_close(au_num(r, "inv_freq", 1, -1, -1), 0.0025, 0, 1e-15);
    const json_t *ign = json_object_get(json_object_get(r, "resolved"), "ignored");
    ck_assert_ptr_nonnull(json_object_get(ign, "config.rope_theta"));
    json_decref(r);
}
END_TEST

/* What ModernBertConfig does differently from anything posenc reads: 422 at the key. */
START_TEST(test_refusals)
{
    au_expect_422_msg(api_model_method,
                      "{" MB ", 'num_hidden_layers': 3, 'rope_scaling': {'rope_type': 'linear', "
                      "'factor': 2.0}}",
                      "/rope_scaling", "both layer types");
    au_expect_422_msg(api_rope,
                      "{'config': {" MB ", 'num_hidden_layers': 3, 'local_rope_theta': null}, "
                      "'layer': 1, 'seq_len': 2}",
                      "/config/local_rope_theta", "null");
    au_expect_422_msg(api_model_method,
                      "{" MB ", 'num_hidden_layers': 3, 'rope_parameters': {'full_attention': "
                      "{'rope_type': 'default', 'rope_theta': 160000.0}, 'sliding_attention': "
                      "{'rope_type': 'default'}}}",
                      "/rope_parameters/sliding_attention", "rope_theta");
}
END_TEST

Suite *model_modernbert_suite(void)
{
    Suite *s = suite_create("model_modernbert");
    TCase *tc = tcase_create("modernbert");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_method_two_kinds_defaults);
    tcase_add_test(tc, test_rope_layer_picks_base);
    tcase_add_test(tc, test_rope_theta_not_read);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return s;
}
