/* api/tables.c -- the learned-table routes: rules and answers (tables.h). */
#include "api/tables.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/table_body.h"
#include "wire/stream.h"

/* The store's name for a format (store_put). */
static const char *const FORMAT_NAMES[] = {"json", "npy", "safetensors"};

/* Adds the header name: value (printf-formatted) to out (api_response.headers). */
static void add_header(api_response *out, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_header(api_response *out, const char *name, const char *fmt, ...)
{
    if (out->n_headers >= API_MAX_HEADERS)
        return;
    api_header *h = &out->headers[out->n_headers++];
    h->name = name;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->value, sizeof h->value, fmt, ap);
    va_end(ap);
}

/* created_ms as RFC 3339 UTC with milliseconds, or JSON null (built-in). */
static void jw_created(wire_jw *w, int64_t ms)
{
    if (ms < 0) {
        wire_jw_null(w);
        return;
    }
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char ts[40], full[48];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(full, sizeof full, "%s.%03dZ", ts, (int)(ms % 1000));
    wire_jw_str(w, full);
}

/* {name, shape, dtype, format, bytes, created, builtin[, tensor]} (tables.h). */
static void jw_table_info(wire_jw *w, const store_table_info *i, const char *tensor)
{
    wire_jw_obj_begin(w);
    wire_jw_key(w, "name");
    wire_jw_str(w, i->name);
    wire_jw_key(w, "shape");
    wire_jw_arr_begin(w);
    wire_jw_int(w, (int64_t)i->rows);
    wire_jw_int(w, (int64_t)i->cols);
    wire_jw_arr_end(w);
    wire_jw_key(w, "dtype");
    wire_jw_str(w, wire_dtype_name(i->dtype));
    wire_jw_key(w, "format");
    wire_jw_str(w, i->format);
    wire_jw_key(w, "bytes");
    wire_jw_int(w, (int64_t)(i->rows * i->cols * sizeof(double)));
    wire_jw_key(w, "created");
    jw_created(w, i->created_ms);
    wire_jw_key(w, "builtin");
    wire_jw_bool(w, i->builtin);
    if (tensor) {
        wire_jw_key(w, "tensor");
        wire_jw_str(w, tensor);
    }
    wire_jw_obj_end(w);
}

/* A problem answer: code and detail. */
static void problem(api_problem_code code, const char *detail, const char *request_id,
                    api_response *out)
{
    api_simple_problem(code, detail, request_id, out);
}

/* The JSON text of w as a status answer (503 when out of memory). */
static void answer_jw(wire_jw *w, int status, const char *request_id, api_response *out)
{
    memset(out, 0, sizeof *out);
    out->body = wire_jw_take(w, &out->len);
    if (out->body == NULL) {
        problem(API_PB_UNAVAILABLE, "out of memory", request_id, out);
        return;
    }
    out->status = status;
    out->content_type = "application/json";
}

static void bad_name(const char *request_id, api_response *out)
{
    problem(API_PB_NOT_FOUND, "no such table: names match [A-Za-z0-9][A-Za-z0-9._-]{0,63}",
            request_id, out);
}

/* A problem whose detail names the table: 404 "no table named ..." or 409 "... is built in". */
static void named_problem(api_response *out, const char *request_id, api_problem_code code,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void named_problem(api_response *out, const char *request_id, api_problem_code code,
                          const char *fmt, ...)
{
    char d[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d, sizeof d, fmt, ap);
    va_end(ap);
    problem(code, d, request_id, out);
}

void api_tables_list(store_dir *store, const char *limit, const char *after, const char *request_id,
                     api_response *out)
{
    size_t lim = API_TABLES_PAGE_DEFAULT;
    if (limit != NULL) {
        char *end = NULL;
        unsigned long long v = strtoull(limit, &end, 10);
        if (end == limit || *end != '\0' || limit[0] == '-' || v < 1 || v > API_TABLES_PAGE_MAX) {
            named_problem(out, request_id, API_PB_INVALID_FIELD,
                          "query parameter limit must be an integer from 1 to %d",
                          API_TABLES_PAGE_MAX);
            return;
        }
        lim = (size_t)v;
    }
    if (after != NULL && after[0] && !store_name_valid(after)) {
        named_problem(
            out, request_id, API_PB_INVALID_FIELD,
            "query parameter after must be a table name ([A-Za-z0-9][A-Za-z0-9._-]{0,63})");
        return;
    }
    store_table_info *v = NULL;
    size_t n = 0;
    int more = 0;
    if (store_list_page(store, after, lim, &v, &n, &more) < 0) {
        problem(API_PB_UNAVAILABLE, "out of memory", request_id, out);
        return;
    }
    wire_jw w;
    wire_jw_init(&w, (size_t)1 << 26);
    wire_jw_obj_begin(&w);
    wire_jw_key(&w, "tables");
    wire_jw_arr_begin(&w);
    for (size_t i = 0; i < n; i++)
        jw_table_info(&w, &v[i], NULL);
    wire_jw_arr_end(&w);
    if (more && n > 0) {
        wire_jw_key(&w, "next");
        wire_jw_str(&w, v[n - 1].name);
    }
    wire_jw_obj_end(&w);
    free(v);
    answer_jw(&w, 200, request_id, out);
}

/* The rows of an acquired table, for the .npy stream (wire_rows). */
typedef struct {
    store_dir *store;
    const store_table *t;
} table_rows;

static const double *table_row(void *self, size_t r, double *scratch)
{
    (void)scratch;
    const table_rows *tr = self;
    return tr->t->data + r * tr->t->cols;
}

static void table_rows_release(void *self)
{
    table_rows *tr = self;
    store_release(tr->store, tr->t);
    free(tr);
}

void api_table_get(store_dir *store, const char *name, int npy, const char *request_id,
                   api_response *out)
{
    if (!store_name_valid(name)) {
        bad_name(request_id, out);
        return;
    }
    const store_table *t = store_acquire(store, name);
    if (t == NULL) {
        named_problem(out, request_id, API_PB_NOT_FOUND, "no table named \"%s\"", name);
        return;
    }
    if (!npy) {
        store_table_info info;
        store_info(t, &info);
        store_release(store, t);
        wire_jw w;
        wire_jw_init(&w, 1u << 16);
        jw_table_info(&w, &info, NULL);
        answer_jw(&w, 200, request_id, out);
        if (out->status == 200) /* JSON or .npy by Accept: caches must key on it */
            add_header(out, "Vary", "Accept");
        return;
    }
    table_rows *tr = malloc(sizeof *tr);
    if (tr == NULL) {
        store_release(store, t);
        problem(API_PB_UNAVAILABLE, "out of memory", request_id, out);
        return;
    }
    tr->store = store;
    tr->t = t;
    wire_rows src = {.rows = t->rows,
                     .cols = t->cols,
                     .row = table_row,
                     .release = table_rows_release,
                     .self = tr};
    wire_err we;
    wire_err_init(&we);
    memset(out, 0, sizeof *out);
    out->stream = wire_stream_npy_rows(&src, &we); /* releases the table on failure too */
    if (out->stream == NULL) {
        api_problem pb;
        api_problem_init(&pb);
        api_problem_from_wire(&pb, &we);
        api_problem_response(&pb, request_id, out);
        return;
    }
    out->status = 200;
    out->content_type = "application/x-npy";
    add_header(out, "Content-Disposition", "attachment; filename=\"%s.npy\"", name);
    add_header(out, "Vary", "Accept"); /* JSON or .npy by Accept: caches must key on it */
}

void api_table_delete(store_dir *store, const char *name, const char *request_id, api_response *out)
{
    char err[256];
    switch (store_delete(store, name, err, sizeof err)) {
    case STORE_DELETED:
        memset(out, 0, sizeof *out);
        out->status = 204;
        return;
    case STORE_BUILTIN_NAME:
        named_problem(out, request_id, API_PB_CONFLICT, "\"%s\" is built in and cannot be deleted",
                      name);
        return;
    case STORE_NOT_FOUND:
        named_problem(out, request_id, API_PB_NOT_FOUND, "no table named \"%s\"", name);
        return;
    case STORE_BAD_NAME:
        bad_name(request_id, out);
        return;
    default:
        problem(API_PB_UNAVAILABLE, err[0] ? err : "cannot delete", request_id, out);
    }
}

int api_table_upload_begin(api_table_upload *u, store_dir *store, const api_limits *lim,
                           const char *name, api_table_format format, const char *tensor,
                           unsigned long long declared, const char *request_id, api_response *out)
{
    memset(u, 0, sizeof *u);
    u->format = format;
    if (!store_name_valid(name)) {
        bad_name(request_id, out);
        return -1;
    }
    snprintf(u->name, sizeof u->name, "%s", name);
    if (strcmp(name, STORE_BUILTIN) == 0) {
        problem(API_PB_CONFLICT, "\"" STORE_BUILTIN "\" is built in and cannot be replaced",
                request_id, out);
        return -1;
    }
    if (!store_writable(store)) {
        problem(API_PB_UNAVAILABLE,
                "no usable data directory (--data-dir): tables cannot be stored", request_id, out);
        return -1;
    }
    if (format == API_TABLE_UNSUPPORTED) {
        problem(API_PB_UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/json ({\"data\": [[...]]}), "
                "application/x-npy (.npy) or application/x-safetensors / "
                "application/octet-stream (.safetensors)",
                request_id, out);
        return -1;
    }
    if (format == API_TABLE_SAFETENSORS) {
        u->st = malloc(sizeof *u->st);
        /* the JSON header is capped by max_body_bytes (it is body text held in memory), the
         * kept tensor by max_table_bytes */
        if (u->st == NULL ||
            wire_st_init(u->st, tensor, lim->max_body_bytes, lim->max_table_bytes) < 0) {
            free(u->st);
            u->st = NULL;
            problem(API_PB_UNAVAILABLE, "out of memory", request_id, out);
            return -1;
        }
        return 0;
    }
    if (declared > lim->max_body_bytes) {
        char d[200];
        snprintf(d, sizeof d,
                 "the body of %llu bytes exceeds max_body_bytes (%zu); a .safetensors upload "
                 "is streamed without that cap",
                 declared, lim->max_body_bytes);
        problem(API_PB_TOO_LARGE, d, request_id, out);
        return -1;
    }
    return 0;
}

int api_table_upload_parse(api_table_upload *u, const api_limits *lim, const char *body, size_t len,
                           const char *request_id, api_response *out)
{
    api_problem pb;
    api_problem_init(&pb);
    wire_err we;
    wire_err_init(&we);
    int rc;
    if (u->format == API_TABLE_JSON)
        rc = api_table_json_parse(body, len, lim, &u->table, &pb);
    else if (u->format == API_TABLE_NPY)
        rc = wire_npy_parse(body ? body : "", len, lim->max_table_bytes, 0, &u->table, NULL, &we);
    else
        rc = wire_st_finish(u->st, &u->table, &u->tensor, &we);
    api_problem_from_wire(&pb, &we);
    if (rc == 0)
        return 0;
    if (u->st != NULL) { /* a failed stream frees what it holds now */
        wire_st_free(u->st);
        free(u->st);
        u->st = NULL;
    }
    api_problem_response(&pb, request_id, out);
    return -1;
}

void api_table_upload_store(api_table_upload *u, store_dir *store, const char *request_id,
                            api_response *out)
{
    store_table_info info;
    char err[256];
    store_result r =
        store_put(store, u->name, &u->table, FORMAT_NAMES[u->format], &info, err, sizeof err);
    if (r == STORE_CREATED || r == STORE_REPLACED) {
        wire_jw w;
        wire_jw_init(&w, 1u << 16);
        jw_table_info(&w, &info, u->tensor);
        answer_jw(&w, r == STORE_CREATED ? 201 : 200, request_id, out);
        if (out->status != 503)
            add_header(out, "Location", "/tables/%s", u->name);
        return;
    }
    if (r == STORE_BUILTIN_NAME)
        named_problem(out, request_id, API_PB_CONFLICT, "\"%s\" is built in and cannot be replaced",
                      u->name);
    else if (r == STORE_BAD_NAME)
        bad_name(request_id, out);
    else if (r == STORE_QUOTA)
        problem(API_PB_INSUFFICIENT_STORAGE, err, request_id, out);
    else
        problem(API_PB_UNAVAILABLE,
                r == STORE_IO      ? err
                : r == STORE_NOMEM ? "out of memory"
                                   : "no usable data directory",
                request_id, out);
}

void api_table_upload_free(api_table_upload *u)
{
    if (u->st != NULL) {
        wire_st_free(u->st);
        free(u->st);
        u->st = NULL;
    }
    wire_tensor_free(&u->table);
}
