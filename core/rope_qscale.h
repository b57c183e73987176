/*
 * core/rope_qscale.h -- query scales by position that some models apply to q after RoPE
 * (the attention logits of such a layer grow with the query's position):
 *
 *   Ministral 3 (transformers models/ministral3/modeling_ministral3.py, _get_llama_4_attn_scale,
 *   applied to the rotated queries of every layer):
 *       s(p) = 1 + beta * ln(1 + floor(p / original_max_position_embeddings))
 *
 * Positions are token indices (cache_position), >= 0. Pure, thread-safe, no allocation.
 */
#ifndef CORE_ROPE_QSCALE_H
#define CORE_ROPE_QSCALE_H

#include <stdint.h>

/* Ministral 3's scale at position pos (>= 0) for beta and original length l0 (>= 1). */
double pe_qscale_llama4_beta(int64_t pos, double beta, int64_t l0);

#endif
