/*
 * tests/api/check_model_checks.c -- POST /model/method's input rules and class defaults (issue 15):
 *   - a sparse text_config nested in a LLaVA wrapper takes LlamaConfig's defaults (hidden_size
 *     4096, num_attention_heads 32, num_hidden_layers 32, rope_theta 10000; HF LlavaConfig builds
 *     CONFIG_MAPPING[text_config.get("model_type", "llama")]), named as defaults; a flat sparse
 *     llama config stays a 422;
 *   - position keys of the wrong JSON type are 422s at their pointer, never ignored; layer_types
 *     and no_rope_layers have one entry per layer; mrope_section sums to rotary_dim / 2;
 *   - gpt2 without n_positions: GPT2Config's 1024, named as a default;
 *   - an Accept that refuses JSON is a 406 (the route has no array to send instead).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "server/negotiate.h"
#include "tests/lib/api_util.h"

/* Sends body_sq (' for ") to h; asserts 200; the parsed answer. */
static json_t *ok(api_handler h, const char *body_sq)
{
    int st = 0;
    char *body = au_dq(body_sq);
    char *resp = au_send(h, body, &st);
    ck_assert_msg(st == 200, "%s -> %d %s", body, st, resp);
    json_t *j = au_parse(resp);
    free(resp);
    free(body);
    return j;
}

/* LLaVA-1.5-7B's text_config (vicuna-7b-v1.5) holds max_position_embeddings and model_type only:
 * head_dim 4096 / 32 = 128, base 10000, 32 layers, inv_freq[1] = 10000^(-2/128). */
#define LLAVA                                                                                      \
    "{\"model_type\": \"llava\", \"text_config\": {\"max_position_embeddings\": 4096, "            \
    "\"model_type\": \"llama\", \"vocab_size\": 32064}}"

START_TEST(test_llava_defaults)
{
    json_t *j = ok(api_rope, "{\"config\": " LLAVA "}");
    json_t *src = json_object_get(json_object_get(j, "resolved"), "sources");
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(j, "resolved"), "head_dim")), 128);
    ck_assert_msg(strstr(json_string_value(json_object_get(src, "head_dim")),
                         "default of LlamaConfig") != NULL,
                  "%s", json_string_value(json_object_get(src, "head_dim")));
    ck_assert(strstr(json_string_value(json_object_get(src, "base")), "default of LlamaConfig"));
    ck_close(au_num(j, "inv_freq", 1, -1, -1), 1.0 / pow(10000.0, 2.0 / 128.0), 0.0, 1e-15);
    json_decref(j);
    j = ok(api_model_method, LLAVA);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "num_layers")), 32);
    json_t *k = json_array_get(json_object_get(j, "kinds"), 0);
    ck_assert(strstr(json_string_value(json_object_get(json_object_get(k, "sources"), "base")),
                     "default of LlamaConfig"));
    ck_assert(strstr(json_string_value(json_array_get(json_object_get(j, "warnings"), 0)),
                     "config.text_config.num_hidden_layers is absent"));
    json_decref(j);
    /* a text_config without model_type under LLaVA is a LlamaConfig too */
    j = ok(api_model_method, "{'model_type': 'llava', 'text_config': {'vocab_size': 32064}}");
    ck_assert_str_eq(json_string_value(json_object_get(j, "model_type")), "llama");
    json_decref(j);
    /* the same keys flat: no wrapper, no defaults (the config must say what it is) */
    au_expect_422(api_rope, "{'config': {'model_type': 'llama', 'max_position_embeddings': 4096}}",
                  "/head_dim", NULL);
}
END_TEST

/* Wrong types and shapes of position keys: each a 422 at its pointer (before: 200, ignored). */
START_TEST(test_wrong_types)
{
#define L                                                                                          \
    "'model_type': 'llama', 'num_hidden_layers': 2, 'hidden_size': 8, 'num_attention_heads': 2"
    au_expect_422(api_model_method, "{" L ", 'no_rope_layers': 'x'}", "/no_rope_layers", NULL);
    au_expect_422(api_model_method, "{" L ", 'no_rope_layers': [1, 2]}", "/no_rope_layers/1", NULL);
    au_expect_422(api_model_method, "{" L ", 'layer_types': 5}", "/layer_types", NULL);
    au_expect_422(api_model_method, "{" L ", 'layer_types': ['full_attention', 3]}",
                  "/layer_types/1", NULL);
    au_expect_422_msg(api_model_method, "{" L ", 'layer_types': ['full_attention']}",
                      "/layer_types", "has 1 entries but the config has 2 layers");
    au_expect_422(api_model_method, "{" L ", 'no_rope_layers': [1, 1, 0]}", "/no_rope_layers",
                  NULL);
    au_expect_422(api_model_method, "{" L ", 'sliding_window': 'x'}", "/sliding_window", NULL);
    au_expect_422(api_model_method, "{" L ", 'use_sliding_window': 'x'}", "/use_sliding_window",
                  NULL);
    au_expect_422(api_model_method,
                  "{'model_type': 'falcon', 'num_hidden_layers': 2, 'alibi': 'yes'}", "/alibi",
                  NULL);
    au_expect_422(api_model_method,
                  "{'model_type': 'mpt', 'n_layers': 2, 'attn_config': {'alibi': 'yes'}}",
                  "/attn_config/alibi", NULL);
    au_expect_422(api_model_method,
                  "{'model_type': 'bert', 'num_hidden_layers': 2, 'position_embedding_type': 5}",
                  "/position_embedding_type", NULL);
    /* head_dim 4: 2 pairs; [1, 0, 0] sums to 1 */
    au_expect_422_msg(api_model_method,
                      "{" L ", 'rope_scaling': {'type': 'default', 'mrope_section': [1, 0, 0]}}",
                      "/rope_scaling/mrope_section", "sums to 1 pairs");
    au_expect_422(api_model_method,
                  "{" L ", 'rope_scaling': {'type': 'default', 'mrope_section': 'x'}}",
                  "/rope_scaling/mrope_section", NULL);
    json_decref(ok(api_model_method,
                   "{" L ", 'rope_scaling': {'type': 'default', 'mrope_section': [1, 1, 0]}}"));
    json_decref(ok(api_model_method, "{" L ", 'sliding_window': null, 'layer_types': "
                                     "['full_attention', 'sliding_attention']}"));
#undef L
}
END_TEST

/* gpt2 without n_positions: GPT2Config's n_positions 1024 (models/gpt2/configuration_gpt2.py). */
START_TEST(test_gpt2_default)
{
    json_t *j = ok(api_model_method, "{'model_type': 'gpt2', 'n_layer': 2, 'n_embd': 8}");
    json_t *k = json_array_get(json_object_get(j, "kinds"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(k, "parameters"),
                                                        "max_position_embeddings")),
                     1024);
    ck_assert(strstr(json_string_value(
                         json_object_get(json_object_get(k, "sources"), "max_position_embeddings")),
                     "default of GPT2Config"));
    json_decref(j);
}
END_TEST

/* Accept: srv_accept_json decides; /model/method answers 406 when JSON is refused. */
START_TEST(test_not_acceptable)
{
    ck_assert_int_eq(srv_accept_json(NULL), 1);
    ck_assert_int_eq(srv_accept_json(""), 1);
    ck_assert_int_eq(srv_accept_json("application/x-npy"), 0);
    ck_assert_int_eq(srv_accept_json("application/json;q=0, */*"), 0);
    ck_assert_int_eq(srv_accept_json("application/x-npy, */*;q=0.1"), 1);
    ck_assert_int_eq(srv_accept_json("text/html"), 0);
    static const char body[] = "{\"model_type\": \"gpt2\", \"n_layer\": 1}";
    api_opts o = {.json_refused = 1};
    api_response r;
    memset(&r, 0, sizeof r);
    api_handle_route(&au_ctx, api_route_named("/model/method"), body, strlen(body), "t", &o, &r);
    ck_assert_int_eq(r.status, 406);
    api_response_free(&r);
    /* a route with arrays is not concerned (it has .npy to send) */
    static const char rope[] = "{\"head_dim\": 2}";
    memset(&r, 0, sizeof r);
    api_handle_route(&au_ctx, api_route_named("/rope"), rope, strlen(rope), "t", &o, &r);
    ck_assert_int_eq(r.status, 200);
    api_response_free(&r);
}
END_TEST

Suite *model_checks_suite(void)
{
    Suite *s = suite_create("model_checks");
    TCase *tc = tcase_create("checks");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_llava_defaults);
    tcase_add_test(tc, test_wrong_types);
    tcase_add_test(tc, test_gpt2_default);
    tcase_add_test(tc, test_not_acceptable);
    suite_add_tcase(s, tc);
    return s;
}
