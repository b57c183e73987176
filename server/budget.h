/*
 * server/budget.h -- the daemon-wide budget for request bodies held in memory (the limit
 * max_inflight_bytes). max_body_bytes bounds one request's body buffer; this bounds their sum, so
 * many connections each holding a large body cannot exhaust memory between them.
 *
 * Each request keeps its own reservation (a size_t it owns) and moves it with srv_budget_hold: up
 * as its body arrives, down when the memory is freed. server/upload.c reserves a buffered body's
 * buffer capacity before each growth (doubling: at most twice what has arrived), and a streamed
 * .safetensors upload the bytes its parser has stored (the header's bytes, then 8 per decoded
 * number; wire_st_set_hold), although that parser allocates both buffers at their full size: a
 * page costs memory only once written. A declared length is only checked (srv_budget_fits). A
 * reservation that would pass the maximum is refused and leaves everything as it was; the request
 * is then answered 503 overloaded. Lock-free: one atomic
 * counter, updated with compare-and-swap; any thread may hold, release and read at any time.
 */
#ifndef SRV_BUDGET_H
#define SRV_BUDGET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Storage is the caller's (srv_ctx embeds one); srv_budget_init before use. */
typedef struct {
    size_t max;                   /* max_inflight_bytes */
    atomic_size_t used;           /* bytes reserved by all requests now */
    atomic_uint_fast64_t refused; /* 503 overloaded responses sent (srv_budget_note_refused) */
    atomic_uint_fast64_t slow;    /* bodies cut off below --min-upload-rate (408) */
} srv_budget;

/* Sets the maximum to max bytes and zeroes the counters. */
void srv_budget_init(srv_budget *b, size_t max);

/*
 * Moves one holder's reservation from *held to want bytes. Shrinking (want <= *held) always
 * succeeds. Growing reserves want - *held more and succeeds only while the total stays <= max.
 * Returns 0 with *held = want, or -1 (nothing changed; *seen, when not NULL, receives the total
 * that was reserved when the request was refused).
 */
int srv_budget_hold(srv_budget *b, size_t *held, size_t want, size_t *seen);

/* Checks, without reserving anything, that `more` bytes would fit now: 0, or -1 with *seen (when
 * not NULL) = the bytes reserved then. A later srv_budget_hold may still be refused. */
int srv_budget_fits(const srv_budget *b, size_t more, size_t *seen);

/* The bytes reserved now (a gauge; exact when no request is in flight). */
size_t srv_budget_used(const srv_budget *b);

/* Counts one 503 overloaded response; srv_budget_refused returns the count. */
void srv_budget_note_refused(srv_budget *b);
uint64_t srv_budget_refused(const srv_budget *b);
/* Counts one body refused for arriving too slowly (408); srv_budget_slow returns the count. */
void srv_budget_note_slow(srv_budget *b);
uint64_t srv_budget_slow(const srv_budget *b);

#endif
