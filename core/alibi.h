/*
 * core/alibi.h -- ALiBi head slopes and linear distance biases.
 *
 * Source: Press, Smith, Lewis, "Train Short, Test Long", arXiv:2108.12409; slopes as in the
 * authors' `get_slopes` (ofirpress/attention_with_linear_biases, copied by flash-attention and
 * xformers) and llm-foundry `gen_slopes` / HF `build_mpt_alibi_tensor`. Definitions and where the
 * references differ: docs/conventions.md#alibi.
 *
 * Notation: H heads, h = 0 .. H-1, m_h the slope of head h, i a query position, j a key position.
 * Biases are the relative form -m (i - j) (not a key-only shortcut such as m j); they are added to
 * the logits after any 1/sqrt(d) scaling and are not scaled themselves. Masked entries (future keys
 * under a causal mask) are PE_MASKED (-INFINITY); see core/attention.h for the masked softmax.
 */
#ifndef PE_ALIBI_H
#define PE_ALIBI_H

#include <stddef.h>
#include <stdint.h>

#include "core/attention.h"
#include "core/pe.h"

typedef enum {
    PE_ALIBI_PRESS = 0, /* the authors' rule, any H (default) */
    PE_ALIBI_MPT        /* llm-foundry / MPT with alibi_bias_max b */
} pe_alibi_rule;

typedef enum {
    PE_ALIBI_CAUSAL = 0, /* -m (i - j) for j <= i, masked for j > i (default) */
    PE_ALIBI_SYMMETRIC   /* -m |i - j| everywhere, no mask */
} pe_alibi_mode;

/*
 * Fills slopes[0 .. num_heads-1] (caller-owned) with the rule's slopes, computed exactly as powers
 * of two 2^e (e = integer part + fraction, ldexp(exp2(fraction), integer part)), so integral
 * exponents give exact values (e.g. 0.5) and the others are within an ulp or two.
 *   press: H a power of two: m_h = 2^(-8(h+1)/H). Otherwise c = 2^floor(log2 H): heads 0 .. c-1
 *          take the c-head slopes, heads c .. H-1 take 2^(-4(2k+1)/c) for k = 0 .. H-c-1
 *          (H = 3 gives 1/16, 1/256, 1/4; not monotonic). bias_max is ignored.
 *   mpt:   N = 2^ceil(log2 H), s_k = 2^(-b k / N) for k = 1 .. N with b = bias_max; when N != H
 *          the order is s_2, s_4, .., s_N, s_1, s_3, .. and the first H are kept. With b = 8 this
 *          equals press for every H.
 * Returns PE_ERR_ARG for num_heads 0, an unknown rule, or (mpt) bias_max not finite or <= 0;
 * slopes is untouched then. Tiny slopes may underflow to 0 for huge bias_max. Pure; thread-safe.
 */
pe_status pe_alibi_slopes(pe_alibi_rule rule, size_t num_heads, double bias_max, double *slopes);

/*
 * Fills bias[a][b] (row-major [n_q][n_k], caller-owned) for one head of slope `slope` with query
 * positions q_positions[a] and key positions k_positions[b] (i = q_positions[a],
 * j = k_positions[b]; non-negative integers below 2^52):
 *   causal:    -slope (i - j) when j <= i, PE_MASKED when j > i;
 *   symmetric: -slope |i - j|.
 * A zero distance gives +0.0 (never -0.0). Returns PE_ERR_ARG when slope is not finite or is
 * negative (bias untouched), PE_ERR_NONFINITE when a visible entry overflows to infinity (bias
 * then holds partial results). n_q or n_k 0 is a no-op. Pure; thread-safe.
 */
pe_status pe_alibi_bias(double slope, pe_alibi_mode mode, const int64_t *q_positions, size_t n_q,
                        const int64_t *k_positions, size_t n_k, double *bias);

#endif
