/*
 * wire/tensor_enc.c -- float64 to a tensor's element type (wire/tensor_enc.h).
 *
 * float16 and bfloat16 are rounded in one step: the value is snapped to the target's quantum at
 * its binade (2^(e - mantissa bits), e clamped at the smallest normal exponent so subnormals get
 * the subnormal quantum) with nearbyint (ties to even in the default rounding mode), which is
 * exact in float64; the result is then written bit by bit.
 */
#include "wire/tensor_enc.h"

#include "wire/le.h"
#include <math.h>
#include <string.h>

/* x rounded to a binary format with mbits fraction bits and smallest normal exponent emin; the
 * largest finite value is max. Returns the rounded value (+-Inf past max). */
static double round_to(double x, int mbits, int emin, double max)
{
    if (x == 0.0 || !isfinite(x))
        return x;
    int e = ilogb(x);
    if (e < emin)
        e = emin;
    double v = ldexp(nearbyint(ldexp(x, mbits - e)), e - mbits);
    if (fabs(v) > max)
        return copysign(INFINITY, x);
    return v;
}

/* The bits of v (exactly representable with mbits fraction bits, exponent bias bias, emin =
 * 1 - bias) in a 16-bit format with ebits exponent bits. */
static uint16_t bits16(double v, int mbits, int ebits, int bias)
{
    uint16_t sign = signbit(v) ? (uint16_t)0x8000u : 0;
    double a = fabs(v);
    uint32_t exp_all = (1u << ebits) - 1;
    if (isinf(a))
        return (uint16_t)(sign | (exp_all << mbits));
    if (isnan(a))
        return (uint16_t)(sign | (exp_all << mbits) | (1u << (mbits - 1)));
    if (a == 0.0)
        return sign;
    int e = ilogb(a);
    if (e < 1 - bias) /* subnormal: a = m 2^(1 - bias - mbits) */
        return (uint16_t)(sign | (uint32_t)ldexp(a, bias - 1 + mbits));
    uint32_t m = (uint32_t)ldexp(a, mbits - e) - (1u << mbits);
    return (uint16_t)(sign | ((uint32_t)(e + bias) << mbits) | m);
}

uint16_t wire_double_to_f16(double x)
{
    return bits16(round_to(x, 10, -14, 65504.0), 10, 5, 15);
}

uint16_t wire_double_to_bf16(double x)
{
    return bits16(round_to(x, 7, -126, 0x1.fep127), 7, 8, 127);
}

/* float32 values encoded in blocks of a constant length, x and out restrict-qualified, straight
 * into out: GCC's -O2 vectorizes the loop (no run-time alias check under its "very cheap" cost
 * model, no copy through a local array). */
enum { F32_BLOCK = 256 };

/* Encodes F32_BLOCK values of x as float32 into out; nonzero when one of them overflows (its
 * float32 has every exponent bit set). */
static uint32_t f32_block(const double *restrict x, unsigned char *restrict out)
{
    uint32_t any = 0;
    for (size_t i = 0; i < F32_BLOCK; i++) {
        float f = (float)x[i];
        uint32_t u;
        memcpy(&u, &f, 4);
        any |= (((u >> 23) & 0xffu) + 1u) >> 8; /* 1 when the exponent is all ones */
        wire_le_put_u32(out + 4 * i, u);
    }
    return any;
}

size_t wire_encode_le(wire_dtype dt, const double *x, size_t n, unsigned char *out)
{
    switch (dt) {
    case WIRE_DT_F64:
        for (size_t i = 0; i < n; i++)
            if (!isfinite(x[i]))
                return i;
        if ((const void *)out != (const void *)x)
            wire_encode_f64_le(x, n, out);
        return n;
    case WIRE_DT_F32: {
        size_t b = 0;
        for (; b + F32_BLOCK <= n; b += F32_BLOCK)
            if (f32_block(x + b, out + 4 * b)) /* an overflow in this block: which value */
                break;
        for (; b < n; b++) {
            float f = (float)x[b];
            if (!isfinite(f))
                return b;
            wire_le_put(out + 4 * b, &f, 4);
        }
        return n;
    }
    case WIRE_DT_F16:
    case WIRE_DT_BF16:
        for (size_t i = 0; i < n; i++) {
            uint16_t h = dt == WIRE_DT_F16 ? wire_double_to_f16(x[i]) : wire_double_to_bf16(x[i]);
            int exp_all = dt == WIRE_DT_F16 ? (h & 0x7c00) == 0x7c00 : (h & 0x7f80) == 0x7f80;
            if (exp_all)
                return i;
            wire_le_put(out + 2 * i, &h, 2);
        }
        return n;
    }
    return 0;
}
