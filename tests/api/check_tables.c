/*
 * tests/api/check_tables.c -- the learned-table routes without HTTP (api/tables.h): the order of
 * the upload checks and each answer's status, headers and bytes, over a store in a temporary
 * directory.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/tables.h"

static char dir[64];
static store_dir *store;
static api_limits lim;

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/posenc-apitables-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    store = store_open(dir, 1 << 20, NULL);
    ck_assert_ptr_nonnull(store);
    api_limits_default(&lim);
    lim.max_body_bytes = 4096;
}

static void teardown(void)
{
    store_close(store);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' || strncmp(e->d_name, ".tmp-", 5) == 0)
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The body of r as a NUL-terminated string (a stream is read to its end). */
static char *body_of(api_response *r, size_t *len)
{
    if (r->stream == NULL) {
        *len = r->len;
        char *b = malloc(r->len + 1);
        memcpy(b, r->body ? r->body : "", r->len);
        b[r->len] = '\0';
        return b;
    }
    char *b = malloc(1 << 20);
    size_t n = 0, k;
    while ((k = wire_stream_read(r->stream, b + n, 1000)) > 0)
        n += k;
    b[n] = '\0';
    *len = n;
    return b;
}

static const char *header(const api_response *r, const char *name)
{
    for (size_t i = 0; i < r->n_headers; i++) {
        if (strcmp(r->headers[i].name, name) == 0)
            return r->headers[i].value;
    }
    return NULL;
}

/* Runs begin with (name, format, declared); returns its result, *r filled when -1. */
static int begin(const char *name, api_table_format f, unsigned long long declared, store_dir *s,
                 api_response *r, api_table_upload *u)
{
    return api_table_upload_begin(u, s, &lim, name, f, NULL, declared, "t", r);
}

#define ASSERT_PROBLEM(r, st, needle)                                                              \
    do {                                                                                           \
        size_t n_;                                                                                 \
        char *b_ = body_of(&(r), &n_);                                                             \
        ck_assert_int_eq((r).status, (st));                                                        \
        ck_assert_str_eq((r).content_type, "application/problem+json");                            \
        ck_assert_msg(strstr(b_, (needle)) != NULL, "%s lacks %s", b_, (needle));                  \
        free(b_);                                                                                  \
        api_response_free(&(r));                                                                   \
    } while (0)

/* The name is checked first, then the built-in name, the data directory, the format and, for a
 * buffered body, the declared length; a .safetensors body has no body cap. */
START_TEST(test_upload_checks_in_order)
{
    api_response r;
    api_table_upload u;
    store_dir *nodir = store_open("", 1 << 20, NULL);
    ck_assert_int_eq(begin("../x", API_TABLE_UNSUPPORTED, 1 << 30, nodir, &r, &u), -1);
    ASSERT_PROBLEM(r, 404, "names match [A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    api_table_upload_free(&u);
    ck_assert_int_eq(begin(STORE_BUILTIN, API_TABLE_UNSUPPORTED, 1 << 30, nodir, &r, &u), -1);
    ASSERT_PROBLEM(r, 409, "is built in and cannot be replaced");
    api_table_upload_free(&u);
    ck_assert_int_eq(begin("t", API_TABLE_UNSUPPORTED, 1 << 30, nodir, &r, &u), -1);
    ASSERT_PROBLEM(r, 503, "no usable data directory");
    api_table_upload_free(&u);
    store_close(nodir);
    ck_assert_int_eq(begin("t", API_TABLE_UNSUPPORTED, 1 << 30, store, &r, &u), -1);
    ASSERT_PROBLEM(r, 415, "application/x-npy (.npy)");
    api_table_upload_free(&u);
    ck_assert_int_eq(begin("t", API_TABLE_NPY, 4097, store, &r, &u), -1);
    ASSERT_PROBLEM(r, 413, "the body of 4097 bytes exceeds max_body_bytes (4096)");
    api_table_upload_free(&u);
    ck_assert_int_eq(begin("t", API_TABLE_JSON, 4096, store, &r, &u), 0);
    api_table_upload_free(&u);
    ck_assert_int_eq(begin("t", API_TABLE_SAFETENSORS, 1 << 30, store, &r, &u), 0);
    ck_assert_ptr_nonnull(u.st);
    api_table_upload_free(&u);
    ck_assert_ptr_null(u.st);
}
END_TEST

/* PUT (201, then 200 replaced), GET as JSON and as .npy, list, DELETE (204, then 404). */
START_TEST(test_round_trip)
{
    const char *json = "{\"data\": [[0.5, -2], [3.25, 1e-3]]}";
    api_response r;
    api_table_upload u;
    for (int pass = 0; pass < 2; pass++) {
        ck_assert_int_eq(begin("t", API_TABLE_JSON, strlen(json), store, &r, &u), 0);
        ck_assert_int_eq(api_table_upload_parse(&u, &lim, json, strlen(json), "t", &r), 0);
        api_table_upload_store(&u, store, "t", &r);
        api_table_upload_free(&u);
        ck_assert_int_eq(r.status, pass == 0 ? 201 : 200);
        ck_assert_str_eq(header(&r, "Location"), "/tables/t");
        size_t n;
        char *b = body_of(&r, &n);
        /* 2 x 2 float64: 32 bytes */
        ck_assert_msg(strstr(b, "{\"name\":\"t\",\"shape\":[2,2],\"dtype\":\"float64\",\"format\":"
                                "\"json\",\"bytes\":32,\"created\":\"") == b,
                      "%s", b);
        ck_assert_msg(strstr(b, "Z\",\"builtin\":false}") != NULL, "%s", b);
        free(b);
        api_response_free(&r);
    }
    api_table_get(store, "t", 0, "t", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "application/json");
    ck_assert_uint_eq(r.n_headers, 1); /* the answer depends on Accept */
    ck_assert_str_eq(header(&r, "Vary"), "Accept");
    api_response_free(&r);

    api_table_get(store, "t", 1, "t", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "application/x-npy");
    ck_assert_str_eq(header(&r, "Content-Disposition"), "attachment; filename=\"t.npy\"");
    ck_assert_str_eq(header(&r, "Vary"), "Accept");
    ck_assert_ptr_nonnull(r.stream);
    ck_assert_ptr_null(r.npy_array);
    size_t n;
    char *b = body_of(&r, &n);
    ck_assert_uint_eq(n, 128 + 32); /* header padded to 128, then 4 float64 */
    ck_assert(memcmp(b + 10, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 59) ==
              0);
    double v[4];
    memcpy(v, b + 128, sizeof v); /* little-endian hosts */
    ck_assert(v[0] == 0.5 && v[1] == -2.0 && v[2] == 3.25 && v[3] == 1e-3);
    free(b);
    api_response_free(&r);

    api_tables_list(store, NULL, NULL, "t", &r);
    b = body_of(&r, &n);
    ck_assert_msg(strstr(b, "{\"tables\":[{\"name\":\"demo-512x64\"") == b, "%s", b);
    ck_assert_ptr_nonnull(strstr(b, "},{\"name\":\"t\","));
    free(b);
    api_response_free(&r);

    api_table_delete(store, "t", "t", &r);
    ck_assert_int_eq(r.status, 204);
    ck_assert_ptr_null(r.body);
    api_table_delete(store, "t", "t", &r);
    ASSERT_PROBLEM(r, 404, "no table named \\\"t\\\"");
    api_table_delete(store, STORE_BUILTIN, "t", &r);
    ASSERT_PROBLEM(r, 409, "is built in and cannot be deleted");
    api_table_get(store, "t", 1, "t", &r);
    ASSERT_PROBLEM(r, 404, "no table named");
    api_table_get(store, "a/b", 0, "t", &r);
    ASSERT_PROBLEM(r, 404, "names match");
}
END_TEST

/* A body that does not parse is answered from its parser's problem; nothing is stored. */
START_TEST(test_parse_errors)
{
    api_response r;
    api_table_upload u;
    const char *bad = "{\"data\": [[1, 2], [3]]";
    ck_assert_int_eq(begin("t", API_TABLE_JSON, strlen(bad), store, &r, &u), 0);
    ck_assert_int_eq(api_table_upload_parse(&u, &lim, bad, strlen(bad), "t", &r), -1);
    ASSERT_PROBLEM(r, 400, "malformed JSON at line 1");
    api_table_upload_free(&u);
    ck_assert_int_eq(begin("t", API_TABLE_NPY, 12, store, &r, &u), 0);
    ck_assert_int_eq(api_table_upload_parse(&u, &lim, "hello, world", 12, "t", &r), -1);
    ASSERT_PROBLEM(r, 422, "not an .npy file");
    api_table_upload_free(&u);
    ck_assert_int_eq(begin("t", API_TABLE_SAFETENSORS, 0, store, &r, &u), 0);
    ck_assert_int_eq(api_table_upload_parse(&u, &lim, NULL, 0, "t", &r), -1);
    ck_assert_ptr_null(u.st); /* a failed stream is freed at once */
    ck_assert_int_eq(r.status / 100, 4);
    api_response_free(&r);
    api_table_upload_free(&u);
    api_table_get(store, "t", 0, "t", &r);
    ASSERT_PROBLEM(r, 404, "no table named");
}
END_TEST

Suite *tables_suite(void)
{
    Suite *s = suite_create("tables");
    TCase *tc = tcase_create("tables");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_upload_checks_in_order);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_parse_errors);
    suite_add_tcase(s, tc);
    return s;
}
