/* store/store.c -- the learned-table store: the name map, lookups validated against the directory,
 * durable writes, deletes and directory scans. See store.h for the rules and the file format
 * (read and written by store_file.c). */
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/learned.h"
#include "store/store_dir.h"
#include "store/store_file.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void table_path(const store_dir *s, const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s.npy", s->dir, name);
}

static void fsync_dir(const store_dir *s)
{
    int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

/* ---- the name map (callers hold s->mu) ------------------------------------------------------ */

static map_entry *map_find(store_dir *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->ents[i].name, name) == 0)
            return &s->ents[i];
    }
    return NULL;
}

static map_entry *map_add(store_dir *s, const char *name)
{
    map_entry *e = map_find(s, name);
    if (e)
        return e;
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        map_entry *ne = realloc(s->ents, ncap * sizeof *ne);
        if (ne == NULL)
            return NULL;
        s->ents = ne;
        s->cap = ncap;
    }
    e = &s->ents[s->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

/* Bytes of a table's data (what the cache bound counts). */
static size_t rec_bytes(const store_rec *t)
{
    return t ? t->pub.rows * t->pub.cols * sizeof(double) : 0;
}

/* Removes name from the map; returns the table it held (the caller unrefs it outside the lock). */
static store_rec *map_remove(store_dir *s, const char *name)
{
    map_entry *e = map_find(s, name);
    if (e == NULL)
        return NULL;
    store_rec *t = e->t;
    s->resident -= rec_bytes(t);
    *e = s->ents[--s->n];
    return t;
}

/* Drops least recently used tables (never `keep`) until the loaded tables' data fits
 * cache_bytes. A table still acquired stays valid (its reference is its own); it is read again
 * from its file on its next lookup. */
static void map_evict(store_dir *s, const char *keep)
{
    while (s->cache_bytes && s->resident > s->cache_bytes) {
        map_entry *lru = NULL;
        for (size_t i = 0; i < s->n; i++) {
            map_entry *e = &s->ents[i];
            if (e->t != NULL && strcmp(e->name, keep) != 0 && (lru == NULL || e->used < lru->used))
                lru = e;
        }
        if (lru == NULL)
            return;
        store__table_unref(map_remove(s, lru->name));
    }
}

/* Installs t (taking one reference for the map) and keeps the cache within its bound; returns
 * the table it replaced. */
static store_rec *map_install(store_dir *s, const char *name, store_rec *t)
{
    map_entry *e = map_add(s, name);
    if (e == NULL)
        return NULL; /* out of memory: the table is simply not cached */
    store_rec *old = e->t;
    s->resident -= rec_bytes(old);
    e->t = store__table_ref(t);
    s->resident += rec_bytes(t);
    e->bad = 0;
    e->used = ++s->tick;
    map_evict(s, name);
    return old;
}

int store__known_bad(store_dir *s, const char *name, const store_file_id *id)
{
    pthread_mutex_lock(&s->mu);
    map_entry *e = map_find(s, name);
    int bad = e != NULL && e->bad && store__file_id_eq(&e->bad_id, id);
    pthread_mutex_unlock(&s->mu);
    return bad;
}

/* ---- lookups -------------------------------------------------------------------------------- */

const store_table *store_acquire(store_dir *s, const char *name)
{
    if (!store_name_valid(name))
        return NULL;
    if (strcmp(name, STORE_BUILTIN) == 0)
        return &store__table_ref(s->builtin)->pub;
    if (!s->has_dir)
        return NULL;
    char path[1024];
    table_path(s, name, path, sizeof path);
    struct stat st;
    int exists = stat(path, &st) == 0;
    store_file_id now = exists ? store__file_id_of(&st) : (store_file_id){0, 0, 0, 0};
    store_rec *hit = NULL, *gone = NULL;
    int known_bad = 0;
    pthread_mutex_lock(&s->mu);
    map_entry *e = map_find(s, name);
    if (!exists)
        gone = map_remove(s, name); /* deleted, possibly by another replica */
    else if (e && e->t && store__file_id_eq(&e->t->id, &now)) {
        hit = store__table_ref(e->t);
        e->used = ++s->tick;
    } else if (e && e->bad && store__file_id_eq(&e->bad_id, &now))
        known_bad = 1;
    pthread_mutex_unlock(&s->mu);
    store__table_unref(gone);
    if (hit)
        return &hit->pub;
    if (!exists || known_bad)
        return NULL;

    /* A miss or a changed file: read it outside the lock. */
    char why[256];
    store_file_id id;
    store_rec *t = store__table_load(path, name, s->max_table_bytes, &id, why, sizeof why);
    store_rec *old = NULL;
    pthread_mutex_lock(&s->mu);
    e = map_find(s, name);
    if (t == NULL) {
        int report = why[0] && !(e && e->bad && store__file_id_eq(&e->bad_id, &id));
        if (why[0] && (e = map_add(s, name)) != NULL) {
            old = e->t; /* the name's file is now bad: do not serve an older version */
            s->resident -= rec_bytes(old);
            e->t = NULL;
            e->bad = 1;
            e->bad_id = id;
        }
        pthread_mutex_unlock(&s->mu);
        store__table_unref(old);
        if (report && s->log) {
            fprintf(s->log, "posencd: tables: skipping %s/%s.npy: %s\n", s->dir, name, why);
            fflush(s->log);
        }
        return NULL;
    }
    if (e && e->t &&
        store__file_id_eq(&e->t->id, &t->id)) { /* another thread loaded the same file */
        store_rec *mine = t;
        t = store__table_ref(e->t);
        pthread_mutex_unlock(&s->mu);
        store__table_unref(mine);
        return &t->pub;
    }
    old = map_install(s, name, t);
    pthread_mutex_unlock(&s->mu);
    store__table_unref(old);
    return &t->pub; /* the reference from store__table_load is the caller's */
}

void store_release(store_dir *s, const store_table *t)
{
    (void)s;
    store__table_unref((store_rec *)(void *)(uintptr_t)t);
}

void store_info(const store_table *t, store_table_info *info)
{
    *info = ((const store_rec *)(const void *)t)->info;
}

static const store_table *source_acquire(void *self, const char *name)
{
    return store_acquire(self, name);
}

static void source_release(void *self, const store_table *t)
{
    store_release(self, t);
}

int store_writable(const store_dir *s)
{
    return s->has_dir;
}

const store_source *store_as_source(store_dir *s)
{
    return &s->src;
}

/* ---- writes --------------------------------------------------------------------------------- */

/* 1 (err filled) when storing a table of data_bytes under name would pass max_tables or
 * max_store_bytes, counted from the directory (so replicas sharing it share the quota; a table
 * being replaced does not count). A file is the data plus at most 1 KiB of header and trailer. */
static int over_quota(store_dir *s, const char *name, size_t data_bytes, char *err, size_t err_n)
{
    if (s->max_tables == 0 && s->max_store_bytes == 0)
        return 0;
    size_t tables = 0, bytes = 0;
    if (store_usage(s, name, &tables, &bytes) < 0)
        return 0; /* unreadable: the write itself reports the directory's trouble */
    size_t need = data_bytes + 1024;
    if (s->max_tables && tables + 1 > s->max_tables) {
        snprintf(err, err_n,
                 "the store holds %zu other tables: one more would pass max_tables (%zu)", tables,
                 s->max_tables);
        return 1;
    }
    if (s->max_store_bytes && (bytes > s->max_store_bytes || need > s->max_store_bytes - bytes)) {
        snprintf(err, err_n,
                 "the other tables take %zu bytes: this one (about %zu) would pass "
                 "max_store_bytes (%zu)",
                 bytes, need, s->max_store_bytes);
        return 1;
    }
    return 0;
}

void store_cache_stats(store_dir *s, size_t *cached_bytes, size_t *cached_tables,
                       size_t *quota_refused)
{
    pthread_mutex_lock(&s->mu);
    *cached_bytes = s->resident;
    *cached_tables = 0;
    for (size_t i = 0; i < s->n; i++)
        *cached_tables += s->ents[i].t != NULL;
    *quota_refused = s->quota_refused;
    pthread_mutex_unlock(&s->mu);
}

void store_set_limits(store_dir *s, size_t max_tables, size_t max_store_bytes, size_t cache_bytes)
{
    pthread_mutex_lock(&s->mu);
    s->max_tables = max_tables;
    s->max_store_bytes = max_store_bytes;
    s->cache_bytes = cache_bytes;
    map_evict(s, "");
    pthread_mutex_unlock(&s->mu);
}

store_result store_put(store_dir *s, const char *name, wire_tensor *in, const char *format,
                       store_table_info *info, char *err, size_t err_n)
{
    err[0] = '\0';
    store_rec *t = NULL;
    if (!store_name_valid(name) || strcmp(name, STORE_BUILTIN) == 0 || !s->has_dir) {
        wire_tensor_free(in);
        return !store_name_valid(name)            ? STORE_BAD_NAME
               : strcmp(name, STORE_BUILTIN) == 0 ? STORE_BUILTIN_NAME
                                                  : STORE_NO_DIR;
    }
    t = store__table_new(name, in->rows, in->cols, in->data);
    if (t == NULL) {
        wire_tensor_free(in);
        return STORE_NOMEM;
    }
    t->info.dtype = in->dtype;
    in->data = NULL;
    wire_tensor_free(in);
    snprintf(t->info.format, sizeof t->info.format, "%s", format);
    t->info.created_ms = now_ms();

    char tmp[1024], path[1024];
    table_path(s, name, path, sizeof path);
    if (over_quota(s, name, rec_bytes(t), err, err_n)) {
        pthread_mutex_lock(&s->mu);
        s->quota_refused++;
        pthread_mutex_unlock(&s->mu);
        store__table_unref(t);
        return STORE_QUOTA;
    }
    snprintf(tmp, sizeof tmp, "%s/.tmp-%s-XXXXXX", s->dir, name);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, err_n, "cannot create a file in the data directory: %s", strerror(errno));
        store__table_unref(t);
        return STORE_IO;
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    flock(fd, LOCK_EX); /* start-up cleanup of another replica leaves a locked temp file alone */
    fchmod(fd, 0644);
    const char *step = "write";
    int ok = store__table_write(fd, t) == 0;
    if (ok) {
        step = "fsync";
        ok = fsync(fd) == 0;
    }
    int created = 0;
    if (ok) {
        step = "rename";
        if (link(tmp, path) == 0) { /* atomic "create if absent": tells created from replaced */
            created = 1;
            unlink(tmp);
        } else if (errno == EEXIST) {
            ok = rename(tmp, path) == 0;
        } else { /* a file system without hard links */
            created = access(path, F_OK) != 0;
            ok = rename(tmp, path) == 0;
        }
    }
    struct stat st;
    if (ok) {
        step = "stat";
        ok = fstat(fd, &st) == 0;
    }
    if (!ok) {
        snprintf(err, err_n, "cannot store the table (%s failed): %s", step, strerror(errno));
        unlink(tmp);
        close(fd);
        store__table_unref(t);
        return STORE_IO;
    }
    close(fd);
    fsync_dir(s);
    t->id = store__file_id_of(&st);
    pthread_mutex_lock(&s->mu);
    store_rec *old = map_install(s, name, t);
    pthread_mutex_unlock(&s->mu);
    store__table_unref(old);
    *info = t->info;
    store__table_unref(t); /* the map keeps its own reference */
    return created ? STORE_CREATED : STORE_REPLACED;
}

store_result store_delete(store_dir *s, const char *name, char *err, size_t err_n)
{
    err[0] = '\0';
    if (!store_name_valid(name))
        return STORE_BAD_NAME;
    if (strcmp(name, STORE_BUILTIN) == 0)
        return STORE_BUILTIN_NAME;
    if (!s->has_dir)
        return STORE_NOT_FOUND;
    char path[1024];
    table_path(s, name, path, sizeof path);
    int rc = unlink(path);
    int e = errno;
    pthread_mutex_lock(&s->mu);
    store_rec *old = map_remove(s, name);
    pthread_mutex_unlock(&s->mu);
    store__table_unref(old);
    if (rc != 0) {
        if (e == ENOENT)
            return STORE_NOT_FOUND;
        snprintf(err, err_n, "cannot delete the table: %s", strerror(e));
        return STORE_IO;
    }
    fsync_dir(s);
    return STORE_DELETED;
}

/* mkdir -p (mode 0755). */
static int mkdir_p(const char *dir)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

store_dir *store_open(const char *dir, size_t max_table_bytes, FILE *log)
{
    store_dir *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->mu, NULL);
    s->log = log;
    s->max_table_bytes = max_table_bytes;
    s->src.self = s;
    s->src.acquire = source_acquire;
    s->src.release = source_release;
    const size_t rows = 512, cols = 64;
    double *demo = malloc(rows * cols * sizeof *demo);
    s->builtin = demo ? store__table_new(STORE_BUILTIN, rows, cols, demo) : NULL;
    if (s->builtin == NULL) {
        free(demo);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
    }
    pe_learned_demo_fill(demo, rows * cols, PE_LEARNED_DEMO_SEED, 0.02);
    s->builtin->info.builtin = 1;
    s->builtin->info.dtype = WIRE_DT_F64;
    s->builtin->info.created_ms = -1;
    snprintf(s->builtin->info.format, sizeof s->builtin->info.format, "builtin");
    if (dir && dir[0]) {
        snprintf(s->dir, sizeof s->dir, "%s", dir);
        struct stat st;
        if (mkdir_p(s->dir) != 0 || stat(s->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            if (log)
                fprintf(log,
                        "posencd: tables: cannot use the data directory %s (%s); only %s is "
                        "available and PUT /tables answers 503\n",
                        s->dir, strerror(errno), STORE_BUILTIN);
        } else {
            s->has_dir = 1;
            store__startup_scan(s);
        }
    }
    return s;
}

void store_close(store_dir *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        store__table_unref(s->ents[i].t);
    free(s->ents);
    store__table_unref(s->builtin);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
