/*
 * wire/jw.h -- a small JSON text writer for responses (docs/style.md#s16: large matrices are
 * written number by number into text, never as one json_t per number).
 *
 * The writer appends to a growable buffer with a hard cap set at init (docs/style.md#s10). Commas
 * are inserted automatically. Numbers are written as the shortest decimal string that parses back
 * to the exact double (Dragonbox through wire/numfmt.h, printed much as ECMAScript Number::toString
 * does, see wire_fmt_double); non-finite numbers are never written: they set the writer's
 * `nonfinite` flag and write null, and the API turns that into an error. Any failure (cap reached,
 * out of memory, nesting too deep) is sticky: later calls do nothing and wire_jw_ok() is 0. Not
 * thread-safe; one writer per request.
 *
 * Modes (wire_jw_init_mode; wire_jw_init is WIRE_JW_BUFFER):
 *  - WIRE_JW_BUFFER: everything is text in the buffer at once (tests, small bodies, sub-requests).
 *  - WIRE_JW_STREAM: large matrices (wire_jw_rows, wire_jw_matrix_take, wire_jw_matrix, each with
 * at least WIRE_JW_DEFER_MIN numbers) are not formatted: the writer keeps them as row sources, each
 * with the text offset where it belongs, and wire/stream.h formats them row by row while the
 * response is sent. The buffer then holds only the envelope. Everything that can fail (validation,
 * size checks, non-finite values of materialised data) is still decided while the handler runs.
 *  - WIRE_JW_NPY: no text at all. The value of the best top-level key of a preference list (an
 *    array of numbers, any depth, rectangular) is captured for an .npy body (wire/stream.h); other
 *    values are only checked for finiteness.
 */
#ifndef WIRE_JW_H
#define WIRE_JW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_JW_MAX_DEPTH 32
/* In WIRE_JW_STREAM mode, matrices of at least this many numbers are deferred (wire_jw_matrix
 * copies them); smaller ones are written at once, so small responses keep a Content-Length. */
#define WIRE_JW_DEFER_MIN 16384u

typedef enum { WIRE_JW_BUFFER = 0, WIRE_JW_STREAM = 1, WIRE_JW_NPY = 2 } wire_jw_mode;

/*
 * A [rows][cols] matrix produced row by row on demand. row(self, r, scratch) returns row r
 * (r < rows) as cols doubles: it either fills scratch[cols] and returns scratch, or returns a
 * pointer into memory it owns. It must be pure: it may be called for any r, in any order and any
 * number of times (the .npy float32 check reads rows twice), always on the thread that owns the
 * writer or the stream. Values must be finite, except -INFINITY in masked cells when `masked` is 1
 * (written as null in JSON, as the key's mask value in .npy). release(self) frees self once the
 * rows are no longer needed (NULL: nothing to free). max_abs is an upper bound of |value| over
 * unmasked cells when known (e.g. 1 for sines), else 0.
 */
typedef struct {
    size_t rows, cols;
    const double *(*row)(void *self, size_t r, double *scratch);
    void (*release)(void *self);
    void *self;
    int masked;
    double max_abs;
} wire_rows;

/* One entry of an .npy preference list: a top-level response key, and the value masked cells
 * (JSON null) take in the .npy array (-INFINITY for biases and scores, 0 for weights). */
typedef struct {
    const char *key;
    double masked;
} wire_npy_key;

struct wire_jw_ext; /* stream segments / npy capture (wire/jw_priv.h) */

typedef struct {
    char *buf;  /* owned; NUL-terminated while ok */
    size_t len; /* bytes written */
    size_t cap; /* bytes allocated */
    size_t max; /* hard cap on len */
    int depth;
    unsigned char first[WIRE_JW_MAX_DEPTH]; /* 1 while the container at that depth is empty */
    int after_key;                          /* 1 right after a key: the next value takes no comma */
    int failed;                             /* sticky: cap exceeded, OOM or misuse */
    int nonfinite;                          /* a NaN or infinity was offered */
    wire_jw_mode mode;
    struct wire_jw_ext *ext; /* NULL in WIRE_JW_BUFFER mode */
} wire_jw;

/* Initialises w (WIRE_JW_BUFFER) with an empty buffer capped at max_bytes. Never fails (allocation
 * is lazy). */
void wire_jw_init(wire_jw *w, size_t max_bytes);
/*
 * Initialises w in `mode`. npy_keys (WIRE_JW_NPY only; NULL-key terminated, best first) names the
 * top-level keys whose value may become the .npy array. An allocation failure marks w failed.
 */
void wire_jw_init_mode(wire_jw *w, size_t max_bytes, wire_jw_mode mode,
                       const wire_npy_key *npy_keys);
/*
 * WIRE_JW_NPY mode, called right after init: capture the value of every wanted key present (in
 * the order the response writes them) instead of the best one only, for an .npz body
 * (wire/npz.h). Returns 0, or -1 (w failed) when out of memory or not in WIRE_JW_NPY mode.
 */
int wire_jw_npy_multi(wire_jw *w);
/* WIRE_JW_NPY mode: 1 when the value of key was captured (an array of numbers), else 0. */
int wire_jw_npy_has(const wire_jw *w, const char *key);
/* WIRE_JW_NPY mode: the strings written into the top-level "warnings" array (which no .npy
 * holds), in order: at most max pointers into out (valid until wire_jw_free); returns how many. */
size_t wire_jw_npy_notes(const wire_jw *w, const char **out, size_t max);
/*
 * The n strings s[] as one JSON array of strings in ASCII only, for an HTTP header value
 * (RFC 9110 §5.5: visible ASCII): characters past U+007E and controls as \uXXXX escapes, UTF-16
 * surrogate pairs above U+FFFF, bytes that are not well-formed UTF-8 as \ufffd; '"' and '\\'
 * escaped. malloc'd and NUL-terminated; NULL when out of memory.
 */
char *wire_json_ascii_strings(const char *const *s, size_t n);
/* Frees the buffer and every row source still held; w may be re-initialised afterwards. */
void wire_jw_free(wire_jw *w);
/* Hands the NUL-terminated text to the caller (free() it) and resets w; NULL if w failed.
 * Not in WIRE_JW_NPY mode, nor with deferred matrices (they are not in the text: wire/stream.h). */
char *wire_jw_take(wire_jw *w, size_t *len);
/* 1 when w holds deferred matrices (WIRE_JW_STREAM mode): its body must go out as a stream
 * (wire_stream_json), not as wire_jw_take's text. */
int wire_jw_deferred(const wire_jw *w);

/* Returns 1 while nothing failed. */
int wire_jw_ok(const wire_jw *w);

void wire_jw_obj_begin(wire_jw *w);
void wire_jw_obj_end(wire_jw *w);
void wire_jw_arr_begin(wire_jw *w);
void wire_jw_arr_end(wire_jw *w);
/* Writes an object key (escaped); the next call writes its value. */
void wire_jw_key(wire_jw *w, const char *key);
void wire_jw_double(wire_jw *w, double x);
void wire_jw_int(wire_jw *w, int64_t v);
void wire_jw_bool(wire_jw *w, int v);
void wire_jw_null(wire_jw *w);
void wire_jw_str(wire_jw *w, const char *s);
/* [x0, x1, ...]: n doubles. */
void wire_jw_doubles(wire_jw *w, const double *x, size_t n);
/* [v0, ...]: n int64 values. */
void wire_jw_ints(wire_jw *w, const int64_t *v, size_t n);
/* Rows of a row-major [rows][cols] matrix; where mask is non-NULL and mask[i] is non-zero, null is
 * written instead of x[i]. x and mask are borrowed for the call only (WIRE_JW_STREAM copies large
 * ones). */
void wire_jw_matrix(wire_jw *w, const double *x, const unsigned char *mask, size_t rows,
                    size_t cols);
/* Same as wire_jw_matrix(w, x, NULL, rows, cols) for a malloc'd x that the writer takes over (it is
 * freed by the writer, now or after streaming; the caller must not use or free it any more). */
void wire_jw_matrix_take(wire_jw *w, double *x, size_t rows, size_t cols);
/* Writes the matrix of a row source ([[...], ...]); the writer takes over src->self (released
 * now in WIRE_JW_BUFFER mode, after streaming in WIRE_JW_STREAM mode, also on failure). */
void wire_jw_rows(wire_jw *w, const wire_rows *src);
/* Writes a jansson value (borrowed); reals go through wire_jw_double. */
void wire_jw_json(wire_jw *w, const json_t *v);

/*
 * Formats a finite x into out (>= 32 bytes; NUL-terminated) as the shortest decimal that reads
 * back to exactly x (Dragonbox), laid out as ECMAScript's Number::toString does (what a browser
 * prints: 0.5 → "0.5", 1e-6 → "0.000001", 1e-7 → "1e-7", 3 → "3"), with one difference: an
 * integral value takes the plain form only below 10^17 (1e16 → "10000000000000000", 1e17 →
 * "1e+17"; ECMAScript goes to 10^21), so no number looks like an integer beyond int64 to readers
 * such as jansson that parse integer literals as int64 ("too big integer"). -0 gives "0". Always a
 * valid JSON number (no "+" sign in front, no ".5", no "inf"). Returns the length (at most 25).
 */
size_t wire_fmt_double(char *out, double x);

/* Formats v in decimal into out (>= 21 bytes, NUL-terminated); returns the length. */
size_t wire_fmt_int(char *out, int64_t v);

#endif
