/* server/metrics.c -- see metrics.h. Exposition rules: prometheus.io "Exposition formats". */
#include "server/metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache.h"

#define MAX_ROUTES 32
static const int STATUSES[] = {200, 201, 204, 304, 400, 404, 405,
                               409, 413, 415, 422, 431, 500, 503};
#define N_STATUS (sizeof STATUSES / sizeof STATUSES[0])
/* Latency bucket upper bounds, seconds. */
static const double BUCKETS[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                 0.1,    0.25,  0.5,    1.0,   2.5,  5.0,   10.0};
#define N_BUCKETS (sizeof BUCKETS / sizeof BUCKETS[0])

struct srv_metrics {
    const char *routes[MAX_ROUTES];
    size_t n_routes;
    atomic_uint_fast64_t requests[MAX_ROUTES][N_STATUS + 1]; /* last column: other statuses */
    atomic_uint_fast64_t buckets[MAX_ROUTES][N_BUCKETS];     /* non-cumulative counts */
    atomic_uint_fast64_t count[MAX_ROUTES];
    atomic_uint_fast64_t sum_us[MAX_ROUTES]; /* total microseconds */
};

srv_metrics *srv_metrics_create(const char *const *labels, size_t n)
{
    if (n == 0 || n > MAX_ROUTES)
        return NULL;
    srv_metrics *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        m->routes[i] = labels[i];
    m->n_routes = n;
    return m;
}

void srv_metrics_destroy(srv_metrics *m)
{
    free(m);
}

static size_t route_index(const srv_metrics *m, const char *route)
{
    if (route) {
        for (size_t i = 0; i < m->n_routes; i++) {
            if (strcmp(m->routes[i], route) == 0)
                return i;
        }
    }
    return m->n_routes - 1; /* the fallback label, "other" */
}

void srv_metrics_record(srv_metrics *m, const char *route, int status, double seconds)
{
    size_t r = route_index(m, route);
    size_t s = N_STATUS;
    for (size_t i = 0; i < N_STATUS; i++) {
        if (STATUSES[i] == status)
            s = i;
    }
    atomic_fetch_add_explicit(&m->requests[r][s], 1, memory_order_relaxed);
    size_t b = 0;
    while (b < N_BUCKETS && seconds > BUCKETS[b])
        b++;
    if (b < N_BUCKETS)
        atomic_fetch_add_explicit(&m->buckets[r][b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->count[r], 1, memory_order_relaxed);
    double us = seconds * 1e6;
    atomic_fetch_add_explicit(&m->sum_us[r], us > 0 ? (uint_fast64_t)us : 0, memory_order_relaxed);
}

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t ncap = b->cap * 2 + (size_t)n;
        char *nb = realloc(b->buf, ncap);
        if (nb == NULL) {
            b->failed = 1;
            return;
        }
        b->buf = nb;
        b->cap = ncap;
    }
}

char *srv_metrics_render(const srv_metrics *m, pe_cache *cache, const srv_budget *budget,
                         size_t *len)
{
    sbuf b = {malloc(16384), 0, 16384, 0};
    if (b.buf == NULL)
        return NULL;
    b.buf[0] = '\0';
    sb_printf(&b, "# HELP posenc_http_requests_total HTTP requests by route and status.\n"
                  "# TYPE posenc_http_requests_total counter\n");
    for (size_t r = 0; r < m->n_routes; r++) {
        for (size_t s = 0; s <= N_STATUS; s++) {
            uint64_t v = atomic_load_explicit(&m->requests[r][s], memory_order_relaxed);
            if (v == 0)
                continue;
            if (s < N_STATUS)
                sb_printf(&b, "posenc_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
                          m->routes[r], STATUSES[s], (unsigned long long)v);
            else
                sb_printf(&b, "posenc_http_requests_total{route=\"%s\",status=\"other\"} %llu\n",
                          m->routes[r], (unsigned long long)v);
        }
    }
    sb_printf(&b, "# HELP posenc_http_request_duration_seconds Time from first byte to response.\n"
                  "# TYPE posenc_http_request_duration_seconds histogram\n");
    for (size_t r = 0; r < m->n_routes; r++) {
        uint64_t cnt = atomic_load_explicit(&m->count[r], memory_order_relaxed);
        if (cnt == 0)
            continue;
        uint64_t cum = 0;
        for (size_t k = 0; k < N_BUCKETS; k++) {
            cum += atomic_load_explicit(&m->buckets[r][k], memory_order_relaxed);
            sb_printf(&b,
                      "posenc_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
                      m->routes[r], BUCKETS[k], (unsigned long long)cum);
        }
        sb_printf(&b,
                  "posenc_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n",
                  m->routes[r], (unsigned long long)cnt);
        sb_printf(&b, "posenc_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n", m->routes[r],
                  (double)atomic_load_explicit(&m->sum_us[r], memory_order_relaxed) / 1e6);
        sb_printf(&b, "posenc_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
                  m->routes[r], (unsigned long long)cnt);
    }
    if (cache != NULL) {
        pe_cache_counters c;
        pe_cache_stats(cache, &c);
        sb_printf(
            &b,
            "# HELP posenc_cache_hits_total Frequency-table cache lookups served from the cache.\n"
            "# TYPE posenc_cache_hits_total counter\nposenc_cache_hits_total %llu\n"
            "# HELP posenc_cache_misses_total Frequency-table cache lookups that built a table.\n"
            "# TYPE posenc_cache_misses_total counter\nposenc_cache_misses_total %llu\n"
            "# HELP posenc_cache_evictions_total Tables evicted to stay within the byte bound.\n"
            "# TYPE posenc_cache_evictions_total counter\nposenc_cache_evictions_total %llu\n"
            "# HELP posenc_cache_bytes Bytes held by cached tables.\n"
            "# TYPE posenc_cache_bytes gauge\nposenc_cache_bytes %llu\n"
            "# HELP posenc_cache_entries Cached tables.\n"
            "# TYPE posenc_cache_entries gauge\nposenc_cache_entries %llu\n",
            (unsigned long long)c.hits, (unsigned long long)c.misses,
            (unsigned long long)c.evictions, (unsigned long long)c.bytes,
            (unsigned long long)c.entries);
    }
    if (budget != NULL)
        sb_printf(&b,
                  "# HELP posenc_inflight_body_bytes Bytes of request bodies held in memory now "
                  "(bounded by max_inflight_bytes).\n"
                  "# TYPE posenc_inflight_body_bytes gauge\nposenc_inflight_body_bytes %llu\n"
                  "# HELP posenc_overloaded_responses_total Requests refused with 503 overloaded "
                  "(their body would have passed max_inflight_bytes).\n"
                  "# TYPE posenc_overloaded_responses_total counter\n"
                  "posenc_overloaded_responses_total %llu\n"
                  "# HELP posenc_slow_uploads_total Request bodies cut off with 408 because they "
                  "arrived slower than min_upload_rate.\n"
                  "# TYPE posenc_slow_uploads_total counter\n"
                  "posenc_slow_uploads_total %llu\n",
                  (unsigned long long)srv_budget_used(budget),
                  (unsigned long long)srv_budget_refused(budget),
                  (unsigned long long)srv_budget_slow(budget));
    if (b.failed) {
        free(b.buf);
        return NULL;
    }
    *len = b.len;
    return b.buf;
}
