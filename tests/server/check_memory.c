/*
 * tests/server/check_memory.c -- server/memory: the memory ceiling of docs/operations.md, term by
 * term, for the settings of the hostile test mem_ceiling (figures derived by hand below), and the
 * thread counts as the daemon uses them (at least 2 HTTP threads, at least 1 compute thread).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "server/memory.h"

#define MiB ((uint64_t)1 << 20)

static void small_config(srv_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    api_limits_default(&cfg->lim);
    cfg->threads = 2;
    cfg->compute_threads = 2;
    cfg->connection_limit = 64;
    cfg->connection_memory = 65536;
    cfg->lim.max_inflight_bytes = 16 * MiB;
    cfg->lim.max_body_bytes = 4 * MiB;
    cfg->lim.max_parse_bytes = 16 * MiB;
    cfg->lim.max_output_elements = 524288;
    cfg->lim.max_table_bytes = 4 * MiB;
    cfg->table_cache_bytes = 8 * MiB;
    cfg->cache_bytes = 4 * MiB;
}

START_TEST(test_terms)
{
    srv_config cfg;
    small_config(&cfg);
    srv_memory_terms t;
    srv_memory_ceiling(&cfg, &t);
    ck_assert_uint_eq(t.base, 16 * MiB);
    ck_assert_uint_eq(t.connections, 64 * (65536 + 73728)); /* 8,912,896: 72 KiB besides */
    ck_assert_uint_eq(t.inflight, 16 * MiB + 2 * 2 * MiB);  /* + T x max_body / 2 */
    ck_assert_uint_eq(t.parse, 2 * 16 * MiB);
    ck_assert_uint_eq(t.work, 2 * (4 * MiB + 24 * 524288 + 4 * MiB)); /* 2 x 20 MiB */
    ck_assert_uint_eq(t.tables, 8 * MiB + 4 * 6 * MiB);               /* (T + K) x 1.5 x 4 MiB */
    ck_assert_uint_eq(t.freq_cache, 3 * 4 * MiB);
    /* 16 + 8.5 + 20 + 32 + 40 + 32 + 12 = 160.5 MiB */
    ck_assert_uint_eq(t.total, 168296448);
}
END_TEST

START_TEST(test_thread_floors)
{
    srv_config cfg;
    small_config(&cfg);
    cfg.threads = 1;         /* the daemon runs 2 (server/http.c) */
    cfg.compute_threads = 0; /* unresolved: at least 1 */
    srv_memory_terms t;
    srv_memory_ceiling(&cfg, &t);
    ck_assert_uint_eq(t.inflight, 16 * MiB + 2 * 2 * MiB);
    ck_assert_uint_eq(t.parse, 16 * MiB);
    ck_assert_uint_eq(t.tables, 8 * MiB + 3 * 6 * MiB);
    ck_assert_uint_eq(t.freq_cache, 2 * 4 * MiB);
}
END_TEST

Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("ceiling");
    tcase_add_test(tc, test_terms);
    tcase_add_test(tc, test_thread_floors);
    suite_add_tcase(s, tc);
    return s;
}
