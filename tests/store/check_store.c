/*
 * tests/store/check_store.c -- store/: table names.
 */
#include <check.h>
#include <string.h>

#include "store/table.h"

START_TEST(test_names)
{
    static const char *const good[] = {"a", "Z9", "wpe.weight", "demo-512x64", "a_b-c.d", "0"};
    static const char *const bad[] = {"",    ".a",   "-a",     "_a",          "a/b", "..",   "../x",
                                      "a b", "a\\b", "tab\tx", "caf\xc3\xa9", "x?y", "x%2Fy"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(store_name_valid(good[i]), "%s should be valid", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!store_name_valid(bad[i]), "%s should be invalid", bad[i]);
    char n64[66], n65[66];
    memset(n64, 'a', 64);
    n64[64] = '\0';
    memset(n65, 'b', 65);
    n65[65] = '\0';
    ck_assert(store_name_valid(n64));
    ck_assert(!store_name_valid(n65));
    ck_assert(!store_name_valid(NULL));
}
END_TEST

Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    return s;
}
