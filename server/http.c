/*
 * server/http.c -- the libmicrohttpd daemon (http.h): the access handler, which answers each
 * request by its row of the route table (routes.h); the compute flow on the pool; the access log
 * and metrics at completion; the connection policy; start and graceful drain. MHD calls the access
 * handler first with the headers only, then once per piece of body, then once more with no body;
 * a suspended connection is called again when it resumes.
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server/negotiate.h"
#include "server/pool.h"
#include "server/routes.h"
#include "server/sched.h"
#include "wire/multipart.h"
#ifdef POSENC_BENCH_FLOOR
#include "server/bench_floor.h"
#endif

/* Seconds since t0 (CLOCK_MONOTONIC). */
static double now_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* 1 when a client's X-Request-Id may be echoed: 1 to 64 of [A-Za-z0-9-_.:]. */
static int safe_request_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == ':';
        if (!ok)
            return 0;
    }
    return 1;
}

/* Answers everything but a compute POST or a table upload, by rq->row: preflights, 405s, service
 * GETs, table reads and deletes, static files, 404. Runs on the second call of the access handler
 * so that MHD keeps the connection alive. */
static enum MHD_Result dispatch_other(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    const srv_route *r = rq->row;
    rq->label = r->label;
    if (strcmp(rq->method, "OPTIONS") == 0) {
        rq->label = srv_route_of(SRV_PREFLIGHT)->label;
        return srv_preflight(ctx, c, rq, srv_route_allow(r));
    }
    if (!srv_route_takes(r, rq->method)) {
        if (r->kind == SRV_STATIC && !srv_static_exists(ctx, rq->path)) {
            const srv_route *none = srv_route_of(SRV_NO_ROUTE);
            rq->label = none->label;
            return srv_send_problem(ctx, c, rq, API_PB_NOT_FOUND, none->not_allowed, NULL);
        }
        return srv_send_problem(ctx, c, rq, API_PB_METHOD_NOT_ALLOWED, r->not_allowed,
                                srv_route_allow(r));
    }
    switch (r->kind) {
    case SRV_SERVICE:
        return r->get(ctx, c, rq);
    case SRV_TABLES:
        return srv_tables_list(ctx, c, rq);
    case SRV_TABLE: {
        enum MHD_Result a;
        if (strcmp(rq->method, "DELETE") == 0 && !srv_write_allowed(ctx, c, rq, &a))
            return a;
        return srv_table(ctx, c, rq);
    }
    case SRV_STATIC:
        return srv_get_static(ctx, c, rq);
    default: /* compute POSTs and uploads are answered elsewhere */
        return srv_send_problem(ctx, c, rq, API_PB_INTERNAL, "no handler for this route", NULL);
    }
}

/* First call of a compute POST whose body is multipart/form-data (boundary NULL: invalid): binary
 * tensors (api/bin.h), for POST /rope only; the body is read into the spool as it arrives. */
static enum MHD_Result binary_headers(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                      const char *boundary)
{
    if (rq->row->compute != &api_route_rope)
        return srv_send_problem(ctx, c, rq, API_PB_UNSUPPORTED_MEDIA_TYPE,
                                "multipart/form-data (binary tensors) is taken by POST /rope; "
                                "send this route application/json",
                                NULL);
    if (boundary == NULL)
        return srv_send_problem(ctx, c, rq, API_PB_BAD_REQUEST,
                                "multipart/form-data needs a boundary parameter of 1 to 70 "
                                "characters",
                                NULL);
    if (srv_accept_binary(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept")) == 0)
        return srv_send_problem(ctx, c, rq, API_PB_NOT_ACCEPTABLE,
                                "binary tensors are answered application/x-npz or "
                                "application/x-npy, which Accept does not allow",
                                NULL);
    if (!srv_body_encoding_ok(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding")))
        return srv_send_problem(ctx, c, rq, API_PB_UNSUPPORTED_MEDIA_TYPE,
                                "Content-Encoding is not supported: send the body uncompressed "
                                "(no Content-Encoding, or identity)",
                                NULL);
    const api_limits *l = &ctx->cfg->lim;
    unsigned long long n = srv_declared_length(c), max = l->max_tensor_bytes;
    max += l->max_body_bytes + 65536ull; /* the tensors, params, and the parts' headers */
    if (n > max) {
        char d[160];
        snprintf(d, sizeof d,
                 "the body of %llu bytes exceeds max_tensor_bytes (%zu) plus max_body_bytes (%zu)",
                 n, l->max_tensor_bytes, l->max_body_bytes);
        return srv_send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
    }
    return srv_bin_headers(ctx, c, rq, boundary);
}

/* First call of a compute POST (headers only): refuse at once what cannot succeed, so that a large
 * body is never read (MHD then closes the connection). */
static enum MHD_Result compute_headers(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (atomic_load(&ctx->draining))
        return srv_send_problem(ctx, c, rq, API_PB_SHUTTING_DOWN, "the server is draining", NULL);
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    char boundary[WIRE_MP_MAX_BOUNDARY + 1];
    int mb = wire_mp_boundary(ct, boundary, sizeof boundary);
    if (mb != 0)
        return binary_headers(ctx, c, rq, mb < 0 ? NULL : boundary);
    if (!srv_json_content_type(ct))
        return srv_send_problem(ctx, c, rq, API_PB_UNSUPPORTED_MEDIA_TYPE,
                                "Content-Type must be application/json", NULL);
    if (!srv_body_encoding_ok(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding")))
        return srv_send_problem(ctx, c, rq, API_PB_UNSUPPORTED_MEDIA_TYPE,
                                "Content-Encoding is not supported: send the body uncompressed "
                                "(no Content-Encoding, or identity)",
                                NULL);
    unsigned long long n = srv_declared_length(c);
    if (n > ctx->cfg->lim.max_body_bytes) {
        char d[128];
        snprintf(d, sizeof d, "the body of %llu bytes exceeds max_body_bytes (%zu)", n,
                 ctx->cfg->lim.max_body_bytes);
        return srv_send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
    }
    rq->declared = (size_t)n;
    if (srv_req_fits(ctx, rq, rq->declared) < 0) /* before any of the body is read */
        return srv_send_overloaded(ctx, c, rq);
    return MHD_YES; /* the body follows */
}

/* With --inline-work N (0, off, by default), a tiny request that arrives while the daemon
 * computes nothing else is answered on the HTTP thread that read it, without the hand-off to the
 * compute pool (suspend, queue, wake a compute thread, resume: 7 system calls and 2 context
 * switches a request more, strace). Tiny means: a body of at most INLINE_MAX_BODY bytes (jansson
 * parses 16 KiB in about 0.3 ms) for a route that counts all its work (api_route.counts_work),
 * within N work units (api_limits.max_work: 2^30 is about a second here, so 16,384 is about 16 us;
 * the small /rope of `make bench` counts 10,240). A request over that bound is not answered there
 * but handed to the pool as before (api_opts.defer_work), its body parsed a second time there.
 * What the count leaves out bounds the rest: the cos/sin rows of the rotated positions (at most 32
 * times the rotations' count) and, the first time a configuration is seen, its cached table of 256
 * positions (a few ms for the widest head a 16 KiB body can hold). Answers are the same either way
 * (tests/api/check_api_defer.c, tests/http/check_inline.c).
 * "Nothing else": srv_ctx.computing, the compute requests being computed or waiting for the pool,
 * is 0, and this request takes it to 1. So at most one request at a time is answered inline in the
 * whole daemon, and never while others compute: an HTTP thread never runs one computation after
 * another while /healthz waits. Answering every tiny request inline (the rule before issue 16)
 * took /healthz's median under 64 connections of small /rope from 21-31 us to 0.8-51 ms; with
 * this rule it stays at 27-28 us. Off by default all the same: issue 16's interleaved runs found
 * no CPU time saved per request (0.99-1.00x) and, on a machine busy with other work, half the
 * requests/s for a sequential client (an HTTP thread asks for the scheduler's shortest slice,
 * server/sched.c, so one that computes is preempted more often than a compute thread) -- see
 * docs/performance.md. */
#define INLINE_MAX_BODY ((size_t)16 << 10)

/* Once rq->ar is computed, the body's reservation becomes the response's: what the answer holds
 * until it is sent (released in on_completed), nothing under SRV_RESPONSE_HOLD_MIN. Past the
 * budget the answer is freed and rq->overloaded set: the caller answers 503 overloaded. The one
 * rule for both the pool and --inline-work. */
static void hold_for_response(srv_req *rq)
{
    if (srv_hold_response(rq->ctx, rq, &rq->ar) < 0)
        api_response_free(&rq->ar);
    size_t keep = api_response_held(&rq->ar);
    srv_budget_hold(&rq->ctx->budget, &rq->held, keep >= SRV_RESPONSE_HOLD_MIN ? keep : 0, NULL);
}

/* Runs a compute request (on a pool thread, or inline) and resumes its connection; MHD then calls
 * the access handler again, which sends rq->ar (or 503 when rq->overloaded). */
static void compute_job(void *arg)
{
    srv_req *rq = arg;
    if (rq->bin != NULL)
        api_bin_run(rq->bin, &rq->opts, rq->request_id, &rq->ar);
    else
        api_handle_route(&rq->ctx->api, rq->row->compute, rq->buf, rq->len, rq->request_id,
                         &rq->opts, &rq->ar);
    free(rq->buf);
    rq->buf = NULL;
    hold_for_response(rq); /* before the resume: rq may be gone after it */
    atomic_fetch_sub(&rq->ctx->computing, 1u);
    MHD_resume_connection(rq->conn);
}

/* The first call: the request's state, its id and its route-table row. */
static srv_req *req_new(srv_ctx *ctx, struct MHD_Connection *c, const char *url, const char *method)
{
    srv_sched_short_slice(); /* once per HTTP thread: wake up ahead of the computations */
    srv_req *rq = calloc(1, sizeof *rq);
    if (rq == NULL)
        return NULL;
    rq->ctx = ctx;
    clock_gettime(CLOCK_MONOTONIC, &rq->t0);
    snprintf(rq->method, sizeof rq->method, "%s", method);
    snprintf(rq->path, sizeof rq->path, "%s", url);
    const char *rid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Request-Id");
    if (rid && safe_request_id(rid))
        snprintf(rq->request_id, sizeof rq->request_id, "%s", rid);
    else
        snprintf(rq->request_id, sizeof rq->request_id, "%08llx-%06llx",
                 ctx->id_salt & 0xffffffffULL,
                 (unsigned long long)atomic_fetch_add(&ctx->next_id, 1) & 0xffffffULL);
    rq->row = srv_route_find(url, method);
    if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding") == NULL)
        rq->body_declared = srv_declared_length(c);
#ifdef POSENC_BENCH_FLOOR
    if (srv_bench_floor_is(url, method)) { /* read like a /rope body, answered prebuilt */
        rq->row = srv_route_find("/rope", method);
        rq->bench_floor = 1;
    }
#endif
    rq->label = rq->row->kind == SRV_COMPUTE ? rq->row->label : srv_route_of(SRV_NO_ROUTE)->label;
    return rq;
}

/* The first call (headers only): strict framing, then the routes that read a body; a body sent to
 * any other route is refused here, before MHD reads it or sends 100 Continue (the early answer
 * closes the connection). */
static enum MHD_Result first_call(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                  const char *url, const char *method, const char *version)
{
    char why[160];
    if (srv_framing_bad(c, version, why, sizeof why)) {
        rq->close = 1;
        return srv_send_problem(ctx, c, rq, API_PB_BAD_REQUEST, why, NULL);
    }
    rq->compute = rq->row->kind == SRV_COMPUTE && strcmp(method, "POST") == 0;
    if (rq->compute)
        return compute_headers(ctx, c, rq);
    if (rq->row->kind == SRV_TABLE_PUT && strcmp(method, "PUT") == 0) {
        rq->table_put = 1;
        enum MHD_Result a;
        if (!srv_write_allowed(ctx, c, rq, &a))
            return a; /* 401 / 403 before any of the body is read */
        return srv_table_put_headers(ctx, c, rq, url + sizeof "/tables/" - 1);
    }
    if (!srv_has_body(c))
        return MHD_YES; /* answered on the next call, keeping the connection alive */
    rq->close = 1;
    if (!srv_route_takes(rq->row, method) && strcmp(method, "OPTIONS") != 0)
        return dispatch_other(ctx, c, rq); /* its 404 or 405, now */
    snprintf(why, sizeof why, "%s %s takes no request body", method,
             rq->row->path ? rq->row->path : "on this path");
    return srv_send_problem(ctx, c, rq, API_PB_BAD_REQUEST, why, NULL);
}

/*
 * The minimum upload rate. MHD's connection timeout fires only on silence, so a client sending one
 * byte every 29 s would keep a body (and its reservation in max_inflight_bytes, its spool file, its
 * connection) forever. A rate rather than a total time bounds the trickle without cutting off a
 * large upload on a link that is slow but steady: each time body bytes arrive, once a window of
 * cfg->upload_window seconds has passed (the first one, from the headers, is the grace period), the
 * bytes of that window divided by its length must reach cfg->min_upload_rate; then a new window
 * begins. Checked only when bytes arrive: silence is the connection timeout's. A body that holds a
 * connection is thus cut off after at most upload_window + connection_timeout seconds below the
 * rate. Returns 1 when rq's body is too slow.
 */
static int upload_too_slow(const srv_ctx *ctx, srv_req *rq, size_t n)
{
    rq->body_got += n;
    size_t rate = ctx->cfg->min_upload_rate;
    if (rate == 0)
        return 0;
    double now = now_since(&rq->t0), span = now - rq->win_start;
    if (span < (double)ctx->cfg->upload_window)
        return 0;
    if ((double)(rq->body_got - rq->win_got) < (double)rate * span)
        return 1;
    rq->win_start = now;
    rq->win_got = rq->body_got;
    return 0;
}

/* Answers a body cut off by upload_too_slow: 408 request-timeout, the connection closed (MHD
 * cannot queue an answer while a body arrives: srv_send_midbody), whatever rq reserved given
 * back at once. */
static enum MHD_Result send_too_slow(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    srv_budget_note_slow(&ctx->budget);
    srv_budget_hold(&ctx->budget, &rq->held, 0, NULL);
    char d[200];
    snprintf(d, sizeof d,
             "the request body arrived at less than min_upload_rate (%zu bytes a second over %u "
             "seconds); send it faster",
             ctx->cfg->min_upload_rate, ctx->cfg->upload_window);
    return srv_send_midbody(ctx, c, rq, API_PB_REQUEST_TIMEOUT, d);
}

/* MHD's access handler. A client that closes before its body is complete is let go at once:
 * see CLIENT GONE in server/upload.c for the peeks after the headers and after each piece. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    srv_ctx *ctx = cls;
    srv_req *rq = *con_cls;
    if (rq == NULL) {
        rq = req_new(ctx, c, url, method);
        if (rq == NULL)
            return MHD_NO;
        *con_cls = rq;
        enum MHD_Result a = first_call(ctx, c, rq, url, method, version);
        if (a == MHD_YES && !rq->queued && srv_has_body(c))
            srv_wake_if_gone(c); /* headers, then the client closed */
        return a;
    }
    if (rq->queued || !(rq->compute || rq->table_put)) {
        if (*upload_size > 0) {
            *upload_size = 0; /* a body nobody reads (or after an early 413/415): discard */
            return MHD_YES;
        }
        return rq->queued ? MHD_YES : dispatch_other(ctx, c, rq);
    }
    if (*upload_size > 0) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (upload_too_slow(ctx, rq, n))
            return send_too_slow(ctx, c, rq);
        if (rq->body_got < rq->body_declared && srv_client_gone(c))
            return MHD_NO; /* closed mid-body: see CLIENT GONE in upload.c */
        if (rq->body_declared == 0)
            srv_wake_if_gone(c); /* chunked: the rest may be in MHD's buffer */
        if (rq->bin) {           /* binary tensors: parts parsed, data spooled; errors are sticky */
            api_bin_feed(rq->bin, upload, n);
            return MHD_YES;
        }
        if (rq->up.st) { /* streamed: only the wanted tensor is kept; errors are sticky */
            wire_st_feed(rq->up.st, upload, n);
            return MHD_YES;
        }
        return srv_append_body(ctx, rq, upload, n);
    }
    if (rq->table_put)
        return srv_table_put_finish(ctx, c, rq);
    /* final call: the whole body is here */
    if (rq->too_big)
        return srv_send_too_big(ctx, c, rq);
    if (rq->overloaded) /* the budget refused the body while it arrived: never computed */
        return srv_send_overloaded(ctx, c, rq);
    if (rq->submitted) /* resumed: the pool job computed the response */
        return srv_send_api(ctx, c, rq, &rq->ar);
#ifdef POSENC_BENCH_FLOOR
    if (rq->bench_floor)
        return srv_bench_floor_send(ctx, c, rq);
#endif
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    srv_accept answer = srv_accept_answer(accept);
    rq->opts = (api_opts){.npy = answer == SRV_ACCEPT_NPY,
                          .npz = answer == SRV_ACCEPT_NPZ,
                          .array = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "array"),
                          .stream = 1,
                          .json_refused = !srv_accept_json(accept)};
    if (rq->bin != NULL && !(srv_accept_binary(accept) & 2)) { /* no JSON answer: .npy, then */
        rq->opts.npy = 1; /* (neither allowed was a 406 at the headers) */
        rq->opts.npz = 0;
    }
    size_t inline_work = ctx->cfg->inline_work;
    unsigned idle = 0;
    if (inline_work != 0 && ctx->pool != NULL && rq->bin == NULL && rq->len <= INLINE_MAX_BODY &&
        rq->row->compute->counts_work && /* (binary tensors are spooled: always the pool) */
        atomic_compare_exchange_strong(&ctx->computing, &idle, 1u)) {
        rq->opts.defer_work = inline_work; /* tiny: answered here unless it needs more */
        api_handle_route(&ctx->api, rq->row->compute, rq->buf, rq->len, rq->request_id, &rq->opts,
                         &rq->ar);
        rq->opts.defer_work = 0;
        if (!rq->ar.deferred) {
            atomic_fetch_sub(&ctx->computing, 1u);
            free(rq->buf);
            rq->buf = NULL;
            hold_for_response(rq);
            if (rq->overloaded)
                return srv_send_overloaded(ctx, c, rq);
            return srv_send_api(ctx, c, rq, &rq->ar);
        }
        api_response_free(&rq->ar); /* over the bound: to the pool, still counted in computing */
    } else {
        atomic_fetch_add(&ctx->computing, 1u);
    }
    if (ctx->pool != NULL && srv_pool_reserve(ctx->pool) != 0) { /* the queue is full */
        atomic_fetch_sub(&ctx->computing, 1u);
        return srv_send_queue_full(ctx, c, rq);
    }
    rq->conn = c;
    rq->submitted = 1;
    /* Compute on a pool thread with the connection suspended, so that this HTTP thread keeps
     * serving its other connections; without a pool (or if it refuses) compute right here. */
    MHD_suspend_connection(c);
    if (ctx->pool == NULL || srv_pool_submit(ctx->pool, compute_job, rq) != 0)
        compute_job(rq);
    return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)c;
    srv_ctx *ctx = cls;
    srv_req *rq = *con_cls;
    if (rq == NULL)
        return;
    *con_cls = NULL;
    double secs = now_since(&rq->t0);
    int status = rq->queued ? rq->status : 0;
    srv_metrics_record(ctx->metrics, rq->label, status, secs);
    srv_log_request(ctx, rq, status, secs, toe == MHD_REQUEST_TERMINATED_COMPLETED_OK);
    free(rq->buf);
    api_table_upload_free(&rq->up); /* a .safetensors parser reports 0 held to srv_st_hold */
    /* whatever this request still holds (also after an abort: this runs for every request) */
    srv_budget_hold(&ctx->budget, &rq->held, 0, NULL);
    api_response_free(&rq->ar); /* a pool result that was never sent (client gone) */
    srv_bin_close(ctx, rq);     /* after the response: its stream reads the spool */
    free(rq);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes s in place like MHD's default, except that "%00" stays as it is: a decoded NUL
 * would silently cut the path short ("/tables/a%00b" would address table "a"). Returns the new
 * length. Used for the path and the query arguments. */
static size_t unescape_keep_nul(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    char *w = s;
    for (const char *r = s; *r; r++) {
        int hi = r[0] == '%' ? hex_digit(r[1]) : -1;
        int lo = hi >= 0 ? hex_digit(r[2]) : -1;
        if (lo >= 0 && (hi | lo) != 0) {
            *w++ = (char)(hi * 16 + lo);
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

/* Counts open connections, for the accept policy below. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)c;
    (void)socket_ctx;
    srv_ctx *ctx = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        atomic_fetch_add(&ctx->open_conns, 1);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
        atomic_fetch_sub(&ctx->open_conns, 1);
}

/* Refuses (accepts and closes at once) a connection past --connection-limit. MHD 0.9.75's own
 * limit instead stops accepting, which leaves new clients hanging in the listen backlog while
 * slow clients hold the slots; so MHD's limit is set to twice ours and this decides. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)addr;
    (void)len;
    srv_ctx *ctx = cls;
    return atomic_load(&ctx->open_conns) >= ctx->cfg->connection_limit ? MHD_NO : MHD_YES;
}

struct MHD_Daemon *srv_http_start(srv_ctx *ctx, unsigned *port_out)
{
    const srv_config *cfg = ctx->cfg;
#ifdef POSENC_BENCH_FLOOR
    if (srv_bench_floor_load() != 0)
        return NULL;
#endif
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)cfg->port);
    if (inet_pton(AF_INET, cfg->bind, &addr.sin_addr) != 1) {
        fprintf(stderr, "posencd: --bind \"%s\" is not an IPv4 address\n", cfg->bind);
        return NULL;
    }
    unsigned threads = cfg->threads;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (unsigned)n : 2;
    }
    if (threads < 2)
        threads = 2; /* a single epoll thread stalls under bursts in MHD 0.9.75 */
    unsigned compute = cfg->compute_threads;
    if (compute == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        compute = n > 0 ? (unsigned)n : 2;
    }
    ctx->pool = srv_pool_create(compute, cfg->max_queue_depth);
    if (ctx->pool == NULL)
        fprintf(stderr, "posencd: warning: no compute threads; computing on the HTTP threads\n");
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0,
        &accept_policy, ctx, &on_request, ctx, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned int)cfg->connection_timeout, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned int)cfg->connection_limit * 2u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)cfg->connection_memory, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1, MHD_OPTION_NOTIFY_COMPLETED,
        &on_completed, ctx, MHD_OPTION_UNESCAPE_CALLBACK, &unescape_keep_nul, NULL,
        MHD_OPTION_NOTIFY_CONNECTION, &on_connection, ctx, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "posencd: cannot listen on %s:%u: %s\n", cfg->bind, cfg->port,
                strerror(errno));
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    *port_out = info ? info->port : cfg->port;
    return d;
}

void srv_http_drain_and_stop(srv_ctx *ctx, struct MHD_Daemon *d)
{
    MHD_socket ls = MHD_quiesce_daemon(d);
    /* Stop listening now: new connects are refused instead of parked in the backlog (where they
     * would be reset when the socket closes). The descriptor stays valid until MHD_stop_daemon,
     * as MHD requires for a quiesced socket. Draining starts only after that, so no client gets
     * Connection: close while a reconnect could still land in the backlog. */
    if (ls != MHD_INVALID_SOCKET)
        shutdown(ls, SHUT_RDWR);
    atomic_store(&ctx->draining, 1);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (now_since(&t0) < (double)ctx->cfg->drain_seconds) {
        const union MHD_DaemonInfo *info =
            MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        if (info == NULL || info->num_connections == 0)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* finish the computations in flight (their connections resume) before MHD stops; requests
     * arriving from now on compute on the HTTP threads */
    if (ctx->pool)
        srv_pool_stop(ctx->pool);
    MHD_stop_daemon(d);
    srv_pool_destroy(ctx->pool);
    ctx->pool = NULL;
    if (ls != MHD_INVALID_SOCKET)
        close(ls);
}
