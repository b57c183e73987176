/* wire/jw_rows.c -- the JSON writer's matrices and row sources (jw.h wire_jw_rows, wire_jw_matrix,
 * wire_jw_matrix_take): written now, deferred for a stream (WIRE_JW_STREAM) or captured for .npy.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wire/jw_priv.h"

/* Row source over an owned row-major buffer. */
typedef struct {
    double *x;
    size_t cols;
} mat_src;

static const double *mat_row(void *self, size_t r, double *scratch)
{
    (void)scratch;
    const mat_src *m = self;
    return m->x + r * m->cols;
}

static void mat_release(void *self)
{
    mat_src *m = self;
    free(m->x);
    free(m);
}

/*
 * Wraps the owned buffer x ([rows][cols]) as a row source in *out: masked cells (mask[i] != 0)
 * become -inf, an unmasked non-finite value sets w->nonfinite, max_abs is computed. Returns 0, or
 * -1 with x freed and w failed (out of memory).
 */
static int mat_source(wire_jw *w, double *x, const unsigned char *mask, size_t rows, size_t cols,
                      wire_rows *out)
{
    mat_src *m = malloc(sizeof *m);
    if (m == NULL) {
        free(x);
        w->failed = 1;
        return -1;
    }
    m->x = x;
    m->cols = cols;
    double mx = 0.0;
    int any_mask = 0;
    for (size_t i = 0; i < rows * cols; i++) {
        if (mask && mask[i]) {
            x[i] = -INFINITY;
            any_mask = 1;
        } else if (!isfinite(x[i])) {
            w->nonfinite = 1;
        } else if (fabs(x[i]) > mx) {
            mx = fabs(x[i]);
        }
    }
    memset(out, 0, sizeof *out);
    out->rows = rows;
    out->cols = cols;
    out->row = mat_row;
    out->release = mat_release;
    out->self = m;
    out->masked = any_mask;
    out->max_abs = mx;
    return 0;
}

/* STREAM mode: the matrix of src goes here, formatted later. */
static void defer_rows(wire_jw *w, const wire_rows *src)
{
    wire__jw_sep(w);
    struct wire_jw_ext *e = w->ext;
    if (w->failed) {
        wire__jw_release_rows(src);
        return;
    }
    if (e->n_segs == e->cap_segs) {
        size_t ncap = e->cap_segs ? 2 * e->cap_segs : 8;
        wire_jw_seg *ns = realloc(e->segs, ncap * sizeof *ns);
        if (ns == NULL) {
            w->failed = 1;
            wire__jw_release_rows(src);
            return;
        }
        e->segs = ns;
        e->cap_segs = ncap;
    }
    e->segs[e->n_segs].at = w->len;
    e->segs[e->n_segs].src = *src;
    e->n_segs++;
}

/* The rows of src as text or into a capture, now. Does not release src. */
static void rows_now(wire_jw *w, const wire_rows *src)
{
    double *scratch = NULL;
    if (src->cols > 0) {
        scratch = malloc(src->cols * sizeof *scratch);
        if (scratch == NULL) {
            w->failed = 1;
            return;
        }
    }
    wire_jw_arr_begin(w);
    for (size_t r = 0; r < src->rows && !w->failed; r++) {
        const double *x = src->row(src->self, r, scratch);
        if (w->mode == WIRE_JW_NPY) {
            wire_jw_arr_begin(w);
            for (size_t c = 0; c < src->cols && !w->failed; c++) {
                if (src->masked && x[c] == -INFINITY)
                    wire_jw_null(w);
                else
                    wire_jw_double(w, x[c]);
            }
            wire_jw_arr_end(w);
        } else {
            wire__jw_doubles_text(w, x, src->cols, src->masked);
        }
    }
    wire_jw_arr_end(w);
    free(scratch);
}

void wire_jw_rows(wire_jw *w, const wire_rows *src)
{
    if (w->failed) {
        wire__jw_release_rows(src);
        return;
    }
    if (w->mode == WIRE_JW_STREAM && src->rows * src->cols >= WIRE_JW_DEFER_MIN) {
        defer_rows(w, src);
        return;
    }
    if (w->mode == WIRE_JW_NPY && !w->ext->active) {
        int r = wire__npy_take_pending(w);
        wire__jw_sep(w);
        if (r >= 0)
            wire__npy_cap_source(w, r, src);
        else
            wire__jw_release_rows(src);
        return;
    }
    rows_now(w, src);
    wire__jw_release_rows(src);
}

/* A materialised matrix in STREAM or NPY mode, x owned: deferred, captured or scanned. */
static void matrix_owned(wire_jw *w, double *x, const unsigned char *mask, size_t rows, size_t cols)
{
    wire_rows src;
    if (mat_source(w, x, mask, rows, cols, &src) < 0)
        return;
    wire_jw_rows(w, &src);
}

void wire_jw_matrix(wire_jw *w, const double *x, const unsigned char *mask, size_t rows,
                    size_t cols)
{
    size_t n = rows * cols;
    int copy = (w->mode == WIRE_JW_STREAM && n >= WIRE_JW_DEFER_MIN) ||
               (w->mode == WIRE_JW_NPY && !w->ext->active && w->depth == 1 && w->ext->pending >= 0);
    if (copy && !w->failed) {
        double *c = malloc(n ? n * sizeof *c : 1);
        if (c == NULL) {
            w->failed = 1;
            return;
        }
        memcpy(c, x, n * sizeof *c);
        matrix_owned(w, c, mask, rows, cols);
        return;
    }
    if (w->mode == WIRE_JW_NPY && wire__npy_skip(w)) {
        wire__jw_sep(w);
        wire__npy_scan(w, x, mask, n, 0);
        return;
    }
    wire_jw_arr_begin(w);
    for (size_t r = 0; r < rows && !w->failed; r++) {
        const double *xr = x + r * cols;
        const unsigned char *mr = mask ? mask + r * cols : NULL;
        int any = 0;
        for (size_t c = 0; mr && c < cols; c++)
            any |= mr[c] != 0;
        if (!any && w->mode != WIRE_JW_NPY) {
            wire__jw_doubles_text(w, xr, cols, 0);
            continue;
        }
        wire_jw_arr_begin(w);
        for (size_t c = 0; c < cols; c++) {
            if (mr && mr[c])
                wire_jw_null(w);
            else
                wire_jw_double(w, xr[c]);
        }
        wire_jw_arr_end(w);
    }
    wire_jw_arr_end(w);
}

void wire_jw_matrix_take(wire_jw *w, double *x, size_t rows, size_t cols)
{
    if (w->mode == WIRE_JW_BUFFER || w->failed) {
        wire_jw_matrix(w, x, NULL, rows, cols);
        free(x);
        return;
    }
    matrix_owned(w, x, NULL, rows, cols);
}
