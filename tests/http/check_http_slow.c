/*
 * tests/http/check_http_slow.c -- integration: the minimum upload rate (server/http.c,
 * --min-upload-rate, --upload-window) against a real posencd started with --min-upload-rate 2000
 * --upload-window 1 (a body must bring 2000 bytes in each second, checked when bytes arrive).
 * - test_trickle: a binary POST /rope (multipart/form-data) declares 5000 bytes, sends 10, waits
 *   1.3 s and sends 1 more: 11 bytes in 1.3 s is below 2000 bytes/s over the 1 s window, so the
 *   daemon answers 408 request-timeout (problem+json naming min_upload_rate, Connection: close) at
 *   that byte instead of waiting for the rest; posenc_slow_uploads_total rises by 1 and the body
 *   budget gauge is back to 0. Before the bound the daemon waited for the body (no answer: the
 *   read timed out).
 * - test_steady: a JSON /rope body sent in two pieces 300 ms apart (inside the first window, the
 *   grace period) → 200.
 * - test_limits: GET /limits says min_upload_rate 2000 and upload_window_seconds 1.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/http_util.h"

static th_server srv;

static void start(void)
{
    static const char *args[] = {
        "--min-upload-rate", "2000", "--upload-window", "1", "--connection-timeout", "10", NULL};
    ck_assert_int_eq(th_server_start(&srv, args), 0);
}

static void stop(void)
{
    th_server_stop(&srv);
}

/* The value of the metric line starting with name in GET /metrics (-1 when absent). */
static long long metric(const char *name)
{
    th_resp r;
    ck_assert_int_eq(th_request(&srv, "GET", "/metrics", NULL, NULL, 0, 0, &r), 0);
    long long v = -1;
    char key[96];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(r.body, key);
    if (p)
        v = strtoll(p + strlen(key), NULL, 10);
    th_resp_free(&r);
    return v;
}

START_TEST(test_trickle)
{
    long long slow0 = metric("posenc_slow_uploads_total");
    ck_assert_int_ge(slow0, 0);
    const char *head = "POST /rope HTTP/1.1\r\nHost: t\r\n"
                       "Content-Type: multipart/form-data; boundary=XyZ\r\n"
                       "Content-Length: 5000\r\n\r\n--XyZ\r\nCont";
    int fd = th_raw_open(&srv, head, strlen(head));
    ck_assert_int_ge(fd, 0);
    usleep(1300 * 1000);
    th_resp r;
    ck_assert_int_eq(th_raw_finish(fd, "e", 1, &r), 0);
    ck_assert_msg(r.status == 408, "status %ld: %s", r.status, r.body);
    ck_assert_ptr_nonnull(strstr(r.headers, "application/problem+json"));
    ck_assert_ptr_nonnull(strcasestr(r.headers, "Connection: close"));
    ck_assert_ptr_nonnull(strstr(r.body, "problem:request-timeout"));
    ck_assert_ptr_nonnull(strstr(r.body, "min_upload_rate (2000 bytes a second over 1 seconds)"));
    th_resp_free(&r);
    ck_assert_int_eq(metric("posenc_slow_uploads_total"), slow0 + 1);
    ck_assert_int_eq(metric("posenc_inflight_body_bytes"), 0);
}
END_TEST

START_TEST(test_steady)
{
    const char *body = "{\"head_dim\":2,\"rope_theta\":10000,\"positions\":[1]}";
    char raw[512];
    int n = snprintf(raw, sizeof raw,
                     "POST /rope HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                     "Connection: close\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    th_resp r;
    ck_assert_int_eq(th_raw_pieces(&srv, raw, (size_t)n, (size_t)n - 10, 300, &r), 0);
    ck_assert_msg(r.status == 200, "status %ld: %s", r.status, r.body);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_limits)
{
    th_resp r;
    ck_assert_int_eq(th_request(&srv, "GET", "/limits", NULL, NULL, 0, 0, &r), 0);
    ck_assert_ptr_nonnull(strstr(r.body, "\"min_upload_rate\":2000,"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"upload_window_seconds\":1,"));
    th_resp_free(&r);
}
END_TEST

Suite *http_slow_suite(void)
{
    Suite *s = suite_create("http_slow");
    TCase *tc = tcase_create("min_upload_rate");
    tcase_add_unchecked_fixture(tc, start, stop);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_trickle);
    tcase_add_test(tc, test_steady);
    tcase_add_test(tc, test_limits);
    suite_add_tcase(s, tc);
    return s;
}
