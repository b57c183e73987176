/*
 * core/learned.h -- rows of a learned absolute position table (GPT-2's `wpe`, BERT's
 * `position_embeddings`), with the three ways of answering a position beyond the table.
 *
 * A table is [rows][cols] row-major doubles: row p is the embedding of position p (Radford et al.
 * 2019, GPT-2; Devlin et al., arXiv:1810.04805). Extension past the last row:
 *   PE_LEARNED_ERROR        position p must be < rows (the learned table's hard limit);
 *   PE_LEARNED_COPY         row p = table[p mod rows] (Longformer, arXiv:2004.05150 §5, initialised
 *                           4096 positions by copying RoBERTa's 512 rows repeatedly);
 *   PE_LEARNED_INTERPOLATE  the table resampled linearly to L = target_length rows (L >= 2): row i
 *                           is taken at source coordinate x = i * (rows-1) / (L-1), i.e.
 *                           (1 - f) * table[j] + f * table[j+1] with j = floor(x), f = x - j —
 *                           the rule of torch.nn.functional.interpolate(mode="linear",
 *                           align_corners=True). x is formed exactly as the integer ratio
 *                           (i*(rows-1)) / (L-1) (quotient j, remainder r, f = r/(L-1) rounded
 *                           once), so a row that lands on a source row (r = 0) is that row bit for
 *                           bit. Positions must be < L.
 * No allocation, no I/O; every function is pure and thread-safe.
 */
#ifndef PE_LEARNED_H
#define PE_LEARNED_H

#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"

typedef enum {
    PE_LEARNED_ERROR = 0,
    PE_LEARNED_COPY = 1,
    PE_LEARNED_INTERPOLATE = 2,
} pe_learned_extend;

/* A table and how to read it. The table is borrowed (never written). */
typedef struct {
    const double *data;       /* [rows][cols] row-major */
    size_t rows;              /* >= 1 */
    size_t cols;              /* >= 1 */
    pe_learned_extend extend; /* see above */
    uint64_t target_length;   /* L >= 2 for PE_LEARNED_INTERPOLATE; ignored otherwise */
} pe_learned_params;

/*
 * Returns PE_OK when p is usable, else PE_ERR_ARG: p or p->data NULL, rows or cols 0, an unknown
 * extend, or interpolate with target_length < 2.
 */
pe_status pe_learned_check(const pe_learned_params *p);

/*
 * The number of positions p accepts: rows (error), target_length (interpolate), or UINT64_MAX
 * (copy: every non-negative position). p must be valid.
 */
uint64_t pe_learned_limit(const pe_learned_params *p);

/*
 * Writes the row of position pos into out[cols] (caller-owned). Returns PE_OK, PE_ERR_ARG when
 * pe_learned_check fails, or PE_ERR_RANGE when pos < 0 or pos >= pe_learned_limit(p) (out is
 * untouched then). An interpolated row is finite whenever the table is, up to overflow of
 * (1 - f) a + f b for entries near DBL_MAX (then PE_ERR_NONFINITE, out partly written).
 */
pe_status pe_learned_row(const pe_learned_params *p, int64_t pos, double *out);

/*
 * The source coordinate of interpolated row i as j (floor) and f (fraction in [0, 1)):
 * x = i * (rows-1) / (L-1). Exact integer arithmetic when i * (rows-1) fits in 64 bits, else
 * long double. p must be a valid interpolate configuration and i < L.
 */
void pe_learned_source(const pe_learned_params *p, uint64_t i, size_t *j, double *f);

/*
 * The generator of the built-in table demo-512x64 (documented so anyone can rebuild it): fills
 * out[0..n) row-major with scale * N(0, 1) draws. Uniforms come from splitmix64 (Steele, Lea,
 * Flood 2014; Vigna's reference C): state += 0x9E3779B97F4A7C15, z = state,
 * z = (z ^ z>>30) * 0xBF58476D1CE4E5B9, z = (z ^ z>>27) * 0x94D049BB133111EB, z ^= z>>31;
 * u = (z >> 11) * 2^-53 in [0, 1). Each pair of outputs takes two uniforms u1, u2 in that order
 * and applies Box-Muller in double: r = sqrt(-2 ln(1 - u1)), out[2m] = scale * r * cos(2 pi u2),
 * out[2m+1] = scale * r * sin(2 pi u2) (an odd n drops the last sine). 2 pi is the double
 * 6.283185307179586. demo-512x64 is n = 512 * 64, seed PE_LEARNED_DEMO_SEED, scale 0.02.
 */
#define PE_LEARNED_DEMO_SEED 0x706F73656E63ULL /* "posenc" in ASCII */
void pe_learned_demo_fill(double *out, size_t n, uint64_t seed, double scale);

#endif
