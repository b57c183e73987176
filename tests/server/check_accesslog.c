/*
 * tests/server/check_accesslog.c -- server/accesslog.c: srv_log_escape, the escaping of every
 * access-log field. Expected strings derived by hand from the rules in server/request.h: text
 * keeps printable ASCII but space, '"' and '\' (backslashed), and writes every other byte as \xHH;
 * JSON keeps valid UTF-8 and space, backslashes '"' and '\', writes controls as \u00XX and each
 * byte of an invalid UTF-8 sequence as \ufffd.
 */
#include <check.h>
#include <string.h>

#include "server/request.h"

static const char *esc(const char *s, int json)
{
    static char out[256];
    srv_log_escape(s, json, out, sizeof out);
    return out;
}

START_TEST(test_text)
{
    /* "%0a" decoded in a path: the newline must not start a forged line */
    ck_assert_str_eq(esc("/x\nFORGED 200", 0), "/x\\x0aFORGED\\x20200");
    ck_assert_str_eq(esc("GE\"T", 0), "GE\\\"T");
    ck_assert_str_eq(esc("a\\b\r\t\x7f", 0), "a\\\\b\\x0d\\x09\\x7f");
    ck_assert_str_eq(esc("\xc3\xa9", 0), "\\xc3\\xa9"); /* bytes, whatever they encode */
    ck_assert_str_eq(esc("/rope", 0), "/rope");
}
END_TEST

START_TEST(test_json)
{
    ck_assert_str_eq(esc("GE\"T", 1), "GE\\\"T");
    ck_assert_str_eq(esc("a b\n\x01\\", 1), "a b\\u000a\\u0001\\\\");
    ck_assert_str_eq(esc("caf\xc3\xa9", 1), "caf\xc3\xa9"); /* é: valid, kept */
    ck_assert_str_eq(esc("\xc3\x28", 1), "\\ufffd(");       /* a lead byte without its tail */
    ck_assert_str_eq(esc("\xff\xfe", 1), "\\ufffd\\ufffd"); /* never valid in UTF-8 */
    ck_assert_str_eq(esc("\xc0\xaf", 1), "\\ufffd\\ufffd"); /* overlong '/' */
    ck_assert_str_eq(esc("\xed\xa0\x80", 1), "\\ufffd\\ufffd\\ufffd");            /* a surrogate */
    ck_assert_str_eq(esc("\xf0\x9f\x98\x80", 1), "\xf0\x9f\x98\x80");             /* U+1F600 */
    ck_assert_str_eq(esc("\xf4\x90\x80\x80", 1), "\\ufffd\\ufffd\\ufffd\\ufffd"); /* > U+10FFFF */
}
END_TEST

START_TEST(test_truncates_at_whole_escapes)
{
    char out[8];
    srv_log_escape("\n\n\n", 1, out, sizeof out); /* "\u000a" is 6 bytes: one fits in 7 */
    ck_assert_str_eq(out, "\\u000a");
    srv_log_escape("abcdefghij", 0, out, sizeof out);
    ck_assert_str_eq(out, "abcdefg");
}
END_TEST

Suite *accesslog_suite(void)
{
    Suite *s = suite_create("accesslog");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, test_text);
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_truncates_at_whole_escapes);
    suite_add_tcase(s, tc);
    return s;
}
