/* core/rope_axes.c -- see rope_axes.h (docs/conventions.md#multi-axis-rope). */
#include "core/rope_axes.h"

#include <math.h>

#include "core/rope.h"

const char *pe_axes_type_str(pe_axes_type t)
{
    switch (t) {
    case PE_AXES_AXIAL:
        return "axial";
    case PE_AXES_MROPE:
        return "mrope";
    case PE_AXES_PIXTRAL:
        return "pixtral";
    case PE_AXES_MIXED:
        return "mixed";
    case PE_AXES_MROPE_INTERLEAVED:
        return "mrope_interleaved";
    }
    return "unknown";
}

pe_status pe_rope_axes_check(pe_axes_type type, size_t rotary_dim, double base,
                             const size_t *sections, size_t n_axes)
{
    if (rotary_dim < 2 || rotary_dim % 2 != 0 || !isfinite(base) || !(base > 1.0))
        return PE_ERR_ARG;
    size_t n = rotary_dim / 2;
    switch (type) {
    case PE_AXES_AXIAL:
    case PE_AXES_MROPE:
    case PE_AXES_MROPE_INTERLEAVED: {
        if (sections == NULL || n_axes == 0 || (type == PE_AXES_MROPE_INTERLEAVED && n_axes != 3))
            return PE_ERR_ARG;
        size_t sum = 0;
        for (size_t a = 0; a < n_axes; a++) {
            if (sections[a] == 0 || sections[a] > n - sum)
                return PE_ERR_ARG;
            sum += sections[a];
        }
        return sum == n ? PE_OK : PE_ERR_ARG;
    }
    case PE_AXES_PIXTRAL:
        return (n_axes == 2 && rotary_dim % 4 == 0) ? PE_OK : PE_ERR_ARG;
    case PE_AXES_MIXED:
        return PE_ERR_ARG;
    }
    return PE_ERR_ARG;
}

pe_status pe_rope_axes_freqs(pe_axes_type type, size_t rotary_dim, double base,
                             const size_t *sections, size_t n_axes, double *F, int64_t *pair_axis)
{
    if (pe_rope_axes_check(type, rotary_dim, base, sections, n_axes) != PE_OK)
        return PE_ERR_ARG;
    size_t n = rotary_dim / 2;
    for (size_t e = 0; e < n_axes * n; e++)
        F[e] = 0.0;
    if (type == PE_AXES_PIXTRAL) {
        size_t h = n / 2;
        for (size_t j = 0; j < n; j++) {
            /* HF Pixtral: freqs = 1 / base ** (arange(0, dim, 2) / dim); rows freqs[::2],
             * columns freqs[1::2] */
            size_t a = j < h ? 0 : 1;
            size_t i1d = a == 0 ? 2 * j : 2 * (j - h) + 1;
            F[a * n + j] = pe_rope_base_freq(base, rotary_dim, i1d);
            if (pair_axis)
                pair_axis[j] = (int64_t)a;
        }
    } else if (type == PE_AXES_MROPE_INTERLEAVED) {
        for (size_t j = 0; j < n; j++) {
            size_t a = (j % 3 == 1 && j < 3 * sections[1])   ? 1
                       : (j % 3 == 2 && j < 3 * sections[2]) ? 2
                                                             : 0;
            F[a * n + j] = pe_rope_base_freq(base, rotary_dim, j);
            if (pair_axis)
                pair_axis[j] = (int64_t)a;
        }
    } else {
        size_t c = 0;
        for (size_t a = 0; a < n_axes; a++) {
            for (size_t k = 0; k < sections[a]; k++) {
                size_t j = c + k;
                F[a * n + j] = type == PE_AXES_AXIAL ? pe_rope_base_freq(base, 2 * sections[a], k)
                                                     : pe_rope_base_freq(base, rotary_dim, j);
                if (pair_axis)
                    pair_axis[j] = (int64_t)a;
            }
            c += sections[a];
        }
    }
    for (size_t e = 0; e < n_axes * n; e++)
        if (!isfinite(F[e]))
            return PE_ERR_NONFINITE;
    return PE_OK;
}

double pe_rope_axes_angle(const double *F, size_t n_axes, size_t n, const int64_t *p, size_t j)
{
    double phi = 0.0;
    for (size_t a = 0; a < n_axes; a++)
        phi += (double)p[a] * F[a * n + j];
    return phi;
}

pe_status pe_rope_axes_cos_sin(const double *F, size_t n_axes, size_t n, const int64_t *coords,
                               size_t n_pos, double *cos_out, double *sin_out, size_t *bad_row)
{
    for (size_t i = 0; i < n_pos; i++) {
        const int64_t *p = coords + i * n_axes;
        for (size_t j = 0; j < n; j++) {
            double phi = pe_rope_axes_angle(F, n_axes, n, p, j);
            if (!isfinite(phi)) {
                if (bad_row)
                    *bad_row = i;
                return PE_ERR_NONFINITE;
            }
            cos_out[i * n + j] = cos(phi);
            sin_out[i * n + j] = sin(phi);
        }
    }
    return PE_OK;
}
