/*
 * core/rope_rotate.c -- RoPE cos/sin tables and the rotation kernels (core/rope.h).
 *
 * Rotation: Hugging Face `rotate_half` / `apply_rotary_pos_emb` (half layout, transformers
 * modeling_llama.py) and GPT-J `rotate_every_two` (interleaved layout, modeling_gptj.py); angles
 * are position * inv_freq[j] in float64, cos and sin from the C library (docs/conventions.md).
 */
#include "core/rope.h"
#include "core/rope_priv.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define PE_ROPE_NT 1 /* non-temporal stores for large outputs (see rotate_rows) */
#endif

void pe_rope_cos_sin(const double *restrict inv_freq, size_t n, const int64_t *restrict positions,
                     size_t n_pos, double *restrict cos_out, double *restrict sin_out)
{
    for (size_t i = 0; i < n_pos; i++) {
        double pos = (double)positions[i];
        double *restrict c = cos_out + i * n;
        double *restrict s = sin_out + i * n;
        for (size_t j = 0; j < n; j++) {
            double a = pos * inv_freq[j];
            c[j] = cos(a);
            s[j] = sin(a);
        }
    }
}

void pe_rope_cos_sin_range(const double *restrict inv_freq, size_t n, int64_t first, size_t n_pos,
                           double *restrict cos_out, double *restrict sin_out)
{
    for (size_t i = 0; i < n_pos; i++) {
        double pos = (double)(first + (int64_t)i);
        double *restrict c = cos_out + i * n;
        double *restrict s = sin_out + i * n;
        for (size_t j = 0; j < n; j++) {
            double a = pos * inv_freq[j];
            c[j] = cos(a);
            s[j] = sin(a);
        }
    }
}

/*
 * The row kernels below work on contiguous restrict-qualified arrays in loops that GCC vectorises
 * (2-wide SSE2 at -O2; `make bench` counts -fopt-info-vec for this file). Measured on
 * [4096][32][128] float64 (bench/micro.c): the half layout is written in two passes, each reading
 * x1 and x2 and writing one output block in order (one pass writing o1[j] and o2[j] together ran
 * at ~0.5x memcpy), with a sequential prefetch of the vector PF_AHEAD vectors ahead; large outputs
 * use non-temporal stores (rotate_row_*_nt). The arithmetic per element is the same expression
 * in every variant (no contraction), so results are bit-identical whichever path runs
 * (tests/core/check_rope_heads.c).
 */

/* Rows (vectors of head_dim) read ahead of the one being rotated. */
#define PF_AHEAD 4

/* Prefetches the n doubles at p (a row that will be read soon), one cache line at a time, in
 * order, so that the hardware sees one sequential stream. A hint only: no effect on results. */
static void prefetch_row(const double *p, size_t n)
{
    for (size_t q = 0; q < n; q += 8)
        __builtin_prefetch(p + q, 0, 3);
}

/* half layout, one row: pair j = (j, j + n). */
static void rotate_row_half(const double *restrict x, const double *restrict c,
                            const double *restrict s, size_t n, double a, double *restrict out)
{
    const double *restrict x1 = x;
    const double *restrict x2 = x + n;
    double *restrict o1 = out;
    double *restrict o2 = out + n;
    /* two pairs per iteration, written out: GCC's basic-block (SLP) vectoriser makes each body
     * 2-wide even at -O2, whose "very cheap" loop cost model (GCC >= 12) refuses loops that need
     * an epilogue */
    size_t j = 0;
    for (; j + 2 <= n; j += 2) {
        o1[j] = a * (x1[j] * c[j] - x2[j] * s[j]);
        o1[j + 1] = a * (x1[j + 1] * c[j + 1] - x2[j + 1] * s[j + 1]);
    }
    for (; j < n; j++)
        o1[j] = a * (x1[j] * c[j] - x2[j] * s[j]);
    for (j = 0; j + 2 <= n; j += 2) {
        o2[j] = a * (x2[j] * c[j] + x1[j] * s[j]);
        o2[j + 1] = a * (x2[j + 1] * c[j + 1] + x1[j + 1] * s[j + 1]);
    }
    for (; j < n; j++)
        o2[j] = a * (x2[j] * c[j] + x1[j] * s[j]);
}

/* interleaved layout, one row: pair j = (2j, 2j+1). */
static void rotate_row_interleaved(const double *restrict x, const double *restrict c,
                                   const double *restrict s, size_t n, double a,
                                   double *restrict out)
{
    for (size_t j = 0; j < n; j++) {
        double cj = c[j], sj = s[j];
        double xe = x[2 * j], xo = x[2 * j + 1];
        out[2 * j] = a * (xe * cj - xo * sj);
        out[2 * j + 1] = a * (xo * cj + xe * sj);
    }
}

#ifdef PE_ROPE_NT
/*
 * The same rotations with SSE2 non-temporal stores (out 16-byte aligned, n even for half): the
 * output bypasses the caches, so writing it costs no read-for-ownership. For a tensor larger than
 * the caches that is a third of the memory traffic (x in, out in for ownership, out back): the
 * kernel then moves the bytes memcpy moves (glibc's large memcpy streams too). Each lane does the
 * scalar kernel's operations in the same order (xe*c + xo*(-s) equals xe*c - xo*s exactly), so
 * results are bit-identical.
 */
/* out[j] = a * (p[j] * c[j] - q[j] * s[j]) (sign < 0) or a * (p[j] * c[j] + q[j] * s[j])
 * (sign > 0) for j < n (n even), streamed: one output block of the half layout. Always inlined,
 * like rotate_row_interleaved_nt: the AVX kernels do their first and last pairs with it, and
 * inlined into them it is VEX-encoded; called as a separate SSE2 function with the upper halves of
 * the vector registers in use it would pay the AVX-SSE transition penalty (see AVX_DONE). */
static inline __attribute__((always_inline)) void
half_block_nt(const double *restrict p, const double *restrict q, const double *restrict c,
              const double *restrict s, size_t n, double a, int sign, double *restrict out)
{
    __m128d av = _mm_set1_pd(a);
    for (size_t j = 0; j < n; j += 2) {
        __m128d pc = _mm_mul_pd(_mm_loadu_pd(p + j), _mm_loadu_pd(c + j));
        __m128d qs = _mm_mul_pd(_mm_loadu_pd(q + j), _mm_loadu_pd(s + j));
        _mm_stream_pd(out + j, _mm_mul_pd(av, sign < 0 ? _mm_sub_pd(pc, qs) : _mm_add_pd(pc, qs)));
    }
}

static void rotate_row_half_nt(const double *restrict x, const double *restrict c,
                               const double *restrict s, size_t n, double a, double *restrict out)
{
    half_block_nt(x, x + n, c, s, n, a, -1, out);    /* x1 c - x2 s */
    half_block_nt(x + n, x, c, s, n, a, 1, out + n); /* x2 c + x1 s */
}

static inline __attribute__((always_inline)) void
rotate_row_interleaved_nt(const double *restrict x, const double *restrict c,
                          const double *restrict s, size_t n, double a, double *restrict out)
{
    __m128d av = _mm_set1_pd(a);
    for (size_t j = 0; j < n; j++) {
        __m128d xv = _mm_loadu_pd(x + 2 * j);   /* (xe, xo) */
        __m128d sw = _mm_shuffle_pd(xv, xv, 1); /* (xo, xe) */
        __m128d cv = _mm_set1_pd(c[j]);
        __m128d sv = _mm_set_pd(s[j], -s[j]); /* (-s, s) in memory order */
        __m128d r = _mm_add_pd(_mm_mul_pd(xv, cv), _mm_mul_pd(sw, sv));
        _mm_stream_pd(out + 2 * j, _mm_mul_pd(av, r));
    }
}

/*
 * Every AVX2 and AVX-512F kernel below is one function called from SSE2 code (rotate_vec): its
 * helpers are inlined into it (always_inline, so at every optimisation level) and it ends with
 * AVX_DONE. SSE code run while the upper halves of the ymm/zmm registers are dirty pays a state
 * transition or a merge with every instruction (measured on [4096][32][128] here: the AVX kernels
 * 5-7x slower, the libm cos/sin table computed after them 10x slower). GCC clears the upper halves
 * itself (vzeroupper before a return or a call) only at -O2 and above; `make asan` builds at -O1,
 * and -O1/-Os left them dirty. tests/lint/avx_sse.py checks the object code at -O0 to -O3.
 */
#define AVX_DONE() _mm256_zeroupper()

/*
 * AVX2 forms of the two kernels above (4 doubles per instruction), chosen at run time when the
 * processor has AVX2 (use_nt). Same preconditions (out 16-byte aligned, n even for half): 32-byte
 * streaming stores need 32-byte alignment, so a block that starts 16 bytes off does its first
 * pair, and any last pair, with the 2-wide kernels above. Every lane computes exactly what the
 * 2-wide kernel computes (same operations, same order; no FMA), so results stay bit-identical.
 */

/* half_block_nt, 4-wide from the first 32-byte boundary of out on. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
half_block_nt_avx2(const double *restrict p, const double *restrict q, const double *restrict c,
                   const double *restrict s, size_t n, double a, int sign, double *restrict out)
{
    size_t j = n > 0 && (uintptr_t)out % 32 != 0 ? 2 : 0; /* out is 16-byte aligned */
    half_block_nt(p, q, c, s, j, a, sign, out);
    __m256d av = _mm256_set1_pd(a);
    if (sign < 0) {
        for (; j + 4 <= n; j += 4) {
            __m256d pc = _mm256_mul_pd(_mm256_loadu_pd(p + j), _mm256_loadu_pd(c + j));
            __m256d qs = _mm256_mul_pd(_mm256_loadu_pd(q + j), _mm256_loadu_pd(s + j));
            _mm256_stream_pd(out + j, _mm256_mul_pd(av, _mm256_sub_pd(pc, qs)));
        }
    } else {
        for (; j + 4 <= n; j += 4) {
            __m256d pc = _mm256_mul_pd(_mm256_loadu_pd(p + j), _mm256_loadu_pd(c + j));
            __m256d qs = _mm256_mul_pd(_mm256_loadu_pd(q + j), _mm256_loadu_pd(s + j));
            _mm256_stream_pd(out + j, _mm256_mul_pd(av, _mm256_add_pd(pc, qs)));
        }
    }
    half_block_nt(p + j, q + j, c + j, s + j, n - j, a, sign, out + j); /* a last pair */
}

__attribute__((target("avx2"))) static void
rotate_row_half_nt_avx2(const double *restrict x, const double *restrict c,
                        const double *restrict s, size_t n, double a, double *restrict out)
{
    half_block_nt_avx2(x, x + n, c, s, n, a, -1, out);    /* x1 c - x2 s */
    half_block_nt_avx2(x + n, x, c, s, n, a, 1, out + n); /* x2 c + x1 s */
    AVX_DONE();
}

__attribute__((target("avx2"))) static void
rotate_row_interleaved_nt_avx2(const double *restrict x, const double *restrict c,
                               const double *restrict s, size_t n, double a, double *restrict out)
{
    __m256d av4 = _mm256_set1_pd(a);
    /* (s0, s0, s1, s1) with lanes 0 and 2 negated: (-s0, s0, -s1, s1), as in memory order */
    const __m256d neg02 = _mm256_set_pd(0.0, -0.0, 0.0, -0.0);
    size_t j = 0;
    if (n > 0 && (uintptr_t)out % 32 != 0) { /* one pair 2-wide, to reach 32-byte alignment */
        rotate_row_interleaved_nt(x, c, s, 1, a, out);
        j = 1;
    }
    for (; j + 2 <= n; j += 2) {
        __m256d xv = _mm256_loadu_pd(x + 2 * j); /* (xe0, xo0, xe1, xo1) */
        __m256d sw = _mm256_permute_pd(xv, 0x5); /* (xo0, xe0, xo1, xe1) */
        __m256d c2 = _mm256_castpd128_pd256(_mm_loadu_pd(c + j));
        __m256d s2 = _mm256_castpd128_pd256(_mm_loadu_pd(s + j));
        __m256d cv = _mm256_permute4x64_pd(c2, 0x50); /* (c0, c0, c1, c1) */
        __m256d sv = _mm256_xor_pd(_mm256_permute4x64_pd(s2, 0x50), neg02);
        __m256d r = _mm256_add_pd(_mm256_mul_pd(xv, cv), _mm256_mul_pd(sw, sv));
        _mm256_stream_pd(out + 2 * j, _mm256_mul_pd(av4, r));
    }
    rotate_row_interleaved_nt(x + 2 * j, c + j, s + j, n - j, a, out + 2 * j); /* a last pair */
    AVX_DONE();
}

/*
 * AVX-512F forms (8 doubles per instruction), chosen at run time when the processor has AVX-512F
 * (use_nt level 3). 64-byte streaming stores need 64-byte alignment: the 2-wide kernels do the
 * pairs before the first 64-byte boundary of out (out is 16-byte aligned) and the ones after the
 * last full 8-wide step. Lanes compute exactly what the 2-wide kernel computes (same operations in
 * the same order, no FMA: ISO C mode compiles with -ffp-contract=off), so results stay
 * bit-identical. The sign flip of the interleaved kernel is an integer XOR of the sign bit
 * (_mm512_xor_pd needs AVX512DQ), exactly the negation the other levels do.
 */

/* half_block_nt, 8-wide from the first 64-byte boundary of out on. */
__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) void
half_block_nt_avx512(const double *restrict p, const double *restrict q, const double *restrict c,
                     const double *restrict s, size_t n, double a, int sign, double *restrict out)
{
    size_t j = (size_t)((64 - (uintptr_t)out % 64) % 64) / sizeof(double); /* 0, 2, 4 or 6 */
    if (j > n)
        j = n;
    half_block_nt(p, q, c, s, j, a, sign, out);
    __m512d av = _mm512_set1_pd(a);
    if (sign < 0) {
        for (; j + 8 <= n; j += 8) {
            __m512d pc = _mm512_mul_pd(_mm512_loadu_pd(p + j), _mm512_loadu_pd(c + j));
            __m512d qs = _mm512_mul_pd(_mm512_loadu_pd(q + j), _mm512_loadu_pd(s + j));
            _mm512_stream_pd(out + j, _mm512_mul_pd(av, _mm512_sub_pd(pc, qs)));
        }
    } else {
        for (; j + 8 <= n; j += 8) {
            __m512d pc = _mm512_mul_pd(_mm512_loadu_pd(p + j), _mm512_loadu_pd(c + j));
            __m512d qs = _mm512_mul_pd(_mm512_loadu_pd(q + j), _mm512_loadu_pd(s + j));
            _mm512_stream_pd(out + j, _mm512_mul_pd(av, _mm512_add_pd(pc, qs)));
        }
    }
    half_block_nt(p + j, q + j, c + j, s + j, n - j, a, sign, out + j); /* the last pairs */
}

__attribute__((target("avx512f"))) static void
rotate_row_half_nt_avx512(const double *restrict x, const double *restrict c,
                          const double *restrict s, size_t n, double a, double *restrict out)
{
    half_block_nt_avx512(x, x + n, c, s, n, a, -1, out);    /* x1 c - x2 s */
    half_block_nt_avx512(x + n, x, c, s, n, a, 1, out + n); /* x2 c + x1 s */
    AVX_DONE();
}

__attribute__((target("avx512f"))) static void
rotate_row_interleaved_nt_avx512(const double *restrict x, const double *restrict c,
                                 const double *restrict s, size_t n, double a, double *restrict out)
{
    __m512d av = _mm512_set1_pd(a);
    const __m512i dup = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
    /* the sign bit of lanes 0, 2, 4, 6: (s0, s0, s1, s1, ...) becomes (-s0, s0, -s1, s1, ...) */
    const __m512i neg = _mm512_set_epi64(0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN, 0, INT64_MIN);
    size_t j = (size_t)((64 - (uintptr_t)out % 64) % 64) / (2 * sizeof(double)); /* 0 .. 3 */
    if (j > n)
        j = n;
    rotate_row_interleaved_nt(x, c, s, j, a, out);
    for (; j + 4 <= n; j += 4) {
        __m512d xv = _mm512_loadu_pd(x + 2 * j);  /* (xe0, xo0, ..., xe3, xo3) */
        __m512d sw = _mm512_permute_pd(xv, 0x55); /* (xo0, xe0, ..., xo3, xe3) */
        __m512d cv = _mm512_permutexvar_pd(dup, _mm512_castpd256_pd512(_mm256_loadu_pd(c + j)));
        __m512d s4 = _mm512_permutexvar_pd(dup, _mm512_castpd256_pd512(_mm256_loadu_pd(s + j)));
        __m512d sv = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(s4), neg));
        __m512d r = _mm512_add_pd(_mm512_mul_pd(xv, cv), _mm512_mul_pd(sw, sv));
        _mm512_stream_pd(out + 2 * j, _mm512_mul_pd(av, r));
    }
    rotate_row_interleaved_nt(x + 2 * j, c + j, s + j, n - j, a, out + 2 * j); /* the last pairs */
    AVX_DONE();
}
#endif

/* Output size from which the non-temporal kernels are used (one [T][D] head of 4096 x 128 is
 * 4 MiB): small outputs, e.g. an API response formatted right after, stay in the caches. Reading
 * a large one back from memory costs far less than formatting it. */
#define NT_MIN_BYTES ((size_t)4 << 20)

/* Which kernels rows of this shape use (out_bytes in total), at most max_level: 0 the plain C
 * ones, 1 the SSE2 non-temporal ones (x86-64 has SSE2), 2 their AVX2 forms (when the processor
 * has AVX2), 3 their AVX-512F forms (when it has AVX-512F). */
static int use_nt(const double *out, size_t head_dim, size_t rotary_dim, pe_rope_layout layout,
                  size_t out_bytes, int max_level)
{
#ifdef PE_ROPE_NT
    size_t n = rotary_dim / 2;
    if (max_level < 1 || !(out_bytes >= NT_MIN_BYTES && (uintptr_t)out % 16 == 0 &&
                           head_dim % 2 == 0 && (layout == PE_ROPE_INTERLEAVED || n % 2 == 0)))
        return 0;
    if (max_level >= 3 && __builtin_cpu_supports("avx512f"))
        return 3;
    return max_level >= 2 && __builtin_cpu_supports("avx2") ? 2 : 1;
#else
    (void)out, (void)head_dim, (void)rotary_dim, (void)layout, (void)out_bytes, (void)max_level;
    return 0;
#endif
}

/* One vector: rotated part, then the pass-through dims. */
static void rotate_vec(const double *restrict x, const double *restrict c, const double *restrict s,
                       size_t head_dim, size_t rotary_dim, pe_rope_layout layout, double a, int nt,
                       double *restrict out)
{
    size_t n = rotary_dim / 2;
#ifdef PE_ROPE_NT
    if (nt == 3) {
        if (layout == PE_ROPE_INTERLEAVED)
            rotate_row_interleaved_nt_avx512(x, c, s, n, a, out);
        else
            rotate_row_half_nt_avx512(x, c, s, n, a, out);
    } else if (nt == 2) {
        if (layout == PE_ROPE_INTERLEAVED)
            rotate_row_interleaved_nt_avx2(x, c, s, n, a, out);
        else
            rotate_row_half_nt_avx2(x, c, s, n, a, out);
    } else if (nt) {
        if (layout == PE_ROPE_INTERLEAVED)
            rotate_row_interleaved_nt(x, c, s, n, a, out);
        else
            rotate_row_half_nt(x, c, s, n, a, out);
    } else
#else
    (void)nt;
#endif
    {
        if (layout == PE_ROPE_INTERLEAVED)
            rotate_row_interleaved(x, c, s, n, a, out);
        else
            rotate_row_half(x, c, s, n, a, out);
    }
    if (head_dim > rotary_dim)
        memcpy(out + rotary_dim, x + rotary_dim, (head_dim - rotary_dim) * sizeof *out);
}

/* Makes the non-temporal stores visible before the caller reads out. */
static void nt_done(int nt)
{
#ifdef PE_ROPE_NT
    if (nt)
        _mm_sfence();
#else
    (void)nt;
#endif
}

void pe_rope_rotate(const double *restrict x, size_t x_stride, const double *restrict cs_cos,
                    const double *restrict cs_sin, size_t n_pos, size_t head_dim, size_t rotary_dim,
                    pe_rope_layout layout, double attention_factor, double *restrict out)
{
    assert(rotary_dim % 2 == 0 && rotary_dim >= 2 && rotary_dim <= head_dim);
    size_t n = rotary_dim / 2;
    int nt = use_nt(out, head_dim, rotary_dim, layout, n_pos * head_dim * sizeof *out,
                    PE_ROPE_LEVEL_MAX);
    for (size_t i = 0; i < n_pos; i++) {
        const double *xr = x + i * x_stride;
        if (x_stride > 0 && i + PF_AHEAD < n_pos)
            prefetch_row(xr + PF_AHEAD * x_stride, head_dim);
        rotate_vec(xr, cs_cos + i * n, cs_sin + i * n, head_dim, rotary_dim, layout,
                   attention_factor, nt, out + i * head_dim);
    }
    nt_done(nt);
}

void pe_rope_rotate_heads(const double *restrict x, const double *restrict cs_cos,
                          const double *restrict cs_sin, size_t n_pos, size_t n_heads,
                          size_t head_dim, size_t rotary_dim, pe_rope_layout layout,
                          double attention_factor, double *restrict out)
{
    pe_rope_rotate_heads_level(x, cs_cos, cs_sin, n_pos, n_heads, head_dim, rotary_dim, layout,
                               attention_factor, PE_ROPE_LEVEL_MAX, out);
}

void pe_rope_rotate_heads_level(const double *restrict x, const double *restrict cs_cos,
                                const double *restrict cs_sin, size_t n_pos, size_t n_heads,
                                size_t head_dim, size_t rotary_dim, pe_rope_layout layout,
                                double attention_factor, int max_level, double *restrict out)
{
    assert(rotary_dim % 2 == 0 && rotary_dim >= 2 && rotary_dim <= head_dim);
    size_t n = rotary_dim / 2;
    size_t vecs = n_pos * n_heads;
    int nt = use_nt(out, head_dim, rotary_dim, layout, vecs * head_dim * sizeof *out, max_level);
    for (size_t i = 0; i < n_pos; i++) {
        const double *c = cs_cos + i * n;
        const double *s = cs_sin + i * n;
        for (size_t h = 0; h < n_heads; h++) {
            size_t v = i * n_heads + h, off = v * head_dim;
            if (v + PF_AHEAD < vecs) /* that vector exists */
                prefetch_row(x + off + PF_AHEAD * head_dim, head_dim);
            rotate_vec(x + off, c, s, head_dim, rotary_dim, layout, attention_factor, nt,
                       out + off);
        }
    }
    nt_done(nt);
}
