/*
 * core/relative.h -- relative-position attention terms: Shaw et al. and Transformer-XL.
 *
 * Both methods take q and k already projected (one head, width d) and add a query-dependent
 * position term to the logits; api/attention_shaw.c and api/attention_transformer_xl.c plug them
 * into the /attention pipeline (core/attention.h), which adds `bias` to scale * q.k^T, masks and
 * takes the softmax. Definitions and pitfalls: docs/conventions.md#relative-attention.
 *
 * Shaw, Uszkoreit, Vaswani, "Self-Attention with Relative Position Representations",
 * arXiv:1803.02155 (tensor2tensor layers/common_attention.py `dot_product_attention_relative`,
 * `_generate_relative_positions_matrix`, `_relative_attention_inner`):
 *   r(i, j)   = clip(key_pos - query_pos, -K, K) + K          (row of the 2K+1-row tables)
 *   score_ij  = scale * (q_i . k_j + q_i . aK[r(i, j)])
 *   output_i  = sum_j w_ij (v_j + aV[r(i, j)])                 (the aV term only when given)
 *
 * Dai et al., "Transformer-XL", arXiv:1901.02860 (kimiyoung/transformer-xl pytorch/
 * mem_transformer.py `PositionalEmbedding`, `RelPartialLearnableMultiHeadAttn`); the
 * bidirectional form as in XLNet arXiv:1906.08237 (HF modeling_xlnet.py `rel_attn_core`):
 *   delta     = query_pos - key_pos, clipped to [-clamp_len, clamp_len] when clamp_len > 0
 *   R(delta)  = [sin(delta w_0) .. sin(delta w_{m-1}), cos(delta w_0) .. cos(delta w_{m-1})],
 *               w_t = 1 / base^(2t / d_r) (the code's inv_freq), m = d_r / 2
 *   P(delta)  = W_R R(delta)   (W_R: d rows of d_r, the code's r_net; identity when absent)
 *   score_ij  = scale * ((q_i + u) . k_j + (q_i + v) . P(delta_ij))
 * Negative delta (keys after the query) is evaluated as is (R(-x) = (-sin, cos)): that is XLNet's
 * bidirectional attention; Transformer-XL itself only ever sees it under the causal mask.
 *
 * Shapes are row-major doubles; every buffer is caller-owned. Positions are int64 indices; NULL
 * position arrays mean 0 .. t-1. No function allocates; all are pure and thread-safe.
 */
#ifndef PE_RELATIVE_H
#define PE_RELATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"

/*
 * Shaw's table row for a query at q_pos and a key at k_pos: clip(k_pos - q_pos, -K, K) + K, in
 * 0 .. 2K (row 0: keys K or more positions before the query; row 2K: K or more after). The
 * difference is formed without overflow for any int64 positions. Never fails.
 */
size_t pe_shaw_row(int64_t q_pos, int64_t k_pos, size_t K);

/*
 * Shaw's key term: bias[i][j] = scale * sum_c q[i][c] * key_emb[r(i, j)][c] (c in order), for
 * i < tq, j < tk. q [tq][d], key_emb [2K+1][d], bias [tq][tk]; q_pos [tq] / k_pos [tk] or NULL
 * (indices). bias must not overlap the inputs. Returns PE_ERR_ARG for d == 0 or K == 0,
 * PE_ERR_NONFINITE when an entry is not finite (bias then partial). Source: arXiv:1803.02155
 * eq. (4); tensor2tensor `_relative_attention_inner(q, k, relations_keys, transpose=True)`.
 */
pe_status pe_shaw_key_bias(const double *q, size_t tq, size_t tk, size_t d, const double *key_emb,
                           size_t K, const int64_t *q_pos, const int64_t *k_pos, double scale,
                           double *bias);

/*
 * Shaw's value term: out[i][c] += sum_j weights[i][j] * val_emb[r(i, j)][c] (j in order), for
 * i < tq, c < dv. weights [tq][tk] (masked entries are exactly 0 and add nothing), val_emb
 * [2K+1][dv], out [tq][dv] (already weights . v). Returns PE_ERR_ARG for dv == 0 or K == 0,
 * PE_ERR_NONFINITE when an entry of out becomes non-finite. Source: arXiv:1803.02155 eq. (3);
 * tensor2tensor `_relative_attention_inner(weights, v, relations_values, transpose=False)`.
 */
pe_status pe_shaw_value_term(const double *weights, size_t tq, size_t tk, const double *val_emb,
                             size_t K, size_t dv, const int64_t *q_pos, const int64_t *k_pos,
                             double *out);

/*
 * The Transformer-XL sinusoid R(delta) (see above) into r [d_r]: r[t] = sin(delta * w_t),
 * r[m + t] = cos(delta * w_t), with w_t = 1 / base^((2t) / d_r) and the angle the double product
 * delta * w_t. Returns PE_ERR_ARG for d_r odd or 0, or base not finite and > 0.
 * Source: transformer-xl `PositionalEmbedding.forward` (inv_freq, torch.ger, cat([sin, cos])).
 */
pe_status pe_txl_sinusoid(int64_t delta, double base, size_t d_r, double *r);

/*
 * The distances a [tq] x [tk] score matrix uses, after clamp_len (0 = no clamp): delta runs over
 * *lo .. *lo + *n - 1. With index positions that is -(tk-1) .. tq-1 clipped to +-clamp_len.
 * q_pos / k_pos as above (NULL: indices). Returns PE_ERR_ARG for tq or tk 0, PE_ERR_RANGE when a
 * distance does not fit in int64 or the range does not fit in size_t.
 */
pe_status pe_txl_delta_range(size_t tq, size_t tk, const int64_t *q_pos, const int64_t *k_pos,
                             int64_t clamp_len, int64_t *lo, size_t *n);

/*
 * The projected position vectors P(delta) = W_R R(delta) for delta = lo .. lo + n_delta - 1:
 * out[m][c] = sum_t w_r[c][t] * R(lo + m)[t] (t in order), out [n_delta][d]. w_r [d][d_r], or
 * NULL for the identity (then d must equal d_r). work: d_r doubles of scratch. Returns PE_ERR_ARG
 * for bad sizes / base (as pe_txl_sinusoid), PE_ERR_NONFINITE when an entry is not finite.
 * Source: transformer-xl `RelPartialLearnableMultiHeadAttn` (r_head_k = r_net(r)).
 */
pe_status pe_txl_rel_table(int64_t lo, size_t n_delta, double base, size_t d_r, const double *w_r,
                           size_t d, double *work, double *out);

/*
 * The position term: bias[i][j] = scale * sum_c (q[i][c] + v_bias[c]) * rel[delta_ij - lo][c]
 * with delta_ij = q_pos[i] - k_pos[j] clipped to +-clamp_len (0 = no clamp), rel from
 * pe_txl_rel_table over lo .. lo + n_delta - 1. v_bias [d] or NULL (zero; the code's r_r_bias).
 * Entries above the diagonal use negative delta (XLNet); the causal mask is the caller's.
 * Returns PE_ERR_ARG when a distance falls outside the table, PE_ERR_NONFINITE when an entry is
 * not finite. Source: transformer-xl `RelPartialLearnableMultiHeadAttn.forward` (BD term).
 */
pe_status pe_txl_position_bias(const double *q, size_t tq, size_t tk, size_t d,
                               const double *v_bias, const double *rel, int64_t lo, size_t n_delta,
                               const int64_t *q_pos, const int64_t *k_pos, int64_t clamp_len,
                               double scale, double *bias);

/*
 * The content bias: q[i][c] += u[c] for i < t, c < d (the code's r_w_bias; the pipeline then
 * forms scale * (q_i + u) . k_j). Returns PE_ERR_NONFINITE when a sum overflows.
 */
pe_status pe_txl_shift_queries(double *q, size_t t, size_t d, const double *u);

#endif
