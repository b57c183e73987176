/*
 * tests/lib/bin_util.c -- helpers of the binary-request suites (bin_util.h).
 */
#include "tests/lib/bin_util.h"

#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bin.h"
#include "tests/lib/api_util.h"
#include "wire/tensor_enc.h"

void bu_add(bu_body *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->buf = realloc(b->buf, b->cap);
        ck_assert_ptr_nonnull(b->buf);
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

void bu_part(bu_body *b, const char *name, const void *data, size_t n)
{
    char h[256];
    int k = snprintf(h, sizeof h,
                     "--" BU_BOUNDARY "\r\nContent-Disposition: form-data; name=\"%s\"; "
                     "filename=\"%s.npy\"\r\nContent-Type: application/octet-stream\r\n\r\n",
                     name, name);
    bu_add(b, h, (size_t)k);
    bu_add(b, data, n);
    bu_add(b, "\r\n", 2);
}

void bu_params(bu_body *b, const char *json)
{
    bu_part(b, "params", json, strlen(json));
}

void bu_npy(bu_body *b, const char *name, wire_dtype dt, const size_t *shape, int ndim,
            const double *x)
{
    size_t count = 1;
    for (int a = 0; a < ndim; a++)
        count *= shape[a];
    static const char *const DESCR[] = {"<f2", "<u2", "<f4", "<f8"};
    char hdr[WIRE_NPY_HEADER_MAX];
    size_t hl = wire_npy_header(hdr, sizeof hdr, DESCR[dt], shape, ndim);
    size_t es = wire_dtype_size(dt);
    unsigned char *f = malloc(hl + count * es);
    ck_assert_ptr_nonnull(f);
    memcpy(f, hdr, hl);
    if (dt == WIRE_DT_F64) /* as it is: NaN and Inf too (the error cases) */
        wire_encode_f64_le(x, count, f + hl);
    else
        ck_assert_uint_eq(wire_encode_le(dt, x, count, f + hl), count);
    bu_part(b, name, f, hl + count * es);
    free(f);
}

void bu_end(bu_body *b)
{
    bu_add(b, "--" BU_BOUNDARY "--\r\n", sizeof BU_BOUNDARY + 5);
}

typedef struct {
    uint64_t quota, others;
    size_t refuse_at;
} bu_state;

static int bu_reserve(void *cls, uint64_t total)
{
    bu_state *s = cls;
    return s->quota && total + s->others > s->quota ? -1 : 0;
}

static int bu_hold(void *cls, size_t bytes)
{
    bu_state *s = cls;
    return s->refuse_at && bytes > s->refuse_at ? -1 : 0;
}

api_response bu_run(const bu_body *b, const bu_opts *o)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    bu_state st = {o->quota, o->others, (size_t)o->refuse_hold_at};
    api_spool sp = {fileno(f), bu_reserve, &st, NULL, o->quota};
    api_bin *bin = api_bin_new(&au_ctx, &api_route_rope, BU_BOUNDARY, &sp, bu_hold, &st);
    ck_assert_ptr_nonnull(bin);
    size_t piece = o->piece ? o->piece : b->len;
    for (size_t i = 0; i < b->len; i += piece)
        api_bin_feed(bin, b->buf + i, b->len - i < piece ? b->len - i : piece);
    api_opts opts = {.npy = o->npy, .npz = !o->npy, .array = o->array, .stream = 0};
    api_response r;
    api_bin_run(bin, &opts, "t", &r);
    api_bin_free(bin); /* the body is buffered (stream 0) */
    fclose(f);
    return r;
}

const unsigned char *bu_npy_data(const api_response *r, wire_dtype dt, size_t count)
{
    ck_assert_msg(r->status == 200, "status %d: %.*s", r->status, (int)r->len,
                  r->body ? r->body : "");
    ck_assert_str_eq(r->content_type, "application/x-npy");
    wire_npy_nd info;
    wire_err e;
    wire_err_init(&e);
    ck_assert_int_eq(
        wire_npy_parse_header_nd(r->body, r->len, dt == WIRE_DT_BF16, (size_t)-1, &info, &e), 1);
    ck_assert_int_eq(info.dtype, dt);
    ck_assert_uint_eq(info.count, count);
    ck_assert_uint_eq(r->len, info.header_len + info.data_bytes);
    return (const unsigned char *)r->body + info.header_len;
}

void bu_expect_problem(const api_response *r, int status, const char *ptr)
{
    ck_assert_msg(r->status == status, "status %d, want %d: %.*s", r->status, status, (int)r->len,
                  r->body ? r->body : "");
    ck_assert_str_eq(r->content_type, "application/problem+json");
    json_error_t err;
    json_t *j = json_loadb(r->body, r->len, 0, &err);
    ck_assert_ptr_nonnull(j);
    if (ptr != NULL) {
        const char *got = json_string_value(
            json_object_get(json_array_get(json_object_get(j, "errors"), 0), "pointer"));
        ck_assert_msg(got != NULL && strcmp(got, ptr) == 0, "pointer %s, want %s: %s",
                      got ? got : "(none)", ptr, r->body);
    }
    json_decref(j);
}
