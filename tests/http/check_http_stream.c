/*
 * tests/http/check_http_stream.c -- integration: streamed responses over a real posencd (issue 8).
 *
 * test_no_stall: a 4096 x 1024 /sinusoidal (82 MB of JSON) is requested by a client that does not
 * read; at the same moment and while it stays unread, 2 x 16 /healthz requests on fresh
 * connections (the daemon runs 2 epoll workers, so some of them share the big response's worker)
 * must each be answered within STALL_MS. A daemon that formatted the whole body before sending it
 * (~0.4 s of work here) would hold its worker that long. Then the big body is read to the end:
 * chunked, and byte-identical to what api_handle writes for the same request in this process.
 * test_npy_headers: Accept: application/x-npy gives Content-Type application/x-npy, a
 * Content-Length of header + 8 bytes per number, X-Posenc-Array and Vary: Accept.
 * test_npz_headers: Accept: application/x-npz with ?array=matrix gives Content-Type
 * application/x-npz, Content-Disposition sinusoidal.npz and the archive's exact Content-Length
 * (wire/npz.h: local header 30 + name, the .npy, descriptor 16, central 46 + name, end 22);
 * ?array=nope is a 422 (the query parameter reaches the API, never ignored).
 * Bounded time: every socket operation has a deadline; the whole suite takes about 2 s.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "core/cache.h"
#include "tests/lib/http_util.h"

#define STALL_MS 200.0

static th_server srv;

static void start(void)
{
    /* 4096 x 1024 numbers plus the 4096 echoed positions exceed the default max_output_elements */
    static const char *const args[] = {"--threads", "2", "--max-output-elements", "8388608", NULL};
    ck_assert_int_eq(th_server_start(&srv, args), 0);
}

static void stop(void)
{
    th_server_stop(&srv);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int connect_to(unsigned port, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static void send_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
        ck_assert_int_gt(k, 0);
        s += k;
        n -= (size_t)k;
    }
}

/* Reads until EOF (the requests say Connection: close) or the deadline; returns the bytes. */
static char *read_all(int fd, double deadline_ms, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    ck_assert_ptr_nonnull(b);
    for (;;) {
        double left = deadline_ms - now_ms();
        ck_assert_msg(left > 0, "read deadline passed after %zu bytes", n);
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, (int)left + 1);
        if (r == 0)
            continue;
        if (cap - n < 65536) {
            cap *= 2;
            b = realloc(b, cap);
            ck_assert_ptr_nonnull(b);
        }
        ssize_t k = recv(fd, b + n, cap - n - 1, 0);
        if (k < 0 && errno == EINTR)
            continue;
        ck_assert_int_ge(k, 0);
        if (k == 0)
            break;
        n += (size_t)k;
    }
    b[n] = '\0';
    *len = n;
    return b;
}

/* One GET /healthz on a fresh connection; returns its wall time in ms. */
static double healthz_ms(void)
{
    double t0 = now_ms();
    int fd = connect_to(srv.port, 0);
    const char *req = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    send_all(fd, req, strlen(req));
    size_t n;
    char *b = read_all(fd, t0 + 5000, &n);
    close(fd);
    double dt = now_ms() - t0;
    ck_assert_msg(strncmp(b, "HTTP/1.1 200", 12) == 0, "healthz: %s", b);
    ck_assert_ptr_nonnull(strstr(b, "{\"status\":\"ok\"}"));
    free(b);
    return dt;
}

/* Case-insensitive search for needle in the headers h (strcasestr is a GNU extension). */
static const char *find_ci(const char *h, const char *needle)
{
    size_t n = strlen(needle);
    for (; *h; h++) {
        if (strncasecmp(h, needle, n) == 0)
            return h;
    }
    return NULL;
}

/* Decodes a chunked body in place; returns its length. */
static size_t dechunk(char *b, size_t n)
{
    size_t in = 0, out = 0;
    for (;;) {
        char *end = NULL;
        unsigned long sz = strtoul(b + in, &end, 16);
        ck_assert_ptr_nonnull(end);
        char *crlf = strstr(end, "\r\n");
        ck_assert_ptr_nonnull(crlf);
        in = (size_t)(crlf - b) + 2;
        if (sz == 0)
            break;
        ck_assert_uint_le(in + sz + 2, n);
        memmove(b + out, b + in, sz);
        out += sz;
        in += sz + 2;
    }
    return out;
}

static const char BIG[] = "{\"d_model\": 1024, \"seq_len\": 4096}";

START_TEST(test_no_stall)
{
    char req[512];
    int n = snprintf(req, sizeof req,
                     "POST /sinusoidal HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     strlen(BIG), BIG);
    int big = connect_to(srv.port, 8192); /* a slow reader: small window, not read for now */
    send_all(big, req, (size_t)n);
    double worst = 0.0;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 16; i++) {
            double dt = healthz_ms();
            if (dt > worst)
                worst = dt;
        }
        struct timespec ts = {0, 100 * 1000 * 1000}; /* the big response is parked meanwhile */
        nanosleep(&ts, NULL);
    }
    ck_assert_msg(worst < STALL_MS, "a /healthz took %.1f ms while /sinusoidal streamed", worst);

    size_t len;
    char *b = read_all(big, now_ms() + 20000, &len);
    close(big);
    char *body = strstr(b, "\r\n\r\n");
    ck_assert_ptr_nonnull(body);
    *body = '\0';
    ck_assert_msg(strncmp(b, "HTTP/1.1 200", 12) == 0, "%s", b);
    ck_assert_msg(find_ci(b, "Transfer-Encoding: chunked") != NULL, "not chunked: %s", b);
    body += 4;
    size_t blen = dechunk(body, len - (size_t)(body - b));

    /* the same request in this process, buffered */
    api_limits lim;
    api_limits_default(&lim);
    lim.max_output_elements = 8388608;
    pe_cache *cache = pe_cache_create((size_t)1 << 20, 64);
    api_ctx ctx = {&lim, cache, NULL};
    api_response ar;
    api_handle(&ctx, api_sinusoidal, BIG, strlen(BIG), "t", &ar);
    ck_assert_int_eq(ar.status, 200);
    ck_assert_uint_eq(blen, ar.len);
    ck_assert_msg(memcmp(body, ar.body, blen) == 0, "streamed body differs from api_handle's");
    api_response_free(&ar);
    pe_cache_destroy(cache);
    free(b);
}
END_TEST

/* POSTs json to path with Accept: accept (Connection: close); returns the whole response, its
 * headers NUL-terminated, *body at the body and *blen its length. */
static char *post_raw(const char *path, const char *accept, const char *json, char **body,
                      size_t *blen)
{
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Accept: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     path, accept, strlen(json), json);
    int fd = connect_to(srv.port, 0);
    send_all(fd, req, (size_t)n);
    size_t len;
    char *b = read_all(fd, now_ms() + 5000, &len);
    close(fd);
    char *p = strstr(b, "\r\n\r\n");
    ck_assert_ptr_nonnull(p);
    *p = '\0';
    *body = p + 4;
    *blen = len - (size_t)(*body - b);
    return b;
}

START_TEST(test_npy_headers)
{
    const char *json = "{\"d_model\": 64, \"seq_len\": 1000}";
    char *body;
    size_t blen;
    char *b = post_raw("/sinusoidal", "application/x-npy", json, &body, &blen);
    ck_assert_msg(strncmp(b, "HTTP/1.1 200", 12) == 0, "%s", b);
    ck_assert_ptr_nonnull(find_ci(b, "Content-Type: application/x-npy"));
    ck_assert_ptr_nonnull(find_ci(b, "X-Posenc-Array: matrix"));
    ck_assert_ptr_nonnull(find_ci(b, "Vary: Accept"));
    /* 128-byte header (1000, 64) + 64000 float64 */
    size_t want = 128 + 1000 * 64 * 8;
    char cl[64];
    snprintf(cl, sizeof cl, "Content-Length: %zu", want);
    ck_assert_msg(find_ci(b, cl) != NULL, "no %s in %s", cl, b);
    ck_assert_uint_eq(blen, want);
    ck_assert(memcmp(body, "\x93NUMPY\x01\x00", 8) == 0);
    free(b);
}
END_TEST

START_TEST(test_npz_headers)
{
    const char *json = "{\"d_model\": 64, \"seq_len\": 1000}";
    char *body;
    size_t blen;
    char *b = post_raw("/sinusoidal?array=matrix", "application/x-npz", json, &body, &blen);
    ck_assert_msg(strncmp(b, "HTTP/1.1 200", 12) == 0, "%s", b);
    ck_assert_ptr_nonnull(find_ci(b, "Content-Type: application/x-npz"));
    ck_assert_ptr_nonnull(
        find_ci(b, "Content-Disposition: attachment; filename=\"sinusoidal.npz\""));
    ck_assert_ptr_nonnull(find_ci(b, "Vary: Accept"));
    /* "matrix.npy" (10 bytes): 30 + 10, the .npy 128 + 512000, 16, 46 + 10, 22 */
    size_t want = 40 + 128 + 1000 * 64 * 8 + 16 + 56 + 22;
    char cl[64];
    snprintf(cl, sizeof cl, "Content-Length: %zu", want);
    ck_assert_msg(find_ci(b, cl) != NULL, "no %s in %s", cl, b);
    ck_assert_uint_eq(blen, want);
    ck_assert(memcmp(body, "PK\x03\x04", 4) == 0);
    ck_assert(memcmp(body + 40, "\x93NUMPY\x01\x00", 8) == 0);
    free(b);
    b = post_raw("/sinusoidal?array=nope", "application/x-npz", json, &body, &blen);
    ck_assert_msg(strncmp(b, "HTTP/1.1 422", 12) == 0, "%s", b);
    ck_assert_ptr_nonnull(strstr(body, "query parameter array"));
    free(b);
}
END_TEST

Suite *http_stream_suite(void)
{
    Suite *s = suite_create("http_stream");
    TCase *tc = tcase_create("live");
    tcase_add_unchecked_fixture(tc, start, stop);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_no_stall);
    tcase_add_test(tc, test_npy_headers);
    tcase_add_test(tc, test_npz_headers);
    suite_add_tcase(s, tc);
    return s;
}
