/*
 * api/bin_rotate.c -- the rotation of a binary request's tensors as they arrive (api/bin.h).
 *
 * A part's data is cut into windows of whole rows (a row: the vectors that share one position,
 * H x D values for positions outermost -- [B, T, H, D], [T, H, D], [T, D] -- or D values for
 * [B, H, T, D]), up to API_BIN_WINDOW_BYTES of float64 each. A full window is decoded to float64,
 * rotated, encoded back in the part's dtype and written to the spool where its bytes belong; the
 * last, partial one when the part ends. Nothing is read back.
 *
 * The numbers are the JSON path's (api/rope_run.c), vector for vector: cos / sin of each row's
 * position from the frequency table when it holds it (read in place when the window's positions
 * are consecutive), else from pe_rope_cos_sin (bit-identical); pe_rope_rotate_heads (the
 * arithmetic of pe_rope_rotate, head by head) times the attention factor; then q by Ministral 3's
 * query scale.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "api/bin_priv.h"
#include "core/rope_qscale.h"
#include "wire/crc32.h"
#include "wire/tensor_enc.h"

/* Bytes of the window buffers of part p (wrows rows of vec values, n pairs). */
static size_t window_bytes(const api_bin_part *p, size_t n)
{
    size_t vec = p->bhtd ? p->D : p->H * p->D;
    return p->wrows * (vec * (2 * sizeof(double) + wire_dtype_size(p->info.dtype)) +
                       2 * n * sizeof(double) + sizeof(int64_t)) +
           API_BIN_CHUNK;
}

int api_bin_window_open(api_bin *b, int i)
{
    api_bin_part *p = &b->t[i];
    size_t vec = p->bhtd ? p->D : p->H * p->D, n = (size_t)b->r.rotary_dim / 2;
    size_t rows = p->info.count / vec;
    p->wrows = API_BIN_WINDOW_BYTES / (vec * sizeof(double));
    if (p->wrows == 0)
        p->wrows = 1;
    if (p->wrows > rows)
        p->wrows = rows;
    api_bin_win *w = &b->win;
    w->bytes = window_bytes(p, n);
    if (api_bin_hold(b, api_bin_held_now(b)) < 0) {
        w->bytes = 0;
        return -1;
    }
    size_t cnt = p->wrows * vec;
    w->raw = malloc(cnt * wire_dtype_size(p->info.dtype));
    w->x = malloc(cnt * sizeof(double));
    w->y = malloc(cnt * sizeof(double));
    w->c = malloc(p->wrows * n * sizeof(double));
    w->s = malloc(p->wrows * n * sizeof(double));
    w->pos = malloc(p->wrows * sizeof(int64_t));
    w->carry = malloc(API_BIN_CHUNK);
    w->fill = 0;
    if (!w->raw || !w->x || !w->y || !w->c || !w->s || !w->pos || !w->carry) {
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
        return -1;
    }
    return 0;
}

void api_bin_window_free(api_bin *b)
{
    api_bin_win *w = &b->win;
    free(w->raw);
    free(w->x);
    free(w->y);
    free(w->c);
    free(w->s);
    free(w->pos);
    free(w->carry);
    size_t had = w->bytes;
    memset(w, 0, sizeof *w);
    if (had > 0)
        api_bin_hold(b, api_bin_held_now(b));
}

/* Names element e (flat index) of part p as "[i, j, ...]" into out. */
static void elem_name(const api_bin_part *p, uint64_t e, char *out, size_t n)
{
    size_t idx[WIRE_NPY_MAX_RANK];
    for (int a = p->info.ndim - 1; a >= 0; a--) {
        idx[a] = (size_t)(e % p->info.shape[a]);
        e /= p->info.shape[a];
    }
    size_t o = (size_t)snprintf(out, n, "[");
    for (int a = 0; a < p->info.ndim && o < n; a++)
        o += (size_t)snprintf(out + o, n - o, a ? ", %zu" : "%zu", idx[a]);
    if (o < n)
        snprintf(out + o, n - o, "]");
}

/* The position of row r of part p. */
static int64_t row_position(const api_bin *b, const api_bin_part *p, uint64_t r)
{
    uint64_t per_batch = p->bhtd ? (uint64_t)p->H * p->T : p->T;
    size_t bi = (size_t)(r / per_batch), t = (size_t)(r % p->T);
    return b->pos[(b->pos_b > 1 ? bi * p->T : 0) + t];
}

/* The positions of the window's w rows (wb->pos) and their cos / sin rows: the table's own, in
 * place, when the positions are consecutive and in it; else computed into wb->c, wb->s. */
static void window_cos_sin(api_bin *b, const api_bin_part *p, size_t w, const double **c,
                           const double **s)
{
    api_bin_win *wb = &b->win;
    const pe_freq_table *t = b->table;
    size_t n = t->n_freq;
    uint64_t r0 = p->rows_done;
    int consecutive = 1;
    for (size_t r = 0; r < w; r++) {
        wb->pos[r] = row_position(b, p, r0 + r);
        consecutive &= wb->pos[r] == wb->pos[0] + (int64_t)r;
    }
    if (consecutive && (uint64_t)wb->pos[0] + w <= t->n_pos) {
        *c = t->cos + (size_t)wb->pos[0] * n;
        *s = t->sin + (size_t)wb->pos[0] * n;
    } else {
        api_rope_rows_cos_sin(t, wb->pos, w, wb->c, wb->s);
        *c = wb->c;
        *s = wb->s;
    }
}

int api_bin_spool_write(api_bin *b, const void *buf, size_t n, uint64_t off)
{
    const unsigned char *at = buf;
    int reclaimed = 0;
    while (n > 0) {
        ssize_t k = pwrite(b->sp.fd, at, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == ENOSPC || errno == EDQUOT) && !reclaimed &&
            b->sp.reclaim != NULL) { /* the disk full: free what waits outside requests, retry */
            int e = errno;
            reclaimed = 1;
            if (b->sp.reclaim(b->sp.cls))
                continue;
            errno = e;
        }
        if (k <= 0) {
            api_bin_fail(b, API_PB_INSUFFICIENT_STORAGE, NULL,
                         "the spool cannot take the tensors now (%s); retry later",
                         k < 0 ? strerror(errno) : "short write");
            return -1;
        }
        at += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* Writes a[0..an) then c[0..cn) at off, in one call when it can (pwritev). 0 or -1. */
static int write_two(api_bin *b, const unsigned char *a, size_t an, const unsigned char *c,
                     size_t cn, uint64_t off)
{
    struct iovec iov[2] = {{(void *)(uintptr_t)a, an}, {(void *)(uintptr_t)c, cn}};
    ssize_t k;
    do
        k = pwritev(b->sp.fd, iov, 2, (off_t)off);
    while (k < 0 && errno == EINTR);
    if (k == (ssize_t)(an + cn))
        return 0;
    /* the rest (a full disk, a short write) piece by piece, as api_bin_spool_write handles it */
    size_t done = k > 0 ? (size_t)k : 0;
    if (done < an && api_bin_spool_write(b, a + done, an - done, off + done) < 0)
        return -1;
    size_t cd = done > an ? done - an : 0;
    return api_bin_spool_write(b, c + cd, cn - cd, off + an + cd);
}

/* Writes the n rotated bytes at off (right after what the window wrote before) in whole aligned
 * chunks: the chunk the carry began is completed from buf and written with it, then buf's whole
 * chunks; what is left of buf waits in the carry (api_bin_window_flush writes it at the part's
 * end). A part's first bytes, before its first chunk boundary, are written as they come. Only
 * the carry's bytes are copied. 0 or -1. */
static int write_chunks(api_bin *b, const unsigned char *buf, size_t n, uint64_t off)
{
    api_bin_win *w = &b->win;
    if (w->carry_n > 0) {
        size_t need = API_BIN_CHUNK - w->carry_n; /* carry_off is on a chunk */
        if (n < need) {
            memcpy(w->carry + w->carry_n, buf, n);
            w->carry_n += n;
            return 0;
        }
        if (write_two(b, w->carry, w->carry_n, buf, need, w->carry_off) < 0)
            return -1;
        w->carry_n = 0;
        buf += need;
        n -= need;
        off += need;
    } else if (off % API_BIN_CHUNK != 0) {
        size_t head = API_BIN_CHUNK - (size_t)(off % API_BIN_CHUNK);
        head = head < n ? head : n;
        if (api_bin_spool_write(b, buf, head, off) < 0)
            return -1;
        buf += head;
        n -= head;
        off += head;
    }
    size_t whole = n - n % API_BIN_CHUNK;
    if (whole > 0 && api_bin_spool_write(b, buf, whole, off) < 0)
        return -1;
    memcpy(w->carry, buf + whole, n - whole);
    w->carry_n = n - whole;
    w->carry_off = off + whole;
    return 0;
}

int api_bin_window_flush(api_bin *b)
{
    api_bin_win *w = &b->win;
    int rc = w->carry_n > 0 ? api_bin_spool_write(b, w->carry, w->carry_n, w->carry_off) : 0;
    w->carry_n = 0;
    return rc;
}

/* Rotates the w full rows in the window of part i and writes them to the spool. 0 or -1. */
static int rotate_window(api_bin *b, int i, size_t w)
{
    api_bin_part *p = &b->t[i];
    api_bin_win *wb = &b->win;
    const pe_freq_table *t = b->table;
    size_t heads = p->bhtd ? 1 : p->H, D = p->D, cnt = w * heads * D;
    size_t es = wire_dtype_size(p->info.dtype);
    uint64_t r0 = p->rows_done, e0 = r0 * heads * D;
    char at[96], ptr[8];
    snprintf(ptr, sizeof ptr, "/%s", api_bin_part_names[i]);
    const unsigned char *out = NULL;
    const api_rope_config *cfg = &b->r.cfg;
    int qscale = i == API_BIN_Q && b->r.has_config && cfg->has_qscale;
    const float *xf = NULL;
    if (p->info.dtype == WIRE_DT_F32 && b->r.layout == PE_ROPE_HALF && !qscale)
        xf = wire_f32_view(wb->raw);
    const double *c = NULL, *s = NULL;
    window_cos_sin(b, p, w, &c, &s);
    if (xf != NULL) { /* float32 in and out in one pass, float64 arithmetic (core/rope.h) */
        float *yf = (float *)(void *)wb->y;
        if (!pe_rope_rotate_heads_f32(xf, c, s, w, heads, D, (size_t)b->r.rotary_dim,
                                      t->attention_factor, yf))
            out = wire_f32_bytes(yf);
        /* else a value in or out is not finite: the float64 path below names it */
    }
    if (out == NULL) { /* float64 from the part's dtype, the values checked */
        size_t bad = wire_decode_le(p->info.dtype, wb->raw, cnt, wb->x);
        if (bad < cnt) {
            elem_name(p, e0 + bad, at, sizeof at);
            api_bin_fail(b, API_PB_INVALID_FIELD, ptr, "the value at %s is not finite", at);
            return -1;
        }
        pe_rope_rotate_heads(wb->x, c, s, w, heads, D, (size_t)b->r.rotary_dim, b->r.layout,
                             t->attention_factor, wb->y);
        if (qscale) {
            for (size_t r = 0; r < w; r++) {
                double sc = pe_qscale_llama4_beta(wb->pos[r], cfg->qscale_beta, cfg->qscale_l0);
                for (size_t d = 0; d < heads * D; d++)
                    wb->y[r * heads * D + d] *= sc;
            }
        }
        bad = wire_encode_le(p->info.dtype, wb->y, cnt, wb->raw);
        if (bad < cnt) {
            elem_name(p, e0 + bad, at, sizeof at);
            api_bin_fail(b, API_PB_INVALID_FIELD, ptr, "the rotated value at %s overflows %s", at,
                         wire_dtype_name(p->info.dtype));
            return -1;
        }
        out = wb->raw;
    }
    size_t left = cnt * es;
    if (b->sp.reserve != NULL && b->sp.reserve(b->sp.cls, b->spool_total + left) < 0) {
        api_bin_fail(b, API_PB_INSUFFICIENT_STORAGE, NULL,
                     "the spool quota (spool_quota_bytes) cannot take %zu more bytes now; retry "
                     "later",
                     left);
        return -1;
    }
    b->spool_total += left;
    p->crc = wire_crc32(p->crc, out, left); /* while the window is in cache */
    if (write_chunks(b, out, left, p->off + e0 * es) < 0)
        return -1;
    p->rows_done += w;
    wb->fill = 0;
    return 0;
}

int api_bin_window_feed(api_bin *b, int i, const unsigned char *buf, size_t n)
{
    api_bin_part *p = &b->t[i];
    api_bin_win *wb = &b->win;
    size_t es = wire_dtype_size(p->info.dtype);
    size_t row = (p->bhtd ? p->D : p->H * p->D) * es, full = p->wrows * row;
    if (n > p->info.data_bytes - p->got) {
        char ptr[8];
        snprintf(ptr, sizeof ptr, "/%s", api_bin_part_names[i]);
        api_bin_fail(b, API_PB_INVALID_FIELD, ptr,
                     "the part holds more bytes than its .npy header's shape (%zu data bytes)",
                     p->info.data_bytes);
        return -1;
    }
    p->got += n;
    while (n > 0) {
        size_t take = full - wb->fill < n ? full - wb->fill : n;
        memcpy(wb->raw + wb->fill, buf, take);
        wb->fill += take;
        buf += take;
        n -= take;
        if (wb->fill == full && rotate_window(b, i, p->wrows) < 0)
            return -1;
    }
    if (p->got == p->info.data_bytes && wb->fill > 0 && rotate_window(b, i, wb->fill / row) < 0)
        return -1; /* the last rows */
    return p->got == p->info.data_bytes ? api_bin_window_flush(b) : 0;
}
