/*
 * store/store_dir.h -- the store's state (private to store/: store.c keeps the name map and the
 * cache of loaded tables, store_scan.c reads the directory for start-up, listings and the quota).
 */
#ifndef STORE_DIR_H
#define STORE_DIR_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "store/store_file.h"

#define STALE_TEMP_SECONDS 2 /* a temp file younger than this is never removed */

/* A name the store has read: its loaded table (the cache) or the file that failed to load. */
typedef struct {
    char name[STORE_NAME_MAX + 1];
    store_rec *t; /* the loaded table (one reference held by the map), or NULL */
    int bad;      /* 1: the file with bad_id failed to load (reported once) */
    store_file_id bad_id;
    uint64_t used; /* tick of the last lookup that found t (least recently used goes first) */
} map_entry;

struct store_dir {
    char dir[512];
    int has_dir;
    size_t max_table_bytes;
    size_t max_tables;      /* quota: tables in the directory (0 = none) */
    size_t max_store_bytes; /* quota: bytes of table files in the directory (0 = none) */
    size_t cache_bytes;     /* bound of the loaded tables' data (0 = none) */
    FILE *log;
    pthread_mutex_t mu; /* guards ents, n, cap, resident, tick */
    map_entry *ents;
    size_t n, cap;
    size_t resident;      /* bytes of data of the tables in the map */
    size_t quota_refused; /* puts refused by the quota since start */
    uint64_t tick;
    store_rec *builtin;
    store_source src;
};

/* The table name of a directory entry "<name>.npy" (a valid name), or 0. */
int store__entry_name(const char *file, char *name, size_t n);
/* 1 when this version (id) of name's file failed to load before (its checksum, say). */
int store__known_bad(store_dir *s, const char *name, const store_file_id *id);
/* At start-up: removes stale temp files and reports a file named like the built-in table. Reads
 * no table (tables are read on demand). */
void store__startup_scan(store_dir *s);

#endif
