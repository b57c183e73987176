/*
 * api/problem.h -- request errors as RFC 9457 problem+json (see docs/api.md#errors).
 *
 * One table (API_PROBLEM_MAP) gives every problem code, its HTTP status and title; nothing else
 * maps codes to statuses. Filling a problem never allocates (docs/style.md#s6): field errors are
 * kept in fixed-size slots, and the first API_PROBLEM_MAX_ERRORS are reported.
 */
#ifndef API_PROBLEM_H
#define API_PROBLEM_H

#include <stdarg.h>
#include <stddef.h>

#include "wire/err.h"
#include "wire/jw.h"

/* X(enum, code string, HTTP status, title) */
#define API_PROBLEM_MAP(X)                                                                         \
    X(API_PB_NONE, "none", 200, "OK")                                                              \
    X(API_PB_MALFORMED_JSON, "malformed-json", 400, "Malformed JSON")                              \
    X(API_PB_BAD_REQUEST, "bad-request", 400, "Bad request")                                       \
    X(API_PB_UNAUTHORIZED, "unauthorized", 401, "Unauthorized")                                    \
    X(API_PB_FORBIDDEN, "forbidden", 403, "Forbidden")                                             \
    X(API_PB_NOT_FOUND, "not-found", 404, "Not found")                                             \
    X(API_PB_METHOD_NOT_ALLOWED, "method-not-allowed", 405, "Method not allowed")                  \
    X(API_PB_NOT_ACCEPTABLE, "not-acceptable", 406, "Not acceptable")                              \
    X(API_PB_REQUEST_TIMEOUT, "request-timeout", 408, "Request timeout")                           \
    X(API_PB_CONFLICT, "conflict", 409, "Conflict")                                                \
    X(API_PB_TOO_LARGE, "too-large", 413, "Request body too large")                                \
    X(API_PB_UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type", 415, "Unsupported media type")      \
    X(API_PB_INVALID_FIELD, "invalid-field", 422, "Invalid field")                                 \
    X(API_PB_UNKNOWN_FIELD, "unknown-field", 422, "Unknown field")                                 \
    X(API_PB_LIMIT_EXCEEDED, "limit-exceeded", 422, "Limit exceeded")                              \
    X(API_PB_HEADER_TOO_LARGE, "header-too-large", 431, "Request header too large")                \
    X(API_PB_INTERNAL, "internal", 500, "Internal error")                                          \
    X(API_PB_INSUFFICIENT_STORAGE, "insufficient-storage", 507, "Insufficient storage")            \
    X(API_PB_UNAVAILABLE, "unavailable", 503, "Service unavailable")                               \
    X(API_PB_SHUTTING_DOWN, "shutting-down", 503, "Shutting down")                                 \
    X(API_PB_OVERLOADED, "overloaded", 503, "Server busy")

typedef enum {
#define API__PB_ENUM(e, code, status, title) e,
    API_PROBLEM_MAP(API__PB_ENUM)
#undef API__PB_ENUM
        API_PB__COUNT
} api_problem_code;

#define API_PROBLEM_MAX_ERRORS 8

typedef struct {
    char pointer[160]; /* RFC 6901 pointer into the request, e.g. "/scaling/factor"; "" = none */
    char message[224]; /* the rule broken, one sentence */
} api_field_error;

typedef struct {
    api_problem_code code; /* first error's code wins (API_PB_NONE while clean) */
    char detail[400];      /* one sentence for humans */
    api_field_error errors[API_PROBLEM_MAX_ERRORS];
    size_t n_errors;  /* slots used */
    size_t n_dropped; /* further errors not kept */
    int over_work;    /* 1: api_check_work refused (the request needs more than max_work) */
} api_problem;

/* Resets pb to "no problem". */
void api_problem_init(api_problem *pb);
/* Sets the code (if none yet) and the detail text (printf-style, if none yet). */
void api_problem_set(api_problem *pb, api_problem_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a field error (pointer + message) with code (422 kinds); the first becomes the detail. */
void api_problem_field(api_problem *pb, api_problem_code code, const char *pointer, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5)));
/* api_problem_field with the message's arguments as a va_list (for wrappers such as
 * api_problem_key in api/req.h); ap is consumed. */
void api_problem_vfield(api_problem *pb, api_problem_code code, const char *pointer,
                        const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
/* Errors recorded in pb so far, kept or dropped (n_errors + n_dropped): a count that grew across
 * a call means that call recorded an error. */
size_t api_problem_count(const api_problem *pb);
/* Returns 1 when pb holds a problem. */
int api_problem_failed(const api_problem *pb);

/* The HTTP status, code string ("invalid-field") and title of a code. Never NULL. */
int api_problem_status(api_problem_code code);
const char *api_problem_code_str(api_problem_code code);
const char *api_problem_title(api_problem_code code);

/* Records a wire/ error in pb: WIRE_EINVALID → 422 invalid-field, WIRE_ELIMIT → 422
 * limit-exceeded, WIRE_ENOMEM → 503 unavailable, WIRE_EREFUSED → 503 overloaded, WIRE_EINTERNAL →
 * 500. With e->has_pointer a field error is recorded at e->pointer too; a whole-body error
 * (pointer "") keeps e->detail itself as the problem's detail, any other pointer leads it
 * ("/dtype: ..."), as api_problem_field does. Nothing when e holds no error. */
void api_problem_from_wire(api_problem *pb, const wire_err *e);

/* Writes pb as a problem+json object into w; instance (a request id, may be NULL) goes into
 * "instance" as "urn:posenc:request:<id>". */
void api_problem_write(const api_problem *pb, const char *instance, wire_jw *w);

#endif
