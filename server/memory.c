/* server/memory.c -- see memory.h; the terms are explained in docs/operations.md. */
#include "server/memory.h"

void srv_memory_ceiling(const srv_config *cfg, srv_memory_terms *t)
{
    const api_limits *l = &cfg->lim;
    uint64_t threads = cfg->threads < 2 ? 2 : cfg->threads; /* as srv_http_start */
    uint64_t compute = cfg->compute_threads < 1 ? 1 : cfg->compute_threads;
    t->base = SRV_MEMORY_BASE;
    t->connections = (uint64_t)cfg->connection_limit *
                     ((uint64_t)cfg->connection_memory + SRV_MEMORY_PER_CONNECTION);
    t->inflight = (uint64_t)l->max_inflight_bytes + threads * ((uint64_t)l->max_body_bytes / 2);
    t->parse = compute * (uint64_t)l->max_parse_bytes;
    t->work = compute * ((uint64_t)l->max_parse_bytes / 4 + 24 * (uint64_t)l->max_output_elements +
                         (uint64_t)l->max_body_bytes);
    t->tables = (uint64_t)cfg->table_cache_bytes +
                (threads + compute) * ((uint64_t)l->max_table_bytes / 2 * 3);
    t->freq_cache = (1 + compute) * (uint64_t)cfg->cache_bytes;
    t->total =
        t->base + t->connections + t->inflight + t->parse + t->work + t->tables + t->freq_cache;
}
