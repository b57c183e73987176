/*
 * core/t5.c -- T5 relative position buckets (HF `T5Attention._relative_position_bucket`).
 *
 * See t5.h and docs/conventions.md#t5-buckets for the definition. The only delicate
 * part is the truncation of x = ln(n/E) / ln(max_distance/E) * (B - E) when x is mathematically an
 * integer (n = E * (max_distance/E)^(t/(B-E)) for an integer t): evaluated in float64 it may come
 * out one ulp below (e.g. 18 bidirectional buckets, max_distance 128, n = 16 gives
 * 1.9999999999999998), and a plain trunc then picks the bucket below. Such x are snapped up.
 */
#include "core/t5.h"

#include <assert.h>
#include <float.h>
#include <math.h>

/* x within SNAP_WINDOW below an integer is re-evaluated (float64 error on x is ~1e-15 here). */
#define SNAP_WINDOW 1e-9

/*
 * Window for the long double re-evaluation: with a 64-bit (x87) or wider significand the
 * evaluation error is ~1e-18, so only x within 1e-14 of the integer counts as that integer. Where
 * long double is just double, the float64 window is kept. Irrational x this close to an integer
 * do not occur for parameters of practical size (closest seen over num_buckets <= 200,
 * max_distance <= 10000: 2.2e-8).
 */
#if LDBL_MANT_DIG >= 64
#define EXACT_WINDOW 1e-14L
#else
#define EXACT_WINDOW ((long double)SNAP_WINDOW)
#endif

void pe_t5_params_init(pe_t5_params *p)
{
    p->bidirectional = 1;
    p->num_buckets = 32;
    p->max_distance = 128;
}

pe_status pe_t5_check(const pe_t5_params *p)
{
    if (p == NULL)
        return PE_ERR_ARG;
    size_t b = p->bidirectional ? p->num_buckets / 2 : p->num_buckets;
    size_t e = b / 2;
    if (e < 1)
        return PE_ERR_ARG;
    if (p->max_distance <= e)
        return PE_ERR_ARG;
    return PE_OK;
}

/* trunc(ln(n/e) / ln(md/e) * w) for e <= n < md, with integral values snapped (see top). */
static size_t log_steps(uint64_t n, size_t e, size_t md, size_t w)
{
    double x = log((double)n / (double)e) / log((double)md / (double)e) * (double)w;
    double r = ceil(x);
    if (r > x && r - x <= SNAP_WINDOW) {
        long double xl = logl((long double)n / (long double)e) /
                         logl((long double)md / (long double)e) * (long double)w;
        long double rl = (long double)r;
        x = (rl - xl <= EXACT_WINDOW) ? r : (double)floorl(xl);
    }
    if (!(x > 0.0))
        return 0;
    if (x >= (double)w)
        return w;
    return (size_t)x; /* trunc toward zero; x >= 0 */
}

size_t pe_t5_bucket(const pe_t5_params *p, int64_t rel)
{
    assert(pe_t5_check(p) == PE_OK);
    size_t b = p->bidirectional ? p->num_buckets / 2 : p->num_buckets;
    size_t offset = 0;
    /* |rel| without overflow, also for INT64_MIN. */
    uint64_t past = rel < 0 ? (uint64_t)(-(rel + 1)) + 1u : 0u;
    uint64_t n;
    if (p->bidirectional) {
        if (rel > 0)
            offset = b;
        n = rel < 0 ? past : (uint64_t)rel;
    } else {
        n = past; /* max(-rel, 0): future keys share bucket 0 */
    }
    size_t e = b / 2;
    if (n < e)
        return offset + (size_t)n;
    if (n >= p->max_distance)
        return offset + b - 1; /* x >= B - E there, so the cap applies */
    size_t bucket = e + log_steps(n, e, p->max_distance, b - e);
    return offset + (bucket < b - 1 ? bucket : b - 1);
}

pe_status pe_t5_buckets(const pe_t5_params *p, const int64_t *rel, size_t n, size_t *out)
{
    if (pe_t5_check(p) != PE_OK)
        return PE_ERR_ARG;
    for (size_t e = 0; e < n; e++)
        out[e] = pe_t5_bucket(p, rel[e]);
    return PE_OK;
}

pe_status pe_t5_bucket_matrix(const pe_t5_params *p, const int64_t *q_positions, size_t n_q,
                              const int64_t *k_positions, size_t n_k, size_t *out)
{
    if (pe_t5_check(p) != PE_OK)
        return PE_ERR_ARG;
    for (size_t a = 0; a < n_q; a++) {
        int64_t qp = q_positions[a];
        for (size_t c = 0; c < n_k; c++) {
            int64_t kp = k_positions[c];
            /* kp - qp must fit in int64. */
            if ((qp < 0 && kp > INT64_MAX + qp) || (qp > 0 && kp < INT64_MIN + qp))
                return PE_ERR_RANGE;
            out[a * n_k + c] = pe_t5_bucket(p, kp - qp);
        }
    }
    return PE_OK;
}
