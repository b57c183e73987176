/*
 * api/api.h -- the JSON layer: request bytes in, status + body out. Pure functions, testable
 * without sockets (docs/style.md#s16). server/ owns HTTP; it calls api_handle_route() for every
 * compute route (api_handle() is the same for a bare handler, buffered, for tests).
 */
#ifndef API_API_H
#define API_API_H

#include <jansson.h>
#include <stddef.h>

#include "api/arena.h"
#include "api/problem.h"
#include "api/req.h"
#include "store/table.h"
#include "wire/jw.h"
#include "wire/stream.h"

/* The version of the HTTP contract (semantic versioning; docs/api.md#compatibility): equal to
 * openapi.yaml's info.version (checked by tests/contract/walk.test.mjs) and reported by GET
 * /version as api_version. MAJOR changes when an answer changes other than by new members or a
 * request that was accepted is refused; MINOR when members, fields or routes are added; PATCH
 * for wording (problem details, descriptions). Independent of the software version. */
#define POSENC_API_VERSION "1.0.0"

typedef struct pe_cache pe_cache;

/* What handlers may use; owned by the server, shared by all threads (read-only except the cache
 * and the table source, which are thread-safe). */
typedef struct {
    const api_limits *lim;
    pe_cache *cache;            /* RoPE frequency-table cache; never NULL in the server */
    const store_source *tables; /* learned tables; NULL = none (every lookup misses) */
} api_ctx;

/*
 * A compute handler: validates req (a JSON object, borrowed), computes, and writes the response
 * object into out. Returns 0 on success, -1 with pb filled (out is then discarded).
 */
typedef int (*api_handler)(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);

/*
 * One compute operation: POST with a JSON body, answered by handler. Its path and metrics label
 * are in server/'s route table (server/routes.c), the one list of routes.
 */
typedef struct {
    api_handler handler;
    /* `Accept: application/x-npy`: the top-level response keys whose array becomes the .npy body,
     * best first (the first one present wins), with the value of masked cells; NULL-key ended.
     * An .npz body (application/x-npz) holds every one of them present, in response order. */
    const wire_npy_key *npy;
    /* 1: every computation of the route that grows with the request is counted with
     * api_check_work before it runs (and no stored table is read), so that a caller may try it
     * under a lower work bound first (api_opts.defer_work); 0: never tried so */
    int counts_work;
} api_route;

/* The compute operations (api/api.c), one per route of server/routes.c. */
extern const api_route api_route_sinusoidal;   /* POST /sinusoidal */
extern const api_route api_route_rope;         /* POST /rope */
extern const api_route api_route_alibi;        /* POST /alibi */
extern const api_route api_route_attention;    /* POST /attention */
extern const api_route api_route_t5_buckets;   /* POST /t5/buckets */
extern const api_route api_route_learned;      /* POST /learned */
extern const api_route api_route_model_method; /* POST /model/method */

/* The compute operation served at path ("/rope"), or NULL: for callers without HTTP (the CLI,
 * tests). tests/server/check_routes.c checks that it agrees with server/routes.c row by row. */
const api_route *api_route_named(const char *path);
/* The i-th path api_route_named knows ("/sinusoidal", ...), NULL past the last. */
const char *api_route_path(size_t i);

/* A response header besides Content-Type (Location, Content-Disposition). */
typedef struct {
    const char *name; /* static string */
    char value[112];
} api_header;
#define API_MAX_HEADERS 2

/* A finished response: either body (malloc'd; NULL with len 0 for an empty body) or, for large 200
 * responses when the caller allowed it, stream (read it with wire_stream_read while sending). Free
 * with api_response_free. */
typedef struct {
    int status;
    const char *content_type; /* static string */
    char *body;
    size_t len;
    wire_stream *stream;   /* NULL unless streamed; body is then NULL */
    const char *npy_array; /* .npy body: the response key whose array it is; else NULL */
    api_header headers[API_MAX_HEADERS]; /* more headers to send, n_headers of them (a 503
                                          * overloaded carries Retry-After) */
    size_t n_headers;
    char *warnings; /* malloc'd: a binary 200 answer's warnings as an ASCII JSON array of strings
                     * (wire_json_ascii_strings), sent as X-Posenc-Warnings; NULL when none */
    int deferred;   /* 1: not answered (status 0, no body): over api_opts.defer_work */
} api_response;

/* How api_handle_route answers. */
typedef struct {
    int npy; /* 1: the route's main array as .npy (the caller saw Accept: application/x-npy) */
    int npz; /* 1: every array of the answer as .npz (Accept: application/x-npz; wins over npy) */
    /* The `array` query parameter: the arrays wanted, comma-separated names of the route's list
     * (api_route.npy); NULL = the default (.npy: the first present; .npz: all present) */
    const char *array;
    int stream; /* 1: large bodies may come back as a stream (the daemon); 0: always body (tests) */
    /* 1: Accept does not allow application/json (srv_accept_json): a route without arrays
     * (/model/method) answers 406 not-acceptable rather than JSON the client refused */
    int json_refused;
    /* Optional accounting hook for the parsed form of the body (api/arena.h); NULL = none. The
     * daemon passes none: a tree lives only while one compute thread parses and handles its
     * request, so trees are bounded by compute threads x max_parse_bytes (docs/operations.md). */
    api_arena_hold_fn hold;
    void *hold_cls;
    /* 0, or a work bound (api_limits.max_work units) below which the caller wants the request
     * answered now: a route with counts_work whose request needs more than this is not answered
     * but comes back with api_response.deferred set, to be sent again with defer_work 0 (the
     * daemon answers tiny requests on its HTTP thread this way, server/http.c). The answer given
     * is the same as without it: every check passes under the lower bound only if it passes
     * under max_work. Routes without counts_work ignore it. */
    size_t defer_work;
} api_opts;

/*
 * Parses body (len bytes, need not be NUL-terminated) as a JSON object and runs h. Malformed JSON
 * (also duplicate keys, depth over the parser's limit) → 400 malformed-json naming line and column;
 * a non-object → 422 at pointer "". request_id goes into a problem's `instance`. Never fails to
 * fill out (an out-of-memory ends in a minimal static 503 body).
 */
void api_handle(const api_ctx *ctx, api_handler h, const char *body, size_t len,
                const char *request_id, api_response *out);

/*
 * api_handle for a route, with options. The request's top-level "dtype" ("float64" default, or
 * "float32") is taken out before the handler sees it: "float32" makes an .npy body '<f4' and is
 * refused (422 at /dtype) for JSON responses, whose numbers are always float64; anything else is a
 * 422 at /dtype. With opts->npy the body is the array of the first key of route->npy present in
 * the response (application/x-npy); with opts->npz every key of route->npy present, one .npy member
 * "<key>.npy" each (application/x-npz); else JSON. opts->array narrows the choice to the arrays it
 * names: a name the route does not have, a name absent from this answer, several names for .npy or
 * any choice for a JSON answer is a 422 (never ignored). opts NULL = {0, 0}. Every error is decided
 * before the first byte of a stream exists.
 */
void api_handle_route(const api_ctx *ctx, const api_route *route, const char *body, size_t len,
                      const char *request_id, const api_opts *opts, api_response *out);

/* Renders pb as an application/problem+json response. */
void api_problem_response(const api_problem *pb, const char *request_id, api_response *out);
/* Shortcut: a problem with code and detail (no field errors). */
void api_simple_problem(api_problem_code code, const char *detail, const char *request_id,
                        api_response *out);
/* Frees the body or the stream. */
void api_response_free(api_response *r);
/* An upper bound of the memory r holds until it is freed, bytes: its body, or what its stream
 * holds (wire_stream_held). */
size_t api_response_held(const api_response *r);

/* Handlers (one module each). */
int api_sinusoidal(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);
int api_rope(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);
int api_alibi(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);
int api_attention(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);
int api_t5_buckets(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);
int api_learned(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);
/* POST /model/method: the position method of every layer of a pasted config (model_method.c). */
int api_model_method(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb);

/* Bytes a response writer may grow to for a given limit set (numbers x 32 bytes + 1 MiB). */
size_t api_max_response_bytes(const api_limits *lim);

#endif
