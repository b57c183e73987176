/*
 * core/rope_axes.h -- multi-axis RoPE: coordinate tuples instead of one position.
 *
 * Definitions: docs/conventions.md#multi-axis-rope. Notation as in core/rope.h: d = rotary dim,
 * n = d/2 pairs, b = base. A position is a tuple p = (p_0 .. p_{A-1}) of non-negative integers;
 * every type fills an A x n frequency matrix F, and pair j turns by
 *   phi_j(p) = sum_a p_a * F[a][j]     (double products, summed in axis order a = 0 .. A-1)
 * after which rotation, layouts and pass-through dims are exactly 1-D RoPE (pe_rope_rotate with
 * per-row cos/sin of phi). With s_a = sections[a] and c_a its first pair:
 *   AXIAL   pair j of section a: F[a][j] = 1 / b^((2k) / (2 s_a)), k = j - c_a (each axis is plain
 *           RoPE over its own 2 s_a dims; RoPE-ViT arXiv:2403.13298 RoPE-Axial, Qwen2-VL's
 *           vision encoder, Wan2.1 arXiv:2503.20314 3-D);
 *   MROPE   pair j of section a: F[a][j] = 1 / b^((2j) / d), the 1-D frequency of pair j (Qwen2-VL
 *           arXiv:2409.12191 M-RoPE: the exponent does not restart per section);
 *   PIXTRAL A = 2, j < n/2: F[0][j] = 1 / b^((2 (2j)) / d); j = n/2 + k: F[1][j] =
 *           1 / b^((2 (2k+1)) / d) (the even-indexed 1-D frequencies to rows, the odd ones to
 *           columns; Pixtral arXiv:2410.07073, HF PixtralRotaryEmbedding);
 *   MIXED   F given (RoPE-Mixed, learned frequencies; any finite values, also negative or 0);
 *   MROPE_INTERLEAVED  A = 3 (t, h, w), sections s_0 + s_1 + s_2 = n: F[a][j] = 1 / b^((2j) / d)
 *           on the axis that owns pair j: h when j % 3 == 1 and j < 3 s_1, w when j % 3 == 2 and
 *           j < 3 s_2, else t (Qwen3-VL / Qwen3.5, HF apply_interleaved_mrope: freqs[0] with the
 *           slices offset::3 up to 3 s_a taken from axis a).
 * All other entries of F are exactly 0. The frequencies are written as HF writes 1-D RoPE
 * (1.0 / base ** (arange(0, dim, 2) / dim), pe_rope_base_freq), so mrope with equal coordinates
 * reproduces 1-D RoPE bit for bit.
 *
 * Everything is pure and thread-safe; buffers are caller-owned; nothing allocates.
 */
#ifndef PE_ROPE_AXES_H
#define PE_ROPE_AXES_H

#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"

typedef enum {
    PE_AXES_AXIAL = 0,
    PE_AXES_MROPE = 1,
    PE_AXES_PIXTRAL = 2,
    PE_AXES_MIXED = 3,
    PE_AXES_MROPE_INTERLEAVED = 4
} pe_axes_type;

/* "axial", "mrope", "pixtral", "mixed", "mrope_interleaved" (never NULL; "unknown" otherwise). */
const char *pe_axes_type_str(pe_axes_type t);

/*
 * Checks a computed configuration (not mixed): rotary_dim even and >= 2; base finite and > 1;
 * AXIAL and MROPE: n_axes >= 1 sections, each >= 1, summing to n = rotary_dim/2
 * (MROPE_INTERLEAVED: the same with n_axes == 3); PIXTRAL:
 * sections NULL / n_axes 2 and rotary_dim a multiple of 4. Returns PE_OK or PE_ERR_ARG.
 */
pe_status pe_rope_axes_check(pe_axes_type type, size_t rotary_dim, double base,
                             const size_t *sections, size_t n_axes);

/*
 * Fills F [n_axes][n] (row-major, n = rotary_dim/2) for AXIAL, MROPE or PIXTRAL as defined above,
 * and pair_axis [n] (the axis owning pair j; may be NULL). For PIXTRAL, sections is ignored and
 * n_axes must be 2. Returns PE_ERR_ARG when pe_rope_axes_check fails or type is MIXED (F is then
 * the client's), PE_ERR_NONFINITE when a frequency is not finite. F untouched / partial then.
 */
pe_status pe_rope_axes_freqs(pe_axes_type type, size_t rotary_dim, double base,
                             const size_t *sections, size_t n_axes, double *F, int64_t *pair_axis);

/*
 * The angle of pair j at coordinates p [n_axes]: sum_a p[a] * F[a][j] in axis order, each term
 * the double product (double)p[a] * F[a][j]. F [n_axes][n]. Never fails.
 */
double pe_rope_axes_angle(const double *F, size_t n_axes, size_t n, const int64_t *p, size_t j);

/*
 * cos_out[i][j] = cos(phi_j(coords[i])), sin_out likewise, for i < n_pos, j < n; coords
 * [n_pos][n_axes] (row i = the tuple of position i). cos_out / sin_out [n_pos][n] must not overlap
 * the inputs or each other. Returns PE_ERR_NONFINITE when an angle is not finite (possible only
 * with huge MIXED frequencies), with *bad_row (may be NULL) set to the row; outputs partial then.
 */
pe_status pe_rope_axes_cos_sin(const double *F, size_t n_axes, size_t n, const int64_t *coords,
                               size_t n_pos, double *cos_out, double *sin_out, size_t *bad_row);

#endif
