/*
 * tests/server/check_auth.c -- server/auth.c and the write-token options of server/config.c: who
 * may write. Loopback is 127.0.0.0/8; without a token the write routes are open on loopback only
 * or with --allow-unauthenticated-writes; the token comes from --write-token-file (first line,
 * trailing newline dropped) before POSENC_TOKEN; tokens compare equal only when every byte and
 * the length match.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/request.h"

START_TEST(test_loopback)
{
    ck_assert_int_eq(srv_bind_is_loopback("127.0.0.1"), 1);
    ck_assert_int_eq(srv_bind_is_loopback("127.255.0.9"), 1);
    ck_assert_int_eq(srv_bind_is_loopback("0.0.0.0"), 0);
    ck_assert_int_eq(srv_bind_is_loopback("10.0.0.1"), 0);
    ck_assert_int_eq(srv_bind_is_loopback("128.0.0.1"), 0);
    ck_assert_int_eq(srv_bind_is_loopback("localhost"), 0); /* not an address: not trusted */
}
END_TEST

static srv_config cfg_of(const char *bind, const char *token, int allow)
{
    srv_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.bind, sizeof c.bind, "%s", bind);
    snprintf(c.write_token, sizeof c.write_token, "%s", token);
    c.allow_unauthenticated_writes = allow;
    return c;
}

START_TEST(test_writes_open)
{
    srv_config c = cfg_of("0.0.0.0", "", 0);
    ck_assert_int_eq(srv_writes_open(&c), 0); /* the rule: refused */
    c = cfg_of("0.0.0.0", "", 1);
    ck_assert_int_eq(srv_writes_open(&c), 1);
    c = cfg_of("0.0.0.0", "s3cret", 0);
    ck_assert_int_eq(srv_writes_open(&c), 1); /* open, each write then needs the token */
    c = cfg_of("127.0.0.1", "", 0);
    ck_assert_int_eq(srv_writes_open(&c), 1);
}
END_TEST

START_TEST(test_token_equal)
{
    ck_assert_int_eq(srv_token_equal("s3cret", 6, "s3cret"), 1);
    ck_assert_int_eq(srv_token_equal("s3cre", 5, "s3cret"), 0);   /* a prefix */
    ck_assert_int_eq(srv_token_equal("s3cretX", 7, "s3cret"), 0); /* longer */
    ck_assert_int_eq(srv_token_equal("s3creT", 6, "s3cret"), 0);
    ck_assert_int_eq(srv_token_equal("", 0, "s3cret"), 0);
}
END_TEST

START_TEST(test_token_sources)
{
    char path[] = "/tmp/posenc-token-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "from-file\n", 10), 10);
    close(fd);
    setenv("POSENC_TOKEN", "from-env", 1);
    srv_config c;
    char *argv1[] = {"posencd", NULL};
    ck_assert_int_eq(srv_config_load(&c, 1, argv1), 0);
    ck_assert_str_eq(c.write_token, "from-env");
    char *argv2[] = {"posencd", "--write-token-file", path, NULL};
    ck_assert_int_eq(srv_config_load(&c, 3, argv2), 0);
    ck_assert_str_eq(c.write_token, "from-file"); /* the file wins, its newline dropped */
    setenv("POSENC_TOKEN", "", 1);
    ck_assert_int_eq(srv_config_load(&c, 1, argv1), 0);
    ck_assert_str_eq(c.write_token, ""); /* empty = none */
    setenv("POSENC_TOKEN", "has space", 1);
    ck_assert_int_eq(srv_config_load(&c, 1, argv1), -1);
    unsetenv("POSENC_TOKEN");
    char *argv3[] = {"posencd", "--write-token-file", "/nonexistent/token", NULL};
    ck_assert_int_eq(srv_config_load(&c, 3, argv3), -1);
    unlink(path);
}
END_TEST

Suite *auth_suite(void)
{
    Suite *s = suite_create("auth");
    TCase *tc = tcase_create("writes");
    tcase_add_test(tc, test_loopback);
    tcase_add_test(tc, test_writes_open);
    tcase_add_test(tc, test_token_equal);
    tcase_add_test(tc, test_token_sources);
    suite_add_tcase(s, tc);
    return s;
}
