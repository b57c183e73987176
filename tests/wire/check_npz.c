/*
 * tests/wire/check_npz.c -- .npz bodies (wire/npz.h) and the choice of arrays (api_opts.array).
 *  - One member "a" holding the 9 bytes "123456789": the whole archive, byte for byte, written out
 *    below field by field from PKWARE's APPNOTE (the CRC-32 of "123456789" is 0xCBF43926, the
 *    published check value of the ZIP/zlib polynomial), read whole and 1 byte at a time.
 *  - The same member with ZIP64 forced: every length and the fields that mark ZIP64.
 *  - Laid out by the caller (wire_npz_add_laid, as api/bin_answer.c lays an answer out in its
 *    spool file): the pieces, written where they go in any order, are the stream's bytes.
 *  - numpy: tests/wire/npz_numpy.py loads archives written here with one numpy.load call each
 *    (a /rope answer as float64 and float32 against its JSON answer, exact; a forced-ZIP64
 *    archive of two arrays) and checks every CRC with zipfile.testzip.
 *  - ?array=: an unknown name, a name absent from the answer, several names for .npy and a choice
 *    for a JSON answer are 422s; a chosen .npy array is the array of the JSON answer.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "tests/lib/api_util.h"
#include "wire/npz.h"

/* A stream of a fixed byte string (wire_stream_custom). */
typedef struct {
    const char *s;
    size_t len, pos;
} fixed;

static size_t fixed_read(void *self, char *buf, size_t max)
{
    fixed *f = self;
    size_t k = f->len - f->pos < max ? f->len - f->pos : max;
    memcpy(buf, f->s + f->pos, k);
    f->pos += k;
    return k;
}

static wire_stream *fixed_stream(fixed *f, const char *s)
{
    f->s = s;
    f->len = strlen(s);
    f->pos = 0;
    wire_stream_src src = {.read = fixed_read, .self = f, .size = f->len};
    wire_stream *st = wire_stream_custom(&src);
    ck_assert_ptr_nonnull(st);
    return st;
}

/* Reads s to its end, `piece` bytes at a time, into a malloc'd buffer; frees s. */
static unsigned char *read_all(wire_stream *s, size_t piece, size_t *len)
{
    size_t cap = 1 << 12, n = 0;
    unsigned char *b = malloc(cap);
    for (;;) {
        if (cap - n < piece) {
            cap = 2 * cap + piece;
            b = realloc(b, cap);
        }
        ck_assert_ptr_nonnull(b);
        size_t k = wire_stream_read(s, (char *)b + n, piece);
        if (k == 0)
            break;
        n += k;
    }
    ck_assert(!wire_stream_failed(s));
    wire_stream_free(s);
    *len = n;
    return b;
}

static wire_stream *one_member(fixed *f, int force64)
{
    wire_npz *z = wire_npz_new(force64);
    ck_assert_ptr_nonnull(z);
    wire_err e;
    wire_err_init(&e);
    ck_assert_int_eq(wire_npz_add(z, "a", fixed_stream(f, "123456789"), &e), 0);
    wire_stream *s = wire_npz_stream(z, &e);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* The archive of member "a" = "123456789", derived by hand (little-endian fields). */
static const unsigned char EXPECT[] = {
    /* 0: local file header (30 + 1 bytes) */
    0x50, 0x4B, 0x03, 0x04, /* signature PK\3\4 */
    0x14, 0x00,             /* version needed 2.0 */
    0x08, 0x00,             /* flags: bit 3, sizes and CRC in the data descriptor */
    0x00, 0x00,             /* method 0: stored */
    0x00, 0x00, 0x21, 0x00, /* time 00:00:00, date 1980-01-01 ((0 << 9) | (1 << 5) | 1) */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* CRC, compressed and uncompressed size: 0 (bit 3) */
    0x01, 0x00,                         /* name length 1 */
    0x00, 0x00,                         /* extra length 0 */
    'a',
    /* 31: the data, 9 bytes */
    '1', '2', '3', '4', '5', '6', '7', '8', '9',
    /* 40: data descriptor (16 bytes) */
    0x50, 0x4B, 0x07, 0x08, /* signature PK\7\10 */
    0x26, 0x39, 0xF4, 0xCB, /* CRC-32 0xCBF43926 */
    0x09, 0x00, 0x00, 0x00, /* compressed size 9 */
    0x09, 0x00, 0x00, 0x00, /* uncompressed size 9 */
    /* 56: central directory header (46 + 1 bytes) */
    0x50, 0x4B, 0x01, 0x02,                         /* signature PK\1\2 */
    0x2D, 0x00,                                     /* made by 4.5 (MS-DOS) */
    0x14, 0x00,                                     /* version needed 2.0 */
    0x08, 0x00, 0x00, 0x00,                         /* flags bit 3; stored */
    0x00, 0x00, 0x21, 0x00,                         /* time, date */
    0x26, 0x39, 0xF4, 0xCB,                         /* CRC-32 */
    0x09, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, /* sizes 9, 9 */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00,             /* name 1, extra 0, comment 0 */
    0x00, 0x00, 0x00, 0x00,                         /* disk 0, internal attributes 0 */
    0x00, 0x00, 0x00, 0x00,                         /* external attributes 0 */
    0x00, 0x00, 0x00, 0x00,                         /* local header at offset 0 */
    'a',
    /* 103: end of central directory (22 bytes) */
    0x50, 0x4B, 0x05, 0x06, /* signature PK\5\6 */
    0x00, 0x00, 0x00, 0x00, /* disk 0, directory's disk 0 */
    0x01, 0x00, 0x01, 0x00, /* 1 entry on this disk, 1 in all */
    0x2F, 0x00, 0x00, 0x00, /* directory size 47 */
    0x38, 0x00, 0x00, 0x00, /* directory offset 56 */
    0x00, 0x00,             /* comment length 0 */
};

START_TEST(npz_byte_exact)
{
    static const size_t pieces[] = {1 << 16, 7, 1};
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
        fixed f;
        wire_stream *s = one_member(&f, 0);
        ck_assert_uint_eq(wire_stream_size(s), sizeof EXPECT);
        size_t len = 0;
        unsigned char *b = read_all(s, pieces[i], &len);
        ck_assert_uint_eq(len, sizeof EXPECT);
        ck_assert_mem_eq(b, EXPECT, sizeof EXPECT);
        free(b);
    }
}
END_TEST

static uint64_t le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i > 0; i--)
        v = (v << 8) | p[i - 1];
    return v;
}

/* Forced ZIP64: local 31 + 20 (extra 0x0001 with two zero sizes), data 9, descriptor 24 (8-byte
 * sizes), central 47 + 28 (extra: sizes 9, 9 and offset 0), ZIP64 end record 56, locator 20,
 * end record 22 with 0xFFFF / 0xFFFFFFFF marks: 257 bytes. */
START_TEST(npz_zip64_forced)
{
    fixed f;
    wire_stream *s = one_member(&f, 1);
    ck_assert_uint_eq(wire_stream_size(s), 257);
    size_t len = 0;
    unsigned char *b = read_all(s, 5, &len);
    ck_assert_uint_eq(len, 257);
    ck_assert_uint_eq(le(b + 4, 2), 45);           /* version needed 4.5 */
    ck_assert_uint_eq(le(b + 18, 4), 0xFFFFFFFFu); /* sizes in the extra field */
    ck_assert_uint_eq(le(b + 28, 2), 20);
    ck_assert_uint_eq(le(b + 31, 2), 1); /* extra 0x0001, 16 bytes, both sizes 0 */
    ck_assert_uint_eq(le(b + 33, 2), 16);
    ck_assert_mem_eq(b + 51, "123456789", 9);
    ck_assert_uint_eq(le(b + 60, 4), 0x08074b50u);
    ck_assert_uint_eq(le(b + 64, 4), 0xCBF43926u);
    ck_assert_uint_eq(le(b + 68, 8), 9);
    ck_assert_uint_eq(le(b + 76, 8), 9);
    const unsigned char *c = b + 84; /* central header */
    ck_assert_uint_eq(le(c, 4), 0x02014b50u);
    ck_assert_uint_eq(le(c + 42, 4), 0xFFFFFFFFu); /* offset in the extra field */
    ck_assert_uint_eq(le(c + 30, 2), 28);
    ck_assert_uint_eq(le(c + 47 + 2, 2), 24);
    ck_assert_uint_eq(le(c + 47 + 4, 8), 9);
    ck_assert_uint_eq(le(c + 47 + 12, 8), 9);
    ck_assert_uint_eq(le(c + 47 + 20, 8), 0);
    const unsigned char *e = b + 84 + 75; /* ZIP64 end of central directory record */
    ck_assert_uint_eq(le(e, 4), 0x06064b50u);
    ck_assert_uint_eq(le(e + 40, 8), 75); /* directory size */
    ck_assert_uint_eq(le(e + 48, 8), 84); /* directory offset */
    ck_assert_uint_eq(le(e + 56, 4), 0x07064b50u);
    ck_assert_uint_eq(le(e + 64, 8), 159); /* where the ZIP64 record starts */
    ck_assert_uint_eq(le(b + 235, 4), 0x06054b50u);
    ck_assert_uint_eq(le(b + 235 + 8, 2), 0xFFFF);
    ck_assert_uint_eq(le(b + 235 + 16, 4), 0xFFFFFFFFu);
    free(b);
}
END_TEST

/* ---- through the API and numpy ------------------------------------------------------------ */

#define ROPE                                                                                       \
    "{\"head_dim\":8,\"positions\":[0,3,7],\"include\":[\"cos_sin_hf\"],"                          \
    "\"rope_scaling\":{\"rope_type\":\"yarn\",\"factor\":4,"                                       \
    "\"original_max_position_embeddings\":4},"                                                     \
    "\"q\":[[1,2,3,4,5,6,7,8],[0.5,0,0,0,0,0,0,-1],[0,1,0,0,0,0,0,0]],"                            \
    "\"k\":[[8,7,6,5,4,3,2,1],[1,1,1,1,1,1,1,1],[0,0,0,1,0,0,0,0]]%s}"

static api_response call(const char *body, int npy, int npz, const char *array)
{
    api_opts o = {.npy = npy, .npz = npz, .array = array, .stream = 1};
    api_response r;
    api_handle_route(&au_ctx, au_route("/rope"), body, strlen(body), "t", &o, &r);
    return r;
}

/* The body of r (stream or buffer) into file path; returns its length. */
static size_t save(api_response *r, const char *path)
{
    size_t len = r->len;
    unsigned char *b = (unsigned char *)r->body;
    if (r->stream) {
        b = read_all(r->stream, 4096, &len);
        r->stream = NULL;
    } else {
        r->body = NULL;
    }
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
    api_response_free(r);
    return len;
}

START_TEST(npz_numpy_loads)
{
    char dir[] = "/tmp/posenc-npz-XXXXXX", path[128], body[1024];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(body, sizeof body, ROPE, "");
    api_response r = call(body, 0, 0, NULL);
    ck_assert_int_eq(r.status, 200);
    snprintf(path, sizeof path, "%s/rope.json", dir);
    save(&r, path);
    r = call(body, 0, 1, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "application/x-npz");
    snprintf(path, sizeof path, "%s/rope.npz", dir);
    save(&r, path);
    snprintf(body, sizeof body, ROPE, ",\"dtype\":\"float32\"");
    r = call(body, 0, 1, NULL);
    ck_assert_int_eq(r.status, 200);
    snprintf(path, sizeof path, "%s/rope_f32.npz", dir);
    save(&r, path);
    /* q_rotated only, as .npz and as .npy */
    snprintf(body, sizeof body, ROPE, "");
    r = call(body, 0, 1, "q_rotated");
    ck_assert_int_eq(r.status, 200);
    snprintf(path, sizeof path, "%s/q_only.npz", dir);
    save(&r, path);
    r = call(body, 1, 0, "sin_hf");
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.npy_array, "sin_hf");
    snprintf(path, sizeof path, "%s/sin_hf.npy", dir);
    save(&r, path);
    /* forced ZIP64: two arrays of the answer, re-packed */
    r = call(body, 1, 0, "cos_hf");
    ck_assert_int_eq(r.status, 200);
    wire_stream *a = r.stream;
    ck_assert_ptr_null(a); /* small: a buffer, so re-wrap it */
    snprintf(path, sizeof path, "%s/cos_hf.npy", dir);
    size_t n = save(&r, path);
    FILE *f = fopen(path, "rb");
    char *npy = malloc(n + 1);
    ck_assert_uint_eq(fread(npy, 1, n, f), n);
    fclose(f);
    npy[n] = '\0';
    fixed fa, fb;
    wire_npz *z = wire_npz_new(1);
    wire_err e;
    wire_err_init(&e);
    fa.s = npy;
    fa.len = n;
    fa.pos = 0;
    wire_stream_src sa = {.read = fixed_read, .self = &fa, .size = n};
    ck_assert_int_eq(wire_npz_add(z, "cos_hf.npy", wire_stream_custom(&sa), &e), 0);
    fb = fa;
    wire_stream_src sb = {.read = fixed_read, .self = &fb, .size = n};
    ck_assert_int_eq(wire_npz_add(z, "again.npy", wire_stream_custom(&sb), &e), 0);
    wire_stream *zs = wire_npz_stream(z, &e);
    size_t zl = 0;
    unsigned char *zb = read_all(zs, 3, &zl);
    snprintf(path, sizeof path, "%s/zip64.npz", dir);
    f = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(zb, 1, zl, f), zl);
    fclose(f);
    free(zb);
    free(npy);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/wire/npz_numpy.py %s", dir);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(rc == 0, "tests/wire/npz_numpy.py failed (see its output above)");
}
END_TEST

/* status and detail of a problem answer */
static void expect_422(api_response r, const char *needle)
{
    ck_assert_int_eq(r.status, 422);
    ck_assert_ptr_nonnull(r.body);
    ck_assert_msg(strstr(r.body, needle) != NULL, "%s lacks %s", r.body, needle);
    api_response_free(&r);
}

START_TEST(array_choice_refused)
{
    char body[1024];
    snprintf(body, sizeof body, ROPE, "");
    expect_422(call(body, 1, 0, "nope"), "\\\"nope\\\" is not an array of this route");
    expect_422(call(body, 0, 1, "sin,nope"), "\\\"nope\\\" is not an array of this route");
    expect_422(call(body, 1, 0, ""), "is not an array of this route");
    expect_422(call(body, 1, 0, "sin,cos"), "application/x-npy holds one array");
    expect_422(call(body, 0, 0, "sin"), "applies to binary answers");
    /* no k: no scores in this answer */
    const char *qonly = "{\"head_dim\":4,\"positions\":[0],\"q\":[[1,2,3,4]]}";
    expect_422(call(qonly, 1, 0, "scores"), "has no array \\\"scores\\\"");
    expect_422(call(qonly, 0, 1, "q_rotated,sin"), "has no array \\\"sin\\\"");
    /* a route with no arrays at all */
    api_opts o = {.npy = 1, .array = "cos"};
    api_response r;
    const char *mm = "{\"config\":{\"model_type\":\"llama\"}}";
    api_handle_route(&au_ctx, au_route("/model/method"), mm, strlen(mm), "t", &o, &r);
    expect_422(r, "which this route does not give");
}
END_TEST

/* Two members laid out piece by piece into a buffer, the second member's pieces written first
 * (a piece does not depend on what is before it but for the directory): the same bytes as the
 * stream of the same members, plain and with ZIP64 forced; plain, one member, EXPECT itself. */
START_TEST(npz_laid_equals_stream)
{
    static const char *const names[2] = {"a", "bc.npy"};
    static const char *const data[2] = {"123456789", "hello, world"};
    for (int force = 0; force < 2; force++) {
        for (size_t n = 1; n <= 2; n++) {
            wire_err e;
            wire_err_init(&e);
            wire_npz *zs = wire_npz_new(force), *zl = wire_npz_new(force);
            ck_assert_ptr_nonnull(zs);
            ck_assert_ptr_nonnull(zl);
            fixed f[2];
            for (size_t i = 0; i < n; i++) {
                ck_assert_int_eq(wire_npz_add(zs, names[i], fixed_stream(&f[i], data[i]), &e), 0);
                ck_assert_int_eq(wire_npz_add_laid(zl, names[i], strlen(data[i]), &e), 0);
            }
            wire_stream *s = wire_npz_stream(zs, &e);
            ck_assert_ptr_nonnull(s);
            size_t want_len;
            unsigned char *want = read_all(s, 7, &want_len);
            unsigned char buf[1024];
            memset(buf, 0xEE, sizeof buf);
            for (size_t k = n; k-- > 0;) { /* the last member first */
                unsigned char lh[WIRE_NPZ_LOCAL_MAX], desc[WIRE_NPZ_DESC_MAX];
                size_t at = (size_t)wire_npz_offset(zl, k), dl = strlen(data[k]);
                size_t ll = wire_npz_local_header(zl, k, lh);
                memcpy(buf + at, lh, ll);
                memcpy(buf + at + ll, data[k], dl);
                /* CRC-32 of "123456789": 0xCBF43926 (the check value); of the other: zlib.crc32 */
                uint32_t crc = k == 0 ? 0xCBF43926u : 0xFFAB723Au;
                size_t dsl = wire_npz_descriptor(zl, k, crc, desc);
                memcpy(buf + at + ll + dl, desc, dsl);
            }
            uint64_t dir_at;
            size_t dir_len;
            unsigned char *dir = wire_npz_directory(zl, &dir_at, &dir_len);
            ck_assert_ptr_nonnull(dir);
            memcpy(buf + dir_at, dir, dir_len);
            ck_assert_uint_eq(dir_at + dir_len, want_len);
            ck_assert_msg(memcmp(buf, want, want_len) == 0, "force %d, %zu members", force, n);
            if (!force && n == 1) {
                ck_assert_uint_eq(want_len, sizeof EXPECT);
                ck_assert(memcmp(buf, EXPECT, sizeof EXPECT) == 0);
            }
            free(dir);
            free(want);
            wire_npz_free(zl);
        }
    }
}
END_TEST

/* An archive with a laid-out member is not a stream: refused, never read past its end. */
START_TEST(npz_laid_not_streamed)
{
    wire_err e;
    wire_err_init(&e);
    wire_npz *z = wire_npz_new(0);
    ck_assert_ptr_nonnull(z);
    ck_assert_int_eq(wire_npz_add_laid(z, "a", 9, &e), 0);
    ck_assert_ptr_null(wire_npz_stream(z, &e)); /* z freed */
    ck_assert_int_eq(e.status, WIRE_EINTERNAL);
}
END_TEST

Suite *npz_suite(void);
Suite *npz_suite(void)
{
    Suite *s = suite_create("npz");
    TCase *tc = tcase_create("npz");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, npz_byte_exact);
    tcase_add_test(tc, npz_zip64_forced);
    tcase_add_test(tc, npz_laid_equals_stream);
    tcase_add_test(tc, npz_laid_not_streamed);
    tcase_add_test(tc, npz_numpy_loads);
    tcase_add_test(tc, array_choice_refused);
    suite_add_tcase(s, tc);
    return s;
}
