/* wire/jw.c -- the JSON writer: buffer, structure, strings and scalars (jw.h). Numbers are written
 * by jw_num.c, the .npy capture is jw_npy.c, matrices and row sources jw_rows.c (jw_priv.h). */
#include "wire/jw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/jw_priv.h"

/* ---- buffer ---------------------------------------------------------------------------------- */

void wire_jw_init(wire_jw *w, size_t max_bytes)
{
    memset(w, 0, sizeof *w);
    w->max = max_bytes;
    w->first[0] = 1;
    w->mode = WIRE_JW_BUFFER;
}

void wire_jw_init_mode(wire_jw *w, size_t max_bytes, wire_jw_mode mode,
                       const wire_npy_key *npy_keys)
{
    wire_jw_init(w, max_bytes);
    if (mode == WIRE_JW_BUFFER)
        return;
    w->mode = mode;
    w->ext = calloc(1, sizeof *w->ext);
    if (w->ext == NULL) {
        w->failed = 1;
        return;
    }
    w->ext->keys = npy_keys;
    w->ext->pending = -1;
    w->ext->cur.rank = -1;
    w->ext->best.rank = -1;
}

void wire_jw_free(wire_jw *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
    if (w->ext) {
        for (size_t i = 0; i < w->ext->n_segs; i++)
            wire__jw_release_rows(&w->ext->segs[i].src);
        free(w->ext->segs);
        wire_jw_npy_clear(&w->ext->cur);
        wire_jw_npy_clear(&w->ext->best);
        for (size_t i = 0; i < w->ext->n_all; i++)
            wire_jw_npy_clear(&w->ext->all[i]);
        free(w->ext->all);
        for (size_t i = 0; i < w->ext->n_notes; i++)
            free(w->ext->notes[i]);
        free(w->ext->notes);
        free(w->ext);
        w->ext = NULL;
    }
}

int wire_jw_deferred(const wire_jw *w)
{
    return w->ext != NULL && w->ext->n_segs > 0;
}

int wire_jw_ok(const wire_jw *w)
{
    return !w->failed;
}

char *wire_jw_take(wire_jw *w, size_t *len)
{
    if (w->failed || w->buf == NULL || w->mode == WIRE_JW_NPY || (w->ext && w->ext->n_segs > 0)) {
        wire_jw_free(w);
        return NULL;
    }
    char *b = w->buf;
    if (len)
        *len = w->len;
    w->buf = NULL;
    wire_jw_free(w);
    return b;
}

/*
 * Makes room for `extra` more bytes (plus the NUL); 0 (and w failed) past the cap or on OOM. The
 * buffer doubles (appends stay amortised O(1)), or grows to exactly what is needed when that is
 * more: a whole array's upper bound is reserved at once (doubles_text), and rounding e.g. the
 * 26 MB bound of 10^6 numbers up to 32 MiB crossed glibc's largest mmap threshold, so that every
 * such buffer was a fresh mapping whose pages all faulted in (about 10 ms per 10^6 numbers).
 */
static int jw_reserve(wire_jw *w, size_t extra)
{
    if (w->failed)
        return 0;
    if (extra > w->max || w->len > w->max - extra) {
        w->failed = 1;
        return 0;
    }
    size_t need = w->len + extra + 1;
    if (need <= w->cap)
        return 1;
    size_t ncap = w->cap == 0 ? 4096 : w->cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * w->cap;
    if (ncap < need)
        ncap = need;
    char *nb = realloc(w->buf, ncap);
    if (nb == NULL) {
        w->failed = 1;
        return 0;
    }
    w->buf = nb;
    w->cap = ncap;
    return 1;
}

/* Room for `extra` bytes without failing the writer when the cap is in the way (an upper bound
 * that may not be reached); 0 = take the careful path. */
static int jw_try_reserve(wire_jw *w, size_t extra)
{
    if (w->failed || extra > w->max || w->len > w->max - extra)
        return 0;
    return jw_reserve(w, extra);
}

static void jw_raw(wire_jw *w, const char *s, size_t n)
{
    if (w->mode == WIRE_JW_NPY)
        return;
    if (!jw_reserve(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

/* Emits the separator a new value needs at the current depth. */
void wire__jw_sep(wire_jw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->first[w->depth])
        w->first[w->depth] = 0;
    else
        jw_raw(w, ",", 1);
}

/* ---- structure ------------------------------------------------------------------------------- */

static void jw_open(wire_jw *w, char c)
{
    wire__jw_sep(w);
    if (w->depth + 1 >= WIRE_JW_MAX_DEPTH) {
        w->failed = 1;
        return;
    }
    jw_raw(w, &c, 1);
    w->depth++;
    w->first[w->depth] = 1;
}

static void jw_close(wire_jw *w, char c)
{
    if (w->depth == 0) {
        w->failed = 1;
        return;
    }
    w->depth--;
    jw_raw(w, &c, 1);
}

void wire_jw_obj_begin(wire_jw *w)
{
    if (w->mode == WIRE_JW_NPY) {
        (void)wire__npy_take_pending(w);
        if (w->ext->active)
            w->ext->bad = 1;
    }
    jw_open(w, '{');
}

void wire_jw_obj_end(wire_jw *w)
{
    jw_close(w, '}');
}

void wire_jw_arr_begin(wire_jw *w)
{
    if (w->mode != WIRE_JW_NPY) {
        jw_open(w, '[');
        return;
    }
    struct wire_jw_ext *e = w->ext;
    if (e->active) {
        int lvl = w->depth - e->base;
        if (e->leaf && lvl >= e->leaf)
            e->bad = 1;
        e->cnt[lvl]++;
    } else {
        int r = wire__npy_take_pending(w);
        if (r >= 0)
            wire__npy_cap_start(e, r, w->depth);
    }
    jw_open(w, '[');
    if (e->active && !w->failed) {
        int lvl = w->depth - e->base;
        e->cnt[lvl] = 0;
        if (lvl > e->maxlvl)
            e->maxlvl = lvl;
    }
}

void wire_jw_arr_end(wire_jw *w)
{
    struct wire_jw_ext *e = w->ext;
    if (w->mode == WIRE_JW_NPY && e->active && w->depth > e->base) {
        int lvl = w->depth - e->base;
        if (e->dim[lvl] == SIZE_MAX)
            e->dim[lvl] = e->cnt[lvl];
        else if (e->dim[lvl] != e->cnt[lvl])
            e->bad = 1;
    }
    jw_close(w, ']');
    if (w->mode == WIRE_JW_NPY && e->active && w->depth == e->base)
        wire__npy_cap_finish(e);
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF), or 0 when p does not start one. p is NUL-terminated, so reads stop at the NUL. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        else if (c == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    }
    return n;
}

/* Writes s as a JSON string. Bytes that are not well-formed UTF-8 (e.g. a multi-byte character cut
 * by a truncating snprintf, or raw bytes of a malformed upload quoted in a message) become U+FFFD,
 * so the output is always valid JSON text (RFC 8259 §8.1). */
static void jw_escaped(wire_jw *w, const char *s)
{
    jw_raw(w, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        if (*p >= 0x80) {
            size_t n = utf8_len(p);
            if (n == 0) {
                jw_raw(w, "\\ufffd", 6);
            } else {
                jw_raw(w, (const char *)p, n);
                p += n - 1;
            }
        } else if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            jw_raw(w, esc, 2);
        } else if (*p < 0x20) {
            int n = snprintf(esc, sizeof esc, "\\u%04x", (unsigned)*p);
            jw_raw(w, esc, (size_t)n);
        } else {
            jw_raw(w, (const char *)p, 1);
        }
    }
    jw_raw(w, "\"", 1);
}

void wire_jw_key(wire_jw *w, const char *key)
{
    if (w->mode == WIRE_JW_NPY) {
        wire__jw_sep(w);
        if (w->depth == 1)
            w->ext->notes_on = strcmp(key, "warnings") == 0;
        if (w->depth == 1 && !w->ext->active)
            w->ext->pending = wire__npy_rank(w->ext->keys, key);
        w->after_key = 1;
        return;
    }
    wire__jw_sep(w);
    jw_escaped(w, key);
    jw_raw(w, ":", 1);
    w->after_key = 1;
}

/* NPY mode: a number (is_int: it came through wire_jw_int) is captured, or consumes its key. */
static void npy_number(wire_jw *w, double v, int is_int)
{
    wire__jw_sep(w);
    if (w->ext->active)
        wire__npy_cap_push(w, v, is_int);
    else
        (void)wire__npy_take_pending(w);
}

void wire_jw_double(wire_jw *w, double x)
{
    if (!isfinite(x)) {
        w->nonfinite = 1;
        wire_jw_null(w);
        return;
    }
    if (w->mode == WIRE_JW_NPY) {
        npy_number(w, x, 0);
        return;
    }
    char tmp[32];
    size_t n = wire_fmt_double(tmp, x);
    wire__jw_sep(w);
    jw_raw(w, tmp, n);
}

void wire_jw_int(wire_jw *w, int64_t v)
{
    if (w->mode == WIRE_JW_NPY) {
        npy_number(w, (double)v, 1);
        return;
    }
    char tmp[24];
    size_t n = wire_fmt_int(tmp, v);
    wire__jw_sep(w);
    jw_raw(w, tmp, n);
}

void wire_jw_bool(wire_jw *w, int v)
{
    if (w->mode == WIRE_JW_NPY)
        wire__npy_other(w);
    wire__jw_sep(w);
    if (v)
        jw_raw(w, "true", 4);
    else
        jw_raw(w, "false", 5);
}

void wire_jw_null(wire_jw *w)
{
    if (w->mode == WIRE_JW_NPY) {
        npy_number(w, w->ext->cur.masked, 0);
        return;
    }
    wire__jw_sep(w);
    jw_raw(w, "null", 4);
}

void wire_jw_str(wire_jw *w, const char *s)
{
    if (w->mode == WIRE_JW_NPY && w->ext->notes_on && w->depth == 2)
        wire__npy_note(w, s);
    if (w->mode == WIRE_JW_NPY)
        wire__npy_other(w);
    wire__jw_sep(w);
    jw_escaped(w, s);
}

/* Appends "\\uXXXX" for the UTF-16 unit u at out + *len. */
static void put_u(char *out, size_t *len, unsigned u)
{
    *len += (size_t)snprintf(out + *len, 7, "\\u%04x", u);
}

char *wire_json_ascii_strings(const char *const *s, size_t n)
{
    size_t cap = 3; /* [ ] NUL */
    for (size_t i = 0; i < n; i++)
        cap += 3 + 12 * strlen(s[i]); /* "", a comma; at worst 12 bytes a byte (a pair) */
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    size_t len = 0;
    out[len++] = '[';
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            out[len++] = ',';
        out[len++] = '"';
        for (const unsigned char *p = (const unsigned char *)s[i]; *p; p++) {
            if (*p >= 0x80) {
                size_t k = utf8_len(p);
                if (k == 0) {
                    put_u(out, &len, 0xFFFD);
                    continue;
                }
                unsigned cp = p[0] & (k == 2 ? 0x1Fu : k == 3 ? 0x0Fu : 0x07u);
                for (size_t j = 1; j < k; j++)
                    cp = cp << 6 | (p[j] & 0x3Fu);
                if (cp > 0xFFFF) { /* a surrogate pair */
                    put_u(out, &len, 0xD800 + ((cp - 0x10000) >> 10));
                    put_u(out, &len, 0xDC00 + ((cp - 0x10000) & 0x3FF));
                } else
                    put_u(out, &len, cp);
                p += k - 1;
            } else if (*p == '"' || *p == '\\') {
                out[len++] = '\\';
                out[len++] = (char)*p;
            } else if (*p < 0x20 || *p == 0x7F) {
                put_u(out, &len, *p);
            } else
                out[len++] = (char)*p;
        }
        out[len++] = '"';
    }
    out[len++] = ']';
    out[len] = '\0';
    return out;
}

/* [x0, ...] as text (BUFFER and STREAM modes); masked: -inf is a masked cell (null). */
void wire__jw_doubles_text(wire_jw *w, const double *x, size_t n, int masked)
{
    if (n <= (SIZE_MAX - 2) / WIRE_JW_NUM_MAX && w->depth + 1 < WIRE_JW_MAX_DEPTH) {
        size_t need = n * WIRE_JW_NUM_MAX + 2 + WIRE_JW_NUM_SLACK;
        if (!w->after_key && !w->first[w->depth])
            need++;
        if (jw_try_reserve(w, need)) {
            wire__jw_sep(w);
            w->len += wire_jw_fmt_row(w->buf + w->len, x, n, masked, &w->nonfinite);
            w->buf[w->len] = '\0';
            return;
        }
    }
    /* near the cap: number by number, so that the cap is enforced exactly */
    wire_jw_arr_begin(w);
    for (size_t i = 0; i < n && !w->failed; i++) {
        if (masked && x[i] == -INFINITY)
            wire_jw_null(w);
        else
            wire_jw_double(w, x[i]);
    }
    wire_jw_arr_end(w);
}

void wire_jw_doubles(wire_jw *w, const double *x, size_t n)
{
    if (w->mode == WIRE_JW_NPY) {
        if (wire__npy_skip(w)) {
            wire__jw_sep(w);
            wire__npy_scan(w, x, NULL, n, 0);
            return;
        }
        wire_jw_arr_begin(w);
        for (size_t i = 0; i < n && !w->failed; i++)
            wire_jw_double(w, x[i]);
        wire_jw_arr_end(w);
        return;
    }
    wire__jw_doubles_text(w, x, n, 0);
}

void wire_jw_ints(wire_jw *w, const int64_t *v, size_t n)
{
    if (w->mode == WIRE_JW_NPY) {
        if (wire__npy_skip(w)) {
            wire__jw_sep(w);
            return;
        }
        wire_jw_arr_begin(w);
        for (size_t i = 0; i < n && !w->failed; i++)
            wire_jw_int(w, v[i]);
        wire_jw_arr_end(w);
        return;
    }
    if (n <= (SIZE_MAX - 3) / 22 && w->depth + 1 < WIRE_JW_MAX_DEPTH &&
        jw_try_reserve(w, n * 22 + 3)) {
        wire__jw_sep(w);
        char *p = w->buf + w->len;
        *p++ = '[';
        for (size_t i = 0; i < n; i++) {
            if (i)
                *p++ = ',';
            p += wire_fmt_int(p, v[i]);
        }
        *p++ = ']';
        w->len = (size_t)(p - w->buf);
        w->buf[w->len] = '\0';
        return;
    }
    wire_jw_arr_begin(w);
    for (size_t i = 0; i < n && !w->failed; i++)
        wire_jw_int(w, v[i]);
    wire_jw_arr_end(w);
}

void wire_jw_json(wire_jw *w, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *val;
        wire_jw_obj_begin(w);
        json_object_foreach((json_t *)v, k, val)
        {
            wire_jw_key(w, k);
            wire_jw_json(w, val);
        }
        wire_jw_obj_end(w);
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *val;
        wire_jw_arr_begin(w);
        json_array_foreach(v, i, val) wire_jw_json(w, val);
        wire_jw_arr_end(w);
        break;
    }
    case JSON_STRING:
        wire_jw_str(w, json_string_value(v));
        break;
    case JSON_INTEGER:
        wire_jw_int(w, (int64_t)json_integer_value(v));
        break;
    case JSON_REAL:
        wire_jw_double(w, json_real_value(v));
        break;
    case JSON_TRUE:
        wire_jw_bool(w, 1);
        break;
    case JSON_FALSE:
        wire_jw_bool(w, 0);
        break;
    case JSON_NULL:
        wire_jw_null(w);
        break;
    }
}
