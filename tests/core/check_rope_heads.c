/*
 * tests/core/check_rope_heads.c -- pe_rope_rotate_heads ([T][H][D], cos/sin shared by the heads of
 * a position) and the large-output path of the rotation kernels (non-temporal stores on x86-64,
 * from 4 MiB of output): every vector must be bit-identical to pe_rope_rotate on that vector
 * alone (a small call, so the plain cached path), for both layouts, full and partial rotary,
 * output 32-byte aligned, 16 bytes off (the AVX2 kernels then do a first pair 2-wide) and 8 bytes
 * off (plain path), and pair counts that leave a 2-wide tail. Plus one hand-derived value: theta_0
 * = 1 (j = 0), so pair 0 of position p is (x1 cos p - x2 sin p, x2 cos p + x1 sin p). Tolerance:
 * none (ck_assert on the bits); the hand value to 1 ulp-scale 1e-15.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rope.h"
#include "core/rope_priv.h"

static void fill(double *x, size_t n)
{
    uint64_t s = 0x243F6A8885A308D3ULL;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = (double)(int64_t)(s >> 11) / 4503599627370496.0; /* about [-1, 1) */
    }
}

/* T x H x D through pe_rope_rotate_heads (kernels up to max_level: 3 = AVX-512F and 2 = AVX2 where
 * the processor has them, 1 = SSE2, see core/rope_priv.h) against per-vector pe_rope_rotate. */
static void check_heads_level(size_t T, size_t H, size_t D, size_t rot, pe_rope_layout layout,
                              size_t misalign, int max_level)
{
    size_t n = rot / 2, total = T * H * D;
    double *x = malloc(total * sizeof *x);
    /* misalign (doubles past a 64-byte boundary): 0 aligned, 2, 4, 6 = 16, 32, 48 bytes off 64,
     * 1 = 8 bytes off 16 (the plain path is taken) */
    size_t buf_bytes = ((total + 8) * sizeof(double) + 63) / 64 * 64;
    double *buf = aligned_alloc(64, buf_bytes);
    double *out = buf + misalign;
    double *inv = malloc(n * sizeof *inv), *c = malloc(T * n * sizeof *c),
           *s = malloc(T * n * sizeof *s);
    ck_assert(x && buf && inv && c && s);
    fill(x, total);
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = rot;
    double att = 0.0;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    att = 1.25; /* an attention factor other than 1 exercises the scaling */
    pe_rope_cos_sin_range(inv, n, 0, T, c, s);
    pe_rope_rotate_heads_level(x, c, s, T, H, D, rot, layout, att, max_level, out);
    double one[512];
    ck_assert_uint_le(D, 512);
    size_t bad = 0;
    for (size_t t = 0; t < T; t++) {
        for (size_t h = 0; h < H; h++) {
            const double *xv = x + (t * H + h) * D;
            pe_rope_rotate(xv, D, c + t * n, s + t * n, 1, D, rot, layout, att, one);
            bad += memcmp(one, out + (t * H + h) * D, D * sizeof *one) != 0;
        }
    }
    ck_assert_msg(bad == 0,
                  "%zu of %zu vectors differ (T %zu H %zu D %zu rot %zu layout %d misalign %zu "
                  "level %d)",
                  bad, T * H, T, H, D, rot, (int)layout, misalign, max_level);
    /* hand value: pair 0 at position t turns by t rad (theta_0 = 1), times att */
    size_t t = T - 1;
    const double *xv = x + (t * H + 0) * D;
    double a = xv[0], b = layout == PE_ROPE_HALF ? xv[n] : xv[1];
    ck_assert_double_eq_tol(out[t * H * D], att * (a * cos((double)t) - b * sin((double)t)), 1e-15);
    free(x);
    free(buf);
    free(inv);
    free(c);
    free(s);
}

/* check_heads_level at every kernel level: the SSE2 and AVX2 kernels stay tested on AVX-512
 * machines. */
static void check_heads(size_t T, size_t H, size_t D, size_t rot, pe_rope_layout layout,
                        size_t misalign)
{
    for (int level = 1; level <= PE_ROPE_LEVEL_MAX; level++)
        check_heads_level(T, H, D, rot, layout, misalign, level);
    if (T * H * D < ((size_t)1 << 19)) /* small: the plain kernels whatever the level */
        check_heads_level(T, H, D, rot, layout, misalign, 0);
}

START_TEST(test_heads_large)
{
    /* 512 x 16 x 128 doubles = 8 MiB of output: above the 4 MiB threshold */
    for (size_t m = 0; m <= 6; m += 2) { /* 64-byte aligned, then 16, 32, 48 bytes off */
        check_heads(512, 16, 128, 128, PE_ROPE_HALF, m);
        check_heads(512, 16, 128, 128, PE_ROPE_INTERLEAVED, m);
        check_heads(512, 16, 128, 64, PE_ROPE_HALF, m);         /* partial rotary, n even */
        check_heads(512, 16, 128, 96, PE_ROPE_INTERLEAVED, m);  /* partial rotary */
        check_heads(512, 16, 100, 100, PE_ROPE_HALF, m);        /* n = 50: a 2-wide tail */
        check_heads(520, 16, 126, 126, PE_ROPE_INTERLEAVED, m); /* n = 63: a last single pair */
    }
    check_heads(520, 16, 126, 126, PE_ROPE_HALF, 0); /* n = 63 odd: plain path */
    check_heads(512, 16, 128, 128, PE_ROPE_HALF, 1); /* 8 bytes off: plain path */
}
END_TEST

START_TEST(test_heads_small)
{
    check_heads(7, 3, 8, 8, PE_ROPE_HALF, 0);
    check_heads(7, 3, 8, 4, PE_ROPE_INTERLEAVED, 0);
    check_heads(1, 1, 2, 2, PE_ROPE_HALF, 0);
}
END_TEST

START_TEST(test_rotate_large_equals_small)
{
    /* pe_rope_rotate itself on [8192][128] (8 MiB): each row as its own small call */
    size_t T = 8192, D = 128, n = 64;
    double *x = malloc(T * D * sizeof *x), *out = malloc(T * D * sizeof *out);
    double *inv = malloc(n * sizeof *inv), *c = malloc(T * n * sizeof *c),
           *s = malloc(T * n * sizeof *s);
    ck_assert(x && out && inv && c && s);
    fill(x, T * D);
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = D;
    double att = 0.0;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    pe_rope_cos_sin_range(inv, n, 100, T, c, s);
    for (int layout = 0; layout < 2; layout++) {
        pe_rope_rotate(x, D, c, s, T, D, D, (pe_rope_layout)layout, 1.0, out);
        double one[128];
        size_t bad = 0;
        for (size_t t = 0; t < T; t++) {
            pe_rope_rotate(x + t * D, D, c + t * n, s + t * n, 1, D, D, (pe_rope_layout)layout, 1.0,
                           one);
            bad += memcmp(one, out + t * D, sizeof one) != 0;
        }
        ck_assert_msg(bad == 0, "layout %d: %zu rows differ", layout, bad);
    }
    free(x);
    free(out);
    free(inv);
    free(c);
    free(s);
}
END_TEST

Suite *rope_heads_suite(void)
{
    Suite *s = suite_create("rope_heads");
    TCase *tc = tcase_create("rope_heads");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_heads_large);
    tcase_add_test(tc, test_heads_small);
    tcase_add_test(tc, test_rotate_large_equals_small);
    suite_add_tcase(s, tc);
    return s;
}
