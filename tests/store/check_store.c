/*
 * tests/store/check_store.c -- store/: table names; atomic replacement (a reader on another store
 * object sees the old table or the new one, never a mix); reload from the directory by a second
 * store object; corrupt and truncated files skipped, reported and never hiding the others;
 * concurrent writers on one name, each reading back a whole table.
 *
 * Table values are chosen so that a mix is visible: version k of a table holds
 * x[i] = 1000 k + i / 4 (exact in binary), so a table is whole when x[i] - x[0] = i / 4 for every
 * i and x[0] is a multiple of 1000 that some writer used.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/table.h"

START_TEST(test_names)
{
    static const char *const good[] = {"a", "Z9", "wpe.weight", "demo-512x64", "a_b-c.d", "0"};
    static const char *const bad[] = {"",    ".a",   "-a",     "_a",          "a/b", "..",   "../x",
                                      "a b", "a\\b", "tab\tx", "caf\xc3\xa9", "x?y", "x%2Fy"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(store_name_valid(good[i]), "%s should be valid", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!store_name_valid(bad[i]), "%s should be invalid", bad[i]);
    char n64[66], n65[66];
    memset(n64, 'a', 64);
    n64[64] = '\0';
    memset(n65, 'b', 65);
    n65[65] = '\0';
    ck_assert(store_name_valid(n64));
    ck_assert(!store_name_valid(n65));
    ck_assert(!store_name_valid(NULL));
}
END_TEST

/* ---- fixture: a fresh data directory per test ------------------------------------------------ */

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/posenc-store-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

#define ROWS 64
#define COLS 32

/* Version k of a ROWS x COLS table: x[i] = 1000 k + i / 4. */
static wire_tensor version(int k)
{
    wire_tensor t = {ROWS, COLS, malloc(ROWS * COLS * sizeof(double)), WIRE_DT_F64};
    ck_assert_ptr_nonnull(t.data);
    for (size_t i = 0; i < ROWS * COLS; i++)
        t.data[i] = 1000.0 * k + (double)i / 4;
    return t;
}

/* The version a whole table holds (x[i] = x[0] + i / 4, x[0] = 1000 k, 0 <= k < max), or -1. */
static int whole_version(const store_table *t, int max)
{
    if (t->rows != ROWS || t->cols != COLS)
        return -1;
    for (size_t i = 0; i < ROWS * COLS; i++) {
        if (t->data[i] != t->data[0] + (double)i / 4)
            return -1;
    }
    double k = t->data[0] / 1000.0;
    return k == (double)(int)k && k >= 0 && k < max ? (int)k : -1;
}

static store_result put(store_dir *s, const char *name, int k)
{
    wire_tensor t = version(k);
    store_table_info info;
    char err[256];
    store_result r = store_put(s, name, &t, "json", &info, err, sizeof err);
    ck_assert_msg(r == STORE_CREATED || r == STORE_REPLACED, "put %s: %d %s", name, r, err);
    return r;
}

/* ---- atomic replacement ------------------------------------------------------------------------
 */

#define VERSIONS 60

static atomic_int writer_done;

static void *writer(void *arg)
{
    store_dir *s = arg;
    for (int k = 1; k < VERSIONS; k++)
        put(s, "x", k);
    atomic_store(&writer_done, 1);
    return NULL;
}

/* One store writes versions 1..59 of "x" while a second store object on the same directory (a
 * replica) reads it back again and again: every read finds the table (never missing or corrupt,
 * since the file is replaced by rename) and whole, and the versions it sees never go back. */
START_TEST(test_atomic_replace)
{
    store_dir *w = store_open(dir, 1 << 20, NULL);
    store_dir *r = store_open(dir, 1 << 20, NULL);
    ck_assert(w && r);
    put(w, "x", 0);
    atomic_store(&writer_done, 0);
    pthread_t th;
    pthread_create(&th, NULL, writer, w);
    int reads = 0, last = 0, seen_new = 0;
    while (!atomic_load(&writer_done) || reads < 10) {
        const store_table *t = store_acquire(r, "x");
        ck_assert_msg(t != NULL, "read %d: the table was missing or unreadable", reads);
        int k = whole_version(t, VERSIONS);
        ck_assert_msg(k >= 0, "read %d: a mix of versions (x[0] = %g, x[1] = %g, x[last] = %g)",
                      reads, t->data[0], t->data[1], t->data[ROWS * COLS - 1]);
        ck_assert_msg(k >= last, "read %d: version %d after %d", reads, k, last);
        seen_new |= k > 0;
        last = k;
        store_release(r, t);
        reads++;
    }
    pthread_join(th, NULL);
    const store_table *t = store_acquire(r, "x");
    ck_assert_int_eq(whole_version(t, VERSIONS), VERSIONS - 1);
    store_release(r, t);
    ck_assert(seen_new);
    store_close(w);
    store_close(r);
}
END_TEST

/* ---- reload ------------------------------------------------------------------------------------
 */

/* Tables stored by one store object are found, with their values, shape, dtype, format and
 * creation time, by a second one opened on the directory afterwards. */
START_TEST(test_reload)
{
    store_dir *a = store_open(dir, 1 << 20, NULL);
    ck_assert_ptr_nonnull(a);
    double *v = malloc(6 * sizeof *v);
    const double want[6] = {0.5, -1.25, 3.0, 1e-300, -2.0, 7.0};
    memcpy(v, want, sizeof want);
    wire_tensor t = {2, 3, v, WIRE_DT_F32};
    store_table_info put_info;
    char err[256];
    ck_assert_int_eq(store_put(a, "alpha", &t, "npy", &put_info, err, sizeof err), STORE_CREATED);
    put(a, "beta", 7);
    store_close(a);

    store_dir *b = store_open(dir, 1 << 20, NULL);
    ck_assert_ptr_nonnull(b);
    store_table_info *list = NULL;
    size_t n = 0;
    ck_assert_int_eq(store_list(b, &list, &n), 0);
    ck_assert_uint_eq(n, 3); /* sorted by name, the built-in table included */
    ck_assert_str_eq(list[0].name, "alpha");
    ck_assert_str_eq(list[1].name, "beta");
    ck_assert_str_eq(list[2].name, STORE_BUILTIN);
    ck_assert_uint_eq(list[0].rows, 2);
    ck_assert_uint_eq(list[0].cols, 3);
    ck_assert_int_eq(list[0].dtype, WIRE_DT_F32);
    ck_assert_str_eq(list[0].format, "npy");
    ck_assert_int_eq(list[0].created_ms, put_info.created_ms);
    ck_assert_int_eq(list[0].builtin, 0);
    ck_assert_int_eq(list[2].builtin, 1);
    free(list);
    const store_table *ta = store_acquire(b, "alpha");
    ck_assert_ptr_nonnull(ta);
    for (size_t i = 0; i < 6; i++)
        ck_assert(ta->data[i] == want[i]);
    store_release(b, ta);
    const store_table *tb = store_acquire(b, "beta");
    ck_assert_int_eq(whole_version(tb, 8), 7);
    store_release(b, tb);
    store_close(b);
}
END_TEST

/* ---- corrupt and truncated files ----------------------------------------------------------------
 */

static void write_file(const char *name, const void *b, size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, n, f), n);
    fclose(f);
}

static unsigned char *read_file(const char *name, size_t *n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char *b = malloc(1 << 20);
    *n = fread(b, 1, 1 << 20, f);
    fclose(f);
    return b;
}

/* A truncated copy, a copy with one data byte changed (its checksum no longer matches) and a file
 * that is no .npy at all are each skipped and reported on the log, by name; the good tables are
 * all still served, and the bad files stay where they are. A listing reads headers only: before
 * the flipped file is used it is listed (its header and trailer are fine), after its checksum
 * failed it is not. */
START_TEST(test_corrupt_skipped)
{
    store_dir *a = store_open(dir, 1 << 20, NULL);
    put(a, "good", 3);
    put(a, "zz-good", 4);
    store_close(a);
    size_t n;
    unsigned char *b = read_file("good.npy", &n);
    ck_assert_uint_gt(n, 128 + ROWS * COLS * 8);
    write_file("trunc.npy", b, 100 + ROWS * COLS * 4); /* half the data */
    b[128 + 8 * 5] ^= 0x01;                            /* a bit of x[5] */
    write_file("flipped.npy", b, n);
    write_file("garbage.npy", "hello, world", 12);
    free(b);

    char *logbuf = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logbuf, &loglen);
    store_dir *s = store_open(dir, 1 << 20, log);
    ck_assert_ptr_nonnull(s);
    store_table_info *list = NULL;
    size_t count = 0;
    ck_assert_int_eq(store_list(s, &list, &count), 0);
    ck_assert_uint_eq(count, 4); /* demo, flipped (not yet used), good, zz-good */
    ck_assert_str_eq(list[1].name, "flipped");
    free(list);
    ck_assert_ptr_null(store_acquire(s, "trunc"));
    ck_assert_ptr_null(store_acquire(s, "flipped"));
    ck_assert_ptr_null(store_acquire(s, "garbage"));
    ck_assert_int_eq(store_list(s, &list, &count), 0);
    ck_assert_uint_eq(count, 3);
    ck_assert_str_eq(list[0].name, STORE_BUILTIN);
    ck_assert_str_eq(list[1].name, "good");
    ck_assert_str_eq(list[2].name, "zz-good");
    free(list);
    const store_table *t = store_acquire(s, "zz-good");
    ck_assert_int_eq(whole_version(t, 5), 4);
    store_release(s, t);
    store_close(s);
    fclose(log);
    for (const char *const *f =
             (const char *const[]){"trunc.npy", "flipped.npy", "garbage.npy", NULL};
         *f; f++) {
        ck_assert_msg(strstr(logbuf, *f) != NULL, "%s not reported in: %s", *f, logbuf);
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, *f);
        ck_assert_msg(access(p, F_OK) == 0, "%s was removed", *f);
    }
    ck_assert_msg(strstr(logbuf, "/good.npy:") == NULL, "good.npy reported: %s", logbuf);
    free(logbuf);
}
END_TEST

/* ---- concurrent writers on one name -------------------------------------------------------------
 */

#define WRITERS 4
#define PUTS 15

static atomic_int torn;

/* Writer i stores versions i * PUTS + j (each its own store object: a replica) and reads the name
 * back after each put: whatever writer won, the table read is whole. */
static void *hot_writer(void *arg)
{
    int i = (int)(intptr_t)arg;
    store_dir *s = store_open(dir, 1 << 20, NULL);
    for (int j = 0; j < PUTS && s; j++) {
        put(s, "hot", i * PUTS + j);
        const store_table *t = store_acquire(s, "hot");
        if (t == NULL || whole_version(t, WRITERS * PUTS) < 0)
            atomic_fetch_add(&torn, 1);
        if (t)
            store_release(s, t);
    }
    store_close(s);
    return NULL;
}

START_TEST(test_concurrent_writers)
{
    atomic_store(&torn, 0);
    pthread_t th[WRITERS];
    for (int i = 0; i < WRITERS; i++)
        pthread_create(&th[i], NULL, hot_writer, (void *)(intptr_t)i);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_eq(atomic_load(&torn), 0);
    store_dir *s = store_open(dir, 1 << 20, NULL);
    const store_table *t = store_acquire(s, "hot");
    ck_assert_int_ge(whole_version(t, WRITERS * PUTS), 0);
    store_release(s, t);
    store_table_info *list = NULL;
    size_t n = 0;
    ck_assert_int_eq(store_list(s, &list, &n), 0);
    ck_assert_uint_eq(n, 2); /* "hot" once, the built-in; no temp file left behind as a table */
    free(list);
    store_close(s);
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        ck_assert_msg(strncmp(e->d_name, ".tmp-", 5) != 0, "temp file left: %s", e->d_name);
    closedir(d);
}
END_TEST

Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    TCase *files = tcase_create("files");
    tcase_add_checked_fixture(files, make_dir, remove_dir);
    tcase_set_timeout(files, 60);
    tcase_add_test(files, test_atomic_replace);
    tcase_add_test(files, test_reload);
    tcase_add_test(files, test_corrupt_skipped);
    tcase_add_test(files, test_concurrent_writers);
    suite_add_tcase(s, files);
    return s;
}
