/* core/relative.c -- see relative.h (Shaw et al. arXiv:1803.02155; Transformer-XL
 * arXiv:1901.02860, XLNet arXiv:1906.08237). */
#include "core/relative.h"

#include <math.h>

#include "core/rope.h"

/* Position of row / column x: the array entry, or the index. */
static int64_t pos_at(const int64_t *p, size_t x)
{
    return p ? p[x] : (int64_t)x;
}

/* |a - b| as uint64 without overflow. */
static uint64_t abs_diff(int64_t a, int64_t b)
{
    return a >= b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

size_t pe_shaw_row(int64_t q_pos, int64_t k_pos, size_t K)
{
    uint64_t dist = abs_diff(k_pos, q_pos);
    size_t c = dist > (uint64_t)K ? K : (size_t)dist;
    return k_pos >= q_pos ? K + c : K - c;
}

pe_status pe_shaw_key_bias(const double *q, size_t tq, size_t tk, size_t d, const double *key_emb,
                           size_t K, const int64_t *q_pos, const int64_t *k_pos, double scale,
                           double *bias)
{
    if (d == 0 || K == 0)
        return PE_ERR_ARG;
    for (size_t i = 0; i < tq; i++) {
        const double *qi = q + i * d;
        int64_t pi = pos_at(q_pos, i);
        for (size_t j = 0; j < tk; j++) {
            const double *a = key_emb + pe_shaw_row(pi, pos_at(k_pos, j), K) * d;
            double acc = 0.0;
            for (size_t c = 0; c < d; c++)
                acc += qi[c] * a[c];
            double b = scale * acc;
            if (!isfinite(b))
                return PE_ERR_NONFINITE;
            bias[i * tk + j] = b;
        }
    }
    return PE_OK;
}

pe_status pe_shaw_value_term(const double *weights, size_t tq, size_t tk, const double *val_emb,
                             size_t K, size_t dv, const int64_t *q_pos, const int64_t *k_pos,
                             double *out)
{
    if (dv == 0 || K == 0)
        return PE_ERR_ARG;
    for (size_t i = 0; i < tq; i++) {
        const double *w = weights + i * tk;
        int64_t pi = pos_at(q_pos, i);
        double *o = out + i * dv;
        for (size_t c = 0; c < dv; c++) {
            double acc = 0.0;
            for (size_t j = 0; j < tk; j++) {
                if (w[j] == 0.0)
                    continue; /* masked (or underflowed) weight: adds exactly nothing */
                acc += w[j] * val_emb[pe_shaw_row(pi, pos_at(k_pos, j), K) * dv + c];
            }
            o[c] += acc;
            if (!isfinite(o[c]))
                return PE_ERR_NONFINITE;
        }
    }
    return PE_OK;
}

pe_status pe_txl_sinusoid(int64_t delta, double base, size_t d_r, double *r)
{
    if (d_r == 0 || d_r % 2 != 0 || !isfinite(base) || !(base > 0.0))
        return PE_ERR_ARG;
    size_t m = d_r / 2;
    double x = (double)delta;
    for (size_t t = 0; t < m; t++) {
        /* transformer-xl: inv_freq = 1 / (10000 ** (torch.arange(0.0, demb, 2.0) / demb)) */
        double ang = x * pe_rope_base_freq(base, d_r, t);
        r[t] = sin(ang);
        r[m + t] = cos(ang);
    }
    return PE_OK;
}

/* delta = a - b clipped to +-clamp (clamp 0: none); PE_ERR_RANGE when it does not fit. */
static pe_status clipped_delta(int64_t a, int64_t b, int64_t clamp, int64_t *out)
{
    uint64_t dist = abs_diff(a, b);
    if (clamp > 0 && dist > (uint64_t)clamp)
        dist = (uint64_t)clamp;
    if (a >= b) {
        if (dist > (uint64_t)INT64_MAX)
            return PE_ERR_RANGE;
        *out = (int64_t)dist;
    } else {
        if (dist > (uint64_t)INT64_MAX + 1u)
            return PE_ERR_RANGE;
        *out = dist == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)dist;
    }
    return PE_OK;
}

pe_status pe_txl_delta_range(size_t tq, size_t tk, const int64_t *q_pos, const int64_t *k_pos,
                             int64_t clamp_len, int64_t *lo, size_t *n)
{
    if (tq == 0 || tk == 0 || clamp_len < 0)
        return PE_ERR_ARG;
    int64_t qmin = pos_at(q_pos, 0), qmax = qmin, kmin = pos_at(k_pos, 0), kmax = kmin;
    for (size_t i = 1; i < tq; i++) {
        int64_t p = pos_at(q_pos, i);
        qmin = p < qmin ? p : qmin;
        qmax = p > qmax ? p : qmax;
    }
    for (size_t j = 1; j < tk; j++) {
        int64_t p = pos_at(k_pos, j);
        kmin = p < kmin ? p : kmin;
        kmax = p > kmax ? p : kmax;
    }
    int64_t a, b; /* smallest and largest clipped distance (clipping is monotone) */
    if (clipped_delta(qmin, kmax, clamp_len, &a) != PE_OK ||
        clipped_delta(qmax, kmin, clamp_len, &b) != PE_OK)
        return PE_ERR_RANGE;
    uint64_t span = abs_diff(b, a);
    if (span >= (uint64_t)SIZE_MAX)
        return PE_ERR_RANGE;
    *lo = a;
    *n = (size_t)span + 1;
    return PE_OK;
}

pe_status pe_txl_rel_table(int64_t lo, size_t n_delta, double base, size_t d_r, const double *w_r,
                           size_t d, double *work, double *out)
{
    if (d == 0 || (w_r == NULL && d != d_r))
        return PE_ERR_ARG;
    for (size_t m = 0; m < n_delta; m++) {
        /* lo + m fits: the caller's range came from pe_txl_delta_range */
        int64_t delta = (int64_t)((uint64_t)lo + (uint64_t)m);
        double *o = out + m * d;
        pe_status st = pe_txl_sinusoid(delta, base, d_r, w_r ? work : o);
        if (st != PE_OK)
            return st;
        if (w_r == NULL)
            continue;
        for (size_t c = 0; c < d; c++) {
            const double *row = w_r + c * d_r;
            double acc = 0.0;
            for (size_t t = 0; t < d_r; t++)
                acc += row[t] * work[t];
            if (!isfinite(acc))
                return PE_ERR_NONFINITE;
            o[c] = acc;
        }
    }
    return PE_OK;
}

pe_status pe_txl_position_bias(const double *q, size_t tq, size_t tk, size_t d,
                               const double *v_bias, const double *rel, int64_t lo, size_t n_delta,
                               const int64_t *q_pos, const int64_t *k_pos, int64_t clamp_len,
                               double scale, double *bias)
{
    if (d == 0 || clamp_len < 0)
        return PE_ERR_ARG;
    for (size_t i = 0; i < tq; i++) {
        const double *qi = q + i * d;
        int64_t pi = pos_at(q_pos, i);
        for (size_t j = 0; j < tk; j++) {
            int64_t delta;
            if (clipped_delta(pi, pos_at(k_pos, j), clamp_len, &delta) != PE_OK || delta < lo)
                return PE_ERR_ARG;
            uint64_t idx = (uint64_t)delta - (uint64_t)lo;
            if (idx >= (uint64_t)n_delta)
                return PE_ERR_ARG;
            const double *p = rel + (size_t)idx * d;
            double acc = 0.0;
            for (size_t c = 0; c < d; c++)
                acc += (qi[c] + (v_bias ? v_bias[c] : 0.0)) * p[c];
            double b = scale * acc;
            if (!isfinite(b))
                return PE_ERR_NONFINITE;
            bias[i * tk + j] = b;
        }
    }
    return PE_OK;
}

pe_status pe_txl_shift_queries(double *q, size_t t, size_t d, const double *u)
{
    for (size_t i = 0; i < t; i++) {
        for (size_t c = 0; c < d; c++) {
            double x = q[i * d + c] + u[c];
            if (!isfinite(x))
                return PE_ERR_NONFINITE;
            q[i * d + c] = x;
        }
    }
    return PE_OK;
}
