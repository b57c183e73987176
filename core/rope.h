/*
 * core/rope.h -- rotary position embedding (RoPE) and its context-extension scalings.
 *
 * Source: RoFormer arXiv:2104.09864; scalings as in Hugging Face transformers
 * src/transformers/modeling_rope_utils.py (v5 semantics; see docs/conventions.md#rope):
 * linear (arXiv:2306.15595), dynamic NTK, yarn (arXiv:2309.00071), longrope (arXiv:2402.13753),
 * llama3 (arXiv:2407.21783), plus posenc's static NTK-aware `ntk` (base' = base * alpha^(d/(d-2))).
 *
 * Notation: d = rotary dim (even, >= 2), n = d/2 frequencies theta_j (HF: inv_freq), j = 0..n-1.
 * The angle of pair j at position p is the double product p * theta_j (never accumulated).
 * Layouts: PE_ROPE_HALF pairs dims (j, j + d/2) (HF rotate_half, GPT-NeoX, Llama-HF);
 *          PE_ROPE_INTERLEAVED pairs dims (2j, 2j+1) (RoFormer, GPT-J, Meta's Llama).
 * Dims d .. head_dim-1 pass through unchanged (partial rotary) and are not scaled.
 */
#ifndef PE_ROPE_H
#define PE_ROPE_H

#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"

/* 2 pi as the double nearest to it (Python's 2 * math.pi, which HF uses for wavelengths). */
#define PE_ROPE_TWO_PI 6.283185307179586476925286766559

typedef enum {
    PE_ROPE_DEFAULT = 0, /* theta_j = base^(-2j/d) */
    PE_ROPE_LINEAR,      /* theta_j / factor */
    PE_ROPE_DYNAMIC,     /* base' = base*(s*L'/L0 - (s-1))^(d/(d-2)), L' = max(seq_len, L0) */
    PE_ROPE_YARN,        /* ramp-blended, attention_factor from mscale */
    PE_ROPE_LONGROPE,    /* per-pair rescale lists (short/long by seq_len > L0) */
    PE_ROPE_LLAMA3,      /* wavelength bands high/medium/low */
    PE_ROPE_NTK,         /* posenc's static NTK-aware: base' = base * alpha^(d/(d-2)) */
    PE_ROPE_PROPORTIONAL /* Gemma 4: the first floor(proportion d / 2) pairs base^(-2j/d),
                          * the others 0 (not rotated), all / factor */
} pe_rope_type;

typedef enum { PE_ROPE_HALF = 0, PE_ROPE_INTERLEAVED = 1 } pe_rope_layout;

/*
 * A fully resolved, validated RoPE configuration (api/ fills every field; kernels only assert).
 * Start from pe_rope_params_init(). Fields not used by `type` are ignored, also by the cache key
 * (core/cache.h), so stray values there never split cache entries.
 */
typedef struct {
    size_t rotary_dim; /* d: even, >= 2 (>= 4 for dynamic and ntk) */
    double base;       /* rope_theta, > 1 */
    pe_rope_type type;
    double factor;                           /* s > 0 (linear, dynamic, yarn, longrope, llama3) */
    double original_max_position_embeddings; /* L0 > 0 (dynamic, yarn, longrope, llama3) */
    size_t seq_len; /* L: current sequence length (dynamic, longrope); 0 acts as
                     * "short" (plain RoPE for dynamic, short list for longrope) */
    /* yarn */
    double beta_fast;      /* default 32 */
    double beta_slow;      /* default 1 */
    double mscale;         /* used only when has_mscale && has_mscale_all_dim, both non-zero */
    double mscale_all_dim; /* also alone: softmax_scale_factor when present and non-zero */
    int has_mscale, has_mscale_all_dim;
    int truncate; /* 1 (default): floor/ceil the correction range */
    /* yarn, longrope: explicit attention factor */
    double attention_factor;
    int has_attention_factor;
    /* llama3 */
    double low_freq_factor;  /* default 1 */
    double high_freq_factor; /* default 4 */
    /* longrope: d/2 numbers each, borrowed (must outlive the call) */
    const double *short_factor;
    const double *long_factor;
    /* ntk */
    double alpha; /* > 0 */
    /* proportional: the rotated share of the pairs, (0, 1] (HF: the type's partial_rotary_factor;
     * 1 by default). rotary_dim is then the whole head_dim. */
    double proportion;
    /* explicit frequencies (d/2 numbers, rad per position), borrowed; when non-NULL they are
     * used as is, type must be PE_ROPE_DEFAULT and base is ignored; attention_factor 1. */
    const double *inv_freq;
} pe_rope_params;

/* Sets every field to its default (type default, base 10000, beta_fast 32, beta_slow 1,
 * truncate 1, low_freq_factor 1, high_freq_factor 4, factor 1, proportion 1, everything else
 * 0/NULL). */
void pe_rope_params_init(pe_rope_params *p);

/*
 * Checks p against the domains documented on pe_rope_params:
 *  - rotary_dim even and >= 2 (>= 4 for dynamic and ntk, whose exponent is d/(d-2));
 *  - explicit inv_freq: requires type default (base and scaling fields are then ignored);
 *  - otherwise base finite and > 1;
 *  - factor finite and > 0 for linear, dynamic, yarn, longrope and llama3;
 *  - L0 finite and > 0 for dynamic, yarn, longrope and llama3;
 *  - yarn: beta_fast, beta_slow finite and >= 0 (0 means the default, like HF's `or 32` /
 *    `or 1`); mscale / mscale_all_dim finite when flagged present;
 *  - yarn, longrope: attention_factor finite and > 0 when flagged present;
 *  - llama3: 0 < low_freq_factor <= high_freq_factor (both finite; equal = Llama 4);
 *  - longrope: the list selected by seq_len non-NULL (list contents are not read);
 *  - ntk: alpha finite and > 0;
 *  - proportional: factor finite and > 0, proportion finite in (0, 1].
 * Returns PE_OK or PE_ERR_ARG. Pure; thread-safe.
 */
pe_status pe_rope_params_check(const pe_rope_params *p);

/*
 * Plain RoPE frequency of pair j for rotary dim d: 1 / base^((2j)/d), evaluated exactly as HF
 * writes it in float64 (`1.0 / (base ** (arange(0, d, 2) / d))`). Every variant starts from this
 * value, so explanations that need the unscaled theta0_j (llama3 bands) must use it too.
 * Requires d > 0.
 */
double pe_rope_base_freq(double base, size_t d, size_t j);

/*
 * YaRN ramp of pair j: clamp((j - lo)/(hi - lo), 0, 1), with lo/hi as stored in
 * pe_rope_info.ramp_low/ramp_high (already truncated, clamped and separated by the +0.001 rule,
 * so hi > lo). 0 = extrapolate (frequency kept), 1 = interpolate (frequency / factor).
 * Source: HF modeling_rope_utils `linear_ramp_factor`.
 */
double pe_rope_yarn_ramp(double lo, double hi, size_t j);

/* What the scaling did, for explanations (`bands`) and `resolved`. */
typedef struct {
    double effective_base;      /* base actually exponentiated (dynamic, ntk), else base */
    double ramp_low, ramp_high; /* yarn correction range after truncate/clamp (and +0.001) */
    int longrope_long;          /* longrope: 1 when the long list was used */
} pe_rope_info;

/*
 * Computes inv_freq[0 .. d/2-1] (rad per position, after scaling) and *attention_factor (HF's
 * attention_scaling: the magnitude multiplying cos and sin). info may be NULL.
 * Returns PE_ERR_ARG for parameters outside their documented domain (pe_rope_params_check;
 * api/ validates first), PE_ERR_NONFINITE if a result is not finite (e.g. a longrope list entry
 * of 0, or longrope's sqrt(1 + ln s / ln L0) with L0 <= 1). On failure the outputs are
 * unspecified. Matches HF modeling_rope_utils `_compute_*_parameters` in float64 (the formulas and
 * their order of operations), with one deliberate shortcut: dynamic with seq_len <= L0 returns
 * plain RoPE exactly (effective_base == base) instead of evaluating (s*L0/L0 - (s-1))^(d/(d-2)),
 * which may differ from 1 by an ulp. Pure; thread-safe.
 */
pe_status pe_rope_inv_freq(const pe_rope_params *p, double *inv_freq, double *attention_factor,
                           pe_rope_info *info);

/* softmax_scale_factor: g(factor, mscale_all_dim)^2 with g(s,m) = 0.1*m*ln s + 1 (1 if s <= 1)
 * for yarn with a non-zero mscale_all_dim (DeepSeek-V2/V3, arXiv:2405.04434); else 1. */
double pe_rope_softmax_scale_factor(const pe_rope_params *p);

/*
 * Fills cos/sin tables: cos_out[i*n + j] = cos(positions[i] * inv_freq[j]) (no attention factor),
 * same for sin. n = d/2. positions are non-negative integers as int64. The angle is the double
 * product (double)positions[i] * inv_freq[j]. cos_out, sin_out: [n_pos][n], caller-owned, must not
 * overlap each other or the inputs. Never fails; pure; thread-safe.
 */
void pe_rope_cos_sin(const double *restrict inv_freq, size_t n, const int64_t *restrict positions,
                     size_t n_pos, double *restrict cos_out, double *restrict sin_out);

/*
 * Same as pe_rope_cos_sin for the consecutive positions first, first+1, ..., first+n_pos-1
 * (row i is position first + i). Used to build frequency tables and to compute the rows a
 * cached table does not hold (see core/cache.h).
 */
void pe_rope_cos_sin_range(const double *restrict inv_freq, size_t n, int64_t first, size_t n_pos,
                           double *restrict cos_out, double *restrict sin_out);

/*
 * Rotates rows: out[i] = R(positions[i]) x[i] for i < n_pos, with the rotated part times
 * attention_factor. x: row i starts at x + i*x_stride (x_stride in doubles, normally head_dim);
 * x_stride 0 means the single vector x is used for every row. out: [n_pos][head_dim], caller-owned.
 * cs_cos, cs_sin: [n_pos][rotary_dim/2] from pe_rope_cos_sin (row i belongs to x row i).
 * half: pair j = (j, j + d/2); interleaved: pair j = (2j, 2j+1); pair (a, b) at angle t becomes
 * (A*(a cos t - b sin t), A*(b cos t + a sin t)) with A = attention_factor (counter-clockwise,
 * HF rotate_half / GPT-J rotate_every_two). Dims rotary_dim .. head_dim-1 are copied unchanged
 * (not scaled: HF Phi partial rotary). Requires rotary_dim even, 2 <= rotary_dim <= head_dim.
 * out must not alias x, cs_cos or cs_sin. Never fails; pure; thread-safe.
 */
void pe_rope_rotate(const double *restrict x, size_t x_stride, const double *restrict cs_cos,
                    const double *restrict cs_sin, size_t n_pos, size_t head_dim, size_t rotary_dim,
                    pe_rope_layout layout, double attention_factor, double *restrict out);

/*
 * RoPE on a [n_pos][n_heads][head_dim] tensor (q or k right after the projection, before the
 * heads are transposed: PyTorch's [seq, heads, dim] / "BSHD" without the batch): every head of
 * position i is rotated by row i of cs_cos/cs_sin ([n_pos][rotary_dim/2] from pe_rope_cos_sin), so
 * each cos/sin value is computed once per (position, pair) and reused across heads. Per vector the
 * arithmetic is pe_rope_rotate's (the results are bit-identical to calling it head by head).
 * x, out: n_pos*n_heads*head_dim doubles, caller-owned, not overlapping. For a [n_heads][n_pos]
 * [head_dim] tensor ("BHSD") call pe_rope_rotate once per head with the same tables. Never fails;
 * pure; thread-safe.
 */
void pe_rope_rotate_heads(const double *restrict x, const double *restrict cs_cos,
                          const double *restrict cs_sin, size_t n_pos, size_t n_heads,
                          size_t head_dim, size_t rotary_dim, pe_rope_layout layout,
                          double attention_factor, double *restrict out);

/*
 * pe_rope_rotate_heads for float32 tensors, half layout (rotate_half), in one pass: every value
 * of x widened to float64 exactly, rotated with the same float64 arithmetic, and rounded once to
 * float32 into out, so out is bit for bit pe_rope_rotate_heads of (double)x rounded to float32
 * (values past FLT_MAX become +-Inf). The dims past rotary_dim are copied. Returns 1 when a value
 * of out is NaN or +-Inf -- which a NaN or an infinity in x always causes, as does an overflow --
 * else 0. x, out: n_pos*n_heads*head_dim floats, caller-owned, not overlapping. Pure;
 * thread-safe.
 */
int pe_rope_rotate_heads_f32(const float *restrict x, const double *restrict cs_cos,
                             const double *restrict cs_sin, size_t n_pos, size_t n_heads,
                             size_t head_dim, size_t rotary_dim, double attention_factor,
                             float *restrict out);

#endif
