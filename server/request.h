/*
 * server/request.h -- one HTTP request's state, and the helpers the files of server/ share to
 * answer it (respond.c), to read its body within the budget (upload.c), to serve static files
 * (static.c), the service routes (service.c) and the table routes (tables.c). Private to server/.
 */
#ifndef SRV_REQUEST_H
#define SRV_REQUEST_H

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "api/api.h"
#include "api/bin.h"
#include "api/tables.h"
#include "server/http.h"

struct srv_route;

/* Per-request state kept in *con_cls from the first call of the access handler to the completion
 * callback (server/http.c). */
typedef struct {
    const struct srv_route *row; /* the route-table row that answers it (server/routes.h) */
    const char *label;           /* metrics label */
    char method[8];
    char path[160];
    char request_id[72];
    char *buf; /* request body so far */
    size_t len, cap;
    int too_big;               /* body over max_body_bytes: discard and answer 413 */
    size_t held;               /* bytes reserved in ctx->budget: the buffer's capacity, or what the
                                * .safetensors parser holds */
    size_t declared;           /* the body's declared Content-Length (0: none) */
    int overloaded;            /* the budget refused this body: discard it and answer 503 */
    size_t ovl_more, ovl_seen; /* the refusal: bytes asked for, bytes held by all then */
    int compute;               /* a POST to a compute route */
    int table_put;             /* a PUT /tables/{name} (an upload) */
    api_table_upload up;       /* table_put: the upload (api/tables.h) */
    api_bin *bin;              /* a multipart (binary tensors) compute POST (api/bin.h), or NULL */
    int spool_fd;              /* its spool file (valid while bin != NULL) */
    uint64_t spool_held;       /* bytes it reserved in ctx->spool_used */
    int spool_sent;            /* 1: its answer was handed to libmicrohttpd as the spool file's
                                * bytes (sendfile): the file's pages may still be in socket
                                * buffers, never to be written over (server/spool.c) */
    int queued;                /* a response was queued */
    int submitted;             /* the computation was handed to the pool (connection suspended) */
    struct MHD_Connection *conn; /* for the pool job: the suspended connection */
    srv_ctx *ctx;                /* for the pool job */
    api_opts opts;               /* response options (npy, streaming) */
    api_response ar;             /* the pool job's result, sent when the connection resumes */
    int status;                  /* status of the queued response */
    int close;       /* answer with Connection: close (framing refused at the headers) */
    int bench_floor; /* POST /bench/floor: the bench build's transport floor (bench_floor.h) */
    size_t resp_bytes;
    struct timespec t0;
    double win_start;            /* seconds after t0 where the current upload-rate window began */
    unsigned long long body_got; /* body bytes received so far, and at win_start */
    unsigned long long win_got;
    unsigned long long body_declared; /* Content-Length as sent (0: none, or chunked) */
} srv_req;

/* ---- respond.c: every answer goes through these; each adds X-Request-Id, the CORS headers and,
 * while draining, Connection: close. They return MHD's result (MHD_NO on out of memory). ------ */

/* Queues resp (consumed) with status and content_type (NULL: none). */
enum MHD_Result srv_send_resp(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                              struct MHD_Response *resp, const char *content_type);
/* Sends body (malloc'd, len bytes; freed by MHD). */
enum MHD_Result srv_send_buffer(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                                const char *content_type, char *body, size_t len);
/* Sends a copy of the NUL-terminated text. */
enum MHD_Result srv_send_text(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                              const char *content_type, const char *text);
/* Sends an api/ answer (body, stream or empty; its headers; consumed). A compute answer
 * (rq->compute) carries Vary: Accept, an .npy one its Content-Disposition and X-Posenc-Array. */
enum MHD_Result srv_send_api(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, api_response *ar);
/* A problem+json answer with code and detail; allow (NULL: none) becomes the Allow header. */
enum MHD_Result srv_send_problem(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                 api_problem_code code, const char *detail, const char *allow);
/* A problem+json answer with one extra header hname: hvalue (hname NULL: none). */
enum MHD_Result srv_send_problem_hdr(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                     api_problem_code code, const char *detail, const char *hname,
                                     const char *hvalue);
/* 503 overloaded, Retry-After: 1, with the figures of the budget's refusal (rq->ovl_*). */
enum MHD_Result srv_send_overloaded(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* 503 overloaded, Retry-After: 1: the compute queue is full (srv_pool_reserve refused). */
enum MHD_Result srv_send_queue_full(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* 413 too-large: the body passed max_body_bytes while it arrived. */
enum MHD_Result srv_send_too_big(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* A problem+json answer while the body is still arriving, where MHD 0.9.75 cannot queue one: it
 * is written straight to the socket (non-blocking, best effort; Connection: close) and MHD_NO is
 * returned, so MHD closes the connection without reading the rest. */
enum MHD_Result srv_send_midbody(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                 api_problem_code code, const char *detail);
/* 204 to an OPTIONS preflight: Allow and, with CORS on, Access-Control-Allow-Methods = allow. */
enum MHD_Result srv_preflight(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                              const char *allow);

/* Responses that hold less than this are not reserved in the budget (docs/operations.md counts
 * them per connection instead). */
#define SRV_RESPONSE_HOLD_MIN ((size_t)64 << 10)
/* Moves rq's reservation up to what ar holds while it is sent (api_response_held; nothing below
 * SRV_RESPONSE_HOLD_MIN): 0, or -1 with rq->overloaded set (then free ar and answer
 * srv_send_overloaded). Released when the request completes (server/http.c). */
int srv_hold_response(srv_ctx *ctx, srv_req *rq, const api_response *ar);

/* ---- upload.c: request bodies within max_body_bytes and the budget (budget.h) -------------- */

/* The declared Content-Length (0 when absent or not a number). */
unsigned long long srv_declared_length(struct MHD_Connection *c);
/* 1 when c's client has closed its side of the connection (or reset it) with nothing left unread
 * in the socket: a peek, which never takes bytes libmicrohttpd has not read. Only meaningful while
 * a body with a Content-Length is incomplete (every byte that arrived was handed to the access
 * handler): the client can then send nothing more, so the request is dead. See CLIENT GONE in
 * upload.c. */
int srv_client_gone(struct MHD_Connection *c);
/* When srv_client_gone(c), shuts the read side of c's socket, so that libmicrohttpd's
 * edge-triggered loop is woken and reads the end of stream it missed once it has used what its
 * buffer holds (a request that buffer completes is answered; any other is closed as aborted).
 * For a chunked body and at the headers, where the rest may be in that buffer. See CLIENT GONE. */
void srv_wake_if_gone(struct MHD_Connection *c);
/* Checks at the headers, reserving nothing, that the declared body fits the budget now: 0, or -1
 * with rq->overloaded set (answer srv_send_overloaded). */
int srv_req_fits(srv_ctx *ctx, srv_req *rq, size_t declared);
/* Moves rq's reservation to want bytes: 0, or -1 with rq->overloaded set (nothing reserved). */
int srv_req_hold(srv_ctx *ctx, srv_req *rq, size_t want);
/* The .safetensors parser's accounting hook (wire_st_hold_fn); cls is the srv_req. */
int srv_st_hold(void *cls, size_t bytes);
/* Appends n bytes of a buffered body (see upload.c); past max_body_bytes or the budget the body is
 * discarded (rq->too_big / rq->overloaded). MHD_NO only when out of memory. */
enum MHD_Result srv_append_body(srv_ctx *ctx, srv_req *rq, const char *upload, size_t n);
/* Frees the body buffer and gives back its reservation. */
void srv_drop_body(srv_ctx *ctx, srv_req *rq);

/* ---- spool.c: where binary tensors wait (api/bin.h) --------------------------------------- */

/* First call of a multipart compute POST with boundary: opens the spool file and rq->bin. MHD_YES
 * reads the body; else the queued answer (503 when the spool cannot be opened). */
enum MHD_Result srv_bin_headers(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                const char *boundary);
/* The spool and rq->bin of rq, after its response is freed (the request completed or aborted). */
void srv_bin_close(srv_ctx *ctx, srv_req *rq);

/* ---- accesslog.c: the access log (stdout), every field escaped ----------------------------- */

/* Escapes s into out[0..n): json 1 for the inside of a JSON string (controls as \uXXXX, each
 * invalid UTF-8 byte as U+FFFD), 0 for the text format (printable ASCII but space, else \xHH). */
void srv_log_escape(const char *s, int json, char *out, size_t n);
/* Writes rq's access-log line (cfg->log_format) with its status, duration and completion. */
void srv_log_request(const srv_ctx *ctx, const srv_req *rq, int status, double secs, int completed);

/* ---- auth.c: who may write (PUT and DELETE /tables) ------------------------------------------ */

/* 1 when bind is an IPv4 loopback address (127.0.0.0/8). */
int srv_bind_is_loopback(const char *bind);
/* 1 when the write routes are open: a write token is configured (then each write must carry it),
 * or --allow-unauthenticated-writes, or the daemon listens on loopback only. */
int srv_writes_open(const srv_config *cfg);
/* 1 when given[0..given_len) equals token, compared in time independent of where they differ. */
int srv_token_equal(const char *given, size_t given_len, const char *token);
/* 1 when rq (a PUT or DELETE /tables/{name}) may write; else 0 with *answer the queued 401
 * unauthorized (WWW-Authenticate: Bearer) or 403 forbidden naming the rule. */
int srv_write_allowed(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, enum MHD_Result *answer);

/* ---- framing.c: strict HTTP/1.1 framing, from the headers alone ---------------------------- */

/* 1 (and why, a sentence) when the request's framing is ambiguous or malformed: Content-Length
 * together with Transfer-Encoding, two different Content-Lengths, a Content-Length not a number, a
 * Transfer-Encoding other than "chunked", a field name with whitespace ("Transfer-Encoding :"), an
 * HTTP/1.1 request without exactly one Host. Answer 400 bad-request and close. 0 when fine. */
int srv_framing_bad(struct MHD_Connection *c, const char *version, char *why, size_t n);
/* 1 when the request carries a body (a Content-Length over 0, or Transfer-Encoding). */
int srv_has_body(struct MHD_Connection *c);

/* ---- static.c: files under --web-dir ------------------------------------------------------- */

/* 1 when path names a regular file srv_get_static would serve. */
int srv_static_exists(const srv_ctx *ctx, const char *path);
/* GET/HEAD of a file under web_dir ("/" and "/docs" map to their index.html): 200 with its type
 * and Cache-Control, or 404. */
enum MHD_Result srv_get_static(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);

/* ---- tables.c: the learned-table routes (api/tables.h does the rules) ---------------------- */

/* GET/HEAD /tables. */
enum MHD_Result srv_tables_list(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* GET/HEAD/DELETE /tables/{name} (rq->path). */
enum MHD_Result srv_table(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* First call of PUT /tables/{name}: the header-time checks. MHD_YES reads the body. */
enum MHD_Result srv_table_put_headers(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                      const char *name);
/* Final call of PUT /tables/{name}: parse, store durably, answer. */
enum MHD_Result srv_table_put_finish(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);

#endif
