/*
 * store/store_file.h -- the store's table objects and its file format (private to store/store.c;
 * the format is described in store.h): refcounted immutable tables, reading and validating a
 * table file, writing one.
 */
#ifndef STORE_FILE_H
#define STORE_FILE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "store/store.h"

/* What identifies one version of a file: every write is a new inode (temp file + rename). */
typedef struct {
    dev_t dev;
    ino_t ino;
    off_t size;
    int64_t mtime_ns;
} store_file_id;

/* An immutable table shared by reference count. */
typedef struct {
    store_table pub;    /* first member: an store_table * handed out is a store_rec * */
    atomic_size_t refs; /* the map's reference plus one per acquirer */
    store_table_info info;
    double *data;     /* [rows][cols], owned */
    store_file_id id; /* the file it was read from or written to (zero for the built-in) */
} store_rec;

store_file_id store__file_id_of(const struct stat *st);
int store__file_id_eq(const store_file_id *a, const store_file_id *b);

/* A new table with one reference, taking ownership of data ([rows][cols]); NULL when out of
 * memory (data is then not freed). */
store_rec *store__table_new(const char *name, size_t rows, size_t cols, double *data);
/* Adds a reference; returns t. */
store_rec *store__table_ref(store_rec *t);
/* Drops a reference (t may be NULL); the last one frees the table. */
void store__table_unref(store_rec *t);

/*
 * Reads path as the table `name`: a .npy (float16/32/64, 2-D, C order; rows * cols * 8 <=
 * max_table_bytes) optionally followed by the posenc trailer line, whose checksum must match.
 * Returns a new table (one reference; info.format and dtype from the trailer, else "npy" and the
 * header's dtype, created = mtime) or NULL with why filled ("" when the file does not exist) and
 * *id the identity of the file that was examined (zero when it could not be opened).
 */
store_rec *store__table_load(const char *path, const char *name, size_t max_table_bytes,
                             store_file_id *id, char *why, size_t why_n);

/* Reads only the header and the trailer of path (the table `name`): *info as store__table_load
 * would fill it (the checksum and the values are not checked: that needs the data) and *id.
 * 0, or -1 when the file is missing, not a regular file, or its header or trailer is bad. Two
 * small reads: for listings. */
int store__table_peek(const char *path, const char *name, size_t max_table_bytes,
                      store_table_info *info, store_file_id *id);

/* Writes t in the store's format (float64 .npy + trailer) to fd. Returns 0 or -1 (errno set). */
int store__table_write(int fd, const store_rec *t);

#endif
