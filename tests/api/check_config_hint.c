/*
 * tests/api/check_config_hint.c -- a model's config.json posted as the whole body (or as the
 * whole `rope` object of /attention) gets a 422 whose detail says to wrap it as {"config": ...}
 * (api_check_fields_config, api/req.h). The field errors stay the unknown-field ones; a body with
 * one stray member, or a route that takes no config, keeps the plain detail.
 */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* The position fields of Llama 3.1 8B's published config.json plus some of its other members:
 * model_type, architectures and hidden_size mark it; 13 of its 14 members are not /rope fields
 * (rope_theta is one: an alias of base). */
#define LLAMA31                                                                                    \
    "{'architectures': ['LlamaForCausalLM'], 'attention_bias': false, 'bos_token_id': 128000,"     \
    " 'eos_token_id': 128001, 'hidden_act': 'silu', 'hidden_size': 4096,"                          \
    " 'intermediate_size': 14336, 'max_position_embeddings': 131072, 'model_type': 'llama',"       \
    " 'num_attention_heads': 32, 'num_hidden_layers': 32, 'num_key_value_heads': 8,"               \
    " 'rope_scaling': {'factor': 8.0, 'low_freq_factor': 1.0, 'high_freq_factor': 4.0,"            \
    " 'original_max_position_embeddings': 8192, 'rope_type': 'llama3'}, 'rope_theta': 500000.0}"

#define WRAP_HINT "send it wrapped as {\"config\": <config.json>}"

/* Calls h on body_sq, asserts a 422 unknown-field and returns its detail (borrowed from *root). */
static const char *detail_422(api_handler h, const char *body_sq, json_t **root)
{
    int status = 0;
    *root = au_call(h, body_sq, &status);
    ck_assert_int_eq(status, 422);
    ck_assert_str_eq(json_string_value(json_object_get(*root, "type")),
                     "urn:posenc:problem:unknown-field");
    const char *d = json_string_value(json_object_get(*root, "detail"));
    ck_assert_ptr_nonnull(d);
    return d;
}

START_TEST(test_bare_config_to_rope)
{
    json_t *r = NULL;
    const char *d = detail_422(api_rope, LLAMA31, &r);
    /* model_type is the first mark the check looks for; 8 errors are
     * kept (API_PROBLEM_MAX_ERRORS) and the rest counted, so all 12 unknown members are named
     * in the count: architectures, attention_bias, bos_token_id, eos_token_id, hidden_act,
     * hidden_size, intermediate_size, max_position_embeddings, model_type,
     * num_attention_heads, num_hidden_layers, num_key_value_heads (rope_scaling and rope_theta
     * are /rope fields). */
    ck_assert_str_eq(d, "the body looks like a model's config.json (it has \"model_type\" and 12 "
                        "unknown fields): " WRAP_HINT);
    ck_assert_int_eq((int)json_array_size(json_object_get(r, "errors")), 8);
    json_decref(r);
    /* wrapped as told, the same object is answered */
    json_t *ok = au_ok(api_rope, "{'config': " LLAMA31 ", 'include': ['bands']}");
    ck_assert_int_eq((int)json_array_size(json_object_get(ok, "bands")), 64);
    json_decref(ok);
}
END_TEST

/* A stray member or two is a typo, not a pasted config: the plain detail. */
START_TEST(test_few_unknown_no_hint)
{
    json_t *r = NULL;
    const char *d = detail_422(api_rope, "{'head_dim': 8, 'model_type': 'llama'}", &r);
    ck_assert_str_eq(d, "/model_type: unknown field \"model_type\"");
    json_decref(r);
    d = detail_422(api_rope, "{'head_dim': 8, 'vocab_size': 3, 'x': 1, 'y': 2}", &r);
    ck_assert_ptr_null(strstr(d, WRAP_HINT)); /* 3 unknown but no mark... */
    json_decref(r);
    d = detail_422(api_rope, "{'head_dim': 8, 'hidden_size': 8, 'vocab_size': 3}", &r);
    ck_assert_ptr_null(strstr(d, WRAP_HINT)); /* ...a mark but 2 unknown */
    json_decref(r);
}
END_TEST

/* /attention: the config pasted as the whole `rope` object. */
START_TEST(test_bare_config_in_attention_rope)
{
    json_t *r = NULL;
    const char *d = detail_422(
        api_attention, "{'q': [[1, 0]], 'k': [[1, 0]], 'method': 'rope', 'rope': " LLAMA31 "}", &r);
    ck_assert_str_eq(d, "the object at /rope looks like a model's config.json (it has "
                        "\"model_type\" and 12 unknown fields): " WRAP_HINT);
    json_decref(r);
}
END_TEST

/* /sinusoidal takes no config: no hint there. */
START_TEST(test_no_hint_without_config_field)
{
    int status = 0;
    json_t *r = au_call(api_sinusoidal, LLAMA31, &status);
    ck_assert_int_eq(status, 422);
    const char *d = json_string_value(json_object_get(r, "detail"));
    ck_assert_ptr_nonnull(d);
    ck_assert_ptr_null(strstr(d, WRAP_HINT));
    json_decref(r);
}
END_TEST

Suite *config_hint_suite(void)
{
    Suite *s = suite_create("config_hint");
    TCase *tc = tcase_create("config_hint");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_bare_config_to_rope);
    tcase_add_test(tc, test_few_unknown_no_hint);
    tcase_add_test(tc, test_bare_config_in_attention_rope);
    tcase_add_test(tc, test_no_hint_without_config_field);
    suite_add_tcase(s, tc);
    return s;
}
