/*
 * server/upload.c -- request bodies held in memory: max_body_bytes per request and the daemon-wide
 * budget (budget.h, max_inflight_bytes) over all of them (request.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "server/request.h"

/* Records a refusal of `more` bytes while `seen` were reserved (for srv_send_overloaded); -1. */
static int refused(srv_req *rq, size_t more, size_t seen)
{
    rq->overloaded = 1;
    rq->ovl_more = more;
    rq->ovl_seen = seen;
    return -1;
}

int srv_req_hold(srv_ctx *ctx, srv_req *rq, size_t want)
{
    size_t seen = 0;
    if (srv_budget_hold(&ctx->budget, &rq->held, want, &seen) == 0)
        return 0;
    return refused(rq, want - rq->held, seen);
}

/* A client that declares a large body and then sends it slowly holds only what has arrived
 * (srv_append_body), so a few slow uploads cannot make every other request 503. */
int srv_req_fits(srv_ctx *ctx, srv_req *rq, size_t declared)
{
    size_t seen = 0;
    if (srv_budget_fits(&ctx->budget, declared, &seen) == 0)
        return 0;
    return refused(rq, declared, seen);
}

/* Such an upload has no body buffer, so rq->held is what the parser holds: its header buffer,
 * then its table. */
int srv_st_hold(void *cls, size_t bytes)
{
    srv_req *rq = cls;
    return srv_req_hold(rq->ctx, rq, bytes);
}

unsigned long long srv_declared_length(struct MHD_Connection *c)
{
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if (cl == NULL)
        return 0;
    char *end = NULL;
    unsigned long long n = strtoull(cl, &end, 10);
    return end != cl ? n : 0;
}

int srv_client_gone(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ci == NULL)
        return 0;
    char b;
    ssize_t r = recv(ci->connect_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r == 0)
        return 1; /* FIN: end of stream */
    return r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR; /* a reset */
}

void srv_drop_body(srv_ctx *ctx, srv_req *rq)
{
    free(rq->buf);
    rq->buf = NULL;
    rq->len = rq->cap = 0;
    srv_budget_hold(&ctx->budget, &rq->held, 0, NULL);
}

/* The buffer grows by doubling from 4 KiB (the last growth no larger than the declared length);
 * each growth is reserved in the budget first, and a refusal discards the body (the final call
 * answers 503 overloaded). Past max_body_bytes the body is discarded and the final call answers
 * 413. */
enum MHD_Result srv_append_body(srv_ctx *ctx, srv_req *rq, const char *upload, size_t n)
{
    if (rq->too_big || rq->overloaded)
        return MHD_YES;
    if (n > ctx->cfg->lim.max_body_bytes - rq->len) {
        rq->too_big = 1;
        srv_drop_body(ctx, rq);
        return MHD_YES;
    }
    if (rq->len + n > rq->cap) {
        size_t ncap = rq->cap ? rq->cap : 4096;
        while (ncap < rq->len + n)
            ncap *= 2;
        if (ncap > ctx->cfg->lim.max_body_bytes)
            ncap = ctx->cfg->lim.max_body_bytes;
        if (rq->declared >= rq->len + n && ncap > rq->declared)
            ncap = rq->declared; /* the last growth: no more than the declared length */
        if (srv_req_hold(ctx, rq, ncap) < 0) {
            srv_drop_body(ctx, rq);
            return MHD_YES;
        }
        char *nb = realloc(rq->buf, ncap);
        if (nb == NULL)
            return MHD_NO;
        rq->buf = nb;
        rq->cap = ncap;
    }
    memcpy(rq->buf + rq->len, upload, n);
    rq->len += n;
    return MHD_YES;
}
