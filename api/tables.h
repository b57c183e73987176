/*
 * api/tables.h -- the learned-table routes (openapi.yaml, tag "tables"): GET /tables, GET and
 * DELETE /tables/{name}, PUT /tables/{name}. The rules live here: table names, upload formats,
 * the body limits of an upload, the JSON descriptions and every problem+json answer. No HTTP:
 * server/ streams the body in (server/tables.c) and sends the api_response out; the store is
 * store/store.h.
 *
 * A table description (list, GET as JSON, PUT answer):
 *   {"name", "shape": [rows, cols], "dtype", "format", "bytes": rows*cols*8,
 *    "created": RFC 3339 UTC with milliseconds or null (built-in), "builtin"[, "tensor"]}
 */
#ifndef API_TABLES_H
#define API_TABLES_H

#include <stddef.h>

#include "api/api.h"
#include "store/store.h"
#include "wire/tensor_io.h"

/* The body formats of PUT /tables/{name}, named by the request's Content-Type. */
typedef enum {
    API_TABLE_JSON = 0,        /* application/json: {"data": [[...], ...]} (api/table_body.h) */
    API_TABLE_NPY = 1,         /* application/x-npy: a .npy file, buffered */
    API_TABLE_SAFETENSORS = 2, /* application/x-safetensors or application/octet-stream: streamed */
    API_TABLE_UNSUPPORTED = 3  /* anything else: 415 */
} api_table_format;

/* One upload in progress, from its headers to its answer (api_table_upload_*). */
typedef struct {
    char name[STORE_NAME_MAX + 1];
    api_table_format format;
    wire_st_stream *st; /* API_TABLE_SAFETENSORS: the incremental parser (owned), else NULL */
    wire_tensor table;  /* the parsed table, between _parse and _store (owned) */
    const char *tensor; /* .safetensors: the chosen tensor's name (valid while st lives) */
} api_table_upload;

/* Tables in one page of GET /tables at most, and without ?limit=. */
#define API_TABLES_PAGE_MAX 1000
#define API_TABLES_PAGE_DEFAULT 100

/* GET /tables?limit=&after=: the descriptions of up to limit tables (1..API_TABLES_PAGE_MAX; NULL:
 * API_TABLES_PAGE_DEFAULT) whose names sort after `after` (NULL: from the first), sorted by name,
 * with "next" (the after= of the next page) when more follow (200); 422 invalid-field for a bad
 * limit or after; 503 when out of memory. */
void api_tables_list(store_dir *store, const char *limit, const char *after, const char *request_id,
                     api_response *out);

/*
 * GET /tables/{name}: with npy 0 the table's description (200 JSON); with npy 1 the table as a
 * .npy 1.0 file '<f8' [rows][cols] (200 application/x-npy, streamed from the acquired table, with
 * Content-Disposition: attachment; filename="<name>.npy"). 404 for a bad name or no such table,
 * 503 when out of memory.
 */
void api_table_get(store_dir *store, const char *name, int npy, const char *request_id,
                   api_response *out);

/* DELETE /tables/{name}: 204 (no body), 404 (bad name, no such table), 409 (built in), 503. */
void api_table_delete(store_dir *store, const char *name, const char *request_id,
                      api_response *out);

/*
 * Headers of PUT /tables/{name}: checks, in this order, the name (404), the built-in name (409), a
 * usable data directory (503), the format (415), then for a buffered format the declared
 * Content-Length (bytes; 0 when none) against lim->max_body_bytes (413). A .safetensors body has
 * no body cap: its parser is created here (its JSON header capped by max_body_bytes, the kept
 * tensor by max_table_bytes; tensor = the ?tensor= argument or NULL). Returns 0 (read the body),
 * or -1 with out filled (answer now; u needs api_table_upload_free either way).
 */
int api_table_upload_begin(api_table_upload *u, store_dir *store, const api_limits *lim,
                           const char *name, api_table_format format, const char *tensor,
                           unsigned long long declared, const char *request_id, api_response *out);

/*
 * Parses the whole body (JSON or .npy: body[0..len); .safetensors: what u->st was fed) into
 * u->table, bounded by lim->max_table_bytes. Returns 0, or -1 with out filled (400 / 415 / 422 /
 * 503 problem). A .safetensors parser is freed on failure (its memory is then released).
 */
int api_table_upload_parse(api_table_upload *u, const api_limits *lim, const char *body, size_t len,
                           const char *request_id, api_response *out);

/*
 * Stores u->table durably under u->name (store_put) and fills out: 201 (new name) or 200
 * (replaced) with the description, "tensor" for a .safetensors upload, and Location:
 * /tables/<name>; else 409 (built in), 404 (bad name) or 503 (no directory, I/O, memory).
 */
void api_table_upload_store(api_table_upload *u, store_dir *store, const char *request_id,
                            api_response *out);

/* Frees what u still owns (parser, table). */
void api_table_upload_free(api_table_upload *u);

#endif
