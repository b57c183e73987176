/*
 * tests/api/check_model_method.c -- POST /model/method never guesses: a model type whose method
 * posenc does not know (ViT, DeBERTa-v2, a made-up name) is a 422 at /model_type unless its config
 * carries rotary keys of its own (then RoPE, with a warning); a config too deep to echo back is a
 * 422, not "the response would exceed its size limit"; a tree over max_parse_bytes built while
 * answering is a 413 naming the limit. (Before, all three unknown types were answered "rope" with
 * base 10000: a confident 200 for a model that has no RoPE.)
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/api_util.h"

START_TEST(test_unknown_types_refused)
{
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'vit', 'num_hidden_layers': 12, 'hidden_size': 768, "
                      "'num_attention_heads': 12}",
                      "/model_type", "does not know the position method of model_type \"vit\"");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'deberta-v2', 'num_hidden_layers': 24, 'hidden_size': 1536, "
                      "'num_attention_heads': 24, 'relative_attention': true}",
                      "/model_type", "\"deberta-v2\"");
    au_expect_422_msg(api_model_method,
                      "{'config': {'model_type': 'zzz', 'num_hidden_layers': 2, 'hidden_size': 64, "
                      "'num_attention_heads': 4}}",
                      "/config/model_type", "\"zzz\"");
}
END_TEST

START_TEST(test_unknown_type_with_rotary_keys)
{
    /* rope_theta says RoPE: answered, and the answer says the type was not in the table */
    json_t *j = au_ok(api_model_method, "{'model_type': 'zzz', 'num_hidden_layers': 2, "
                                        "'hidden_size': 64, 'num_attention_heads': 4, "
                                        "'rope_theta': 500000}");
    json_t *k0 = json_array_get(json_object_get(j, "kinds"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(k0, "method")), "rope");
    const char *w0 = json_string_value(json_array_get(json_object_get(j, "warnings"), 0));
    ck_assert_msg(w0 && strstr(w0, "not in posenc's table of RoPE models"), "%s", w0 ? w0 : "-");
    json_decref(j);
    /* a known RoPE type needs no rotary key (Llama's class default base 10000) */
    j = au_ok(api_model_method, "{'model_type': 'llama', 'num_hidden_layers': 2, "
                                "'hidden_size': 64, 'num_attention_heads': 4}");
    ck_assert_ptr_null(json_object_get(j, "warnings"));
    json_decref(j);
}
END_TEST

START_TEST(test_too_deep_to_echo)
{
    /* 20 levels of [] inside the config: the answer would nest past the writer's 32 */
    char body[512];
    snprintf(body, sizeof body,
             "{\"config\": {\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"head_dim\": 8, "
             "\"x\": %.*s%.*s}}",
             20, "[[[[[[[[[[[[[[[[[[[[", 20, "]]]]]]]]]]]]]]]]]]]]");
    int status = 0;
    char *out = au_send(api_model_method, body, &status);
    ck_assert_int_eq(status, 422);
    ck_assert_msg(strstr(out, "nested deeper than 16 levels") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "max_output_elements") == NULL, "%s", out);
    free(out);
}
END_TEST

START_TEST(test_answer_over_parse_cap_is_413)
{
    /* a small body whose answer (built with jansson) passes a 64 KiB arena: 413, not a 422 that
     * blames the output size */
    au_lim.max_parse_bytes = 64 << 10;
    size_t cap = 40000;
    char *body = malloc(cap);
    ck_assert_ptr_nonnull(body);
    size_t n = (size_t)snprintf(body, cap,
                                "{\"config\": {\"model_type\": \"llama\", "
                                "\"num_hidden_layers\": 2, \"head_dim\": 8, \"junk\": {");
    for (int i = 0; i < 600; i++)
        n += (size_t)snprintf(body + n, cap - n, "%s\"k%d\": [%d, %d, %d]", i ? ", " : "", i, i, i,
                              i);
    snprintf(body + n, cap - n, "}}}");
    int status = 0;
    char *out = au_send(api_model_method, body, &status);
    ck_assert_int_eq(status, 413);
    ck_assert_msg(strstr(out, "max_parse_bytes (65536") != NULL, "%s", out);
    free(out);
    free(body);
}
END_TEST

Suite *model_method_suite(void)
{
    Suite *s = suite_create("model_method");
    TCase *tc = tcase_create("guessing");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_unknown_types_refused);
    tcase_add_test(tc, test_unknown_type_with_rotary_keys);
    tcase_add_test(tc, test_too_deep_to_echo);
    tcase_add_test(tc, test_answer_over_parse_cap_is_413);
    suite_add_tcase(s, tc);
    return s;
}
