/*
 * server/http.h -- the libmicrohttpd daemon: routing, body limits, static files, CORS, request ids,
 * access log, metrics and graceful drain. Only server/ includes microhttpd.h.
 */
#ifndef SRV_HTTP_H
#define SRV_HTTP_H

#include <stdatomic.h>

#include "api/api.h"
#include "server/budget.h"
#include "server/config.h"
#include "server/metrics.h"
#include "store/store.h"

/* Spool files kept open between binary requests (server/spool.c). */
#define SRV_SPOOL_SPARES 2
/* The most bytes a spare spool file keeps between requests (its pages are written over in place
 * by the next request: no allocation by the file system; a file sent by sendfile keeps none). */
#define SRV_SPOOL_KEEP_BYTES ((uint64_t)256 << 20)

/* Everything a request handler may reach; created by main, shared by all worker threads. */
typedef struct {
    const srv_config *cfg;
    api_ctx api;
    srv_metrics *metrics;
    store_dir *store;      /* learned tables (/tables, /learned); api.tables is its source */
    struct srv_pool *pool; /* compute threads (NULL: compute on the HTTP threads) */
    srv_budget budget;     /* request bodies held in memory (max_inflight_bytes; init by main) */
    atomic_int draining;   /* 1 after SIGTERM: /readyz 503, Connection: close, new work 503 */
    atomic_uint_fast64_t next_id; /* request id counter */
    atomic_uint open_conns;       /* connections open now (MHD_OPTION_NOTIFY_CONNECTION) */
    atomic_uint computing;      /* compute requests being computed or waiting for the pool (http.c:
                                 * --inline-work answers a tiny one inline only when this is 0) */
    unsigned long long id_salt; /* random per process, so ids differ across replicas */
    atomic_uint_fast64_t spool_used;    /* bytes of binary tensors reserved in the spool now */
    atomic_uint_fast64_t spool_peak;    /* the most spool_used has been */
    atomic_uint_fast64_t spool_refused; /* binary requests refused with 507 by the quota */
    /* spool files kept for the next requests: fd + 1, 0 none (server/spool.c) */
    atomic_int spool_spare[SRV_SPOOL_SPARES];
    char *spec; /* openapi.yaml contents (NULL if unreadable) */
    size_t spec_len;
} srv_ctx;

struct MHD_Daemon;

/* Starts the daemon on cfg->bind:cfg->port with an epoll thread pool. Returns NULL (and prints why)
 * on failure. *port_out receives the bound port (useful with --port 0). */
struct MHD_Daemon *srv_http_start(srv_ctx *ctx, unsigned *port_out);

/* Graceful stop: marks draining, stops accepting, waits for in-flight connections up to
 * cfg->drain_seconds, then stops the daemon. */
void srv_http_drain_and_stop(srv_ctx *ctx, struct MHD_Daemon *d);

#endif
