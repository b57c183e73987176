/*
 * core/rope_explain.c -- bands, decay and float32_error for /rope's `include` (see rope_explain.h).
 *
 * Sources: band rules from HF modeling_rope_utils (`_compute_yarn_parameters`'s ramp,
 * `_compute_llama3_parameters`'s wavelength tests, `_compute_longrope_parameters`'s list choice);
 * decay from RoFormer arXiv:2104.09864 section 3.4.3 (Figure 2); float32 error model from
 * docs/conventions.md#precision.
 */
#include "core/rope_explain.h"

#include <math.h>

const char *pe_rope_band_class_str(pe_rope_band_class c)
{
    switch (c) {
    case PE_BAND_UNCHANGED:
        return "unchanged";
    case PE_BAND_EXTRAPOLATE:
        return "extrapolate";
    case PE_BAND_BLEND:
        return "blend";
    case PE_BAND_INTERPOLATE:
        return "interpolate";
    case PE_BAND_HIGH:
        return "high";
    case PE_BAND_MEDIUM:
        return "medium";
    case PE_BAND_LOW:
        return "low";
    case PE_BAND_SHORT:
        return "short";
    case PE_BAND_LONG:
        return "long";
    }
    return "unknown";
}

/* llama3 band of pair j, tested on the ORIGINAL wavelength with HF's comparisons. */
static pe_rope_band_class llama3_class(const pe_rope_params *p, size_t j)
{
    double l0 = p->original_max_position_embeddings;
    double wavelen = PE_ROPE_TWO_PI / pe_rope_base_freq(p->base, p->rotary_dim, j);
    if (wavelen < l0 / p->high_freq_factor)
        return PE_BAND_HIGH;
    if (wavelen > l0 / p->low_freq_factor)
        return PE_BAND_LOW;
    return PE_BAND_MEDIUM;
}

pe_status pe_rope_bands(const pe_rope_params *p, const double *inv_freq, const pe_rope_info *info,
                        size_t n, pe_rope_band *out)
{
    if (pe_rope_params_check(p) != PE_OK || n != p->rotary_dim / 2)
        return PE_ERR_ARG;
    double l0 = p->original_max_position_embeddings;
    int explicit_freq = p->inv_freq != NULL;
    for (size_t j = 0; j < n; j++) {
        pe_rope_band *b = &out[j];
        b->pair = j;
        b->inv_freq = inv_freq[j];
        b->wavelength = inv_freq[j] != 0.0 ? PE_ROPE_TWO_PI / fabs(inv_freq[j]) : INFINITY;
        b->has_rotations = l0 > 0.0;
        b->rotations = b->has_rotations ? l0 / b->wavelength : 0.0;
        b->cls = PE_BAND_UNCHANGED;
        b->ramp = 0.0;
        b->has_ramp = 0;
        if (explicit_freq)
            continue;
        switch (p->type) {
        case PE_ROPE_YARN: {
            double r = pe_rope_yarn_ramp(info->ramp_low, info->ramp_high, j);
            b->ramp = r;
            b->has_ramp = 1;
            if (r <= 0.0)
                b->cls = PE_BAND_EXTRAPOLATE;
            else if (r >= 1.0)
                b->cls = PE_BAND_INTERPOLATE;
            else
                b->cls = PE_BAND_BLEND;
            break;
        }
        case PE_ROPE_LLAMA3:
            b->cls = llama3_class(p, j);
            break;
        case PE_ROPE_LONGROPE:
            b->cls = info->longrope_long ? PE_BAND_LONG : PE_BAND_SHORT;
            break;
        case PE_ROPE_DEFAULT:
        case PE_ROPE_LINEAR:
        case PE_ROPE_DYNAMIC:
        case PE_ROPE_NTK:
        case PE_ROPE_PROPORTIONAL:
            break;
        }
    }
    return PE_OK;
}

pe_status pe_rope_decay(const double *inv_freq, size_t n, const int64_t *distances, size_t n_dist,
                        pe_rope_decay_point *out)
{
    if (n == 0)
        return PE_ERR_ARG;
    double inv_n = 1.0 / (double)n;
    double at_zero = ((double)n + 1.0) / 2.0; /* (1/n) sum_{j=1}^{n} j */
    for (size_t i = 0; i < n_dist; i++) {
        double r = (double)distances[i];
        double re = 0.0, im = 0.0; /* S_j, j = 1 .. n */
        double sum_abs = 0.0, sum_cos = 0.0;
        for (size_t k = 0; k < n; k++) {
            double a = r * inv_freq[k];
            double c = cos(a);
            re += c;
            im += sin(a);
            sum_abs += hypot(re, im);
            sum_cos += c;
        }
        out[i].distance = distances[i];
        out[i].upper_bound = sum_abs * inv_n;
        out[i].upper_bound_rel = out[i].upper_bound / at_zero;
        out[i].mean_cos = sum_cos * inv_n;
    }
    return PE_OK;
}

pe_status pe_rope_float32_error(const double *inv_freq, size_t n, const int64_t *positions,
                                size_t n_pos, pe_rope_f32_error *out)
{
    double e_ang = 0.0, e_cos = 0.0, e_sin = 0.0;
    for (size_t j = 0; j < n; j++)
        if (!isfinite(inv_freq[j]))
            return PE_ERR_ARG;
    for (size_t i = 0; i < n_pos; i++) {
        if (positions[i] < 0)
            return PE_ERR_ARG;
        double p64 = (double)positions[i];
        float p32 = (float)positions[i];
        for (size_t j = 0; j < n; j++) {
            double a64 = p64 * inv_freq[j];
            float a32f = p32 * (float)inv_freq[j]; /* one float32 multiply, as a float32 table */
            double a32 = (double)a32f;
            double d_ang = fabs(a32 - a64);
            double d_cos = fabs(cos(a32) - cos(a64));
            double d_sin = fabs(sin(a32) - sin(a64));
            if (d_ang > e_ang)
                e_ang = d_ang;
            if (d_cos > e_cos)
                e_cos = d_cos;
            if (d_sin > e_sin)
                e_sin = d_sin;
        }
    }
    out->angle_max_abs = e_ang;
    out->cos_max_abs = e_cos;
    out->sin_max_abs = e_sin;
    return PE_OK;
}
