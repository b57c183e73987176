/*
 * core/rope_explain.h -- the `include` explanations of POST /rope: bands, decay, float32_error.
 *
 * Contract: docs/api.md#rope-include; formulas: docs/conventions.md#rope.
 * Every function is pure (no globals, no allocation, caller-owned outputs) and thread-safe.
 * Notation as in rope.h: d = rotary dim, n = d/2, theta_j = inv_freq[j] after scaling.
 */
#ifndef PE_ROPE_EXPLAIN_H
#define PE_ROPE_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"
#include "core/rope.h"

/*
 * Class of one frequency pair, by scaling type:
 *   yarn     -> EXTRAPOLATE (ramp_j == 0: frequency kept), BLEND (0 < ramp_j < 1),
 *               INTERPOLATE (ramp_j == 1: frequency / factor)            (arXiv:2309.00071)
 *   llama3   -> HIGH (lambda0_j < L0/high_freq_factor: kept), LOW (lambda0_j > L0/low_freq_factor:
 *               / factor), MEDIUM otherwise (smoothed), where lambda0_j = 2 pi / theta0_j is the
 *               ORIGINAL (unscaled) wavelength, exactly as HF `_compute_llama3_parameters` tests it
 *   longrope -> SHORT or LONG: which rescale list is in use (same for every pair)
 *   others   -> UNCHANGED (default, linear, dynamic, ntk, explicit inv_freq)
 */
typedef enum {
    PE_BAND_UNCHANGED = 0,
    PE_BAND_EXTRAPOLATE,
    PE_BAND_BLEND,
    PE_BAND_INTERPOLATE,
    PE_BAND_HIGH,
    PE_BAND_MEDIUM,
    PE_BAND_LOW,
    PE_BAND_SHORT,
    PE_BAND_LONG
} pe_rope_band_class;

/* Returns the API spelling of c ("unchanged", "extrapolate", "blend", "interpolate", "high",
 * "medium", "low", "short", "long"); a static string, never NULL ("unknown" for other values). */
const char *pe_rope_band_class_str(pe_rope_band_class c);

/* One entry of `bands` (docs/api.md: {"pair", "inv_freq", "wavelength", "rotations", "class",
 * "ramp"}). */
typedef struct {
    size_t pair;       /* j, 0 .. n-1 */
    double inv_freq;   /* theta_j after scaling, rad per position */
    double wavelength; /* tokens per full turn: 2 pi / |theta_j|; INFINITY when theta_j == 0
                        * (api/ must not print it as a number then) */
    double rotations;  /* L0 / wavelength: full turns over the original length; valid only
                        * when has_rotations (0 otherwise) */
    int has_rotations; /* 1 when an original length is known (L0 > 0 in the params) */
    pe_rope_band_class cls;
    double ramp;  /* yarn only: ramp_j in [0, 1] (0 extrapolate .. 1 interpolate) */
    int has_ramp; /* 1 for yarn */
} pe_rope_band;

/*
 * Fills out[0 .. n-1] for the configuration p whose frequencies inv_freq[0 .. n-1] and info were
 * produced by pe_rope_inv_freq(p, ...). n must equal p->rotary_dim / 2.
 * Returns PE_OK, or PE_ERR_ARG when n does not match or p fails pe_rope_params_check (out then
 * unspecified). For Llama 3.1 8B (d 128, base 500000, factor 8, low 1, high 4, L0 8192) this gives
 * pairs 0-28 high, 29-34 medium, 35-63 low (docs/conventions.md#llama3).
 */
pe_status pe_rope_bands(const pe_rope_params *p, const double *inv_freq, const pe_rope_info *info,
                        size_t n, pe_rope_band *out);

/*
 * One entry of `decay`, for relative distance r (RoFormer arXiv:2104.09864, section 3.4.3 and
 * Figure 2). With S_j = sum_{k=0}^{j-1} e^{i r theta_k} (partial sums, j = 1 .. n):
 *   upper_bound     = (1/n) sum_{j=1}^{n} |S_j|            -- the formula of
 * docs/conventions.md#rope-analysis verbatim. At r = 0 every |S_j| = j, so upper_bound(0) =
 * (n+1)/2, not 1. upper_bound_rel = upper_bound / ((n+1)/2)              -- the same curve
 * normalised to its value at r = 0 ("relative upper bound", 1 at distance 0, <= 1 everywhere by the
 * triangle inequality), for plotting next to mean_cos. mean_cos        = (1/n) sum_{j=0}^{n-1}
 * cos(r theta_j)  -- 1 at r = 0; oscillates and can be negative (the quantity a q.k score with
 * all-ones q, k averages). Angles are the double products r * theta_k; no accumulation of angles.
 */
typedef struct {
    int64_t distance;
    double upper_bound;
    double upper_bound_rel;
    double mean_cos;
} pe_rope_decay_point;

/*
 * Fills out[0 .. n_dist-1] for the distances given (any int64; both curves are even in r).
 * inv_freq: [n], n >= 1. Cost O(n) per distance. Returns PE_OK, or PE_ERR_ARG when n == 0.
 */
pe_status pe_rope_decay(const double *inv_freq, size_t n, const int64_t *distances, size_t n_dist,
                        pe_rope_decay_point *out);

/*
 * float32_error: what a float32 table loses at the requested positions
 * (docs/conventions.md#precision). For every position p and pair j: the float32 angle a32 =
 * (float)p * (float)theta_j, multiplied in float (both operands rounded to float32 first), against
 * the float64 angle a64 = (double)p * theta_j; cos and sin of a32 are evaluated in double, so only
 * the angle error is measured. Each field is the maximum over positions and pairs of the absolute
 * difference.
 */
typedef struct {
    double angle_max_abs; /* max |(double)a32 - a64|, radians */
    double cos_max_abs;   /* max |cos(a32) - cos(a64)| */
    double sin_max_abs;   /* max |sin(a32) - sin(a64)| */
} pe_rope_f32_error;

/*
 * Computes *out over positions[0 .. n_pos-1] (non-negative) and inv_freq[0 .. n-1]. With no
 * positions all fields are 0. At position 0 every error is 0. Returns PE_OK, or PE_ERR_ARG for
 * a negative position or a theta_j that is not finite (out then unspecified).
 */
pe_status pe_rope_float32_error(const double *inv_freq, size_t n, const int64_t *positions,
                                size_t n_pos, pe_rope_f32_error *out);

#endif
