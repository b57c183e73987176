/*
 * tests/lib/api_util.h -- what the libcheck suites that drive api/ handlers share: a fixture
 * (default limits and a real RoPE cache in one api_ctx), requests run through api_handle (pure, no
 * sockets), the 422 checks (status, errors[0].pointer, problem type, message), readers for numbers
 * in nested arrays, the oracle README's tolerance rule and the golden-case runner for
 * tests/vectors/<family>/<file>.json.
 *
 * Request bodies: the au_call family takes them with ' written for " (readable C strings); every
 * ' becomes " before sending, so a body without ' is sent as it is. au_send sends bytes verbatim.
 * Every failure is a libcheck assertion in the calling test (the test process ends there, so the
 * helpers do not free on failure).
 */
#ifndef TESTS_API_UTIL_H
#define TESTS_API_UTIL_H

#include <check.h>
#include <jansson.h>
#include <stddef.h>

#include "api/api.h"

/* ---- fixture ------------------------------------------------------------------------------- */

/* The context every helper passes to api_handle: lim = &au_lim, cache = the fixture's cache,
 * tables = NULL. A test may change au_lim's fields or au_ctx.tables after au_open/au_setup. */
extern api_limits au_lim;
extern api_ctx au_ctx;

/* au_lim = api_limits_default; au_ctx = {&au_lim, pe_cache_create(cache_bytes, cache_rows), NULL}.
 * Asserts that the cache was created. Pair with au_teardown. */
void au_open(size_t cache_bytes, size_t cache_rows);
/* Checked-fixture setup: au_open(1 << 24, 4096) (16 MiB, at most 4096 rows per table). */
void au_setup(void);
/* Checked-fixture teardown: destroys the cache of au_open (au_ctx.cache is NULL afterwards). */
void au_teardown(void);

/* ---- requests ------------------------------------------------------------------------------ */

/* The compute operation the daemon's route table (server/routes.h) runs for POST path; fails the
 * test when there is none. */
const api_route *au_route(const char *path);

/* A malloc'd copy of body_sq with every ' replaced by " (caller frees). */
char *au_dq(const char *body_sq);
/* Runs h on the NUL-terminated json (sent verbatim) through api_handle(&au_ctx, ...); returns
 * the response body as a malloc'd NUL-terminated string (caller frees) and its status. */
char *au_send(api_handler h, const char *json, int *status);
/* Parses text, asserting that it is JSON; a new reference. */
json_t *au_parse(const char *text);
/* au_send of au_dq(body_sq), parsed: any status (in *status); a new reference. */
json_t *au_call(api_handler h, const char *body_sq, int *status);
/* au_call asserting status 200; a new reference. */
json_t *au_ok(api_handler h, const char *body_sq);

/*
 * Asserts that h answers body_sq with a 422 whose first error (errors[0]) has pointer ptr and a
 * non-empty message, and (when code is not NULL) whose type is "urn:posenc:problem:<code>"
 * (invalid-field, unknown-field, limit-exceeded).
 */
void au_expect_422(api_handler h, const char *body_sq, const char *ptr, const char *code);
/* As au_expect_422 without the type check; instead errors[0].message must contain needle (when
 * needle is not NULL). */
void au_expect_422_msg(api_handler h, const char *body_sq, const char *ptr, const char *needle);

/* ---- reading responses --------------------------------------------------------------------- */

/* json_number_value(v), asserting that v is a number (integer or real). */
double au_number(const json_t *v);
/* j[key][i0][i1][i2], the index list ending at the first negative one (j[key] with i0 < 0);
 * asserts that the element exists. Borrowed. */
json_t *au_at(const json_t *j, const char *key, int i0, int i1, int i2);
/* au_number(au_at(j, key, i0, i1, i2)), naming key and indices on failure. */
double au_num(const json_t *j, const char *key, int i0, int i1, int i2);

/* Asserts json_equal(a[key], b[key]): the same JSON value in both responses (missing in either
 * fails). */
void au_same(const json_t *a, const json_t *b, const char *key);
/* 1 when an entry of j's "warnings" array contains needle, else 0 (no array: 0). */
int au_warned(const json_t *j, const char *needle);
/* The kind object of layer l of a POST /model/method answer j (kinds[layers[l]]; NULL past the
 * end). */
const json_t *au_layer_kind(const json_t *j, size_t l);
/* The string member key of o, "" when absent or not a string (safe in ck_assert_str_eq). */
const char *au_str(const json_t *o, const char *key);

/* ---- tolerances and golden cases ----------------------------------------------------------- */

/* The oracle README's rule: 1 when |got - want| <= abs_tol + rel_tol * |want|, else 0. */
int au_close(double got, double want, double abs_tol, double rel_tol);

/* Asserts au_close(got, want, abs_tol, rel_tol), printing the expression, both values and the
 * budget (named like libcheck's assertions; check.h has no ck_close). */
#define ck_close(got, want, abs_tol, rel_tol)                                                      \
    ck_assert_msg(au_close((got), (want), (abs_tol), (rel_tol)),                                   \
                  "%s = %.17g, want %.17g (abs %g, rel %g)", #got, (double)(got), (double)(want),  \
                  (double)(abs_tol), (double)(rel_tol))

/*
 * Compares exp with act recursively under au_close(.., abs_tol, rel_tol): null must be null,
 * numbers close, arrays of equal length element by element, objects key by key (every key of exp
 * present in act; extra keys of act ignored), anything else json_equal. path names the value in
 * failure messages ("<path>[i]", "<path>.<key>").
 */
void au_compare(json_t *exp, json_t *act, double abs_tol, double rel_tol, const char *path);

/* The element of the JSON array in file whose "id" is id (the last one, should two share it);
 * asserts that the file parses and the case exists. A new reference. */
json_t *au_load_case(const char *file, const char *id);
/* Runs the case's "request" (dumped compact) through h; returns the parsed response (a new
 * reference) and its status. */
json_t *au_run_case(api_handler h, const json_t *c, int *status);

/*
 * One golden case of tests/vectors: the status must be the case's "status" (200 when absent); for
 * a 200 every key of "expected" is compared by au_compare with the case's tolerance.abs and
 * tolerance.rel, except the top-level keys listed in tolerance.exact, compared at 0.
 */
void au_oracle_case(api_handler h, const char *file, const char *id);

#endif
