/*
 * api/rope_multiaxis.h -- POST /rope in multi-axis mode (../shared/docs/rope-multiaxis.md §1;
 * api.md "Multi-axis RoPE (axes)"): coordinate-tuple positions, `axes` {type axial | mrope |
 * pixtral | mixed, sections?, freqs?}, and a pasted Qwen2-VL config whose rope_scaling (or v5
 * rope_parameters) carries `mrope_section`. Numbers from core/rope_axes.h and pe_rope_rotate.
 *
 * api/rope.c (the 1-D handler) hands such requests over at its very top:
 *   if (api_rope_axes_wanted(req)) return api_rope_axes(ctx, req, out, pb);
 */
#ifndef API_ROPE_MULTIAXIS_H
#define API_ROPE_MULTIAXIS_H

#include <jansson.h>

#include "api/api.h"

/*
 * 1 when the /rope request req (a JSON object, borrowed) is multi-axis: it has a non-null `axes`,
 * or a `config` object whose `rope_scaling` (else `rope_parameters`) object has a non-null
 * `mrope_section` (Qwen2-VL / Qwen2.5-VL config.json). 0 otherwise. Pure; never fails.
 */
int api_rope_axes_wanted(const json_t *req);

/*
 * The whole /rope request when api_rope_axes_wanted(req) (handler signature of api.h). Response:
 * inv_freq [n] and pair_axis [n] (except mixed), axis_freqs [A][n], attention_factor 1,
 * softmax_scale_factor 1, warnings?, q_positions/q_rotated, k_positions/k_rotated, scores,
 * positions/cos/sin (include "cos_sin"), resolved (with resolved.axes: type, num_axes, sections
 * filled in, source). Positions are echoed as A-tuples (a plain integer p becomes [p, .., p]).
 * Every rule of the doc is a 422 naming its field: scaling other than null/default (/scaling),
 * inv_freq, base with mixed, include other than cos_sin (/include/i), distances, pixtral with a
 * rotary dim not divisible by 4 (the rotary dim's field), sections / freqs shape errors
 * (/axes/sections, /axes/freqs/i), tuples of the wrong length (/positions/i), unknown fields in
 * axes (/axes/<name>), seq_len not above every coordinate (/seq_len).
 * The frequency-table cache (core/cache.h) is not used: it is keyed by 1-D configurations and
 * indexed by a scalar position; multi-axis angles are computed directly (A products per pair).
 */
int api_rope_axes(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);

#endif
