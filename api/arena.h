/*
 * api/arena.h -- where jansson's memory comes from while a request is parsed and handled.
 *
 * jansson's tree of a JSON body is 3-80 times the body (a json_t per value, a hashtable per
 * object), so counting request bodies alone does not bound the daemon's memory. An api_arena is a
 * per-request bump allocator that jansson uses, through its allocator hooks, on the thread that
 * made the arena current: every byte of the parse tree (and of any JSON the handler builds) is
 * counted, capped per request (max_parse_bytes) and, when the caller gives one, reported to an
 * accounting hook before it is taken. Everything is released at once when the
 * request ends, so jansson's many small malloc/free pairs cost nothing on the hot path.
 *
 * jansson's hooks are process-wide (json_set_alloc_funcs): api_arena_install sets them once; a
 * thread with no current arena gets plain malloc/free, so other users of jansson are unaffected.
 * A pointer freed while an arena is current is returned to malloc unless it lies in the arena.
 *
 * Thread safety: an arena belongs to the thread that made it current; any number of threads may
 * each have their own.
 */
#ifndef API_ARENA_H
#define API_ARENA_H

#include <stddef.h>

/* Accounting hook: bytes is the total the arena is about to hold (or holds after a release);
 * return 0 to allow it, -1 to refuse growth. A smaller total must always be accepted. */
typedef int (*api_arena_hold_fn)(void *cls, size_t bytes);

/* Why the last allocation failed (api_arena_failure). */
typedef enum {
    API_ARENA_OK = 0,
    API_ARENA_OVER_CAP,  /* the request's parsed form needs more than its cap (max_parse_bytes) */
    API_ARENA_REFUSED,   /* the hook refused: the daemon's budget is full (503 overloaded) */
    API_ARENA_NO_MEMORY, /* malloc failed (503 unavailable) */
} api_arena_failure;

struct api_arena_chunk;

/* One request's arena; the caller owns the storage. Fields are private. */
typedef struct api_arena {
    struct api_arena_chunk *chunks; /* newest first */
    size_t held;                    /* bytes of all chunks (what the hook was told) */
    size_t cap;                     /* 0 = no cap */
    size_t used;                    /* bytes handed out (a measure of the tree) */
    api_arena_failure failure;
    api_arena_hold_fn hold;
    void *hold_cls;
    struct api_arena *prev; /* the arena that was current before this one (nesting) */
} api_arena;

/* Installs jansson's allocator hooks (once per process; safe from any thread). */
void api_arena_install(void);

/* Makes a (zeroed here) the calling thread's current arena: cap bytes at most (0 = none), hold
 * (may be NULL) told of every growth. Nothing is allocated until jansson asks. */
void api_arena_begin(api_arena *a, size_t cap, api_arena_hold_fn hold, void *cls);

/* Frees every chunk, reports 0 to the hook and restores the previous current arena. Every json_t
 * allocated while a was current is freed with it, released or not (so a tree made only to be read
 * need not be json_decref'd: api/api.c does not), and must not be used afterwards. */
void api_arena_end(api_arena *a);

/* The reason the arena last refused memory (API_ARENA_OK when it never did). */
api_arena_failure api_arena_failure_of(const api_arena *a);

/* Bytes handed out so far. */
size_t api_arena_used(const api_arena *a);

#endif
