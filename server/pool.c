/* server/pool.c -- see pool.h. A mutex-protected FIFO list and a condition variable; the queue
 * depth is an atomic counter reserved before a job is queued; each thread keeps a heartbeat (the
 * start of its current job). */
#include "server/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Compute threads run at this nice value (Linux: setpriority on a thread id sets that thread's),
 * so that when the CPUs are busy computing, an HTTP thread that wakes for /healthz, a header or
 * a streamed body runs first: with 2 CPUs, 2 compute threads parsing 16 MiB bodies and 8 table
 * uploads, /healthz stays fast (docs/operations.md). Only the share of CPU between the daemon's own
 * threads changes while both want it; an idle HTTP pool leaves every CPU to computations. */
#define SRV_COMPUTE_NICE 10

typedef struct job {
    srv_job_fn fn;
    void *arg;
    struct job *next;
} job;

typedef struct {
    srv_pool *p;
    atomic_llong busy_since_ms; /* CLOCK_MONOTONIC ms when the current job started; 0 idle */
} slot;

struct srv_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job *head, *tail;
    int stopping;
    unsigned n;
    size_t max_depth;
    atomic_size_t depth;   /* reserved: queued jobs and reservations not yet queued */
    atomic_ullong refused; /* reservations refused (queue full) */
    pthread_t *threads;
    slot *slots;
};

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *worker(void *arg)
{
    slot *s = arg;
    srv_pool *p = s->p;
    /* failure (a seccomp filter, say) only loses the preference */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), SRV_COMPUTE_NICE);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->head == NULL && !p->stopping)
            pthread_cond_wait(&p->cv, &p->mu);
        job *j = p->head;
        if (j == NULL) { /* stopping and drained */
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        p->head = j->next;
        if (p->head == NULL)
            p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        atomic_fetch_sub(&p->depth, 1);
        atomic_store(&s->busy_since_ms, now_ms());
        j->fn(j->arg);
        atomic_store(&s->busy_since_ms, 0);
        free(j);
    }
}

srv_pool *srv_pool_create(unsigned n, size_t max_depth)
{
    srv_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->threads = calloc(n ? n : 1, sizeof *p->threads);
    p->slots = calloc(n ? n : 1, sizeof *p->slots);
    if (p->threads == NULL || p->slots == NULL) {
        free(p->threads);
        free(p->slots);
        free(p);
        return NULL;
    }
    p->max_depth = max_depth;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    for (unsigned i = 0; i < n; i++) {
        p->slots[i].p = p;
        if (pthread_create(&p->threads[i], NULL, worker, &p->slots[i]) != 0)
            break;
        p->n++;
    }
    if (p->n == 0) {
        srv_pool_destroy(p);
        return NULL;
    }
    return p;
}

int srv_pool_reserve(srv_pool *p)
{
    size_t d = atomic_load(&p->depth);
    do {
        if (d >= p->max_depth) {
            atomic_fetch_add(&p->refused, 1);
            return -1;
        }
    } while (!atomic_compare_exchange_weak(&p->depth, &d, d + 1));
    return 0;
}

int srv_pool_submit(srv_pool *p, srv_job_fn fn, void *arg)
{
    job *j = malloc(sizeof *j);
    if (j == NULL) {
        atomic_fetch_sub(&p->depth, 1);
        return -1;
    }
    j->fn = fn;
    j->arg = arg;
    j->next = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->stopping) {
        pthread_mutex_unlock(&p->mu);
        atomic_fetch_sub(&p->depth, 1);
        free(j);
        return -1;
    }
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

void srv_pool_stats(srv_pool *p, srv_pool_figures *f)
{
    long long now = now_ms(), longest = 0;
    f->busy = 0;
    for (unsigned i = 0; i < p->n; i++) {
        long long since = atomic_load(&p->slots[i].busy_since_ms);
        if (since == 0)
            continue;
        f->busy++;
        if (now - since > longest)
            longest = now - since;
    }
    f->threads = p->n;
    f->depth = atomic_load(&p->depth);
    f->max_depth = p->max_depth;
    f->refused = atomic_load(&p->refused);
    f->longest_job_seconds = (double)longest / 1e3;
}

void srv_pool_stop(srv_pool *p)
{
    pthread_mutex_lock(&p->mu);
    int was = p->stopping;
    p->stopping = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (was)
        return;
    for (unsigned i = 0; i < p->n; i++)
        pthread_join(p->threads[i], NULL);
}

void srv_pool_destroy(srv_pool *p)
{
    if (p == NULL)
        return;
    srv_pool_stop(p);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->threads);
    free(p->slots);
    free(p);
}
