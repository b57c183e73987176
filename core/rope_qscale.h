/*
 * core/rope_qscale.h -- query scales by position that some models apply to q after RoPE
 * (the attention logits of such a layer grow with the query's position):
 *
 *   Ministral 3 (transformers models/ministral3/modeling_ministral3.py, _get_llama_4_attn_scale,
 *   applied to the rotated queries of every layer):
 *       s(p) = 1 + beta * ln(1 + floor(p / original_max_position_embeddings))
 *
 *   Llama 4 (models/llama4/modeling_llama4.py, Llama4TextAttention with attn_temperature_tuning,
 *   applied to the queries of its no-RoPE layers only, after the projection):
 *       s(p) = log1p(floor((p + 1) / floor_scale)) * attn_scale + 1
 *
 * Positions are token indices (cache_position), >= 0. Pure, thread-safe, no allocation.
 */
#ifndef CORE_ROPE_QSCALE_H
#define CORE_ROPE_QSCALE_H

#include <stdint.h>

/* Ministral 3's scale at position pos (>= 0) for beta and original length l0 (>= 1). */
double pe_qscale_llama4_beta(int64_t pos, double beta, int64_t l0);

/* Llama 4's attention temperature at position pos (>= 0), attn_scale, floor_scale (> 0): the
 * division and floor in double (HF: float32 of cache_position + 1, exact below 2^24). */
double pe_qscale_llama4_temp(int64_t pos, double attn_scale, double floor_scale);

#endif
