/*
 * api/bin.c -- a binary request's parts as they arrive (api/bin.h): the multipart reader's
 * callbacks; the params part kept as text and parsed when it ends; each .npy part's header parsed
 * as soon as it is whole (the first one plans the request), its data rotated into the spool window
 * by window (bin_rotate.c); and api_bin_run, which puts the steps
 * together once the body is complete.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/arena.h"
#include "api/bin_priv.h"

const char *const api_bin_part_names[API_BIN_NT] = {"q", "k"};

#define HDR_CAP (WIRE_NPY_MAX_HEADER + 16) /* magic, version, length field and the dict */

void api_bin_fail(api_bin *b, api_problem_code code, const char *ptr, const char *fmt, ...)
{
    if (b->failed)
        return;
    char msg[224];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ptr != NULL)
        api_problem_field(&b->pb, code, ptr, "%s", msg);
    else
        api_problem_set(&b->pb, code, "%s", msg);
    b->failed = 1;
}

int api_bin_hold(api_bin *b, size_t bytes)
{
    if (b->hold != NULL && b->hold(b->hold_cls, bytes) < 0) {
        api_bin_fail(b, API_PB_OVERLOADED, NULL,
                     "the server holds too many request bytes now (max_inflight_bytes); retry");
        return -1;
    }
    b->held = bytes;
    return 0;
}

size_t api_bin_held_now(const api_bin *b)
{
    return b->params_cap + b->params_tree + b->plan_bytes + b->t[0].hdr_cap + b->t[1].hdr_cap +
           b->win.bytes;
}

/* Grows *buf to hold need bytes (cap at most max), told to hold. 0 or -1 (b failed). */
static int grow(api_bin *b, unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need)
        nc *= 2;
    size_t old = *cap;
    *cap = nc;
    if (api_bin_hold(b, api_bin_held_now(b)) < 0) {
        *cap = old;
        return -1;
    }
    unsigned char *p = realloc(*buf, nc);
    if (p == NULL) {
        *cap = old;
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
        return -1;
    }
    *buf = p;
    return 0;
}

static int on_begin(void *cls, const char *name, const char *ctype)
{
    (void)ctype; /* .npy parts come as application/octet-stream or anything else */
    api_bin *b = cls;
    char ptr[WIRE_MP_MAX_NAME + 2];
    snprintf(ptr, sizeof ptr, "/%s", name);
    int which = strcmp(name, "q") == 0 ? API_BIN_Q : strcmp(name, "k") == 0 ? API_BIN_K : -1;
    if (strcmp(name, "params") == 0) {
        if (b->params_seen || b->t[0].present || b->t[1].present) {
            api_bin_fail(b, API_PB_INVALID_FIELD, "/params",
                         b->params_seen
                             ? "params is given twice"
                             : "the params part must come before q and k (it says how to "
                               "read them)");
            return -1;
        }
        b->params_seen = 1;
        b->cur = 2;
        return grow(b, (unsigned char **)&b->params, &b->params_cap, 1);
    }
    if (which < 0) {
        api_bin_fail(b, API_PB_UNKNOWN_FIELD, ptr,
                     "unknown part: a binary /rope takes the parts params, q and k");
        return -1;
    }
    if (b->t[which].present) {
        api_bin_fail(b, API_PB_INVALID_FIELD, ptr, "the part %s is given twice", name);
        return -1;
    }
    b->t[which].present = 1;
    b->cur = which;
    return 0;
}

/* The header of part p is whole: check the sizes, reserve its spool range. 0 or -1. */
static int header_done(api_bin *b, api_bin_part *p, const char *ptr)
{
    uint64_t data = 0;
    for (int i = 0; i < API_BIN_NT; i++)
        if (b->t[i].hdr_done || &b->t[i] == p)
            data += b->t[i].info.data_bytes;
    if (data > b->lim->max_tensor_bytes) {
        api_bin_fail(b, API_PB_TOO_LARGE, ptr,
                     "q and k hold %llu data bytes, over max_tensor_bytes (%zu)",
                     (unsigned long long)data, b->lim->max_tensor_bytes);
        return -1;
    }
    if (b->sp.quota > 0 && data > b->sp.quota) { /* never answerable: not a 507 "retry" */
        api_bin_fail(b, API_PB_TOO_LARGE, ptr,
                     "q and k hold %llu data bytes, more than the whole spool quota "
                     "(spool_quota_bytes %llu) can hold",
                     (unsigned long long)data, (unsigned long long)b->sp.quota);
        return -1;
    }
    p->hdr_done = 1;
    /* the spool is reserved as the rotated data is written (bin_rotate.c): a header alone,
     * whatever shape it declares, holds none of it */
    if (api_bin_lay_part(b, p) < 0)
        return -1;
    int i = (int)(p - b->t);
    return api_bin_plan_part(b, i) < 0 ? -1 : api_bin_window_open(b, i);
}

/* Bytes of part p while its header arrives. 0 or -1. */
static int tensor_header(api_bin *b, api_bin_part *p, const unsigned char *buf, size_t n)
{
    char ptr[8];
    snprintf(ptr, sizeof ptr, "/%s", api_bin_part_names[p - b->t]);
    size_t take = n < HDR_CAP - p->hdr_n ? n : HDR_CAP - p->hdr_n;
    if (grow(b, &p->hdr, &p->hdr_cap, p->hdr_n + take) < 0)
        return -1;
    memcpy(p->hdr + p->hdr_n, buf, take);
    p->hdr_n += take;
    wire_err e;
    wire_err_init(&e);
    int rc = wire_npy_parse_header_nd(p->hdr, p->hdr_n, b->bf16, (size_t)-1, &p->info, &e);
    if (rc < 0 || (rc == 0 && p->hdr_n == HDR_CAP)) {
        if (e.status == WIRE_ELIMIT) /* a shape past the address space: over max_tensor_bytes */
            api_bin_fail(b, API_PB_TOO_LARGE, ptr,
                         "the .npy shape holds more values than memory can address, over "
                         "max_tensor_bytes (%zu)",
                         b->lim->max_tensor_bytes);
        else
            api_bin_fail(b, API_PB_INVALID_FIELD, ptr, "%s",
                         rc < 0 ? e.detail : "the .npy header is longer than 65536 bytes");
        return -1;
    }
    if (rc == 0)
        return 0;
    if (header_done(b, p, ptr) < 0)
        return -1;
    size_t extra = p->hdr_n - p->info.header_len; /* data bytes that came with the header */
    int i = (int)(p - b->t);
    if (extra > 0 && api_bin_window_feed(b, i, p->hdr + p->info.header_len, extra) < 0)
        return -1;
    free(p->hdr);
    p->hdr = NULL;
    p->hdr_cap = p->hdr_n = 0;
    api_bin_hold(b, api_bin_held_now(b));
    return take < n ? api_bin_window_feed(b, i, buf + take, n - take) : 0;
}

static int on_data(void *cls, const unsigned char *buf, size_t n)
{
    api_bin *b = cls;
    if (b->cur == 2) {
        if (b->params_n + n > b->lim->max_body_bytes) {
            api_bin_fail(b, API_PB_TOO_LARGE, "/params",
                         "the params part is longer than max_body_bytes (%zu)",
                         b->lim->max_body_bytes);
            return -1;
        }
        if (grow(b, (unsigned char **)&b->params, &b->params_cap, b->params_n + n) < 0)
            return -1;
        memcpy(b->params + b->params_n, buf, n);
        b->params_n += n;
        return 0;
    }
    api_bin_part *p = &b->t[b->cur];
    return p->hdr_done ? api_bin_window_feed(b, b->cur, buf, n) : tensor_header(b, p, buf, n);
}

/* The params part ended: parse it (an object) and read its dtype. 0 or -1. */
static int params_end(api_bin *b)
{
    json_error_t err;
    /* jansson's tree is 3-80 times the text: measured first in an arena capped by
     * max_parse_bytes (as a JSON body is, api/api.c), then counted in what b holds. The tree
     * kept is parsed again outside the arena: it lives on after this call, on other threads. */
    api_arena probe;
    api_arena_begin(&probe, b->lim->max_parse_bytes, NULL, NULL);
    json_t *pt = json_loadb(b->params, b->params_n, JSON_REJECT_DUPLICATES, &err);
    int over = pt == NULL && api_arena_failure_of(&probe) != API_ARENA_OK;
    b->params_tree = api_arena_used(&probe);
    json_decref(pt);
    api_arena_end(&probe);
    if (over) {
        free(b->params);
        b->params = NULL;
        b->params_cap = b->params_tree = 0;
        api_bin_fail(b, API_PB_TOO_LARGE, "/params",
                     "the params part as parsed needs more than max_parse_bytes (%zu)",
                     b->lim->max_parse_bytes);
        return -1;
    }
    b->pj = json_loadb(b->params, b->params_n, JSON_REJECT_DUPLICATES, &err);
    free(b->params);
    b->params = NULL;
    b->params_cap = 0;
    if (b->pj == NULL) {
        api_bin_fail(b, API_PB_MALFORMED_JSON, "/params",
                     "the params part is not JSON: %s (line %d, column %d)", err.text, err.line,
                     err.column);
        return -1;
    }
    if (!json_is_object(b->pj)) {
        api_bin_fail(b, API_PB_INVALID_FIELD, "/params", "params must be a JSON object");
        return -1;
    }
    const json_t *dt = json_object_get(b->pj, "dtype");
    b->bf16 = json_is_string(dt) && strcmp(json_string_value(dt), "bfloat16") == 0;
    return api_bin_hold(b, api_bin_held_now(b));
}

static int on_end(void *cls)
{
    api_bin *b = cls;
    int cur = b->cur;
    b->cur = -1;
    if (cur == 2)
        return params_end(b);
    api_bin_part *p = &b->t[cur];
    if (!p->hdr_done || p->got != p->info.data_bytes) {
        char ptr[8];
        snprintf(ptr, sizeof ptr, "/%s", api_bin_part_names[cur]);
        if (!p->hdr_done)
            api_bin_fail(b, API_PB_INVALID_FIELD, ptr, "the part ends inside its .npy header");
        else
            api_bin_fail(b, API_PB_INVALID_FIELD, ptr,
                         "the part ends after %llu of the %zu data bytes its .npy header's shape "
                         "needs",
                         (unsigned long long)p->got, p->info.data_bytes);
        return -1;
    }
    p->complete = 1;
    api_bin_window_free(b);
    return 0;
}

api_bin *api_bin_new(const api_ctx *ctx, const api_route *route, const char *boundary,
                     const api_spool *sp, api_arena_hold_fn hold, void *hold_cls)
{
    api_bin *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    b->ctx = ctx;
    b->route = route;
    b->lim = ctx->lim;
    b->sp = *sp;
    b->hold = hold;
    b->hold_cls = hold_cls;
    b->cur = -1;
    api_problem_init(&b->pb);
    b->cb = (wire_mp_cb){on_begin, on_data, on_end};
    wire_mp_init(&b->mp, boundary, &b->cb, b);
    return b;
}

int api_bin_feed(api_bin *b, const void *buf, size_t n)
{
    if (b->failed)
        return -1;
    if (wire_mp_feed(&b->mp, buf, n) < 0 && !b->failed)
        api_bin_fail(b, API_PB_BAD_REQUEST, NULL, "%s", b->mp.err.detail);
    if (!b->failed)
        return 0;
    /* failed: the rest of the body is only read and dropped, however long the client takes;
     * what b holds of the spool and of its window goes back now, not when the body ends */
    api_bin_window_free(b);
    if (b->sp.reserve != NULL && b->spool_total > 0)
        b->sp.reserve(b->sp.cls, 0);
    b->spool_total = 0;
    return -1;
}

int api_bin_failed(const api_bin *b)
{
    return b->failed;
}

void api_bin_run(api_bin *b, const api_opts *opts, const char *request_id, api_response *out)
{
    memset(out, 0, sizeof *out);
    if (!b->failed && wire_mp_finish(&b->mp) < 0)
        api_bin_fail(b, API_PB_BAD_REQUEST, NULL, "%s", b->mp.err.detail);
    if (!b->failed && !b->t[API_BIN_Q].present && !b->t[API_BIN_K].present)
        api_bin_fail(b, API_PB_INVALID_FIELD, "/q",
                     "send q, k or both as .npy parts (multipart/form-data)");
    if (b->failed) {
        api_problem_response(&b->pb, request_id, out);
        return;
    }
    api_bin_answer(b, opts, request_id, out);
}

void api_bin_free(api_bin *b)
{
    if (b == NULL)
        return;
    free(b->params);
    for (int i = 0; i < API_BIN_NT; i++)
        free(b->t[i].hdr);
    json_decref(b->pj);
    json_decref(b->req);
    if (b->has_r) {
        api_rope_res_free(&b->res);
        api_rope_req_free(&b->r);
    }
    free(b->pos);
    api_bin_window_free(b);
    if (b->table != NULL)
        pe_cache_release(b->ctx->cache, b->table);
    if (b->sp.reserve != NULL && b->spool_total > 0)
        b->sp.reserve(b->sp.cls, 0);
    if (b->hold != NULL && b->held > 0)
        b->hold(b->hold_cls, 0);
    free(b);
}
