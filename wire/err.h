/*
 * wire/err.h -- what went wrong while reading or writing a byte format (.npy, .safetensors, the
 * streamed bodies). wire/ knows nothing of HTTP: the api/ layer turns a wire_err into a
 * problem+json answer (api_problem_from_wire in api/problem.h), server/ and store/ use the detail
 * text as it is (a log line).
 *
 * Filling an error never allocates: the detail is a fixed-size buffer, cut at its size.
 */
#ifndef WIRE_ERR_H
#define WIRE_ERR_H

#include <stddef.h>

/* Kinds of failure; each maps to one problem code in api/problem.c. */
typedef enum {
    WIRE_OK = 0,
    WIRE_EINVALID, /* the bytes break a rule of the format, or use a feature we refuse (422) */
    WIRE_ELIMIT,   /* well-formed, but larger than a cap the caller set (422 limit-exceeded) */
    WIRE_ENOMEM,   /* out of memory (503 unavailable) */
    WIRE_EREFUSED, /* the caller's memory-accounting hook refused more bytes (503 overloaded) */
    WIRE_EINTERNAL /* a caller's mistake, not the input's (500) */
} wire_status;

#define WIRE_ERR_DETAIL_MAX 224

/* One error: the first one recorded wins (wire_err_set does nothing once status is set). */
typedef struct {
    wire_status status;
    /* 1 when the input itself is at fault at `pointer` (an RFC 6901 pointer into the caller's
     * request; "" = the whole body), so api/ records a field error there; 0 = no field. */
    int has_pointer;
    char pointer[32];
    char detail[WIRE_ERR_DETAIL_MAX]; /* one sentence for humans */
} wire_err;

/* Resets e to WIRE_OK. */
void wire_err_init(wire_err *e);
/* 1 when e holds an error. */
int wire_err_failed(const wire_err *e);
/* Records status and the detail (printf-style) with no pointer, unless e already failed. */
void wire_err_set(wire_err *e, wire_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records status, pointer and detail (printf-style), unless e already failed. */
void wire_err_at(wire_err *e, wire_status status, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* calloc(count, size) (at least one byte); on overflow records WIRE_ELIMIT at the whole body, when
 * out of memory WIRE_ENOMEM; returns NULL then. */
void *wire_alloc(wire_err *e, size_t count, size_t size);

#endif
