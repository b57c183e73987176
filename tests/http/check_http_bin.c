/*
 * tests/http/check_http_bin.c -- integration: binary tensors over a real posencd (issue 16).
 * A multipart POST /rope answers .npz with q_rotated equal to what api_bin computes in this
 * process; the spool shows in /metrics (its peak) and /limits (max_tensor_bytes,
 * spool_quota_bytes); a spool quota held by another request is a 507, one below the tensors
 * alone a 413; multipart to another route is a 415; a missing boundary a 400; a request cut off
 * mid-body gives its spool back at once.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/bin_util.h"
#include "tests/lib/http_util.h"

/* GET /metrics until it holds want (the spool is given back when the connection completes,
 * a moment after the client has the answer): 1 when it did within a second. */
static int metrics_show(const th_server *s, const char *want)
{
    for (int i = 0; i < 100; i++) {
        th_resp r;
        if (th_request(s, "GET", "/metrics", NULL, NULL, 0, 0, &r) == 0 && strstr(r.body, want)) {
            th_resp_free(&r);
            return 1;
        }
        th_resp_free(&r);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

#define CT "multipart/form-data; boundary=" BU_BOUNDARY

/* q and k of shape [shape[0], shape[1], shape[2]] float64, both first + step * i, with params. */
static bu_body make_body(const char *params, const size_t *shape, double first, double step)
{
    double q[64];
    size_t n = shape[0] * shape[1] * shape[2];
    ck_assert_uint_le(n, 64);
    for (size_t i = 0; i < n; i++)
        q[i] = first + step * (double)i;
    bu_body b = {0};
    bu_params(&b, params);
    bu_npy(&b, "q", WIRE_DT_F64, shape, 3, q);
    bu_npy(&b, "k", WIRE_DT_F64, shape, 3, q);
    bu_end(&b);
    return b;
}

/* [2, 2, 4]: q[i] = i - 7.5. */
static bu_body body(void)
{
    static const size_t shape[3] = {2, 2, 4};
    return make_body("{\"rope_theta\": 500000, \"positions\": [3, 9]}", shape, -7.5, 1.0);
}

/* b as a whole raw POST /rope (headers, Connection: close, then the body), malloc'd; its length
 * into *len. */
static char *raw_request(const bu_body *b, size_t *len)
{
    char *raw = malloc(b->len + 256);
    ck_assert_ptr_nonnull(raw);
    int hl = snprintf(raw, 256,
                      "POST /rope HTTP/1.1\r\nHost: t\r\nContent-Type: %s\r\n"
                      "Connection: close\r\nContent-Length: %zu\r\n\r\n",
                      CT, b->len);
    memcpy(raw + hl, b->buf, b->len);
    *len = (size_t)hl + b->len;
    return raw;
}

START_TEST(test_rope_npz_and_spool)
{
    th_server s;
    static const char *const args[] = {NULL};
    ck_assert_int_eq(th_server_start(&s, args), 0);
    bu_body b = body();
    th_resp r;
    ck_assert_int_eq(th_request(&s, "POST", "/rope", CT, b.buf, b.len, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.headers, "application/x-npz"));
    ck_assert_ptr_nonnull(strstr(r.body + 30, "q_rotated.npy")); /* the first local header */
    /* q_rotated of position 3, dims 0 and 2 of head 0 (half layout, pair 0: angle 3 x 1):
     * x0 cos 3 - x2 sin 3 with x0 = -7.5, x2 = -5.5 */
    double v;
    memcpy(&v, r.body + 30 + 13 + 128, 8);
    ck_assert_double_eq(v, -7.5 * cos(3.0) - (-5.5) * sin(3.0));
    /* q and k: 2 x 2 x 4 float64 = 128 data bytes each, spooled as the .npz answer is laid out
     * there (api/bin_answer.c): per member a local header (30 + 13 bytes of name), the .npy
     * header (128), the data (128), a data descriptor (16); then the central directory
     * (2 x (46 + 13)) and its end record (22): 2 x 315 + 118 + 22 = 770 bytes at the peak, the
     * answer's size; none once done */
    ck_assert_uint_eq(r.len, 770);
    th_resp_free(&r);
    ck_assert(metrics_show(&s, "posenc_spool_peak_bytes 770\n"));
    ck_assert(metrics_show(&s, "posenc_spool_bytes 0\n"));
    ck_assert_int_eq(th_request(&s, "GET", "/limits", NULL, NULL, 0, 0, &r), 0);
    ck_assert_ptr_nonnull(strstr(r.body, "\"max_tensor_bytes\":2147483648"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"spool_quota_bytes\":8589934592"));
    th_resp_free(&r);
    ck_assert_int_eq(th_request(&s, "POST", "/alibi", CT, b.buf, b.len, 0, &r), 0);
    ck_assert_int_eq(r.status, 415);
    th_resp_free(&r);
    ck_assert_int_eq(th_request(&s, "POST", "/rope", "multipart/form-data", b.buf, b.len, 0, &r),
                     0);
    ck_assert_int_eq(r.status, 400);
    th_resp_free(&r);
    free(b.buf);
    th_server_stop(&s);
}
END_TEST

START_TEST(test_spool_quota)
{
    th_server s;
    /* 128 KiB + 600 bytes: request A's q of [2048, 8] float64 (one 128 KiB window; its .npz
     * 131,340 bytes) fits; body()'s answer (770 bytes) fits the quota, but not while A holds its
     * window */
    static const char *const args[] = {"--spool-quota", "131672", NULL};
    ck_assert_int_eq(th_server_start(&s, args), 0);
    static const size_t big[2] = {2048, 8};
    double *x = calloc(2048 * 8, sizeof *x);
    ck_assert_ptr_nonnull(x);
    bu_body a = {0};
    bu_params(&a, "{}");
    bu_npy(&a, "q", WIRE_DT_F64, big, 2, x);
    bu_end(&a);
    size_t len;
    char *raw = raw_request(&a, &len);
    size_t held = len - 16; /* all of q's data, not the close delimiter */
    int fd = th_raw_open(&s, raw, held);
    ck_assert_int_ge(fd, 0);
    ck_assert(metrics_show(&s, "posenc_spool_bytes 131072\n"));
    bu_body b = body(); /* 256 bytes of tensors: its answer finds the quota full now */
    th_resp r;
    ck_assert_int_eq(th_request(&s, "POST", "/rope", CT, b.buf, b.len, 0, &r), 0);
    ck_assert_int_eq(r.status, 507);
    ck_assert_ptr_nonnull(strstr(r.body, "insufficient-storage"));
    th_resp_free(&r);
    ck_assert(metrics_show(&s, "posenc_spool_refusals_total 1\n"));
    ck_assert_int_eq(th_raw_finish(fd, raw + held, len - held, &r), 0);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    ck_assert(metrics_show(&s, "posenc_spool_bytes 0\n"));
    th_server_stop(&s);
    /* a quota below the tensors alone can never take them: a 413 at /k (256 data bytes over 200),
     * from k's .npy header, the quota untouched */
    static const char *const small[] = {"--spool-quota", "200", NULL};
    ck_assert_int_eq(th_server_start(&s, small), 0);
    ck_assert_int_eq(th_request(&s, "POST", "/rope", CT, b.buf, b.len, 0, &r), 0);
    ck_assert_int_eq(r.status, 413);
    ck_assert_ptr_nonnull(strstr(r.body, "\"pointer\":\"/k\""));
    ck_assert_ptr_nonnull(strstr(r.body, "spool_quota_bytes"));
    th_resp_free(&r);
    ck_assert(metrics_show(&s, "posenc_spool_refusals_total 0\n"));
    ck_assert(metrics_show(&s, "posenc_spool_bytes 0\n"));
    free(b.buf);
    free(a.buf);
    free(raw);
    free(x);
    th_server_stop(&s);
}
END_TEST

/* A larger request than body(): [4, 2, 8], other values. */
static bu_body body_big(void)
{
    static const size_t shape[3] = {4, 2, 8};
    return make_body("{\"positions\": [1, 2, 5, 7]}", shape, 100.0, 3.25);
}

/* The spool file of a finished request is kept for the next one (server/spool.c): answers are
 * byte for byte those of a fresh daemon's fresh file, whether the file held a smaller or a larger
 * request before (its stale bytes are never sent). */
START_TEST(test_spool_reused)
{
    th_server s, fresh;
    static const char *const args[] = {"--threads", "1", NULL};
    ck_assert_int_eq(th_server_start(&s, args), 0);
    ck_assert_int_eq(th_server_start(&fresh, args), 0);
    bu_body small = body(), big = body_big();
    th_resp r1, r2, ra, rf;
    ck_assert_int_eq(th_request(&fresh, "POST", "/rope", CT, big.buf, big.len, 0, &rf), 0);
    ck_assert_int_eq(rf.status, 200);
    ck_assert_int_eq(th_request(&s, "POST", "/rope", CT, small.buf, small.len, 0, &r1), 0);
    ck_assert_int_eq(r1.status, 200); /* a fresh file */
    ck_assert(metrics_show(&s, "posenc_spool_bytes 0\n"));
    ck_assert_int_eq(th_request(&s, "POST", "/rope", CT, big.buf, big.len, 0, &ra), 0);
    ck_assert_int_eq(ra.status, 200); /* over the smaller request's file */
    ck_assert(metrics_show(&s, "posenc_spool_bytes 0\n"));
    ck_assert_int_eq(th_request(&s, "POST", "/rope", CT, small.buf, small.len, 0, &r2), 0);
    ck_assert_int_eq(r2.status, 200); /* in the larger one's file */
    ck_assert_uint_eq(ra.len, rf.len);
    ck_assert(memcmp(ra.body, rf.body, rf.len) == 0);
    ck_assert_uint_eq(r2.len, r1.len);
    ck_assert(memcmp(r2.body, r1.body, r1.len) == 0);
    th_resp_free(&r1);
    th_resp_free(&r2);
    th_resp_free(&ra);
    th_resp_free(&rf);
    free(small.buf);
    free(big.buf);
    th_server_stop(&s);
    th_server_stop(&fresh);
}
END_TEST

/* Two daemons, one thread each: s sends every binary answer by sendfile (--sendfile-min-bytes
 * 1), r0 reads and sends them (the default). */
static void start_pair(th_server *s, th_server *r0)
{
    static const char *const sf[] = {"--threads", "1", "--sendfile-min-bytes", "1", NULL};
    static const char *const rd[] = {"--threads", "1", NULL};
    ck_assert_int_eq(th_server_start(s, sf), 0);
    ck_assert_int_eq(th_server_start(r0, rd), 0);
}

/* Answers sent from the spool file by sendfile (--sendfile-min-bytes 1: every answer; the file
 * then cut and kept for the next request, server/spool.c) are byte for byte those read and sent
 * (the default), request after request in the same files, smaller and
 * larger, all of the .npz and ?array=k_rotated (a member that starts inside the file). */
START_TEST(test_sendfile)
{
    th_server s, r0;
    start_pair(&s, &r0);
    bu_body small = body(), big = body_big();
    const bu_body *seq[5] = {&small, &big, &small, &big, &big};
    for (int i = 0; i < 5; i++) {
        const char *path = i == 4 ? "/rope?array=k_rotated" : "/rope";
        th_resp a, b;
        ck_assert_int_eq(th_request(&s, "POST", path, CT, seq[i]->buf, seq[i]->len, 0, &a), 0);
        ck_assert_int_eq(th_request(&r0, "POST", path, CT, seq[i]->buf, seq[i]->len, 0, &b), 0);
        ck_assert_int_eq(a.status, 200);
        ck_assert_int_eq(b.status, 200);
        ck_assert_uint_eq(a.len, b.len);
        ck_assert_msg(memcmp(a.body, b.body, a.len) == 0, "request %d", i);
        th_resp_free(&a);
        th_resp_free(&b);
        ck_assert(metrics_show(&s, "posenc_spool_bytes 0\n"));
    }
    free(small.buf);
    free(big.buf);
    th_server_stop(&s);
    th_server_stop(&r0);
}
END_TEST

/* A sent file's pages may still sit in a client's receive queue after its request completed
 * (sendfile hands the socket the page-cache pages themselves): client A sends its request and
 * reads nothing until client B's request (other values, the same layout) went through the same
 * spool file; A's answer is still A's own (before the cut in server/spool.c, A read B's
 * rotated values). */
START_TEST(test_sendfile_pages_kept)
{
    th_server s, r0;
    start_pair(&s, &r0);
    static const size_t shape[3] = {4, 2, 8};
    bu_body a = make_body("{}", shape, 1.0, 0.5), b = make_body("{}", shape, -3.0, 0.25);
    th_resp want, rb;
    ck_assert_int_eq(th_request(&r0, "POST", "/rope", CT, a.buf, a.len, 0, &want), 0);
    ck_assert_int_eq(want.status, 200);
    size_t len;
    char *raw = raw_request(&a, &len);
    int fd = th_raw_open(&s, raw, len);
    ck_assert_int_ge(fd, 0);
    /* A's answer (a few hundred bytes) fits the socket buffers: its request completes unread */
    ck_assert(metrics_show(&s, "posenc_http_requests_total{route=\"rope\",status=\"200\"} 1\n"));
    ck_assert_int_eq(th_request(&s, "POST", "/rope", CT, b.buf, b.len, 0, &rb), 0);
    ck_assert_int_eq(rb.status, 200);
    char got[8192]; /* A's whole response (Connection: close): read to the end */
    size_t n = 0;
    ssize_t k;
    while (n < sizeof got && (k = read(fd, got + n, sizeof got - n)) > 0)
        n += (size_t)k;
    close(fd);
    const char *body_at = NULL; /* the end of the headers */
    for (size_t i = 0; i + 4 <= n && body_at == NULL; i++)
        if (memcmp(got + i, "\r\n\r\n", 4) == 0)
            body_at = got + i;
    ck_assert_ptr_nonnull(body_at);
    ck_assert(strncmp(got, "HTTP/1.1 200", 12) == 0);
    body_at += 4;
    ck_assert_uint_eq(n - (size_t)(body_at - got), want.len);
    ck_assert(memcmp(body_at, want.body, want.len) == 0);
    th_resp_free(&want);
    th_resp_free(&rb);
    free(raw);
    free(a.buf);
    free(b.buf);
    th_server_stop(&s);
    th_server_stop(&r0);
}
END_TEST

/* POST /rope with b and an Accept header, over a raw socket: the status (r filled). */
static long post_accept(const th_server *s, const bu_body *b, const char *accept, th_resp *r)
{
    char head[512];
    int n = snprintf(head, sizeof head,
                     "POST /rope HTTP/1.1\r\nHost: t\r\nContent-Type: %s\r\nAccept: %s\r\n"
                     "Connection: close\r\nContent-Length: %zu\r\n\r\n",
                     CT, accept, b->len);
    int fd = th_raw_open(s, head, (size_t)n);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(th_raw_finish(fd, b->buf, b->len, r), 0);
    return r->status;
}

/* A binary answer is .npz or .npy, never JSON: an Accept that allows neither is a 406
 * not-acceptable (decided at the headers, as POST /model/method refuses an Accept without JSON);
 * one that allows either, or a wildcard, is answered. */
START_TEST(test_accept)
{
    th_server s;
    static const char *const args[] = {NULL};
    ck_assert_int_eq(th_server_start(&s, args), 0);
    bu_body b = body();
    th_resp r;
    const char *refused[] = {"application/json", "text/html, application/x-npz;q=0",
                             "application/*;q=0, application/json"};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(post_accept(&s, &b, refused[i], &r), 406);
        ck_assert_ptr_nonnull(strstr(r.body, "problem:not-acceptable"));
        ck_assert_ptr_nonnull(strstr(r.body, "application/x-npz"));
        th_resp_free(&r);
    }
    const char *taken[] = {"application/x-npz", "application/json, */*;q=0.1", "application/x-npy"};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_msg(post_accept(&s, &b, taken[i], &r) == 200, "%s: %ld", taken[i], r.status);
        th_resp_free(&r);
    }
    /* .npy allowed, .npz not (JSON preferred, but a binary answer has none): .npy, q_rotated */
    ck_assert_int_eq(post_accept(&s, &b, "application/json, application/x-npy;q=0.5", &r), 200);
    ck_assert_ptr_nonnull(strstr(r.headers, "application/x-npy"));
    ck_assert_ptr_null(strstr(r.headers, "application/x-npz"));
    th_resp_free(&r);
    free(b.buf);
    th_server_stop(&s);
}
END_TEST

/* Waits (at most 3 s) until /metrics counts `want` aborted /rope requests. */
static int wait_aborted(const th_server *s, int want)
{
    char done[96];
    snprintf(done, sizeof done, "posenc_http_requests_total{route=\"rope\",status=\"other\"} %d\n",
             want);
    for (int i = 0; i < 150; i++) {
        th_resp r;
        int seen = th_request(s, "GET", "/metrics", NULL, NULL, 0, 0, &r) == 0 &&
                   strstr(r.body, done) != NULL;
        th_resp_free(&r);
        if (seen)
            return 1;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* The breaker's finding of issue 19: a binary request cut off half-way through its body, its bytes
 * and the client's close queued before the daemon reads them (th_raw_abandon), completes (as
 * aborted, counted with status "other") within 3 s, not at --connection-timeout (30 s), and its
 * spool bytes are given back (server/upload.c, CLIENT GONE): with a Content-Length, chunked (one
 * chunk that promises the whole body), and with only the headers sent. */
START_TEST(test_spool_abandoned)
{
    th_server s;
    static const char *const args[] = {NULL};
    ck_assert_int_eq(th_server_start(&s, args), 0);
    bu_body b = body();
    char *raw = malloc(512 + b.len);
    ck_assert_ptr_nonnull(raw);
    static const char head[] = "POST /rope HTTP/1.1\r\nHost: t\r\nContent-Type: %s\r\nAccept: "
                               "application/x-npz\r\n";
    for (int how = 0; how < 3; how++) {
        int n = snprintf(raw, 512, head, CT);
        if (how == 1)
            n += snprintf(raw + n, 512, "Transfer-Encoding: chunked\r\n\r\n%zx\r\n", b.len);
        else
            n += snprintf(raw + n, 512, "Content-Length: %zu\r\n\r\n", b.len);
        size_t sent = how == 2 ? 0 : b.len - 40; /* q whole, k all but its last bytes */
        memcpy(raw + n, b.buf, sent);
        ck_assert_int_eq(th_raw_abandon(&s, raw, (size_t)n + sent), 0);
        ck_assert_msg(wait_aborted(&s, how + 1),
                      "the request cut off mid-body (%s) was still open after 3 s",
                      how == 0   ? "Content-Length"
                      : how == 1 ? "chunked"
                                 : "headers only");
        ck_assert(metrics_show(&s, "posenc_spool_bytes 0\n"));
    }
    free(raw);
    free(b.buf);
    th_server_stop(&s);
}
END_TEST

Suite *http_bin_suite(void)
{
    Suite *s = suite_create("http_bin");
    TCase *tc = tcase_create("bin");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_rope_npz_and_spool);
    tcase_add_test(tc, test_spool_quota);
    tcase_add_test(tc, test_accept);
    tcase_add_test(tc, test_spool_reused);
    tcase_add_test(tc, test_spool_abandoned);
    tcase_add_test(tc, test_sendfile);
    tcase_add_test(tc, test_sendfile_pages_kept);
    suite_add_tcase(s, tc);
    return s;
}
