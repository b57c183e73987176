/*
 * tests/server/check_config.c -- server/config: threads from the cgroup CPU quota
 * (srv_cpu_quota) on a fake cgroup root in a temp directory. Expected values by hand:
 * ceil(quota / period) clamped to [1, ncpu]; ncpu when there is no quota ("max", -1), no file, or
 * a file that does not parse.
 *   v2 "250000 100000" = 2.5 CPUs -> 3 (ncpu 8), -> 2 (ncpu 2); "200000 100000" -> 2 exactly;
 *   "50000 100000" = half a CPU -> 1; "max 100000" -> ncpu;
 *   v1 cpu/cpu.cfs_quota_us 150000, cfs_period_us 100000 -> 2; quota -1 -> ncpu;
 *   v1 under cpu,cpuacct/ (the real directory where cpu/ is a link) -> 4 for 400000/100000;
 *   v2 wins over v1 when both are present.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/config.h"

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdir(path, 0700);
    *slash = '/';
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/posenc-cgroup-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_v2)
{
    ck_assert_uint_eq(srv_cpu_quota(root, 8), 8); /* nothing there */
    put("cpu.max", "250000 100000\n");
    ck_assert_uint_eq(srv_cpu_quota(root, 8), 3);
    ck_assert_uint_eq(srv_cpu_quota(root, 2), 2); /* at most the CPUs */
    put("cpu.max", "200000 100000\n");
    ck_assert_uint_eq(srv_cpu_quota(root, 8), 2);
    put("cpu.max", "50000 100000\n");
    ck_assert_uint_eq(srv_cpu_quota(root, 8), 1);
    put("cpu.max", "max 100000\n");
    ck_assert_uint_eq(srv_cpu_quota(root, 6), 6);
    put("cpu.max", "garbage\n");
    ck_assert_uint_eq(srv_cpu_quota(root, 5), 5);
    ck_assert_uint_eq(srv_cpu_quota(root, 0), 1); /* at least 1 */
}
END_TEST

START_TEST(test_v1)
{
    put("cpu/cpu.cfs_quota_us", "150000\n");
    put("cpu/cpu.cfs_period_us", "100000\n");
    ck_assert_uint_eq(srv_cpu_quota(root, 8), 2);
    put("cpu/cpu.cfs_quota_us", "-1\n");
    ck_assert_uint_eq(srv_cpu_quota(root, 8), 8);
    put("cpu.max", "300000 100000\n"); /* v2 wins */
    ck_assert_uint_eq(srv_cpu_quota(root, 8), 3);
}
END_TEST

START_TEST(test_v1_cpuacct)
{
    put("cpu,cpuacct/cpu.cfs_quota_us", "400000\n");
    put("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    ck_assert_uint_eq(srv_cpu_quota(root, 16), 4);
    put("cpu,cpuacct/cpu.cfs_period_us", "0\n"); /* nonsense period: no quota */
    ck_assert_uint_eq(srv_cpu_quota(root, 16), 16);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("cpu_quota");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_v2);
    tcase_add_test(tc, test_v1);
    tcase_add_test(tc, test_v1_cpuacct);
    suite_add_tcase(s, tc);
    return s;
}
