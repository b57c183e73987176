/*
 * fuzz/fuzz_multipart.c -- libFuzzer harness for binary requests (issue 16): the multipart reader
 * (wire/multipart.h) and the binary /rope behind it (api/bin.h: params, .npy headers, shapes,
 * positions, the windows rotated into a spool, the .npz / .npy answer).
 * Input: a multipart/form-data body with boundary "fz"; its first byte picks the feeding pattern
 * (pieces of 1 + byte % 97 bytes) and, by its top bit, .npy instead of .npz.
 * Checks:
 * - wire: the parts (names, content types, data) and the verdict are the same fed in one piece
 *   and in pieces; a part's data never holds the delimiter; every failure has a detail;
 * - api: the answer is a 200 (application/x-npz or x-npy, its body the stream's announced size),
 *   or a problem of status 400, 413, 415 or 422 (no quota, no budget here: never 5xx) whose body
 *   is JSON; the same body fed in pieces answers the same status and the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/bin.h"
#include "core/cache.h"
#include "fuzz/fuzz_check.h"
#include "wire/multipart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REC_MAX 8192

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz check failed: %s %s\n", what, detail ? detail : "");
    abort();
}

/* What the reader reported, flattened: "B<name>|<type>\n", "D<n>:<bytes>", "E\n". */
typedef struct {
    char buf[REC_MAX];
    size_t n;
    int over;
} rec;

static void put(rec *r, const void *p, size_t n)
{
    if (r->n + n > sizeof r->buf) {
        r->over = 1;
        return;
    }
    memcpy(r->buf + r->n, p, n);
    r->n += n;
}

static int on_begin(void *cls, const char *name, const char *ct)
{
    rec *r = cls;
    put(r, "B", 1);
    put(r, name, strlen(name));
    put(r, "|", 1);
    put(r, ct, strlen(ct));
    put(r, "\n", 1);
    return 0;
}

static int on_data(void *cls, const unsigned char *b, size_t n)
{
    if (n == 0)
        die("empty data callback", NULL);
    put(cls, b, n); /* pieces are concatenated: the split must not show */
    return 0;
}

static int on_end(void *cls)
{
    put(cls, "E\n", 2);
    return 0;
}

static const wire_mp_cb CB = {on_begin, on_data, on_end};

static int read_all(const uint8_t *d, size_t n, size_t piece, rec *r, wire_mp *m)
{
    wire_mp_init(m, "fz", &CB, r);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i += piece)
        rc = wire_mp_feed(m, d + i, n - i < piece ? n - i : piece);
    if (rc == 0)
        rc = wire_mp_finish(m);
    if (rc < 0 && (m->err.status == WIRE_OK || m->err.detail[0] == '\0'))
        die("failure without a detail", NULL);
    return rc;
}

static api_limits lim;
static api_ctx ctx;
static FILE *spool;

/* One binary request over the body, fed in pieces; returns its answer (body drained). */
static api_response run_bin(const uint8_t *d, size_t n, size_t piece, int npy)
{
    if (ftruncate(fileno(spool), 0) != 0)
        die("ftruncate", NULL);
    api_spool sp = {fileno(spool), NULL, NULL, NULL, 0};
    api_bin *b = api_bin_new(&ctx, &api_route_rope, "fz", &sp, NULL, NULL);
    if (b == NULL)
        die("api_bin_new", NULL);
    for (size_t i = 0; i < n; i += piece)
        api_bin_feed(b, d + i, n - i < piece ? n - i : piece);
    api_opts o = {.npy = npy, .npz = !npy, .stream = 0};
    api_response r;
    api_bin_run(b, &o, "fuzz", &r);
    api_bin_free(b);
    return r;
}

static void check_answer(const api_response *r)
{
    if (r->status == 200) {
        if (r->body == NULL || r->content_type == NULL ||
            (strcmp(r->content_type, "application/x-npz") != 0 &&
             strcmp(r->content_type, "application/x-npy") != 0))
            die("200 without a binary body", NULL);
        return;
    }
    if (r->status != 400 && r->status != 413 && r->status != 415 && r->status != 422)
        die("status not 200/400/413/415/422:", r->body);
    json_error_t err;
    json_t *j = json_loadb(r->body, r->len, 0, &err);
    if (j == NULL || !json_is_object(j))
        die("problem body is not a JSON object:", r->body);
    json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ctx.cache == NULL) {
        fz_limits(&lim);
        lim.max_tensor_bytes = 1u << 20;
        ctx.lim = &lim;
        ctx.cache = pe_cache_create(1u << 22, 1024);
        spool = tmpfile();
        if (ctx.cache == NULL || spool == NULL)
            die("setup", NULL);
    }
    if (size < 1)
        return 0;
    size_t piece = 1 + data[0] % 97;
    int npy = data[0] >> 7;
    const uint8_t *body = data + 1;
    size_t n = size - 1;

    static rec whole, split;
    wire_mp m1, m2;
    memset(&whole, 0, sizeof whole);
    memset(&split, 0, sizeof split);
    int rc1 = read_all(body, n, n ? n : 1, &whole, &m1);
    int rc2 = read_all(body, n, piece, &split, &m2);
    if (rc1 != rc2)
        die("verdict depends on the pieces", NULL);
    for (size_t i = 0; i + 6 <= whole.n; i++)
        if (memcmp(whole.buf + i, "\r\n--fz", 6) == 0)
            die("a part's data holds the delimiter", NULL);
    if (!whole.over && !split.over &&
        (whole.n != split.n || memcmp(whole.buf, split.buf, whole.n) != 0))
        die("parts depend on the pieces", NULL);

    api_response a = run_bin(body, n, n ? n : 1, npy);
    check_answer(&a);
    api_response b = run_bin(body, n, piece, npy);
    if (a.status != b.status)
        die("status depends on the pieces", a.body);
    if (a.status == 200 && (a.len != b.len || memcmp(a.body, b.body, a.len) != 0))
        die("answer depends on the pieces", NULL);
    api_response_free(&a);
    api_response_free(&b);
    return 0;
}
