/* store/store_file.c -- table objects and the table file format. See store_file.h, store.h. */
#include "store/store_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire/le.h"

#define TRAILER_MAGIC "POSENC-TABLE 1 "
#define TRAILER_MAX 512                 /* bytes after the data at most */
#define IO_CHUNK (1u << 20)             /* bytes per read/write call */
#define FNV_BASIS 0xcbf29ce484222325ULL /* FNV-1a 64 offset basis */

store_file_id store__file_id_of(const struct stat *st)
{
    store_file_id id = {st->st_dev, st->st_ino, st->st_size,
                        (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec};
    return id;
}

int store__file_id_eq(const store_file_id *a, const store_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns;
}

/* FNV-1a 64 over n 64-bit little-endian words at p (see store.h). */
static uint64_t fnv_words(uint64_t h, const unsigned char *p, size_t n_words)
{
    for (size_t i = 0; i < n_words; i++) {
        uint64_t w = wire_le_get(p + 8 * i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
    }
    return h;
}

static int pread_full(int fd, void *buf, size_t n, off_t off)
{
    unsigned char *p = buf;
    while (n > 0) {
        size_t want = n < IO_CHUNK ? n : IO_CHUNK;
        ssize_t k = pread(fd, p, want, off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
        off += k;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0) {
        size_t want = n < IO_CHUNK ? n : IO_CHUNK;
        ssize_t k = write(fd, p, want);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

store_rec *store__table_new(const char *name, size_t rows, size_t cols, double *data)
{
    store_rec *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    atomic_init(&t->refs, 1);
    t->data = data;
    t->pub.rows = rows;
    t->pub.cols = cols;
    t->pub.data = data;
    snprintf(t->info.name, sizeof t->info.name, "%s", name);
    t->info.rows = rows;
    t->info.cols = cols;
    return t;
}

void store__table_unref(store_rec *t)
{
    if (t && atomic_fetch_sub(&t->refs, 1) == 1) {
        free(t->data);
        free(t);
    }
}

store_rec *store__table_ref(store_rec *t)
{
    atomic_fetch_add(&t->refs, 1);
    return t;
}

/* ---- reading a table file ------------------------------------------------------------------- */

/* Parses the trailer line into *info and *want_hash (its fnv1a64); 0 or -1 (why filled). */
static int parse_trailer_info(const char *tr, size_t n, store_table_info *info,
                              uint64_t *want_hash_out, char *why, size_t why_n)
{
    char line[TRAILER_MAX + 1];
    memcpy(line, tr, n);
    line[n] = '\0';
    size_t ml = strlen(TRAILER_MAGIC);
    if (n < ml + 1 || strncmp(line, TRAILER_MAGIC, ml) != 0 || line[n - 1] != '\n' ||
        strlen(line) != n) {
        snprintf(why, why_n, "unexpected %zu bytes after the table data", n);
        return -1;
    }
    line[n - 1] = '\0';
    int have = 0;
    uint64_t want_hash = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line + ml, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        const char *v = eq + 1;
        if (strcmp(tok, "dtype") == 0) {
            for (int d = WIRE_DT_F16; d <= WIRE_DT_F64; d++) {
                if (strcmp(v, wire_dtype_name((wire_dtype)d)) == 0) {
                    info->dtype = (wire_dtype)d;
                    have |= 1;
                }
            }
        } else if (strcmp(tok, "format") == 0 && strlen(v) < sizeof info->format) {
            memcpy(info->format, v, strlen(v) + 1);
            have |= 2;
        } else if (strcmp(tok, "created_ms") == 0) {
            char *end = NULL;
            info->created_ms = strtoll(v, &end, 10);
            if (end != v && *end == '\0')
                have |= 4;
        } else if (strcmp(tok, "fnv1a64") == 0) {
            char *end = NULL;
            want_hash = strtoull(v, &end, 16);
            if (end != v && *end == '\0' && strlen(v) == 16)
                have |= 8;
        }
    }
    if (have != 15) {
        snprintf(why, why_n, "its trailer line lacks dtype, format, created_ms or fnv1a64");
        return -1;
    }
    *want_hash_out = want_hash;
    return 0;
}

/* Parses the trailer line into t->info; 0 or -1 (why filled). hash: FNV of the data. */
static int parse_trailer(const char *tr, size_t n, uint64_t hash, store_rec *t, char *why,
                         size_t why_n)
{
    uint64_t want_hash = 0;
    if (parse_trailer_info(tr, n, &t->info, &want_hash, why, why_n) < 0)
        return -1;
    if (want_hash != hash) {
        snprintf(why, why_n,
                 "checksum mismatch (fnv1a64 %016llx in the trailer, data gives %016llx)",
                 (unsigned long long)want_hash, (unsigned long long)hash);
        return -1;
    }
    return 0;
}

store_rec *store__table_load(const char *path, const char *name, size_t max_table_bytes,
                             store_file_id *id, char *why, size_t why_n)
{
    why[0] = '\0';
    memset(id, 0, sizeof *id);
    /* O_NONBLOCK: a FIFO planted in the directory opens at once (and is refused below as not a
     * regular file) instead of blocking the thread until a writer comes */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT)
            snprintf(why, why_n, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    store_rec *t = NULL;
    double *data = NULL;
    unsigned char *raw = NULL, *raw_own = NULL; /* raw aliases data for float64 */
    char *head = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_n, "not a regular file");
        goto out;
    }
    *id = store__file_id_of(&st);
    size_t size = (size_t)st.st_size;
    size_t hn = size < WIRE_NPY_MAX_HEADER + 12 ? size : WIRE_NPY_MAX_HEADER + 12;
    head = malloc(hn ? hn : 1);
    if (head == NULL || pread_full(fd, head, hn, 0) < 0) {
        snprintf(why, why_n, head ? "cannot read its header" : "out of memory");
        goto out;
    }
    wire_err pb;
    wire_err_init(&pb);
    wire_npy_info info;
    int rc = wire_npy_parse_header(head, hn, max_table_bytes, &info, &pb);
    if (rc <= 0) {
        snprintf(why, why_n, "%s", rc == 0 ? "truncated inside its .npy header" : pb.detail);
        goto out;
    }
    if (size < info.header_len || size - info.header_len < info.data_bytes) {
        snprintf(why, why_n, "truncated: %zu bytes of data, its header promises %zu",
                 size - (size < info.header_len ? size : info.header_len), info.data_bytes);
        goto out;
    }
    size_t tl = size - info.header_len - info.data_bytes;
    if (tl > TRAILER_MAX) {
        snprintf(why, why_n, "unexpected %zu bytes after the table data", tl);
        goto out;
    }
    size_t n = info.rows * info.cols; /* bounded by max_table_bytes in parse_header */
    data = malloc(n * sizeof *data);
    if (info.dtype != WIRE_DT_F64)
        raw_own = malloc(info.data_bytes);
    raw = info.dtype == WIRE_DT_F64 ? (unsigned char *)data : raw_own;
    if (data == NULL || raw == NULL) {
        snprintf(why, why_n, "out of memory for a %zu x %zu table", info.rows, info.cols);
        goto out;
    }
    if (pread_full(fd, raw, info.data_bytes, (off_t)info.header_len) < 0) {
        snprintf(why, why_n, "cannot read its data");
        goto out;
    }
    uint64_t hash = FNV_BASIS;
    if (tl > 0)
        hash = fnv_words(hash, raw, info.data_bytes / 8);
    size_t bad = wire_decode_le(info.dtype, raw, n, data);
    if (bad < n) {
        snprintf(why, why_n, "value at row %zu, column %zu is not finite", bad / info.cols,
                 bad % info.cols);
        goto out;
    }
    t = store__table_new(name, info.rows, info.cols, data);
    if (t == NULL) {
        snprintf(why, why_n, "out of memory");
        goto out;
    }
    data = NULL; /* owned by t */
    t->id = *id;
    t->info.dtype = info.dtype;
    snprintf(t->info.format, sizeof t->info.format, "npy");
    t->info.created_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    if (tl > 0) {
        char tr[TRAILER_MAX];
        if (pread_full(fd, tr, tl, (off_t)(info.header_len + info.data_bytes)) < 0) {
            snprintf(why, why_n, "cannot read its trailer");
            store__table_unref(t);
            t = NULL;
        } else if (parse_trailer(tr, tl, hash, t, why, why_n) < 0) {
            store__table_unref(t);
            t = NULL;
        }
    }
out:
    free(raw_own);
    free(data);
    free(head);
    close(fd);
    return t;
}

int store__table_peek(const char *path, const char *name, size_t max_table_bytes,
                      store_table_info *info, store_file_id *id)
{
    memset(info, 0, sizeof *info);
    memset(id, 0, sizeof *id);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = -1;
    char head[WIRE_NPY_MAX_HEADER + 12];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        goto out;
    *id = store__file_id_of(&st);
    size_t size = (size_t)st.st_size;
    size_t hn = size < sizeof head ? size : sizeof head;
    if (hn == 0 || pread_full(fd, head, hn, 0) < 0)
        goto out;
    wire_err pb;
    wire_err_init(&pb);
    wire_npy_info ni;
    if (wire_npy_parse_header(head, hn, max_table_bytes, &ni, &pb) <= 0)
        goto out;
    if (size < ni.header_len || size - ni.header_len < ni.data_bytes)
        goto out;
    size_t tl = size - ni.header_len - ni.data_bytes;
    if (tl > TRAILER_MAX)
        goto out;
    snprintf(info->name, sizeof info->name, "%s", name);
    info->rows = ni.rows;
    info->cols = ni.cols;
    info->dtype = ni.dtype;
    snprintf(info->format, sizeof info->format, "npy");
    info->created_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    if (tl > 0) {
        char tr[TRAILER_MAX];
        char why[160];
        uint64_t want = 0;
        if (pread_full(fd, tr, tl, (off_t)(ni.header_len + ni.data_bytes)) < 0 ||
            parse_trailer_info(tr, tl, info, &want, why, sizeof why) < 0)
            goto out;
    }
    rc = 0;
out:
    close(fd);
    return rc;
}

int store__table_write(int fd, const store_rec *t)
{
    char hdr[WIRE_NPY_F64_HEADER_MAX];
    const size_t shape[2] = {t->pub.rows, t->pub.cols};
    size_t hl = wire_npy_header(hdr, sizeof hdr, "<f8", shape, 2);
    if (write_full(fd, hdr, hl) < 0)
        return -1;
    size_t n = t->pub.rows * t->pub.cols;
    uint64_t hash = FNV_BASIS;
    unsigned char buf[65536];
    for (size_t i = 0; i < n;) {
        size_t k = n - i < sizeof buf / 8 ? n - i : sizeof buf / 8;
        wire_encode_f64_le(t->data + i, k, buf); /* a copy on little-endian hosts */
        hash = fnv_words(hash, buf, k);
        if (write_full(fd, buf, k * 8) < 0)
            return -1;
        i += k;
    }
    char tr[TRAILER_MAX];
    int tl = snprintf(tr, sizeof tr,
                      TRAILER_MAGIC "dtype=%s format=%s created_ms=%lld fnv1a64=%016llx\n",
                      wire_dtype_name(t->info.dtype), t->info.format, (long long)t->info.created_ms,
                      (unsigned long long)hash);
    return write_full(fd, tr, (size_t)tl);
}
