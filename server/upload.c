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

/*
 * CLIENT GONE. A client that closes its connection before its body is complete must give back at
 * once what its request holds (its buffer in max_inflight_bytes, its spool bytes, its connection).
 * libmicrohttpd 0.9.75 (epoll, edge-triggered) takes a read shorter than its buffer to mean the
 * socket is drained and waits for the next edge; when the client's FIN is already queued behind
 * its last bytes at that read (the client sent and closed before the HTTP thread got to it: about
 * one time in three under load, always when the daemon was busy), no edge ever comes, the FIN is
 * never read and the request lives until --connection-timeout (strace: the last recvfrom returns
 * 13,062 of 32,676 bytes, then epoll_wait and nothing; ss shows the socket in CLOSE-WAIT with an
 * empty receive queue). So the access handler peeks at the socket (srv_client_gone) each time it
 * is called while a body may still be coming:
 * - after a piece of a body with a Content-Length that leaves it incomplete, end of stream means
 *   the request can never complete: the handler returns MHD_NO and libmicrohttpd closes it now
 *   (its error log says "Application reported internal error");
 * - after a piece of a chunked body, and at the headers of any request with a body, the rest may
 *   already wait in libmicrohttpd's buffer (a client that sent everything and half-closed), so
 *   end of stream there only shuts the read side of the socket (srv_wake_if_gone): that wakes the
 *   edge-triggered loop (the kernel reports EPOLLIN again), and libmicrohttpd, once it has used
 *   what its buffer holds, reads the end of stream itself and closes a request still incomplete
 *   ("Connection was closed by remote side with incomplete request") -- what it does when the FIN
 *   comes after its last read. A request the buffer completes is answered as before.
 * on_completed (server/http.c) then releases everything. One recv per call (a piece is at most
 * 32 KiB) costs about a microsecond.
 */
static int conn_fd(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return ci == NULL ? -1 : ci->connect_fd;
}

int srv_client_gone(struct MHD_Connection *c)
{
    int fd = conn_fd(c);
    if (fd < 0)
        return 0;
    char b;
    ssize_t r = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r == 0)
        return 1; /* FIN: end of stream */
    return r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR; /* a reset */
}

void srv_wake_if_gone(struct MHD_Connection *c)
{
    if (srv_client_gone(c))
        (void)shutdown(conn_fd(c), SHUT_RD); /* nothing more can arrive; see CLIENT GONE */
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
