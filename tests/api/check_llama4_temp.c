/*
 * tests/api/check_llama4_temp.c -- Llama 4's attention temperature tuning in its no-RoPE layers
 * (HF models/llama4/modeling_llama4.py, Llama4TextAttention: `if self.attn_temperature_tuning and
 * not self.use_rope`: q times log1p(floor((cache_position + 1) / floor_scale)) * attn_scale + 1;
 * Llama4TextConfig defaults attn_temperature_tuning true, floor_scale 8192, attn_scale 0.1).
 * Values derived by hand below.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/rope_qscale.h"
#include "tests/lib/api_util.h"

/* floor_scale 8192, attn_scale 0.1: positions 0 .. 8190 give floor((p + 1) / 8192) = 0, scale 1;
 * 8191 gives 1 -> 1 + 0.1 ln 2; 16383 gives 2 -> 1 + 0.1 ln 3 (the + 1 of the position: HF's
 * cache_position starts at 0, the first scaled token is the 8192nd). */
START_TEST(test_temp_core)
{
    ck_assert(pe_qscale_llama4_temp(0, 0.1, 8192.0) == 1.0);
    ck_assert(pe_qscale_llama4_temp(8190, 0.1, 8192.0) == 1.0);
    ck_close(pe_qscale_llama4_temp(8191, 0.1, 8192.0), 1.0 + 0.1 * log(2.0), 0.0, 1e-15);
    ck_close(pe_qscale_llama4_temp(16383, 0.1, 8192.0), 1.0 + 0.1 * log(3.0), 0.0, 1e-15);
}
END_TEST

/* A 4-layer Llama 4 text config with no_rope_layers [1, 1, 1, 0], floor_scale 2, attn_scale 0.5. */
#define CFG                                                                                        \
    "{\"model_type\": \"llama4_text\", \"num_hidden_layers\": 4, \"hidden_size\": 4, "             \
    "\"num_attention_heads\": 2, \"head_dim\": 2, \"rope_theta\": 10000, "                         \
    "\"no_rope_layers\": [1, 1, 1, 0], \"floor_scale\": 2, \"attn_scale\": 0.5}"

/* /attention on layer 3 (no RoPE): q = k = [1, 0] at positions 0 .. 3, no rotation, q scaled by
 * s(p) = 1 + 0.5 ln(1 + floor((p + 1) / 2)): s(0) = 1, s(1) = s(2) = 1 + 0.5 ln 2,
 * s(3) = 1 + 0.5 ln 3; scores[i][j] = s(i) x 1 / sqrt(2) for every j (causal false). */
START_TEST(test_temp_attention)
{
    int st = 0;
    char *resp =
        au_send(api_attention,
                "{\"method\": \"rope\", \"causal\": false, \"q\": [[1,0],[1,0],[1,0],[1,0]], "
                "\"k\": [[1,0],[1,0],[1,0],[1,0]], \"rope\": {\"config\": " CFG ", \"layer\": 3}}",
                &st);
    ck_assert_msg(st == 200, "%s", resp);
    json_t *j = au_parse(resp);
    free(resp);
    double s[4] = {1.0, 1.0 + 0.5 * log(2.0), 1.0 + 0.5 * log(2.0), 1.0 + 0.5 * log(3.0)};
    for (int i = 0; i < 4; i++) {
        ck_close(au_num(j, "scores", i, 0, -1), s[i] / sqrt(2.0), 0.0, 1e-15);
        ck_close(au_num(j, "scores", i, 3, -1), s[i] / sqrt(2.0), 0.0, 1e-15);
    }
    json_t *rr = json_object_get(json_object_get(j, "resolved"), "rope");
    ck_assert_str_eq(json_string_value(json_object_get(rr, "method")), "none");
    ck_close(au_num(rr, "q_scale", 3, -1, -1), s[3], 0.0, 1e-15);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(rr, "sources"),
                                                       "query_scale.floor_scale")),
                     "config.floor_scale");
    json_decref(j);
    /* layer 0 is a RoPE layer: rotated as before (position 1 turns q by 1 rad: q[1] = [cos 1,
     * sin 1], k[0] = [1, 0], score = cos 1 / sqrt 2), no temperature */
    resp = au_send(api_attention,
                   "{\"method\": \"rope\", \"causal\": false, \"q\": [[1,0],[1,0]], "
                   "\"k\": [[1,0],[1,0]], \"rope\": {\"config\": " CFG ", \"layer\": 0}}",
                   &st);
    ck_assert_msg(st == 200, "%s", resp);
    j = au_parse(resp);
    free(resp);
    ck_close(au_num(j, "scores", 1, 0, -1), cos(1.0) / sqrt(2.0), 1e-15, 0.0);
    json_decref(j);
    /* attn_temperature_tuning false: the no-RoPE layer has nothing to compute here (422) */
    au_expect_422(api_attention,
                  "{'method': 'rope', 'q': [[1,0]], 'k': [[1,0]], 'rope': {'config': "
                  "{'model_type': 'llama4_text', 'num_hidden_layers': 4, 'head_dim': 2, "
                  "'no_rope_layers': [1, 1, 1, 0], 'attn_temperature_tuning': false}, 'layer': 3}}",
                  "/rope/layer", NULL);
}
END_TEST

/* POST /model/method: the no-RoPE kind of a Llama 4 config names its query scale with the numbers
 * and where they came from (the file's keys, else Llama4TextConfig's defaults). */
START_TEST(test_temp_model_method)
{
    int st = 0;
    char *resp = au_send(api_model_method, "{\"config\": " CFG "}", &st);
    ck_assert_msg(st == 200, "%s", resp);
    json_t *j = au_parse(resp);
    free(resp);
    json_t *none = json_array_get(json_object_get(j, "kinds"), 1);
    ck_assert_str_eq(json_string_value(json_object_get(none, "method")), "none");
    json_t *qs = json_object_get(none, "query_scale");
    ck_assert(au_num(qs, "floor_scale", -1, -1, -1) == 2.0);
    ck_assert(au_num(qs, "attn_scale", -1, -1, -1) == 0.5);
    json_t *src = json_object_get(qs, "sources");
    ck_assert_str_eq(json_string_value(json_object_get(src, "attn_scale")), "config.attn_scale");
    ck_assert(strstr(json_string_value(json_object_get(src, "attn_temperature_tuning")),
                     "Llama4TextConfig") != NULL);
    json_decref(j);
    /* POST /rope lists the kinds; the no-RoPE one names its query scale too */
    resp = au_send(api_rope, "{\"config\": " CFG "}", &st);
    ck_assert_msg(st == 200, "%s", resp);
    j = au_parse(resp);
    free(resp);
    qs = json_object_get(json_array_get(json_object_get(j, "layer_kinds"), 1), "query_scale");
    ck_assert(au_num(qs, "floor_scale", -1, -1, -1) == 2.0);
    json_decref(j);
}
END_TEST

Suite *llama4_temp_suite(void)
{
    Suite *s = suite_create("llama4_temp");
    TCase *tc = tcase_create("temp");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_temp_core);
    tcase_add_test(tc, test_temp_attention);
    tcase_add_test(tc, test_temp_model_method);
    suite_add_tcase(s, tc);
    return s;
}
