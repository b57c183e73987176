/*
 * core/attention.h -- scaled dot-product attention with an additive bias and a mask.
 *
 * Source: Vaswani et al., arXiv:1706.03762 §3.2.1 (softmax(scale q k^T + bias) v); the golden
 * values come from flash-attention `tests/test_flash_attn.py` `attention_ref` in float64 (see
 * docs/conventions.md#attention). The pieces are separate so that api/ can compose them
 * per method (none, alibi per head, sinusoidal/learned/rope on q and k, t5 and shaw biases):
 *
 *   pe_attention_logits       logits[i][j] = scale * q_i . k_j
 *   pe_attention_add_bias     logits += bias (PE_MASKED entries mask)
 *   pe_attention_causal_mask  logits[i][j] = PE_MASKED where key position > query position
 *   pe_attention_softmax_rows weights = row-wise masked softmax (masked weight exactly 0)
 *   pe_attention_apply        out = weights . v
 *   pe_attention_run          all of the above in order
 *
 * Shapes (row-major doubles): q [tq][d], k [tk][d], v [tk][dv], logits/bias/weights [tq][tk],
 * out [tq][dv]. A masked entry is represented by PE_MASKED (-INFINITY) in logits and biases;
 * pe_attention_is_masked() tells api/ to print it as JSON null. Every function returns
 * PE_ERR_NONFINITE rather than let a visible entry become infinite or NaN, so an unmasked -INFINITY
 * can never be produced.
 */
#ifndef PE_ATTENTION_H
#define PE_ATTENTION_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"

/* The value of a masked logit or bias entry (its softmax weight is exactly 0). */
#define PE_MASKED (-INFINITY)

/* 1 when x is the masked marker (-INFINITY), else 0. */
static inline int pe_attention_is_masked(double x)
{
    return isinf(x) && x < 0.0;
}

/*
 * logits[i][j] = scale * sum_c q[i][c] k[j][c] for i < tq, j < tk (the dot product summed in
 * order c = 0 .. d-1, then multiplied by scale, e.g. 1/sqrt(d); T5 uses 1). logits must not
 * overlap q or k. Returns PE_ERR_NONFINITE if an entry is not finite (NaN/inf inputs, overflow);
 * logits then holds partial results. Pure; thread-safe.
 */
pe_status pe_attention_logits(const double *q, const double *k, size_t tq, size_t tk, size_t d,
                              double scale, double *logits);

/*
 * logits[e] += bias[e] for e < n (n = tq * tk). A PE_MASKED entry in either operand makes the
 * result PE_MASKED. Returns PE_ERR_NONFINITE if an unmasked sum is not finite (NaN, +inf, a
 * finite overflow, or a +inf in either operand); logits then holds partial results. Pure.
 */
pe_status pe_attention_add_bias(double *logits, const double *bias, size_t n);

/*
 * Logit soft-capping: logits[e] = cap * tanh(logits[e] / cap) for e < n, cap > 0 (PE_MASKED
 * entries stay masked). Source: Gemma 2 (HF modeling_gemma2.py eager_attention_forward: after
 * the scaling, before the mask). Pure; thread-safe.
 */
void pe_attention_softcap(double *logits, size_t n, double cap);

/*
 * Masks future keys: logits[i][j] = PE_MASKED when key position > query position. The query
 * position of row i is q_positions[i], the key position of column j is k_positions[j]; when
 * either array is NULL, indices are used with queries aligned to the end of the keys (query i at
 * tk - tq + i, key j at j: the KV-cache convention; tq == tk gives plain j > i). Never fails.
 */
void pe_attention_causal_mask(double *logits, size_t tq, size_t tk, const int64_t *q_positions,
                              const int64_t *k_positions);

/*
 * Masked softmax of one row of n logits: weights[j] = exp(l_j - M) / sum over visible exp(l_v - M),
 * M = the largest visible logit; masked entries get exactly 0.0. weights may be the same pointer
 * as logits (in place), otherwise they must not overlap. Returns PE_ERR_EMPTY_ROW when every
 * entry is masked (or n is 0), PE_ERR_NONFINITE when a visible logit is NaN or +inf; weights is
 * unspecified then. Pure; thread-safe.
 */
pe_status pe_attention_softmax_row(const double *logits, size_t n, double *weights);

/*
 * pe_attention_softmax_row for each of the tq rows of [tq][tk] logits. On PE_ERR_EMPTY_ROW (or
 * PE_ERR_NONFINITE), *bad_row (when bad_row is not NULL) receives the first failing row index.
 * weights may be the same pointer as logits. Pure; thread-safe.
 */
pe_status pe_attention_softmax_rows(const double *logits, size_t tq, size_t tk, double *weights,
                                    size_t *bad_row);

/*
 * out[i][c] = sum_j weights[i][j] v[j][c] (j = 0 .. tk-1 in order) for i < tq, c < dv. out must
 * not overlap the inputs. Returns PE_ERR_NONFINITE if an entry is not finite (out holds partial
 * results). Pure; thread-safe.
 */
pe_status pe_attention_apply(const double *weights, const double *v, size_t tq, size_t tk,
                             size_t dv, double *out);

/* Shapes and options of one attention evaluation (see pe_attention_run). */
typedef struct {
    size_t tq, tk;              /* query rows and key rows, >= 1 */
    size_t d;                   /* width of q and k rows */
    size_t dv;                  /* width of v rows (ignored without v) */
    double scale;               /* logit multiplier, e.g. 1/sqrt(d) */
    const double *bias;         /* [tq][tk] additive bias (PE_MASKED masks), or NULL */
    int causal;                 /* 1: mask keys after the query (pe_attention_causal_mask) */
    const int64_t *q_positions; /* [tq] for the causal mask, or NULL (see causal_mask) */
    const int64_t *k_positions; /* [tk] for the causal mask, or NULL */
} pe_attention_params;

/* Zeroes every field (no bias, not causal, no positions) and sets scale 1. */
void pe_attention_params_init(pe_attention_params *p);

/*
 * scores = scale q k^T (+ bias) (+ causal mask); weights = masked softmax of scores; and, when v
 * and out are both non-NULL, out = weights v. scores [tq][tk] and weights [tq][tk] are
 * caller-owned and must be distinct buffers (scores is kept for the response); out is [tq][dv].
 * Returns PE_OK; PE_ERR_ARG for tq or tk 0; PE_ERR_NONFINITE (a non-finite score or output);
 * PE_ERR_EMPTY_ROW when a query row has no visible key, with the row in *bad_row when bad_row is
 * not NULL. Outputs are unspecified after a failure. Pure; thread-safe.
 */
pe_status pe_attention_run(const pe_attention_params *p, const double *q, const double *k,
                           const double *v, double *scores, double *weights, double *out,
                           size_t *bad_row);

#endif
