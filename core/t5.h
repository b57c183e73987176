/*
 * core/t5.h -- T5 relative position buckets.
 *
 * Source: Raffel et al., arXiv:1910.10683; Hugging Face transformers
 * `T5Attention._relative_position_bucket` (and Mesh TensorFlow's `_relative_position_bucket`, which
 * agrees). Definitions: docs/conventions.md#t5-buckets.
 *
 * r = key position - query position (negative: the key is in the past).
 *   bidirectional: B = num_buckets / 2 (integer division), offset B when r > 0, n = |r|;
 *   causal:        B = num_buckets, no offset, n = max(-r, 0) (every future key lands in bucket 0).
 * With E = B / 2: bucket = n when n < E, else
 *   E + trunc( ln(n/E) / ln(max_distance/E) * (B - E) ), capped at B - 1,
 * plus the offset. The log term is evaluated so that a value that is mathematically an integer
 * comes out as that integer (defaults: n = 16, 32, 64 give exactly 2, 4, 6, so buckets 10, 12, 14),
 * where a plain float64 evaluation can land one ulp below for some non-default parameters.
 * Defaults: 32 buckets, max_distance 128, bidirectional (encoder).
 */
#ifndef PE_T5_H
#define PE_T5_H

#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"

/* A bucketing configuration (api/ validates with pe_t5_check). */
typedef struct {
    int bidirectional;   /* 1: encoder (both directions), 0: decoder (causal) */
    size_t num_buckets;  /* bidirectional >= 4, causal >= 2 (so that E = B/2 >= 1) */
    size_t max_distance; /* > E = B/2 (the log denominator must be positive) */
} pe_t5_params;

/* Sets bidirectional 1, num_buckets 32, max_distance 128. */
void pe_t5_params_init(pe_t5_params *p);

/*
 * Returns PE_OK when p is usable, else PE_ERR_ARG: p NULL, num_buckets too small for an exact
 * range (E = B/2 must be >= 1: bidirectional num_buckets >= 4, causal >= 2), or max_distance <= E
 * (ln(max_distance/E) would be <= 0; HF divides by it). Pure; thread-safe.
 */
pe_status pe_t5_check(const pe_t5_params *p);

/*
 * The bucket (0 .. num_buckets-1) of relative position rel = key - query, any int64 value
 * (|rel| is formed without overflow; distances >= max_distance share the last bucket of their
 * side). p must be valid (asserted). Pure; thread-safe.
 */
size_t pe_t5_bucket(const pe_t5_params *p, int64_t rel);

/*
 * out[e] = pe_t5_bucket(p, rel[e]) for e < n (out caller-owned). Returns PE_ERR_ARG when
 * pe_t5_check fails (out untouched). Pure; thread-safe.
 */
pe_status pe_t5_buckets(const pe_t5_params *p, const int64_t *rel, size_t n, size_t *out);

/*
 * out[a][b] (row-major [n_q][n_k]) = bucket of k_positions[b] - q_positions[a]. Returns
 * PE_ERR_ARG when pe_t5_check fails, PE_ERR_RANGE when a difference does not fit in int64 (not
 * possible for positions in 0 .. 2^62); out is untouched / partial then. Pure; thread-safe.
 */
pe_status pe_t5_bucket_matrix(const pe_t5_params *p, const int64_t *q_positions, size_t n_q,
                              const int64_t *k_positions, size_t n_k, size_t *out);

#endif
