/*
 * api/jw.h -- a small JSON text writer for responses (style R15: large matrices are written number by
 * number into text, never as one json_t per number).
 *
 * The writer appends to a growable buffer with a hard cap set at init (style R9). Commas are inserted
 * automatically. Numbers are written as the shortest decimal string that parses back to the exact
 * double (tries 15, 16 then 17 significant digits); non-finite numbers are never written: they set the
 * writer's `nonfinite` flag and write null, and the API turns that into an error. Any failure (cap
 * reached, out of memory, nesting too deep) is sticky: later calls do nothing and api_jw_ok() is 0.
 * Not thread-safe; one writer per request.
 */
#ifndef API_JW_H
#define API_JW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define API_JW_MAX_DEPTH 32

typedef struct {
    char *buf;          /* owned; NUL-terminated while ok */
    size_t len;         /* bytes written */
    size_t cap;         /* bytes allocated */
    size_t max;         /* hard cap on len */
    int depth;
    unsigned char first[API_JW_MAX_DEPTH]; /* 1 while the container at that depth is empty */
    int after_key;      /* 1 right after a key: the next value takes no comma */
    int failed;         /* sticky: cap exceeded, OOM or misuse */
    int nonfinite;      /* a NaN or infinity was offered */
} api_jw;

/* Initialises w with an empty buffer capped at max_bytes. Never fails (allocation is lazy). */
void api_jw_init(api_jw *w, size_t max_bytes);
/* Frees the buffer; w may be re-initialised afterwards. */
void api_jw_free(api_jw *w);
/* Hands the NUL-terminated text to the caller (free() it) and resets w; NULL if w failed. */
char *api_jw_take(api_jw *w, size_t *len);
/* Returns 1 while nothing failed. */
int api_jw_ok(const api_jw *w);

void api_jw_obj_begin(api_jw *w);
void api_jw_obj_end(api_jw *w);
void api_jw_arr_begin(api_jw *w);
void api_jw_arr_end(api_jw *w);
/* Writes an object key (escaped); the next call writes its value. */
void api_jw_key(api_jw *w, const char *key);
void api_jw_double(api_jw *w, double x);
void api_jw_int(api_jw *w, int64_t v);
void api_jw_bool(api_jw *w, int v);
void api_jw_null(api_jw *w);
void api_jw_str(api_jw *w, const char *s);
/* [x0, x1, ...]: n doubles. */
void api_jw_doubles(api_jw *w, const double *x, size_t n);
/* [v0, ...]: n int64 values. */
void api_jw_ints(api_jw *w, const int64_t *v, size_t n);
/* Rows of a row-major [rows][cols] matrix; where mask is non-NULL and mask[i] is non-zero, null is
 * written instead of x[i]. */
void api_jw_matrix(api_jw *w, const double *x, const unsigned char *mask, size_t rows, size_t cols);
/* Writes a jansson value (borrowed); reals go through api_jw_double. */
void api_jw_json(api_jw *w, const json_t *v);

/* Formats x as the shortest round-trip decimal into out (>= 32 bytes); returns the length.
 * x must be finite. */
size_t api_fmt_double(char *out, double x);

#endif
