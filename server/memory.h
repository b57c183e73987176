/*
 * server/memory.h -- the daemon's memory ceiling: an upper bound of its resident memory (VmRSS, and
 * so its high-water mark VmHWM) as a function of its settings. docs/operations.md ("Memory
 * ceiling") explains each term from the code; GET /limits serves the terms and their sum, and
 * tests/hostile/memory.py drives a daemon at its limits and checks VmHWM against the sum.
 */
#ifndef SRV_MEMORY_H
#define SRV_MEMORY_H

#include <stdint.h>

#include "server/config.h"

/* The terms of the ceiling, bytes. T = HTTP threads (at least 2), K = compute threads. */
typedef struct {
    uint64_t base;        /* B: the daemon at rest (code, libraries, stacks as used, metrics) */
    uint64_t connections; /* C: connection_limit x (connection_memory + an unreserved response
                           * + per-connection state) */
    uint64_t inflight;    /* I: max_inflight_bytes + T x max_body_bytes / 2 (a body's realloc) */
    uint64_t parse;       /* P: K x max_parse_bytes (one JSON tree per computing thread) */
    uint64_t work;        /* W: K x (max_parse_bytes / 4 + 24 x max_output_elements +
                           * max_body_bytes) (a job's own arrays) */
    uint64_t tables;      /* S: table_cache_bytes + (T + K) x 3/2 x max_table_bytes */
    uint64_t freq_cache;  /* F: (1 + K) x cache_bytes */
    uint64_t total;       /* the sum */
} srv_memory_terms;

/* Bytes per connection besides connection_memory: a response below SRV_RESPONSE_HOLD_MIN (not
 * reserved in the budget) and the connection's state (MHD's and ours). */
#define SRV_MEMORY_PER_CONNECTION ((uint64_t)72 << 10)
/* B: measured at 6 MiB of VmHWM for an idle daemon just started (Debian 12, x86-64). */
#define SRV_MEMORY_BASE ((uint64_t)16 << 20)

/* Fills *t from cfg (threads and compute_threads as resolved by srv_config_load). */
void srv_memory_ceiling(const srv_config *cfg, srv_memory_terms *t);

#endif
