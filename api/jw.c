/* api/jw.c -- see jw.h. */
#include "jw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void api_jw_init(api_jw *w, size_t max_bytes)
{
    memset(w, 0, sizeof *w);
    w->max = max_bytes;
    w->first[0] = 1;
}

void api_jw_free(api_jw *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

int api_jw_ok(const api_jw *w)
{
    return !w->failed;
}

char *api_jw_take(api_jw *w, size_t *len)
{
    if (w->failed || w->buf == NULL) {
        api_jw_free(w);
        return NULL;
    }
    char *b = w->buf;
    if (len)
        *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return b;
}

static int jw_reserve(api_jw *w, size_t extra)
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
    size_t ncap = w->cap ? w->cap : 4096;
    while (ncap < need)
        ncap = ncap > ((size_t)-1) / 2 ? need : ncap * 2;
    char *nb = realloc(w->buf, ncap);
    if (nb == NULL) {
        w->failed = 1;
        return 0;
    }
    w->buf = nb;
    w->cap = ncap;
    return 1;
}

static void jw_raw(api_jw *w, const char *s, size_t n)
{
    if (!jw_reserve(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

/* Emits the separator a new value needs at the current depth. */
static void jw_sep(api_jw *w)
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

static void jw_open(api_jw *w, char c)
{
    jw_sep(w);
    if (w->depth + 1 >= API_JW_MAX_DEPTH) {
        w->failed = 1;
        return;
    }
    jw_raw(w, &c, 1);
    w->depth++;
    w->first[w->depth] = 1;
}

static void jw_close(api_jw *w, char c)
{
    if (w->depth == 0) {
        w->failed = 1;
        return;
    }
    w->depth--;
    jw_raw(w, &c, 1);
}

void api_jw_obj_begin(api_jw *w) { jw_open(w, '{'); }
void api_jw_obj_end(api_jw *w) { jw_close(w, '}'); }
void api_jw_arr_begin(api_jw *w) { jw_open(w, '['); }
void api_jw_arr_end(api_jw *w) { jw_close(w, ']'); }

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
static void jw_escaped(api_jw *w, const char *s)
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

void api_jw_key(api_jw *w, const char *key)
{
    jw_sep(w);
    jw_escaped(w, key);
    jw_raw(w, ":", 1);
    w->after_key = 1;
}

size_t api_fmt_double(char *out, double x)
{
    if (x == 0.0) {
        /* keep the sign of -0.0 out of JSON: both parse to zero */
        memcpy(out, "0", 2);
        return 1;
    }
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(out, 32, "%.*g", prec, x);
        if (prec == 17 || strtod(out, NULL) == x)
            break;
    }
    return (size_t)n;
}

void api_jw_double(api_jw *w, double x)
{
    if (!isfinite(x)) {
        w->nonfinite = 1;
        api_jw_null(w);
        return;
    }
    char tmp[32];
    size_t n = api_fmt_double(tmp, x);
    jw_sep(w);
    jw_raw(w, tmp, n);
}

void api_jw_int(api_jw *w, int64_t v)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    jw_sep(w);
    jw_raw(w, tmp, (size_t)n);
}

void api_jw_bool(api_jw *w, int v)
{
    jw_sep(w);
    if (v)
        jw_raw(w, "true", 4);
    else
        jw_raw(w, "false", 5);
}

void api_jw_null(api_jw *w)
{
    jw_sep(w);
    jw_raw(w, "null", 4);
}

void api_jw_str(api_jw *w, const char *s)
{
    jw_sep(w);
    jw_escaped(w, s);
}

void api_jw_doubles(api_jw *w, const double *x, size_t n)
{
    api_jw_arr_begin(w);
    for (size_t i = 0; i < n && !w->failed; i++)
        api_jw_double(w, x[i]);
    api_jw_arr_end(w);
}

void api_jw_ints(api_jw *w, const int64_t *v, size_t n)
{
    api_jw_arr_begin(w);
    for (size_t i = 0; i < n && !w->failed; i++)
        api_jw_int(w, v[i]);
    api_jw_arr_end(w);
}

void api_jw_matrix(api_jw *w, const double *x, const unsigned char *mask, size_t rows, size_t cols)
{
    api_jw_arr_begin(w);
    for (size_t r = 0; r < rows && !w->failed; r++) {
        api_jw_arr_begin(w);
        for (size_t c = 0; c < cols; c++) {
            size_t i = r * cols + c;
            if (mask && mask[i])
                api_jw_null(w);
            else
                api_jw_double(w, x[i]);
        }
        api_jw_arr_end(w);
    }
    api_jw_arr_end(w);
}

void api_jw_json(api_jw *w, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *val;
        api_jw_obj_begin(w);
        json_object_foreach((json_t *)v, k, val)
        {
            api_jw_key(w, k);
            api_jw_json(w, val);
        }
        api_jw_obj_end(w);
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *val;
        api_jw_arr_begin(w);
        json_array_foreach(v, i, val) api_jw_json(w, val);
        api_jw_arr_end(w);
        break;
    }
    case JSON_STRING:
        api_jw_str(w, json_string_value(v));
        break;
    case JSON_INTEGER:
        api_jw_int(w, (int64_t)json_integer_value(v));
        break;
    case JSON_REAL:
        api_jw_double(w, json_real_value(v));
        break;
    case JSON_TRUE:
        api_jw_bool(w, 1);
        break;
    case JSON_FALSE:
        api_jw_bool(w, 0);
        break;
    case JSON_NULL:
        api_jw_null(w);
        break;
    }
}
