/*
 * server/pool.h -- a fixed pool of compute threads. The HTTP worker threads hand every compute
 * request to it (with the connection suspended), so a long computation never holds an HTTP thread:
 * /healthz, /readyz and the other connections of that thread keep being served.
 */
#ifndef SRV_POOL_H
#define SRV_POOL_H

#include <stddef.h>

typedef struct srv_pool srv_pool;

/* A job: fn(arg) runs on a pool thread. */
typedef void (*srv_job_fn)(void *arg);

/* Starts n threads (n >= 1) whose queue holds at most max_depth jobs not yet started. NULL on
 * failure. */
srv_pool *srv_pool_create(unsigned n, size_t max_depth);

/* Reserves a place in the queue: 0, or -1 when max_depth jobs already wait (counted in refused;
 * answer 503 overloaded). Every 0 must be followed by one srv_pool_submit. Thread-safe. */
int srv_pool_reserve(srv_pool *p);

/* Queues fn(arg) in the place reserved by srv_pool_reserve. Returns 0, or -1 when the pool is
 * stopping or out of memory (the reservation is given back; the caller then runs the job
 * itself). Thread-safe. */
int srv_pool_submit(srv_pool *p, srv_job_fn fn, void *arg);

/* What the pool is doing now (for /healthz and /metrics). */
typedef struct {
    unsigned threads, busy;     /* compute threads; those running a job now */
    size_t depth, max_depth;    /* jobs waiting (reserved or queued, not started); the bound */
    unsigned long long refused; /* reservations refused since start (queue full) */
    double longest_job_seconds; /* how long the oldest running job has run (0: none runs); each
                                 * thread's heartbeat is the start of its current job */
} srv_pool_figures;

/* Fills f. Thread-safe, lock-free. */
void srv_pool_stats(srv_pool *p, srv_pool_figures *f);

/* Refuses new jobs from now on, runs every queued job to its end and joins the threads. The pool
 * stays valid (srv_pool_submit then returns -1) until srv_pool_destroy. Idempotent. */
void srv_pool_stop(srv_pool *p);

/* srv_pool_stop, then frees the pool. p may be NULL. */
void srv_pool_destroy(srv_pool *p);

#endif
