/* core/learned.c -- learned position table rows. See learned.h. */
#include "core/learned.h"

#include <assert.h>
#include <math.h>
#include <string.h>

pe_status pe_learned_check(const pe_learned_params *p)
{
    if (p == NULL || p->data == NULL || p->rows == 0 || p->cols == 0)
        return PE_ERR_ARG;
    switch (p->extend) {
    case PE_LEARNED_ERROR:
    case PE_LEARNED_COPY:
        return PE_OK;
    case PE_LEARNED_INTERPOLATE:
        return p->target_length >= 2 ? PE_OK : PE_ERR_ARG;
    }
    return PE_ERR_ARG;
}

uint64_t pe_learned_limit(const pe_learned_params *p)
{
    switch (p->extend) {
    case PE_LEARNED_COPY:
        return UINT64_MAX;
    case PE_LEARNED_INTERPOLATE:
        return p->target_length;
    case PE_LEARNED_ERROR:
        break;
    }
    return (uint64_t)p->rows;
}

void pe_learned_source(const pe_learned_params *p, uint64_t i, size_t *j, double *f)
{
    assert(p->extend == PE_LEARNED_INTERPOLATE && p->target_length >= 2 && i < p->target_length);
    uint64_t span = (uint64_t)p->rows - 1; /* source rows - 1 */
    uint64_t den = p->target_length - 1;   /* target rows - 1, >= 1 */
    if (span == 0 || i <= UINT64_MAX / span) {
        uint64_t num = i * span; /* x = num / den exactly */
        *j = (size_t)(num / den);
        *f = (double)(num % den) / (double)den;
        return;
    }
    long double x = (long double)i * (long double)span / (long double)den;
    long double fl = floorl(x);
    *j = (size_t)fl;
    *f = (double)(x - fl);
    if (*j >= p->rows - 1) { /* rounding at the very end: clamp to the last row */
        *j = p->rows - 1;
        *f = 0.0;
    }
}

pe_status pe_learned_row(const pe_learned_params *p, int64_t pos, double *out)
{
    if (pe_learned_check(p) != PE_OK)
        return PE_ERR_ARG;
    if (pos < 0 || (uint64_t)pos >= pe_learned_limit(p))
        return PE_ERR_RANGE;
    size_t cols = p->cols;
    if (p->extend == PE_LEARNED_ERROR || p->extend == PE_LEARNED_COPY) {
        size_t r = (size_t)((uint64_t)pos % (uint64_t)p->rows);
        memcpy(out, p->data + r * cols, cols * sizeof *out);
        return PE_OK;
    }
    size_t j = 0;
    double f = 0.0;
    pe_learned_source(p, (uint64_t)pos, &j, &f);
    const double *a = p->data + j * cols;
    if (f == 0.0) { /* on a source row: that row, bit for bit */
        memcpy(out, a, cols * sizeof *out);
        return PE_OK;
    }
    const double *b = a + cols; /* j + 1 < rows: f > 0 implies x < rows - 1 */
    double g = 1.0 - f;
    for (size_t c = 0; c < cols; c++) {
        out[c] = g * a[c] + f * b[c];
        if (!isfinite(out[c]))
            return PE_ERR_NONFINITE;
    }
    return PE_OK;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void pe_learned_demo_fill(double *out, size_t n, uint64_t seed, double scale)
{
    const double two_pi = 6.283185307179586;
    uint64_t st = seed;
    for (size_t i = 0; i < n; i += 2) {
        double u1 = (double)(splitmix64(&st) >> 11) * 0x1p-53;
        double u2 = (double)(splitmix64(&st) >> 11) * 0x1p-53;
        double r = sqrt(-2.0 * log(1.0 - u1));
        out[i] = scale * r * cos(two_pi * u2);
        if (i + 1 < n)
            out[i + 1] = scale * r * sin(two_pi * u2);
    }
}
