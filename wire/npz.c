/* wire/npz.c -- .npz bodies: a stored ZIP archive of .npy members, streamed (npz.h). */
#include "wire/npz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/crc32.h"
#include "wire/jw_priv.h"
#include "wire/le.h"

#define NPZ_NAME_MAX 200
#define U32_MARK 0xFFFFFFFFu /* "see the ZIP64 extra field" */
#define U16_MARK 0xFFFFu
#define DOS_DATE 0x0021u /* 1980-01-01; time 00:00:00 is 0 */
#define FLAG_DESCRIPTOR 0x0008u
#define V_PLAIN 20u /* version needed: 2.0 */
#define V_ZIP64 45u /* 4.5: ZIP64 */
#define LOCAL_FIXED 30u
#define CENTRAL_FIXED 46u
#define END_FIXED 22u
#define END64_FIXED 56u
#define LOCATOR_FIXED 20u

typedef struct {
    char name[NPZ_NAME_MAX + 1];
    size_t name_len;
    wire_stream *part;
    uint64_t size;   /* data bytes (stored: compressed = uncompressed) */
    uint64_t offset; /* of its local header */
    uint32_t crc;
    int z64;   /* sizes in ZIP64 fields */
    int off64; /* offset in a ZIP64 field */
} npz_member;

enum { PH_LOCAL, PH_DATA, PH_TAIL, PH_DONE };

struct wire_npz {
    npz_member *m;
    size_t n, cap;
    int force;
    uint64_t end; /* bytes of the members so far (local headers, data, descriptors) */
    /* reading */
    int phase;
    size_t cur;
    uint64_t got; /* data bytes of member cur read so far */
    unsigned char hdr[LOCAL_FIXED + NPZ_NAME_MAX + 24];
    size_t hdr_len, hdr_pos;
    unsigned char *tail; /* central directory and end records */
    size_t tail_len, tail_pos;
    uint64_t total;
    int failed;
};

static unsigned char *put16(unsigned char *p, unsigned v)
{
    uint16_t x = (uint16_t)v;
    wire_le_put(p, &x, 2);
    return p + 2;
}

static unsigned char *put32(unsigned char *p, uint64_t v)
{
    uint32_t x = (uint32_t)v;
    wire_le_put(p, &x, 4);
    return p + 4;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
    wire_le_put(p, &v, 8);
    return p + 8;
}

static size_t local_len(const npz_member *m)
{
    return LOCAL_FIXED + m->name_len + (m->z64 ? 20u : 0u);
}

static size_t desc_len(const npz_member *m)
{
    return m->z64 ? 24u : 16u;
}

static size_t central_extra(const npz_member *m)
{
    size_t k = (m->z64 ? 2u : 0u) + (m->off64 ? 1u : 0u);
    return k ? 4u + 8u * k : 0u;
}

wire_npz *wire_npz_new(int force_zip64)
{
    wire_npz *z = calloc(1, sizeof *z);
    if (z)
        z->force = force_zip64;
    return z;
}

void wire_npz_free(wire_npz *z)
{
    if (z == NULL)
        return;
    for (size_t i = 0; i < z->n; i++)
        wire_stream_free(z->m[i].part);
    free(z->m);
    free(z->tail);
    free(z);
}

/* Appends member name of size bytes (part: its stream, or NULL when the caller lays the bytes
 * out itself). 0, or -1 with pb filled (part not freed). */
static int add_member(wire_npz *z, const char *name, wire_stream *part, uint64_t size, wire_err *pb)
{
    size_t nl = strlen(name);
    if (nl > NPZ_NAME_MAX || size == WIRE_STREAM_SIZE_UNKNOWN) {
        wire_err_set(pb, WIRE_EINTERNAL, "an .npz member needs a short name and a known size");
        return -1;
    }
    if (z->n == z->cap) {
        size_t nc = z->cap ? 2 * z->cap : 8;
        npz_member *nm = realloc(z->m, nc * sizeof *nm);
        if (nm == NULL) {
            wire_err_set(pb, WIRE_ENOMEM, "out of memory");
            return -1;
        }
        z->m = nm;
        z->cap = nc;
    }
    npz_member *m = &z->m[z->n++];
    memset(m, 0, sizeof *m);
    memcpy(m->name, name, nl + 1);
    m->name_len = nl;
    m->part = part;
    m->size = size;
    m->offset = z->end;
    m->z64 = z->force || size >= U32_MARK;
    m->off64 = z->force || m->offset >= U32_MARK;
    z->end += local_len(m) + size + desc_len(m);
    return 0;
}

int wire_npz_add(wire_npz *z, const char *name, wire_stream *part, wire_err *pb)
{
    if (add_member(z, name, part, wire_stream_size(part), pb) < 0) {
        wire_stream_free(part);
        return -1;
    }
    return 0;
}

int wire_npz_add_laid(wire_npz *z, const char *name, uint64_t size, wire_err *pb)
{
    return add_member(z, name, NULL, size, pb);
}

/* Bytes of the central directory. */
static uint64_t central_len(const wire_npz *z)
{
    uint64_t n = 0;
    for (size_t i = 0; i < z->n; i++)
        n += CENTRAL_FIXED + z->m[i].name_len + central_extra(&z->m[i]);
    return n;
}

/* 1 when the end needs the ZIP64 record and locator. */
static int end64(const wire_npz *z, uint64_t cd_len)
{
    return z->force || z->n >= U16_MARK || cd_len >= U32_MARK || z->end >= U32_MARK;
}

/* The local file header of m into out (WIRE_NPZ_LOCAL_MAX bytes); its length. */
static size_t put_local(unsigned char *out, const npz_member *m)
{
    unsigned char *p = out;
    p = put32(p, 0x04034b50u);
    p = put16(p, m->z64 ? V_ZIP64 : V_PLAIN);
    p = put16(p, FLAG_DESCRIPTOR);
    p = put16(p, 0); /* stored */
    p = put16(p, 0);
    p = put16(p, DOS_DATE);
    p = put32(p, 0); /* CRC and sizes: in the data descriptor */
    p = put32(p, m->z64 ? U32_MARK : 0);
    p = put32(p, m->z64 ? U32_MARK : 0);
    p = put16(p, (unsigned)m->name_len);
    p = put16(p, m->z64 ? 20u : 0u);
    memcpy(p, m->name, m->name_len);
    p += m->name_len;
    if (m->z64) {
        p = put16(p, 1);
        p = put16(p, 16);
        p = put64(p, 0);
        p = put64(p, 0);
    }
    return (size_t)(p - out);
}

/* The data descriptor of m (its CRC known) into out (WIRE_NPZ_DESC_MAX bytes); its length. */
static size_t put_desc(unsigned char *out, const npz_member *m)
{
    unsigned char *p = out;
    p = put32(p, 0x08074b50u);
    p = put32(p, m->crc);
    if (m->z64) {
        p = put64(p, m->size);
        p = put64(p, m->size);
    } else {
        p = put32(p, m->size);
        p = put32(p, m->size);
    }
    return (size_t)(p - out);
}

uint64_t wire_npz_offset(const wire_npz *z, size_t i)
{
    return z->m[i].offset;
}

size_t wire_npz_local_header(const wire_npz *z, size_t i, unsigned char *out)
{
    return put_local(out, &z->m[i]);
}

size_t wire_npz_descriptor(wire_npz *z, size_t i, uint32_t crc, unsigned char *out)
{
    z->m[i].crc = crc;
    return put_desc(out, &z->m[i]);
}

/* The central directory and the end records, once every CRC is known: malloc'd, *len bytes
 * (NULL when out of memory). */
static unsigned char *tail_bytes(const wire_npz *z, size_t *len_out)
{
    uint64_t cd_len = central_len(z), cd_off = z->end;
    int e64 = end64(z, cd_len);
    size_t len = (size_t)cd_len + (e64 ? END64_FIXED + LOCATOR_FIXED : 0u) + END_FIXED;
    unsigned char *tail = malloc(len), *p = tail;
    if (p == NULL)
        return NULL;
    for (size_t i = 0; i < z->n; i++) {
        const npz_member *m = &z->m[i];
        p = put32(p, 0x02014b50u);
        p = put16(p, V_ZIP64); /* made by: 4.5, MS-DOS attributes */
        p = put16(p, m->z64 || m->off64 ? V_ZIP64 : V_PLAIN);
        p = put16(p, FLAG_DESCRIPTOR);
        p = put16(p, 0);
        p = put16(p, 0);
        p = put16(p, DOS_DATE);
        p = put32(p, m->crc);
        p = put32(p, m->z64 ? U32_MARK : m->size);
        p = put32(p, m->z64 ? U32_MARK : m->size);
        p = put16(p, (unsigned)m->name_len);
        p = put16(p, (unsigned)central_extra(m));
        p = put16(p, 0); /* comment */
        p = put16(p, 0); /* disk */
        p = put16(p, 0); /* internal attributes */
        p = put32(p, 0); /* external attributes */
        p = put32(p, m->off64 ? U32_MARK : m->offset);
        memcpy(p, m->name, m->name_len);
        p += m->name_len;
        if (central_extra(m)) { /* APPNOTE 4.5.3: the fields present, in this order */
            p = put16(p, 1);
            p = put16(p, (unsigned)central_extra(m) - 4u);
            if (m->z64) {
                p = put64(p, m->size);
                p = put64(p, m->size);
            }
            if (m->off64)
                p = put64(p, m->offset);
        }
    }
    uint64_t e64_off = cd_off + cd_len;
    if (e64) {
        p = put32(p, 0x06064b50u);
        p = put64(p, END64_FIXED - 12u);
        p = put16(p, V_ZIP64);
        p = put16(p, V_ZIP64);
        p = put32(p, 0);
        p = put32(p, 0);
        p = put64(p, z->n);
        p = put64(p, z->n);
        p = put64(p, cd_len);
        p = put64(p, cd_off);
        p = put32(p, 0x07064b50u);
        p = put32(p, 0);
        p = put64(p, e64_off);
        p = put32(p, 1);
    }
    unsigned entries = e64 && (z->force || z->n >= U16_MARK) ? U16_MARK : (unsigned)z->n;
    p = put32(p, 0x06054b50u);
    p = put16(p, 0);
    p = put16(p, 0);
    p = put16(p, entries);
    p = put16(p, entries);
    p = put32(p, e64 && (z->force || cd_len >= U32_MARK) ? U32_MARK : cd_len);
    p = put32(p, e64 && (z->force || cd_off >= U32_MARK) ? U32_MARK : cd_off);
    p = put16(p, 0);
    *len_out = (size_t)(p - tail);
    return tail;
}

unsigned char *wire_npz_directory(const wire_npz *z, uint64_t *at, size_t *len)
{
    *at = z->end;
    return tail_bytes(z, len);
}

/* Copies what is left of src[*pos..len) into buf (room max - *out). */
static void copy_out(const unsigned char *src, size_t len, size_t *pos, char *buf, size_t max,
                     size_t *out)
{
    size_t k = len - *pos;
    if (k > max - *out)
        k = max - *out;
    memcpy(buf + *out, src + *pos, k);
    *pos += k;
    *out += k;
}

/* Member data: at most max - *out bytes of member cur, with its CRC updated. */
static void data_out(wire_npz *z, char *buf, size_t max, size_t *out)
{
    npz_member *m = &z->m[z->cur];
    if (z->got == m->size) {
        if (wire_stream_failed(m->part))
            z->failed = 1;
        wire_stream_free(m->part);
        m->part = NULL;
        z->hdr_len = put_desc(z->hdr, m);
        z->hdr_pos = 0;
        z->cur++;
        z->phase = PH_LOCAL;
        return;
    }
    size_t k = max - *out;
    if (k > m->size - z->got)
        k = (size_t)(m->size - z->got);
    if (k > (1u << 30))
        k = 1u << 30;
    size_t r = wire_stream_read(m->part, buf + *out, k);
    if (r == 0) { /* the part ended early */
        z->failed = 1;
        return;
    }
    m->crc = wire_crc32(m->crc, buf + *out, r);
    z->got += r;
    *out += r;
}

static size_t npz_read(void *self, char *buf, size_t max)
{
    wire_npz *z = self;
    size_t out = 0;
    while (out < max && !z->failed && z->phase != PH_DONE) {
        if (z->hdr_pos < z->hdr_len) {
            copy_out(z->hdr, z->hdr_len, &z->hdr_pos, buf, max, &out);
        } else if (z->phase == PH_DATA) {
            data_out(z, buf, max, &out);
        } else if (z->phase == PH_LOCAL && z->cur < z->n) {
            z->hdr_len = put_local(z->hdr, &z->m[z->cur]);
            z->hdr_pos = 0;
            z->m[z->cur].crc = 0;
            z->got = 0;
            z->phase = PH_DATA;
        } else if (z->phase == PH_LOCAL) {
            if ((z->tail = tail_bytes(z, &z->tail_len)) == NULL) {
                z->failed = 1;
                break;
            }
            z->phase = PH_TAIL;
        } else {
            copy_out(z->tail, z->tail_len, &z->tail_pos, buf, max, &out);
            if (z->tail_pos == z->tail_len)
                z->phase = PH_DONE;
        }
    }
    return out;
}

static int npz_failed(const void *self)
{
    const wire_npz *z = self;
    return z->failed;
}

/* What the archive holds: what its members hold (a member read from a spool file, little). */
static uint64_t npz_held(const void *self)
{
    const wire_npz *z = self;
    uint64_t held = z->cap * sizeof *z->m;
    for (size_t i = 0; i < z->n; i++)
        held += wire_stream_held(z->m[i].part);
    return held;
}

static void npz_release(void *self)
{
    wire_npz_free(self);
}

wire_stream *wire_npz_stream(wire_npz *z, wire_err *pb)
{
    for (size_t i = 0; i < z->n; i++) {
        if (z->m[i].part == NULL) { /* laid out by the caller (wire_npz_add_laid) */
            wire_npz_free(z);
            wire_err_set(pb, WIRE_EINTERNAL, "an .npz member laid out elsewhere is not streamed");
            return NULL;
        }
    }
    uint64_t cd_len = central_len(z);
    z->total = z->end + cd_len + (end64(z, cd_len) ? END64_FIXED + LOCATOR_FIXED : 0u) + END_FIXED;
    wire_stream_src src = {.read = npz_read,
                           .failed = npz_failed,
                           .release = npz_release,
                           .self = z,
                           .size = z->total,
                           .held = npz_held};
    wire_stream *s = wire_stream_custom(&src);
    if (s == NULL)
        wire_err_set(pb, WIRE_ENOMEM, "out of memory");
    return s;
}

wire_stream *wire_stream_npz(wire_jw *w, int f32, wire_err *pb)
{
    struct wire_jw_ext *e = w->ext;
    if (e == NULL || e->n_all == 0) {
        wire_jw_free(w);
        wire_err_set(pb, WIRE_EINTERNAL, "this response has no array for application/x-npz");
        return NULL;
    }
    wire_npz *z = wire_npz_new(0);
    if (z == NULL) {
        wire_jw_free(w);
        wire_err_set(pb, WIRE_ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < e->n_all; i++) {
        char name[NPZ_NAME_MAX + 1];
        snprintf(name, sizeof name, "%s.npy", e->all[i].key);
        wire_stream *part = wire__stream_npy_take(&e->all[i], f32, pb);
        if (part == NULL || wire_npz_add(z, name, part, pb) < 0) {
            wire_npz_free(z);
            wire_jw_free(w);
            return NULL;
        }
    }
    wire_jw_free(w);
    return wire_npz_stream(z, pb);
}
