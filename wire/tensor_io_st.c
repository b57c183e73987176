/*
 * wire/tensor_io_st.c -- the incremental .safetensors parser of tensor_io.h.
 *
 * States: ST_LEN (the u64 LE header size arrives) → ST_HEADER (N bytes of JSON arrive into a
 * buffer of N <= max_header bytes) → the header is parsed, the wanted tensor chosen and its
 * float64 table allocated → ST_DATA (bytes of the data section are counted; those inside the
 * wanted tensor's [begin, end) are decoded into the table as they pass, an element split across
 * two feeds waits in `carry`; all others are dropped). Any error → ST_FAILED (sticky).
 * Memory: with a hold hook (wire_st_set_hold) what has arrived is reported before it is stored: the
 * header bytes received, then 8 bytes per number decoded into the table (a refusal → ST_FAILED,
 * overloaded), and 0 once they are freed. Both buffers are allocated at their full size when their
 * size is known, but a page of them costs memory only once written, so a client that declares a
 * large header or tensor and sends it slowly holds only what it has sent.
 * Source: huggingface/safetensors README "Format" (header size, JSON header, data_offsets
 * relative to the byte after the header, little-endian, C order).
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pe.h"
#include "wire/le.h"
#include "wire/tensor_io.h"

enum { ST_LEN = 0, ST_HEADER = 1, ST_DATA = 2, ST_FAILED = 3 };

/* The format's names of wire_dtype values (index = wire_dtype). */
static const char *const ST_DTYPE[] = {"F16", "BF16", "F32", "F64"};

static void st_fail(wire_st_stream *s, wire_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reports that the parser is about to hold `bytes` in total (or holds that much less after a
 * free). Returns 0, or -1 when the hook refuses to let it grow. */
static int st_hold(wire_st_stream *s, size_t bytes)
{
    if (s->hold != NULL && bytes != s->held) {
        int rc = s->hold(s->hold_cls, bytes);
        if (rc != 0 && bytes > s->held)
            return -1; /* refused to grow: nothing changed */
    }
    s->held = bytes;
    return 0;
}

static void st_fail(wire_st_stream *s, wire_status status, const char *fmt, ...)
{
    char msg[WIRE_ERR_DETAIL_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->state != ST_FAILED) {
        wire_err_init(&s->err);
        if (status == WIRE_EINVALID || status == WIRE_ELIMIT) /* the body is at fault */
            wire_err_at(&s->err, status, "", "%s", msg);
        else
            wire_err_set(&s->err, status, "%s", msg);
    }
    s->state = ST_FAILED;
    free(s->header);
    s->header = NULL;
    free(s->data);
    s->data = NULL;
    st_hold(s, 0);
}

int wire_st_init(wire_st_stream *s, const char *want, size_t max_header, size_t max_table_bytes)
{
    memset(s, 0, sizeof *s);
    wire_err_init(&s->err);
    s->max_header = max_header ? max_header : WIRE_ST_MAX_HEADER;
    s->max_table_bytes = max_table_bytes;
    s->state = ST_LEN;
    if (want && want[0]) {
        s->want = strdup(want);
        if (s->want == NULL) {
            st_fail(s, WIRE_ENOMEM, "out of memory");
            return -1;
        }
    }
    return 0;
}

void wire_st_set_hold(wire_st_stream *s, wire_st_hold_fn fn, void *cls)
{
    s->hold = fn;
    s->hold_cls = cls;
}

void wire_st_free(wire_st_stream *s)
{
    free(s->want);
    free(s->header);
    free(s->data);
    free(s->name);
    s->want = s->header = s->name = NULL;
    s->data = NULL;
    st_hold(s, 0);
}

/* A header entry: {"dtype": str, "shape": [ints >= 0], "data_offsets": [b, e]}. */
typedef struct {
    const char *dtype;
    size_t nd;
    json_int_t dims[2];
    json_int_t begin, end;
} st_entry;

static int st_entry_read(wire_st_stream *s, const char *name, const json_t *e, st_entry *out)
{
    const json_t *dt = json_object_get(e, "dtype");
    const json_t *sh = json_object_get(e, "shape");
    const json_t *of = json_object_get(e, "data_offsets");
    if (!json_is_object(e) || !json_is_string(dt) || !json_is_array(sh) || !json_is_array(of) ||
        json_array_size(of) != 2) {
        st_fail(s, WIRE_EINVALID,
                ".safetensors header: tensor \"%.60s\" needs dtype, shape and data_offsets [begin, "
                "end]",
                name);
        return -1;
    }
    out->dtype = json_string_value(dt);
    out->nd = json_array_size(sh);
    for (size_t i = 0; i < out->nd; i++) {
        const json_t *d = json_array_get(sh, i);
        if (!json_is_integer(d) || json_integer_value(d) < 0) {
            st_fail(s, WIRE_EINVALID,
                    ".safetensors header: the shape of tensor \"%.60s\" must be non-negative "
                    "integers",
                    name);
            return -1;
        }
        if (i < 2)
            out->dims[i] = json_integer_value(d);
    }
    const json_t *b = json_array_get(of, 0), *en = json_array_get(of, 1);
    if (!json_is_integer(b) || !json_is_integer(en) || json_integer_value(b) < 0 ||
        json_integer_value(en) < json_integer_value(b)) {
        st_fail(s, WIRE_EINVALID,
                ".safetensors header: data_offsets of tensor \"%.60s\" must be integers 0 <= begin "
                "<= end",
                name);
        return -1;
    }
    out->begin = json_integer_value(b);
    out->end = json_integer_value(en);
    return 0;
}

/* Appends "name" to a comma-separated list in buf (bounded; "…" once full). */
static void list_add(char *buf, size_t n, const char *name)
{
    size_t l = strlen(buf);
    if (l + 8 >= n)
        return;
    int k = snprintf(buf + l, n - l, "%s\"%.40s\"", l ? ", " : "", name);
    if (k < 0 || (size_t)k >= n - l)
        snprintf(buf + (n > 8 ? n - 8 : 0), 8, ", ...");
}

/* Parses the complete header, chooses the tensor, allocates its table. */
static void st_header_done(wire_st_stream *s)
{
    json_error_t jerr;
    json_t *h = json_loadb(s->header, s->header_n, JSON_REJECT_DUPLICATES, &jerr);
    free(s->header);
    s->header = NULL;
    st_hold(s, 0);
    if (h == NULL || !json_is_object(h)) {
        st_fail(s, WIRE_EINVALID,
                ".safetensors header is not a JSON object (line %d, column %d: %.100s)",
                h ? 1 : jerr.line, h ? 1 : jerr.column, h ? "not an object" : jerr.text);
        json_decref(h);
        return;
    }
    const char *key;
    json_t *val;
    const char *pick = NULL;
    st_entry ent, chosen;
    memset(&chosen, 0, sizeof chosen);
    size_t n_2d = 0, n_all = 0;
    char names[160] = "", names_2d[160] = "";
    json_object_foreach(h, key, val)
    {
        if (strcmp(key, "__metadata__") == 0)
            continue;
        if (st_entry_read(s, key, val, &ent) < 0) {
            json_decref(h);
            return;
        }
        n_all++;
        list_add(names, sizeof names, key);
        if (ent.nd == 2) {
            n_2d++;
            list_add(names_2d, sizeof names_2d, key);
        }
        if (s->want ? strcmp(key, s->want) == 0 : (ent.nd == 2 && n_2d == 1)) {
            pick = key;
            chosen = ent;
        }
    }
    if (s->want && pick == NULL) {
        st_fail(s, WIRE_EINVALID, ".safetensors: no tensor named \"%.60s\"; the file has %zu: %s",
                s->want, n_all, names[0] ? names : "none");
        json_decref(h);
        return;
    }
    if (!s->want && n_2d != 1) {
        if (n_2d == 0)
            st_fail(s, WIRE_EINVALID,
                    ".safetensors: the file has no 2-D tensor (%zu "
                    "tensors: %s)",
                    n_all, names[0] ? names : "none");
        else
            st_fail(s, WIRE_EINVALID,
                    ".safetensors: the file has %zu 2-D tensors (%s); name one with ?tensor=", n_2d,
                    names_2d);
        json_decref(h);
        return;
    }
    s->name = strdup(pick);
    if (s->name == NULL) {
        st_fail(s, WIRE_ENOMEM, "out of memory");
        json_decref(h);
        return;
    }
    int found = 0;
    for (int i = WIRE_DT_F16; i <= WIRE_DT_F64; i++) {
        if (strcmp(chosen.dtype, ST_DTYPE[i]) == 0) {
            s->dtype = (wire_dtype)i;
            found = 1;
        }
    }
    if (!found) {
        st_fail(s, WIRE_EINVALID,
                ".safetensors: tensor \"%.60s\" has dtype %.16s; accepted: F16, BF16, F32, F64",
                s->name, chosen.dtype);
        json_decref(h);
        return;
    }
    if (chosen.nd != 2 || chosen.dims[0] == 0 || chosen.dims[1] == 0) {
        if (chosen.nd != 2)
            st_fail(s, WIRE_EINVALID,
                    ".safetensors: tensor \"%.60s\" is %zu-D; a table must be 2-D [positions][dim]",
                    s->name, chosen.nd);
        else
            st_fail(s, WIRE_EINVALID,
                    ".safetensors: tensor \"%.60s\" has an empty shape [%lld, %lld]", s->name,
                    (long long)chosen.dims[0], (long long)chosen.dims[1]);
        json_decref(h);
        return;
    }
    json_decref(h);
    s->es = wire_dtype_size(s->dtype);
    size_t r = (size_t)chosen.dims[0], c = (size_t)chosen.dims[1], n, f64b, raw;
    if ((uint64_t)chosen.dims[0] > (size_t)-1 || (uint64_t)chosen.dims[1] > (size_t)-1 ||
        !pe_mul_ok(r, c, &n) || !pe_mul_ok(n, sizeof(double), &f64b) || f64b > s->max_table_bytes) {
        st_fail(s, WIRE_ELIMIT,
                ".safetensors: tensor \"%.60s\" [%lld, %lld] needs more than max_table_bytes (%zu) "
                "as float64",
                s->name, (long long)chosen.dims[0], (long long)chosen.dims[1], s->max_table_bytes);
        return;
    }
    raw = n * s->es;
    if ((uint64_t)(chosen.end - chosen.begin) != (uint64_t)raw) {
        st_fail(s, WIRE_EINVALID,
                ".safetensors: tensor \"%.60s\" spans %lld bytes, but [%zu, %zu] %s needs %zu",
                s->name, (long long)(chosen.end - chosen.begin), r, c, ST_DTYPE[s->dtype], raw);
        return;
    }
    s->rows = r;
    s->cols = c;
    s->begin = (uint64_t)chosen.begin;
    s->end = (uint64_t)chosen.end;
    s->data = malloc(f64b);
    if (s->data == NULL) {
        st_fail(s, WIRE_ENOMEM, "out of memory for a %zu x %zu table", r, c);
        return;
    }
    s->state = ST_DATA;
}

/* Decodes k whole elements at p into the table; fails on a non-finite value. */
static void st_decode(wire_st_stream *s, const unsigned char *p, size_t k)
{
    if (st_hold(s, (s->n_done + k) * sizeof(double)) < 0) { /* <= max_table_bytes: no overflow */
        st_fail(s, WIRE_EREFUSED,
                ".safetensors: no memory budget now for the %zu bytes of tensor \"%.60s\" as "
                "float64; retry later",
                s->rows * s->cols * sizeof(double), s->name);
        return;
    }
    size_t ok = wire_decode_le(s->dtype, p, k, s->data + s->n_done);
    if (ok < k) {
        size_t at = s->n_done + ok;
        st_fail(s, WIRE_EINVALID,
                ".safetensors: tensor \"%.60s\" value at row %zu, column %zu is not finite (NaN or "
                "Inf)",
                s->name, at / s->cols, at % s->cols);
        return;
    }
    s->n_done += k;
}

/* n bytes of the data section starting at its offset s->data_pos. */
static void st_data(wire_st_stream *s, const unsigned char *p, size_t n)
{
    uint64_t lo = s->data_pos, hi = lo + n;
    s->data_pos = hi;
    if (hi <= s->begin || lo >= s->end)
        return;
    uint64_t a = lo > s->begin ? lo : s->begin;
    uint64_t b = hi < s->end ? hi : s->end;
    const unsigned char *q = p + (a - lo);
    size_t m = (size_t)(b - a);
    if (s->carry_n) {
        size_t take = s->es - s->carry_n < m ? s->es - s->carry_n : m;
        memcpy(s->carry + s->carry_n, q, take);
        s->carry_n += take;
        q += take;
        m -= take;
        if (s->carry_n < s->es)
            return;
        s->carry_n = 0;
        st_decode(s, s->carry, 1);
        if (s->state == ST_FAILED)
            return;
    }
    size_t whole = m / s->es;
    if (whole) {
        st_decode(s, q, whole);
        if (s->state == ST_FAILED)
            return;
    }
    q += whole * s->es;
    m -= whole * s->es;
    if (m) {
        memcpy(s->carry, q, m);
        s->carry_n = m;
    }
}

int wire_st_feed(wire_st_stream *s, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0 && s->state != ST_FAILED) {
        size_t take = n;
        if (s->state == ST_LEN) {
            take = 8 - s->lenbuf_n < n ? 8 - s->lenbuf_n : n;
            memcpy(s->lenbuf + s->lenbuf_n, p, take);
            s->lenbuf_n += take;
            if (s->lenbuf_n == 8) {
                uint64_t hl = wire_le_get(s->lenbuf, 8);
                s->header_len = hl;
                if (hl < 2)
                    st_fail(s, WIRE_EINVALID,
                            ".safetensors header size %llu is too small for a JSON object",
                            (unsigned long long)hl);
                else if (hl > s->max_header)
                    st_fail(s, WIRE_ELIMIT,
                            ".safetensors header size %llu exceeds the cap of %zu bytes (is this a "
                            ".safetensors file?)",
                            (unsigned long long)hl, s->max_header);
                else if ((s->header = malloc((size_t)hl)) == NULL)
                    st_fail(s, WIRE_ENOMEM, "out of memory for the header");
                else
                    s->state = ST_HEADER;
            }
        } else if (s->state == ST_HEADER) {
            size_t need = (size_t)s->header_len - s->header_n;
            take = need < n ? need : n;
            if (st_hold(s, s->header_n + take) < 0) {
                st_fail(s, WIRE_EREFUSED,
                        "no memory budget now for the %llu-byte .safetensors header; retry later",
                        (unsigned long long)s->header_len);
                break;
            }
            memcpy(s->header + s->header_n, p, take);
            s->header_n += take;
            if (s->header_n == s->header_len)
                st_header_done(s);
        } else {
            st_data(s, p, n);
        }
        s->total += take;
        p += take;
        n -= take;
    }
    return s->state == ST_FAILED ? -1 : 0;
}

int wire_st_done(const wire_st_stream *s)
{
    return s->state == ST_DATA && s->n_done == s->rows * s->cols;
}

int wire_st_finish(wire_st_stream *s, wire_tensor *out, const char **name_out, wire_err *pb)
{
    memset(out, 0, sizeof *out);
    if (name_out)
        *name_out = s->name;
    if (s->state != ST_FAILED && !wire_st_done(s)) {
        if (s->state == ST_DATA)
            st_fail(s, WIRE_EINVALID,
                    ".safetensors file ends after %llu bytes, before the end of tensor \"%.60s\" "
                    "(byte %llu)",
                    (unsigned long long)s->total, s->name,
                    (unsigned long long)(8 + s->header_len + s->end));
        else
            st_fail(s, WIRE_EINVALID, ".safetensors file ends after %llu bytes, inside its %s",
                    (unsigned long long)s->total,
                    s->state == ST_LEN ? "8-byte header size" : "header");
    }
    if (s->state == ST_FAILED) {
        *pb = s->err;
        return -1;
    }
    out->rows = s->rows;
    out->cols = s->cols;
    out->data = s->data;
    out->dtype = s->dtype;
    s->data = NULL;
    s->held = 0; /* the table's reservation goes with it (wire_st_hold_fn) */
    return 0;
}

int wire_safetensors_parse(const void *buf, size_t len, const char *want, size_t max_table_bytes,
                           wire_tensor *out, wire_err *pb)
{
    wire_st_stream s;
    wire_st_init(&s, want, 0, max_table_bytes);
    wire_st_feed(&s, buf, len);
    int rc = wire_st_finish(&s, out, NULL, pb);
    wire_st_free(&s);
    return rc;
}
