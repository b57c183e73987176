/* store/store_scan.c -- what reads the whole directory: the start-up scan, the paginated listing
 * and the quota's usage (store.h). Linear in the directory's entries; only a listing's page of
 * tables is opened (header and trailer). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store_dir.h"

int store__entry_name(const char *file, char *name, size_t n)
{
    size_t l = strlen(file);
    if (l <= 4 || strcmp(file + l - 4, ".npy") != 0 || l - 4 >= n)
        return 0;
    memcpy(name, file, l - 4);
    name[l - 4] = '\0';
    return store_name_valid(name);
}

/* Removes a temp file nobody writes any more (lock free, older than STALE_TEMP_SECONDS). */
static void remove_stale_temp(store_dir *s, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", s->dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK); /* a FIFO never blocks */
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        time(NULL) - st.st_mtim.tv_sec >= STALE_TEMP_SECONDS && unlink(path) == 0 && s->log)
        fprintf(s->log, "posencd: tables: removed the stale temp file %s (an interrupted upload)\n",
                path);
    close(fd);
}

void store__startup_scan(store_dir *s)
{
    DIR *d = opendir(s->dir);
    if (d == NULL) {
        if (s->log)
            fprintf(s->log, "posencd: tables: cannot read %s: %s\n", s->dir, strerror(errno));
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char name[STORE_NAME_MAX + 1];
        if (strncmp(de->d_name, ".tmp-", 5) == 0)
            remove_stale_temp(s, de->d_name);
        else if (store__entry_name(de->d_name, name, sizeof name) &&
                 strcmp(name, STORE_BUILTIN) == 0 && s->log)
            fprintf(s->log, "posencd: tables: ignoring %s/%s: %s is built in\n", s->dir, de->d_name,
                    STORE_BUILTIN);
    }
    closedir(d);
    if (s->log)
        fflush(s->log);
}

typedef char name_buf[STORE_NAME_MAX + 1];

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const name_buf *)a, *(const name_buf *)b);
}

/* The sorted names of the directory's tables (the built-in one added) into *out (malloc'd). */
static int dir_names(store_dir *s, name_buf **out, size_t *n)
{
    size_t cap = 64, k = 0;
    name_buf *v = malloc(cap * sizeof *v);
    if (v == NULL)
        return -1;
    snprintf(v[k++], sizeof v[0], "%s", STORE_BUILTIN);
    DIR *d = s->has_dir ? opendir(s->dir) : NULL;
    struct dirent *de;
    while (d != NULL && (de = readdir(d)) != NULL) {
        name_buf name;
        if (!store__entry_name(de->d_name, name, sizeof name) || strcmp(name, STORE_BUILTIN) == 0)
            continue;
        if (k == cap) {
            name_buf *nv = realloc(v, 2 * cap * sizeof *nv);
            if (nv == NULL) {
                closedir(d);
                free(v);
                return -1;
            }
            v = nv;
            cap *= 2;
        }
        memcpy(v[k++], name, sizeof name);
    }
    if (d != NULL)
        closedir(d);
    qsort(v, k, sizeof *v, name_cmp);
    *out = v;
    *n = k;
    return 0;
}

int store_list_page(store_dir *s, const char *after, size_t limit, store_table_info **out,
                    size_t *n, int *more)
{
    name_buf *names = NULL;
    size_t nn = 0;
    *out = NULL;
    *n = 0;
    *more = 0;
    if (dir_names(s, &names, &nn) < 0)
        return -1;
    size_t room = limit < nn ? limit : nn;
    store_table_info *v = malloc((room ? room : 1) * sizeof *v);
    if (v == NULL) {
        free(names);
        return -1;
    }
    size_t i = 0, k = 0;
    while (i < nn && after != NULL && after[0] && strcmp(names[i], after) <= 0)
        i++;
    for (; i < nn && k < limit; i++) {
        if (strcmp(names[i], STORE_BUILTIN) == 0) {
            store_info(&s->builtin->pub, &v[k++]);
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.npy", s->dir, names[i]);
        store_file_id id;
        if (store__table_peek(path, names[i], s->max_table_bytes, &v[k], &id) == 0 &&
            !store__known_bad(s, names[i], &id))
            k++; /* a file that cannot be read is left out (its GET reports why) */
    }
    *more = i < nn;
    free(names);
    *out = v;
    *n = k;
    return 0;
}

int store_list(store_dir *s, store_table_info **out, size_t *n)
{
    int more = 0;
    return store_list_page(s, NULL, SIZE_MAX, out, n, &more);
}

int store_usage(store_dir *s, const char *except, size_t *tables, size_t *bytes)
{
    *tables = 0;
    *bytes = 0;
    if (!s->has_dir)
        return 0;
    int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        name_buf name;
        struct stat st;
        if (!store__entry_name(de->d_name, name, sizeof name) || strcmp(name, STORE_BUILTIN) == 0 ||
            (except != NULL && strcmp(name, except) == 0))
            continue;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        (*tables)++;
        *bytes += (size_t)st.st_size;
    }
    closedir(d);
    return 0;
}
