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

/* Starts n threads (n >= 1). NULL on failure. */
srv_pool *srv_pool_create(unsigned n);

/* Queues fn(arg). Returns 0, or -1 when the pool is stopping or out of memory (the caller then
 * runs the job itself). Thread-safe. */
int srv_pool_submit(srv_pool *p, srv_job_fn fn, void *arg);

/* Refuses new jobs from now on, runs every queued job to its end and joins the threads. The pool
 * stays valid (srv_pool_submit then returns -1) until srv_pool_destroy. Idempotent. */
void srv_pool_stop(srv_pool *p);

/* srv_pool_stop, then frees the pool. p may be NULL. */
void srv_pool_destroy(srv_pool *p);

#endif
