/*
 * api/bin_answer.c -- the answer of a binary request (api/bin.h): .npz members "q_rotated.npy",
 * "k_rotated.npy" (one .npy header, then the rotated data in the part's shape and dtype; bfloat16
 * as '<u2' bit patterns, NumPy having no bfloat16), and "cos.npy", "sin.npy" / "cos_hf.npy",
 * "sin_hf.npy" when `include` asks ([P, n] and [P, rotary_dim], [B, T, ...] with per-batch
 * positions, in the tensors' dtype). With opts->npy one member alone (?array= names it; default
 * q_rotated, else k_rotated).
 *
 * The answer is laid out whole in the spool file and is one range of it (in_file: the daemon may
 * send it with sendfile). As each tensor's .npy header arrives its member is placed after the
 * members before it (api_bin_lay_part: local header, .npy header, data, data descriptor; the
 * first part's data on an API_BIN_CHUNK), so the windows' rotated bytes go straight to their place
 * in the answer and its CRC-32 is summed as they are written (bin_rotate.c). A ZIP local header
 * holds no offset and, with general purpose bit 3, no CRC or size (they are in the data descriptor
 * after the data), so nothing has to be known before the data but its length, which the .npy header
 * gives. The final call writes the rest (lay_npz, lay_npy): headers, descriptors, cos / sin and
 * the central directory, the bytes wire/npz.c streams for the same members.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/bin_priv.h"
#include "api/warn_header.h"
#include "wire/crc32.h"
#include "wire/npz.h"
#include "wire/tensor_enc.h"

#define N_MEMBERS 6
static const char *const MEMBERS[N_MEMBERS] = {"q_rotated", "k_rotated", "cos",
                                               "sin",       "cos_hf",    "sin_hf"};

/* The answer: bytes [off, off + len) of the spool file, sent from it (wire_stream_src.in_file:
 * the daemon hands the file to libmicrohttpd, which uses sendfile) or read with pread. */
typedef struct {
    int fd;
    uint64_t off, len, at; /* at: bytes read so far */
    int failed;
} range;

static size_t range_read(void *self, char *buf, size_t max)
{
    range *r = self;
    if (r->at >= r->len || r->failed)
        return 0;
    size_t n = (size_t)(r->len - r->at < max ? r->len - r->at : max);
    ssize_t k;
    do
        k = pread(r->fd, buf, n, (off_t)(r->off + r->at));
    while (k < 0 && errno == EINTR);
    if (k <= 0) {
        r->failed = 1;
        return 0;
    }
    r->at += (uint64_t)k;
    return (size_t)k;
}

static int range_failed(const void *self)
{
    return ((const range *)self)->failed;
}

/* In memory: the range itself; every byte of the answer is in the spool. */
static uint64_t range_held(const void *self)
{
    (void)self;
    return sizeof(range);
}

static wire_stream *range_stream(const api_bin *b, uint64_t off, uint64_t len)
{
    range *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    *r = (range){b->sp.fd, off, len, 0, 0};
    wire_stream_src src = {.read = range_read,
                           .failed = range_failed,
                           .release = free,
                           .self = r,
                           .size = len,
                           .held = range_held,
                           .in_file = 1,
                           .fd = b->sp.fd,
                           .file_off = off};
    return wire_stream_custom(&src);
}

static const char *descr(wire_dtype dt)
{
    return dt == WIRE_DT_F64   ? "<f8"
           : dt == WIRE_DT_F32 ? "<f4"
           : dt == WIRE_DT_F16 ? "<f2"
                               : "<u2";
}

/* The .npz member "<name>.npy" of size bytes: local header, data descriptor lengths (they depend
 * on the name and the size only). 0 or -1 (out of memory). */
static int member_lens(const char *name, uint64_t size, size_t *lh, size_t *desc)
{
    unsigned char buf[WIRE_NPZ_LOCAL_MAX];
    wire_err we;
    wire_err_init(&we);
    wire_npz *z = wire_npz_new(0);
    if (z == NULL || wire_npz_add_laid(z, name, size, &we) < 0) {
        wire_npz_free(z);
        return -1;
    }
    *lh = wire_npz_local_header(z, 0, buf);
    *desc = wire_npz_descriptor(z, 0, 0, buf);
    wire_npz_free(z);
    return 0;
}

int api_bin_lay_part(api_bin *b, api_bin_part *p)
{
    char hdr[WIRE_NPY_HEADER_MAX], name[32];
    p->npy_len =
        wire_npy_header(hdr, sizeof hdr, descr(p->info.dtype), p->info.shape, p->info.ndim);
    snprintf(name, sizeof name, "%s.npy", MEMBERS[p - b->t]);
    size_t desc = 0;
    if (member_lens(name, p->npy_len + p->info.data_bytes, &p->lh_len, &desc) < 0) {
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
        return -1;
    }
    p->blk = b->spool_end;
    if (p->blk == 0) { /* the first part's data on a chunk: its windows go in whole chunks */
        p->blk = (API_BIN_CHUNK - (p->lh_len + p->npy_len) % API_BIN_CHUNK) % API_BIN_CHUNK;
        b->spool_pad = p->blk;
    }
    p->off = p->blk + p->lh_len + p->npy_len;
    p->crc = wire_crc32(0, hdr, p->npy_len);
    b->spool_end = p->off + p->info.data_bytes + desc;
    return 0;
}

/* What is written of the answer's members in memory (cos / sin) at a time, bytes. */
#define MEM_CHUNK (64u * 1024u)

/* An in-memory member: rows x cols values x[] (shaped [B, T, cols] when pos_b > 1). */
typedef struct {
    const char *name; /* "cos", "sin", "cos_hf", "sin_hf" */
    const double *x;
    size_t cnt, cols, per_b; /* per_b: rows of one batch row when [B, T, cols], else 0 */
    wire_dtype dt;
    char hdr[WIRE_NPY_HEADER_MAX];
    size_t hdr_len;
} mem_member;

static void mem_member_init(const api_bin *b, const char *name, wire_dtype dt, const double *x,
                            size_t cols, mem_member *m)
{
    size_t rows = b->r.tpos.n;
    size_t shape[3] = {rows, cols, 0};
    int nd = 2;
    if (b->pos_b > 1) {
        shape[0] = b->pos_b;
        shape[1] = rows / b->pos_b;
        shape[2] = cols;
        nd = 3;
    }
    m->name = name;
    m->x = x;
    m->cnt = rows * cols;
    m->cols = cols;
    m->per_b = nd == 3 ? shape[1] : 0;
    m->dt = dt;
    m->hdr_len = wire_npy_header(m->hdr, sizeof m->hdr, descr(dt), shape, nd);
}

static uint64_t mem_member_size(const mem_member *m)
{
    return m->hdr_len + (uint64_t)m->cnt * wire_dtype_size(m->dt);
}

/* Writes m (its .npy header and data) to the spool at off, its CRC-32 into *crc. 0 or -1. */
static int mem_member_write(api_bin *b, const mem_member *m, uint64_t off, uint32_t *crc)
{
    if (api_bin_spool_write(b, m->hdr, m->hdr_len, off) < 0)
        return -1;
    *crc = wire_crc32(0, m->hdr, m->hdr_len);
    off += m->hdr_len;
    size_t es = wire_dtype_size(m->dt), per = MEM_CHUNK / es;
    if (api_bin_hold(b, api_bin_held_now(b) + MEM_CHUNK) < 0)
        return -1;
    unsigned char *buf = malloc(MEM_CHUNK);
    int rc = buf == NULL ? -1 : 0;
    if (buf == NULL)
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
    for (size_t i = 0; rc == 0 && i < m->cnt; i += per) {
        size_t n = m->cnt - i < per ? m->cnt - i : per;
        /* |cos|, |sin| <= 1, but cos_hf / sin_hf carry the attention factor, which can pass a
         * 2-byte (or float32) dtype's range: the encoder stops there, its buffer unwritten */
        size_t ok = wire_encode_le(m->dt, m->x + i, n, buf);
        if (ok < n) {
            size_t at = i + ok, row = at / m->cols;
            char idx[64];
            if (m->per_b > 0)
                snprintf(idx, sizeof idx, "%zu, %zu, %zu", row / m->per_b, row % m->per_b,
                         at % m->cols);
            else
                snprintf(idx, sizeof idx, "%zu, %zu", row, at % m->cols);
            api_bin_fail(b, API_PB_INVALID_FIELD, "/include",
                         "%s at [%s] (%.17g: cos or sin times the attention factor) is beyond "
                         "the %s range of the tensors; send them as float32 or float64, or "
                         "leave cos_sin_hf out",
                         m->name, idx, m->x[at], wire_dtype_name(m->dt));
            rc = -1;
            break;
        }
        *crc = wire_crc32(*crc, buf, n * es);
        rc = api_bin_spool_write(b, buf, n * es, off);
        off += n * es;
    }
    free(buf);
    api_bin_hold(b, api_bin_held_now(b));
    return rc;
}

/* Copies n bytes of the spool from src to dst (ranges apart). 0 or -1 (b failed). */
static int spool_copy(api_bin *b, uint64_t src, uint64_t dst, uint64_t n)
{
    if (api_bin_hold(b, api_bin_held_now(b) + MEM_CHUNK) < 0)
        return -1;
    unsigned char *buf = malloc(MEM_CHUNK);
    int rc = 0;
    if (buf == NULL) {
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
        rc = -1;
    }
    while (rc == 0 && n > 0) {
        size_t k = n < MEM_CHUNK ? (size_t)n : MEM_CHUNK;
        ssize_t r;
        do
            r = pread(b->sp.fd, buf, k, (off_t)src);
        while (r < 0 && errno == EINTR);
        if (r <= 0) {
            api_bin_fail(b, API_PB_INSUFFICIENT_STORAGE, NULL,
                         "the spool cannot be read back now (%s); retry later",
                         r < 0 ? strerror(errno) : "short read");
            rc = -1;
            break;
        }
        rc = api_bin_spool_write(b, buf, (size_t)r, dst);
        src += (uint64_t)r;
        dst += (uint64_t)r;
        n -= (uint64_t)r;
    }
    free(buf);
    api_bin_hold(b, api_bin_held_now(b));
    return rc;
}

/* The spool file is to reach extent bytes: what this request holds there (but the hole before the
 * first member) reserved; a quota refusal fails b. */
static int spool_extent(api_bin *b, uint64_t extent)
{
    extent -= b->spool_pad;
    if (extent <= b->spool_total)
        return 0;
    if (b->sp.quota > 0 && extent > b->sp.quota) { /* never answerable: not a 507 "retry" */
        api_bin_fail(b, API_PB_TOO_LARGE, b->r.include || b->r.cos_sin_hf ? "/include" : NULL,
                     "the answer needs %llu bytes of spool, more than the whole spool quota "
                     "(spool_quota_bytes %llu) can hold",
                     (unsigned long long)extent, (unsigned long long)b->sp.quota);
        return -1;
    }
    if (b->sp.reserve != NULL && b->sp.reserve(b->sp.cls, extent) < 0) {
        api_bin_fail(b, API_PB_INSUFFICIENT_STORAGE, NULL,
                     "the spool quota (spool_quota_bytes) cannot take %llu more bytes now; retry "
                     "later",
                     (unsigned long long)(extent - b->spool_total));
        return -1;
    }
    b->spool_total = extent;
    return 0;
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

/* Member i (2..5) of the answer, held in memory (b->res): cos, sin, cos_hf, sin_hf. */
static void memory_member(const api_bin *b, int i, mem_member *m)
{
    const api_rope_res *res = &b->res;
    wire_dtype dt = b->t[b->t[API_BIN_Q].present ? API_BIN_Q : API_BIN_K].info.dtype;
    size_t n = (size_t)b->r.rotary_dim / 2;
    const double *x = i == 2 ? res->cos : i == 3 ? res->sin : i == 4 ? res->cos_hf : res->sin_hf;
    mem_member_init(b, MEMBERS[i], dt, x, i < 4 ? n : 2 * n, m);
}

/* The .npy answer of member i: its bytes' range in the spool into *off, *len. 0 or -1. */
static int lay_npy(api_bin *b, int i, uint64_t *off, uint64_t *len)
{
    char hdr[WIRE_NPY_HEADER_MAX];
    if (i < API_BIN_NT) { /* the tensor's .npy header before its data, where it was laid */
        const api_bin_part *p = &b->t[i];
        wire_npy_header(hdr, sizeof hdr, descr(p->info.dtype), p->info.shape, p->info.ndim);
        *off = p->off - p->npy_len;
        *len = p->npy_len + p->info.data_bytes;
        return spool_extent(b, b->spool_end) < 0 ||
                       api_bin_spool_write(b, hdr, p->npy_len, *off) < 0
                   ? -1
                   : 0;
    }
    mem_member m;
    uint32_t crc;
    memory_member(b, i, &m);
    *off = b->spool_end; /* after the tensors */
    *len = mem_member_size(&m);
    return spool_extent(b, *off + *len) < 0 || mem_member_write(b, &m, *off, &crc) < 0 ? -1 : 0;
}

/*
 * The .npz answer of the members want[] in the spool: its range into *off, *len. 0 or -1.
 *
 * The tensors' members were laid out as their headers came (api_bin_lay_part), their data
 * written and CRC-summed window by window: here their local headers, .npy headers and data
 * descriptors are written, then cos / sin, the central directory and the end records after the
 * last, so that the archive is one range of the file. It starts at the first wanted member. A
 * tensor not where the archive needs it (k sent before q, both wanted: k's member must follow
 * q's) is copied there: past the end of every member laid out, so it overwrites nothing still
 * to be read. Members not wanted (?array=) that lie after the last wanted tensor are written
 * over.
 */
static int lay_npz(api_bin *b, const int *want, uint64_t *off, uint64_t *len)
{
    wire_err we;
    wire_err_init(&we);
    wire_npz *z = wire_npz_new(0);
    mem_member mm[N_MEMBERS];
    int idx[N_MEMBERS];
    size_t nz = 0;
    for (int i = 0; i < N_MEMBERS && z != NULL; i++) {
        if (!want[i])
            continue;
        uint64_t size;
        if (i < API_BIN_NT) {
            size = b->t[i].npy_len + b->t[i].info.data_bytes;
        } else {
            memory_member(b, i, &mm[i]);
            size = mem_member_size(&mm[i]);
        }
        char name[32];
        snprintf(name, sizeof name, "%s.npy", MEMBERS[i]);
        if (wire_npz_add_laid(z, name, size, &we) < 0) {
            wire_npz_free(z);
            z = NULL;
        }
        idx[nz++] = i;
    }
    uint64_t at = 0;
    size_t dir_len = 0;
    unsigned char *dir = z != NULL ? wire_npz_directory(z, &at, &dir_len) : NULL;
    if (dir == NULL) { /* sized with CRCs 0 here only to know its length */
        wire_npz_free(z);
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
        return -1;
    }
    free(dir);
    uint64_t base = idx[0] < API_BIN_NT ? b->t[idx[0]].blk : b->spool_end;
    *off = base;
    *len = at + dir_len;
    uint64_t extent = base + *len > b->spool_end ? base + *len : b->spool_end;
    int rc = spool_extent(b, extent);
    for (size_t j = 0; j < nz && rc == 0; j++) {
        unsigned char lh[WIRE_NPZ_LOCAL_MAX], desc[WIRE_NPZ_DESC_MAX];
        uint64_t tgt = base + wire_npz_offset(z, j), size;
        size_t lh_len = wire_npz_local_header(z, j, lh);
        uint32_t crc = 0;
        int i = idx[j];
        if (i < API_BIN_NT) {
            const api_bin_part *p = &b->t[i];
            char hdr[WIRE_NPY_HEADER_MAX];
            wire_npy_header(hdr, sizeof hdr, descr(p->info.dtype), p->info.shape, p->info.ndim);
            uint64_t data = tgt + lh_len + p->npy_len;
            size = p->npy_len + p->info.data_bytes;
            crc = p->crc;
            rc = (data != p->off && spool_copy(b, p->off, data, p->info.data_bytes) < 0) ||
                         api_bin_spool_write(b, hdr, p->npy_len, tgt + lh_len) < 0
                     ? -1
                     : 0;
        } else {
            size = mem_member_size(&mm[i]);
            rc = mem_member_write(b, &mm[i], tgt + lh_len, &crc);
        }
        size_t dl = wire_npz_descriptor(z, j, crc, desc);
        if (rc == 0 && (api_bin_spool_write(b, lh, lh_len, tgt) < 0 ||
                        api_bin_spool_write(b, desc, dl, tgt + lh_len + size) < 0))
            rc = -1;
    }
    dir = rc == 0 ? wire_npz_directory(z, &at, &dir_len) : NULL;
    if (rc == 0 && dir == NULL) {
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = api_bin_spool_write(b, dir, dir_len, base + at);
    free(dir);
    wire_npz_free(z);
    return rc;
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
    int npy = opts->npy && !opts->npz, first = 0;
    while (!want[first])
        first++;
    uint64_t off = 0, len = 0;
    if ((npy ? lay_npy(b, first, &off, &len) : lay_npz(b, want, &off, &len)) < 0) {
        api_problem_response(&b->pb, request_id, out);
        return;
    }
    if (npy)
        out->npy_array = MEMBERS[first];
    wire_stream *s = range_stream(b, off, len);
    if (s != NULL && !opts->stream)
        out->body = wire_stream_drain(s, (size_t)len + 1, &out->len);
    else
        out->stream = s;
    if (out->body == NULL && out->stream == NULL) {
        api_simple_problem(API_PB_UNAVAILABLE, "out of memory while writing the response",
                           request_id, out);
        return;
    }
    api_rc_warnings wn; /* what the JSON answer's `warnings` would hold: a header here */
    api_rope_warnings(&b->r, &b->res, &wn);
    const char *notes[API_RC_MAX_WARNINGS + 1];
    char more[64];
    size_t nn = api_rc_warn_list(&wn, notes, more, sizeof more);
    if (nn > 0 && (out->warnings = api_warnings_header(notes, nn)) == NULL) {
        api_response_free(out);
        api_simple_problem(API_PB_UNAVAILABLE, "out of memory while writing the response",
                           request_id, out);
        return;
    }
    out->status = 200;
    out->content_type = npy ? "application/x-npy" : "application/x-npz";
}
