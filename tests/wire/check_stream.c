/*
 * tests/wire/check_stream.c -- streamed responses and .npy bodies (wire/stream.h) through
 * api_handle_route, pure (no sockets).
 *  - A streamed JSON body, read a few bytes at a time, is byte-identical to the buffered body of
 *    the same request (/sinusoidal rows on demand, /rope and /learned matrices handed over).
 *  - .npy: exact header bytes (NumPy format 1.0, 64-byte aligned), values, '<f4' with
 *    "dtype": "float32", '<i8' buckets, masked cells (-inf in biases and scores, 0 in weights),
 *    the array each route picks.
 *  - dtype validation and the Accept rules.
 * Tolerances: values are compared exactly (the same double computed by the same code; float32
 * values against the C cast (float)x).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/cache.h"
#include "core/sinusoidal.h"
#include "tests/lib/api_util.h"
#include "wire/jw.h"
#include "wire/tensor_io.h"

static api_limits lim;
static pe_cache *cache;
static api_ctx ctx;

/* a learned table "t" (300 x 64, [r][c] = r - c / 64) */
static double tdata[300 * 64];
static const store_table TT = {300, 64, tdata};
static const store_table *t_acquire(void *self, const char *name)
{
    (void)self;
    return strcmp(name, "t") == 0 ? &TT : NULL;
}
static void t_release(void *self, const store_table *t)
{
    (void)self;
    (void)t;
}
static const store_source TABLES = {NULL, t_acquire, t_release};

static void setup(void)
{
    api_limits_default(&lim);
    cache = pe_cache_create((size_t)1 << 24, 4096);
    ctx.lim = &lim;
    ctx.cache = cache;
    ctx.tables = &TABLES;
    for (size_t r = 0; r < 300; r++)
        for (size_t c = 0; c < 64; c++)
            tdata[r * 64 + c] = (double)r - (double)c / 64.0;
}

static void teardown(void)
{
    pe_cache_destroy(cache);
}

typedef struct {
    int status;
    char *body;
    size_t len;
    int streamed;
    const char *content_type;
    const char *array;
} result;

/* Runs path with body; a stream is read `piece` bytes at a time. */
static result run(const char *path, const char *body, int npy, int stream, size_t piece)
{
    const api_route *rt = au_route(path);
    api_opts o = {.npy = npy, .stream = stream};
    api_response r;
    api_handle_route(&ctx, rt, body, strlen(body), "t", &o, &r);
    result res = {r.status, NULL, 0, r.stream != NULL, r.content_type, r.npy_array};
    if (r.stream) {
        size_t cap = 1 << 16;
        res.body = malloc(cap);
        for (;;) {
            if (cap - res.len < piece + 1) {
                cap *= 2;
                res.body = realloc(res.body, cap);
                ck_assert_ptr_nonnull(res.body);
            }
            size_t k = wire_stream_read(r.stream, res.body + res.len, piece);
            ck_assert_uint_le(k, piece);
            if (k == 0)
                break;
            res.len += k;
        }
        res.body[res.len] = '\0';
    } else {
        res.body = r.body;
        res.len = r.len;
        r.body = NULL;
    }
    api_response_free(&r);
    return res;
}

static void same_streamed(const char *path, const char *body)
{
    result a = run(path, body, 0, 0, 0);
    ck_assert_int_eq(a.status, 200);
    ck_assert(!a.streamed);
    static const size_t pieces[] = {1 << 16, 4093, 7};
    for (size_t i = 0; i < 3; i++) {
        result b = run(path, body, 0, 1, pieces[i]);
        ck_assert_int_eq(b.status, 200);
        ck_assert_msg(b.streamed, "%s was not streamed", path);
        ck_assert_uint_eq(b.len, a.len);
        ck_assert_msg(memcmp(a.body, b.body, a.len) == 0, "%s: streamed bytes differ", path);
        free(b.body);
    }
    json_error_t e;
    json_t *j = json_loadb(a.body, a.len, 0, &e);
    ck_assert_msg(j != NULL, "not JSON: %s", e.text);
    json_decref(j);
    free(a.body);
}

START_TEST(test_stream_equals_buffer)
{
    /* 300 x 100 = 30000 numbers: above WIRE_JW_DEFER_MIN (16384), so deferred */
    same_streamed("/sinusoidal", "{\"d_model\": 100, \"seq_len\": 300, \"offset\": 7}");
    same_streamed("/sinusoidal",
                  "{\"d_model\": 33, \"seq_len\": 1000, \"convention\": \"fairseq\"}");
    same_streamed("/learned", "{\"table\": \"t\", \"seq_len\": 300}");
    /* /rope: q_rotated [300][64] and cos/sin [300][32] go through wire_jw_matrix (copied) */
    char *body = malloc(400000);
    int n =
        sprintf(body, "{\"head_dim\": 64, \"seq_len\": 300, \"include\": [\"cos_sin\"], \"q\": [");
    for (int i = 0; i < 300; i++) {
        n += sprintf(body + n, "%s[", i ? "," : "");
        for (int c = 0; c < 64; c++)
            n += sprintf(body + n, "%s%d.25", c ? "," : "", (i + c) % 7 - 3);
        n += sprintf(body + n, "]");
    }
    sprintf(body + n, "]}");
    same_streamed("/rope", body);
    free(body);
    /* small: not streamed, keeps a body (and a Content-Length in the daemon) */
    result s = run("/sinusoidal", "{\"d_model\": 4, \"seq_len\": 3}", 0, 1, 100);
    ck_assert(!s.streamed);
    ck_assert_str_eq(s.body, "{\"shape\":[3,4],\"positions\":[0,1,2],\"matrix\":[[0,1,0,1],"
                             "[0.8414709848078965,0.5403023058681398,0.009999833334166664,"
                             "0.9999500004166653],[0.9092974268256817,-0.4161468365471424,"
                             "0.01999866669333308,0.9998000066665778]],\"resolved\":{\"d_model\":4,"
                             "\"base\":10000,\"convention\":\"vaswani\",\"layout\":\"interleaved\","
                             "\"n_positions\":3}}");
    free(s.body);
}
END_TEST

START_TEST(test_errors_before_streaming)
{
    /* validation and size checks answer with a problem body, never a stream */
    result r = run("/sinusoidal", "{\"d_model\": 1024, \"seq_len\": 5000}", 0, 1, 100);
    ck_assert_int_eq(r.status, 422);
    ck_assert(!r.streamed);
    ck_assert_ptr_nonnull(strstr(r.body, "limit-exceeded"));
    free(r.body);
    r = run("/sinusoidal", "{\"d_model\": 0, \"seq_len\": 5000}", 0, 1, 100);
    ck_assert_int_eq(r.status, 422);
    free(r.body);
    /* a non-finite value in a large deferred matrix is still found before anything is sent:
     * q values near DBL_MAX rotated by cos + sin overflow */
    char *body = malloc(200000);
    int n = sprintf(body, "{\"head_dim\": 64, \"seq_len\": 300, \"q\": [");
    for (int i = 0; i < 300; i++) {
        n += sprintf(body + n, "%s[", i ? "," : "");
        for (int c = 0; c < 64; c++)
            n += sprintf(body + n, "%s%s", c ? "," : "", i == 299 ? "1.7e308" : "1");
        n += sprintf(body + n, "]");
    }
    sprintf(body + n, "]}");
    r = run("/rope", body, 0, 1, 100);
    ck_assert_int_eq(r.status, 422);
    ck_assert(!r.streamed);
    free(r.body);
    r = run("/rope", body, 1, 1, 100); /* the same as .npy */
    ck_assert_int_eq(r.status, 422);
    free(r.body);
    free(body);
}
END_TEST

/* The .npy 1.0 header the body must start with (dict padded with spaces to 64-byte alignment). */
static size_t expect_header(const result *r, const char *dict)
{
    size_t total = (10 + strlen(dict) + 1 + 63) / 64 * 64;
    ck_assert_uint_ge(r->len, total);
    ck_assert(memcmp(r->body, "\x93NUMPY\x01\x00", 8) == 0);
    size_t hl = (unsigned char)r->body[8] | (size_t)(unsigned char)r->body[9] << 8;
    ck_assert_uint_eq(hl, total - 10);
    ck_assert_msg(memcmp(r->body + 10, dict, strlen(dict)) == 0, "header %.*s, want %s",
                  (int)(total - 10), r->body + 10, dict);
    for (size_t i = 10 + strlen(dict); i < total - 1; i++)
        ck_assert_int_eq(r->body[i], ' ');
    ck_assert_int_eq(r->body[total - 1], '\n');
    return total;
}

static double f64_at(const result *r, size_t hdr, size_t i)
{
    double x;
    memcpy(&x, r->body + hdr + 8 * i, 8); /* test hosts are little-endian, like '<f8' */
    return x;
}

START_TEST(test_npy_sinusoidal)
{
    result r = run("/sinusoidal", "{\"d_model\": 4, \"seq_len\": 3}", 1, 1, 5);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "application/x-npy");
    ck_assert_str_eq(r.array, "matrix");
    size_t h = expect_header(&r, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }");
    ck_assert_uint_eq(h, 128);
    ck_assert_uint_eq(r.len, h + 12 * 8);
    /* row 1 = (sin 1, cos 1, sin 0.01, cos 0.01): omega_1 = 10000^(-2/4) = 0.01 */
    ck_assert_double_eq(f64_at(&r, h, 0), 0.0);
    ck_assert_double_eq(f64_at(&r, h, 1), 1.0);
    ck_assert_double_eq(f64_at(&r, h, 4), sin(1.0));
    ck_assert_double_eq(f64_at(&r, h, 5), cos(1.0));
    ck_assert_double_eq(f64_at(&r, h, 6), sin(0.01));
    ck_assert_double_eq(f64_at(&r, h, 11), cos(2 * 0.01));
    free(r.body);

    /* float32: half the data bytes, each value the rounded double */
    r = run("/sinusoidal", "{\"d_model\": 4, \"seq_len\": 3, \"dtype\": \"float32\"}", 1, 1, 5);
    ck_assert_int_eq(r.status, 200);
    h = expect_header(&r, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
    ck_assert_uint_eq(r.len, h + 12 * 4);
    float f;
    memcpy(&f, r.body + h + 4 * 4, 4);
    ck_assert(f == (float)sin(1.0));
    free(r.body);

    /* a large one is streamed with its size known in advance; rows equal pe_sinusoidal_row */
    const api_route *rt = au_route("/sinusoidal");
    api_opts o = {.npy = 1, .stream = 1};
    api_response ar;
    const char *big = "{\"d_model\": 256, \"seq_len\": 1000, \"offset\": 5}";
    api_handle_route(&ctx, rt, big, strlen(big), "t", &o, &ar);
    ck_assert_int_eq(ar.status, 200);
    ck_assert_ptr_nonnull(ar.stream);
    ck_assert_uint_eq(wire_stream_size(ar.stream), 128 + 1000 * 256 * 8);
    api_response_free(&ar);
    r = run("/sinusoidal", big, 1, 1, 1000);
    h = expect_header(&r, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 256), }");
    pe_sinusoidal_params p;
    pe_sinusoidal_params_init(&p);
    p.d_model = 256;
    double omega[256], row[256];
    pe_sinusoidal_freqs(&p, omega);
    pe_sinusoidal_row(&p, omega, 5 + 777, row);
    for (size_t c = 0; c < 256; c++)
        ck_assert_double_eq(f64_at(&r, h, 777 * 256 + c), row[c]);
    free(r.body);
}
END_TEST

START_TEST(test_npy_picks_and_masks)
{
    /* /alibi without q: bias [H][T][T], masked -inf; slopes of 2 heads 2^-4, 2^-8 */
    result r = run("/alibi", "{\"num_heads\": 2, \"seq_len\": 3, \"mode\": \"causal\"}", 1, 0, 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.array, "bias");
    size_t h = expect_header(&r, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 3), }");
    ck_assert_uint_eq(r.len, h + 18 * 8);
    ck_assert_double_eq(f64_at(&r, h, 0), 0.0);
    ck_assert(isinf(f64_at(&r, h, 1)) && f64_at(&r, h, 1) < 0); /* [0][0][1]: future key */
    ck_assert_double_eq(f64_at(&r, h, 3), -0.0625);             /* [0][1][0]: distance 1 */
    ck_assert_double_eq(f64_at(&r, h, 9 + 6), -2 * 0.00390625); /* [1][2][0]: distance 2 */
    free(r.body);

    /* /attention: weights (no v); causal masked weights are 0, row 0 attends only to itself */
    r = run("/attention", "{\"q\": [[1,0],[0,1]], \"k\": [[1,0],[0,1]], \"causal\": true}", 1, 0,
            0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.array, "weights");
    h = expect_header(&r, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }");
    ck_assert_double_eq(f64_at(&r, h, 0), 1.0);
    ck_assert_double_eq(f64_at(&r, h, 1), 0.0);
    /* row 1: logits (0, 1/sqrt 2): weight of key 1 = 1 / (1 + exp(-1/sqrt 2)) */
    ck_assert_double_eq_tol(f64_at(&r, h, 3), 1.0 / (1.0 + exp(-1.0 / sqrt(2.0))), 1e-15);
    free(r.body);
    /* with v: output */
    r = run("/attention", "{\"q\": [[1,0]], \"k\": [[1,0]], \"v\": [[2,3,4]]}", 1, 0, 0);
    ck_assert_str_eq(r.array, "output");
    h = expect_header(&r, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3), }");
    ck_assert_double_eq(f64_at(&r, h, 2), 4.0);
    free(r.body);

    /* /rope: scores win over q_rotated; without k: q_rotated; without q and k: inv_freq */
    r = run("/rope",
            "{\"head_dim\": 2, \"inv_freq\": [0.5], \"q\": [1, 2], \"k\": [3, 1], "
            "\"q_positions\": [2, 5], \"k_positions\": [0, 3, 7]}",
            1, 0, 0);
    ck_assert_str_eq(r.array, "scores");
    h = expect_header(&r, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }");
    /* q(2).k(0): distance 2 * 0.5 = 1 rad: 5 cos 1 - 5 sin 1 (tests/http/check_http.c lesson) */
    ck_assert_double_eq_tol(f64_at(&r, h, 0), 5 * (cos(1.0) - sin(1.0)), 1e-14);
    free(r.body);
    r = run("/rope", "{\"head_dim\": 4, \"positions\": [1], \"q\": [1, 0, 0, 0]}", 1, 0, 0);
    ck_assert_str_eq(r.array, "q_rotated");
    h = expect_header(&r, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 4), }");
    ck_assert_double_eq(f64_at(&r, h, 0), cos(1.0)); /* half layout: pair (0, 2), theta_0 = 1 */
    ck_assert_double_eq(f64_at(&r, h, 2), sin(1.0));
    free(r.body);
    r = run("/rope", "{\"head_dim\": 4}", 1, 0, 0);
    ck_assert_str_eq(r.array, "inv_freq");
    h = expect_header(&r, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }");
    ck_assert_double_eq(f64_at(&r, h, 0), 1.0);
    ck_assert_double_eq(f64_at(&r, h, 1), 0.01);
    free(r.body);

    /* /t5/buckets: int64; bidirectional, 32 buckets: key after query by d -> 16 + d (small d) */
    r = run("/t5/buckets",
            "{\"query_positions\": [0, 1, 2], \"key_positions\": [0, 1, 2, 3], "
            "\"dtype\": \"float32\"}",
            1, 0, 0);
    ck_assert_int_eq(r.status, 200);
    h = expect_header(&r, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }");
    static const int64_t want[] = {0, 17, 18, 19, 1, 0, 17, 18, 2, 1, 0, 17};
    for (size_t i = 0; i < 12; i++) {
        int64_t v;
        memcpy(&v, r.body + h + 8 * i, 8);
        ck_assert_int_eq(v, want[i]);
    }
    free(r.body);
}
END_TEST

START_TEST(test_dtype_rules)
{
    result r =
        run("/sinusoidal", "{\"d_model\": 4, \"seq_len\": 3, \"dtype\": \"float32\"}", 0, 0, 0);
    ck_assert_int_eq(r.status, 422); /* JSON numbers are float64 */
    ck_assert_ptr_nonnull(strstr(r.body, "\"/dtype\""));
    free(r.body);
    r = run("/sinusoidal", "{\"d_model\": 4, \"seq_len\": 3, \"dtype\": \"float64\"}", 0, 0, 0);
    ck_assert_int_eq(r.status, 200);
    free(r.body);
    r = run("/sinusoidal", "{\"d_model\": 4, \"seq_len\": 3, \"dtype\": \"float16\"}", 1, 0, 0);
    ck_assert_int_eq(r.status, 422);
    ck_assert_ptr_nonnull(strstr(r.body, "\"/dtype\""));
    free(r.body);
    r = run("/sinusoidal", "{\"d_model\": 4, \"seq_len\": 3, \"dtype\": 32}", 1, 0, 0);
    ck_assert_int_eq(r.status, 422);
    free(r.body);
    /* a value beyond the float32 range: 422 at /dtype, not an infinity in the file */
    r = run("/rope", "{\"head_dim\": 2, \"positions\": [0], \"q\": [1e300, 0]}", 1, 0, 0);
    ck_assert_int_eq(r.status, 200);
    free(r.body);
    r = run("/rope",
            "{\"head_dim\": 2, \"positions\": [0], \"q\": [1e300, 0], "
            "\"dtype\": \"float32\"}",
            1, 0, 0);
    ck_assert_int_eq(r.status, 422);
    ck_assert_ptr_nonnull(strstr(r.body, "\"/dtype\""));
    free(r.body);
}
END_TEST

START_TEST(test_npy_header_writer)
{
    char h[WIRE_NPY_HEADER_MAX];
    size_t shape[3] = {2, 3, 4};
    size_t n = wire_npy_header(h, sizeof h, "<f8", shape, 3);
    ck_assert_uint_eq(n, 128);
    ck_assert(
        memcmp(h + 10, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4), }", 62) == 0);
    ck_assert_int_eq(h[8], 118);
    ck_assert_int_eq(h[9], 0);
    n = wire_npy_header(h, 64, "<f8", shape, 3); /* does not fit */
    ck_assert_uint_eq(n, 0);
}
END_TEST

/* A row source of 3 x 2 values, counting its releases. */
static int rows_released;
static const double ROWS[3][2] = {{0.5, -1.0}, {2.0, 0.25}, {-0.125, 8.0}};
static const double *rows_row(void *self, size_t r, double *scratch)
{
    (void)self;
    (void)scratch;
    return ROWS[r];
}
static void rows_release(void *self)
{
    (void)self;
    rows_released++;
}

/* wire_stream_npy_rows: the .npy header of wire_npy_header for (3, 2) '<f8', then the six values
 * as little-endian float64 in row order (0.5 = 0x3FE0000000000000: bytes 00 .. 00 E0 3F), and the
 * source released once when the stream is freed. */
START_TEST(test_npy_rows)
{
    rows_released = 0;
    wire_rows src = {.rows = 3, .cols = 2, .row = rows_row, .release = rows_release};
    wire_err we;
    wire_err_init(&we);
    wire_stream *st = wire_stream_npy_rows(&src, &we);
    ck_assert_ptr_nonnull(st);
    ck_assert_uint_eq(wire_stream_size(st), 128 + 6 * 8);
    char body[256];
    size_t n = 0, k;
    while ((k = wire_stream_read(st, body + n, 7)) > 0) /* odd pieces cross every boundary */
        n += k;
    ck_assert_uint_eq(n, 128 + 48);
    ck_assert(!wire_stream_failed(st));
    ck_assert_ptr_null(wire_stream_array(st));
    wire_stream_free(st);
    ck_assert_int_eq(rows_released, 1);
    ck_assert(
        memcmp(body + 10, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", 59) == 0);
    ck_assert(memcmp(body + 128, "\x00\x00\x00\x00\x00\x00\xe0\x3f", 8) == 0);
    for (size_t i = 0; i < 6; i++) {
        double v;
        memcpy(&v, body + 128 + 8 * i, 8); /* the hosts we build on are little-endian */
        ck_assert(v == ROWS[i / 2][i % 2]);
    }
}
END_TEST

/* The warnings header's text (wire_json_ascii_strings): JSON strings in ASCII only. '"' and '\'
 * escaped; U+00D7 (C3 97) as \u00d7; U+1F600 (F0 9F 98 80) as the UTF-16 pair D83D DE00
 * (0x1F600 - 0x10000 = 0xF600: high 0xD800 + (0xF600 >> 10) = 0xD83D, low 0xDC00 + 0x200); a
 * control byte as \u0001, DEL as \u007f; a lone continuation byte (ill-formed) as \ufffd. */
START_TEST(test_ascii_strings)
{
    const char *in[] = {"a\"b\\c", "\xc3\x97", "\xf0\x9f\x98\x80", "\x01\x7f", "x\x80y"};
    char *got = wire_json_ascii_strings(in, 5);
    ck_assert_str_eq(got, "[\"a\\\"b\\\\c\",\"\\u00d7\",\"\\ud83d\\ude00\",\"\\u0001\\u007f\","
                          "\"x\\ufffdy\"]");
    json_t *j = json_loads(got, 0, NULL); /* valid JSON that reads back to the texts */
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_array_get(j, 1)), "\xc3\x97");
    ck_assert_str_eq(json_string_value(json_array_get(j, 2)), "\xf0\x9f\x98\x80");
    json_decref(j);
    free(got);
    got = wire_json_ascii_strings(NULL, 0);
    ck_assert_str_eq(got, "[]");
    free(got);
}
END_TEST

Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("stream");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_stream_equals_buffer);
    tcase_add_test(tc, test_errors_before_streaming);
    tcase_add_test(tc, test_npy_sinusoidal);
    tcase_add_test(tc, test_npy_picks_and_masks);
    tcase_add_test(tc, test_dtype_rules);
    tcase_add_test(tc, test_npy_rows);
    tcase_add_test(tc, test_npy_header_writer);
    tcase_add_test(tc, test_ascii_strings);
    suite_add_tcase(s, tc);
    return s;
}
