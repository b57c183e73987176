/*
 * tests/wire/check_tensor_io.c -- wire/tensor_io: float16/bfloat16 decoding (hand-derived
 * bit patterns), .npy (hand-built headers, every refusal, every truncation)
 * and the incremental .safetensors parser (whole file, 1-byte and odd-sized chunks give the same
 * table, every refusal, every truncation, the memory accounting hook).
 * Tolerances: every comparison here is exact (ck_assert_double_eq / memcmp): decoding is exact
 * by construction (every float16/bfloat16/float32 is a float64) and values are binary fractions.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/le.h"
#include "wire/tensor_io.h"

/* ---- helpers ------------------------------------------------------------------------------- */

/* The message of an error. */
static const char *pb_msg(const wire_err *pb)
{
    return pb->detail;
}

#define ASSERT_FAILS_WITH(pb, code_, needle)                                                       \
    do {                                                                                           \
        ck_assert_msg((pb).status == (code_), "status %d, want %d (%s)", (int)(pb).status,         \
                      (int)(code_), pb_msg(&(pb)));                                                \
        ck_assert_msg(strstr(pb_msg(&(pb)), (needle)) != NULL, "message \"%s\" lacks \"%s\"",      \
                      pb_msg(&(pb)), (needle));                                                    \
    } while (0)

/* A .npy 1.0 file with the given dict text (padded to 64 bytes with spaces and '\n') and data. */
static size_t npy_build(unsigned char *out, size_t cap, const char *dict, const void *data,
                        size_t data_len)
{
    size_t dl = strlen(dict);
    size_t total = (10 + dl + 1 + 63) / 64 * 64;
    ck_assert_uint_le(total + data_len, cap);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)((total - 10) & 0xff);
    out[9] = (unsigned char)((total - 10) >> 8);
    memcpy(out + 10, dict, dl);
    memset(out + 10 + dl, ' ', total - 10 - dl - 1);
    out[total - 1] = '\n';
    memcpy(out + total, data, data_len);
    return total + data_len;
}

/* A .safetensors file: u64 LE header size, header (padded with spaces to 8), data. */
static size_t st_build(unsigned char *out, size_t cap, const char *header, const void *data,
                       size_t data_len)
{
    size_t hl = strlen(header);
    size_t padded = (hl + 7) / 8 * 8;
    ck_assert_uint_le(8 + padded + data_len, cap);
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    memcpy(out + 8, header, hl);
    memset(out + 8 + hl, ' ', padded - hl);
    memcpy(out + 8 + padded, data, data_len);
    return 8 + padded + data_len;
}

static void put_f32(unsigned char *p, float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(b >> (8 * i));
}

/* ---- names and element types ----------------------------------------------------------------- */

/*
 * binary16 = sign | 5-bit exponent e | 10-bit fraction f; value (1 + f/1024) * 2^(e-15), or
 * f * 2^-24 when e = 0; e = 31 is Inf (f = 0) or NaN.
 */
START_TEST(test_f16)
{
    static const struct {
        uint16_t h;
        double want;
    } CASES[] = {
        {0x3C00, 1.0},             /* e 15, f 0 */
        {0xC000, -2.0},            /* sign, e 16 */
        {0x3555, 1365.0 / 4096.0}, /* e 13, f 0x155 = 341: (1024+341) 2^-12 = 0.333251953125 */
        {0x0001, 5.9604644775390625e-08}, /* smallest subnormal 2^-24 */
        {0x03FF, 1023.0 / 16777216.0},    /* largest subnormal 1023 * 2^-24 */
        {0x0400, 6.103515625e-05},        /* smallest normal 2^-14 */
        {0x7BFF, 65504.0},                /* largest: (1024+1023) * 2^(30-25) = 2047 * 32 */
        {0x0000, 0.0},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        ck_assert_double_eq(wire_f16_to_double(CASES[i].h), CASES[i].want);
    ck_assert(signbit(wire_f16_to_double(0x8000)) && wire_f16_to_double(0x8000) == 0.0);
    ck_assert(isinf(wire_f16_to_double(0x7C00)) && wire_f16_to_double(0x7C00) > 0);
    ck_assert(isinf(wire_f16_to_double(0xFC00)) && wire_f16_to_double(0xFC00) < 0);
    ck_assert(isnan(wire_f16_to_double(0x7E00)));
}
END_TEST

/* bfloat16 h is the binary32 with bits h << 16: exponent bias 127, 7-bit fraction. */
START_TEST(test_bf16)
{
    ck_assert_double_eq(wire_bf16_to_double(0x3F80), 1.0);  /* 0x3F800000 */
    ck_assert_double_eq(wire_bf16_to_double(0xC040), -3.0); /* 0xC0400000 = -1.5 * 2 */
    /* 0x3EAB: exponent 0x7D = 125 → 2^-2, fraction 0x2B = 43 of 128: (1 + 43/128)/4 = 171/512 */
    ck_assert_double_eq(wire_bf16_to_double(0x3EAB), 171.0 / 512.0);
    ck_assert_double_eq(wire_bf16_to_double(0x0001), ldexp(1.0, -133));  /* 2^16 * 2^-149 */
    ck_assert_double_eq(wire_bf16_to_double(0x7F7F), ldexp(255.0, 120)); /* (1+127/128) 2^127 */
    ck_assert(isinf(wire_bf16_to_double(0x7F80)));
    ck_assert(isnan(wire_bf16_to_double(0x7FC0)));
}
END_TEST

START_TEST(test_decode_le)
{
    /* float32 1.5 = 0x3FC00000 stored little-endian; float64 -0.25 = 0xBFD0000000000000 */
    const unsigned char f32[] = {0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x80, 0xBF};
    double out[2];
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_F32, f32, 2, out), 2);
    ck_assert_double_eq(out[0], 1.5);
    ck_assert_double_eq(out[1], -1.0);
    unsigned char f64[16] = {0, 0, 0, 0, 0, 0, 0xD0, 0xBF, 0, 0, 0, 0, 0, 0, 0xF0, 0x7F};
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_F64, f64, 2, out), 1); /* second is +Inf */
    ck_assert_double_eq(out[0], -0.25);
    /* in place for float64 */
    double buf[2];
    wire_encode_f64_le((const double[]){0.125, -8.0}, 2, (unsigned char *)buf);
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_F64, (const unsigned char *)buf, 2, buf), 2);
    ck_assert_double_eq(buf[0], 0.125);
    ck_assert_double_eq(buf[1], -8.0);
    const unsigned char bf[] = {0x80, 0x3F, 0xC0, 0x7F}; /* 1.0, NaN */
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_BF16, bf, 2, out), 1);
    const unsigned char h[] = {0x00, 0x3C, 0x00, 0xC0}; /* 1.0, -2.0 */
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_F16, h, 2, out), 2);
    ck_assert_double_eq(out[1], -2.0);
}
END_TEST

/* float32 past one block of the vectorized decoder (256 values): every value is (double) of its
 * float32, bit for bit, in the blocks and in the tail; the first non-finite one is found wherever
 * it is (in a full block, in the tail), the one after it not reported. */
START_TEST(test_decode_le_f32_blocks)
{
    enum { N = 700 }; /* two full blocks and a tail of 188 */
    static unsigned char src[4 * N];
    static double out[N];
    for (size_t i = 0; i < N; i++) {
        float f = (float)((double)i * 0.37 - 100.0) * (i % 2 ? 1e-30f : 1e30f);
        wire_le_put(src + 4 * i, &f, 4);
    }
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_F32, src, N, out), N);
    for (size_t i = 0; i < N; i++) {
        float f;
        memcpy(&f, src + 4 * i, 4);
        ck_assert(memcmp(&out[i], &(double){(double)f}, 8) == 0);
    }
    const uint32_t inf = 0x7f800000u, nan = 0xffc00001u; /* +Inf; a negative quiet NaN */
    const size_t at[3] = {300, 511, 650};                /* block 1, its last value, the tail */
    for (int k = 0; k < 3; k++) {
        unsigned char keep[8];
        memcpy(keep, src + 4 * at[k], 4);
        memcpy(keep + 4, src + 4 * (at[k] + 7), 4);
        wire_le_put(src + 4 * at[k], k == 1 ? &nan : &inf, 4);
        wire_le_put(src + 4 * (at[k] + 7), &inf, 4);
        ck_assert_uint_eq(wire_decode_le(WIRE_DT_F32, src, N, out), at[k]);
        memcpy(src + 4 * at[k], keep, 4);
        memcpy(src + 4 * (at[k] + 7), keep + 4, 4);
    }
    /* the largest finite float32 (exponent bits 0xfe) is finite */
    const uint32_t big = 0x7f7fffffu;
    wire_le_put(src + 4 * 10, &big, 4);
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_F32, src, N, out), N);
    ck_assert_double_eq(out[10], 0x1.fffffep127);
}
END_TEST

/* float64 past one block of the finiteness check (512 values): the first of two infinities. */
START_TEST(test_decode_le_f64_blocks)
{
    enum { N = 1100 };
    static double x[N];
    for (size_t i = 0; i < N; i++)
        x[i] = (double)i - 0x1.fffffffffffffp1023 * (i == 5); /* one huge finite value */
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_F64, (const unsigned char *)x, N, x), N);
    x[700] = -INFINITY;
    x[900] = NAN;
    ck_assert_uint_eq(wire_decode_le(WIRE_DT_F64, (const unsigned char *)x, N, x), 700);
}
END_TEST

/* ---- .npy ---------------------------------------------------------------------------------- */

START_TEST(test_npy_f64_header_roundtrip)
{
    char hdr[WIRE_NPY_F64_HEADER_MAX];
    size_t hl = wire_npy_header(hdr, sizeof hdr, "<f8", (const size_t[]){512, 64}, 2);
    ck_assert_uint_eq(hl % 64, 0);
    ck_assert_uint_eq(hl, 128); /* 10 + 62 chars of dict + '\n' = 73 → padded to 128 */
    ck_assert_int_eq(memcmp(hdr, "\x93NUMPY\x01\x00", 8), 0);
    ck_assert_uint_eq((unsigned char)hdr[8] | (unsigned char)hdr[9] << 8, hl - 10);
    ck_assert_int_eq(hdr[hl - 1], '\n');
    const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (512, 64), }";
    ck_assert_int_eq(memcmp(hdr + 10, dict, strlen(dict)), 0);
    ck_assert_int_eq(hdr[10 + strlen(dict)], ' '); /* padding up to the '\n' */
    /* a 2 x 3 table through the writer and back */
    unsigned char file[256];
    size_t n = wire_npy_header((char *)file, sizeof file, "<f8", (const size_t[]){2, 3}, 2);
    ck_assert_uint_eq(n, 128); /* 10 + 59 + 1 = 70 → 128 */
    const double vals[6] = {0.5, -1.0, 3.25, 1e-300, -2.0, 7.0};
    wire_encode_f64_le(vals, 6, file + n);
    wire_err pb;
    wire_err_init(&pb);
    wire_tensor t;
    size_t used = 0;
    ck_assert_int_eq(wire_npy_parse(file, n + 48, 1 << 20, 0, &t, &used, &pb), 0);
    ck_assert_uint_eq(used, n + 48);
    ck_assert_uint_eq(t.rows, 2);
    ck_assert_uint_eq(t.cols, 3);
    ck_assert_int_eq(memcmp(t.data, vals, sizeof vals), 0);
    ck_assert_int_eq(t.dtype, WIRE_DT_F64);
    wire_tensor_free(&t);
    /* trailing bytes: refused unless allowed (the store's trailer line) */
    memcpy(file + n + 48, "TRAILER\n", 8);
    ck_assert_int_eq(wire_npy_parse(file, n + 56, 1 << 20, 0, &t, NULL, &pb), -1);
    wire_err_init(&pb);
    ck_assert_int_eq(wire_npy_parse(file, n + 56, 1 << 20, 1, &t, &used, &pb), 0);
    ck_assert_uint_eq(used, n + 48);
    wire_tensor_free(&t);
}
END_TEST

/* Hand-written headers as NumPy writes them (float16 and float32, version 1.0 and 2.0). */
START_TEST(test_npy_dtypes)
{
    unsigned char file[512];
    const unsigned char h[] = {0x00, 0x3C, 0x00, 0xC0,
                               0x55, 0x35, 0x01, 0x00}; /* 1, -2, 1365/4096, 2^-24 */
    size_t n =
        npy_build(file, sizeof file, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }",
                  h, sizeof h);
    wire_err pb;
    wire_err_init(&pb);
    wire_tensor t;
    ck_assert_int_eq(wire_npy_parse(file, n, 1 << 20, 0, &t, NULL, &pb), 0);
    ck_assert_int_eq(t.dtype, WIRE_DT_F16);
    ck_assert_double_eq(t.data[0], 1.0);
    ck_assert_double_eq(t.data[1], -2.0);
    ck_assert_double_eq(t.data[2], 1365.0 / 4096.0);
    ck_assert_double_eq(t.data[3], ldexp(1.0, -24));
    wire_tensor_free(&t);

    unsigned char f[8];
    put_f32(f, 0.1f);
    put_f32(f + 4, -65536.0f);
    /* keys in another order, double quotes, no trailing comma, Python 2 long */
    n = npy_build(file, sizeof file,
                  "{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<f4\"}", f, 8);
    ck_assert_int_eq(wire_npy_parse(file, n, 1 << 20, 0, &t, NULL, &pb), 0);
    ck_assert_double_eq(t.data[0], (double)0.1f);
    ck_assert_double_eq(t.data[1], -65536.0);
    ck_assert_int_eq(t.dtype, WIRE_DT_F32);
    wire_tensor_free(&t);

    /* version 2.0: 4-byte header length */
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }";
    size_t dl = strlen(dict), total = (12 + dl + 1 + 63) / 64 * 64;
    memcpy(file, "\x93NUMPY\x02\x00", 8);
    uint32_t hl = (uint32_t)(total - 12);
    for (int i = 0; i < 4; i++)
        file[8 + i] = (unsigned char)(hl >> (8 * i));
    memcpy(file + 12, dict, dl);
    memset(file + 12 + dl, ' ', total - 12 - dl - 1);
    file[total - 1] = '\n';
    memcpy(file + total, f, 8);
    ck_assert_int_eq(wire_npy_parse(file, total + 8, 1 << 20, 0, &t, NULL, &pb), 0);
    ck_assert_uint_eq(t.rows, 2);
    ck_assert_uint_eq(t.cols, 1);
    ck_assert_double_eq(t.data[1], -65536.0);
    wire_tensor_free(&t);
}
END_TEST

START_TEST(test_npy_refusals)
{
    static const struct {
        const char *dict;
        wire_status code;
        const char *needle;
    } CASES[] = {
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", WIRE_EINVALID,
         "big-endian"},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", WIRE_EINVALID,
         "'<i4' is not supported"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2), }", WIRE_EINVALID,
         "not supported"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", WIRE_EINVALID,
         "Fortran order"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", WIRE_EINVALID, "is 1-D"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2), }", WIRE_EINVALID, "is 3-D"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", WIRE_EINVALID, "is 0-D"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", WIRE_EINVALID,
         "'shape' must be a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", WIRE_EINVALID, "empty"},
        {"{'descr': '<f4', 'fortran_order': False}", WIRE_EINVALID, "must have the keys"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'x': 1}", WIRE_EINVALID,
         "unexpected or repeated key 'x'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)}", WIRE_EINVALID,
         "repeated key 'descr'"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 2)}", WIRE_EINVALID,
         "structured"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 2)}", WIRE_EINVALID, "True or False"},
        {"['descr', '<f4']", WIRE_EINVALID, "dict literal"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)} junk", WIRE_EINVALID,
         "after the header dict"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 2)}",
         WIRE_EINVALID, "tuple of non-negative"},
        /* 2^31 x 2^31 x 8 overflows nothing in the check but is far over the cap */
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648), }",
         WIRE_ELIMIT, "max_table_bytes is 1048576"},
    };
    unsigned char file[512];
    const unsigned char zeros[16] = {0};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        size_t n = npy_build(file, sizeof file, CASES[i].dict, zeros, sizeof zeros);
        wire_err pb;
        wire_err_init(&pb);
        wire_tensor t;
        ck_assert_msg(wire_npy_parse(file, n, 1 << 20, 0, &t, NULL, &pb) == -1, "%s parsed",
                      CASES[i].dict);
        ASSERT_FAILS_WITH(pb, CASES[i].code, CASES[i].needle);
        ck_assert(pb.has_pointer);
        ck_assert_str_eq(pb.pointer, ""); /* the whole body */
        ck_assert_ptr_null(t.data);
    }
    /* bad magic, unknown version, a header length over the cap */
    wire_err pb;
    wire_err_init(&pb);
    wire_tensor t;
    ck_assert_int_eq(wire_npy_parse("PK\x03\x04", 4, 1 << 20, 0, &t, NULL, &pb), -1);
    ASSERT_FAILS_WITH(pb, WIRE_EINVALID, "magic");
    wire_err_init(&pb);
    ck_assert_int_eq(wire_npy_parse("\x93NUMPY\x04\x00\x10\x00", 10, 1 << 20, 0, &t, NULL, &pb),
                     -1);
    ASSERT_FAILS_WITH(pb, WIRE_EINVALID, "version 4.0");
    wire_err_init(&pb);
    ck_assert_int_eq(
        wire_npy_parse("\x93NUMPY\x02\x00\x00\x00\x10\x00", 12, 1 << 20, 0, &t, NULL, &pb), -1);
    ASSERT_FAILS_WITH(pb, WIRE_EINVALID, "exceeds the cap");
    /* a NaN is named by row and column */
    double vals[4] = {1, 2, 3, NAN};
    unsigned char raw[32];
    wire_encode_f64_le(vals, 4, raw);
    size_t n = npy_build(file, sizeof file,
                         "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", raw, 32);
    wire_err_init(&pb);
    ck_assert_int_eq(wire_npy_parse(file, n, 1 << 20, 0, &t, NULL, &pb), -1);
    ASSERT_FAILS_WITH(pb, WIRE_EINVALID, "row 1, column 1 is not finite");
}
END_TEST

/* Every prefix of a valid file is refused (never read past the end, never accepted). */
START_TEST(test_npy_truncations)
{
    unsigned char file[256];
    const double vals[4] = {1, 2, 3, 4};
    unsigned char raw[32];
    wire_encode_f64_le(vals, 4, raw);
    size_t n = npy_build(file, sizeof file,
                         "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", raw, 32);
    for (size_t len = 0; len < n; len++) {
        unsigned char *copy = malloc(len ? len : 1); /* exact size: ASan sees any overread */
        memcpy(copy, file, len);
        wire_err pb;
        wire_err_init(&pb);
        wire_tensor t;
        ck_assert_msg(wire_npy_parse(copy, len, 1 << 20, 0, &t, NULL, &pb) == -1, "len %zu", len);
        ck_assert_int_eq(pb.status, WIRE_EINVALID);
        wire_npy_info info;
        wire_err_init(&pb);
        int rc = wire_npy_parse_header(copy, len, 1 << 20, &info, &pb);
        ck_assert_int_eq(rc, len < n - 32 ? 0 : 1); /* the header is complete before the data */
        free(copy);
    }
}
END_TEST

/* ---- .safetensors -------------------------------------------------------------------------- */

/* A file with a 1-D tensor, the wanted 2 x 3 F32 table "wpe.weight" and a trailing 3-D tensor. */
static size_t st_sample(unsigned char *out, size_t cap)
{
    unsigned char data[8 + 24 + 16];
    memset(data, 0xAB, sizeof data); /* the other tensors: junk bytes (never decoded) */
    const float vals[6] = {0.5f, -1.25f, 3.0f, 0.1f, -0.0f, 65504.0f};
    for (int i = 0; i < 6; i++)
        put_f32(data + 8 + 4 * i, vals[i]);
    const char *hdr =
        "{\"__metadata__\": {\"format\": \"pt\"}, "
        "\"bias\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}, "
        "\"wpe.weight\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [8, 32]}, "
        "\"cube\": {\"dtype\": \"F16\", \"shape\": [2, 2, 2], \"data_offsets\": [32, 48]}}";
    return st_build(out, cap, hdr, data, sizeof data);
}

static void check_sample_table(const wire_tensor *t)
{
    ck_assert_uint_eq(t->rows, 2);
    ck_assert_uint_eq(t->cols, 3);
    ck_assert_int_eq(t->dtype, WIRE_DT_F32);
    ck_assert_double_eq(t->data[0], 0.5);
    ck_assert_double_eq(t->data[1], -1.25);
    ck_assert_double_eq(t->data[3], (double)0.1f);
    ck_assert(t->data[4] == 0.0 && signbit(t->data[4]));
    ck_assert_double_eq(t->data[5], 65504.0);
}

START_TEST(test_st_whole_and_chunked)
{
    unsigned char file[1024];
    size_t n = st_sample(file, sizeof file);
    wire_err pb;
    wire_err_init(&pb);
    wire_tensor t;
    /* "wpe.weight" is the only 2-D tensor: chosen without a name too */
    ck_assert_int_eq(wire_safetensors_parse(file, n, NULL, 1 << 20, &t, &pb), 0);
    check_sample_table(&t);
    wire_tensor_free(&t);
    ck_assert_int_eq(wire_safetensors_parse(file, n, "wpe.weight", 1 << 20, &t, &pb), 0);
    check_sample_table(&t);
    wire_tensor_free(&t);
    /* chunk sizes 1, 2, 3, 5, 7 (splitting elements and the header size): the same table */
    static const size_t CHUNKS[] = {1, 2, 3, 5, 7, 64};
    for (size_t k = 0; k < sizeof CHUNKS / sizeof CHUNKS[0]; k++) {
        wire_st_stream s;
        ck_assert_int_eq(wire_st_init(&s, "wpe.weight", 0, 1 << 20), 0);
        for (size_t off = 0; off < n; off += CHUNKS[k]) {
            size_t m = n - off < CHUNKS[k] ? n - off : CHUNKS[k];
            ck_assert_int_eq(wire_st_feed(&s, file + off, m), 0);
            /* done exactly once the wanted tensor's last byte (file offset 8 + hdr + 32) passed */
        }
        ck_assert(wire_st_done(&s));
        const char *name = NULL;
        ck_assert_int_eq(wire_st_finish(&s, &t, &name, &pb), 0);
        ck_assert_str_eq(name, "wpe.weight");
        check_sample_table(&t);
        wire_tensor_free(&t);
        wire_st_free(&s);
    }
}
END_TEST

START_TEST(test_st_dtypes)
{
    unsigned char file[512];
    /* BF16 [1, 2]: 0x3F80 = 1.0, 0x3EAB = 171/512; F16 [2, 1]: 0x3C00 = 1, 0x0001 = 2^-24;
     * F64 [1, 1]: -0.375 */
    const unsigned char bf[] = {0x80, 0x3F, 0xAB, 0x3E};
    const unsigned char h[] = {0x00, 0x3C, 0x01, 0x00};
    unsigned char d[8];
    wire_encode_f64_le((const double[]){-0.375}, 1, d);
    unsigned char data[16];
    memcpy(data, bf, 4);
    memcpy(data + 4, h, 4);
    memcpy(data + 8, d, 8);
    const char *hdr = "{\"b\": {\"dtype\": \"BF16\", \"shape\": [1, 2], \"data_offsets\": [0, 4]},"
                      " \"h\": {\"dtype\": \"F16\", \"shape\": [2, 1], \"data_offsets\": [4, 8]},"
                      " \"d\": {\"dtype\": \"F64\", \"shape\": [1, 1], \"data_offsets\": [8, 16]}}";
    size_t n = st_build(file, sizeof file, hdr, data, sizeof data);
    wire_err pb;
    wire_err_init(&pb);
    wire_tensor t;
    ck_assert_int_eq(wire_safetensors_parse(file, n, "b", 1 << 20, &t, &pb), 0);
    ck_assert_int_eq(t.dtype, WIRE_DT_BF16);
    ck_assert_double_eq(t.data[0], 1.0);
    ck_assert_double_eq(t.data[1], 171.0 / 512.0);
    wire_tensor_free(&t);
    ck_assert_int_eq(wire_safetensors_parse(file, n, "h", 1 << 20, &t, &pb), 0);
    ck_assert_int_eq(t.dtype, WIRE_DT_F16);
    ck_assert_double_eq(t.data[1], ldexp(1.0, -24));
    wire_tensor_free(&t);
    ck_assert_int_eq(wire_safetensors_parse(file, n, "d", 1 << 20, &t, &pb), 0);
    ck_assert_double_eq(t.data[0], -0.375);
    wire_tensor_free(&t);
    /* three 2-D tensors and no name */
    wire_err_init(&pb);
    ck_assert_int_eq(wire_safetensors_parse(file, n, NULL, 1 << 20, &t, &pb), -1);
    ASSERT_FAILS_WITH(pb, WIRE_EINVALID, "3 2-D tensors");
}
END_TEST

START_TEST(test_st_refusals)
{
    static const struct {
        const char *hdr;
        size_t data_len;
        const char *want;
        wire_status code;
        const char *needle;
    } CASES[] = {
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 16]}}", 16, "b",
         WIRE_EINVALID, "no tensor named \"b\"; the file has 1: \"a\""},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]}}", 16, NULL,
         WIRE_EINVALID, "no 2-D tensor"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]}}", 16, "a",
         WIRE_EINVALID, "is 1-D"},
        {"{\"a\": {\"dtype\": \"I64\", \"shape\": [2, 1], \"data_offsets\": [0, 16]}}", 16, NULL,
         WIRE_EINVALID, "dtype I64"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 12]}}", 16, NULL,
         WIRE_EINVALID, "spans 12 bytes"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [0, 2], \"data_offsets\": [0, 0]}}", 16, NULL,
         WIRE_EINVALID, "empty shape"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2, -2], \"data_offsets\": [0, 16]}}", 16, NULL,
         WIRE_EINVALID, "non-negative"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [16, 0]}}", 16, NULL,
         WIRE_EINVALID, "0 <= begin <= end"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2, 2]}}", 16, NULL, WIRE_EINVALID,
         "needs dtype, shape and data_offsets"},
        {"{\"a\": 5}", 16, NULL, WIRE_EINVALID, "needs dtype"},
        {"[1, 2]", 16, NULL, WIRE_EINVALID, "not a JSON object"},
        {"{\"a\": {}, \"a\": {}}", 16, NULL, WIRE_EINVALID, "not a JSON object"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [65536, 65536], \"data_offsets\": [0, 16]}}", 16,
         NULL, WIRE_ELIMIT, "max_table_bytes (1048576)"},
        /* data ends before the wanted tensor does */
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 16]}}", 12, NULL,
         WIRE_EINVALID, "before the end of tensor \"a\""},
    };
    unsigned char file[1024], zeros[64] = {0};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        size_t n = st_build(file, sizeof file, CASES[i].hdr, zeros, CASES[i].data_len);
        wire_err pb;
        wire_err_init(&pb);
        wire_tensor t;
        ck_assert_msg(wire_safetensors_parse(file, n, CASES[i].want, 1 << 20, &t, &pb) == -1,
                      "%s parsed", CASES[i].hdr);
        ASSERT_FAILS_WITH(pb, CASES[i].code, CASES[i].needle);
        ck_assert_ptr_null(t.data);
    }
    /* a header size over the cap fails as soon as its 8 bytes are in, without allocating it */
    wire_st_stream s;
    wire_st_init(&s, NULL, 0, 1 << 20);
    const unsigned char huge[8] = {0, 0, 0, 0, 0, 1, 0, 0}; /* 2^40 */
    ck_assert_int_eq(wire_st_feed(&s, huge, 8), -1);
    ck_assert_int_eq(wire_st_feed(&s, "more", 4), -1); /* sticky */
    wire_err pb;
    wire_err_init(&pb);
    wire_tensor t;
    ck_assert_int_eq(wire_st_finish(&s, &t, NULL, &pb), -1);
    ASSERT_FAILS_WITH(pb, WIRE_ELIMIT, "exceeds the cap of 16777216 bytes");
    wire_st_free(&s);
    /* a header size of 1 cannot hold a JSON object */
    wire_st_init(&s, NULL, 0, 1 << 20);
    ck_assert_int_eq(wire_st_feed(&s, "\x01\0\0\0\0\0\0\0{", 9), -1);
    wire_st_free(&s);
    /* a NaN in the wanted tensor is named by row and column; other tensors may hold anything */
    unsigned char data[24];
    memset(data, 0xFF, 8); /* "junk": two F32 NaNs, not decoded */
    put_f32(data + 8, 1.0f);
    put_f32(data + 12, 2.0f);
    put_f32(data + 16, 3.0f);
    put_f32(data + 20, NAN);
    size_t n =
        st_build(file, sizeof file,
                 "{\"junk\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}, "
                 "\"a\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [8, 24]}}",
                 data, sizeof data);
    wire_err_init(&pb);
    ck_assert_int_eq(wire_safetensors_parse(file, n, "a", 1 << 20, &t, &pb), -1);
    ASSERT_FAILS_WITH(pb, WIRE_EINVALID, "row 1, column 1 is not finite");
    put_f32(data + 20, 4.0f);
    n = st_build(file, sizeof file,
                 "{\"junk\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}, "
                 "\"a\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [8, 24]}}",
                 data, sizeof data);
    wire_err_init(&pb);
    ck_assert_int_eq(wire_safetensors_parse(file, n, "a", 1 << 20, &t, &pb), 0);
    ck_assert_double_eq(t.data[3], 4.0);
    wire_tensor_free(&t);
}
END_TEST

/* Every prefix of a valid file is refused, fed whole or byte by byte. */
START_TEST(test_st_truncations)
{
    unsigned char file[1024];
    size_t n = st_sample(file, sizeof file);
    size_t wanted_end = n - 16; /* the 3-D tensor after it is not needed */
    for (size_t len = 0; len < n; len++) {
        unsigned char *copy = malloc(len ? len : 1);
        memcpy(copy, file, len);
        wire_err pb;
        wire_err_init(&pb);
        wire_tensor t;
        int rc = wire_safetensors_parse(copy, len, NULL, 1 << 20, &t, &pb);
        /* a file cut inside the tensors after the wanted one still yields the wanted one */
        ck_assert_msg(rc == (len >= wanted_end ? 0 : -1), "len %zu: rc %d", len, rc);
        if (rc == 0)
            check_sample_table(&t);
        else
            ck_assert_msg(strstr(pb_msg(&pb), "ends after") != NULL, "len %zu: %s", len,
                          pb_msg(&pb));
        wire_tensor_free(&t);
        wire_st_stream s;
        wire_st_init(&s, NULL, 0, 1 << 20);
        for (size_t i = 0; i < len; i++)
            wire_st_feed(&s, copy + i, 1);
        wire_err_init(&pb);
        ck_assert_int_eq(wire_st_finish(&s, &t, NULL, &pb), rc);
        wire_tensor_free(&t);
        wire_st_free(&s);
        free(copy);
    }
}
END_TEST

/* A fake budget for wire_st_set_hold: records every report, refuses the call numbered refuse_at
 * (1-based; 0 = none) when it asks for more. */
typedef struct {
    size_t held;
    size_t log[8];
    int calls;
    int refuse_at;
} fake_budget;

static int fake_hold(void *cls, size_t bytes)
{
    fake_budget *b = cls;
    ck_assert_int_lt(b->calls, 8);
    b->log[b->calls++] = bytes;
    if (b->calls == b->refuse_at && bytes > b->held)
        return -1;
    b->held = bytes;
    return 0;
}

/* Feeds file[0..n) to a stream with the fake budget; returns wire_st_finish's result. */
static int st_held_run(fake_budget *b, const unsigned char *file, size_t n, wire_tensor *t,
                       wire_err *pb)
{
    wire_st_stream s;
    ck_assert_int_eq(wire_st_init(&s, "wpe.weight", 0, 1 << 20), 0);
    wire_st_set_hold(&s, fake_hold, b);
    wire_st_feed(&s, file, n);
    wire_err_init(pb);
    int rc = wire_st_finish(&s, t, NULL, pb);
    wire_st_free(&s);
    return rc;
}

/* The accounting hook: the header bytes, then the table's numbers as float64, reported as they
 * arrive; a refusal fails the stream with overloaded (no field error, what it held is freed); a
 * failure or a free reports 0; a finished table takes its reservation along. Fed whole here, so
 * each part is one report. */
START_TEST(test_st_hold)
{
    unsigned char file[1024];
    size_t n = st_sample(file, sizeof file);
    size_t hl = n - 8 - 48; /* the padded header; data: 8 + 24 + 16 bytes */
    wire_err pb;
    wire_tensor t;
    fake_budget b = {0};
    ck_assert_int_eq(st_held_run(&b, file, n, &t, &pb), 0);
    check_sample_table(&t);
    wire_tensor_free(&t);
    ck_assert_int_eq(b.calls, 3);
    ck_assert_uint_eq(b.log[0], hl);     /* the header */
    ck_assert_uint_eq(b.log[1], 0);      /* freed once parsed */
    ck_assert_uint_eq(b.log[2], 48);     /* the 2 x 3 table as float64 */
    ck_assert_uint_eq(b.held, 48);       /* handed to the caller with the table */
    for (int at = 1; at <= 3; at += 2) { /* refuse the header, then the table */
        fake_budget r = {.refuse_at = at};
        ck_assert_int_eq(st_held_run(&r, file, n, &t, &pb), -1);
        ASSERT_FAILS_WITH(pb, WIRE_EREFUSED, at == 1 ? "header" : "wpe.weight");
        ck_assert(pb.status == WIRE_ENOMEM || pb.status == WIRE_EREFUSED); /* a 503 in api/ */
        ck_assert_int_eq(pb.has_pointer, 0);
        ck_assert_uint_eq(r.held, 0);
        ck_assert_int_eq(r.calls, at); /* nothing after the refusal */
    }
    fake_budget cut = {0}; /* truncated inside the table: it is freed and reported */
    ck_assert_int_eq(st_held_run(&cut, file, n - 20, &t, &pb), -1);
    ck_assert_int_eq(pb.status, WIRE_EINVALID);
    ck_assert_int_eq(cut.calls, 4);
    ck_assert_uint_eq(cut.held, 0);
    fake_budget gone = {0}; /* the client goes away mid-table: wire_st_free reports 0 */
    wire_st_stream s;
    ck_assert_int_eq(wire_st_init(&s, "wpe.weight", 0, 1 << 20), 0);
    wire_st_set_hold(&s, fake_hold, &gone);
    ck_assert_int_eq(wire_st_feed(&s, file, n - 20), 0);
    ck_assert_uint_eq(gone.held, 40); /* 20 of the table's 24 bytes came: 5 numbers as float64 */
    wire_st_free(&s);
    ck_assert_int_eq(gone.calls, 4);
    ck_assert_uint_eq(gone.held, 0);
}
END_TEST

/* A budget hook that only keeps the last total. */
static int last_hold(void *cls, size_t bytes)
{
    *(size_t *)cls = bytes;
    return 0;
}

/* Fed one byte at a time, the parser holds only what has arrived: after the 8-byte size and 10
 * header bytes it holds 10 bytes (not the whole declared header), and inside the table one
 * float64 per whole F32 number received. */
START_TEST(test_st_hold_as_it_arrives)
{
    unsigned char file[1024];
    size_t n = st_sample(file, sizeof file);
    size_t hl = n - 8 - 48;
    size_t held = 0;
    wire_st_stream s;
    ck_assert_int_eq(wire_st_init(&s, "wpe.weight", 0, 1 << 20), 0);
    wire_st_set_hold(&s, last_hold, &held);
    size_t i = 0;
    for (; i < 8 + 10; i++)
        ck_assert_int_eq(wire_st_feed(&s, file + i, 1), 0);
    ck_assert_uint_eq(held, 10);
    for (; i < 8 + hl + 8 + 4 * 3 + 1; i++) /* the header, the other tensor, 3 numbers and a byte */
        ck_assert_int_eq(wire_st_feed(&s, file + i, 1), 0);
    ck_assert_uint_eq(held, 3 * sizeof(double));
    for (; i < n; i++)
        ck_assert_int_eq(wire_st_feed(&s, file + i, 1), 0);
    ck_assert_uint_eq(held, 48);
    wire_tensor t;
    wire_err pb;
    ck_assert_int_eq(wire_st_finish(&s, &t, NULL, &pb), 0);
    check_sample_table(&t);
    wire_tensor_free(&t);
    wire_st_free(&s);
}
END_TEST

Suite *tensor_io_suite(void)
{
    Suite *s = suite_create("tensor_io");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_f16);
    tcase_add_test(tc, test_bf16);
    tcase_add_test(tc, test_decode_le);
    tcase_add_test(tc, test_npy_f64_header_roundtrip);
    tcase_add_test(tc, test_npy_dtypes);
    tcase_add_test(tc, test_npy_refusals);
    tcase_add_test(tc, test_decode_le_f32_blocks);
    tcase_add_test(tc, test_decode_le_f64_blocks);
    tcase_add_test(tc, test_npy_truncations);
    tcase_add_test(tc, test_st_whole_and_chunked);
    tcase_add_test(tc, test_st_dtypes);
    tcase_add_test(tc, test_st_refusals);
    tcase_add_test(tc, test_st_truncations);
    tcase_add_test(tc, test_st_hold);
    tcase_add_test(tc, test_st_hold_as_it_arrives);
    suite_add_tcase(s, tc);
    return s;
}
