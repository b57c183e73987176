/* server/pool.c -- see pool.h. A mutex-protected FIFO list and a condition variable. */
#include "server/pool.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct job {
    srv_job_fn fn;
    void *arg;
    struct job *next;
} job;

struct srv_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job *head, *tail;
    int stopping;
    unsigned n;
    pthread_t *threads;
};

static void *worker(void *arg)
{
    srv_pool *p = arg;
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
        j->fn(j->arg);
        free(j);
    }
}

srv_pool *srv_pool_create(unsigned n)
{
    srv_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->threads = calloc(n ? n : 1, sizeof *p->threads);
    if (p->threads == NULL) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0)
            break;
        p->n++;
    }
    if (p->n == 0) {
        srv_pool_destroy(p);
        return NULL;
    }
    return p;
}

int srv_pool_submit(srv_pool *p, srv_job_fn fn, void *arg)
{
    job *j = malloc(sizeof *j);
    if (j == NULL)
        return -1;
    j->fn = fn;
    j->arg = arg;
    j->next = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->stopping) {
        pthread_mutex_unlock(&p->mu);
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
    free(p);
}
