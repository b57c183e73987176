/*
 * tests/http/check_encoding.c -- a request body is read only as it is sent: a body labelled with a
 * Content-Encoding posencd does not decode (gzip, br) is a 415 from the headers, on a compute POST
 * and on a table upload. Before, a plain body labelled gzip was answered 200 and a real gzip body
 * 400 malformed-json: the label was ignored.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "tests/lib/http_util.h"

static th_server srv;

static void start(void)
{
    ck_assert_int_eq(th_server_start(&srv, NULL), 0);
}

static void stop(void)
{
    th_server_stop(&srv);
}

/* Sends raw as one piece and returns the status (the body is freed). */
static long send_raw(const char *raw, char *body_out, size_t n)
{
    th_resp r;
    ck_assert_int_eq(th_raw_pieces(&srv, raw, strlen(raw), strlen(raw), 0, &r), 0);
    long st = r.status;
    if (body_out)
        snprintf(body_out, n, "%s", r.body ? r.body : "");
    th_resp_free(&r);
    return st;
}

START_TEST(test_encoded_bodies_refused)
{
    static const char body[] = "{\"d_model\":4,\"positions\":[1]}";
    char raw[512], got[512];
    snprintf(raw, sizeof raw,
             "POST /sinusoidal HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Encoding: gzip\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
             strlen(body), body);
    ck_assert_int_eq(send_raw(raw, got, sizeof got), 415);
    ck_assert_msg(strstr(got, "Content-Encoding is not supported") != NULL, "%s", got);
    snprintf(raw, sizeof raw,
             "PUT /tables/enc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Encoding: br\r\nContent-Length: 16\r\nConnection: close\r\n\r\n"
             "{\"data\":[[1.0]]}");
    ck_assert_int_eq(send_raw(raw, got, sizeof got), 415);
    /* identity is no coding at all */
    snprintf(raw, sizeof raw,
             "POST /sinusoidal HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Encoding: identity\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
             strlen(body), body);
    ck_assert_int_eq(send_raw(raw, NULL, 0), 200);
}
END_TEST

Suite *encoding_suite(void)
{
    Suite *s = suite_create("encoding");
    TCase *tc = tcase_create("live");
    tcase_add_unchecked_fixture(tc, start, stop);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_encoded_bodies_refused);
    suite_add_tcase(s, tc);
    return s;
}
