/*
 * wire/stream.h -- response bodies produced while they are sent (issue 8): the daemon never holds
 * the whole text of a large JSON response, and .npy bodies for `Accept: application/x-npy`.
 *
 * A handler writes its response through an wire_jw in WIRE_JW_STREAM or WIRE_JW_NPY mode (jw.h).
 * Everything that can fail is decided while the handler runs; afterwards an wire_stream turns the
 * writer's envelope text and its deferred row sources into bytes, a bounded piece at a time
 * (wire_stream_read), formatting one matrix row at a time. Memory per stream: the envelope text,
 * one row of doubles and one row of text (plus whatever the row sources hold: nothing for
 * /sinusoidal, whose rows are computed on demand).
 *
 * .npy (NumPy format 1.0, numpy/lib/format.py): magic "\x93NUMPY", version 1.0, u16 LE header
 * length, the dict {'descr': ..., 'fortran_order': False, 'shape': (...), } padded with spaces
 * and '\n' so that the data starts at a multiple of 64 bytes, then the data in C order,
 * little-endian: '<f8' (default), '<f4' with "dtype": "float32", '<i8' for arrays of integers
 * (/t5/buckets; dtype does not change them). Masked cells (JSON null) take the value of the
 * route's wire_npy_key (-inf for biases and scores, 0 for weights).
 *
 * Not thread-safe: one stream is read by one thread at a time (MHD: the connection's worker).
 */
#ifndef WIRE_STREAM_H
#define WIRE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "wire/err.h"
#include "wire/jw.h"

#define WIRE_STREAM_SIZE_UNKNOWN UINT64_MAX

typedef struct wire_stream wire_stream;

/*
 * A JSON body from w (WIRE_JW_STREAM mode, wire_jw_ok, no non-finite value): takes over w's text
 * and deferred matrices and resets w (as wire_jw_free). Returns NULL when out of memory (w freed).
 */
wire_stream *wire_stream_json(wire_jw *w);

/*
 * An .npy body from w (WIRE_JW_NPY mode, ok, no non-finite value): the captured array as '<f8',
 * '<f4' (f32 1; integer arrays stay '<i8') or '<i8'. w is reset. Returns NULL with pb filled when
 * no array was captured (WIRE_EINTERNAL), when a value is beyond the float32 range with f32
 * (WIRE_EINVALID at /dtype), or when out of memory (WIRE_ENOMEM).
 */
wire_stream *wire_stream_npy(wire_jw *w, int f32, wire_err *pb);

/* Writes the next bytes of the body into buf (at most max); returns how many, 0 at the end. */
size_t wire_stream_read(wire_stream *s, char *buf, size_t max);

/* 1 when wire_stream_read stopped early because memory ran out (the body is incomplete: the
 * server should abort the connection rather than end the body cleanly). */
int wire_stream_failed(const wire_stream *s);

/* The body's total size in bytes when known in advance (.npy), else WIRE_STREAM_SIZE_UNKNOWN. */
uint64_t wire_stream_size(const wire_stream *s);

/* An upper bound of the memory s holds until it is freed, in bytes: its envelope text, 8 bytes per
 * number of its deferred matrices or .npy array (a row source computed on demand holds less; a
 * table's rows are the table), and for a stream of its own what its held callback says (.npz: the
 * sum over its members), else twice its size. The daemon reserves it in its memory budget while the
 * body is sent (server/respond.c). */
uint64_t wire_stream_held(const wire_stream *s);

/* .npy: the response key whose array it holds ("matrix", "scores", ...); JSON: NULL. */
const char *wire_stream_array(const wire_stream *s);

/*
 * A body produced by a reader of its own (wire/npz.c): read(self, buf, max) writes up to max
 * bytes and returns how many (0 at the end); failed(self) is 1 when it stopped early (may be
 * NULL); release(self) frees self. size: the total when known, else WIRE_STREAM_SIZE_UNKNOWN;
 * array: what wire_stream_array reports (static string or NULL).
 */
typedef struct {
    size_t (*read)(void *self, char *buf, size_t max);
    int (*failed)(const void *self);
    void (*release)(void *self);
    void *self;
    uint64_t size;
    const char *array;
    /* the memory self holds until it is released, in bytes (wire_stream_held); NULL: twice size
     * (a reader over a spool file holds almost nothing of what it sends) */
    uint64_t (*held)(const void *self);
    /* in_file 1: the body is also the bytes [file_off, file_off + size) of the open file fd
     * (which outlives the stream), so a server may send them from the file itself (sendfile)
     * rather than through read; read must give the same bytes */
    int in_file;
    int fd;
    uint64_t file_off;
} wire_stream_src;

/* A stream over src (taken: released when the stream is freed, or at once when out of memory,
 * which returns NULL). */
wire_stream *wire_stream_custom(const wire_stream_src *src);

/* The open file whose bytes [*off, *off + wire_stream_size) are s's body (wire_stream_src.in_file),
 * or -1 (*off untouched) when s is produced as it is read. */
int wire_stream_file(const wire_stream *s, uint64_t *off);

/* Frees s and releases every row source it still holds. NULL is allowed. */
void wire_stream_free(wire_stream *s);

/*
 * Reads the rest of s into one malloc'd buffer (NUL-terminated; *len without the NUL) and frees s.
 * Returns NULL when out of memory or when the body would exceed max bytes (s freed as well).
 */
char *wire_stream_drain(wire_stream *s, size_t max, size_t *len);

/*
 * A stream of the .npy 1.0 file of a [rows][cols] row source as '<f8' (float64, little-endian, C
 * order); the values are encoded as they are read. Takes src (its release runs when the stream is
 * freed, or at once on failure). NULL with pb filled when out of memory.
 */
wire_stream *wire_stream_npy_rows(const wire_rows *src, wire_err *pb);

#endif
