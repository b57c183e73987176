/*
 * tests/http/check_static.c -- precompressed static files (server/static.c): the copy next to a
 * file (x.js.br, x.js.gz) is chosen by Accept-Encoding (server/negotiate.h) and sent as stored,
 * with Content-Encoding, Vary: Accept-Encoding and the copy's Content-Length; a copy older than its
 * file, or not smaller, is never sent. The web dir is made here: a 2,000-byte app.js with stand-in
 * copies of 80 (br) and 100 (gz) bytes whose first bytes say which one arrived.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/http_util.h"

static th_server srv;
static char dir[64];

static void put(const char *name, char fill, size_t n, const char *head)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (size_t i = 0; i < n; i++)
        fputc(i < strlen(head) ? head[i] : fill, f);
    fclose(f);
}

/* Sets name's mtime to `sec` seconds after the epoch (older or newer than its copies). */
static void age(const char *name, long sec)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct timespec ts[2] = {{sec, 0}, {sec, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void start(void)
{
    snprintf(dir, sizeof dir, "/tmp/posenc-static-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    put("app.js", 'a', 2000, "ID");
    put("app.js.br", 'b', 80, "BR");
    put("app.js.gz", 'g', 100, "GZ");
    age("app.js", 1000000000);
    age("app.js.br", 1000000100);
    age("app.js.gz", 1000000100);
    put("stale.css", 'c', 2000, "ID"); /* edited after its copy was made */
    put("stale.css.gz", 'g', 100, "GZ");
    age("stale.css.gz", 1000000000);
    age("stale.css", 1000000100);
    put("tiny.txt", 't', 10, "ID"); /* the copy is no smaller */
    put("tiny.txt.gz", 'g', 30, "GZ");
    age("tiny.txt", 1000000000);
    age("tiny.txt.gz", 1000000100);
    const char *const args[] = {"--web-dir", dir, NULL};
    ck_assert_int_eq(th_server_start(&srv, args), 0);
}

static void stop(void)
{
    th_server_stop(&srv);
    const char *names[] = {"app.js",       "app.js.br", "app.js.gz",  "stale.css",
                           "stale.css.gz", "tiny.txt",  "tiny.txt.gz"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* The value of header `name` in raw headers h (case-insensitive name), into out; "" when absent. */
static const char *header(const char *h, const char *name, char *out, size_t n)
{
    out[0] = '\0';
    size_t k = strlen(name);
    for (const char *p = h; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncasecmp(p, name, k) == 0 && p[k] == ':') {
            const char *v = p + k + 1;
            while (*v == ' ')
                v++;
            size_t m = strcspn(v, "\r\n");
            if (m >= n)
                m = n - 1;
            memcpy(out, v, m);
            out[m] = '\0';
            break;
        }
    }
    return out;
}

/* GET (or HEAD) path with Accept-Encoding ae (NULL: no such header); checks the status is 200. */
static void get(const char *method, const char *path, const char *ae, th_resp *r)
{
    char raw[512];
    int n = snprintf(raw, sizeof raw,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%sConnection: close\r\n\r\n", method,
                     path, ae ? "Accept-Encoding: " : "", ae ? ae : "", ae ? "\r\n" : "");
    ck_assert_int_eq(th_raw_pieces(&srv, raw, (size_t)n, (size_t)n, 0, r), 0);
    ck_assert_int_eq(r->status, 200);
}

/* One request's expectations: which body ("ID", "BR", "GZ"), its length and Content-Encoding. */
static void expect(const char *path, const char *ae, const char *which, const char *len,
                   const char *ce)
{
    th_resp r;
    char v[128];
    get("GET", path, ae, &r);
    ck_assert_msg(r.len >= 2 && memcmp(r.body, which, 2) == 0,
                  "%s with Accept-Encoding %s: got %.2s, want %s", path, ae ? ae : "(none)", r.body,
                  which);
    ck_assert_str_eq(header(r.headers, "Content-Length", v, sizeof v), len);
    ck_assert_uint_eq(r.len, strtoul(len, NULL, 10));
    ck_assert_str_eq(header(r.headers, "Content-Encoding", v, sizeof v), ce);
    ck_assert_str_eq(header(r.headers, "Vary", v, sizeof v), "Accept-Encoding");
    th_resp_free(&r);
}

START_TEST(test_negotiated_copies)
{
    expect("/app.js", NULL, "ID", "2000", "");
    expect("/app.js", "", "ID", "2000", "");
    expect("/app.js", "gzip, deflate, br, zstd", "BR", "80", "br"); /* Chromium's header */
    expect("/app.js", "gzip", "GZ", "100", "gzip");
    expect("/app.js", "gzip;q=1, br;q=0.5", "GZ", "100", "gzip");
    expect("/app.js", "br;q=0, gzip", "GZ", "100", "gzip");
    expect("/app.js", "br;q=0, gzip;q=0", "ID", "2000", "");
    expect("/app.js", "identity", "ID", "2000", "");
    expect("/app.js", "identity;q=0.5, br;q=0.4", "ID", "2000", "");
    expect("/app.js", "*;q=0", "ID", "2000", ""); /* nothing acceptable: sent without a coding */
    expect("/app.js", "*", "BR", "80", "br");
    /* the content type is the file's, not the copy's */
    th_resp r;
    char v[128];
    get("GET", "/app.js", "br", &r);
    ck_assert_str_eq(header(r.headers, "Content-Type", v, sizeof v),
                     "text/javascript; charset=utf-8");
    th_resp_free(&r);
}
END_TEST

START_TEST(test_stale_and_useless_copies)
{
    expect("/stale.css", "gzip, br", "ID", "2000", "");
    expect("/tiny.txt", "gzip, br", "ID", "10", "");
}
END_TEST

START_TEST(test_head)
{
    th_resp r;
    char v[128];
    get("HEAD", "/app.js", "gzip, br", &r);
    ck_assert_uint_eq(r.len, 0);
    ck_assert_str_eq(header(r.headers, "Content-Length", v, sizeof v), "80");
    ck_assert_str_eq(header(r.headers, "Content-Encoding", v, sizeof v), "br");
    th_resp_free(&r);
}
END_TEST

Suite *static_suite(void)
{
    Suite *s = suite_create("static");
    TCase *tc = tcase_create("live");
    tcase_add_unchecked_fixture(tc, start, stop);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_negotiated_copies);
    tcase_add_test(tc, test_stale_and_useless_copies);
    tcase_add_test(tc, test_head);
    suite_add_tcase(s, tc);
    return s;
}
