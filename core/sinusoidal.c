/*
 * core/sinusoidal.c -- sinusoidal position tables (vaswani, tensor2tensor, fairseq conventions).
 *
 * Formulas: docs/conventions.md#sinusoidal and the table in sinusoidal.h. Computed in
 * float64 (the references store float32 tables; the golden values are float64).
 */
#include "core/sinusoidal.h"

#include <assert.h>
#include <math.h>

void pe_sinusoidal_params_init(pe_sinusoidal_params *p)
{
    p->d_model = 0;
    p->base = 10000.0;
    p->convention = PE_SINUSOIDAL_VASWANI;
    p->layout = PE_SINUSOIDAL_LAYOUT_DEFAULT;
}

pe_status pe_sinusoidal_check(const pe_sinusoidal_params *p)
{
    if (p == NULL || p->d_model == 0)
        return PE_ERR_ARG;
    if (!isfinite(p->base) || !(p->base > 1.0))
        return PE_ERR_ARG;
    switch (p->layout) {
    case PE_SINUSOIDAL_LAYOUT_DEFAULT:
    case PE_SINUSOIDAL_INTERLEAVED:
    case PE_SINUSOIDAL_CONCAT:
        break;
    default:
        return PE_ERR_ARG;
    }
    switch (p->convention) {
    case PE_SINUSOIDAL_VASWANI:
    case PE_SINUSOIDAL_TENSOR2TENSOR:
        return PE_OK;
    case PE_SINUSOIDAL_FAIRSEQ:
        /* half_dim - 1 == 0: fairseq's get_embedding divides by zero. */
        return (p->d_model == 2 || p->d_model == 3) ? PE_ERR_ARG : PE_OK;
    }
    return PE_ERR_ARG;
}

pe_sinusoidal_layout pe_sinusoidal_resolved_layout(const pe_sinusoidal_params *p)
{
    if (p->layout != PE_SINUSOIDAL_LAYOUT_DEFAULT)
        return p->layout;
    return p->convention == PE_SINUSOIDAL_VASWANI ? PE_SINUSOIDAL_INTERLEAVED
                                                  : PE_SINUSOIDAL_CONCAT;
}

size_t pe_sinusoidal_n_freqs(const pe_sinusoidal_params *p)
{
    if (p->convention == PE_SINUSOIDAL_VASWANI)
        return (p->d_model + 1) / 2;
    return p->d_model / 2;
}

pe_status pe_sinusoidal_freqs(const pe_sinusoidal_params *p, double *omega)
{
    if (pe_sinusoidal_check(p) != PE_OK)
        return PE_ERR_ARG;
    size_t nf = pe_sinusoidal_n_freqs(p);
    if (p->convention == PE_SINUSOIDAL_VASWANI) {
        /* HF: 1 / base^(2k/d) with 2k/d in float64; pow keeps exact cases exact (k = 0 -> 1). */
        double d = (double)p->d_model;
        for (size_t k = 0; k < nf; k++)
            omega[k] = pow(p->base, -(2.0 * (double)k) / d);
        return PE_OK;
    }
    /* tensor2tensor: log_timescale_increment = ln(max_ts/min_ts) / max(n-1, 1), min_ts = 1;
     * fairseq: emb = ln(10000) / (half_dim - 1) (n >= 2 here, or n = 0 for d = 1).
     * Both: omega_k = exp(k * -increment). */
    size_t g = nf > 1 ? nf - 1 : 1;
    double inc = log(p->base) / (double)g;
    for (size_t k = 0; k < nf; k++)
        omega[k] = exp((double)k * -inc);
    return PE_OK;
}

void pe_sinusoidal_row(const pe_sinusoidal_params *p, const double *omega, int64_t pos, double *row)
{
    assert(pe_sinusoidal_check(p) == PE_OK);
    size_t d = p->d_model;
    size_t nf = pe_sinusoidal_n_freqs(p);
    int vaswani = p->convention == PE_SINUSOIDAL_VASWANI;
    /* Sine and cosine column counts: vaswani ceil(d/2) and floor(d/2); others n and n. */
    size_t n_sin = nf;
    size_t n_cos = vaswani ? d / 2 : nf;
    double x = (double)pos;

    /* tensor2tensor/fairseq, odd d: the zero column is column d-1 = 2n, above every omega
     * index (< n), in both layouts. */
    if (!vaswani && d % 2 == 1)
        row[d - 1] = 0.0;

    /* Pairs from the last down: each write goes to a column >= k, and omega[k] is read (into a)
     * before, so row may alias omega (see the header). */
    if (pe_sinusoidal_resolved_layout(p) == PE_SINUSOIDAL_INTERLEAVED) {
        for (size_t k = nf; k-- > 0;) {
            double a = x * omega[k];
            double s = sin(a);
            double c = cos(a);
            row[2 * k] = s;
            if (k < n_cos)
                row[2 * k + 1] = c;
        }
    } else {
        for (size_t k = nf; k-- > 0;) {
            double a = x * omega[k];
            double s = sin(a);
            double c = cos(a);
            row[k] = s;
            if (k < n_cos)
                row[n_sin + k] = c;
        }
    }
}

pe_status pe_sinusoidal_fill(const pe_sinusoidal_params *p, const int64_t *positions, size_t n_pos,
                             double *out)
{
    if (pe_sinusoidal_check(p) != PE_OK)
        return PE_ERR_ARG;
    if (n_pos == 0)
        return PE_OK;
    size_t d = p->d_model;
    /* The frequencies live in out's first row (nf <= d) until every other row is written;
     * row 0 is then written over them in place, which pe_sinusoidal_row allows. */
    double *omega = out;
    (void)pe_sinusoidal_freqs(p, omega);
    for (size_t i = 1; i < n_pos; i++)
        pe_sinusoidal_row(p, omega, positions[i], out + i * d);
    pe_sinusoidal_row(p, omega, positions[0], out);
    return PE_OK;
}
