/*
 * core/attention.c -- scaled dot-product attention pieces: logits, bias, causal mask, masked
 * softmax, weights . v.
 *
 * Source: arXiv:1706.03762 §3.2.1; flash-attention `attention_ref` (softmax with the row maximum
 * subtracted; masked scores -inf, so their weights are exactly 0). See attention.h.
 */
#include "core/attention.h"

#include <assert.h>

/* logits[i*tk + j] = scale * dot for one entry; nonzero when it is not finite. */
static int put_logit(double *logits, size_t e, double scale, double dot)
{
    double v = scale * dot;
    logits[e] = v;
    return !isfinite(v);
}

pe_status pe_attention_logits(const double *q, const double *k, size_t tq, size_t tk, size_t d,
                              double scale, double *logits)
{
    int bad = 0;
    for (size_t i = 0; i < tq; i++) {
        const double *qi = q + i * d;
        size_t j = 0;
        /* four keys at a time: four independent sums, each still in order c = 0 .. d-1 (the
         * same additions as one at a time, so the same bits), which the processor overlaps
         * instead of waiting on one chain of d dependent additions (a small /rope's 8x8 scores
         * of 128 dims: 2.7 % of the daemon's CPU time before) */
        for (; j + 4 <= tk; j += 4) {
            const double *k0 = k + j * d, *k1 = k0 + d, *k2 = k1 + d, *k3 = k2 + d;
            double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
            for (size_t c = 0; c < d; c++) {
                double x = qi[c];
                d0 += x * k0[c];
                d1 += x * k1[c];
                d2 += x * k2[c];
                d3 += x * k3[c];
            }
            bad |= put_logit(logits, i * tk + j, scale, d0);
            bad |= put_logit(logits, i * tk + j + 1, scale, d1);
            bad |= put_logit(logits, i * tk + j + 2, scale, d2);
            bad |= put_logit(logits, i * tk + j + 3, scale, d3);
        }
        for (; j < tk; j++) {
            const double *kj = k + j * d;
            double dot = 0.0;
            for (size_t c = 0; c < d; c++)
                dot += qi[c] * kj[c];
            bad |= put_logit(logits, i * tk + j, scale, dot);
        }
    }
    return bad ? PE_ERR_NONFINITE : PE_OK;
}

pe_status pe_attention_add_bias(double *logits, const double *bias, size_t n)
{
    pe_status st = PE_OK;
    for (size_t e = 0; e < n; e++) {
        if (pe_attention_is_masked(logits[e]) || pe_attention_is_masked(bias[e])) {
            logits[e] = PE_MASKED;
            continue;
        }
        double v = logits[e] + bias[e];
        if (!isfinite(v))
            st = PE_ERR_NONFINITE;
        logits[e] = v;
    }
    return st;
}

void pe_attention_softcap(double *logits, size_t n, double cap)
{
    for (size_t e = 0; e < n; e++)
        if (!pe_attention_is_masked(logits[e]))
            logits[e] = cap * tanh(logits[e] / cap);
}

void pe_attention_causal_mask(double *logits, size_t tq, size_t tk, const int64_t *q_positions,
                              const int64_t *k_positions)
{
    int explicit_pos = q_positions != NULL && k_positions != NULL;
    for (size_t i = 0; i < tq; i++) {
        for (size_t j = 0; j < tk; j++) {
            int future;
            if (explicit_pos)
                future = k_positions[j] > q_positions[i];
            else
                future = j + tq > tk + i; /* j > tk - tq + i without signed arithmetic */
            if (future)
                logits[i * tk + j] = PE_MASKED;
        }
    }
}

pe_status pe_attention_softmax_row(const double *logits, size_t n, double *weights)
{
    int any = 0;
    double max = 0.0;
    for (size_t j = 0; j < n; j++) {
        double x = logits[j];
        if (pe_attention_is_masked(x))
            continue;
        if (!isfinite(x))
            return PE_ERR_NONFINITE;
        if (!any || x > max)
            max = x;
        any = 1;
    }
    if (!any)
        return PE_ERR_EMPTY_ROW;
    /* Every visible exp(x - max) is in (0, 1] and the maximum contributes 1, so 1 <= sum <= n. */
    double sum = 0.0;
    for (size_t j = 0; j < n; j++) {
        double x = logits[j];
        double e = pe_attention_is_masked(x) ? 0.0 : exp(x - max);
        weights[j] = e;
        sum += e;
    }
    for (size_t j = 0; j < n; j++)
        weights[j] /= sum;
    return PE_OK;
}

pe_status pe_attention_softmax_rows(const double *logits, size_t tq, size_t tk, double *weights,
                                    size_t *bad_row)
{
    for (size_t i = 0; i < tq; i++) {
        pe_status st = pe_attention_softmax_row(logits + i * tk, tk, weights + i * tk);
        if (st != PE_OK) {
            if (bad_row != NULL)
                *bad_row = i;
            return st;
        }
    }
    return PE_OK;
}

pe_status pe_attention_apply(const double *weights, const double *v, size_t tq, size_t tk,
                             size_t dv, double *out)
{
    pe_status st = PE_OK;
    for (size_t i = 0; i < tq; i++) {
        const double *wi = weights + i * tk;
        double *oi = out + i * dv;
        for (size_t c = 0; c < dv; c++)
            oi[c] = 0.0;
        for (size_t j = 0; j < tk; j++) {
            double w = wi[j];
            if (w == 0.0)
                continue; /* masked (or underflowed): contributes exactly 0 */
            const double *vj = v + j * dv;
            for (size_t c = 0; c < dv; c++)
                oi[c] += w * vj[c];
        }
        for (size_t c = 0; c < dv; c++) {
            if (!isfinite(oi[c]))
                st = PE_ERR_NONFINITE;
        }
    }
    return st;
}

void pe_attention_params_init(pe_attention_params *p)
{
    p->tq = 0;
    p->tk = 0;
    p->d = 0;
    p->dv = 0;
    p->scale = 1.0;
    p->bias = NULL;
    p->causal = 0;
    p->q_positions = NULL;
    p->k_positions = NULL;
}

pe_status pe_attention_run(const pe_attention_params *p, const double *q, const double *k,
                           const double *v, double *scores, double *weights, double *out,
                           size_t *bad_row)
{
    if (p->tq == 0 || p->tk == 0)
        return PE_ERR_ARG;
    assert(scores != weights);
    pe_status st = pe_attention_logits(q, k, p->tq, p->tk, p->d, p->scale, scores);
    if (st != PE_OK)
        return st;
    size_t n = p->tq * p->tk;
    if (p->bias != NULL) {
        st = pe_attention_add_bias(scores, p->bias, n);
        if (st != PE_OK)
            return st;
    }
    if (p->causal)
        pe_attention_causal_mask(scores, p->tq, p->tk, p->q_positions, p->k_positions);
    st = pe_attention_softmax_rows(scores, p->tq, p->tk, weights, bad_row);
    if (st != PE_OK)
        return st;
    if (v != NULL && out != NULL)
        return pe_attention_apply(weights, v, p->tq, p->tk, p->dv, out);
    return PE_OK;
}
