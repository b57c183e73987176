/*
 * api/bin_rotate.c -- the rotation of a binary request's tensors in the spool (api/bin.h).
 *
 * A window is up to API_BIN_WINDOW_BYTES of float64 vectors that share positions: for positions
 * outermost ([B, T, H, D], [T, H, D], [T, D]) the rows t0 .. t0+w of one batch row, every head;
 * for [B, H, T, D] the same rows of one head, read head after head with the window's cos / sin.
 * cos / sin of a window come from the frequency table where it holds the position, else from
 * pe_rope_cos_sin (bit-identical, as api/rope_run.c does); every vector is rotated by
 * pe_rope_rotate (pe_rope_rotate_heads for a window of all heads: the same arithmetic), times the
 * attention factor, then q by Ministral 3's query scale: the JSON path's numbers, vector for
 * vector. Each window is read (pread), decoded to float64, rotated, encoded in the part's dtype
 * and written back in place (pwrite).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/bin_priv.h"
#include "core/rope_qscale.h"
#include "wire/tensor_enc.h"

/* The window's buffers. */
typedef struct {
    unsigned char *raw; /* [w x vec] elements in the part's dtype */
    double *x, *y;      /* [w x vec] float64 in and out */
    double *c, *s;      /* [w][n] cos / sin */
} win_bufs;

static int io(api_bin *b, int wr, unsigned char *buf, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t k = wr ? pwrite(b->sp.fd, buf, n, (off_t)off) : pread(b->sp.fd, buf, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            api_bin_fail(b, API_PB_INSUFFICIENT_STORAGE, NULL, "the spool failed (%s)",
                         k < 0 ? strerror(errno) : "short read");
            return -1;
        }
        buf += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
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

/* One window: cnt elements at element offset e0 of part i, vectors at positions pos[0..w), heads
 * vectors per position (w x heads x D = cnt). 0 or -1. */
static int window(api_bin *b, int i, win_bufs *wb, uint64_t e0, const int64_t *pos, size_t w,
                  size_t heads, int cs_ready)
{
    api_bin_part *p = &b->t[i];
    const pe_freq_table *t = b->res.table;
    size_t D = p->D, es = wire_dtype_size(p->info.dtype), cnt = w * heads * D;
    uint64_t off = p->off + e0 * es;
    char at[96], ptr[8];
    snprintf(ptr, sizeof ptr, "/%s", api_bin_part_names[i]);
    if (io(b, 0, wb->raw, cnt * es, off) < 0)
        return -1;
    size_t bad = wire_decode_le(p->info.dtype, wb->raw, cnt, wb->x);
    if (bad < cnt) {
        elem_name(p, e0 + bad, at, sizeof at);
        api_bin_fail(b, API_PB_INVALID_FIELD, ptr, "the value at %s is not finite", at);
        return -1;
    }
    if (!cs_ready)
        api_rope_rows_cos_sin(t, pos, w, wb->c, wb->s);
    pe_rope_rotate_heads(wb->x, wb->c, wb->s, w, heads, D, (size_t)b->r.rotary_dim, b->r.layout,
                         t->attention_factor, wb->y);
    const api_rope_config *cfg = &b->r.cfg;
    if (i == API_BIN_Q && b->r.has_config && cfg->has_qscale) {
        for (size_t r = 0; r < w; r++) {
            double sc = pe_qscale_llama4_beta(pos[r], cfg->qscale_beta, cfg->qscale_l0);
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
    return io(b, 1, wb->raw, cnt * es, off);
}

/* Rotates part i window by window (wrows positions each). 0 or -1. */
static int rotate_part(api_bin *b, int i, win_bufs *wb, size_t wrows)
{
    api_bin_part *p = &b->t[i];
    size_t T = p->T, H = p->H, D = p->D;
    for (size_t bi = 0; bi < p->B; bi++) {
        const int64_t *pos = b->pos + (b->pos_b > 1 ? bi * T : 0);
        for (size_t t0 = 0; t0 < T; t0 += wrows) {
            size_t w = T - t0 < wrows ? T - t0 : wrows;
            if (!p->bhtd) {
                uint64_t e0 = ((uint64_t)bi * T + t0) * H * D;
                if (window(b, i, wb, e0, pos + t0, w, H, 0) < 0)
                    return -1;
                continue;
            }
            for (size_t h = 0; h < H; h++) {
                uint64_t e0 = (((uint64_t)bi * H + h) * T + t0) * D;
                if (window(b, i, wb, e0, pos + t0, w, 1, h > 0) < 0)
                    return -1;
            }
        }
    }
    return 0;
}

int api_bin_rotate(api_bin *b)
{
    int rc = 0;
    for (int i = 0; i < API_BIN_NT && rc == 0; i++) {
        api_bin_part *p = &b->t[i];
        if (!p->present)
            continue;
        size_t vec = p->bhtd ? p->D : p->H * p->D; /* values per position in one window */
        size_t wrows = API_BIN_WINDOW_BYTES / (vec * sizeof(double));
        if (wrows == 0)
            wrows = 1;
        if (wrows > p->T)
            wrows = p->T;
        size_t n = (size_t)b->r.rotary_dim / 2, cnt = wrows * vec;
        size_t bytes = cnt * (2 * sizeof(double) + wire_dtype_size(p->info.dtype)) +
                       2 * wrows * n * sizeof(double);
        if (api_bin_hold(b, b->held + bytes) < 0)
            return -1;
        win_bufs wb = {malloc(cnt * wire_dtype_size(p->info.dtype)), malloc(cnt * sizeof(double)),
                       malloc(cnt * sizeof(double)), malloc(wrows * n * sizeof(double)),
                       malloc(wrows * n * sizeof(double))};
        if (!wb.raw || !wb.x || !wb.y || !wb.c || !wb.s) {
            api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
            rc = -1;
        } else {
            rc = rotate_part(b, i, &wb, wrows);
        }
        free(wb.raw);
        free(wb.x);
        free(wb.y);
        free(wb.c);
        free(wb.s);
        api_bin_hold(b, b->held - bytes);
    }
    return rc;
}
