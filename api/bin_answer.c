/*
 * api/bin_answer.c -- the answer of a binary request (api/bin.h): .npz members "q_rotated.npy",
 * "k_rotated.npy" (read from the spool as they are sent: one .npy header, then the rotated data
 * in the part's shape and dtype; bfloat16 as '<u2' bit patterns, NumPy having no bfloat16), and
 * "cos.npy", "sin.npy" / "cos_hf.npy", "sin_hf.npy" when `include` asks (in memory: [P, n] and
 * [P, rotary_dim], [B, T, ...] with per-batch positions, in the tensors' dtype). With opts->npy
 * one member alone (?array= names it; default q_rotated, else k_rotated).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/bin_priv.h"
#include "wire/npz.h"
#include "wire/tensor_enc.h"

#define N_MEMBERS 6
static const char *const MEMBERS[N_MEMBERS] = {"q_rotated", "k_rotated", "cos",
                                               "sin",       "cos_hf",    "sin_hf"};

/* A member read from the spool, or from a buffer (mem != NULL). */
typedef struct {
    int fd;
    uint64_t off, len, at; /* the data's range in the spool; bytes sent so far (header included) */
    unsigned char *mem;    /* owned: the whole member (header and data) */
    char hdr[WIRE_NPY_HEADER_MAX];
    size_t hdr_len;
    int failed;
} member;

static size_t member_read(void *self, char *buf, size_t max)
{
    member *m = self;
    uint64_t total = m->mem ? m->len : m->hdr_len + m->len;
    if (m->at >= total || m->failed)
        return 0;
    size_t n = (size_t)(total - m->at < max ? total - m->at : max);
    if (m->mem != NULL) {
        memcpy(buf, m->mem + m->at, n);
    } else if (m->at < m->hdr_len) {
        n = m->hdr_len - (size_t)m->at < n ? m->hdr_len - (size_t)m->at : n;
        memcpy(buf, m->hdr + m->at, n);
    } else {
        ssize_t k;
        do
            k = pread(m->fd, buf, n, (off_t)(m->off + m->at - m->hdr_len));
        while (k < 0 && errno == EINTR);
        if (k <= 0) {
            m->failed = 1;
            return 0;
        }
        n = (size_t)k;
    }
    m->at += n;
    return n;
}

static int member_failed(const void *self)
{
    return ((const member *)self)->failed;
}

/* In memory: the member's own buffer (cos / sin); the rotated tensors stay in the spool. */
static uint64_t member_held(const void *self)
{
    const member *m = self;
    return sizeof *m + (m->mem != NULL ? m->len : 0);
}

static void member_release(void *self)
{
    member *m = self;
    free(m->mem);
    free(m);
}

static const char *descr(wire_dtype dt)
{
    return dt == WIRE_DT_F64   ? "<f8"
           : dt == WIRE_DT_F32 ? "<f4"
           : dt == WIRE_DT_F16 ? "<f2"
                               : "<u2";
}

static wire_stream *as_stream(member *m, uint64_t size)
{
    wire_stream_src src = {member_read, member_failed, member_release, m, size, NULL, member_held};
    return wire_stream_custom(&src);
}

/* The spool member of part i. NULL when out of memory. */
static wire_stream *spool_member(const api_bin *b, int i)
{
    const api_bin_part *p = &b->t[i];
    member *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->fd = b->sp.fd;
    m->off = p->off;
    m->len = p->info.data_bytes;
    m->hdr_len =
        wire_npy_header(m->hdr, sizeof m->hdr, descr(p->info.dtype), p->info.shape, p->info.ndim);
    return as_stream(m, m->hdr_len + m->len);
}

/* An in-memory member of rows x cols values x[] (shaped [B, T, cols] when pos_b > 1). */
static wire_stream *mem_member(const api_bin *b, wire_dtype dt, const double *x, size_t cols)
{
    size_t rows = b->r.tpos.n, cnt = rows * cols, es = wire_dtype_size(dt);
    size_t shape[3] = {rows, cols, 0};
    int nd = 2;
    if (b->pos_b > 1) {
        shape[0] = b->pos_b;
        shape[1] = rows / b->pos_b;
        shape[2] = cols;
        nd = 3;
    }
    member *m = calloc(1, sizeof *m);
    char hdr[WIRE_NPY_HEADER_MAX];
    size_t hl = wire_npy_header(hdr, sizeof hdr, descr(dt), shape, nd);
    if (m == NULL || (m->mem = malloc(hl + cnt * es)) == NULL) {
        free(m);
        return NULL;
    }
    memcpy(m->mem, hdr, hl);
    wire_encode_le(dt, x, cnt, m->mem + hl); /* |cos|, |sin| <= attention factor: finite */
    m->len = hl + cnt * es;
    return as_stream(m, m->len);
}

/* Which members the answer has (present[]) and which are chosen (want[]). 0 or -1 (pb). */
static int choose(const api_bin *b, const api_opts *opts, int *present, int *want, api_problem *pb)
{
    present[0] = b->t[API_BIN_Q].present;
    present[1] = b->t[API_BIN_K].present;
    present[2] = present[3] = (b->r.include & API_ROPE_INC_COS_SIN) != 0;
    present[4] = present[5] = b->r.cos_sin_hf;
    int n_want = 0;
    for (const char *p = opts->array; p != NULL;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int i = 0;
        while (i < N_MEMBERS && !(strlen(MEMBERS[i]) == len && strncmp(MEMBERS[i], p, len) == 0))
            i++;
        if (i == N_MEMBERS || !present[i]) {
            api_problem_set(pb, API_PB_INVALID_FIELD,
                            "query parameter array: \"%.*s\" is not in this answer (a binary "
                            "/rope has q_rotated, k_rotated and, with include, cos, sin, cos_hf, "
                            "sin_hf)",
                            (int)(len > 64 ? 64 : len), p);
            return -1;
        }
        n_want += !want[i];
        want[i] = 1;
        p = end ? end + 1 : NULL;
    }
    if (opts->array == NULL) {
        for (int i = 0; i < N_MEMBERS; i++)
            want[i] = present[i] && (opts->npz || !opts->npy || n_want++ == 0);
        n_want = 1;
    }
    if (opts->npy && !opts->npz && n_want > 1) {
        api_problem_set(pb, API_PB_INVALID_FIELD,
                        "query parameter array: application/x-npy holds one array; ask for "
                        "application/x-npz to get several");
        return -1;
    }
    return 0;
}

static wire_stream *member_stream(const api_bin *b, int i)
{
    const api_rope_res *res = &b->res;
    wire_dtype dt = b->t[b->t[API_BIN_Q].present ? API_BIN_Q : API_BIN_K].info.dtype;
    size_t n = (size_t)b->r.rotary_dim / 2;
    switch (i) {
    case 0:
    case 1:
        return spool_member(b, i);
    case 2:
        return mem_member(b, dt, res->cos, n);
    case 3:
        return mem_member(b, dt, res->sin, n);
    case 4:
        return mem_member(b, dt, res->cos_hf, 2 * n);
    default:
        return mem_member(b, dt, res->sin_hf, 2 * n);
    }
}

void api_bin_answer(api_bin *b, const api_opts *opts, const char *request_id, api_response *out)
{
    api_problem pb;
    api_problem_init(&pb);
    int present[N_MEMBERS] = {0}, want[N_MEMBERS] = {0};
    if (choose(b, opts, present, want, &pb) < 0) {
        api_problem_response(&pb, request_id, out);
        return;
    }
    int npy = opts->npy && !opts->npz;
    wire_stream *s = NULL;
    wire_err we;
    wire_err_init(&we);
    wire_npz *z = npy ? NULL : wire_npz_new(0);
    for (int i = 0; i < N_MEMBERS && (npy || z != NULL); i++) {
        if (!want[i])
            continue;
        wire_stream *m = member_stream(b, i);
        if (npy) {
            s = m;
            out->npy_array = MEMBERS[i];
            break;
        }
        char name[32];
        snprintf(name, sizeof name, "%s.npy", MEMBERS[i]);
        if (m == NULL || wire_npz_add(z, name, m, &we) < 0) {
            wire_npz_free(z);
            z = NULL;
        }
    }
    if (z != NULL)
        s = wire_npz_stream(z, &we);
    if (s != NULL && !opts->stream) {
        uint64_t size = wire_stream_size(s);
        out->body = wire_stream_drain(s, (size_t)size + 1, &out->len);
    } else {
        out->stream = s;
    }
    if (out->body == NULL && out->stream == NULL) {
        api_simple_problem(API_PB_UNAVAILABLE, "out of memory while writing the response",
                           request_id, out);
        return;
    }
    out->status = 200;
    out->content_type = npy ? "application/x-npy" : "application/x-npz";
}
