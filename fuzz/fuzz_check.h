/*
 * fuzz/fuzz_check.h -- what every fuzz harness (fuzz/fuzz_*.c) and the regression replays
 * (tests/api/check_regress_fuzz.c) hold a response to, plus the small limits and the fake learned
 * tables they run with. Header-only (static functions) so that both the clang/libFuzzer build
 * and the libcheck build include the same rules.
 *
 * fz_check_route (below) runs one request three ways -- as api_handle (one buffer), streamed
 * (api_handle_route with stream = 1, read back in pieces of varying size) and as .npy (npy = 1) --
 * and also demands: the streamed body is byte-identical to the buffered one (same status); a 200
 * .npy body is a well-formed NumPy 1.0 file (magic, 64-byte aligned header ending in '\n', descr
 * '<f8' / '<f4' / '<i8', C order, data length = product of the shape x item size), and when the
 * JSON answer was 200 too, its array under out->npy_array holds exactly the .npy's values (nulls
 * = the masked value), in the same shape; a request answered 200 in JSON is answered 200 in .npy.
 * And as .npz (npz = 1): answered 200 exactly when the .npy is (or a 422 at /dtype: with float32
 * an array the .npy does not hold may be out of range); a 200 is a ZIP archive read back
 * from its end record and central directory: stored members laid out one after the other from
 * offset 0 (local header, data, data descriptor), each CRC-32 right (zlib), sizes and names
 * agreeing between the three places, every member "<key>.npy" a well-formed .npy whose values are
 * the JSON answer's array under <key>.
 *
 * Rules for api_handle's output (docs/api.md#conventions, "Errors"):
 * - status is 200, 400 or 422 (a request never gets a 5xx: no 500, and no 503 under these small
 *   limits, where an allocation failure would be a bug);
 * - 200: Content-Type application/json, the body is one JSON object (jansson's parser: no NaN,
 *   no Infinity, no NUL, valid UTF-8), with a `resolved` object, no bigger than
 *   api_max_response_bytes, and holding at most FZ_NUMBER_SLACK x max_output_elements numbers;
 * - 4xx: Content-Type application/problem+json, a JSON object with type "urn:posenc:problem:*",
 *   title, detail (strings) and status equal to the HTTP status; a 422 carries a non-empty
 *   `errors` array whose items have a `pointer` ("" or starting with '/') and a `message`.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "api/api.h"
#include "wire/stream.h"

#define FZ_UNUSED __attribute__((unused))

/* A response may hold the limited output plus its echo (positions, resolved): at most this many
 * times max_output_elements numbers in all. */
#define FZ_NUMBER_SLACK 2

/* Small limits so that every execution is fast (issue 9: "limits in harnesses should be small"). */
static FZ_UNUSED void fz_limits(api_limits *lim)
{
    api_limits_default(lim);
    lim->max_body_bytes = 1u << 20;
    lim->max_table_bytes = 1u << 20;
    lim->max_output_elements = 65536;
    lim->max_dim = 1024;
    lim->max_heads = 64;
    lim->max_positions = 4096;
}

/* ---- fake learned tables: "t" (5 x 8), "gpt2" (64 x 16), "one" (1 x 1) ------------------ */

static double fz_tab_t[5 * 8], fz_tab_gpt2[64 * 16], fz_tab_one[1] = {0.5};
static FZ_UNUSED store_table fz_tables[3] = {
    {5, 8, fz_tab_t}, {64, 16, fz_tab_gpt2}, {1, 1, fz_tab_one}};

static const store_table *fz_acquire(void *self, const char *name)
{
    (void)self;
    if (strcmp(name, "t") == 0)
        return &fz_tables[0];
    if (strcmp(name, "gpt2") == 0)
        return &fz_tables[1];
    if (strcmp(name, "one") == 0)
        return &fz_tables[2];
    return NULL;
}

static void fz_release(void *self, const store_table *t)
{
    (void)self;
    (void)t;
}

static FZ_UNUSED const store_source fz_table_source = {NULL, fz_acquire, fz_release};

/* Fills the fake tables with finite, distinct values (idempotent). */
static FZ_UNUSED void fz_tables_init(void)
{
    for (size_t i = 0; i < 5 * 8; i++)
        fz_tab_t[i] = (double)i * 0.25 - 3.0;
    for (size_t i = 0; i < 64 * 16; i++)
        fz_tab_gpt2[i] = (double)((i * 37) % 101) / 50.0 - 1.0;
}

/* ---- response checks --------------------------------------------------------------------- */

static FZ_UNUSED int fz_fail(char *why, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static FZ_UNUSED int fz_fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Numbers (integers and reals) anywhere in v. */
static FZ_UNUSED size_t fz_count_numbers(const json_t *v)
{
    size_t n = 0;
    if (json_is_number(v))
        return 1;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            n += fz_count_numbers(json_array_get(v, i));
    } else if (json_is_object(v)) {
        const char *k;
        const json_t *x;
        json_object_foreach((json_t *)v, k, x) n += fz_count_numbers(x);
    }
    return n;
}

/*
 * Parses a response body strictly (duplicate keys refused) with posenc's own JSON library. An
 * integral number beyond int64 is refused too ("too big integer"): valid JSON, but unreadable for
 * jansson-based clients (wire/jw.c writes integers only below 1e17 and uses an exponent above).
 */
static FZ_UNUSED json_t *fz_parse(const char *b, size_t len, json_error_t *err)
{
    return json_loadb(b, len, JSON_REJECT_DUPLICATES, err);
}

/* Checks r against the rules above. Returns 0, or -1 with the reason in why[n]. */
static FZ_UNUSED int fz_check_response(const api_response *r, const api_limits *lim, char *why,
                                       size_t n)
{
    if (r->status != 200 && r->status != 400 && r->status != 422)
        return fz_fail(why, n, "status %d (body %.300s)", r->status, r->body ? r->body : "(null)");
    if (r->body == NULL || r->content_type == NULL)
        return fz_fail(why, n, "no body or content type");
    if (strlen(r->body) != r->len)
        return fz_fail(why, n, "len %zu but strlen %zu", r->len, strlen(r->body));
    json_error_t err;
    json_t *j = fz_parse(r->body, r->len, &err);
    if (j == NULL)
        return fz_fail(why, n, "status %d body is not JSON (%s at %d:%d): %.300s", r->status,
                       err.text, err.line, err.column, r->body);
    int rc = 0;
    if (!json_is_object(j)) {
        rc = fz_fail(why, n, "body is not an object");
    } else if (r->status == 200) {
        if (strcmp(r->content_type, "application/json") != 0)
            rc = fz_fail(why, n, "200 with content type %s", r->content_type);
        else if (!json_is_object(json_object_get(j, "resolved")))
            rc = fz_fail(why, n, "200 without a resolved object: %.300s", r->body);
        else if (r->len > api_max_response_bytes(lim))
            rc = fz_fail(why, n, "200 body of %zu bytes", r->len);
        else {
            size_t nums = fz_count_numbers(j);
            if (nums > FZ_NUMBER_SLACK * lim->max_output_elements)
                rc = fz_fail(why, n, "200 with %zu numbers (max_output_elements %zu)", nums,
                             lim->max_output_elements);
        }
    } else {
        const json_t *type = json_object_get(j, "type");
        const json_t *st = json_object_get(j, "status");
        const json_t *errs = json_object_get(j, "errors");
        if (strcmp(r->content_type, "application/problem+json") != 0)
            rc = fz_fail(why, n, "%d with content type %s", r->status, r->content_type);
        else if (!json_is_string(type) ||
                 strncmp(json_string_value(type), "urn:posenc:problem:", 19) != 0 ||
                 !json_is_string(json_object_get(j, "title")) ||
                 !json_is_string(json_object_get(j, "detail")))
            rc = fz_fail(why, n, "problem without type/title/detail: %.300s", r->body);
        else if (!json_is_integer(st) || json_integer_value(st) != r->status)
            rc = fz_fail(why, n, "problem status member differs from %d", r->status);
        else if (r->status == 400 &&
                 strcmp(json_string_value(type), "urn:posenc:problem:malformed-json") != 0)
            rc = fz_fail(why, n, "400 of type %s", json_string_value(type));
        else if (r->status == 422) {
            if (!json_is_array(errs) || json_array_size(errs) == 0)
                rc = fz_fail(why, n, "422 without errors: %.300s", r->body);
            for (size_t i = 0; rc == 0 && i < json_array_size(errs); i++) {
                const json_t *e = json_array_get(errs, i);
                const json_t *p = json_object_get(e, "pointer");
                if (!json_is_string(p) ||
                    (json_string_value(p)[0] != '\0' && json_string_value(p)[0] != '/') ||
                    !json_is_string(json_object_get(e, "message")))
                    rc = fz_fail(why, n, "422 error %zu without a pointer/message: %.300s", i,
                                 r->body);
            }
        }
    }
    json_decref(j);
    return rc;
}

/* ---- the three ways of answering one request ------------------------------------------- */

/* Reads s to the end in pieces of 1 ... 8192 bytes (a fixed pattern from seed), frees it. */
static FZ_UNUSED char *fz_drain(wire_stream *s, unsigned seed, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    static const size_t STEP[] = {1, 7, 8192, 64, 3, 1000, 4096, 2};
    for (unsigned i = seed; b != NULL; i++) {
        if (cap - n < 8192) {
            char *nb = realloc(b, cap * 2 + 1);
            if (nb == NULL) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t k = wire_stream_read(s, b + n, STEP[i % 8]);
        if (k > STEP[i % 8])
            abort();
        if (k == 0)
            break;
        n += k;
    }
    wire_stream_free(s);
    if (b != NULL)
        b[n] = '\0';
    *len = n;
    return b;
}

/* The body of r as one buffer (drains a stream). Returns 0 or -1. */
static FZ_UNUSED int fz_body(api_response *r, unsigned seed)
{
    if (r->stream == NULL)
        return r->body != NULL ? 0 : -1;
    if (r->body != NULL)
        return -1; /* both */
    uint64_t want = wire_stream_size(r->stream);
    r->body = fz_drain(r->stream, seed, &r->len);
    r->stream = NULL;
    if (r->body == NULL)
        return -1;
    return want == WIRE_STREAM_SIZE_UNKNOWN || want == (uint64_t)r->len ? 0 : -1;
}

typedef struct {
    char descr[8];
    size_t shape[WIRE_JW_MAX_DEPTH];
    int ndim;
    size_t count; /* product of the shape */
    const unsigned char *data;
} fz_npy;

/* Parses the .npy 1.0 body b[0..n) strictly. Returns 0 or -1 (why filled). */
static FZ_UNUSED int fz_npy_parse(const char *b, size_t n, fz_npy *o, char *why, size_t wn)
{
    memset(o, 0, sizeof *o);
    if (n < 10 || memcmp(b, "\x93NUMPY\x01\x00", 8) != 0)
        return fz_fail(why, wn, ".npy: bad magic/version");
    size_t hl = (size_t)(unsigned char)b[8] | (size_t)(unsigned char)b[9] << 8;
    if (10 + hl > n || (10 + hl) % 64 != 0 || b[10 + hl - 1] != '\n')
        return fz_fail(why, wn, ".npy: header length %zu not aligned or not ending in newline", hl);
    char h[1024];
    if (hl >= sizeof h)
        return fz_fail(why, wn, ".npy: header of %zu bytes", hl);
    memcpy(h, b + 10, hl);
    h[hl] = '\0';
    const char *d = strstr(h, "'descr': '");
    const char *f = strstr(h, "'fortran_order': False");
    const char *sh = strstr(h, "'shape': (");
    if (d == NULL || f == NULL || sh == NULL || h[0] != '{')
        return fz_fail(why, wn, ".npy: header dict %s", h);
    d += 10;
    if (strncmp(d, "<f8'", 4) != 0 && strncmp(d, "<f4'", 4) != 0 && strncmp(d, "<i8'", 4) != 0)
        return fz_fail(why, wn, ".npy: descr %.8s", d);
    memcpy(o->descr, d, 3);
    sh += 10;
    o->count = 1;
    while (*sh != ')') {
        char *end;
        unsigned long long v = strtoull(sh, &end, 10);
        if (end == sh || o->ndim >= WIRE_JW_MAX_DEPTH)
            return fz_fail(why, wn, ".npy: shape in %s", h);
        o->shape[o->ndim++] = (size_t)v;
        o->count *= (size_t)v;
        sh = end;
        if (*sh == ',')
            sh++;
        while (*sh == ' ')
            sh++;
    }
    if (o->ndim == 1 && strstr(h, ",)") == NULL)
        return fz_fail(why, wn, ".npy: a 1-D shape needs its comma: %s", h);
    size_t item = o->descr[2] == '4' ? 4 : 8;
    if (o->count > (n - 10 - hl) / item || o->count * item != n - 10 - hl)
        return fz_fail(why, wn, ".npy: %zu values of %zu bytes but %zu data bytes", o->count, item,
                       n - 10 - hl);
    o->data = (const unsigned char *)b + 10 + hl;
    return 0;
}

/* Compares the JSON array v (nested to o->ndim levels) with the .npy values from index *k on. */
static FZ_UNUSED int fz_npy_match(const json_t *v, const fz_npy *o, int level, size_t *k,
                                  double masked, char *why, size_t wn)
{
    if (level < o->ndim) {
        if (!json_is_array(v) || json_array_size(v) != o->shape[level])
            return fz_fail(why, wn, ".npy shape differs from the JSON array at level %d", level);
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (fz_npy_match(json_array_get(v, i), o, level + 1, k, masked, why, wn) != 0)
                return -1;
        }
        return 0;
    }
    size_t i = (*k)++;
    if (o->descr[1] == 'i') {
        int64_t x;
        memcpy(&x, o->data + 8 * i, 8);
        if (!json_is_number(v) ||
            (json_is_integer(v) ? json_integer_value(v) != x : json_number_value(v) != (double)x))
            return fz_fail(why, wn, ".npy int %zu = %lld differs from the JSON", i, (long long)x);
        return 0;
    }
    double x;
    if (o->descr[2] == '4') {
        float fl;
        memcpy(&fl, o->data + 4 * i, 4);
        x = fl;
    } else {
        memcpy(&x, o->data + 8 * i, 8);
    }
    double want = json_is_null(v) ? masked : json_number_value(v);
    if (!json_is_null(v) && !json_is_number(v))
        return fz_fail(why, wn, ".npy value %zu: JSON has neither a number nor null", i);
    if (o->descr[2] == '4')
        want = (double)(float)want;
    if (!(x == want || (isinf(x) && isinf(want) && (x > 0) == (want > 0))))
        return fz_fail(why, wn, ".npy value %zu = %.17g, JSON %.17g", i, x, want);
    return 0;
}

static FZ_UNUSED uint64_t fz_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n; i > 0; i--)
        v = (v << 8) | p[i - 1];
    return v;
}

/* The value of masked cells of route key `key` (0 when not listed). */
static FZ_UNUSED double fz_masked(const api_route *route, const char *key)
{
    for (const wire_npy_key *k = route->npy; k->key; k++) {
        if (strcmp(k->key, key) == 0)
            return k->masked;
    }
    return 0.0;
}

/* The .npz answer rz against the JSON answer r0 (NULL when it was not a 200). 0 or -1 (why). */
static FZ_UNUSED int fz_npz_check(const api_response *rz, const api_response *r0,
                                  const api_route *route, char *why, size_t wn)
{
    const unsigned char *b = (const unsigned char *)rz->body;
    size_t n = rz->len;
    if (strcmp(rz->content_type, "application/x-npz") != 0)
        return fz_fail(why, wn, ".npz 200 with content type %s", rz->content_type);
    if (n < 22 || fz_le(b + n - 22, 4) != 0x06054b50u)
        return fz_fail(why, wn, ".npz: no end of central directory record");
    const unsigned char *e = b + n - 22;
    uint64_t entries = fz_le(e + 10, 2), cd_size = fz_le(e + 12, 4), cd_off = fz_le(e + 16, 4);
    if (entries == 0 || fz_le(e + 8, 2) != entries || cd_off + cd_size != n - 22)
        return fz_fail(why, wn, ".npz: end record (%llu entries, directory %llu at %llu)",
                       (unsigned long long)entries, (unsigned long long)cd_size,
                       (unsigned long long)cd_off);
    json_error_t err;
    json_t *j = r0 ? fz_parse(r0->body, r0->len, &err) : NULL;
    int rc = 0;
    const unsigned char *c = b + cd_off, *cend = b + cd_off + cd_size;
    uint64_t next = 0; /* where the next local header must start */
    for (uint64_t i = 0; i < entries && rc == 0; i++) {
        if (c + 46 > cend || fz_le(c, 4) != 0x02014b50u) {
            rc = fz_fail(why, wn, ".npz: central header %llu", (unsigned long long)i);
            break;
        }
        uint64_t crc = fz_le(c + 16, 4), csz = fz_le(c + 20, 4), usz = fz_le(c + 24, 4);
        size_t nl = (size_t)fz_le(c + 28, 2);
        uint64_t off = fz_le(c + 42, 4);
        const unsigned char *l = b + off;
        if (fz_le(c + 8, 2) != 8 || fz_le(c + 10, 2) != 0 || csz != usz || fz_le(c + 30, 2) ||
            fz_le(c + 32, 2) || off != next || c + 46 + nl > cend || nl < 5 || nl > 64 ||
            memcmp(c + 46 + nl - 4, ".npy", 4) != 0) {
            rc = fz_fail(why, wn, ".npz: central header %llu fields", (unsigned long long)i);
            break;
        }
        if (off + 30 + nl > cd_off || fz_le(l, 4) != 0x04034b50u || fz_le(l + 6, 2) != 8 ||
            fz_le(l + 26, 2) != nl || fz_le(l + 28, 2) != 0 || memcmp(l + 30, c + 46, nl) != 0) {
            rc = fz_fail(why, wn, ".npz: local header %llu", (unsigned long long)i);
            break;
        }
        const unsigned char *d = l + 30 + nl;
        if ((uint64_t)(d - b) + usz + 16 > cd_off || fz_le(d + usz, 4) != 0x08074b50u ||
            fz_le(d + usz + 4, 4) != crc || fz_le(d + usz + 8, 4) != usz ||
            fz_le(d + usz + 12, 4) != usz) {
            rc = fz_fail(why, wn, ".npz: data descriptor %llu", (unsigned long long)i);
            break;
        }
        if ((uint64_t)crc32(0L, d, (uInt)usz) != crc) {
            rc = fz_fail(why, wn, ".npz: CRC-32 of member %llu", (unsigned long long)i);
            break;
        }
        char key[64];
        memcpy(key, c + 46, nl - 4);
        key[nl - 4] = '\0';
        fz_npy o;
        rc = fz_npy_parse((const char *)d, (size_t)usz, &o, why, wn);
        if (rc == 0 && j != NULL) {
            const json_t *arr = json_object_get(j, key);
            size_t at = 0;
            if (arr == NULL)
                rc = fz_fail(why, wn, ".npz member %s not in the JSON answer", key);
            else
                rc = fz_npy_match(arr, &o, 0, &at, fz_masked(route, key), why, wn);
        }
        next = (uint64_t)(d - b) + usz + 16;
        c += 46 + nl;
    }
    if (rc == 0 && (next != cd_off || c != cend))
        rc = fz_fail(why, wn, ".npz: members end at %llu, directory at %llu",
                     (unsigned long long)next, (unsigned long long)cd_off);
    json_decref(j);
    return rc;
}

/*
 * Runs body through route three ways and checks everything above. Returns 0, or -1 with why.
 * *status_out (may be NULL) receives the buffered answer's status.
 */
static FZ_UNUSED int fz_check_route(const api_ctx *ctx, const api_route *route, const char *body,
                                    size_t len, char *why, size_t wn, int *status_out)
{
    api_response r0, r1, r2, r3;
    memset(&r3, 0, sizeof r3);
    memset(&r0, 0, sizeof r0);
    memset(&r1, 0, sizeof r1);
    memset(&r2, 0, sizeof r2);
    int rc = 0;
    api_opts o_stream = {.npy = 0, .stream = 1}, o_npy = {.npy = 1, .stream = 1};
    api_opts o_npz = {.npz = 1, .stream = 1};
    api_handle_route(ctx, route, body, len, "fuzz", NULL, &r0);
    if (status_out)
        *status_out = r0.status;
    if (r0.stream != NULL)
        rc = fz_fail(why, wn, "a stream without opts.stream");
    if (rc == 0)
        rc = fz_check_response(&r0, ctx->lim, why, wn);
    if (rc == 0) {
        api_handle_route(ctx, route, body, len, "fuzz", &o_stream, &r1);
        if (fz_body(&r1, (unsigned)len) != 0)
            rc = fz_fail(why, wn, "streamed body unreadable or of the wrong size");
        else if (r1.status != r0.status || r1.len != r0.len ||
                 memcmp(r1.body, r0.body, r0.len) != 0)
            rc = fz_fail(why, wn, "streamed answer (%d, %zu bytes) differs from buffered (%d, %zu)",
                         r1.status, r1.len, r0.status, r0.len);
    }
    if (rc == 0 && route->npy != NULL) {
        api_handle_route(ctx, route, body, len, "fuzz", &o_npy, &r2);
        if (fz_body(&r2, (unsigned)len + 3) != 0) {
            rc = fz_fail(why, wn, ".npy body unreadable or of the wrong size");
        } else if (r2.status != 200) {
            if (r0.status == 200)
                rc = fz_fail(why, wn, "JSON 200 but .npy %d: %.300s", r2.status, r2.body);
            else
                rc = fz_check_response(&r2, ctx->lim, why, wn);
        } else {
            fz_npy o;
            if (strcmp(r2.content_type, "application/x-npy") != 0)
                rc = fz_fail(why, wn, ".npy 200 with content type %s", r2.content_type);
            else
                rc = fz_npy_parse(r2.body, r2.len, &o, why, wn);
            if (rc == 0 && r0.status == 200) {
                json_error_t err;
                json_t *j = fz_parse(r0.body, r0.len, &err);
                const json_t *arr = j && r2.npy_array ? json_object_get(j, r2.npy_array) : NULL;
                double masked = 0.0;
                for (const wire_npy_key *k = route->npy; k->key; k++) {
                    if (r2.npy_array && strcmp(k->key, r2.npy_array) == 0) {
                        masked = k->masked;
                        break;
                    }
                }
                size_t at = 0;
                if (arr == NULL)
                    rc = fz_fail(why, wn, ".npy array key %s not in the JSON answer",
                                 r2.npy_array ? r2.npy_array : "(null)");
                else
                    rc = fz_npy_match(arr, &o, 0, &at, masked, why, wn);
                json_decref(j);
            }
        }
    }
    if (rc == 0 && route->npy != NULL) {
        api_handle_route(ctx, route, body, len, "fuzz", &o_npz, &r3);
        if (fz_body(&r3, (unsigned)len + 5) != 0)
            rc = fz_fail(why, wn, ".npz body unreadable or of the wrong size");
        else if ((r3.status == 200) != (r2.status == 200) &&
                 !(r3.status == 422 && strstr(r3.body, "\"pointer\":\"/dtype\"") != NULL))
            /* float32: .npz also rounds arrays the .npy does not hold, which may overflow */
            rc = fz_fail(why, wn, ".npy %d but .npz %d: %.300s", r2.status, r3.status,
                         r3.status == 200 ? "" : r3.body);
        else if (r3.status == 200)
            rc = fz_npz_check(&r3, r0.status == 200 ? &r0 : NULL, route, why, wn);
        else
            rc = fz_check_response(&r3, ctx->lim, why, wn);
    }
    api_response_free(&r0);
    api_response_free(&r1);
    api_response_free(&r2);
    api_response_free(&r3);
    return rc;
}

#endif
