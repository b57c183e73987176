/*
 * api/stream.h -- response bodies produced while they are sent (issue 8): the daemon never holds
 * the whole text of a large JSON response, and .npy bodies for `Accept: application/x-npy`.
 *
 * A handler writes its response through an api_jw in API_JW_STREAM or API_JW_NPY mode (jw.h).
 * Everything that can fail is decided while the handler runs; afterwards an api_stream turns the
 * writer's envelope text and its deferred row sources into bytes, a bounded piece at a time
 * (api_stream_read), formatting one matrix row at a time. Memory per stream: the envelope text,
 * one row of doubles and one row of text (plus whatever the row sources hold: nothing for
 * /sinusoidal, whose rows are computed on demand).
 *
 * .npy (NumPy format 1.0, numpy/lib/format.py): magic "\x93NUMPY", version 1.0, u16 LE header
 * length, the dict {'descr': ..., 'fortran_order': False, 'shape': (...), } padded with spaces
 * and '\n' so that the data starts at a multiple of 64 bytes, then the data in C order,
 * little-endian: '<f8' (default), '<f4' with "dtype": "float32", '<i8' for arrays of integers
 * (/t5/buckets; dtype does not change them). Masked cells (JSON null) take the value of the
 * route's api_npy_key (-inf for biases and scores, 0 for weights).
 *
 * Not thread-safe: one stream is read by one thread at a time (MHD: the connection's worker).
 */
#ifndef API_STREAM_H
#define API_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "jw.h"
#include "problem.h"

#define API_STREAM_SIZE_UNKNOWN UINT64_MAX

typedef struct api_stream api_stream;

/*
 * A JSON body from w (API_JW_STREAM mode, api_jw_ok, no non-finite value): takes over w's text and
 * deferred matrices and resets w (as api_jw_free). Returns NULL when out of memory (w freed).
 */
api_stream *api_stream_json(api_jw *w);

/*
 * An .npy body from w (API_JW_NPY mode, ok, no non-finite value): the captured array as '<f8',
 * '<f4' (f32 1; integer arrays stay '<i8') or '<i8'. w is reset. Returns NULL with pb filled when
 * no array was captured (500 internal), when a value is beyond the float32 range with f32
 * (422 invalid-field at /dtype), or when out of memory (503).
 */
api_stream *api_stream_npy(api_jw *w, int f32, api_problem *pb);

/* Writes the next bytes of the body into buf (at most max); returns how many, 0 at the end. */
size_t api_stream_read(api_stream *s, char *buf, size_t max);

/* 1 when api_stream_read stopped early because memory ran out (the body is incomplete: the
 * server should abort the connection rather than end the body cleanly). */
int api_stream_failed(const api_stream *s);

/* The body's total size in bytes when known in advance (.npy), else API_STREAM_SIZE_UNKNOWN. */
uint64_t api_stream_size(const api_stream *s);

/* .npy: the response key whose array it holds ("matrix", "scores", ...); JSON: NULL. */
const char *api_stream_array(const api_stream *s);

/* Frees s and releases every row source it still holds. NULL is allowed. */
void api_stream_free(api_stream *s);

/*
 * Reads the rest of s into one malloc'd buffer (NUL-terminated; *len without the NUL) and frees s.
 * Returns NULL when out of memory or when the body would exceed max bytes (s freed as well).
 */
char *api_stream_drain(api_stream *s, size_t max, size_t *len);

/*
 * 1 when an Accept header value asks for application/x-npy: it is listed with q > 0 and with a q
 * at least that of application/json (or of application/ * and * / * when JSON is not named).
 * NULL or anything else: 0 (JSON, the default).
 */
int api_accept_npy(const char *accept);

/*
 * Writes an .npy 1.0 header for descr ("<f8", "<f4", "<i8") and shape[0..ndim) (1 <= ndim <=
 * API_JW_MAX_DEPTH) into out (n >= API_NPY_HEADER_MAX). Returns its length (a multiple of 64), or
 * 0 when it does not fit.
 */
#define API_NPY_HEADER_MAX 1024
size_t api_npy_header(char *out, size_t n, const char *descr, const size_t *shape, int ndim);

#endif
