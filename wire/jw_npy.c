/* wire/jw_npy.c -- the JSON writer's .npy capture (WIRE_JW_NPY mode, jw_priv.h): the value of the
 * best wanted top-level key, kept as numbers or as a row source for wire/stream.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/jw_priv.h"

void wire__jw_release_rows(const wire_rows *src)
{
    if (src->release)
        src->release(src->self);
}

void wire_jw_npy_clear(wire_jw_npy *c)
{
    if (c->has_src)
        wire__jw_release_rows(&c->src);
    free(c->v);
    memset(c, 0, sizeof *c);
    c->rank = -1;
}

int wire__npy_rank(const wire_npy_key *keys, const char *key)
{
    for (int i = 0; keys && keys[i].key; i++) {
        if (strcmp(keys[i].key, key) == 0)
            return i;
    }
    return -1;
}

/* A value starts. At the top level of the response object (outside a capture) this consumes the
 * key written before it: returns its rank when the value should be captured (its key is wanted
 * and better than what was captured so far), else -1. */
int wire__npy_take_pending(wire_jw *w)
{
    struct wire_jw_ext *e = w->ext;
    if (w->depth != 1 || e->active)
        return -1;
    int r = e->pending;
    e->pending = -1;
    if (r >= 0 && !e->multi && e->best.rank >= 0 && e->best.rank <= r)
        return -1;
    return r;
}

void wire__npy_cap_start(struct wire_jw_ext *e, int rank, int base)
{
    wire_jw_npy_clear(&e->cur);
    e->cur.rank = rank;
    e->cur.key = e->keys[rank].key;
    e->cur.masked = e->keys[rank].masked;
    e->cur.all_int = 1;
    e->active = 1;
    e->base = base;
    e->leaf = 0;
    e->bad = 0;
    e->maxlvl = 0;
    for (int i = 0; i < WIRE_JW_MAX_DEPTH; i++) {
        e->cnt[i] = 0;
        e->dim[i] = SIZE_MAX;
    }
}

/* A finished capture c (taken) becomes the best one, or joins the list in multi mode. */
static void keep(struct wire_jw_ext *e, const wire_jw_npy *c)
{
    if (e->multi && e->n_all < e->cap_all) {
        e->all[e->n_all++] = *c;
        return;
    }
    wire_jw_npy_clear(&e->best);
    e->best = *c;
}

int wire_jw_npy_multi(wire_jw *w)
{
    struct wire_jw_ext *e = w->ext;
    if (w->mode != WIRE_JW_NPY || e == NULL)
        return -1;
    size_t n = 0;
    while (e->keys && e->keys[n].key)
        n++;
    e->all = calloc(n + 1, sizeof *e->all);
    if (e->all == NULL) {
        w->failed = 1;
        return -1;
    }
    e->cap_all = n + 1;
    e->multi = 1;
    return 0;
}

int wire_jw_npy_has(const wire_jw *w, const char *key)
{
    const struct wire_jw_ext *e = w->ext;
    if (e == NULL)
        return 0;
    if (e->best.rank >= 0 && strcmp(e->best.key, key) == 0)
        return 1;
    for (size_t i = 0; i < e->n_all; i++) {
        if (strcmp(e->all[i].key, key) == 0)
            return 1;
    }
    return 0;
}

/* The finished capture becomes the best one (when it is a rectangular array of numbers). */
void wire__npy_cap_finish(struct wire_jw_ext *e)
{
    e->active = 0;
    int nd = e->leaf ? e->leaf : e->maxlvl;
    size_t prod = 1;
    for (int l = 1; l <= nd && !e->bad; l++) {
        size_t d = e->dim[l] == SIZE_MAX ? 0 : e->dim[l];
        e->cur.shape[l - 1] = d;
        prod *= d;
    }
    if (e->bad || (e->leaf && prod != e->cur.n)) {
        wire_jw_npy_clear(&e->cur);
        return;
    }
    e->cur.ndim = nd;
    keep(e, &e->cur);
    memset(&e->cur, 0, sizeof e->cur);
    e->cur.rank = -1;
}

void wire__npy_cap_push(wire_jw *w, double v, int is_int)
{
    struct wire_jw_ext *e = w->ext;
    int lvl = w->depth - e->base;
    if (e->bad || w->failed)
        return;
    if (e->leaf == 0)
        e->leaf = lvl;
    else if (e->leaf != lvl) {
        e->bad = 1;
        return;
    }
    e->cnt[lvl]++;
    if (!is_int)
        e->cur.all_int = 0;
    wire_jw_npy *c = &e->cur;
    if (c->n == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 1024;
        if (ncap > w->max / sizeof(double) + 1024 || ncap > SIZE_MAX / sizeof(double)) {
            w->failed = 1;
            return;
        }
        double *nv = realloc(c->v, ncap * sizeof *nv);
        if (nv == NULL) {
            w->failed = 1;
            return;
        }
        c->v = nv;
        c->cap = ncap;
    }
    c->v[c->n++] = v;
}

/* A whole row source is the captured value. */
void wire__npy_cap_source(wire_jw *w, int rank, const wire_rows *src)
{
    struct wire_jw_ext *e = w->ext;
    wire_jw_npy c = {0}, *b = &c;
    b->rank = rank;
    b->key = e->keys[rank].key;
    b->masked = e->keys[rank].masked;
    b->ndim = 2;
    b->shape[0] = src->rows;
    b->shape[1] = src->cols;
    b->has_src = 1;
    b->src = *src;
    keep(e, b);
}

/* A scalar that is not a number (string, bool) in NPY mode. */
void wire__npy_other(wire_jw *w)
{
    if (w->ext->active)
        w->ext->bad = 1;
    else
        (void)wire__npy_take_pending(w);
}

/* NPY mode, a numeric array value that is not captured: only finiteness matters. */
void wire__npy_scan(wire_jw *w, const double *x, const unsigned char *mask, size_t n, int masked)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) && !(mask && mask[i]) && !(masked && x[i] == -INFINITY))
            w->nonfinite = 1;
    }
}

/* NPY mode: 1 when the array value about to be written is neither captured nor inside a capture
 * (its key's pending rank is consumed); else 0 (the pending rank is kept for wire_jw_arr_begin). */
int wire__npy_skip(wire_jw *w)
{
    struct wire_jw_ext *e = w->ext;
    if (e->active)
        return 0;
    int r = wire__npy_take_pending(w);
    if (r < 0)
        return 1;
    e->pending = r;
    return 0;
}

void wire__npy_note(wire_jw *w, const char *s)
{
    struct wire_jw_ext *e = w->ext;
    if (e->n_notes == e->cap_notes) {
        size_t cap = e->cap_notes ? 2 * e->cap_notes : 4;
        char **n = realloc(e->notes, cap * sizeof *n);
        if (n == NULL) {
            w->failed = 1;
            return;
        }
        e->notes = n;
        e->cap_notes = cap;
    }
    size_t len = strlen(s);
    char *c = malloc(len + 1);
    if (c == NULL) {
        w->failed = 1;
        return;
    }
    memcpy(c, s, len + 1);
    e->notes[e->n_notes++] = c;
}

size_t wire_jw_npy_notes(const wire_jw *w, const char **out, size_t max)
{
    size_t n = 0;
    for (; w->ext != NULL && n < w->ext->n_notes && n < max; n++)
        out[n] = w->ext->notes[n];
    return n;
}
