/*
 * store/store.h -- the learned-table store behind /tables and POST /learned
 * (docs/api.md#tables): durable files in a data directory, an in-memory name map of refcounted
 * immutable tables, and the built-in demo-512x64.
 *
 * On disk: one file per table, <data_dir>/<name>.npy: a standard NumPy .npy 1.0 file holding the
 * table as little-endian float64, C order ([rows][cols]; np.load reads it as is), followed by one
 * trailer line that NumPy ignores:
 *   "POSENC-TABLE 1 dtype=<float16|bfloat16|float32|float64> format=<json|npy|safetensors>
 *    created_ms=<unix ms> fnv1a64=<16 hex digits>\n"
 * where fnv1a64 is FNV-1a 64 over the data as 64-bit little-endian words (h = (h ^ w) * prime,
 * offset basis 0xcbf29ce484222325, prime 0x100000001b3). A plain .npy (float16/32/64, no trailer)
 * dropped into the directory is accepted too (dtype from its header, created = its mtime).
 *
 * Writes are durable and atomic: a unique temp file ".tmp-<name>-XXXXXX" (mkstemp, flock'ed while
 * written) in the data directory, write, fsync, then link() to the final name (created) or
 * rename() over it (replaced), then fsync of the directory. A reader therefore sees the old table
 * or the new one, never a mix; a crash leaves at most a temp file, which start-up removes (only
 * when no live writer holds its lock and it is older than 2 s).
 *
 * Tables are read on demand, never at start-up (which only removes stale temp files): a lookup
 * reads the file on a miss and keeps the table in a cache bounded in bytes (store_set_limits;
 * least recently used out). A corrupt or truncated file is reported on the log stream when it is
 * first used and skipped (it never hides the others). Lookups validate the cache against the
 * directory: a file whose inode, size or mtime changed is read again, and a file gone from the
 * directory is gone from the cache, so replicas sharing a volume see each other's tables,
 * replacements and deletions. Listings read the directory's names and the headers of one page.
 *
 * Thread safety: every function may be called from any thread. One mutex guards the name map only;
 * files are read and written outside it. Tables are immutable and refcounted: an acquired table
 * stays valid until released, whatever PUT or DELETE happens meanwhile.
 */
#ifndef STORE_H
#define STORE_H

#include <stdint.h>
#include <stdio.h>

#include "store/table.h"
#include "wire/tensor_io.h"

typedef struct store_dir store_dir;

#define STORE_BUILTIN "demo-512x64" /* 512 x 64, 0.02 * N(0,1), core/learned.h generator */

/* What GET /tables shows of a table. */
typedef struct {
    char name[STORE_NAME_MAX + 1];
    size_t rows, cols;
    wire_dtype dtype;   /* of the upload */
    char format[16];    /* "json", "npy", "safetensors" or "builtin" */
    int64_t created_ms; /* unix time in ms of the upload; -1 for the built-in table */
    int builtin;        /* 1 for demo-512x64 */
} store_table_info;

/* Outcomes of store_put / store_delete. */
typedef enum {
    STORE_CREATED = 0,  /* put: a new name */
    STORE_REPLACED = 1, /* put: an existing table was replaced */
    STORE_DELETED = 2,  /* delete: done */
    STORE_NOT_FOUND = 3,
    STORE_BUILTIN_NAME = 4, /* the built-in table cannot be replaced or deleted */
    STORE_BAD_NAME = 5,
    STORE_NO_DIR = 6, /* no usable data directory */
    STORE_IO = 7,     /* a file operation failed (message says which) */
    STORE_NOMEM = 8,
    STORE_QUOTA = 9, /* put: max_tables or max_store_bytes would be passed (err says which) */
} store_result;

/*
 * Opens the store on dir (created, with parents, when missing; "" = no directory: only the
 * built-in table, PUT answers STORE_NO_DIR). Removes stale temp files, loads every table, and
 * reports each skipped file on log (one line each, "posencd: tables: ..."). max_table_bytes bounds
 * a table (rows * cols * 8) read from disk. Returns NULL only when out of memory; a directory that
 * cannot be created or read is reported and leaves the store without a directory.
 */
store_dir *store_open(const char *dir, size_t max_table_bytes, FILE *log);
/* Frees the store (tables still acquired stay valid until released). */
void store_close(store_dir *s);

/* 1 when tables can be stored (a usable data directory), else 0. */
int store_writable(const store_dir *s);

/* The store_source for api_ctx.tables (acquire / release below); valid while s lives. */
const store_source *store_as_source(store_dir *s);

/* Returns the table name (validated against the directory as described above) or NULL. */
const store_table *store_acquire(store_dir *s, const char *name);
/* Gives back a table from store_acquire. */
void store_release(store_dir *s, const store_table *t);
/* The metadata of an acquired table. */
void store_info(const store_table *t, store_table_info *info);

/*
 * Stores t under name durably (see above), taking ownership of t->data on every outcome (t is
 * zeroed). format: "json", "npy" or "safetensors". Returns STORE_CREATED or _REPLACED (then
 * *info describes the stored table), or an error (_BAD_NAME, _BUILTIN_NAME, _NO_DIR, _IO with
 * err, _NOMEM); on error nothing visible changed.
 */
store_result store_put(store_dir *s, const char *name, wire_tensor *t, const char *format,
                       store_table_info *info, char *err, size_t err_n);

/* Deletes the table name: STORE_DELETED, _NOT_FOUND, _BUILTIN_NAME, _BAD_NAME, _NO_DIR, or
 * _IO (err filled). */
store_result store_delete(store_dir *s, const char *name, char *err, size_t err_n);

/*
 * One page of the listing: reads the directory's names (linear), sorts them (built-in included),
 * and returns the metadata of at most limit tables whose names sort after `after` (NULL or "":
 * from the first) in *out (malloc'd; free()) with *n entries; *more is 1 when names remain after
 * the page. Only the page's files are opened, and only their header and trailer are read (a file
 * that cannot be read is left out; its checksum is checked when it is used). 0, or -1 when out of
 * memory.
 */
int store_list_page(store_dir *s, const char *after, size_t limit, store_table_info **out,
                    size_t *n, int *more);

/* Every table: store_list_page without a page bound. */
int store_list(store_dir *s, store_table_info **out, size_t *n);

/* The quota's usage, counted from the directory: tables and bytes of their files, leaving out
 * the table `except` (NULL: none) and the built-in one. 0, or -1 when the directory cannot be
 * read. */
int store_usage(store_dir *s, const char *except, size_t *tables, size_t *bytes);

/* The cache now (bytes of data of the loaded tables, their count) and the puts refused by the
 * quota since the store was opened. */
void store_cache_stats(store_dir *s, size_t *cached_bytes, size_t *cached_tables,
                       size_t *quota_refused);

/* Sets the quota (max_tables tables, max_store_bytes bytes of files in the directory; 0 = none;
 * store_put answers STORE_QUOTA past it) and the bound of loaded tables' data kept in memory
 * (cache_bytes; least recently used first out; 0 = none). Defaults: no quota, no bound. */
void store_set_limits(store_dir *s, size_t max_tables, size_t max_store_bytes, size_t cache_bytes);

#endif
