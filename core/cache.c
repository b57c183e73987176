/*
 * core/cache.c -- the frequency-table cache (see cache.h for the contract).
 *
 * Layout of one entry: a single allocation holding the cache_entry header (public table first),
 * then the doubles inv_freq[n] | cos[n_pos][n] | sin[n_pos][n], then the key bytes.
 * Index: a chained hash table (FNV-1a of the key, power-of-two buckets, doubled when the load
 * passes 1) plus a doubly linked LRU list (head = most recently used).
 * Locking: one pthread mutex around the index, the LRU list, the refcounts and the counters.
 * Numbers are computed with no lock held.
 */
#include "core/cache.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct cache_entry {
    pe_freq_table t;           /* first member: a pe_freq_table * converts back to the entry */
    struct cache_entry *hnext; /* hash chain (reused as the to-free list once unlinked) */
    struct cache_entry *lprev; /* LRU neighbours */
    struct cache_entry *lnext;
    uint64_t hash;
    size_t refs;  /* outstanding pe_cache_get references */
    int in_table; /* 1 while published in the index */
    size_t bytes; /* size of the whole allocation */
    size_t key_len;
    const unsigned char *key; /* key_len bytes inside the same allocation */
    double data[];            /* inv_freq, cos, sin */
} cache_entry;

struct pe_cache {
    pthread_mutex_t mu;
    size_t max_bytes;
    size_t max_table_positions;
    cache_entry **buckets;
    size_t n_buckets; /* power of two */
    cache_entry *lru_head, *lru_tail;
    pe_cache_counters ctr;
};

#define INITIAL_BUCKETS 64
#define KEY_STACK_BYTES 512
#define NOT_CACHEABLE ((size_t)-1) /* positions_cap: not even an n_pos = 0 entry fits */

/* ---- keys ---------------------------------------------------------------------------------- */

/* Appends to buf while it fits; len always advances, so one pass with cap 0 measures the key. */
typedef struct {
    unsigned char *buf;
    size_t cap;
    size_t len;
} key_writer;

static void kw_bytes(key_writer *w, const void *src, size_t n)
{
    if (w->buf != NULL && w->len + n <= w->cap)
        memcpy(w->buf + w->len, src, n);
    w->len += n;
}

static void kw_u64(key_writer *w, uint64_t v)
{
    kw_bytes(w, &v, sizeof v);
}

static void kw_f64(key_writer *w, double v)
{
    if (v == 0.0)
        v = 0.0; /* -0 and +0 compute the same numbers */
    kw_bytes(w, &v, sizeof v);
}

static void kw_list(key_writer *w, const double *xs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        kw_f64(w, xs[i]);
}

enum { KEY_EXPLICIT = 100 };

/*
 * Serialises everything of p that changes a number into w, leaving unused fields out so that
 * configurations computing identical numbers give identical keys. p must pass the check.
 */
static void key_write(key_writer *w, const pe_rope_params *p)
{
    size_t d = p->rotary_dim;
    size_t n = d / 2;
    double l0 = p->original_max_position_embeddings;

    if (p->inv_freq != NULL) {
        kw_u64(w, KEY_EXPLICIT);
        kw_u64(w, d);
        kw_list(w, p->inv_freq, n);
        return;
    }
    pe_rope_type type = p->type;
    if (type == PE_ROPE_DYNAMIC && !((double)p->seq_len > l0))
        type = PE_ROPE_DEFAULT; /* L' = L0: pe_rope_inv_freq returns plain RoPE exactly */
    kw_u64(w, (uint64_t)type);
    kw_u64(w, d);
    kw_f64(w, p->base);
    switch (type) {
    case PE_ROPE_DEFAULT:
        break;
    case PE_ROPE_LINEAR:
        kw_f64(w, p->factor);
        break;
    case PE_ROPE_DYNAMIC:
        kw_f64(w, p->factor);
        kw_f64(w, l0);
        kw_f64(w, (double)p->seq_len); /* the effective L' = max(seq_len, L0) = seq_len here */
        break;
    case PE_ROPE_YARN: {
        int mscale_used = p->has_mscale && p->has_mscale_all_dim && p->mscale != 0.0 &&
                          p->mscale_all_dim != 0.0 && !p->has_attention_factor;
        int msad_used = p->has_mscale_all_dim && p->mscale_all_dim != 0.0;
        kw_f64(w, p->factor);
        kw_f64(w, l0);
        kw_f64(w, p->beta_fast != 0.0 ? p->beta_fast : 32.0);
        kw_f64(w, p->beta_slow != 0.0 ? p->beta_slow : 1.0);
        kw_u64(w, p->truncate ? 1 : 0);
        kw_u64(w, p->has_attention_factor ? 1 : 0);
        kw_f64(w, p->has_attention_factor ? p->attention_factor : 0.0);
        kw_f64(w, mscale_used ? p->mscale : 0.0);
        kw_f64(w, msad_used ? p->mscale_all_dim : 0.0);
        break;
    }
    case PE_ROPE_LONGROPE: {
        int use_long = (double)p->seq_len > l0;
        /* With an explicit attention factor, factor and L0 only chose the list (encoded). */
        kw_u64(w, p->has_attention_factor ? 1 : 0);
        kw_f64(w, p->has_attention_factor ? p->attention_factor : 0.0);
        kw_f64(w, p->has_attention_factor ? 0.0 : p->factor);
        kw_f64(w, p->has_attention_factor ? 0.0 : l0);
        kw_u64(w, use_long ? 1 : 0);
        kw_list(w, use_long ? p->long_factor : p->short_factor, n);
        break;
    }
    case PE_ROPE_LLAMA3:
        kw_f64(w, p->factor);
        kw_f64(w, l0);
        kw_f64(w, p->low_freq_factor);
        kw_f64(w, p->high_freq_factor);
        break;
    case PE_ROPE_NTK:
        kw_f64(w, p->alpha);
        break;
    case PE_ROPE_PROPORTIONAL:
        kw_f64(w, p->factor);
        kw_f64(w, p->proportion);
        break;
    }
}

static uint64_t fnv1a(const unsigned char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* ---- sizes --------------------------------------------------------------------------------- */

/* Bytes of an entry with n frequencies, n_pos positions and a key_len-byte key; 0 on overflow. */
static size_t entry_bytes(size_t n, size_t n_pos, size_t key_len)
{
    size_t cells, doubles, total;
    if (!pe_mul_ok(n_pos, n, &cells) || !pe_mul_ok(cells, 2, &cells))
        return 0;
    doubles = cells + n;
    if (doubles < cells || !pe_mul_ok(doubles, sizeof(double), &total))
        return 0;
    size_t fixed = sizeof(cache_entry) + key_len;
    if (total > (size_t)-1 - fixed)
        return 0;
    return total + fixed;
}

/* Largest n_pos whose entry fits in max_bytes (capped by max_table_positions), or NOT_CACHEABLE
 * when not even the n_pos = 0 entry fits. */
static size_t positions_cap(const pe_cache *c, size_t n, size_t key_len)
{
    size_t fixed = entry_bytes(n, 0, key_len);
    if (fixed == 0 || fixed > c->max_bytes)
        return NOT_CACHEABLE;
    size_t per_pos;
    if (!pe_mul_ok(n, 2 * sizeof(double), &per_pos))
        return 0; /* rows cannot even be addressed: inv_freq only */
    size_t fit = (c->max_bytes - fixed) / per_pos;
    return fit < c->max_table_positions ? fit : c->max_table_positions;
}

/* ---- index (all called with the lock held) ------------------------------------------------- */

static cache_entry *index_find(const pe_cache *c, uint64_t h, const unsigned char *key, size_t len)
{
    for (cache_entry *e = c->buckets[h & (c->n_buckets - 1)]; e != NULL; e = e->hnext)
        if (e->hash == h && e->key_len == len && memcmp(e->key, key, len) == 0)
            return e;
    return NULL;
}

static void lru_unlink(pe_cache *c, cache_entry *e)
{
    if (e->lprev != NULL)
        e->lprev->lnext = e->lnext;
    else
        c->lru_head = e->lnext;
    if (e->lnext != NULL)
        e->lnext->lprev = e->lprev;
    else
        c->lru_tail = e->lprev;
    e->lprev = e->lnext = NULL;
}

static void lru_push_front(pe_cache *c, cache_entry *e)
{
    e->lprev = NULL;
    e->lnext = c->lru_head;
    if (c->lru_head != NULL)
        c->lru_head->lprev = e;
    c->lru_head = e;
    if (c->lru_tail == NULL)
        c->lru_tail = e;
}

static void index_grow(pe_cache *c)
{
    size_t nb = c->n_buckets * 2;
    if (nb < c->n_buckets || nb > (size_t)-1 / sizeof(cache_entry *))
        return;
    cache_entry **b = calloc(nb, sizeof *b);
    if (b == NULL)
        return; /* keep the longer chains; still correct */
    for (size_t i = 0; i < c->n_buckets; i++) {
        cache_entry *e = c->buckets[i];
        while (e != NULL) {
            cache_entry *next = e->hnext;
            size_t k = e->hash & (nb - 1);
            e->hnext = b[k];
            b[k] = e;
            e = next;
        }
    }
    free(c->buckets);
    c->buckets = b;
    c->n_buckets = nb;
}

static void index_insert(pe_cache *c, cache_entry *e)
{
    if (c->ctr.entries + 1 > c->n_buckets)
        index_grow(c);
    size_t k = e->hash & (c->n_buckets - 1);
    e->hnext = c->buckets[k];
    c->buckets[k] = e;
    lru_push_front(c, e);
    e->in_table = 1;
    c->ctr.entries++;
    c->ctr.bytes += e->bytes;
}

/* Removes e from the index and the LRU list; returns 1 when nobody holds it (caller frees). */
static int index_remove(pe_cache *c, cache_entry *e)
{
    cache_entry **pp = &c->buckets[e->hash & (c->n_buckets - 1)];
    while (*pp != e)
        pp = &(*pp)->hnext;
    *pp = e->hnext;
    e->hnext = NULL;
    lru_unlink(c, e);
    e->in_table = 0;
    c->ctr.entries--;
    c->ctr.bytes -= e->bytes;
    return e->refs == 0;
}

/* Hands out one more reference to a published entry and marks it most recently used. */
static void take_ref(pe_cache *c, cache_entry *e)
{
    e->refs++;
    lru_unlink(c, e);
    lru_push_front(c, e);
}

/* ---- building ------------------------------------------------------------------------------ */

/* Builds an unpublished entry (refs 1) outside the lock. */
static cache_entry *entry_build(const pe_rope_params *p, const unsigned char *key, size_t key_len,
                                uint64_t h, size_t n_pos, pe_status *st)
{
    size_t n = p->rotary_dim / 2;
    size_t bytes = entry_bytes(n, n_pos, key_len);
    if (bytes == 0) {
        *st = PE_ERR_OVERFLOW;
        return NULL;
    }
    cache_entry *e = malloc(bytes);
    if (e == NULL) {
        *st = PE_ERR_NOMEM;
        return NULL;
    }
    memset(e, 0, sizeof *e);
    double *inv = e->data;
    double *cs = inv + n;
    double *sn = cs + n_pos * n;
    unsigned char *kb = (unsigned char *)(sn + n_pos * n);
    double att;
    pe_rope_info info;
    pe_status s = pe_rope_inv_freq(p, inv, &att, &info);
    if (s != PE_OK) {
        free(e);
        *st = s;
        return NULL;
    }
    pe_rope_cos_sin_range(inv, n, 0, n_pos, cs, sn);
    memcpy(kb, key, key_len);
    e->t.n_freq = n;
    e->t.attention_factor = att;
    e->t.softmax_scale_factor = pe_rope_softmax_scale_factor(p);
    e->t.info = info;
    e->t.inv_freq = inv;
    e->t.n_pos = n_pos;
    e->t.cos = cs;
    e->t.sin = sn;
    e->hash = h;
    e->refs = 1;
    e->bytes = bytes;
    e->key_len = key_len;
    e->key = kb;
    *st = PE_OK;
    return e;
}

/* ---- public -------------------------------------------------------------------------------- */

pe_cache *pe_cache_create(size_t max_bytes, size_t max_table_positions)
{
    pe_cache *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->buckets = calloc(INITIAL_BUCKETS, sizeof *c->buckets);
    if (c->buckets == NULL || pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c->buckets);
        free(c);
        return NULL;
    }
    c->n_buckets = INITIAL_BUCKETS;
    c->max_bytes = max_bytes;
    c->max_table_positions = max_table_positions;
    return c;
}

void pe_cache_destroy(pe_cache *c)
{
    if (c == NULL)
        return;
    cache_entry *e = c->lru_head;
    while (e != NULL) {
        cache_entry *next = e->lnext;
        assert(e->refs == 0);
        free(e);
        e = next;
    }
    pthread_mutex_destroy(&c->mu);
    free(c->buckets);
    free(c);
}

static size_t round_up_chunk(size_t v)
{
    size_t r = v % PE_CACHE_POS_CHUNK;
    if (r == 0)
        return v;
    size_t add = PE_CACHE_POS_CHUNK - r;
    return v > (size_t)-1 - add ? (size_t)-1 : v + add;
}

static void free_list(cache_entry *e)
{
    while (e != NULL) {
        cache_entry *next = e->hnext;
        free(e);
        e = next;
    }
}

const pe_freq_table *pe_cache_get(pe_cache *c, const pe_rope_params *p, size_t need_positions,
                                  pe_status *st)
{
    pe_status s = pe_rope_params_check(p);
    if (s != PE_OK) {
        *st = s;
        return NULL;
    }
    unsigned char stack_key[KEY_STACK_BYTES];
    key_writer w = {stack_key, sizeof stack_key, 0};
    key_write(&w, p);
    unsigned char *key = stack_key;
    if (w.len > sizeof stack_key) {
        key = malloc(w.len);
        if (key == NULL) {
            *st = PE_ERR_NOMEM;
            return NULL;
        }
        w = (key_writer){key, w.len, 0};
        key_write(&w, p);
    }
    size_t key_len = w.len;
    uint64_t h = fnv1a(key, key_len);
    size_t n = p->rotary_dim / 2;
    size_t cap = positions_cap(c, n, key_len);
    int cacheable = cap != NOT_CACHEABLE;
    if (!cacheable)
        cap = 0;
    size_t need = need_positions < cap ? need_positions : cap;
    cache_entry *found = NULL;
    size_t old_pos = 0;

    pthread_mutex_lock(&c->mu);
    if (cacheable) {
        found = index_find(c, h, key, key_len);
        if (found != NULL && found->t.n_pos >= need) {
            c->ctr.hits++;
            take_ref(c, found);
            pthread_mutex_unlock(&c->mu);
            if (key != stack_key)
                free(key);
            *st = PE_OK;
            return &found->t;
        }
        if (found != NULL)
            old_pos = found->t.n_pos;
    }
    c->ctr.misses++;
    pthread_mutex_unlock(&c->mu);

    size_t target = 0;
    if (need > 0) {
        target = round_up_chunk(need);
        size_t doubled = old_pos > ((size_t)-1) / 2 ? (size_t)-1 : 2 * old_pos;
        if (doubled > target)
            target = doubled;
        if (target > cap)
            target = cap;
    }
    cache_entry *e = entry_build(p, key, key_len, h, target, st);
    if (key != stack_key)
        free(key);
    if (e == NULL || !cacheable)
        return e != NULL ? &e->t : NULL; /* private entry: freed by its release */

    cache_entry *to_free = NULL;
    pthread_mutex_lock(&c->mu);
    found = index_find(c, h, e->key, key_len);
    if (found != NULL && found->t.n_pos >= need) {
        /* Lost the race: take the published table, drop ours. */
        take_ref(c, found);
        pthread_mutex_unlock(&c->mu);
        free(e);
        return &found->t;
    }
    if (found != NULL && index_remove(c, found)) { /* grown table replaces the smaller one */
        found->hnext = to_free;
        to_free = found;
    }
    index_insert(c, e);
    while (c->ctr.bytes > c->max_bytes && c->lru_tail != NULL && c->lru_tail != e) {
        cache_entry *victim = c->lru_tail;
        c->ctr.evictions++;
        if (index_remove(c, victim)) {
            victim->hnext = to_free;
            to_free = victim;
        }
    }
    pthread_mutex_unlock(&c->mu);
    free_list(to_free);
    return &e->t;
}

void pe_cache_release(pe_cache *c, const pe_freq_table *t)
{
    if (t == NULL)
        return;
    /* t is the first member of a cache_entry we allocated (non-const); convert back. */
    cache_entry *e = (cache_entry *)(uintptr_t)t;
    pthread_mutex_lock(&c->mu);
    assert(e->refs > 0);
    e->refs--;
    int dead = e->refs == 0 && !e->in_table;
    pthread_mutex_unlock(&c->mu);
    if (dead)
        free(e);
}

void pe_cache_stats(const pe_cache *c, pe_cache_counters *out)
{
    pe_cache *mc = (pe_cache *)(uintptr_t)c; /* locking does not change the logical state */
    pthread_mutex_lock(&mc->mu);
    *out = mc->ctr;
    pthread_mutex_unlock(&mc->mu);
}
