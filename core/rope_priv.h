/*
 * core/rope_priv.h -- core/rope_rotate.c's and core/rope_f32.c's kernel choice, for the tests only
 * (tests/core/check_rope_heads.c): not part of the core API.
 */
#ifndef CORE_ROPE_PRIV_H
#define CORE_ROPE_PRIV_H

#include <stddef.h>

#include "core/rope.h"

/* The highest kernel level (pe_rope_rotate_heads_level). */
#define PE_ROPE_LEVEL_MAX 3

/*
 * pe_rope_rotate_heads (same arguments, shapes and result) with the rotation kernels limited to
 * max_level: 0 the plain C kernels only, 1 up to the SSE2 non-temporal ones, 2 up to their AVX2
 * forms, 3 (PE_ROPE_LEVEL_MAX, what pe_rope_rotate_heads uses) up to their AVX-512F forms. A level
 * is used only where the shape, the alignment, the output size (4 MiB and more) and the processor
 * allow it, so every level gives the same bits; the tests check that each one does.
 */
void pe_rope_rotate_heads_level(const double *restrict x, const double *restrict cs_cos,
                                const double *restrict cs_sin, size_t n_pos, size_t n_heads,
                                size_t head_dim, size_t rotary_dim, pe_rope_layout layout,
                                double attention_factor, int max_level, double *restrict out);

/* pe_rope_rotate_heads_f32 with its kernels limited to max_level: 0 plain C, 2 AVX2, 3 (what
 * pe_rope_rotate_heads_f32 uses) AVX-512F, each where the processor has it. Same bits and the same
 * result at every level. */
int pe_rope_rotate_heads_f32_level(const float *restrict x, const double *restrict cs_cos,
                                   const double *restrict cs_sin, size_t n_pos, size_t n_heads,
                                   size_t head_dim, size_t rotary_dim, double attention_factor,
                                   int max_level, float *restrict out);

#endif
