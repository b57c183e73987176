/* wire/jw.c -- see jw.h (and jw_priv.h for what wire/stream.c reads back). */
#include "wire/jw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/jw_priv.h"
#include "wire/numfmt.h"

/* ---- numbers --------------------------------------------------------------------------------- */

static const char DIGITS2[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                              "34353637383940414243444546474849505152535455565758596061626364656667"
                              "6869707172737475767778798081828384858687888990919293949596979899";

/* Writes the decimal digits of v so that they end just before `end`; returns their start. */
static char *u64_digits_before(char *end, uint64_t v)
{
    char *p = end;
    while (v >= 100) {
        uint64_t q = v / 100;
        unsigned r = (unsigned)(v - q * 100);
        p -= 2;
        memcpy(p, DIGITS2 + 2 * r, 2);
        v = q;
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, DIGITS2 + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

size_t wire_fmt_int(char *out, int64_t v)
{
    char tmp[24];
    char *end = tmp + sizeof tmp;
    /* the magnitude as unsigned: -(INT64_MIN) does not fit in int64 */
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = u64_digits_before(end, m);
    size_t n = 0;
    if (v < 0)
        out[n++] = '-';
    memcpy(out + n, p, (size_t)(end - p));
    n += (size_t)(end - p);
    out[n] = '\0';
    return n;
}

/* Writes exactly 8 digits of v (v < 10^8) into p: one 64-bit product gives v / 10^6 as a 48-bit
 * fixed-point number, and each further product by 100 shifts the next two digits into the integer
 * part (the "jeaiii" scheme; checked for every v < 10^8 when this was written). */
static void write8(char *p, uint32_t v)
{
    uint64_t y = (uint64_t)v * 281474977u; /* ceil(2^48 / 10^6) */
    memcpy(p, DIGITS2 + 2 * (y >> 48), 2);
    y = (y & 0xFFFFFFFFFFFFu) * 100u;
    memcpy(p + 2, DIGITS2 + 2 * (y >> 48), 2);
    y = (y & 0xFFFFFFFFFFFFu) * 100u;
    memcpy(p + 4, DIGITS2 + 2 * (y >> 48), 2);
    y = (y & 0xFFFFFFFFFFFFu) * 100u;
    memcpy(p + 6, DIGITS2 + 2 * (y >> 48), 2);
}

/* Writes the 17 digits of v (v < 10^17), with leading zeros, into p[0..17). */
static void write17(char *p, uint64_t v)
{
    uint64_t hi = v / 100000000u; /* < 10^9 */
    uint32_t lo = (uint32_t)(v - hi * 100000000u);
    uint32_t top = (uint32_t)(hi / 100000000u);
    uint32_t mid = (uint32_t)(hi - (uint64_t)top * 100000000u);
    p[0] = (char)('0' + top);
    write8(p + 1, mid);
    write8(p + 9, lo);
}

/* Number of decimal digits of v (v >= 1). */
static int digit_count(uint64_t v)
{
    static const uint64_t P10[20] = {1u,
                                     10u,
                                     100u,
                                     1000u,
                                     10000u,
                                     100000u,
                                     1000000u,
                                     10000000u,
                                     100000000u,
                                     1000000000u,
                                     10000000000u,
                                     100000000000u,
                                     1000000000000u,
                                     10000000000000u,
                                     100000000000000u,
                                     1000000000000000u,
                                     10000000000000000u,
                                     100000000000000000u,
                                     1000000000000000000u,
                                     10000000000000000000u};
    /* log10 v, or one more (Bit Twiddling Hacks) */
    int t = ((64 - __builtin_clzll(v)) * 1233) >> 12;
    return t - (v < P10[t]) + 1;
}

/* The layout of a finite non-zero x = (-1)^neg * sig * 10^e (Dragonbox's shortest digits), without
 * the NUL: ECMAScript Number::toString, steps 5-10, with the k digits s and n such that
 * x = s * 10^(n-k), except that integers take the plain form only below 10^17 (ECMAScript: 10^21),
 * so that no number looks like an integer beyond int64. The digits are made in tmp[7..24) (48
 * bytes; the caller has set tmp[24..48) to '0' once, they are only read here) and moved with
 * fixed-size copies (inlined), so out[0..32) may be written beyond the returned length (callers
 * leave WIRE_JW_NUM_SLACK bytes of room). */
static size_t fmt_decimal_raw(char *out, int neg, uint64_t sig, int e, char *tmp)
{
    /* The sign without a branch: with signs at random (half of a sine table) a branch mispredicts
     * on every other number (about 1.3 ns of 23 per number measured). For x > 0 the digits
     * overwrite the '-'. */
    out[0] = '-';
    char *p = out + neg;
    int k = digit_count(sig);
    int n = k + e;
    if (-6 < n && n <= 0 && k - n >= 15) {
        /* 0.000ddd with 15 or more characters after "0." (most numbers in (-1, 1)): the 17
         * zero-padded digits go straight to where they end, p + 2 - n + k, starting at or after
         * p, over "0.000000"; then "0." again (the padding may have covered the '.'). Only
         * stores: nothing just written is read back, which costs a store-forwarding stall. */
        memcpy(p, "0.000000", 8);
        write17(p + 2 - n + k - 17, sig);
        memcpy(p, "0.", 2);
        return (size_t)(p + 2 - n + k - out);
    }
    write17(tmp + 7, sig); /* Dragonbox gives at most 17 digits */
    const char *d = tmp + 24 - k;
    if (k <= n && n <= 17) { /* integer below 10^17: digits, then n-k zeros (from tmp) */
        memcpy(p, d, 24);
        p += n;
    } else if (0 < n && n < k) { /* ddd.ddd */
        memcpy(p, d, 16);        /* the n <= 16 integer digits */
        if (n <= 14) { /* the k - n <= 16 fraction digits in one copy, within the 32 bytes */
            memcpy(p + n + 1, d + n, 16);
        } else {
            for (int i = n; i < k; i++)
                p[i + 1] = d[i];
        }
        p[n] = '.';
        p += k + 1;
    } else if (-6 < n && n <= 0) { /* 0.000ddd */
        memcpy(p, "0.000000", 8);
        memcpy(p + 2 - n, d, 20);
        p += 2 - n + k;
    } else { /* d.ddde+X */
        p[0] = d[0];
        p[1] = '.';
        memcpy(p + 2, d + 1, 16);
        p += k > 1 ? k + 1 : 1;
        *p++ = 'e';
        int x10 = n - 1;
        *p++ = x10 < 0 ? '-' : '+';
        unsigned a = (unsigned)(x10 < 0 ? -x10 : x10);
        if (a >= 100) {
            *p++ = (char)('0' + a / 100);
            a %= 100;
            memcpy(p, DIGITS2 + 2 * a, 2);
            p += 2;
        } else if (a >= 10) {
            memcpy(p, DIGITS2 + 2 * a, 2);
            p += 2;
        } else {
            *p++ = (char)('0' + a);
        }
    }
    return (size_t)(p - out);
}

/* fmt_decimal_raw for one finite x (0 and -0 give "0"). */
static size_t fmt_double_raw(char *out, double x)
{
    if (x == 0.0) {
        out[0] = '0'; /* also -0, as JSON.stringify prints it (README: .npy keeps the sign) */
        return 1;
    }
    uint64_t sig;
    int e;
    int neg = wire_numfmt_decimal(x, &sig, &e);
    char tmp[48];
    memset(tmp + 24, '0', 24);
    return fmt_decimal_raw(out, neg, sig, e, tmp);
}

size_t wire_fmt_double(char *out, double x)
{
    size_t n = fmt_double_raw(out, x);
    out[n] = '\0';
    return n;
}

/* fmt_double_raw's result is at most 25 bytes: WIRE_JW_NUM_MAX (26) covers one number and its
 * comma; it may scribble up to 32 bytes past where a number starts (WIRE_JW_NUM_SLACK). */

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

static void release_rows(const wire_rows *src)
{
    if (src->release)
        src->release(src->self);
}

void wire_jw_npy_clear(wire_jw_npy *c)
{
    if (c->has_src)
        release_rows(&c->src);
    free(c->v);
    memset(c, 0, sizeof *c);
    c->rank = -1;
}

void wire_jw_free(wire_jw *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
    if (w->ext) {
        for (size_t i = 0; i < w->ext->n_segs; i++)
            release_rows(&w->ext->segs[i].src);
        free(w->ext->segs);
        wire_jw_npy_clear(&w->ext->cur);
        wire_jw_npy_clear(&w->ext->best);
        free(w->ext);
        w->ext = NULL;
    }
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
static void jw_sep(wire_jw *w)
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

/* ---- .npy capture (WIRE_JW_NPY) ---------------------------------------------------------------
 */

static int npy_rank(const wire_npy_key *keys, const char *key)
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
static int npy_take_pending(wire_jw *w)
{
    struct wire_jw_ext *e = w->ext;
    if (w->depth != 1 || e->active)
        return -1;
    int r = e->pending;
    e->pending = -1;
    if (r >= 0 && e->best.rank >= 0 && e->best.rank <= r)
        return -1;
    return r;
}

static void cap_start(struct wire_jw_ext *e, int rank, int base)
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

/* The finished capture becomes the best one (when it is a rectangular array of numbers). */
static void cap_finish(struct wire_jw_ext *e)
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
    wire_jw_npy_clear(&e->best);
    e->best = e->cur;
    memset(&e->cur, 0, sizeof e->cur);
    e->cur.rank = -1;
}

static void cap_push(wire_jw *w, double v, int is_int)
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
static void cap_source(wire_jw *w, int rank, const wire_rows *src)
{
    struct wire_jw_ext *e = w->ext;
    wire_jw_npy_clear(&e->best);
    wire_jw_npy *b = &e->best;
    b->rank = rank;
    b->key = e->keys[rank].key;
    b->masked = e->keys[rank].masked;
    b->ndim = 2;
    b->shape[0] = src->rows;
    b->shape[1] = src->cols;
    b->has_src = 1;
    b->src = *src;
}

/* ---- structure ------------------------------------------------------------------------------- */

static void jw_open(wire_jw *w, char c)
{
    jw_sep(w);
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
        (void)npy_take_pending(w);
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
        int r = npy_take_pending(w);
        if (r >= 0)
            cap_start(e, r, w->depth);
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
        cap_finish(e);
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
        jw_sep(w);
        if (w->depth == 1 && !w->ext->active)
            w->ext->pending = npy_rank(w->ext->keys, key);
        w->after_key = 1;
        return;
    }
    jw_sep(w);
    jw_escaped(w, key);
    jw_raw(w, ":", 1);
    w->after_key = 1;
}

/* A scalar that is not a number (string, bool) in NPY mode. */
static void npy_other(wire_jw *w)
{
    if (w->ext->active)
        w->ext->bad = 1;
    else
        (void)npy_take_pending(w);
}

void wire_jw_double(wire_jw *w, double x)
{
    if (!isfinite(x)) {
        w->nonfinite = 1;
        wire_jw_null(w);
        return;
    }
    if (w->mode == WIRE_JW_NPY) {
        jw_sep(w);
        if (w->ext->active)
            cap_push(w, x, 0);
        else
            (void)npy_take_pending(w);
        return;
    }
    char tmp[32];
    size_t n = fmt_double_raw(tmp, x);
    jw_sep(w);
    jw_raw(w, tmp, n);
}

void wire_jw_int(wire_jw *w, int64_t v)
{
    if (w->mode == WIRE_JW_NPY) {
        jw_sep(w);
        if (w->ext->active)
            cap_push(w, (double)v, 1);
        else
            (void)npy_take_pending(w);
        return;
    }
    char tmp[24];
    size_t n = wire_fmt_int(tmp, v);
    jw_sep(w);
    jw_raw(w, tmp, n);
}

void wire_jw_bool(wire_jw *w, int v)
{
    if (w->mode == WIRE_JW_NPY)
        npy_other(w);
    jw_sep(w);
    if (v)
        jw_raw(w, "true", 4);
    else
        jw_raw(w, "false", 5);
}

void wire_jw_null(wire_jw *w)
{
    if (w->mode == WIRE_JW_NPY) {
        jw_sep(w);
        if (w->ext->active)
            cap_push(w, w->ext->cur.masked, 0);
        else
            (void)npy_take_pending(w);
        return;
    }
    jw_sep(w);
    jw_raw(w, "null", 4);
}

void wire_jw_str(wire_jw *w, const char *s)
{
    if (w->mode == WIRE_JW_NPY)
        npy_other(w);
    jw_sep(w);
    jw_escaped(w, s);
}

size_t wire_jw_fmt_row(char *out, const double *x, size_t n, int masked, int *nonfinite)
{
    enum { BLOCK = 64 }; /* numbers per Dragonbox call (wire_numfmt_decimals) */
    char *p = out;
    *p++ = '[';
    uint64_t sig[BLOCK];
    int ex[BLOCK];
    char tmp[48];
    memset(tmp + 24, '0', 24);
    for (size_t b = 0; b < n; b += BLOCK) {
        size_t m = n - b < BLOCK ? n - b : BLOCK;
        wire_numfmt_decimals(x + b, m, sig, ex);
        for (size_t j = 0; j < m; j++) {
            size_t i = b + j;
            if (i)
                *p++ = ',';
            double v = x[i];
            if (sig[j] != 0) {
                p += fmt_decimal_raw(p, signbit(v) != 0, sig[j], ex[j], tmp);
            } else if (v == 0.0) {
                *p++ = '0';
            } else {
                if (!(masked && v == -INFINITY))
                    *nonfinite = 1;
                memcpy(p, "null", 4);
                p += 4;
            }
        }
    }
    *p++ = ']';
    return (size_t)(p - out);
}

/* [x0, ...] as text (BUFFER and STREAM modes); masked: -inf is a masked cell (null). */
static void doubles_text(wire_jw *w, const double *x, size_t n, int masked)
{
    if (n <= (SIZE_MAX - 2) / WIRE_JW_NUM_MAX && w->depth + 1 < WIRE_JW_MAX_DEPTH) {
        size_t need = n * WIRE_JW_NUM_MAX + 2 + WIRE_JW_NUM_SLACK;
        if (!w->after_key && !w->first[w->depth])
            need++;
        if (jw_try_reserve(w, need)) {
            jw_sep(w);
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

/* NPY mode, a numeric array value that is not captured: only finiteness matters. */
static void npy_scan(wire_jw *w, const double *x, const unsigned char *mask, size_t n, int masked)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) && !(mask && mask[i]) && !(masked && x[i] == -INFINITY))
            w->nonfinite = 1;
    }
}

/* NPY mode: 1 when the array value about to be written is neither captured nor inside a capture
 * (its key's pending rank is consumed); else 0 (the pending rank is kept for wire_jw_arr_begin). */
static int npy_skip(wire_jw *w)
{
    struct wire_jw_ext *e = w->ext;
    if (e->active)
        return 0;
    int r = npy_take_pending(w);
    if (r < 0)
        return 1;
    e->pending = r;
    return 0;
}

void wire_jw_doubles(wire_jw *w, const double *x, size_t n)
{
    if (w->mode == WIRE_JW_NPY) {
        if (npy_skip(w)) {
            jw_sep(w);
            npy_scan(w, x, NULL, n, 0);
            return;
        }
        wire_jw_arr_begin(w);
        for (size_t i = 0; i < n && !w->failed; i++)
            wire_jw_double(w, x[i]);
        wire_jw_arr_end(w);
        return;
    }
    doubles_text(w, x, n, 0);
}

void wire_jw_ints(wire_jw *w, const int64_t *v, size_t n)
{
    if (w->mode == WIRE_JW_NPY) {
        if (npy_skip(w)) {
            jw_sep(w);
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
        jw_sep(w);
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

/* ---- matrices and row sources ---------------------------------------------------------------- */

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
    jw_sep(w);
    struct wire_jw_ext *e = w->ext;
    if (w->failed) {
        release_rows(src);
        return;
    }
    if (e->n_segs == e->cap_segs) {
        size_t ncap = e->cap_segs ? 2 * e->cap_segs : 8;
        wire_jw_seg *ns = realloc(e->segs, ncap * sizeof *ns);
        if (ns == NULL) {
            w->failed = 1;
            release_rows(src);
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
            doubles_text(w, x, src->cols, src->masked);
        }
    }
    wire_jw_arr_end(w);
    free(scratch);
}

void wire_jw_rows(wire_jw *w, const wire_rows *src)
{
    if (w->failed) {
        release_rows(src);
        return;
    }
    if (w->mode == WIRE_JW_STREAM && src->rows * src->cols >= WIRE_JW_DEFER_MIN) {
        defer_rows(w, src);
        return;
    }
    if (w->mode == WIRE_JW_NPY && !w->ext->active) {
        int r = npy_take_pending(w);
        jw_sep(w);
        if (r >= 0)
            cap_source(w, r, src);
        else
            release_rows(src);
        return;
    }
    rows_now(w, src);
    release_rows(src);
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
    if (w->mode == WIRE_JW_NPY && npy_skip(w)) {
        jw_sep(w);
        npy_scan(w, x, mask, n, 0);
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
            doubles_text(w, xr, cols, 0);
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
