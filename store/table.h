/*
 * store/table.h -- a learned position table as readers see it, and the interface through which
 * api/ handlers find tables by name (store/store.c implements it in the daemon; tests use a fake).
 * Table names: store_name_valid.
 */
#ifndef STORE_TABLE_H
#define STORE_TABLE_H

#include <stddef.h>

#define STORE_NAME_MAX 64 /* characters of a table name */

/* A learned position table: [rows][cols] float64, immutable while acquired. */
typedef struct {
    size_t rows;        /* positions, >= 1 */
    size_t cols;        /* embedding width, >= 1 */
    const double *data; /* [rows][cols] row-major, finite */
} store_table;

/*
 * Where handlers find learned tables by name (store/store.c in the daemon, a fake in tests).
 * acquire returns the table named `name` (a valid name, see store_name_valid) or NULL when
 * there is none; a non-NULL table stays valid and unchanged until given back with release (a
 * concurrent replace or delete never touches it). Both are safe to call from any thread.
 */
typedef struct store_source {
    void *self;
    const store_table *(*acquire)(void *self, const char *name);
    void (*release)(void *self, const store_table *t);
} store_source;

/* 1 when name matches [A-Za-z0-9][A-Za-z0-9._-]{0,63} (so it never names a path outside the
 * data directory, a hidden file or a temp file), else 0. */
int store_name_valid(const char *name);

#endif
