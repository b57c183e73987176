/*
 * wire/jw_priv.h -- what the JSON writer (wire/jw.c, jw_num.c, jw_npy.c, jw_rows.c) hands to
 * wire/stream.c (the reader): the deferred matrices of WIRE_JW_STREAM mode and the captured array
 * of WIRE_JW_NPY mode; and the helpers the writer's files share (wire__ prefix). Private to wire/.
 */
#ifndef WIRE_JW_PRIV_H
#define WIRE_JW_PRIV_H

#include "wire/err.h"
#include "wire/jw.h"

/* A deferred matrix: its JSON text goes at byte `at` of the writer's text. */
typedef struct {
    size_t at;
    wire_rows src;
} wire_jw_seg;

/* The array captured for .npy. */
typedef struct {
    int rank;        /* index of its key in the preference list; -1 = nothing captured */
    const char *key; /* that key (static string of the list) */
    double masked;   /* value of masked cells */
    int ndim;
    size_t shape[WIRE_JW_MAX_DEPTH];
    int all_int; /* every value came through wire_jw_int: '<i8' */
    /* either the values (row-major), or one row source holding the whole array */
    double *v;
    size_t n, cap;
    int has_src;
    wire_rows src;
} wire_jw_npy;

struct wire_jw_ext {
    /* WIRE_JW_STREAM */
    wire_jw_seg *segs;
    size_t n_segs, cap_segs;
    /* WIRE_JW_NPY */
    const wire_npy_key *keys;
    int pending; /* rank of the top-level key just written, -1 when not wanted */
    int active;  /* capturing the value of that key */
    int base;    /* writer depth outside the captured array */
    int leaf;    /* level of the numbers (0: none yet) */
    int bad;     /* not a rectangular array of numbers */
    size_t cnt[WIRE_JW_MAX_DEPTH];
    size_t dim[WIRE_JW_MAX_DEPTH]; /* SIZE_MAX: not known yet */
    int maxlvl;
    wire_jw_npy cur;  /* being captured */
    wire_jw_npy best; /* the best finished capture */
    /* wire_jw_npy_multi: every finished capture of a wanted key, in response order (room for
     * one per key of the list, reserved when multi is set) */
    int multi;
    wire_jw_npy *all;
    size_t n_all, cap_all;
    /* the strings of the top-level "warnings" array (no .npy holds them): wire_jw_npy_notes */
    int notes_on; /* 1 while the top-level key written last is "warnings" */
    char **notes;
    size_t n_notes, cap_notes;
};

/* Writes "[x0,x1,...]" into out (>= WIRE_JW_NUM_MAX n + 2 + WIRE_JW_NUM_SLACK bytes: bytes past
 * the returned length may be scribbled on) and returns its length; with masked, -inf
 * cells are null; any other non-finite value is written as null and sets *nonfinite. */
size_t wire_jw_fmt_row(char *out, const double *x, size_t n, int masked, int *nonfinite);
/* Bytes wire_jw_fmt_row may need per number (with its comma). */
#define WIRE_JW_NUM_MAX 26
/* Room wire_jw_fmt_row may write past its result (fixed-size copies of digits). */
#define WIRE_JW_NUM_SLACK 32

/* stream.c: an .npy stream of the captured array *a (taken: *a is left empty, also on failure),
 * as wire_stream_npy encodes it. NULL with pb filled (float32 overflow, out of memory). */
struct wire_stream *wire__stream_npy_take(wire_jw_npy *a, int f32, wire_err *pb);

/* Releases the row source of c and its values; c->rank becomes -1. */
void wire_jw_npy_clear(wire_jw_npy *c);

/* ---- shared by the writer's files ---------------------------------------------------------- */

/* jw.c: emits the separator a new value needs at the current depth. */
void wire__jw_sep(wire_jw *w);
/* jw.c: [x0, ...] as text (BUFFER and STREAM modes); masked: -inf is a masked cell (null). */
void wire__jw_doubles_text(wire_jw *w, const double *x, size_t n, int masked);
/* jw_npy.c: calls src->release, when there is one. */
void wire__jw_release_rows(const wire_rows *src);
/* jw_npy.c: the index of key in the preference list keys (NULL-key ended), or -1. */
int wire__npy_rank(const wire_npy_key *keys, const char *key);
/* jw_npy.c: a value starts. At the top level of the response object (outside a capture) this
 * consumes the key written before it: returns its rank when the value should be captured (its key
 * is wanted and better than what was captured so far), else -1. */
int wire__npy_take_pending(wire_jw *w);
/* jw_npy.c: starts capturing the value of the key of rank `rank` at writer depth base. */
void wire__npy_cap_start(struct wire_jw_ext *e, int rank, int base);
/* jw_npy.c: the finished capture becomes the best one (when it is a rectangular array). */
void wire__npy_cap_finish(struct wire_jw_ext *e);
/* jw_npy.c: one number of the capture (is_int: it came through wire_jw_int). */
void wire__npy_cap_push(wire_jw *w, double v, int is_int);
/* jw_npy.c: a whole row source is the captured value of the key of rank `rank` (taken). */
void wire__npy_cap_source(wire_jw *w, int rank, const wire_rows *src);
/* jw_npy.c: NPY mode, a string s inside the top-level "warnings" array: kept (a copy). */
void wire__npy_note(wire_jw *w, const char *s);
/* jw_npy.c: a scalar that is not a number (string, bool) in NPY mode. */
void wire__npy_other(wire_jw *w);
/* jw_npy.c: NPY mode, a numeric array value that is not captured: only finiteness matters. */
void wire__npy_scan(wire_jw *w, const double *x, const unsigned char *mask, size_t n, int masked);
/* jw_npy.c: NPY mode: 1 when the array value about to be written is neither captured nor inside a
 * capture (its key's pending rank is consumed); else 0 (the rank is kept for wire_jw_arr_begin). */
int wire__npy_skip(wire_jw *w);

#endif
