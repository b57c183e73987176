/* server/service.c -- the service routes: /healthz, /readyz, /limits, /version, /metrics,
 * /openapi.yaml (GET and HEAD; routes.c lists them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/memory.h"
#include "server/pool.h"
#include "server/routes.h"

enum MHD_Result srv_get_healthz(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (ctx->pool != NULL) {
        srv_pool_figures f;
        srv_pool_stats(ctx->pool, &f);
        if (f.longest_job_seconds > (double)ctx->cfg->stuck_seconds) {
            char d[200];
            snprintf(d, sizeof d,
                     "a compute thread has run one request for %.1f s, longer than "
                     "stuck_seconds (%u)",
                     f.longest_job_seconds, ctx->cfg->stuck_seconds);
            return srv_send_problem(ctx, c, rq, API_PB_UNAVAILABLE, d, NULL);
        }
    }
    return srv_send_text(ctx, c, rq, 200, "application/json", "{\"status\":\"ok\"}");
}

enum MHD_Result srv_get_readyz(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (atomic_load(&ctx->draining))
        return srv_send_problem(ctx, c, rq, API_PB_SHUTTING_DOWN, "the server is draining", NULL);
    return srv_send_text(ctx, c, rq, 200, "application/json", "{\"status\":\"ready\"}");
}

enum MHD_Result srv_get_limits(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    const srv_config *cfg = ctx->cfg;
    const api_limits *l = &cfg->lim;
    srv_memory_terms m;
    srv_memory_ceiling(cfg, &m);
    char tmp[1536];
    snprintf(tmp, sizeof tmp,
             "{\"max_body_bytes\":%zu,\"max_table_bytes\":%zu,\"max_output_elements\":%zu,"
             "\"max_dim\":%zu,\"max_heads\":%zu,\"max_positions\":%zu,\"max_position\":%lld,"
             "\"max_work\":%zu,\"max_inflight_bytes\":%zu,\"max_parse_bytes\":%zu,"
             "\"max_tables\":%zu,\"max_store_bytes\":%zu,\"max_tensor_bytes\":%zu,"
             "\"spool_quota_bytes\":%zu,"
             "\"threads\":%u,\"compute_threads\":%u,\"max_queue_depth\":%u,"
             "\"connection_limit\":%u,\"connection_memory\":%zu,\"cache_bytes\":%zu,"
             "\"min_upload_rate\":%zu,\"upload_window_seconds\":%u,"
             "\"table_cache_bytes\":%zu,"
             "\"memory_ceiling\":{\"base\":%llu,\"connections\":%llu,\"inflight\":%llu,"
             "\"parse\":%llu,\"work\":%llu,\"tables\":%llu,\"freq_cache\":%llu,"
             "\"total\":%llu}}",
             l->max_body_bytes, l->max_table_bytes, l->max_output_elements, l->max_dim,
             l->max_heads, l->max_positions, (long long)l->max_position, l->max_work,
             l->max_inflight_bytes, l->max_parse_bytes, l->max_tables, l->max_store_bytes,
             l->max_tensor_bytes, cfg->spool_quota, cfg->threads < 2 ? 2u : cfg->threads,
             cfg->compute_threads, cfg->max_queue_depth, cfg->connection_limit,
             cfg->connection_memory, cfg->cache_bytes, cfg->min_upload_rate, cfg->upload_window,
             cfg->table_cache_bytes, (unsigned long long)m.base, (unsigned long long)m.connections,
             (unsigned long long)m.inflight, (unsigned long long)m.parse,
             (unsigned long long)m.work, (unsigned long long)m.tables,
             (unsigned long long)m.freq_cache, (unsigned long long)m.total);
    return srv_send_text(ctx, c, rq, 200, "application/json", tmp);
}

enum MHD_Result srv_get_version(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char tmp[640];
    snprintf(tmp, sizeof tmp,
             "{\"name\":\"posenc\",\"version\":\"%s\",\"api_version\":\"%s\","
             "\"git_revision\":\"%s\","
             "\"build\":{\"compiler\":\"%s\",\"date\":\"%s\"},"
             "\"libraries\":{\"libmicrohttpd\":\"%s\",\"jansson\":\"%s\"}}",
             POSENC_VERSION, POSENC_API_VERSION, POSENC_GIT_REV, __VERSION__, __DATE__,
             MHD_get_version(), jansson_version_str());
    return srv_send_text(ctx, c, rq, 200, "application/json", tmp);
}

/* Appends text (n bytes) to the exposition b (len bytes); NULL (b freed) when out of memory. */
static char *append_text(char *b, size_t *len, const char *text, int n)
{
    if (n < 0)
        return b;
    char *nb = realloc(b, *len + (size_t)n + 1);
    if (nb == NULL) {
        free(b);
        return NULL;
    }
    memcpy(nb + *len, text, (size_t)n + 1);
    *len += (size_t)n;
    return nb;
}

/* Appends the table store's use (counted from the directory, as the quota is), its cache and the
 * quota's refusals. */
static char *append_store_metrics(store_dir *s, char *b, size_t *len)
{
    size_t tables = 0, bytes = 0, cached = 0, cached_n = 0, refused = 0;
    store_usage(s, NULL, &tables, &bytes);
    store_cache_stats(s, &cached, &cached_n, &refused);
    char t[1200];
    int n = snprintf(
        t, sizeof t,
        "# HELP posenc_store_tables Stored tables in the data directory (the quota's count).\n"
        "# TYPE posenc_store_tables gauge\nposenc_store_tables %zu\n"
        "# HELP posenc_store_bytes Bytes of stored table files (the quota's bytes).\n"
        "# TYPE posenc_store_bytes gauge\nposenc_store_bytes %zu\n"
        "# HELP posenc_store_cache_bytes Bytes of table data kept in memory (table-cache-bytes).\n"
        "# TYPE posenc_store_cache_bytes gauge\nposenc_store_cache_bytes %zu\n"
        "# HELP posenc_store_cache_tables Tables kept in memory.\n"
        "# TYPE posenc_store_cache_tables gauge\nposenc_store_cache_tables %zu\n"
        "# HELP posenc_store_quota_refusals_total Table uploads refused with 507 (quota).\n"
        "# TYPE posenc_store_quota_refusals_total counter\n"
        "posenc_store_quota_refusals_total %zu\n",
        tables, bytes, cached, cached_n, refused);
    return append_text(b, len, t, n < (int)sizeof t ? n : -1);
}

/* Appends the compute pool's gauges and counter to the exposition b (len bytes); NULL (b freed)
 * when out of memory. */
static char *append_pool_metrics(srv_pool *pool, char *b, size_t *len)
{
    srv_pool_figures f;
    srv_pool_stats(pool, &f);
    char t[1024];
    int n = snprintf(
        t, sizeof t,
        "# HELP posenc_compute_queue_depth Compute requests waiting for a compute thread.\n"
        "# TYPE posenc_compute_queue_depth gauge\nposenc_compute_queue_depth %zu\n"
        "# HELP posenc_compute_queue_max The bound of the compute queue (max_queue_depth).\n"
        "# TYPE posenc_compute_queue_max gauge\nposenc_compute_queue_max %zu\n"
        "# HELP posenc_compute_busy_threads Compute threads running a request now.\n"
        "# TYPE posenc_compute_busy_threads gauge\nposenc_compute_busy_threads %u\n"
        "# HELP posenc_compute_longest_job_seconds How long the oldest running computation has "
        "run.\n# TYPE posenc_compute_longest_job_seconds gauge\n"
        "posenc_compute_longest_job_seconds %.3f\n"
        "# HELP posenc_compute_queue_full_total Requests refused with 503 overloaded because the "
        "compute queue was full.\n# TYPE posenc_compute_queue_full_total counter\n"
        "posenc_compute_queue_full_total %llu\n",
        f.depth, f.max_depth, f.busy, f.longest_job_seconds, f.refused);
    return append_text(b, len, t, n < (int)sizeof t ? n : -1);
}

/* Appends the spool of binary tensors (server/spool.c): bytes now, the peak, quota, refusals. */
static char *append_spool_metrics(srv_ctx *ctx, char *b, size_t *len)
{
    char t[900];
    int n = snprintf(
        t, sizeof t,
        "# HELP posenc_spool_bytes Bytes of binary tensors reserved in the spool now.\n"
        "# TYPE posenc_spool_bytes gauge\nposenc_spool_bytes %llu\n"
        "# HELP posenc_spool_peak_bytes The most bytes the spool has held since start.\n"
        "# TYPE posenc_spool_peak_bytes gauge\nposenc_spool_peak_bytes %llu\n"
        "# HELP posenc_spool_quota_bytes The spool's bound (spool-quota).\n"
        "# TYPE posenc_spool_quota_bytes gauge\nposenc_spool_quota_bytes %zu\n"
        "# HELP posenc_spool_refusals_total Binary requests refused with 507 (spool quota).\n"
        "# TYPE posenc_spool_refusals_total counter\nposenc_spool_refusals_total %llu\n",
        (unsigned long long)atomic_load(&ctx->spool_used),
        (unsigned long long)atomic_load(&ctx->spool_peak), ctx->cfg->spool_quota,
        (unsigned long long)atomic_load(&ctx->spool_refused));
    return append_text(b, len, t, n < (int)sizeof t ? n : -1);
}

enum MHD_Result srv_get_metrics(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    size_t len = 0;
    char *b = srv_metrics_render(ctx->metrics, ctx->api.cache, &ctx->budget, &len);
    if (b != NULL && ctx->pool != NULL)
        b = append_pool_metrics(ctx->pool, b, &len);
    if (b != NULL && ctx->store != NULL)
        b = append_store_metrics(ctx->store, b, &len);
    if (b != NULL)
        b = append_spool_metrics(ctx, b, &len);
    if (b == NULL)
        return srv_send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
    return srv_send_buffer(ctx, c, rq, 200, "text/plain; version=0.0.4; charset=utf-8", b, len);
}

enum MHD_Result srv_get_spec(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (ctx->spec == NULL)
        return srv_send_problem(ctx, c, rq, API_PB_NOT_FOUND, "openapi.yaml is not available",
                                NULL);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(ctx->spec_len, ctx->spec, MHD_RESPMEM_PERSISTENT);
    rq->resp_bytes = ctx->spec_len;
    return srv_send_resp(ctx, c, rq, 200, resp, "application/yaml");
}
