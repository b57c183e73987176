/*
 * api/arena.c -- the per-request allocator behind jansson (arena.h).
 *
 * Chunks grow geometrically (16 KiB, doubling to 1 MiB; a larger request gets a chunk of its own
 * size), so a tree of N bytes takes O(log N + N / 1 MiB) mallocs and at most about twice N plus
 * one chunk of memory. Allocations are 16-byte aligned (jansson stores doubles and pointers).
 */
#include "api/arena.h"

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define CHUNK_MIN ((size_t)16 << 10)
#define CHUNK_MAX ((size_t)1 << 20)
#define ALIGN 16u

struct api_arena_chunk {
    struct api_arena_chunk *next;
    size_t size; /* bytes of data[] */
    size_t top;  /* bytes of data[] handed out */
    _Alignas(16) unsigned char data[];
};

static _Thread_local api_arena *current;

static size_t round_up(size_t n)
{
    return (n + (ALIGN - 1)) & ~(size_t)(ALIGN - 1);
}

/* A new chunk of at least need bytes, counted and capped; NULL with a->failure set. */
static struct api_arena_chunk *chunk_new(api_arena *a, size_t need)
{
    size_t size = a->chunks ? a->chunks->size * 2 : CHUNK_MIN;
    if (size > CHUNK_MAX)
        size = CHUNK_MAX;
    if (size < need)
        size = need;
    size_t total = sizeof(struct api_arena_chunk) + size;
    if (total < size || a->held > SIZE_MAX - total) {
        a->failure = API_ARENA_OVER_CAP;
        return NULL;
    }
    size_t want = a->held + total;
    if (a->cap != 0 && want > a->cap) {
        a->failure = API_ARENA_OVER_CAP;
        return NULL;
    }
    if (a->hold != NULL && a->hold(a->hold_cls, want) != 0) {
        a->failure = API_ARENA_REFUSED;
        return NULL;
    }
    struct api_arena_chunk *c = malloc(total);
    if (c == NULL) {
        if (a->hold != NULL)
            a->hold(a->hold_cls, a->held); /* give the reservation back */
        a->failure = API_ARENA_NO_MEMORY;
        return NULL;
    }
    a->held = want;
    c->size = size;
    c->top = 0;
    c->next = a->chunks;
    a->chunks = c;
    return c;
}

static void *arena_malloc(size_t n)
{
    api_arena *a = current;
    if (a == NULL)
        return malloc(n);
    size_t need = round_up(n ? n : 1);
    if (need < n)
        return NULL;
    struct api_arena_chunk *c = a->chunks;
    if (c == NULL || c->size - c->top < need) {
        c = chunk_new(a, need);
        if (c == NULL)
            return NULL;
    }
    void *p = c->data + c->top;
    c->top += need;
    a->used += need;
    return p;
}

/* 1 when p lies in one of a's chunks. */
static int owns(const api_arena *a, const void *p)
{
    uintptr_t q = (uintptr_t)p;
    for (const struct api_arena_chunk *c = a->chunks; c; c = c->next) {
        uintptr_t lo = (uintptr_t)c->data;
        if (q >= lo && q < lo + c->size)
            return 1;
    }
    return 0;
}

static void arena_free(void *p)
{
    if (p == NULL)
        return;
    for (const api_arena *a = current; a; a = a->prev) {
        if (owns(a, p))
            return; /* released with the arena */
    }
    free(p);
}

static void install_once(void)
{
    json_set_alloc_funcs(arena_malloc, arena_free);
}

void api_arena_install(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_once);
}

void api_arena_begin(api_arena *a, size_t cap, api_arena_hold_fn hold, void *cls)
{
    api_arena_install();
    a->chunks = NULL;
    a->held = 0;
    a->cap = cap;
    a->used = 0;
    a->failure = API_ARENA_OK;
    a->hold = hold;
    a->hold_cls = cls;
    a->prev = current;
    current = a;
}

void api_arena_end(api_arena *a)
{
    struct api_arena_chunk *c = a->chunks;
    while (c) {
        struct api_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = NULL;
    if (a->hold != NULL && a->held != 0)
        a->hold(a->hold_cls, 0);
    a->held = 0;
    if (current == a)
        current = a->prev;
}

api_arena_failure api_arena_failure_of(const api_arena *a)
{
    return a->failure;
}

size_t api_arena_used(const api_arena *a)
{
    return a->used;
}
