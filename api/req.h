/*
 * api/req.h -- request validation helpers: typed getters that record a 422 with a JSON pointer for
 * every rule broken (docs/style.md#s6, docs/style.md#s7), plus the service limits every handler
 * enforces (docs/style.md#s10).
 *
 * Getter convention: the field `key` of object `obj` (itself at pointer `base`, "" for the top
 * level) is read. Return 1 = present and valid (stored in *out), 0 = absent or JSON null (*out
 * untouched), -1 = invalid (an error naming "<base>/<key>" was recorded in pb; *out untouched).
 * Integer fields accept integral reals (4.0) and reject 4.5, "4" and booleans
 * (docs/api.md#conventions). Arrays returned through pointers are malloc'd: the caller frees them,
 * also after -1 (then NULL).
 */
#ifndef API_REQ_H
#define API_REQ_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "api/problem.h"
#include "core/pe.h"

/* Service limits (docs/api.md#limits; flags and POSENC_* variables in server/config.c). */
typedef struct {
    size_t max_body_bytes;      /* request body, bytes (16 MiB) */
    size_t max_table_bytes;     /* one stored table, bytes (256 MiB) */
    size_t max_output_elements; /* numbers in one response (4,194,304) */
    size_t max_dim;             /* d_model, head_dim (65,536) */
    size_t max_heads;           /* num_heads (1,024) */
    size_t max_positions;       /* positions in one request (1,000,000) */
    int64_t max_position;       /* largest position + 1 (2,147,483,647) */
    size_t max_work;            /* work units in one request (2^30): a multiply-add is 1, a
                                 * sin/cos/exp is API_WORK_TRIG; bounds compute time (~1 s) */
    size_t max_inflight_bytes;  /* request bodies held in memory by all requests at once, bytes
                                 * (256 MiB; >= max_body_bytes and max_table_bytes; 503 above) */
    size_t max_parse_bytes;     /* the parsed JSON tree of one request body, bytes (128 MiB;
                                 * 413 above; api/arena.h). Trees live only while a thread
                                 * parses and computes: at most one per such thread */
    size_t max_tables;          /* stored tables in the data directory (100,000; 507 above;
                                 * counted from the directory, shared by replicas) */
    size_t max_store_bytes;     /* bytes of stored table files (16 GiB; 507 above) */
    size_t max_tensor_bytes;    /* the data of the .npy parts (q and k) of one binary request,
                                 * bytes (2 GiB; 413 above). They wait in the spool, not in
                                 * memory: the in-flight budget counts only what is held */
} api_limits;

/*
 * Records why a JSON body of len bytes could not be parsed (json_loadb returned NULL with err)
 * while arena was current: memory refused while parsing -- over lim->max_parse_bytes (413
 * too-large naming the limit), the accounting hook refused (503 overloaded), out of memory (503
 * unavailable) -- else malformed JSON (400, line and column). Valid JSON is never reported as
 * malformed for want of memory.
 */
struct api_arena;
void api_body_parse_failed(api_problem *pb, const struct api_arena *arena, const json_error_t *err,
                           size_t len, const api_limits *lim);

/* Work units of one transcendental evaluation (sin, cos, exp) relative to a multiply-add. */
#define API_WORK_TRIG 32

/* The defaults of docs/api.md. */
void api_limits_default(api_limits *lim);

/* Builds "<base>/<key>" with RFC 6901 escaping of key into out (truncated to n). */
void api_ptr(char *out, size_t n, const char *base, const char *key);
/* Builds "<base>/<idx>". */
void api_ptr_idx(char *out, size_t n, const char *base, size_t idx);
/* Records a field error (api_problem_field) at "<base>/<key>", the pointer built by api_ptr
 * (RFC 6901 escaping of key, truncated to sizeof api_field_error.pointer) -- in place of a
 * pointer buffer, api_ptr and api_problem_field at each call site. */
void api_problem_key(api_problem *pb, api_problem_code code, const char *base, const char *key,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same at "<base>/<idx>" (api_ptr_idx): an element of an array. */
void api_problem_idx(api_problem *pb, api_problem_code code, const char *base, size_t idx,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The member key of obj (borrowed), treating JSON null as absent as the getters below do: NULL
 * when obj is not an object, key is missing or its value is null. Pure; never fails. */
const json_t *api_member(const json_t *obj, const char *key);

/* Each member of obj not in the NULL-terminated list `allowed` → 422 unknown-field. Returns 0 when
 * all members are known, -1 otherwise. */
int api_check_fields(api_problem *pb, const json_t *obj, const char *base,
                     const char *const *allowed);

/* api_check_fields for an object that may take a pasted `config` (POST /rope's body, /attention's
 * method objects). When `allowed` has "config" and obj looks like a bare config.json -- it has
 * model_type, architectures or hidden_size and at least API_CONFIG_HINT_UNKNOWN unknown members --
 * the problem's detail says to wrap it as {"config": ...} (the field errors stay as they are). 0 or
 * -1 as api_check_fields. */
#define API_CONFIG_HINT_UNKNOWN 3
int api_check_fields_config(api_problem *pb, const json_t *obj, const char *base,
                            const char *const *allowed);

/* Returns the value of key or of alias (NULL when neither or JSON null). When both are present with
 * different values → 422 on the alias and NULL; *used gets the key that was used (may be NULL). */
const json_t *api_get_alias(api_problem *pb, const json_t *obj, const char *base, const char *key,
                            const char *alias, const char **used);

/* Integer in [min, max]. */
int api_get_int(api_problem *pb, const json_t *obj, const char *base, const char *key, int64_t min,
                int64_t max, int64_t *out);
/* x within [min, max], else a 422 at ptr ("must be between min and max, got x"). 0 or -1. */
int api_int_in_range(api_problem *pb, const char *ptr, int64_t x, int64_t min, int64_t max);
/* Integer from a value already fetched (ptr = its full pointer). */
int api_int_value(api_problem *pb, const json_t *v, const char *ptr, int64_t min, int64_t max,
                  int64_t *out);

#define API_NUM_MIN_EXCL 1u /* value must be > min instead of >= min */
#define API_NUM_MAX_EXCL 2u /* value must be < max instead of <= max */
/* Finite number within [min, max] (bounds exclusive per flags; use -HUGE_VAL/HUGE_VAL for none). */
int api_get_number(api_problem *pb, const json_t *obj, const char *base, const char *key,
                   double min, double max, unsigned flags, double *out);
int api_number_value(api_problem *pb, const json_t *v, const char *ptr, double min, double max,
                     unsigned flags, double *out);

int api_get_bool(api_problem *pb, const json_t *obj, const char *base, const char *key, int *out);

/* String that must be one of the NULL-terminated names; *out = its index. */
int api_get_enum(api_problem *pb, const json_t *obj, const char *base, const char *key,
                 const char *const *names, int *out);
int api_enum_value(api_problem *pb, const json_t *v, const char *ptr, const char *const *names,
                   int *out);

/* Nested JSON object (borrowed). */
int api_get_object(api_problem *pb, const json_t *obj, const char *base, const char *key,
                   const json_t **out);

/* Array of finite numbers; expect_n > 0 demands exactly that many; more than max_n →
 * 422 limit-exceeded naming limit_name. *out malloc'd (NULL for an empty array). */
int api_number_array(api_problem *pb, const json_t *v, const char *ptr, size_t expect_n,
                     size_t max_n, const char *limit_name, double **out, size_t *n);
int api_get_numbers(api_problem *pb, const json_t *obj, const char *base, const char *key,
                    size_t expect_n, size_t max_n, const char *limit_name, double **out, size_t *n);

/* Rectangular matrix of finite numbers, row-major into *out; expect_rows / expect_cols > 0 demand
 * those sizes; rows*cols > max_elems → 422 limit-exceeded. A plain vector is refused unless
 * allow_vector, in which case it is returned as 1 row and *was_vector = 1. */
/* The shape rules of api_number_matrix for rows x cols numbers (also for a matrix that is not
 * JSON): rows == expect_rows and cols == expect_cols when those are > 0, cols >= 1, rows*cols <=
 * max_elems, with its errors (at ptr, or ptr/0 for the columns). *total = rows*cols. 0 or -1. */
int api_matrix_shape(api_problem *pb, const char *ptr, size_t rows, size_t cols, size_t expect_rows,
                     size_t expect_cols, size_t max_elems, size_t *total);
int api_number_matrix(api_problem *pb, const json_t *v, const char *ptr, size_t expect_rows,
                      size_t expect_cols, size_t max_elems, int allow_vector, double **out,
                      size_t *rows, size_t *cols, int *was_vector);
int api_get_matrix(api_problem *pb, const json_t *obj, const char *base, const char *key,
                   size_t expect_rows, size_t expect_cols, size_t max_elems, double **out,
                   size_t *rows, size_t *cols);

/* ---- positions (api/req_positions.c) ---- */

/* Array of positions: integers in [0, lim->max_position), at most lim->max_positions. */
int api_position_array(api_problem *pb, const json_t *v, const char *ptr, const api_limits *lim,
                       int64_t **out, size_t *n);
/* api_position_array for positions given as numbers v [len] (not JSON): the same rules and
 * errors, at ptr and ptr/i. *out malloc'd (NULL for none). Returns 1 or -1. */
int api_position_ints(api_problem *pb, const int64_t *v, size_t len, const char *ptr,
                      const api_limits *lim, int64_t **out, size_t *n);
int api_get_position_list(api_problem *pb, const json_t *obj, const char *base, const char *key,
                          const api_limits *lim, int64_t **out, size_t *n);

/*
 * `positions` | `seq_len` [+ `offset`] (docs/api.md#conventions): exactly one of positions and
 * seq_len unless `required` is 0 (then neither is fine: returns 0). Returns 1 with *out and *n
 * filled, 0 when absent, -1 on error. offset without seq_len → 422.
 */
int api_get_positions(api_problem *pb, const json_t *obj, const char *base, const api_limits *lim,
                      int required, int64_t **out, size_t *n);

/* Checks that n_elements numbers may be returned (<= lim->max_output_elements), else records a
 * 422 limit-exceeded with ptr and what. Returns 0 or -1. */
int api_check_output(api_problem *pb, const api_limits *lim, size_t n_elements, const char *ptr,
                     const char *what);

/* Adds a*b*c work units to *acc and checks the total against lim->max_work; over it (or on
 * overflow) records a 422 limit-exceeded at ptr naming what and the limit. Returns 0 or -1. */
int api_check_work(api_problem *pb, const api_limits *lim, size_t *acc, size_t a, size_t b,
                   size_t c, const char *ptr, const char *what);

/* calloc with an overflow-checked count; NULL (and a 503 problem "unavailable") on failure. */
void *api_alloc(api_problem *pb, size_t count, size_t size);

/* The nesting depth of v (a scalar 0, [] or {} 1), counted no further than limit + 1 (bounded
 * recursion). */
int api_json_depth(const json_t *v, int limit);

/* 1 when s equals one of list's strings (NULL-terminated); 0 for a NULL list or a NULL s. */
int api_str_in_list(const char *const *list, const char *s);

#endif
