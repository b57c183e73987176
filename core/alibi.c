/*
 * core/alibi.c -- ALiBi slopes (press and mpt rules) and per-head distance biases.
 *
 * Source: arXiv:2108.12409; ofirpress `get_slopes`, llm-foundry `gen_slopes`,
 * flash-attention `attn_bias_from_alibi_slopes` (see alibi.h and
 * docs/conventions.md#alibi). The references multiply rounded powers (and HF BLOOM
 * works in float32); here every slope is 2^e with e computed exactly, so e.g. 2^-1 is exactly 0.5.
 */
#include "core/alibi.h"

#include <math.h>

/* 2^e, exact when e is an integer: e = fl + fr with fl = floor(e) and 0 <= fr < 1. */
static double pow2(double e)
{
    double fl = floor(e);
    double fr = e - fl; /* exact: the fractional bits of e */
    if (fl < -2200.0)
        return 0.0; /* far below the smallest subnormal */
    if (fl > 2200.0)
        return HUGE_VAL;
    return ldexp(exp2(fr), (int)fl);
}

/* Largest power of two <= n (n >= 1). */
static size_t floor_pow2(size_t n)
{
    size_t c = 1;
    while (c <= n / 2)
        c *= 2;
    return c;
}

/* Press rule for a power-of-two count c: slope of head h is 2^(-8(h+1)/c); 8(h+1)/c is exact. */
static void press_pow2(size_t c, double *slopes)
{
    for (size_t h = 0; h < c; h++)
        slopes[h] = pow2(-8.0 * (double)(h + 1) / (double)c);
}

pe_status pe_alibi_slopes(pe_alibi_rule rule, size_t num_heads, double bias_max, double *slopes)
{
    if (num_heads == 0)
        return PE_ERR_ARG;
    size_t c = floor_pow2(num_heads);
    if (rule == PE_ALIBI_PRESS) {
        press_pow2(c, slopes);
        /* Extra heads: the odd-numbered entries 2^(-4(2k+1)/c) of the 2c-head sequence. */
        for (size_t k = 0; k < num_heads - c; k++)
            slopes[c + k] = pow2(-4.0 * (double)(2 * k + 1) / (double)c);
        return PE_OK;
    }
    if (rule != PE_ALIBI_MPT)
        return PE_ERR_ARG;
    if (!isfinite(bias_max) || !(bias_max > 0.0))
        return PE_ERR_ARG;
    size_t n = c == num_heads ? c : 2 * c; /* N = 2^ceil(log2 H) */
    /* s_k = 2^(-b k / N), k = 1..N. N != H: order s_2, s_4, .., s_N, then s_1, s_3, ..; keep H. */
    size_t out = 0;
    if (n == num_heads) {
        for (size_t k = 1; k <= n; k++)
            slopes[out++] = pow2(-bias_max * (double)k / (double)n);
        return PE_OK;
    }
    for (size_t k = 2; k <= n && out < num_heads; k += 2)
        slopes[out++] = pow2(-bias_max * (double)k / (double)n);
    for (size_t k = 1; k <= n && out < num_heads; k += 2)
        slopes[out++] = pow2(-bias_max * (double)k / (double)n);
    return PE_OK;
}

pe_status pe_alibi_bias(double slope, pe_alibi_mode mode, const int64_t *q_positions, size_t n_q,
                        const int64_t *k_positions, size_t n_k, double *bias)
{
    if (!isfinite(slope) || slope < 0.0)
        return PE_ERR_ARG;
    if (mode != PE_ALIBI_CAUSAL && mode != PE_ALIBI_SYMMETRIC)
        return PE_ERR_ARG;
    pe_status st = PE_OK;
    for (size_t a = 0; a < n_q; a++) {
        double i = (double)q_positions[a];
        double *row = bias + a * n_k;
        for (size_t b = 0; b < n_k; b++) {
            double dist = i - (double)k_positions[b]; /* i - j, exact below 2^53 */
            if (dist < 0.0) {
                if (mode == PE_ALIBI_CAUSAL) {
                    row[b] = PE_MASKED;
                    continue;
                }
                dist = -dist;
            }
            /* 0.0 - x turns a zero product into +0.0; otherwise it equals -x exactly. */
            double v = 0.0 - slope * dist;
            if (!isfinite(v))
                st = PE_ERR_NONFINITE;
            row[b] = v;
        }
    }
    return st;
}
