/* wire/stream.c -- see stream.h. */
#include "wire/stream.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "wire/jw_priv.h"
#include "wire/le.h"
#include "wire/tensor_io.h"

/* Elements encoded at once for an .npy array held as values (not as a row source). */
#define NPY_CHUNK 4096

struct wire_stream {
    int npy;
    int custom; /* src is the reader (wire_stream_custom) */
    wire_stream_src src;
    /* JSON: the envelope text and the deferred matrices, in order */
    char *text;
    size_t text_len, tpos;
    wire_jw_seg *segs;
    size_t n_segs, seg;
    int in_rows;
    size_t row;
    /* bytes produced but not yet read */
    char *stage;
    size_t stage_len, stage_pos, stage_cap;
    double *scratch; /* one row */
    /* .npy */
    wire_jw_npy arr;
    char hdr[WIRE_NPY_HEADER_MAX];
    size_t hdr_len, hdr_pos;
    size_t elsize; /* 8 or 4 */
    int f32, i64;
    size_t next; /* next element (values) or row (row source) to encode */
    uint64_t total;
    int failed; /* out of memory while producing: the body ended early */
};

static int stage_reserve(wire_stream *s, size_t n)
{
    if (n <= s->stage_cap)
        return 1;
    char *b = realloc(s->stage, n);
    if (b == NULL)
        return 0;
    s->stage = b;
    s->stage_cap = n;
    return 1;
}

static wire_stream *stream_new(size_t cols)
{
    wire_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->arr.rank = -1;
    if (cols > 0) {
        s->scratch = malloc(cols * sizeof *s->scratch);
        if (s->scratch == NULL) {
            free(s);
            return NULL;
        }
    }
    return s;
}

wire_stream *wire_stream_json(wire_jw *w)
{
    size_t cols = 0;
    struct wire_jw_ext *e = w->ext;
    for (size_t i = 0; e && i < e->n_segs; i++) {
        if (e->segs[i].src.cols > cols)
            cols = e->segs[i].src.cols;
    }
    wire_stream *s = stream_new(cols);
    if (s == NULL) {
        free(s);
        wire_jw_free(w);
        return NULL;
    }
    s->text = w->buf;
    s->text_len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    if (e) {
        s->segs = e->segs;
        s->n_segs = e->n_segs;
        e->segs = NULL;
        e->n_segs = e->cap_segs = 0;
    }
    wire_jw_free(w);
    return s;
}

/* Formats row s->row of the current segment (with its bracket or comma) into the stage. */
static int json_row(wire_stream *s)
{
    const wire_rows *src = &s->segs[s->seg].src;
    size_t cols = src->cols;
    if (!stage_reserve(s, cols * WIRE_JW_NUM_MAX + 4 + WIRE_JW_NUM_SLACK))
        return 0;
    const double *x = src->row(src->self, s->row, s->scratch);
    char *p = s->stage;
    *p++ = s->row == 0 ? '[' : ',';
    int nonfinite = 0; /* row sources promise finite values (jw.h); null is written otherwise */
    p += wire_jw_fmt_row(p, x, cols, src->masked, &nonfinite);
    if (++s->row == src->rows)
        *p++ = ']';
    s->stage_len = (size_t)(p - s->stage);
    s->stage_pos = 0;
    return 1;
}

static void seg_done(wire_stream *s)
{
    wire_rows *src = &s->segs[s->seg].src;
    if (src->release)
        src->release(src->self);
    src->release = NULL;
    s->in_rows = 0;
    s->seg++;
}

static void encode(const wire_stream *s, double x, unsigned char *out)
{
    if (s->i64) {
        int64_t v = (int64_t)x;
        wire_le_put(out, &v, 8);
    } else if (s->f32) {
        float f = (float)x;
        wire_le_put(out, &f, 4);
    } else {
        wire_le_put(out, &x, 8);
    }
}

/* Encodes the next chunk of .npy data into the stage; 0 at the end or when out of memory. */
static int npy_chunk(wire_stream *s)
{
    wire_jw_npy *a = &s->arr;
    unsigned char *p;
    if (a->has_src) {
        const wire_rows *src = &a->src;
        if (s->next >= src->rows)
            return 0;
        if (!stage_reserve(s, src->cols * s->elsize + 1))
            return 0;
        const double *x = src->row(src->self, s->next, s->scratch);
        p = (unsigned char *)s->stage;
        for (size_t c = 0; c < src->cols; c++) {
            double v = x[c];
            if (src->masked && v == -INFINITY)
                v = a->masked;
            encode(s, v, p + c * s->elsize);
        }
        s->stage_len = src->cols * s->elsize;
        s->next++;
    } else {
        if (s->next >= a->n)
            return 0;
        size_t k = a->n - s->next < NPY_CHUNK ? a->n - s->next : NPY_CHUNK;
        if (!stage_reserve(s, NPY_CHUNK * 8))
            return 0;
        p = (unsigned char *)s->stage;
        for (size_t i = 0; i < k; i++)
            encode(s, a->v[s->next + i], p + i * s->elsize);
        s->stage_len = k * s->elsize;
        s->next += k;
    }
    s->stage_pos = 0;
    return 1;
}

size_t wire_stream_read(wire_stream *s, char *buf, size_t max)
{
    if (s->custom)
        return s->src.read(s->src.self, buf, max);
    size_t out = 0;
    while (out < max) {
        if (s->stage_pos < s->stage_len) {
            size_t k = s->stage_len - s->stage_pos;
            if (k > max - out)
                k = max - out;
            memcpy(buf + out, s->stage + s->stage_pos, k);
            s->stage_pos += k;
            out += k;
            continue;
        }
        if (s->npy) {
            if (s->hdr_pos < s->hdr_len) {
                size_t k = s->hdr_len - s->hdr_pos;
                if (k > max - out)
                    k = max - out;
                memcpy(buf + out, s->hdr + s->hdr_pos, k);
                s->hdr_pos += k;
                out += k;
                continue;
            }
            if (!npy_chunk(s)) {
                s->failed = s->arr.has_src ? s->next < s->arr.src.rows : s->next < s->arr.n;
                break;
            }
            continue;
        }
        if (s->in_rows) {
            if (s->row < s->segs[s->seg].src.rows) {
                if (!json_row(s)) {
                    s->failed = 1; /* out of memory: the body ends early */
                    break;
                }
            } else {
                seg_done(s);
            }
            continue;
        }
        size_t stop = s->seg < s->n_segs ? s->segs[s->seg].at : s->text_len;
        if (s->tpos < stop) {
            size_t k = stop - s->tpos;
            if (k > max - out)
                k = max - out;
            memcpy(buf + out, s->text + s->tpos, k);
            s->tpos += k;
            out += k;
            continue;
        }
        if (s->seg >= s->n_segs)
            break;
        s->row = 0;
        s->in_rows = 1;
        if (s->segs[s->seg].src.rows == 0) {
            if (!stage_reserve(s, 2)) {
                s->failed = 1;
                break;
            }
            memcpy(s->stage, "[]", 2);
            s->stage_len = 2;
            s->stage_pos = 0;
        }
    }
    return out;
}

int wire_stream_failed(const wire_stream *s)
{
    if (s->custom)
        return s->src.failed ? s->src.failed(s->src.self) : 0;
    return s->failed;
}

uint64_t wire_stream_size(const wire_stream *s)
{
    if (s->custom)
        return s->src.size;
    return s->npy ? s->total : WIRE_STREAM_SIZE_UNKNOWN;
}

uint64_t wire_stream_held(const wire_stream *s)
{
    if (s->custom && s->src.held != NULL)
        return s->src.held(s->src.self);
    if (s->custom)
        return s->src.size == WIRE_STREAM_SIZE_UNKNOWN ? 0 : 2 * s->src.size;
    if (s->npy) {
        uint64_t count = 1;
        for (int i = 0; i < s->arr.ndim; i++)
            count *= s->arr.shape[i];
        return s->hdr_len + 8 * count;
    }
    uint64_t held = s->text_len;
    for (size_t i = 0; i < s->n_segs; i++)
        held += (uint64_t)s->segs[i].src.rows * s->segs[i].src.cols * 8;
    return held;
}

const char *wire_stream_array(const wire_stream *s)
{
    if (s->custom)
        return s->src.array;
    return s->npy ? s->arr.key : NULL;
}

int wire_stream_file(const wire_stream *s, uint64_t *off)
{
    if (!s->custom || !s->src.in_file)
        return -1;
    *off = s->src.file_off;
    return s->src.fd;
}

wire_stream *wire_stream_custom(const wire_stream_src *src)
{
    wire_stream *s = stream_new(0);
    if (s == NULL) {
        if (src->release)
            src->release(src->self);
        return NULL;
    }
    s->custom = 1;
    s->src = *src;
    return s;
}

void wire_stream_free(wire_stream *s)
{
    if (s == NULL)
        return;
    if (s->custom && s->src.release)
        s->src.release(s->src.self);
    for (size_t i = s->seg; i < s->n_segs; i++) {
        if (s->segs[i].src.release)
            s->segs[i].src.release(s->segs[i].src.self);
    }
    free(s->segs);
    free(s->text);
    free(s->stage);
    free(s->scratch);
    wire_jw_npy_clear(&s->arr);
    free(s);
}

char *wire_stream_drain(wire_stream *s, size_t max, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (b == NULL)
            break;
        if (cap - n < 2048) {
            if (cap > max) {
                free(b);
                b = NULL;
                break;
            }
            char *nb = realloc(b, cap * 2);
            if (nb == NULL) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t k = wire_stream_read(s, b + n, cap - n - 1);
        if (k == 0)
            break;
        n += k;
    }
    int failed = wire_stream_failed(s);
    wire_stream_free(s);
    if (b == NULL || n > max || failed) {
        free(b);
        return NULL;
    }
    b[n] = '\0';
    *len = n;
    return b;
}

/* ---- .npy -------------------------------------------------------------------------------------
 */

/* 1 when some unmasked value of a is beyond the float32 range (it would become an infinity). */
static int f32_overflows(wire_stream *s)
{
    const wire_jw_npy *a = &s->arr;
    if (!a->has_src) {
        for (size_t i = 0; i < a->n; i++) {
            if (isfinite(a->v[i]) && isinf((float)a->v[i]))
                return 1;
        }
        return 0;
    }
    const wire_rows *src = &a->src;
    if (src->max_abs > 0.0 && src->max_abs <= FLT_MAX)
        return 0;
    for (size_t r = 0; r < src->rows; r++) {
        const double *x = src->row(src->self, r, s->scratch);
        for (size_t c = 0; c < src->cols; c++) {
            if (isfinite(x[c]) && isinf((float)x[c]))
                return 1;
        }
    }
    return 0;
}

wire_stream *wire__stream_npy_take(wire_jw_npy *arr, int f32, wire_err *pb)
{
    wire_stream *s = stream_new(arr->has_src ? arr->src.cols : 0);
    if (s == NULL) {
        wire_jw_npy_clear(arr);
        wire_err_set(pb, WIRE_ENOMEM, "out of memory");
        return NULL;
    }
    s->npy = 1;
    s->arr = *arr;
    memset(arr, 0, sizeof *arr);
    arr->rank = -1;
    wire_jw_npy *a = &s->arr;
    s->i64 = a->all_int && !a->has_src;
    s->f32 = f32 && !s->i64;
    s->elsize = s->f32 ? 4 : 8;
    if (s->f32 && f32_overflows(s)) {
        wire_stream_free(s);
        wire_err_at(pb, WIRE_EINVALID, "/dtype",
                    "a value is beyond the float32 range (3.4028235e38); use \"float64\"");
        return NULL;
    }
    s->hdr_len = wire_npy_header(s->hdr, sizeof s->hdr,
                                 s->i64   ? "<i8"
                                 : s->f32 ? "<f4"
                                          : "<f8",
                                 a->shape, a->ndim);
    if (s->hdr_len == 0) {
        wire_stream_free(s);
        wire_err_set(pb, WIRE_EINTERNAL, "the .npy header does not fit");
        return NULL;
    }
    uint64_t count = 1;
    for (int i = 0; i < a->ndim; i++)
        count *= a->shape[i];
    s->total = s->hdr_len + count * s->elsize;
    return s;
}

wire_stream *wire_stream_npy(wire_jw *w, int f32, wire_err *pb)
{
    struct wire_jw_ext *e = w->ext;
    if (e == NULL || e->best.rank < 0) {
        wire_jw_free(w);
        wire_err_set(pb, WIRE_EINTERNAL, "this response has no array for application/x-npy");
        return NULL;
    }
    wire_jw_npy best = e->best;
    memset(&e->best, 0, sizeof e->best);
    e->best.rank = -1;
    wire_jw_free(w);
    return wire__stream_npy_take(&best, f32, pb);
}

wire_stream *wire_stream_npy_rows(const wire_rows *src, wire_err *pb)
{
    wire_stream *s = stream_new(src->cols);
    if (s == NULL) {
        if (src->release)
            src->release(src->self);
        wire_err_set(pb, WIRE_ENOMEM, "out of memory");
        return NULL;
    }
    s->npy = 1;
    s->arr.rank = 0;
    s->arr.has_src = 1;
    s->arr.src = *src;
    s->arr.ndim = 2;
    s->arr.shape[0] = src->rows;
    s->arr.shape[1] = src->cols;
    s->elsize = 8;
    s->hdr_len = wire_npy_header(s->hdr, sizeof s->hdr, "<f8", s->arr.shape, 2);
    if (s->hdr_len == 0) {
        wire_stream_free(s);
        wire_err_set(pb, WIRE_EINTERNAL, "the .npy header does not fit");
        return NULL;
    }
    s->total = s->hdr_len + (uint64_t)src->rows * src->cols * 8;
    return s;
}
