/*
 * tests/wire/check_tensor_enc.c -- float64 to float16 / bfloat16 / float32 (wire/tensor_enc.h):
 * values derived by hand from the formats (binary16: 5 exponent bits, bias 15, 10 fraction bits;
 * bfloat16: the upper half of a binary32), ties to even, one rounding step from float64.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "wire/tensor_enc.h"

START_TEST(test_f16)
{
    ck_assert_uint_eq(wire_double_to_f16(1.0), 0x3c00);      /* exponent 15, fraction 0 */
    ck_assert_uint_eq(wire_double_to_f16(-2.0), 0xc000);     /* sign, exponent 16 */
    ck_assert_uint_eq(wire_double_to_f16(65504.0), 0x7bff);  /* the largest finite */
    ck_assert_uint_eq(wire_double_to_f16(65519.99), 0x7bff); /* below the midpoint 65520 */
    ck_assert_uint_eq(wire_double_to_f16(65520.0), 0x7c00);  /* the tie goes to 65536: Inf */
    ck_assert_uint_eq(wire_double_to_f16(0x1p-24), 0x0001);  /* the smallest subnormal */
    ck_assert_uint_eq(wire_double_to_f16(0x1p-25), 0x0000);  /* tie between 0 and 2^-24: even */
    ck_assert_uint_eq(wire_double_to_f16(0x3p-26), 0x0001);  /* 0.75 of the quantum: up */
    ck_assert_uint_eq(wire_double_to_f16(0x1p-14), 0x0400);  /* the smallest normal */
    ck_assert_uint_eq(wire_double_to_f16(1.0 + 0x1p-11), 0x3c00);           /* tie: even */
    ck_assert_uint_eq(wire_double_to_f16(1.0 + 0x1p-11 + 0x1p-40), 0x3c01); /* above the tie */
    ck_assert_uint_eq(wire_double_to_f16(-0.0), 0x8000);
}
END_TEST

START_TEST(test_bf16)
{
    ck_assert_uint_eq(wire_double_to_bf16(1.0), 0x3f80);
    ck_assert_uint_eq(wire_double_to_bf16(1.0 + 0x1p-8), 0x3f80); /* tie: even */
    ck_assert_uint_eq(wire_double_to_bf16(1.0 + 0x3p-9), 0x3f81); /* 0.75 of 2^-7: up */
    /* 1 + 2^-8 + 2^-30: just above the tie, so up; through float32 first it would be the tie
     * itself (2^-30 is below float32's half ulp at 1) and go down to 0x3f80 */
    ck_assert_uint_eq(wire_double_to_bf16(1.0 + 0x1p-8 + 0x1p-30), 0x3f81);
    ck_assert_uint_eq(wire_double_to_bf16(0x1.fep127), 0x7f7f); /* the largest finite */
    ck_assert_uint_eq(wire_double_to_bf16(0x1.ffp127), 0x7f80); /* its tie rounds to Inf */
    ck_assert_uint_eq(wire_double_to_bf16(0x1p-133), 0x0001);   /* the smallest subnormal */
}
END_TEST

START_TEST(test_encode_le)
{
    double x[3] = {1.0, 0.1, 3.4e38};
    unsigned char out[24];
    ck_assert_uint_eq(wire_encode_le(WIRE_DT_F32, x, 3, out), 3);
    float f;
    memcpy(&f, out + 4, 4);
    ck_assert(f == (float)0.1);
    x[2] = 3.5e38; /* over FLT_MAX (3.4028235e38): overflows float32 */
    ck_assert_uint_eq(wire_encode_le(WIRE_DT_F32, x, 3, out), 2);
    ck_assert_uint_eq(wire_encode_le(WIRE_DT_F16, x, 2, out), 2);
    x[1] = 70000.0;
    ck_assert_uint_eq(wire_encode_le(WIRE_DT_F16, x, 2, out), 1);
    x[0] = NAN;
    ck_assert_uint_eq(wire_encode_le(WIRE_DT_F64, x, 2, out), 0);
}
END_TEST

/* float32 past one block of the vectorized encoder (256 values): the bytes are those of (float)x
 * one by one; the first overflow is found in a full block and in the tail, FLT_MAX is finite. */
START_TEST(test_encode_le_f32_blocks)
{
    enum { N = 600 }; /* two full blocks and a tail of 88 */
    static double x[N];
    static unsigned char out[4 * N];
    for (size_t i = 0; i < N; i++)
        x[i] = ((double)i * 0.37 - 100.0) * (i % 3 ? 1e-3 : 1e35);
    x[7] = 0x1.fffffep127; /* FLT_MAX */
    ck_assert_uint_eq(wire_encode_le(WIRE_DT_F32, x, N, out), N);
    for (size_t i = 0; i < N; i++) {
        float f = (float)x[i];
        ck_assert(memcmp(out + 4 * i, &f, 4) == 0);
    }
    x[300] = -3.5e38; /* over FLT_MAX: -Inf in float32 */
    x[301] = 1e300;
    ck_assert_uint_eq(wire_encode_le(WIRE_DT_F32, x, N, out), 300);
    x[300] = x[301] = 0.0;
    x[550] = 1e39; /* in the tail */
    ck_assert_uint_eq(wire_encode_le(WIRE_DT_F32, x, N, out), 550);
}
END_TEST

Suite *tensor_enc_suite(void)
{
    Suite *s = suite_create("tensor_enc");
    TCase *tc = tcase_create("tensor_enc");
    tcase_add_test(tc, test_f16);
    tcase_add_test(tc, test_bf16);
    tcase_add_test(tc, test_encode_le);
    tcase_add_test(tc, test_encode_le_f32_blocks);
    suite_add_tcase(s, tc);
    return s;
}
