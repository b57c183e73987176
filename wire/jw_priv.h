/*
 * wire/jw_priv.h -- what wire/jw.c (the writer) hands to wire/stream.c (the reader): the deferred
 * matrices of WIRE_JW_STREAM mode and the captured array of WIRE_JW_NPY mode. Private to those two.
 */
#ifndef WIRE_JW_PRIV_H
#define WIRE_JW_PRIV_H

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
};

/* Writes "[x0,x1,...]" into out (>= WIRE_JW_NUM_MAX n + 2 + WIRE_JW_NUM_SLACK bytes: bytes past
 * the returned length may be scribbled on) and returns its length; with masked, -inf
 * cells are null; any other non-finite value is written as null and sets *nonfinite. */
size_t wire_jw_fmt_row(char *out, const double *x, size_t n, int masked, int *nonfinite);
/* Bytes wire_jw_fmt_row may need per number (with its comma). */
#define WIRE_JW_NUM_MAX 26
/* Room wire_jw_fmt_row may write past its result (fixed-size copies of digits). */
#define WIRE_JW_NUM_SLACK 32

/* Releases the row source of c and its values; c->rank becomes -1. */
void wire_jw_npy_clear(wire_jw_npy *c);

#endif
