/*
 * tests/lib/bin_util.h -- what the binary-request suites share (api/bin.h): multipart bodies built
 * in memory (boundary BU_BOUNDARY), .npy parts written from float64 values in any dtype, a run of
 * api_bin over a temporary spool file fed in pieces, and a reader for the .npy answer.
 */
#ifndef TESTS_BIN_UTIL_H
#define TESTS_BIN_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "api/api.h"
#include "wire/tensor_io.h"

#define BU_BOUNDARY "b0und-ary"

/* A growing body. */
typedef struct {
    char *buf;
    size_t len, cap;
} bu_body;

/* Appends n bytes. */
void bu_add(bu_body *b, const void *p, size_t n);
/* Appends one part: the delimiter, Content-Disposition with name, an empty line, data, CRLF. */
void bu_part(bu_body *b, const char *name, const void *data, size_t n);
/* Appends the params part (JSON text). */
void bu_params(bu_body *b, const char *json);
/* Appends a .npy part name of x[0..prod(shape)) encoded as dt (descr '<u2' for bfloat16). */
void bu_npy(bu_body *b, const char *name, wire_dtype dt, const size_t *shape, int ndim,
            const double *x);
/* Appends the close delimiter. */
void bu_end(bu_body *b);

/* How bu_run runs. */
typedef struct {
    size_t piece;       /* feed in pieces of this many bytes (0: all at once) */
    int npy;            /* 1: Accept .npy (else .npz) */
    const char *array;  /* ?array= (NULL: default) */
    uint64_t quota;     /* spool quota in bytes (0: none) */
    uint64_t others;    /* of it, bytes other requests hold (the reservation sees the rest) */
    int refuse_hold_at; /* hold refuses totals above this many bytes (0: never) */
} bu_opts;

/* Runs the body through api_bin (route /rope, au_ctx's limits and cache) and returns the response
 * (body buffered; free with api_response_free). */
api_response bu_run(const bu_body *b, const bu_opts *o);

/* The data of an .npy answer: asserts a 200 application/x-npy whose header says dtype dt and
 * count elements; returns a pointer to its data in r->body. */
const unsigned char *bu_npy_data(const api_response *r, wire_dtype dt, size_t count);

/* Asserts a problem answer with status and (ptr not NULL) errors[0].pointer == ptr. */
void bu_expect_problem(const api_response *r, int status, const char *ptr);

#endif
