/*
 * tests/api/check_problem_key.c -- api_problem_key / api_problem_idx (api/req.c) record the same
 * field error as the idiom they replace: a 160-byte pointer buffer filled by api_ptr (or
 * api_ptr_idx), then api_problem_field with that buffer.
 */
#include <check.h>
#include <string.h>

#include "api/req.h"

/* The idiom api_problem_key replaced, with the buffer size the call sites used. */
static void old_key(api_problem *pb, const char *base, const char *key, const char *msg)
{
    char ptr[160];
    api_ptr(ptr, sizeof ptr, base, key);
    api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "%s", msg);
}

static void assert_same(const api_problem *a, const api_problem *b)
{
    ck_assert_int_eq(a->code, b->code);
    ck_assert_uint_eq(a->n_errors, b->n_errors);
    ck_assert_uint_eq(a->n_dropped, b->n_dropped);
    ck_assert_str_eq(a->detail, b->detail);
    for (size_t i = 0; i < a->n_errors; i++) {
        ck_assert_str_eq(a->errors[i].pointer, b->errors[i].pointer);
        ck_assert_str_eq(a->errors[i].message, b->errors[i].message);
    }
}

START_TEST(test_key_escapes)
{
    api_problem pb;
    api_problem_init(&pb);
    /* RFC 6901: "~" is written "~0", "/" is written "~1" */
    api_problem_key(&pb, API_PB_INVALID_FIELD, "/scaling", "a~b/c", "must be %s, got %d",
                    "positive", -2);
    ck_assert_int_eq(pb.code, API_PB_INVALID_FIELD);
    ck_assert_uint_eq(pb.n_errors, 1);
    ck_assert_str_eq(pb.errors[0].pointer, "/scaling/a~0b~1c");
    ck_assert_str_eq(pb.errors[0].message, "must be positive, got -2");
    ck_assert_str_eq(pb.detail, "/scaling/a~0b~1c: must be positive, got -2");

    api_problem old;
    api_problem_init(&old);
    old_key(&old, "/scaling", "a~b/c", "must be positive, got -2");
    assert_same(&pb, &old);
}
END_TEST

START_TEST(test_key_long_key_truncates_as_before)
{
    /* a 300-byte user key (an unknown member of the body) with "/" at index 155: api_ptr into
     * 160 bytes writes "/", key bytes 0..154 (len 156), then "~1" since 156 + 3 < 160 (len 158),
     * and stops as 158 + 3 >= 160: 158 bytes ending "kk~1", the same as the 160-byte idiom */
    char key[301];
    memset(key, 'k', 300);
    key[300] = '\0';
    key[155] = '/';
    api_problem pb, old;
    api_problem_init(&pb);
    api_problem_init(&old);
    api_problem_key(&pb, API_PB_UNKNOWN_FIELD, "", key, "%s", "unknown field");
    char ptr[160];
    api_ptr(ptr, sizeof ptr, "", key);
    api_problem_field(&old, API_PB_UNKNOWN_FIELD, ptr, "%s", "unknown field");
    ck_assert_uint_eq(strlen(pb.errors[0].pointer), 158);
    ck_assert_str_eq(pb.errors[0].pointer + 154, "kk~1");
    assert_same(&pb, &old);
}
END_TEST

START_TEST(test_idx_and_first_error_wins)
{
    api_problem pb;
    api_problem_init(&pb);
    api_problem_idx(&pb, API_PB_LIMIT_EXCEEDED, "/slopes", 3, "must be >= 0, got %.17g", -0.5);
    api_problem_key(&pb, API_PB_INVALID_FIELD, "", "offset", "needs seq_len");
    ck_assert_int_eq(pb.code, API_PB_LIMIT_EXCEEDED); /* the first error's code */
    ck_assert_uint_eq(pb.n_errors, 2);
    ck_assert_str_eq(pb.errors[0].pointer, "/slopes/3");
    ck_assert_str_eq(pb.errors[0].message, "must be >= 0, got -0.5");
    ck_assert_str_eq(pb.errors[1].pointer, "/offset");
    ck_assert_str_eq(pb.detail, "/slopes/3: must be >= 0, got -0.5");
}
END_TEST

Suite *problem_key_suite(void)
{
    Suite *s = suite_create("problem_key");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_key_escapes);
    tcase_add_test(tc, test_key_long_key_truncates_as_before);
    tcase_add_test(tc, test_idx_and_first_error_wins);
    suite_add_tcase(s, tc);
    return s;
}
