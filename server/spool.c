/*
 * server/spool.c -- where the tensors of a binary request wait (api/bin.h): one unlinked file per
 * request in --spool-dir (O_TMPFILE, else mkstemp + unlink), gone when it is closed or the daemon
 * dies; the bytes all requests reserve in it are bounded by --spool-quota (507 above) and shown in
 * GET /metrics (posenc_spool_bytes, posenc_spool_peak_bytes) beside the quota in GET /limits.
 * The in-flight budget (budget.h) counts what a binary request holds in memory, through the hold
 * hook: never its spooled bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/request.h"
#include "server/routes.h"

/* The spool directory: --spool-dir, else $TMPDIR, else /tmp. */
static const char *spool_dir(const srv_ctx *ctx)
{
    if (ctx->cfg->spool_dir[0] != '\0')
        return ctx->cfg->spool_dir;
    const char *t = getenv("TMPDIR");
    return t != NULL && t[0] != '\0' ? t : "/tmp";
}

/* An unlinked read-write file in dir, or -1 (errno). */
static int open_spool(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    char path[600];
    snprintf(path, sizeof path, "%s/posenc-spool-XXXXXX", dir);
    int fd2 = mkstemp(path);
    if (fd2 >= 0)
        unlink(path);
    return fd2;
}

/* api_spool.reserve: moves rq's reservation to total bytes, within --spool-quota. */
static int reserve(void *cls, uint64_t total)
{
    srv_req *rq = cls;
    srv_ctx *ctx = rq->ctx;
    if (total <= rq->spool_held) {
        atomic_fetch_sub(&ctx->spool_used, rq->spool_held - total);
        rq->spool_held = total;
        return 0;
    }
    uint64_t more = total - rq->spool_held;
    uint64_t cur = atomic_load(&ctx->spool_used);
    do {
        if (cur + more > ctx->cfg->spool_quota) {
            atomic_fetch_add(&ctx->spool_refused, 1);
            return -1;
        }
    } while (!atomic_compare_exchange_weak(&ctx->spool_used, &cur, cur + more));
    uint64_t now = cur + more, peak = atomic_load(&ctx->spool_peak);
    while (now > peak && !atomic_compare_exchange_weak(&ctx->spool_peak, &peak, now))
        ;
    rq->spool_held = total;
    return 0;
}

static int hold(void *cls, size_t bytes)
{
    srv_req *rq = cls;
    return srv_req_hold(rq->ctx, rq, bytes);
}

enum MHD_Result srv_bin_headers(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                const char *boundary)
{
    int fd = open_spool(spool_dir(ctx));
    if (fd < 0) {
        char d[200];
        snprintf(d, sizeof d, "the spool directory cannot take a file (%s)", strerror(errno));
        return srv_send_problem(ctx, c, rq, API_PB_INSUFFICIENT_STORAGE, d, NULL);
    }
    api_spool sp = {fd, reserve, rq};
    rq->bin = api_bin_new(&ctx->api, rq->row->compute, boundary, &sp, hold, rq);
    if (rq->bin == NULL) {
        close(fd);
        return srv_send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
    }
    rq->spool_fd = fd;
    return MHD_YES;
}

void srv_bin_close(srv_ctx *ctx, srv_req *rq)
{
    (void)ctx;
    if (rq->bin == NULL)
        return;
    api_bin_free(rq->bin); /* gives back the reservation and the hold */
    rq->bin = NULL;
    close(rq->spool_fd);
}
