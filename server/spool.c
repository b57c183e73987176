/*
 * server/spool.c -- where the tensors of a binary request wait (api/bin.h): one unlinked file per
 * request in --spool-dir (O_TMPFILE, else mkstemp + unlink), gone when it is closed or the daemon
 * dies. A finished request's file is kept for the next one (SRV_SPOOL_SPARES of them, cut to at
 * most SRV_SPOOL_KEEP_BYTES): writing over pages the file already has skips the filesystem's block
 * and page allocation and their release at close (128 MiB written and read back: 33 ms of CPU
 * instead of 51 on ext4 here); nothing of it is read back that the request did not write, and
 * what the spares keep is outside the quota (at most SRV_SPOOL_SPARES x 256 MiB of disk and page
 * cache, never the daemon's memory), and closed when a write finds the file system full
 * (reclaim): on a small --spool-dir they must not refuse a request the quota takes. The bytes all
 * requests reserve are bounded by --spool-quota (507 above) and shown in GET /metrics
 * (posenc_spool_bytes, posenc_spool_peak_bytes) beside the quota in GET /limits. The in-flight
 * budget (budget.h) counts what a binary request holds in memory, through the hold hook: never its
 * spooled bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* A spare spool file (closed when the daemon exits), or -1. */
static int take_spare(srv_ctx *ctx)
{
    for (int i = 0; i < SRV_SPOOL_SPARES; i++) {
        int v = atomic_exchange(&ctx->spool_spare[i], 0);
        if (v > 0)
            return v - 1;
    }
    return -1;
}

/* api_spool.reclaim: a write found the spool's file system full: the spares are closed (the
 * space they keep is outside the quota, and must not refuse a request the quota takes). 1 when
 * one was. */
static int reclaim(void *cls)
{
    srv_req *rq = cls;
    int freed = 0;
    for (int i = 0; i < SRV_SPOOL_SPARES; i++) {
        int v = atomic_exchange(&rq->ctx->spool_spare[i], 0);
        if (v > 0) {
            close(v - 1);
            freed = 1;
        }
    }
    return freed;
}

/* Keeps fd as a spare, cut to SRV_SPOOL_KEEP_BYTES (and the quota), or closes it. sent: its bytes
 * went out by sendfile (server/respond.c), so it is cut to nothing: sendfile hands the file's
 * page-cache pages to the socket without copying them, and they stay in the socket buffers
 * (ours, and the client's receive queue on loopback) until the client reads them, which may be
 * after the request completed; a later request writing over those pages would change bytes
 * already sent (sendfile(2), NOTES). Cut, the file gives the pages up; the next request writes
 * into new ones. */
static void give_back(srv_ctx *ctx, int fd, int sent)
{
    off_t keep = sent ? 0 : (off_t)SRV_SPOOL_KEEP_BYTES; /* never more than --spool-quota */
    if ((uint64_t)keep > ctx->cfg->spool_quota)
        keep = (off_t)ctx->cfg->spool_quota;
    struct stat st;
    if (fstat(fd, &st) == 0 && (st.st_size <= keep || ftruncate(fd, keep) == 0)) {
        for (int i = 0; i < SRV_SPOOL_SPARES; i++) {
            int none = 0;
            if (atomic_compare_exchange_strong(&ctx->spool_spare[i], &none, fd + 1))
                return;
        }
    }
    close(fd);
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
    int fd = take_spare(ctx);
    if (fd < 0)
        fd = open_spool(spool_dir(ctx));
    if (fd < 0) {
        char d[200];
        snprintf(d, sizeof d, "the spool directory cannot take a file (%s)", strerror(errno));
        return srv_send_problem(ctx, c, rq, API_PB_INSUFFICIENT_STORAGE, d, NULL);
    }
    api_spool sp = {fd, reserve, rq, reclaim, ctx->cfg->spool_quota};
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
    if (rq->bin == NULL)
        return;
    api_bin_free(rq->bin); /* gives back the reservation and the hold */
    rq->bin = NULL;
    give_back(ctx, rq->spool_fd, rq->spool_sent);
}
