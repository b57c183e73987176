/*
 * core/rope_f32.c -- RoPE on float32 tensors with float64 arithmetic, in one pass
 * (pe_rope_rotate_heads_f32, core/rope.h).
 *
 * Each float32 value is widened to float64 exactly, rotated with pe_rope_rotate's expressions for
 * the half layout (out1 = a (x1 c - x2 s), out2 = a (x2 c + x1 s), Hugging Face's rotate_half),
 * and rounded once to float32 (to nearest, ties to even: C's conversion and CVTPD2PS alike). So
 * the result is bit for bit the float64 path's rotation rounded to float32, without the float64
 * copies of the tensor in between. The AVX2 and AVX-512F forms compute every lane exactly as the
 * plain loop does (same operations in the same order, no FMA: ISO C mode compiles with
 * -ffp-contract=off), so every level gives the same bits (tests/core/check_rope_f32.c).
 *
 * The result also says whether an output value is not finite, from its float32 bits as it is
 * written: a non-finite input always makes one (x1 = +-Inf or NaN gives a non-finite x1 c - x2 s
 * whatever c is, as inf * 0 is NaN; likewise x2 in x2 c + x1 s; a passed-through dim is copied),
 * and so does a value past FLT_MAX. The caller then redoes the rows on its float64 path, which
 * names the element, so the input needs no separate pass.
 */
#include "core/rope.h"
#include "core/rope_priv.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define PE_ROPE_F32_X86 1
#endif

/* 1 when the float32 bit pattern u has every exponent bit set (NaN, +-Inf). */
static inline __attribute__((always_inline)) uint32_t exp_all_ones(uint32_t u)
{
    return (((u >> 23) & 0xffu) + 1u) >> 8;
}

/* One output block of the half layout: out[j] = (float)(a (p[j] c[j] -+ q[j] s[j])), j < n.
 * Nonzero when one of them is not finite. Always inlined, so that in the AVX kernels, which do
 * their last pairs with it, it is VEX-encoded too: SSE code run while the upper halves of the
 * vector registers are in use pays a state transition (measured: 7 to 10 times slower). */
static inline __attribute__((always_inline)) uint32_t
half_block_f32(const float *restrict p, const float *restrict q, const double *restrict c,
               const double *restrict s, size_t n, double a, int sign, float *restrict out)
{
    uint32_t bad = 0;
    for (size_t j = 0; j < n; j++) {
        double pc = (double)p[j] * c[j], qs = (double)q[j] * s[j];
        out[j] = (float)(a * (sign < 0 ? pc - qs : pc + qs));
        uint32_t u;
        memcpy(&u, &out[j], 4);
        bad |= exp_all_ones(u);
    }
    return bad;
}

#ifdef PE_ROPE_F32_X86
/* The AVX kernels end with vzeroupper, which GCC inserts itself only at -O2 and above (-O1 and -Os,
 * `make asan`'s -O1 among them, returned to the SSE caller with the upper halves dirty: measured
 * here 4-5x slower, and the SSE code after them too; tests/lint/avx_sse.py checks it). */
__attribute__((target("avx2"))) static uint32_t
half_block_f32_avx2(const float *restrict p, const float *restrict q, const double *restrict c,
                    const double *restrict s, size_t n, double a, int sign, float *restrict out)
{
    __m256d av = _mm256_set1_pd(a);
    const __m128i ones = _mm_set1_epi32(0x7f800000);
    __m128i bad = _mm_setzero_si128();
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256d pc = _mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(p + j)), _mm256_loadu_pd(c + j));
        __m256d qs = _mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(q + j)), _mm256_loadu_pd(s + j));
        __m256d r = sign < 0 ? _mm256_sub_pd(pc, qs) : _mm256_add_pd(pc, qs);
        __m128 f = _mm256_cvtpd_ps(_mm256_mul_pd(av, r));
        _mm_storeu_ps(out + j, f);
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(f), ones), ones));
    }
    uint32_t flag = (uint32_t)(_mm_movemask_epi8(bad) != 0);
    flag |= half_block_f32(p + j, q + j, c + j, s + j, n - j, a, sign, out + j);
    _mm256_zeroupper(); /* back to SSE code clean, at every -O (see above) */
    return flag;
}

__attribute__((target("avx512f"))) static uint32_t
half_block_f32_avx512(const float *restrict p, const float *restrict q, const double *restrict c,
                      const double *restrict s, size_t n, double a, int sign, float *restrict out)
{
    __m512d av = _mm512_set1_pd(a);
    const __m256i ones = _mm256_set1_epi32(0x7f800000);
    __m256i bad = _mm256_setzero_si256();
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m512d pc = _mm512_mul_pd(_mm512_cvtps_pd(_mm256_loadu_ps(p + j)), _mm512_loadu_pd(c + j));
        __m512d qs = _mm512_mul_pd(_mm512_cvtps_pd(_mm256_loadu_ps(q + j)), _mm512_loadu_pd(s + j));
        __m512d r = sign < 0 ? _mm512_sub_pd(pc, qs) : _mm512_add_pd(pc, qs);
        __m256 f = _mm512_cvtpd_ps(_mm512_mul_pd(av, r));
        _mm256_storeu_ps(out + j, f);
        bad = _mm256_or_si256(
            bad, _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(f), ones), ones));
    }
    uint32_t flag = (uint32_t)!_mm256_testz_si256(bad, bad);
    flag |= half_block_f32(p + j, q + j, c + j, s + j, n - j, a, sign, out + j);
    _mm256_zeroupper();
    return flag;
}
#endif

/* The level the processor allows, at most max_level (2 AVX2, 3 AVX-512F, else 0). */
static int f32_level(int max_level)
{
#ifdef PE_ROPE_F32_X86
    if (max_level >= 3 && __builtin_cpu_supports("avx512f"))
        return 3;
    if (max_level >= 2 && __builtin_cpu_supports("avx2"))
        return 2;
#endif
    (void)max_level;
    return 0;
}

static uint32_t half_f32(const float *restrict p, const float *restrict q, const double *restrict c,
                         const double *restrict s, size_t n, double a, int sign, int level,
                         float *restrict out)
{
#ifdef PE_ROPE_F32_X86
    if (level == 3)
        return half_block_f32_avx512(p, q, c, s, n, a, sign, out);
    if (level == 2)
        return half_block_f32_avx2(p, q, c, s, n, a, sign, out);
#endif
    (void)level;
    return half_block_f32(p, q, c, s, n, a, sign, out);
}

int pe_rope_rotate_heads_f32_level(const float *restrict x, const double *restrict cs_cos,
                                   const double *restrict cs_sin, size_t n_pos, size_t n_heads,
                                   size_t head_dim, size_t rotary_dim, double attention_factor,
                                   int max_level, float *restrict out)
{
    assert(rotary_dim % 2 == 0 && rotary_dim >= 2 && rotary_dim <= head_dim);
    size_t n = rotary_dim / 2;
    int level = f32_level(max_level);
    uint32_t bad = 0;
    for (size_t i = 0; i < n_pos; i++) {
        const double *c = cs_cos + i * n, *s = cs_sin + i * n;
        for (size_t h = 0; h < n_heads; h++) {
            size_t off = (i * n_heads + h) * head_dim;
            const float *xv = x + off;
            float *o = out + off;
            bad |= half_f32(xv, xv + n, c, s, n, attention_factor, -1, level, o);    /* x1c-x2s */
            bad |= half_f32(xv + n, xv, c, s, n, attention_factor, 1, level, o + n); /* x2c+x1s */
            if (head_dim > rotary_dim) { /* (float)(double)v == v for a finite v */
                memcpy(o + rotary_dim, xv + rotary_dim, (head_dim - rotary_dim) * sizeof *o);
                for (size_t d = rotary_dim; d < head_dim; d++) {
                    uint32_t u;
                    memcpy(&u, &o[d], 4);
                    bad |= exp_all_ones(u);
                }
            }
        }
    }
    return bad != 0;
}

int pe_rope_rotate_heads_f32(const float *restrict x, const double *restrict cs_cos,
                             const double *restrict cs_sin, size_t n_pos, size_t n_heads,
                             size_t head_dim, size_t rotary_dim, double attention_factor,
                             float *restrict out)
{
    return pe_rope_rotate_heads_f32_level(x, cs_cos, cs_sin, n_pos, n_heads, head_dim, rotary_dim,
                                          attention_factor, PE_ROPE_LEVEL_MAX, out);
}
