/*
 * server/metrics.h -- Prometheus text exposition (format 0.0.4) of request counters, a latency
 * histogram, the frequency-table cache counters and the request-body budget (budget.h). Lock-free:
 * every counter is an atomic; any thread may record while another renders.
 */
#ifndef SRV_METRICS_H
#define SRV_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "server/budget.h"

typedef struct pe_cache pe_cache;
typedef struct srv_metrics srv_metrics;

/* Counters for the route labels labels[0..n) (static strings, 1 <= n <= 32; the last one also
 * counts requests under any unknown label: server/routes.h srv_route_labels gives them). NULL
 * when out of memory or n is out of range. */
srv_metrics *srv_metrics_create(const char *const *labels, size_t n);
/* Frees m. */
void srv_metrics_destroy(srv_metrics *m);

/* Records one finished request: route label (NULL or unknown: the last label), HTTP status and
 * duration in seconds. */
void srv_metrics_record(srv_metrics *m, const char *route, int status, double seconds);

/* Renders all metrics (cache and budget may be NULL) into a malloc'd NUL-terminated string; NULL
 * on OOM. The budget gives posenc_inflight_body_bytes and posenc_overloaded_responses_total. */
char *srv_metrics_render(const srv_metrics *m, pe_cache *cache, const srv_budget *budget,
                         size_t *len);

#endif
