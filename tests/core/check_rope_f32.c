/*
 * tests/core/check_rope_f32.c -- pe_rope_rotate_heads_f32 (core/rope.h): float32 tensors rotated
 * in one pass must be bit for bit the float64 path rounded once to float32 -- pe_rope_rotate_heads
 * (plain kernels, level 0) on the values widened to double, each result cast to float -- at every
 * kernel level (0 plain, 2 AVX2, 3 AVX-512F where the processor has them), for full and partial
 * rotary (the pass-through dims copied), pair counts that leave a tail for the 4- and 8-wide loops
 * and an attention factor other than 1. Plus a value past FLT_MAX becoming +Inf, and one
 * hand-derived value. Tolerance: none (the bits), the hand value to float32 rounding.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rope.h"
#include "core/rope_priv.h"

static void fill(float *x, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = (float)((double)(int64_t)(s >> 11) / 4503599627370496.0 * 8.0); /* about [-8, 8) */
    }
}

/* T x H x D float32 at every level against the float64 path rounded to float32. */
static void check_f32(size_t T, size_t H, size_t D, size_t rot)
{
    size_t n = rot / 2, total = T * H * D;
    float *x = malloc(total * sizeof *x), *out = malloc(total * sizeof *out);
    double *xd = malloc(total * sizeof *xd), *yd = malloc(total * sizeof *yd);
    double *inv = malloc(n * sizeof *inv), *c = malloc(T * n * sizeof *c),
           *s = malloc(T * n * sizeof *s);
    ck_assert(x && out && xd && yd && inv && c && s);
    fill(x, total, 0x243F6A8885A308D3ULL + total);
    for (size_t i = 0; i < total; i++)
        xd[i] = (double)x[i];
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = rot;
    double att = 0.0;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    att = 1.0625;
    pe_rope_cos_sin_range(inv, n, 100, T, c, s);
    pe_rope_rotate_heads_level(xd, c, s, T, H, D, rot, PE_ROPE_HALF, att, 0, yd);
    for (int level = 0; level <= PE_ROPE_LEVEL_MAX; level++) {
        memset(out, 0xff, total * sizeof *out);
        ck_assert_int_eq(pe_rope_rotate_heads_f32_level(x, c, s, T, H, D, rot, att, level, out), 0);
        size_t bad = 0;
        for (size_t i = 0; i < total; i++) {
            float want = (float)yd[i];
            bad += memcmp(&want, &out[i], sizeof want) != 0;
        }
        ck_assert_msg(bad == 0, "%zu of %zu values differ (T %zu H %zu D %zu rot %zu level %d)",
                      bad, total, T, H, D, rot, level);
    }
    free(x);
    free(out);
    free(xd);
    free(yd);
    free(inv);
    free(c);
    free(s);
}

START_TEST(test_levels_agree)
{
    check_f32(37, 4, 128, 128); /* Llama: 64 pairs, 8-wide throughout */
    check_f32(9, 3, 64, 32);    /* partial rotary: 16 pairs, 32 dims copied */
    check_f32(11, 2, 26, 26);   /* 13 pairs: tails of the 8- and 4-wide loops */
    check_f32(5, 1, 22, 10);    /* 5 pairs, 12 dims copied */
    check_f32(3, 2, 2, 2);      /* one pair */
}
END_TEST

/* Position 1, one pair, inv_freq 1: angle 1 rad. x = (3, 4): (3 cos 1 - 4 sin 1, 4 cos 1 + 3 sin 1)
 * = (-1.74497..., 4.68562...) in float64, then rounded; and (3e38, 3e38) at angle pi/4 has a second
 * value 3e38 * sqrt(2) = 4.24e38 > FLT_MAX (3.40e38): +Inf in float32. */
START_TEST(test_hand_values)
{
    float x[2] = {3.0f, 4.0f}, out[2];
    double c = cos(1.0), s = sin(1.0);
    for (int level = 0; level <= PE_ROPE_LEVEL_MAX; level++) {
        pe_rope_rotate_heads_f32_level(x, &c, &s, 1, 1, 2, 2, 1.0, level, out);
        ck_assert_float_eq(out[0], (float)(3.0 * c - 4.0 * s));
        ck_assert_float_eq(out[1], (float)(4.0 * c + 3.0 * s));
        ck_assert_float_eq_tol(out[0], -1.74497, 1e-5);
        ck_assert_float_eq_tol(out[1], 4.68562, 1e-5);
    }
    float big[2] = {3e38f, 3e38f};
    double c4 = cos(M_PI / 4), s4 = sin(M_PI / 4);
    ck_assert_int_eq(pe_rope_rotate_heads_f32(big, &c4, &s4, 1, 1, 2, 2, 1.0, out), 1);
    ck_assert(fabsf(out[0]) < 1e32f);
    ck_assert(isinf(out[1]) && out[1] > 0);
}
END_TEST

/* The result flags a non-finite value wherever it is, at every level: a NaN or an infinity in x
 * (in the first or the second half of a pair, in a 8-wide block or a tail, at position 0 where
 * sin is 0 and Inf * 0 is NaN), in a passed-through dim, and an overflow; finite data gives 0. */
START_TEST(test_nonfinite_flagged)
{
    enum { T = 3, D = 40, ROT = 36 }; /* 18 pairs: two 8-wide blocks and a tail of 2 */
    float x[T * D], out[T * D];
    double c[T * 18], s[T * 18];
    for (size_t i = 0; i < T * 18; i++) {
        c[i] = i < 18 ? 1.0 : cos(0.1 * (double)i);
        s[i] = i < 18 ? 0.0 : sin(0.1 * (double)i); /* position 0: angle 0 */
    }
    const size_t at[] = {0, 5, 17, 20, 35, 36, 39, 40 + 7, 80 + 19};
    const float bad[] = {INFINITY, -INFINITY, NAN};
    for (int level = 0; level <= PE_ROPE_LEVEL_MAX; level++) {
        for (size_t i = 0; i < T * D; i++)
            x[i] = (float)(i % 7) - 3.0f;
        ck_assert_int_eq(pe_rope_rotate_heads_f32_level(x, c, s, T, 1, D, ROT, 1.0, level, out), 0);
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            for (size_t v = 0; v < 3; v++) {
                float keep = x[at[k]];
                x[at[k]] = bad[v];
                ck_assert_msg(
                    pe_rope_rotate_heads_f32_level(x, c, s, T, 1, D, ROT, 1.0, level, out) == 1,
                    "level %d element %zu value %zu", level, at[k], v);
                x[at[k]] = keep;
            }
        }
        x[50] = 3e38f; /* position 1, pair 10's first half: with its partner, past FLT_MAX */
        x[68] = 3e38f;
        ck_assert_int_eq(pe_rope_rotate_heads_f32_level(x, c, s, T, 1, D, ROT, 1.0, level, out), 1);
    }
}
END_TEST

/* Values at the edges of float32, every level against the float64 path rounded: subnormal inputs
 * and results (a process that flushes them -- MXCSR's FTZ/DAZ, which -Ofast's start-up code sets --
 * would give zeros), signed zeros (angle 0: -0 c - (+0) s = -0 - 0 = -0, +0 c + (-0) s = +0), and
 * the overflow boundary: at angle 0 out1 = a x1, and FLT_MAX (2^128 - 2^104, ulp 2^104) times
 * a = 1 + 2^-25 is FLT_MAX + 2^103 (1 - 2^-24), under half an ulp: rounds to FLT_MAX, finite, not
 * flagged; times 1 + 2^-24 it is FLT_MAX + 2^104 (1 - 2^-24), past half an ulp: +Inf, flagged. */
START_TEST(test_float32_edges)
{
    enum { T = 2, D = 8, N = 4 }; /* 2 positions (angles 0 and 1 rad per pair), 4 pairs */
    const float x[T * D] = {1e-45f, -1e-40f, 1.17549e-38f, -0.0f, 3e-39f, 2e-45f, -1e-38f, 0.0f,
                            -0.0f,  3e-45f,  -3e-40f,      0.0f,  1e-44f, -0.0f,  5e-39f,  -0.0f};
    double c[T * N], s[T * N];
    for (size_t j = 0; j < N; j++) {
        c[j] = 1.0, s[j] = 0.0;
        c[N + j] = cos(1.0), s[N + j] = sin(1.0);
    }
    double xd[T * D], yd[T * D];
    for (size_t i = 0; i < T * D; i++)
        xd[i] = (double)x[i];
    pe_rope_rotate_heads_level(xd, c, s, T, 1, D, D, PE_ROPE_HALF, 1.0, 0, yd);
    size_t subnormal = 0;
    for (size_t i = 0; i < T * D; i++)
        subnormal += (float)yd[i] != 0.0f && fabsf((float)yd[i]) < 1.17549435e-38f;
    ck_assert_uint_ge(subnormal, 8); /* the results are subnormal too, not only the inputs */
    float out[T * D];
    for (int level = 0; level <= PE_ROPE_LEVEL_MAX; level++) {
        ck_assert_int_eq(pe_rope_rotate_heads_f32_level(x, c, s, T, 1, D, D, 1.0, level, out), 0);
        for (size_t i = 0; i < T * D; i++) {
            float want = (float)yd[i];
            ck_assert_msg(memcmp(&want, &out[i], 4) == 0, "level %d value %zu: %a, want %a", level,
                          i, (double)out[i], (double)want);
        }
        ck_assert(signbit(out[3]) && !signbit(out[7])); /* x[3] = -0, x[7] = +0 at angle 0 */
        const float big[2] = {3.40282347e38f, 1.0f};
        double c0 = 1.0, s0 = 0.0;
        float o2[2];
        ck_assert_int_eq(
            pe_rope_rotate_heads_f32_level(big, &c0, &s0, 1, 1, 2, 2, 1.0 + 0x1p-25, level, o2), 0);
        ck_assert_float_eq(o2[0], 3.40282347e38f);
        ck_assert_int_eq(
            pe_rope_rotate_heads_f32_level(big, &c0, &s0, 1, 1, 2, 2, 1.0 + 0x1p-24, level, o2), 1);
        ck_assert(isinf(o2[0]) && o2[0] > 0);
    }
}
END_TEST

Suite *rope_f32_suite(void)
{
    Suite *s = suite_create("rope_f32");
    TCase *tc = tcase_create("rope_f32");
    tcase_add_test(tc, test_levels_agree);
    tcase_add_test(tc, test_hand_values);
    tcase_add_test(tc, test_nonfinite_flagged);
    tcase_add_test(tc, test_float32_edges);
    suite_add_tcase(s, tc);
    return s;
}
