/*
 * core/cache.h -- thread-safe, byte-bounded, refcounted cache of RoPE frequency tables.
 *
 * The server creates one pe_cache at startup and passes it down (no globals). A table holds,
 * for one complete RoPE configuration, inv_freq, attention_factor, softmax_scale_factor and the
 * cos/sin of position * inv_freq for positions 0 .. n_pos-1 -- exactly the numbers
 * pe_rope_inv_freq, pe_rope_softmax_scale_factor and pe_rope_cos_sin_range give (bit for bit).
 *
 * Design (docs/style.md#s15, after h2o's cache): entries are immutable once published and
 * refcounted; the mutex guards only the hash table, the LRU list and the counters; tables are built
 * outside the lock, and when two threads race to build the same table the loser frees its copy and
 * takes the published one. The position range grows on demand (see pe_cache_get). The cache is
 * bounded in bytes with least-recently-used eviction; an evicted or replaced entry that is still
 * held is freed by its last pe_cache_release.
 */
#ifndef PE_CACHE_H
#define PE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/pe.h"
#include "core/rope.h"

/* Granularity of table growth, in positions: a table is built for the requested number of
 * positions rounded up to a multiple of this (and at least twice the size it replaces), never
 * beyond the cache's caps. */
#define PE_CACHE_POS_CHUNK 256

/*
 * One frequency table (read-only for callers; never modified after pe_cache_get returns it).
 * n_freq = rotary_dim / 2. Row i of cos/sin is position i: cos[i*n_freq + j] =
 * cos(i * inv_freq[j]), no attention factor. n_pos may be smaller than the positions asked for
 * (see pe_cache_get); rows at or beyond n_pos must be computed by the caller, e.g. with
 * pe_rope_cos_sin / pe_rope_cos_sin_range on t->inv_freq.
 */
typedef struct pe_freq_table {
    size_t n_freq;               /* d/2 */
    double attention_factor;     /* pe_rope_inv_freq's *attention_factor */
    double softmax_scale_factor; /* pe_rope_softmax_scale_factor */
    pe_rope_info info;           /* pe_rope_inv_freq's info */
    const double *inv_freq;      /* [n_freq], rad per position */
    size_t n_pos;                /* rows held: positions 0 .. n_pos-1 */
    const double *cos;           /* [n_pos][n_freq] */
    const double *sin;           /* [n_pos][n_freq] */
} pe_freq_table;

/* Counters since creation (a consistent snapshot, read under the lock). */
typedef struct {
    uint64_t hits;      /* gets answered by a published entry with enough positions */
    uint64_t misses;    /* gets that had to build a table (absent, or too few positions) */
    uint64_t evictions; /* entries dropped by the byte bound (replacement by a grown table of the
                         * same configuration is not an eviction) */
    size_t bytes;       /* bytes of the entries now in the cache (held-but-evicted ones excluded) */
    size_t entries;     /* entries currently in the cache */
} pe_cache_counters;

typedef struct pe_cache pe_cache; /* opaque: layout private to core/cache.c */

/*
 * Creates an empty cache holding at most max_bytes bytes of entries (struct, key and numbers all
 * counted) and tables of at most max_table_positions positions. max_bytes 0 disables caching:
 * every get builds a private table with n_pos 0 that its release frees. Returns NULL when out of
 * memory or when the mutex cannot be created.
 */
pe_cache *pe_cache_create(size_t max_bytes, size_t max_table_positions);

/*
 * Frees the cache and every entry in it. Every table obtained from it must have been released
 * before (destroying a cache with tables still held is undefined). NULL is a no-op.
 */
void pe_cache_destroy(pe_cache *c);

/*
 * Returns the frequency table for p (which must pass pe_rope_params_check), holding at least
 * positions 0 .. min(need_positions, cap)-1, where cap = min(max_table_positions, the largest
 * number of positions whose table fits in max_bytes). A request needing more than cap gets a
 * table with n_pos == cap: the caller computes the remaining rows directly from t->inv_freq
 * (that is the contract whenever t->n_pos < need_positions). need_positions 0 asks for inv_freq
 * and the factors only.
 *
 * The key is the complete normalised configuration: every field that changes a number, with the
 * unused ones left out, so requests that compute identical numbers share an entry (dynamic is
 * keyed by the effective length max(seq_len, L0) -- and with seq_len <= L0 shares plain RoPE's
 * entry; longrope by the list selected by seq_len, not seq_len itself).
 *
 * A hit returns the published entry. A miss builds a table (outside the lock) for
 * need_positions rounded up to PE_CACHE_POS_CHUNK, at least doubling a smaller published table
 * of the same key, capped at cap; the new table replaces the smaller one. Publishing may evict
 * least-recently-used entries to stay within max_bytes.
 *
 * The returned table stays valid and unchanged until it is given back with pe_cache_release().
 * On failure returns NULL and sets *st: PE_ERR_ARG (p invalid), PE_ERR_NONFINITE (a number is
 * not finite), PE_ERR_OVERFLOW (table size overflows), PE_ERR_NOMEM. On success sets *st = PE_OK.
 * The cache is left unchanged by a failure (except the miss counter). Safe to call from any thread.
 */
const pe_freq_table *pe_cache_get(pe_cache *c, const pe_rope_params *p, size_t need_positions,
                                  pe_status *st);

/* Gives back a table returned by pe_cache_get on c (each get needs exactly one release). NULL is
 * a no-op. Safe to call from any thread. */
void pe_cache_release(pe_cache *c, const pe_freq_table *t);

/* Copies the counters into *out (a consistent snapshot). Safe to call from any thread. */
void pe_cache_stats(const pe_cache *c, pe_cache_counters *out);

#endif
