/*
 * tests/api/check_attn_window.c -- POST /attention with a pasted config whose layers attend within
 * a sliding window: the scores are those of full attention, so when the positions reach past the
 * window (T >= sliding_window) the answer says so in resolved.caveats; HF masks keys
 * sliding_window or more positions behind the query (masking_utils.py). T = 2 rows here, so the
 * largest distance is 1: a window of 2 is reached (caveat), a window of 3 is not.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* /attention, method rope, q = k = two rows [1, 0], rope {config: cfg (single quotes)}+rope_extra
 */
static json_t *attend(const char *cfg, const char *rope_extra, int *status)
{
    char body[2048];
    snprintf(body, sizeof body,
             "{'method': 'rope', 'q': [[1, 0], [1, 0]], 'k': [[1, 0], [1, 0]], "
             "'rope': {'config': %s%s}}",
             cfg, rope_extra);
    return au_call(api_attention, body, status);
}

/* The caveats text of j, or NULL. */
static const char *caveats(const json_t *j)
{
    const json_t *c = json_object_get(json_object_get(j, "resolved"), "caveats");
    return json_is_array(c) && json_array_size(c) > 0 ? json_string_value(json_array_get(c, 0))
                                                      : NULL;
}

#define MISTRAL(extra)                                                                             \
    "{'model_type': 'mistral', 'num_hidden_layers': 2, 'hidden_size': 4, "                         \
    "'num_attention_heads': 2, 'head_dim': 2, 'rope_theta': 10000.0" extra "}"

START_TEST(test_window_reached)
{
    int st = 0;
    json_t *j = attend(MISTRAL(", 'sliding_window': 2"), "", &st);
    ck_assert_int_eq(st, 200);
    const char *c = caveats(j);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_nonnull(strstr(c, "config.sliding_window = 2"));
    ck_assert_ptr_nonnull(strstr(c, "fewer than 2 positions"));
    json_decref(j);
}
END_TEST

START_TEST(test_window_not_reached)
{
    int st = 0;
    json_t *j = attend(MISTRAL(", 'sliding_window': 3"), "", &st); /* distance 1 < 3 */
    ck_assert_int_eq(st, 200);
    ck_assert_ptr_null(caveats(j));
    json_decref(j);
    j = attend(MISTRAL(", 'sliding_window': null"), "", &st);
    ck_assert_int_eq(st, 200);
    ck_assert_ptr_null(caveats(j));
    json_decref(j);
    /* Qwen2's switch: use_sliding_window false, no layer slides */
    j = attend(MISTRAL(", 'sliding_window': 2, 'use_sliding_window': false"), "", &st);
    ck_assert_int_eq(st, 200);
    ck_assert_ptr_null(caveats(j));
    json_decref(j);
}
END_TEST

/* layer_types: layer 0 slides (caveat), layer 1 is full attention (none) */
START_TEST(test_window_layer_types)
{
    const char *cfg =
        MISTRAL(", 'sliding_window': 2, 'layer_types': ['sliding_attention', 'full_attention']");
    int st = 0;
    json_t *j = attend(cfg, ", 'layer': 0", &st);
    ck_assert_int_eq(st, 200);
    ck_assert_ptr_nonnull(caveats(j));
    json_decref(j);
    j = attend(cfg, ", 'layer': 1", &st);
    ck_assert_int_eq(st, 200);
    ck_assert_ptr_null(caveats(j));
    json_decref(j);
}
END_TEST

Suite *attn_window_suite(void)
{
    Suite *s = suite_create("attn_window");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_window_reached);
    tcase_add_test(tc, test_window_not_reached);
    tcase_add_test(tc, test_window_layer_types);
    suite_add_tcase(s, tc);
    return s;
}
