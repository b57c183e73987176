/*
 * tests/store/check_store_page.c -- store/store_scan.c and the cache of store.c: pages of the
 * listing (sorted by strcmp: "a" < "b" < "c" < "d" < "demo-512x64" < "e"), the quota counted from
 * the directory and shared by two store objects on it (two replicas), and the byte-bounded cache
 * (an evicted table is read again, one still acquired stays valid).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

static char pdir[64];

static void setup(void)
{
    snprintf(pdir, sizeof pdir, "/tmp/posenc-page-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(pdir));
}

static void teardown(void)
{
    DIR *d = opendir(pdir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", pdir, e->d_name);
        if (e->d_name[0] != '.' || e->d_name[1] == 't')
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(pdir);
}

/* Stores a 16 x 8 table of value v under name; returns store_put's result. */
static store_result put_v(store_dir *s, const char *name, double v, char *err)
{
    wire_tensor t = {16, 8, malloc(16 * 8 * sizeof(double)), WIRE_DT_F64};
    for (size_t i = 0; i < 16 * 8; i++)
        t.data[i] = v;
    store_table_info info;
    return store_put(s, name, &t, "json", &info, err, 256);
}

START_TEST(test_pages)
{
    store_dir *s = store_open(pdir, 1 << 20, NULL);
    char err[256];
    const char *names[] = {"b", "a", "e", "c", "d"};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(put_v(s, names[i], i, err), STORE_CREATED);
    const char *want[3][2] = {{"a", "b"}, {"c", "d"}, {"demo-512x64", "e"}};
    const char *after = NULL;
    char next[80] = "";
    for (int p = 0; p < 3; p++) {
        store_table_info *v = NULL;
        size_t n = 0;
        int more = -1;
        ck_assert_int_eq(store_list_page(s, after, 2, &v, &n, &more), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_str_eq(v[0].name, want[p][0]);
        ck_assert_str_eq(v[1].name, want[p][1]);
        ck_assert_int_eq(more, p < 2);
        ck_assert_uint_eq(v[0].rows, strcmp(v[0].name, "demo-512x64") == 0 ? 512 : 16);
        snprintf(next, sizeof next, "%s", v[1].name);
        after = next;
        free(v);
    }
    store_close(s);
}
END_TEST

START_TEST(test_quota_shared)
{
    store_dir *a = store_open(pdir, 1 << 20, NULL), *b = store_open(pdir, 1 << 20, NULL);
    store_set_limits(a, 2, 0, 0);
    store_set_limits(b, 2, 0, 0);
    char err[256];
    ck_assert_int_eq(put_v(a, "t1", 1, err), STORE_CREATED);
    ck_assert_int_eq(put_v(b, "t2", 2, err), STORE_CREATED);
    ck_assert_int_eq(put_v(a, "t3", 3, err), STORE_QUOTA);
    ck_assert_msg(strstr(err, "max_tables (2)") != NULL, "%s", err);
    ck_assert_int_eq(put_v(b, "t3", 3, err), STORE_QUOTA); /* the other replica counts the same */
    ck_assert_int_eq(put_v(b, "t1", 4, err), STORE_REPLACED); /* a replacement is no new table */
    ck_assert_int_eq(store_delete(a, "t2", err, sizeof err), STORE_DELETED);
    ck_assert_int_eq(put_v(b, "t3", 3, err), STORE_CREATED);
    size_t tables = 0, bytes = 0;
    ck_assert_int_eq(store_usage(a, NULL, &tables, &bytes), 0);
    ck_assert_uint_eq(tables, 2);
    ck_assert_uint_gt(bytes, 2 * 16 * 8 * 8); /* two files of 1 KiB of data plus headers */
    store_set_limits(a, 0, bytes + 100, 0);   /* bytes: a third table does not fit */
    ck_assert_int_eq(put_v(a, "t4", 5, err), STORE_QUOTA);
    ck_assert_msg(strstr(err, "max_store_bytes") != NULL, "%s", err);
    store_close(a);
    store_close(b);
}
END_TEST

START_TEST(test_cache_bound)
{
    store_dir *s = store_open(pdir, 1 << 20, NULL);
    store_set_limits(s, 0, 0, 2 * 16 * 8 * sizeof(double)); /* two tables' data */
    char err[256];
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        ck_assert_int_eq(put_v(s, name, 10.0 + i, err), STORE_CREATED);
    }
    const store_table *held = store_acquire(s, "c0"); /* read again: it was evicted */
    ck_assert_ptr_nonnull(held);
    for (int round = 0; round < 3; round++) {
        for (int i = 1; i < 4; i++) { /* evicts c0 from the cache over and over */
            char name[16];
            snprintf(name, sizeof name, "c%d", i);
            const store_table *t = store_acquire(s, name);
            ck_assert_ptr_nonnull(t);
            ck_assert(t->data[0] == 10.0 + i && t->data[127] == 10.0 + i);
            store_release(s, t);
        }
    }
    ck_assert(held->data[0] == 10.0 && held->data[127] == 10.0); /* still valid */
    store_release(s, held);
    store_close(s);
}
END_TEST

Suite *store_page_suite(void)
{
    Suite *s = suite_create("store_page");
    TCase *tc = tcase_create("page");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_pages);
    tcase_add_test(tc, test_quota_shared);
    tcase_add_test(tc, test_cache_bound);
    suite_add_tcase(s, tc);
    return s;
}
