/*
 * core/sinusoidal.h -- fixed sinusoidal position tables (additive encodings).
 *
 * Sources (formulas and where they differ: docs/conventions.md#sinusoidal):
 *   vaswani       arXiv:1706.03762 §3.5; HF XLM/DistilBERT `create_sinusoidal_embeddings`
 *                 (interleaved) and HF Marian `_init_weight` (concat).
 *   tensor2tensor arXiv:1803.07416; `common_attention.get_timing_signal_1d` (min_ts 1,
 *                 max_ts base).
 *   fairseq       arXiv:1904.01038; `SinusoidalPositionalEmbedding.get_embedding` (positions are
 *                 row numbers of its table: no padding offset, no zeroed row).
 *
 * Notation: d = d_model, p a position, omega_k the frequency of pair k (rad per position).
 * The angle of pair k at position p is the double product (double)p * omega_k (never accumulated).
 *
 *   convention     omega_k, k = 0 .. nf-1                      nf          odd d
 *   vaswani        base^(-2k/d)                                ceil(d/2)   one extra sine
 *   tensor2tensor  exp(-k * ln(base) / max(n-1, 1)), n = d/2   floor(d/2)  zero column last
 *   fairseq        exp(-k * ln(base) / (n-1)),      n = d/2    floor(d/2)  zero column last
 *
 * Layouts (row of d doubles):
 *   interleaved  column 2k = sin(p w_k), column 2k+1 = cos(p w_k).
 *                vaswani, odd d: the last column (d-1, even) is the extra sine.
 *                tensor2tensor/fairseq (posenc's definition for this override; no reference
 *                has it): columns 0 .. 2n-1 as above, then the zero column last when d is odd.
 *   concat       [sin(p w_0) .. sin(p w_{ns-1}) | cos(p w_0) .. cos(p w_{nc-1}) | (0)]
 *                vaswani: ns = ceil(d/2), nc = floor(d/2) (the sine block is one longer for odd d).
 *                tensor2tensor/fairseq: ns = nc = n, then the zero column when d is odd.
 * Default layout: interleaved for vaswani, concat for tensor2tensor and fairseq.
 * Small d: d = 1 gives (sin p) for vaswani and (0) for the others; fairseq rejects d = 2 and 3
 * (its denominator n-1 is 0).
 */
#ifndef PE_SINUSOIDAL_H
#define PE_SINUSOIDAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"

typedef enum {
    PE_SINUSOIDAL_VASWANI = 0,   /* paper / HF XLM, DistilBERT, Marian */
    PE_SINUSOIDAL_TENSOR2TENSOR, /* get_timing_signal_1d */
    PE_SINUSOIDAL_FAIRSEQ        /* get_embedding */
} pe_sinusoidal_convention;

typedef enum {
    PE_SINUSOIDAL_LAYOUT_DEFAULT = 0, /* the convention's own layout (see above) */
    PE_SINUSOIDAL_INTERLEAVED,        /* sin at 2k, cos at 2k+1 */
    PE_SINUSOIDAL_CONCAT              /* [sin block | cos block] */
} pe_sinusoidal_layout;

/* A sinusoidal table configuration (api/ validates; see pe_sinusoidal_check). */
typedef struct {
    size_t d_model; /* d >= 1 (fairseq: d = 1 or d >= 4) */
    double base;    /* finite, > 1 (e.g. 10000); max_ts for tensor2tensor */
    pe_sinusoidal_convention convention;
    pe_sinusoidal_layout layout; /* PE_SINUSOIDAL_LAYOUT_DEFAULT picks the convention's */
} pe_sinusoidal_params;

/* Sets d_model 0 (must be set by the caller), base 10000, convention vaswani, layout default. */
void pe_sinusoidal_params_init(pe_sinusoidal_params *p);

/*
 * Returns PE_OK when p describes a table this module can build, else PE_ERR_ARG: p NULL,
 * d_model 0, base not finite or <= 1, an unknown convention or layout, or fairseq with d_model
 * 2 or 3 (fairseq divides by half_dim - 1 = 0 there). Pure; thread-safe.
 */
pe_status pe_sinusoidal_check(const pe_sinusoidal_params *p);

/* The layout actually used: p->layout, or the convention's default when it is LAYOUT_DEFAULT. */
pe_sinusoidal_layout pe_sinusoidal_resolved_layout(const pe_sinusoidal_params *p);

/*
 * Number of frequencies nf of a valid configuration: ceil(d/2) for vaswani, floor(d/2) for
 * tensor2tensor and fairseq (0 when d = 1). Never more than d_model.
 */
size_t pe_sinusoidal_n_freqs(const pe_sinusoidal_params *p);

/*
 * Fills omega[0 .. nf-1] (nf = pe_sinusoidal_n_freqs(p)) with the frequencies in rad per
 * position, per the table at the top of this header (vaswani with pow(base, -2k/d); the others
 * with exp(k * -ln(base)/g) in the references' order of operations). omega is caller-owned.
 * Returns PE_ERR_ARG when pe_sinusoidal_check fails (omega untouched). Pure; thread-safe.
 */
pe_status pe_sinusoidal_freqs(const pe_sinusoidal_params *p, double *omega);

/*
 * Writes the row of position pos into row[0 .. d_model-1] from the frequencies of
 * pe_sinusoidal_freqs. The angle of pair k is (double)pos * omega[k]. p must be valid (asserted).
 * row may be the same pointer as omega (the row is written from the last pair down, and each
 * frequency is read before any column at or below its index is written); otherwise they must
 * not overlap. Never fails; pure; thread-safe.
 */
void pe_sinusoidal_row(const pe_sinusoidal_params *p, const double *omega, int64_t pos,
                       double *row);

/*
 * Fills out[i][c] (row-major, [n_pos][d_model], caller-owned) with the encoding of positions[i].
 * The frequencies are computed once per call (kept in out's first row, which is written last).
 * positions are the row numbers as given (non-negative integers as int64; no offset is added).
 * Returns PE_OK, or PE_ERR_ARG when pe_sinusoidal_check(p) fails (out untouched). n_pos 0 is a
 * no-op. Pure; thread-safe.
 */
pe_status pe_sinusoidal_fill(const pe_sinusoidal_params *p, const int64_t *positions, size_t n_pos,
                             double *out);

#endif
