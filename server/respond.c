/* server/respond.c -- queueing answers with the headers every response carries (request.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/request.h"
#include "wire/stream.h"

/* Bytes MHD asks a stream for at a time (at most; it offers what its write buffer has free). */
#define STREAM_BLOCK (64 * 1024)
/* A body of known size from STREAM_BIG_BODY bytes up (binary tensors: 128 MiB and more) is read
 * and sent in blocks of STREAM_BIG_BLOCK: 16 times fewer reads and writes, 1 MiB per such answer */
#define STREAM_BIG_BODY ((uint64_t)64 << 20)
#define STREAM_BIG_BLOCK (1024 * 1024)

enum MHD_Result srv_send_resp(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                              struct MHD_Response *resp, const char *content_type)
{
    if (resp == NULL)
        return MHD_NO;
    if (content_type)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, "X-Request-Id", rq->request_id);
    if (ctx->cfg->cors_origins[0]) {
        MHD_add_response_header(resp, "Access-Control-Allow-Origin", ctx->cfg->cors_origins);
        MHD_add_response_header(resp, "Access-Control-Expose-Headers",
                                "X-Request-Id, X-Posenc-Array, X-Posenc-Warnings");
        if (strcmp(ctx->cfg->cors_origins, "*") != 0)
            MHD_add_response_header(resp, "Vary", "Origin");
    }
    if (atomic_load(&ctx->draining) || rq->close)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    rq->queued = 1;
    rq->status = status;
    enum MHD_Result r = MHD_queue_response(c, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return r;
}

enum MHD_Result srv_send_buffer(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                                const char *content_type, char *body, size_t len)
{
    /* body is malloc'd; MHD frees it with free() when the response is destroyed. */
    struct MHD_Response *resp =
        MHD_create_response_from_buffer_with_free_callback(len, body, &free);
    if (resp == NULL) {
        free(body);
        return MHD_NO;
    }
    rq->resp_bytes = len;
    return srv_send_resp(ctx, c, rq, status, resp, content_type);
}

enum MHD_Result srv_send_text(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                              const char *content_type, const char *text)
{
    size_t n = strlen(text);
    char *b = malloc(n + 1);
    if (b == NULL)
        return MHD_NO;
    memcpy(b, text, n + 1);
    return srv_send_buffer(ctx, c, rq, status, content_type, b, n);
}

/* A streamed body (wire/stream.h): MHD asks for the next bytes whenever the socket can take them,
 * so a large response never stalls the other connections of its worker thread. */
typedef struct {
    wire_stream *s;
    size_t *bytes; /* the request's resp_bytes: valid while MHD still reads (before completion) */
} srv_stream;

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    srv_stream *ss = cls;
    size_t n = wire_stream_read(ss->s, buf, max);
    if (n == 0) /* an incomplete body must not look complete: abort the connection then */
        return wire_stream_failed(ss->s) ? MHD_CONTENT_READER_END_WITH_ERROR
                                         : MHD_CONTENT_READER_END_OF_STREAM;
    *ss->bytes += n;
    return (ssize_t)n;
}

static void stream_done(void *cls)
{
    srv_stream *ss = cls;
    wire_stream_free(ss->s);
    free(ss);
}

/* The MHD response of ar's stream when its body is a range of an open file (a binary request's
 * spool, wire_stream_file) of at least --sendfile-min-bytes (0: never): libmicrohttpd sends the
 * file's bytes itself, by sendfile on a plain socket (no copy through this process, no read
 * callback), from a duplicate of the descriptor that it closes when the response goes;
 * rq->spool_sent tells server/spool.c, which then cuts the file rather than keep its pages. NULL
 * (ar untouched) when the stream is not such a file, the option is off or the response cannot be
 * made; then it is read and sent as any stream. Off by default: to a client on the same machine
 * it measured slower end to end than the read path (docs/performance.md, "sendfile"). */
static struct MHD_Response *file_response(const srv_ctx *ctx, srv_req *rq, api_response *ar)
{
    uint64_t off = 0, size = wire_stream_size(ar->stream);
    int fd = wire_stream_file(ar->stream, &off);
    if (fd < 0 || ctx->cfg->sendfile_min_bytes == 0 || size < ctx->cfg->sendfile_min_bytes)
        return NULL;
    int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup_fd < 0)
        return NULL;
    struct MHD_Response *resp = MHD_create_response_from_fd_at_offset64(size, dup_fd, off);
    if (resp == NULL) {
        close(dup_fd);
        return NULL;
    }
    rq->spool_sent = 1;
    rq->resp_bytes = (size_t)size;
    wire_stream_free(ar->stream);
    ar->stream = NULL;
    return resp;
}

/* The MHD response of ar's stream (taken from ar), or NULL when out of memory. */
static struct MHD_Response *stream_response(srv_req *rq, api_response *ar)
{
    srv_stream *ss = malloc(sizeof *ss);
    if (ss == NULL) {
        api_response_free(ar);
        return NULL;
    }
    ss->s = ar->stream;
    ss->bytes = &rq->resp_bytes;
    ar->stream = NULL;
    uint64_t size = wire_stream_size(ss->s);
    rq->resp_bytes = 0;
    struct MHD_Response *resp = MHD_create_response_from_callback(
        size == WIRE_STREAM_SIZE_UNKNOWN ? MHD_SIZE_UNKNOWN : size,
        size != WIRE_STREAM_SIZE_UNKNOWN && size >= STREAM_BIG_BODY ? STREAM_BIG_BLOCK
                                                                    : STREAM_BLOCK,
        stream_read, ss, stream_done);
    if (resp == NULL)
        stream_done(ss);
    return resp;
}

int srv_hold_response(srv_ctx *ctx, srv_req *rq, const api_response *ar)
{
    size_t need = api_response_held(ar);
    if (need < SRV_RESPONSE_HOLD_MIN || need <= rq->held)
        return 0;
    return srv_req_hold(ctx, rq, need);
}

/* Frees ar's warnings text (the rest of ar has gone to the response or is freed by the caller). */
static void drop_warnings(api_response *ar)
{
    free(ar->warnings);
    ar->warnings = NULL;
}

enum MHD_Result srv_send_api(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, api_response *ar)
{
    struct MHD_Response *resp;
    if (srv_hold_response(ctx, rq, ar) < 0) { /* no room to keep it while it is sent */
        api_response_free(ar);
        return srv_send_overloaded(ctx, c, rq);
    }
    if (ar->stream != NULL && (resp = file_response(ctx, rq, ar)) != NULL) {
        /* sent from the file */
    } else if (ar->stream != NULL) {
        resp = stream_response(rq, ar);
        if (resp == NULL)
            return drop_warnings(ar), MHD_NO;
    } else if (ar->body == NULL && ar->status == 204) { /* no content */
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        rq->resp_bytes = 0;
    } else {
        if (ar->body == NULL)
            return drop_warnings(ar), MHD_NO;
        resp = MHD_create_response_from_buffer_with_free_callback(ar->len, ar->body, &free);
        if (resp == NULL) {
            api_response_free(ar);
            return drop_warnings(ar), MHD_NO;
        }
        ar->body = NULL;
        rq->resp_bytes = ar->len;
    }
    for (size_t i = 0; i < ar->n_headers; i++)
        MHD_add_response_header(resp, ar->headers[i].name, ar->headers[i].value);
    if (ar->warnings != NULL) /* a binary answer's warnings (api_response): ASCII JSON */
        MHD_add_response_header(resp, "X-Posenc-Warnings", ar->warnings);
    drop_warnings(ar); /* copied into the response */
    if (rq->compute)
        MHD_add_response_header(resp, "Vary", "Accept");
    if (ar->status == 200 && strcmp(ar->content_type, "application/x-npz") == 0) {
        char disp[96];
        snprintf(disp, sizeof disp, "attachment; filename=\"%s.npz\"", rq->label);
        MHD_add_response_header(resp, "Content-Disposition", disp);
    }
    if (ar->npy_array != NULL) {
        char disp[96];
        snprintf(disp, sizeof disp, "attachment; filename=\"%s.npy\"", rq->label);
        MHD_add_response_header(resp, "Content-Disposition", disp);
        MHD_add_response_header(resp, "X-Posenc-Array", ar->npy_array);
    }
    return srv_send_resp(ctx, c, rq, ar->status, resp, ar->content_type);
}

enum MHD_Result srv_send_problem_hdr(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                     api_problem_code code, const char *detail, const char *hname,
                                     const char *hvalue)
{
    api_response ar;
    api_simple_problem(code, detail, rq->request_id, &ar);
    if (ar.body == NULL)
        return MHD_NO;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer_with_free_callback(ar.len, ar.body, &free);
    if (resp == NULL) {
        free(ar.body);
        return MHD_NO;
    }
    rq->resp_bytes = ar.len;
    if (hname)
        MHD_add_response_header(resp, hname, hvalue);
    return srv_send_resp(ctx, c, rq, ar.status, resp, ar.content_type);
}

enum MHD_Result srv_send_problem(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                 api_problem_code code, const char *detail, const char *allow)
{
    return srv_send_problem_hdr(ctx, c, rq, code, detail, allow ? MHD_HTTP_HEADER_ALLOW : NULL,
                                allow);
}

enum MHD_Result srv_send_overloaded(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char d[256];
    snprintf(d, sizeof d,
             "request bodies and responses held in memory would pass max_inflight_bytes (%zu): "
             "%zu bytes are "
             "held now and this request needs %zu more; retry later",
             ctx->budget.max, rq->ovl_seen, rq->ovl_more);
    srv_budget_note_refused(&ctx->budget);
    return srv_send_problem_hdr(ctx, c, rq, API_PB_OVERLOADED, d, "Retry-After", "1");
}

enum MHD_Result srv_send_queue_full(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char d[200];
    snprintf(d, sizeof d,
             "the compute queue is full (max_queue_depth %u requests wait for a compute thread); "
             "retry later",
             ctx->cfg->max_queue_depth);
    srv_budget_note_refused(&ctx->budget);
    return srv_send_problem_hdr(ctx, c, rq, API_PB_OVERLOADED, d, "Retry-After", "1");
}

enum MHD_Result srv_send_too_big(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char d[128];
    snprintf(d, sizeof d, "the body exceeds max_body_bytes (%zu)", ctx->cfg->lim.max_body_bytes);
    return srv_send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
}

/* allow ("GET, HEAD, PUT, DELETE, OPTIONS") without PUT and DELETE, into out. */
static const char *read_methods(const char *allow, char *out, size_t n)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s", allow);
    size_t w = 0;
    out[0] = '\0';
    char *save = NULL;
    for (char *m = strtok_r(tmp, ", ", &save); m != NULL; m = strtok_r(NULL, ", ", &save)) {
        if (strcmp(m, "PUT") == 0 || strcmp(m, "DELETE") == 0)
            continue;
        int r = snprintf(out + w, n - w, "%s%s", w ? ", " : "", m);
        if (r < 0 || (size_t)r >= n - w)
            break;
        w += (size_t)r;
    }
    return out;
}

enum MHD_Result srv_preflight(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                              const char *allow)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (ctx->cfg->cors_origins[0]) {
        /* Writes are granted to configured origins only: with "*" a preflight never allows PUT
         * or DELETE (nor Authorization), so no page on any site can write tables from a
         * browser. */
        int any = strcmp(ctx->cfg->cors_origins, "*") == 0;
        char reads[64];
        MHD_add_response_header(resp, "Access-Control-Allow-Methods",
                                any ? read_methods(allow, reads, sizeof reads) : allow);
        MHD_add_response_header(resp, "Access-Control-Allow-Headers",
                                any ? "Content-Type, Accept, X-Request-Id"
                                    : "Content-Type, Accept, X-Request-Id, Authorization");
        MHD_add_response_header(resp, "Access-Control-Max-Age", "600");
    }
    return srv_send_resp(ctx, c, rq, 204, resp, NULL);
}

enum MHD_Result srv_send_midbody(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                 api_problem_code code, const char *detail)
{
    (void)ctx;
    api_response ar;
    api_simple_problem(code, detail, rq->request_id, &ar);
    rq->queued = 1; /* for the access log and the metrics */
    rq->status = ar.status;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ar.body != NULL && ci != NULL) {
        char head[256];
        int hl = snprintf(head, sizeof head,
                          "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                          "X-Request-Id: %s\r\nConnection: close\r\n\r\n",
                          ar.status, code == API_PB_REQUEST_TIMEOUT ? "Request Timeout" : "Error",
                          ar.content_type, ar.len, rq->request_id);
        /* Best effort, never blocking: the socket's send buffer is empty while a body arrives. */
        if (hl > 0 && (size_t)hl < sizeof head &&
            send(ci->connect_fd, head, (size_t)hl, MSG_NOSIGNAL | MSG_DONTWAIT) == hl)
            (void)!send(ci->connect_fd, ar.body, ar.len, MSG_NOSIGNAL | MSG_DONTWAIT);
        rq->resp_bytes = ar.len;
    }
    free(ar.body);
    return MHD_NO;
}
