/*
 * core/rope.c -- RoPE frequencies (inv_freq and attention factor) for every scaling type. The
 * cos/sin tables and the rotation kernels are in core/rope_rotate.c.
 *
 * Formulas: docs/conventions.md#rope, written from Hugging Face transformers
 * src/transformers/modeling_rope_utils.py (`_compute_default_rope_parameters`,
 * `_compute_linear_scaling_rope_parameters`, `_compute_dynamic_ntk_parameters`,
 * `_compute_yarn_parameters`, `_compute_longrope_parameters`, `_compute_llama3_parameters`,
 * `_compute_proportional_rope_parameters`),
 * evaluated in float64 with HF's order of operations.
 */
#include "core/rope.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

void pe_rope_params_init(pe_rope_params *p)
{
    memset(p, 0, sizeof *p);
    p->rotary_dim = 0;
    p->base = 10000.0;
    p->type = PE_ROPE_DEFAULT;
    p->factor = 1.0;
    p->beta_fast = 32.0;
    p->beta_slow = 1.0;
    p->truncate = 1;
    p->low_freq_factor = 1.0;
    p->high_freq_factor = 4.0;
    p->proportion = 1.0;
}

static int pos_finite(double v)
{
    return isfinite(v) && v > 0.0;
}

pe_status pe_rope_params_check(const pe_rope_params *p)
{
    if (p == NULL || p->rotary_dim < 2 || p->rotary_dim % 2 != 0)
        return PE_ERR_ARG;
    if (p->inv_freq != NULL)
        return p->type == PE_ROPE_DEFAULT ? PE_OK : PE_ERR_ARG;
    if (!isfinite(p->base) || !(p->base > 1.0))
        return PE_ERR_ARG;
    switch (p->type) {
    case PE_ROPE_DEFAULT:
        return PE_OK;
    case PE_ROPE_LINEAR:
        return pos_finite(p->factor) ? PE_OK : PE_ERR_ARG;
    case PE_ROPE_DYNAMIC:
        if (p->rotary_dim < 4)
            return PE_ERR_ARG;
        return pos_finite(p->factor) && pos_finite(p->original_max_position_embeddings)
                   ? PE_OK
                   : PE_ERR_ARG;
    case PE_ROPE_YARN:
        if (!pos_finite(p->factor) || !pos_finite(p->original_max_position_embeddings))
            return PE_ERR_ARG;
        if (!isfinite(p->beta_fast) || p->beta_fast < 0.0 || !isfinite(p->beta_slow) ||
            p->beta_slow < 0.0)
            return PE_ERR_ARG;
        if (p->has_attention_factor && !pos_finite(p->attention_factor))
            return PE_ERR_ARG;
        if ((p->has_mscale && !isfinite(p->mscale)) ||
            (p->has_mscale_all_dim && !isfinite(p->mscale_all_dim)))
            return PE_ERR_ARG;
        return PE_OK;
    case PE_ROPE_LONGROPE: {
        if (!pos_finite(p->factor) || !pos_finite(p->original_max_position_embeddings))
            return PE_ERR_ARG;
        if (p->has_attention_factor && !pos_finite(p->attention_factor))
            return PE_ERR_ARG;
        int use_long = (double)p->seq_len > p->original_max_position_embeddings;
        const double *list = use_long ? p->long_factor : p->short_factor;
        return list != NULL ? PE_OK : PE_ERR_ARG;
    }
    case PE_ROPE_LLAMA3:
        if (!pos_finite(p->factor) || !pos_finite(p->original_max_position_embeddings))
            return PE_ERR_ARG;
        /* equal factors (Llama 4) are accepted as by HF: the medium band is then empty (a
         * wavelength exactly at the edge gives 0/0, reported as PE_ERR_NONFINITE) */
        if (!pos_finite(p->low_freq_factor) || !pos_finite(p->high_freq_factor) ||
            !(p->low_freq_factor <= p->high_freq_factor))
            return PE_ERR_ARG;
        return PE_OK;
    case PE_ROPE_NTK:
        if (p->rotary_dim < 4)
            return PE_ERR_ARG;
        return pos_finite(p->alpha) ? PE_OK : PE_ERR_ARG;
    case PE_ROPE_PROPORTIONAL:
        return pos_finite(p->factor) && pos_finite(p->proportion) && p->proportion <= 1.0
                   ? PE_OK
                   : PE_ERR_ARG;
    }
    return PE_ERR_ARG;
}

double pe_rope_base_freq(double base, size_t d, size_t j)
{
    /* HF: 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)) */
    return 1.0 / pow(base, (double)(2 * j) / (double)d);
}

double pe_rope_yarn_ramp(double lo, double hi, size_t j)
{
    /* HF linear_ramp_factor: clamp((arange(dim) - min) / (max - min), 0, 1) */
    double r = ((double)j - lo) / (hi - lo);
    if (r < 0.0)
        return 0.0;
    if (r > 1.0)
        return 1.0;
    return r;
}

static void fill_plain(double base, size_t d, double *inv_freq)
{
    for (size_t j = 0; j < d / 2; j++)
        inv_freq[j] = pe_rope_base_freq(base, d, j);
}

/* g(s, m) = 0.1 * m * ln s + 1, or 1 when s <= 1 (HF get_mscale, YaRN arXiv:2309.00071). */
static double yarn_get_mscale(double s, double m)
{
    if (s <= 1.0)
        return 1.0;
    return 0.1 * m * log(s) + 1.0;
}

/* HF find_correction_dim: d * ln(L0 / (r * 2 pi)) / (2 ln b). */
static double yarn_correction_dim(double rotations, double d, double base, double l0)
{
    return (d * log(l0 / (rotations * PE_ROPE_TWO_PI))) / (2.0 * log(base));
}

static void compute_yarn(const pe_rope_params *p, double *inv_freq, double *att, pe_rope_info *info)
{
    size_t d = p->rotary_dim;
    double s = p->factor;
    double l0 = p->original_max_position_embeddings;
    double beta_fast = p->beta_fast != 0.0 ? p->beta_fast : 32.0; /* HF: `or 32` */
    double beta_slow = p->beta_slow != 0.0 ? p->beta_slow : 1.0;  /* HF: `or 1` */

    /* find_correction_range: floor/ceil when truncating, then clamp to [0, d-1]. */
    double lo = yarn_correction_dim(beta_fast, (double)d, p->base, l0);
    double hi = yarn_correction_dim(beta_slow, (double)d, p->base, l0);
    if (p->truncate) {
        lo = floor(lo);
        hi = ceil(hi);
    }
    if (lo < 0.0)
        lo = 0.0;
    if (hi > (double)(d - 1))
        hi = (double)(d - 1);
    if (lo == hi) /* linear_ramp_factor's singularity guard */
        hi += 0.001;

    for (size_t j = 0; j < d / 2; j++) {
        double pos_freq = pow(p->base, (double)(2 * j) / (double)d);
        double extrapolation = 1.0 / pos_freq;
        double interpolation = 1.0 / (s * pos_freq);
        double extrapolation_factor = 1.0 - pe_rope_yarn_ramp(lo, hi, j);
        inv_freq[j] =
            interpolation * (1.0 - extrapolation_factor) + extrapolation * extrapolation_factor;
    }

    if (p->has_attention_factor) {
        *att = p->attention_factor;
    } else if (p->has_mscale && p->has_mscale_all_dim && p->mscale != 0.0 &&
               p->mscale_all_dim != 0.0) {
        *att = yarn_get_mscale(s, p->mscale) / yarn_get_mscale(s, p->mscale_all_dim);
    } else {
        *att = yarn_get_mscale(s, 1.0);
    }
    info->ramp_low = lo;
    info->ramp_high = hi;
}

static void compute_longrope(const pe_rope_params *p, double *inv_freq, double *att,
                             pe_rope_info *info)
{
    size_t d = p->rotary_dim;
    double s = p->factor;
    double l0 = p->original_max_position_embeddings;
    int use_long = (double)p->seq_len > l0; /* strictly longer than the original length */
    const double *ext = use_long ? p->long_factor : p->short_factor;

    for (size_t j = 0; j < d / 2; j++)
        inv_freq[j] = 1.0 / (ext[j] * pow(p->base, (double)(2 * j) / (double)d));

    if (p->has_attention_factor)
        *att = p->attention_factor;
    else if (s <= 1.0)
        *att = 1.0;
    else
        *att = sqrt(1.0 + log(s) / log(l0));
    info->longrope_long = use_long;
}

static void compute_llama3(const pe_rope_params *p, double *inv_freq)
{
    size_t d = p->rotary_dim;
    double s = p->factor;
    double l0 = p->original_max_position_embeddings;
    double low = p->low_freq_factor;
    double high = p->high_freq_factor;
    double low_freq_wavelen = l0 / low;
    double high_freq_wavelen = l0 / high;

    for (size_t j = 0; j < d / 2; j++) {
        double f = pe_rope_base_freq(p->base, d, j);
        double wavelen = PE_ROPE_TWO_PI / f;
        if (wavelen < high_freq_wavelen) {
            inv_freq[j] = f; /* high frequency: kept */
        } else if (wavelen > low_freq_wavelen) {
            inv_freq[j] = f / s; /* low frequency: interpolated */
        } else {
            double smooth = (l0 / wavelen - low) / (high - low);
            inv_freq[j] = (1.0 - smooth) * f / s + smooth * f;
        }
    }
}

/*
 * HF _compute_proportional_rope_parameters: rope_angles = int(proportion * head_dim // 2) (Python:
 * (proportion * head_dim) // 2, a float floor), inv_freq_rotated = 1 / base^(arange(0, 2 *
 * rope_angles, 2) / head_dim), then head_dim // 2 - rope_angles zeros, all divided by factor. The
 * zero pairs keep cos 1, sin 0: those dims are not rotated, but they stay paired over the whole
 * head (rotate_half of head_dim), unlike a partial rotary dim.
 */
static void compute_proportional(const pe_rope_params *p, double *inv_freq)
{
    size_t d = p->rotary_dim;
    double angles = floor(p->proportion * (double)d / 2.0);
    for (size_t j = 0; j < d / 2; j++) {
        double f = (double)j < angles ? pe_rope_base_freq(p->base, d, j) : 0.0;
        inv_freq[j] = f / p->factor;
    }
}

pe_status pe_rope_inv_freq(const pe_rope_params *p, double *inv_freq, double *attention_factor,
                           pe_rope_info *info)
{
    pe_status st = pe_rope_params_check(p);
    if (st != PE_OK)
        return st;
    size_t d = p->rotary_dim;
    size_t n = d / 2;
    double att = 1.0;
    pe_rope_info local;
    memset(&local, 0, sizeof local);
    local.effective_base = p->base;

    if (p->inv_freq != NULL) {
        memcpy(inv_freq, p->inv_freq, n * sizeof *inv_freq);
    } else {
        switch (p->type) {
        case PE_ROPE_DEFAULT:
            fill_plain(p->base, d, inv_freq);
            break;
        case PE_ROPE_LINEAR:
            fill_plain(p->base, d, inv_freq);
            for (size_t j = 0; j < n; j++)
                inv_freq[j] /= p->factor;
            break;
        case PE_ROPE_DYNAMIC: {
            double l0 = p->original_max_position_embeddings;
            double len = (double)p->seq_len;
            double base = p->base;
            if (len > l0) {
                double s = p->factor;
                base = p->base * pow((s * len / l0) - (s - 1.0), (double)d / (double)(d - 2));
            }
            local.effective_base = base;
            fill_plain(base, d, inv_freq);
            break;
        }
        case PE_ROPE_YARN:
            compute_yarn(p, inv_freq, &att, &local);
            break;
        case PE_ROPE_LONGROPE:
            compute_longrope(p, inv_freq, &att, &local);
            break;
        case PE_ROPE_LLAMA3:
            compute_llama3(p, inv_freq);
            break;
        case PE_ROPE_NTK: {
            double base = p->base * pow(p->alpha, (double)d / (double)(d - 2));
            local.effective_base = base;
            fill_plain(base, d, inv_freq);
            break;
        }
        case PE_ROPE_PROPORTIONAL:
            compute_proportional(p, inv_freq);
            break;
        }
    }

    if (!isfinite(att) || !isfinite(local.effective_base))
        return PE_ERR_NONFINITE;
    for (size_t j = 0; j < n; j++)
        if (!isfinite(inv_freq[j]))
            return PE_ERR_NONFINITE;
    *attention_factor = att;
    if (info != NULL)
        *info = local;
    return PE_OK;
}

double pe_rope_softmax_scale_factor(const pe_rope_params *p)
{
    if (p->type != PE_ROPE_YARN || p->inv_freq != NULL || !p->has_mscale_all_dim ||
        p->mscale_all_dim == 0.0)
        return 1.0;
    double g = yarn_get_mscale(p->factor, p->mscale_all_dim);
    return g * g;
}
