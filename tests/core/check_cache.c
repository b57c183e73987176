/*
 * tests/core/check_cache.c -- core/cache.{c,h}: hits and misses, growth, the position cap, key
 * canonicalisation, LRU eviction under a byte bound, counters, refcount safety, and 8 threads
 * hammering shared and distinct configurations.
 *
 * Expected numbers: a cached table must equal, bit for bit (tolerance 0), what pe_rope_inv_freq,
 * pe_rope_softmax_scale_factor and cos/sin of the double product position * inv_freq give
 * directly (cache.h promises exactly those numbers; their correctness against the oracle is
 * tested in check_rope.c). Sizes and counts follow from cache.h's documented policy and are
 * derived in each test's comment.
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "core/cache.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define BIG (1u << 30) /* a byte bound that never evicts in these tests */

static void plain(pe_rope_params *p, size_t d, double base)
{
    pe_rope_params_init(p);
    p->rotary_dim = d;
    p->base = base;
}

/* Mismatches of row i of t against cos/sin of the double product i * inv[j] (tolerance 0). */
static size_t row_mismatches(const pe_freq_table *t, const double *inv, size_t i)
{
    size_t bad = 0;
    for (size_t j = 0; j < t->n_freq; j++) {
        double a = (double)i * inv[j];
        bad += cos(a) != t->cos[i * t->n_freq + j];
        bad += sin(a) != t->sin[i * t->n_freq + j];
    }
    return bad;
}

/* Returns the number of mismatches between t and a direct computation for p: inv_freq, the
 * factors, info, and rows 0, step, 2*step, ... plus the last row. Tolerance 0. */
static size_t table_mismatches(const pe_freq_table *t, const pe_rope_params *p, size_t step)
{
    double inv[64], att;
    pe_rope_info info;
    size_t bad = 0;
    if (pe_rope_inv_freq(p, inv, &att, &info) != PE_OK || t->n_freq != p->rotary_dim / 2)
        return 1;
    bad += att != t->attention_factor;
    bad += pe_rope_softmax_scale_factor(p) != t->softmax_scale_factor;
    bad += info.effective_base != t->info.effective_base;
    bad += info.ramp_low != t->info.ramp_low || info.ramp_high != t->info.ramp_high;
    bad += info.longrope_long != t->info.longrope_long;
    for (size_t j = 0; j < t->n_freq; j++)
        bad += inv[j] != t->inv_freq[j];
    for (size_t i = 0; i < t->n_pos; i += step)
        bad += row_mismatches(t, inv, i);
    if (t->n_pos > 0)
        bad += row_mismatches(t, inv, t->n_pos - 1);
    return bad;
}

/*
 * Miss then hit: the first get builds (miss 1) a table of 10 positions rounded up to the
 * 256-position chunk; the second get with the same key returns the same published entry
 * (hit 1). Counters: 1 entry, bytes > 0. Numbers equal the direct computation (tolerance 0).
 */
START_TEST(test_miss_then_hit)
{
    pe_cache *c = pe_cache_create(BIG, 100000);
    ck_assert_ptr_nonnull(c);
    pe_rope_params p;
    plain(&p, 8, 10000.0);
    pe_status st = PE_ERR_ARG;
    const pe_freq_table *a = pe_cache_get(c, &p, 10, &st);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(st, PE_OK);
    ck_assert_uint_eq(a->n_pos, PE_CACHE_POS_CHUNK);
    ck_assert_uint_eq(table_mismatches(a, &p, 1), 0);
    pe_cache_release(c, a);

    const pe_freq_table *b = pe_cache_get(c, &p, 200, &st);
    ck_assert_ptr_eq(a, b);
    pe_cache_counters k;
    pe_cache_stats(c, &k);
    ck_assert(k.hits == 1 && k.misses == 1 && k.evictions == 0 && k.entries == 1);
    ck_assert_uint_gt(k.bytes, 2 * 256 * 4 * sizeof(double)); /* at least the cos/sin rows */
    pe_cache_release(c, b);
    pe_cache_destroy(c);
}
END_TEST

/*
 * Growth: need 10 -> 256 rows (miss). need 300 -> max(roundup(300) = 512, 2 * 256) = 512 rows
 * (miss; replaces the 256-row entry, still 1 entry). need 600 -> max(768, 1024) = 1024 (miss).
 * need 1000 -> hit on the 1024-row table. The 256-row table held across the growth stays valid
 * and correct until released (ASan would flag a premature free).
 */
START_TEST(test_growth)
{
    pe_cache *c = pe_cache_create(BIG, 100000);
    pe_rope_params p;
    plain(&p, 16, 500000.0);
    pe_status st;
    const pe_freq_table *t256 = pe_cache_get(c, &p, 10, &st);
    ck_assert_uint_eq(t256->n_pos, 256);
    const pe_freq_table *t512 = pe_cache_get(c, &p, 300, &st);
    ck_assert_uint_eq(t512->n_pos, 512);
    ck_assert_ptr_ne(t256, t512);
    ck_assert_uint_eq(table_mismatches(t256, &p, 1), 0); /* old table still readable */
    pe_cache_release(c, t256);
    pe_cache_release(c, t512);
    const pe_freq_table *t1024 = pe_cache_get(c, &p, 600, &st);
    ck_assert_uint_eq(t1024->n_pos, 1024);
    ck_assert_uint_eq(table_mismatches(t1024, &p, 1), 0);
    pe_cache_release(c, t1024);
    const pe_freq_table *again = pe_cache_get(c, &p, 1000, &st);
    ck_assert_ptr_eq(again, t1024);
    pe_cache_release(c, again);
    pe_cache_counters k;
    pe_cache_stats(c, &k);
    ck_assert(k.misses == 3 && k.hits == 1 && k.entries == 1 && k.evictions == 0);
    pe_cache_destroy(c);
}
END_TEST

/*
 * Position cap: with max_table_positions 1000 a request for 5000 positions gets n_pos = 1000
 * (the caller computes the rest), and asking again for 5000 is a hit (nothing more can be
 * cached). need 0 gives inv_freq and the factors only (n_pos 0 when nothing is cached yet).
 */
START_TEST(test_position_cap)
{
    pe_cache *c = pe_cache_create(BIG, 1000);
    pe_rope_params p;
    plain(&p, 8, 10000.0);
    pe_status st;
    const pe_freq_table *t = pe_cache_get(c, &p, 5000, &st);
    ck_assert_uint_eq(t->n_pos, 1000);
    ck_assert_uint_eq(table_mismatches(t, &p, 1), 0);
    const pe_freq_table *u = pe_cache_get(c, &p, 5000, &st);
    ck_assert_ptr_eq(t, u);
    pe_cache_release(c, t);
    pe_cache_release(c, u);

    plain(&p, 8, 20000.0);
    const pe_freq_table *z = pe_cache_get(c, &p, 0, &st);
    ck_assert_uint_eq(z->n_pos, 0);
    ck_assert_uint_eq(table_mismatches(z, &p, 1), 0);
    pe_cache_release(c, z);
    pe_cache_counters k;
    pe_cache_stats(c, &k);
    ck_assert(k.misses == 2 && k.hits == 1 && k.entries == 2);
    pe_cache_destroy(c);
}
END_TEST

/*
 * Canonical keys (cache.h): configurations that compute identical numbers share one entry, and
 * ones that differ do not.
 *  - dynamic with seq_len <= L0 (1 and 2048 with L0 2048) is plain RoPE: same entry as default;
 *    an unused field (factor on a default config) does not split the key;
 *  - dynamic with seq_len 2049 and 2050 are different bases: two more entries;
 *  - longrope with seq_len 1 and 4096 (L0 4096) both use the short list: one entry; 4097 uses
 *    the long list: another entry.
 */
START_TEST(test_canonical_keys)
{
    static const double shortf[] = {1.0, 1.05, 1.2, 1.6};
    static const double longf[] = {1.0, 1.9, 5.3, 14.0};
    pe_cache *c = pe_cache_create(BIG, 100000);
    pe_status st;
    pe_rope_params p;
    plain(&p, 8, 10000.0);
    const pe_freq_table *base = pe_cache_get(c, &p, 1, &st);
    p.factor = 3.0; /* unused by default */
    const pe_freq_table *t = pe_cache_get(c, &p, 1, &st);
    ck_assert_ptr_eq(t, base);
    pe_cache_release(c, t);

    p.type = PE_ROPE_DYNAMIC;
    p.factor = 2.0;
    p.original_max_position_embeddings = 2048.0;
    static const size_t short_seqs[] = {1, 2048};
    for (size_t i = 0; i < N_ELEMS(short_seqs); i++) {
        p.seq_len = short_seqs[i];
        t = pe_cache_get(c, &p, 1, &st);
        ck_assert_ptr_eq(t, base);
        pe_cache_release(c, t);
    }
    p.seq_len = 2049;
    const pe_freq_table *d1 = pe_cache_get(c, &p, 1, &st);
    ck_assert_uint_eq(table_mismatches(d1, &p, 1), 0);
    p.seq_len = 2050;
    const pe_freq_table *d2 = pe_cache_get(c, &p, 1, &st);
    ck_assert_uint_eq(table_mismatches(d2, &p, 1), 0);
    ck_assert(d1 != base && d2 != base && d1 != d2);
    pe_cache_release(c, d1);
    pe_cache_release(c, d2);
    pe_cache_release(c, base);

    pe_rope_params_init(&p);
    p.rotary_dim = 8;
    p.type = PE_ROPE_LONGROPE;
    p.factor = 32.0;
    p.original_max_position_embeddings = 4096.0;
    p.short_factor = shortf;
    p.long_factor = longf;
    p.seq_len = 1;
    const pe_freq_table *s1 = pe_cache_get(c, &p, 1, &st);
    p.seq_len = 4096;
    const pe_freq_table *s2 = pe_cache_get(c, &p, 1, &st);
    p.seq_len = 4097;
    const pe_freq_table *l1 = pe_cache_get(c, &p, 1, &st);
    ck_assert_ptr_eq(s1, s2);
    ck_assert_ptr_ne(s1, l1);
    ck_assert_int_eq(s1->info.longrope_long, 0);
    ck_assert_int_eq(l1->info.longrope_long, 1);
    ck_assert_uint_eq(table_mismatches(l1, &p, 1), 0);
    pe_cache_release(c, s1);
    pe_cache_release(c, s2);
    pe_cache_release(c, l1);

    pe_cache_counters k;
    pe_cache_stats(c, &k);
    ck_assert_uint_eq(k.entries, 5); /* plain, dynamic 2049, dynamic 2050, short, long */
    pe_cache_destroy(c);
}
END_TEST

/* Bytes of one published 256-row table of rotary dim 8 (n = 4), measured through the counters. */
static size_t one_entry_bytes(void)
{
    pe_cache *c = pe_cache_create(BIG, 100000);
    pe_rope_params p;
    plain(&p, 8, 10000.0);
    pe_status st;
    pe_cache_release(c, pe_cache_get(c, &p, 256, &st));
    pe_cache_counters k;
    pe_cache_stats(c, &k);
    pe_cache_destroy(c);
    return k.bytes;
}

/*
 * LRU eviction under a byte bound of 2.5 entries (every entry here has the same size E: same
 * rotary dim, same key length, 256 rows): A, B published (2E); touch A (hit); C makes 3E > 2.5E,
 * so the least recently used, B, is evicted (evictions 1, entries 2, bytes 2E <= bound).
 * Getting B again is a miss and evicts A (now the LRU). Getting C is a hit.
 */
START_TEST(test_lru_eviction)
{
    size_t e = one_entry_bytes();
    ck_assert_uint_gt(e, 2 * 256 * 4 * sizeof(double));
    pe_cache *c = pe_cache_create(2 * e + e / 2, 100000);
    pe_rope_params pa, pb, pc;
    plain(&pa, 8, 10000.0);
    plain(&pb, 8, 20000.0);
    plain(&pc, 8, 30000.0);
    pe_status st;
    pe_cache_release(c, pe_cache_get(c, &pa, 256, &st));
    pe_cache_release(c, pe_cache_get(c, &pb, 256, &st));
    pe_cache_release(c, pe_cache_get(c, &pa, 256, &st)); /* hit, A becomes most recent */
    pe_cache_release(c, pe_cache_get(c, &pc, 256, &st)); /* evicts B */
    pe_cache_counters k;
    pe_cache_stats(c, &k);
    ck_assert(k.hits == 1 && k.misses == 3 && k.evictions == 1 && k.entries == 2);
    ck_assert_uint_eq(k.bytes, 2 * e);

    pe_cache_release(c, pe_cache_get(c, &pb, 256, &st)); /* miss, evicts A */
    pe_cache_release(c, pe_cache_get(c, &pc, 256, &st)); /* hit */
    pe_cache_stats(c, &k);
    ck_assert(k.hits == 2 && k.misses == 4 && k.evictions == 2 && k.entries == 2);
    ck_assert_uint_le(k.bytes, 2 * e + e / 2);
    pe_cache_release(c, pe_cache_get(c, &pa, 256, &st)); /* A was evicted: miss */
    pe_cache_stats(c, &k);
    ck_assert_uint_eq(k.misses, 5);
    pe_cache_destroy(c);
}
END_TEST

/*
 * Refcount safety: a held table that gets evicted stays valid and correct until released (the
 * cache no longer counts it); releasing it frees it (ASan's leak check would report otherwise).
 * A bound of 1.5 entries means every new entry evicts the previous one.
 */
START_TEST(test_refcount_safety)
{
    size_t e = one_entry_bytes();
    pe_cache *c = pe_cache_create(e + e / 2, 100000);
    pe_rope_params pa, pb;
    plain(&pa, 8, 10000.0);
    plain(&pb, 8, 20000.0);
    pe_status st;
    const pe_freq_table *a = pe_cache_get(c, &pa, 256, &st);
    const pe_freq_table *a2 = pe_cache_get(c, &pa, 256, &st); /* second reference */
    ck_assert_ptr_eq(a, a2);
    const pe_freq_table *b = pe_cache_get(c, &pb, 256, &st); /* evicts A while held twice */
    pe_cache_counters k;
    pe_cache_stats(c, &k);
    ck_assert(k.evictions == 1 && k.entries == 1 && k.bytes == e);
    ck_assert_uint_eq(table_mismatches(a, &pa, 1), 0);
    pe_cache_release(c, a);
    ck_assert_uint_eq(table_mismatches(a2, &pa, 1), 0); /* one reference left: still alive */
    pe_cache_release(c, a2);
    ck_assert_uint_eq(table_mismatches(b, &pb, 1), 0);
    pe_cache_release(c, b);
    pe_cache_release(c, NULL); /* no-op */
    pe_cache_destroy(c);
}
END_TEST

/*
 * Degenerate bounds and errors: max_bytes 0 caches nothing -- every get is a miss returning a
 * private table with n_pos 0 (inv_freq and factors still right) that its release frees;
 * invalid params give NULL and PE_ERR_ARG; a longrope list entry 0 gives PE_ERR_NONFINITE;
 * neither publishes anything.
 */
START_TEST(test_disabled_and_errors)
{
    pe_cache *c = pe_cache_create(0, 100000);
    pe_rope_params p;
    plain(&p, 8, 10000.0);
    pe_status st;
    const pe_freq_table *t1 = pe_cache_get(c, &p, 100, &st);
    const pe_freq_table *t2 = pe_cache_get(c, &p, 100, &st);
    ck_assert(t1 != NULL && t2 != NULL && t1 != t2);
    ck_assert_uint_eq(t1->n_pos, 0);
    ck_assert_uint_eq(table_mismatches(t1, &p, 1), 0);
    pe_cache_release(c, t1);
    pe_cache_release(c, t2);
    pe_cache_counters k;
    pe_cache_stats(c, &k);
    ck_assert(k.misses == 2 && k.hits == 0 && k.entries == 0 && k.bytes == 0);
    pe_cache_destroy(c);

    c = pe_cache_create(BIG, 100000);
    p.rotary_dim = 7;
    st = PE_OK;
    ck_assert_ptr_null(pe_cache_get(c, &p, 10, &st));
    ck_assert_int_eq(st, PE_ERR_ARG);
    static const double zero_list[] = {0.0, 1.0, 1.0, 1.0};
    pe_rope_params_init(&p);
    p.rotary_dim = 8;
    p.type = PE_ROPE_LONGROPE;
    p.factor = 2.0;
    p.original_max_position_embeddings = 100.0;
    p.short_factor = p.long_factor = zero_list;
    ck_assert_ptr_null(pe_cache_get(c, &p, 10, &st));
    ck_assert_int_eq(st, PE_ERR_NONFINITE);
    pe_cache_stats(c, &k);
    ck_assert(k.entries == 0 && k.bytes == 0);
    pe_cache_destroy(c);
    pe_cache_destroy(NULL); /* no-op */
}
END_TEST

/*
 * Long keys (above the 512-byte stack buffer): explicit inv_freq of 64 values and a longrope
 * list of 64 values; the same values by value (different pointers) hit the same entry.
 */
START_TEST(test_long_keys)
{
    double f1[64], f2[64];
    for (size_t j = 0; j < 64; j++)
        f1[j] = f2[j] = 1.0 / (double)(j + 1);
    pe_cache *c = pe_cache_create(BIG, 100000);
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = 128;
    p.inv_freq = f1;
    pe_status st;
    const pe_freq_table *a = pe_cache_get(c, &p, 300, &st);
    p.inv_freq = f2;
    const pe_freq_table *b = pe_cache_get(c, &p, 300, &st);
    ck_assert_ptr_eq(a, b);
    ck_assert_uint_eq(table_mismatches(a, &p, 7), 0);
    f2[63] = 0.5;
    const pe_freq_table *d = pe_cache_get(c, &p, 300, &st);
    ck_assert_ptr_ne(a, d);
    ck_assert(d->inv_freq[63] == 0.5);
    pe_cache_release(c, a);
    pe_cache_release(c, b);
    pe_cache_release(c, d);
    pe_cache_destroy(c);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------------- */

#define N_THREADS 8
#define N_ITER 400

static const double TH_SHORT[] = {1.0, 1.05, 1.2, 1.6, 1.7, 1.8, 1.9, 2.0};
static const double TH_LONG[] = {1.0, 1.9, 5.3, 14.0, 15.0, 16.0, 17.0, 18.0};

/* Configuration k of a small fixed set: several types, two pairs of which compute identical
 * numbers (0 and 6: plain and dynamic below L0; 4 and 7: longrope short at seq 1 and 4096). */
static void th_config(size_t k, pe_rope_params *p)
{
    pe_rope_params_init(p);
    p->rotary_dim = 16;
    switch (k) {
    case 0:
        break;
    case 1:
        p->type = PE_ROPE_LINEAR;
        p->factor = 4.0;
        break;
    case 2:
        p->type = PE_ROPE_YARN;
        p->factor = 8.0;
        p->original_max_position_embeddings = 2048.0;
        break;
    case 3:
        p->base = 500000.0;
        p->type = PE_ROPE_LLAMA3;
        p->factor = 8.0;
        p->original_max_position_embeddings = 8192.0;
        break;
    case 4:
    case 7:
        p->type = PE_ROPE_LONGROPE;
        p->factor = 32.0;
        p->original_max_position_embeddings = 4096.0;
        p->short_factor = TH_SHORT;
        p->long_factor = TH_LONG;
        p->seq_len = k == 4 ? 1 : 4096;
        break;
    case 5:
        p->type = PE_ROPE_DYNAMIC;
        p->factor = 2.0;
        p->original_max_position_embeddings = 2048.0;
        p->seq_len = 3000;
        break;
    default: /* 6 */
        p->type = PE_ROPE_DYNAMIC;
        p->factor = 2.0;
        p->original_max_position_embeddings = 2048.0;
        p->seq_len = 100;
        break;
    }
}

typedef struct {
    pe_cache *cache;
    uint64_t seed;
    size_t bad;
    size_t gets;
} th_arg;

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void *th_main(void *v)
{
    th_arg *a = v;
    const pe_freq_table *held[3] = {NULL, NULL, NULL};
    for (size_t it = 0; it < N_ITER; it++) {
        pe_rope_params p;
        th_config(xorshift(&a->seed) % 8, &p);
        size_t need = (size_t)(xorshift(&a->seed) % 3000);
        pe_status st;
        const pe_freq_table *t = pe_cache_get(a->cache, &p, need, &st);
        a->gets++;
        if (t == NULL || st != PE_OK) {
            a->bad++;
            continue;
        }
        size_t want_rows = need < 2000 ? need : 2000; /* cap 2000 below */
        a->bad += t->n_pos < want_rows;
        a->bad += table_mismatches(t, &p, 97);
        /* Keep a few tables across iterations so evictions and growth hit held entries. */
        size_t slot = it % 3;
        pe_cache_release(a->cache, held[slot]);
        held[slot] = t;
    }
    for (size_t i = 0; i < 3; i++)
        pe_cache_release(a->cache, held[i]);
    return NULL;
}

/*
 * 8 threads x 400 gets over 8 configurations (6 distinct keys), random need 0..2999 with a
 * 2000-position cap and a byte bound of about 3 full tables, so hits, misses, growth, races and
 * evictions of held entries all happen. Every returned table must hold at least min(need, 2000)
 * rows and equal the direct computation (tolerance 0) on sampled rows. Afterwards
 * hits + misses == 3200 and the byte bound holds.
 */
START_TEST(test_threads)
{
    size_t one = 2 * 2048 * 8 * sizeof(double) + 8 * sizeof(double) + 1024;
    pe_cache *c = pe_cache_create(3 * one, 2000);
    th_arg args[N_THREADS];
    pthread_t tid[N_THREADS];
    for (size_t i = 0; i < N_THREADS; i++) {
        args[i] = (th_arg){c, 0x9E3779B97F4A7C15ULL * (i + 1), 0, 0};
        ck_assert_int_eq(pthread_create(&tid[i], NULL, th_main, &args[i]), 0);
    }
    size_t bad = 0, gets = 0;
    for (size_t i = 0; i < N_THREADS; i++) {
        pthread_join(tid[i], NULL);
        bad += args[i].bad;
        gets += args[i].gets;
    }
    ck_assert_uint_eq(bad, 0);
    ck_assert_uint_eq(gets, N_THREADS * N_ITER);
    pe_cache_counters k;
    pe_cache_stats(c, &k);
    ck_assert_uint_eq(k.hits + k.misses, N_THREADS * N_ITER);
    ck_assert_uint_gt(k.hits, 0);
    ck_assert_uint_gt(k.evictions, 0);
    ck_assert_uint_le(k.bytes, 3 * one);
    ck_assert_uint_le(k.entries, 6);
    pe_cache_destroy(c);
}
END_TEST

Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("cache");
    tcase_add_test(tc, test_miss_then_hit);
    tcase_add_test(tc, test_growth);
    tcase_add_test(tc, test_position_cap);
    tcase_add_test(tc, test_canonical_keys);
    tcase_add_test(tc, test_lru_eviction);
    tcase_add_test(tc, test_refcount_safety);
    tcase_add_test(tc, test_disabled_and_errors);
    tcase_add_test(tc, test_long_keys);
    suite_add_tcase(s, tc);
    tc = tcase_create("threads");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);
    return s;
}
