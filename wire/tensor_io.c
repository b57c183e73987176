/*
 * wire/tensor_io.c -- element types, table names and .npy (see tensor_io.h).
 * The .safetensors stream parser is in wire/tensor_io_st.c.
 * Sources: NumPy's format spec (numpy/lib/format.py, "NPY format"), IEEE 754-2008 binary16,
 * bfloat16 as the upper half of binary32 (Google Brain; PyTorch torch.bfloat16).
 */
#include "wire/tensor_io.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pe.h"
#include "wire/le.h"

const char *wire_dtype_name(wire_dtype dt)
{
    switch (dt) {
    case WIRE_DT_F16:
        return "float16";
    case WIRE_DT_BF16:
        return "bfloat16";
    case WIRE_DT_F32:
        return "float32";
    case WIRE_DT_F64:
        return "float64";
    }
    return "unknown";
}

size_t wire_dtype_size(wire_dtype dt)
{
    switch (dt) {
    case WIRE_DT_F16:
    case WIRE_DT_BF16:
        return 2;
    case WIRE_DT_F32:
        return 4;
    case WIRE_DT_F64:
        return 8;
    }
    return 8;
}

void wire_tensor_free(wire_tensor *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

double wire_f16_to_double(uint16_t h)
{
    int sign = (h >> 15) & 1;
    int e = (h >> 10) & 0x1f;
    int f = h & 0x3ff;
    double v;
    if (e == 0)
        v = ldexp((double)f, -24); /* subnormal (or zero): f * 2^-14 * 2^-10 */
    else if (e == 31)
        v = f ? NAN : INFINITY;
    else
        v = ldexp((double)(f | 0x400), e - 25); /* (1024 + f) * 2^(e-15-10) */
    return sign ? -v : v;
}

double wire_bf16_to_double(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return (double)f;
}

/* 1 when one of x[0..n) is NaN or +-Inf: branch-free, so that the loop vectorizes (the exponent
 * plus one carries into bit 11 exactly when it is all ones: shifts and adds, which SSE2 has for
 * 64-bit lanes where it has no 64-bit compare). */
static int any_nonfinite(const double *x, size_t n)
{
    uint64_t any = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, &x[i], 8);
        any |= (((u >> 52) & 0x7ffu) + 1u) >> 11;
    }
    return any != 0;
}

/* The index of the first non-finite value of x[0..n), or n. Looked at in blocks of a constant
 * size (which GCC's -O2 vectorizes), element by element only in a block that has one. */
static size_t first_nonfinite(const double *x, size_t n)
{
    enum { BLOCK = 512 };
    for (size_t b = 0; b < n; b += BLOCK) {
        size_t len = n - b < BLOCK ? n - b : BLOCK;
        if (len == BLOCK ? !any_nonfinite(x + b, BLOCK) : !any_nonfinite(x + b, len))
            continue;
        for (size_t i = b; i < b + len; i++)
            if (!isfinite(x[i]))
                return i;
    }
    return n;
}

/* float32 values decoded in blocks of a constant length, src and out restrict-qualified: GCC's
 * -O2 vectorizes the loop (its "very cheap" cost model adds no run-time alias check, so without
 * restrict it stayed scalar, and the separate finiteness pass over the float64 values too). */
enum { F32_BLOCK = 256 };

/* Decodes F32_BLOCK float32 values of src into out; nonzero when one of them is NaN or +-Inf (a
 * float32 is finite exactly when its float64 is: all exponent bits set in either). */
static uint32_t f32_block(const unsigned char *restrict src, double *restrict out)
{
    uint32_t any = 0;
    for (size_t i = 0; i < F32_BLOCK; i++) {
        uint32_t u = wire_le_u32(src + 4 * i);
        float f;
        memcpy(&f, &u, 4);
        any |= (((u >> 23) & 0xffu) + 1u) >> 8; /* 1 when the exponent is all ones */
        out[i] = (double)f;
    }
    return any;
}

size_t wire_decode_le(wire_dtype dt, const unsigned char *src, size_t n, double *out)
{
    switch (dt) {
    case WIRE_DT_F16:
        for (size_t i = 0; i < n; i++)
            out[i] = wire_f16_to_double((uint16_t)wire_le_get(src + 2 * i, 2));
        break;
    case WIRE_DT_BF16:
        for (size_t i = 0; i < n; i++)
            out[i] = wire_bf16_to_double((uint16_t)wire_le_get(src + 2 * i, 2));
        break;
    case WIRE_DT_F32: {
        size_t b = 0;
        for (; b + F32_BLOCK <= n; b += F32_BLOCK)
            if (f32_block(src + 4 * b, out + b)) /* a NaN or an infinity in this block */
                return b + first_nonfinite(out + b, F32_BLOCK);
        for (; b < n; b++) {
            uint32_t u = (uint32_t)wire_le_get(src + 4 * b, 4);
            float f;
            memcpy(&f, &u, 4);
            out[b] = (double)f;
        }
        return n - (n % F32_BLOCK) + first_nonfinite(out + (n - n % F32_BLOCK), n % F32_BLOCK);
    }
    default: /* F64; in place is fine: element i is read before it is written */
        for (size_t i = 0; i < n; i++) {
            uint64_t b = wire_le_get(src + 8 * i, 8);
            memcpy(&out[i], &b, 8);
        }
        break;
    }
    return first_nonfinite(out, n);
}

const float *wire_f32_view(const unsigned char *src)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if ((uintptr_t)src % _Alignof(float) == 0)
        return (const float *)(const void *)src;
#endif
    (void)src;
    return NULL;
}

const unsigned char *wire_f32_bytes(const float *f)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (const unsigned char *)f;
#else
    (void)f;
    return NULL;
#endif
}

void wire_encode_f64_le(const double *x, size_t n, unsigned char *out)
{
    for (size_t i = 0; i < n; i++)
        wire_le_put(out + 8 * i, &x[i], 8);
}

/* ---- .npy ----------------------------------------------------------------------------------- */

static const unsigned char NPY_MAGIC[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* Cursor over the header dict text. */
typedef struct {
    const char *p, *end;
} npy_cur;

static void npy_ws(npy_cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int npy_eat(npy_cur *c, char ch)
{
    npy_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted string without escapes into out (n bytes); 0 when malformed or too long. */
static int npy_str(npy_cur *c, char *out, size_t n)
{
    npy_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    char q = *c->p++;
    size_t k = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || k + 1 >= n)
            return 0;
        out[k++] = *c->p++;
    }
    if (c->p >= c->end)
        return 0;
    c->p++;
    out[k] = '\0';
    return 1;
}

/* A Python tuple of non-negative ints; *nd = its length (up to 8 kept). 0 when malformed. */
static int npy_tuple(npy_cur *c, size_t *dims, size_t *nd)
{
    if (!npy_eat(c, '('))
        return 0;
    *nd = 0;
    int trailing_comma = 0;
    for (;;) {
        npy_ws(c);
        if (npy_eat(c, ')'))
            break;
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return 0;
        size_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            size_t d = (size_t)(*c->p - '0');
            if (v > ((size_t)-1 - d) / 10)
                return 0;
            v = v * 10 + d;
            c->p++;
        }
        if (c->p < c->end && *c->p == 'L') /* Python 2 long */
            c->p++;
        if (*nd < 8)
            dims[*nd] = v;
        (*nd)++;
        trailing_comma = npy_eat(c, ',');
        if (!trailing_comma) {
            if (!npy_eat(c, ')'))
                return 0;
            break;
        }
    }
    /* "(5)" is the int 5, not a tuple: a single element needs its comma. */
    return !(*nd == 1 && !trailing_comma);
}

/* A 422 about the whole body (pointer ""), with the message itself as the detail. */
#define body_fail(err, status, ...) wire_err_at(err, status, "", __VA_ARGS__)

#define NPY_FAIL(...)                                                                              \
    do {                                                                                           \
        body_fail(pb, WIRE_EINVALID, __VA_ARGS__);                                                 \
        return -1;                                                                                 \
    } while (0)

/* Parses the dict text; fills descr, fortran, dims. */
static int npy_dict(const char *text, size_t n, char *descr, size_t descr_n, int *fortran,
                    size_t *dims, size_t *nd, wire_err *pb)
{
    npy_cur c = {text, text + n};
    int have_descr = 0, have_fo = 0, have_shape = 0;
    if (!npy_eat(&c, '{'))
        NPY_FAIL(".npy header: expected a Python dict literal starting with '{'");
    for (;;) {
        if (npy_eat(&c, '}'))
            break;
        char key[32];
        if (!npy_str(&c, key, sizeof key) || !npy_eat(&c, ':'))
            NPY_FAIL(".npy header: expected 'key': value in the header dict");
        if (strcmp(key, "descr") == 0 && !have_descr) {
            npy_ws(&c);
            if (c.p < c.end && *c.p == '[')
                NPY_FAIL(".npy: structured dtypes are not supported; save a plain 2-D float array");
            if (!npy_str(&c, descr, descr_n))
                NPY_FAIL(".npy header: 'descr' must be a dtype string such as '<f4'");
            have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0 && !have_fo) {
            npy_ws(&c);
            if ((size_t)(c.end - c.p) >= 4 && memcmp(c.p, "True", 4) == 0) {
                *fortran = 1;
                c.p += 4;
            } else if ((size_t)(c.end - c.p) >= 5 && memcmp(c.p, "False", 5) == 0) {
                *fortran = 0;
                c.p += 5;
            } else {
                NPY_FAIL(".npy header: 'fortran_order' must be True or False");
            }
            have_fo = 1;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if (!npy_tuple(&c, dims, nd))
                NPY_FAIL(".npy header: 'shape' must be a tuple of non-negative integers");
            have_shape = 1;
        } else {
            NPY_FAIL(".npy header: unexpected or repeated key '%.24s' (NumPy writes exactly descr, "
                     "fortran_order and shape)",
                     key);
        }
        if (!npy_eat(&c, ',')) {
            if (!npy_eat(&c, '}'))
                NPY_FAIL(".npy header: expected ',' or '}' in the header dict");
            break;
        }
    }
    npy_ws(&c);
    if (c.p != c.end)
        NPY_FAIL(".npy header: unexpected text after the header dict");
    if (!have_descr || !have_fo || !have_shape)
        NPY_FAIL(".npy header: the dict must have the keys descr, fortran_order and shape");
    return 0;
}

/* The preamble (magic, version, header length) and the dict of an .npy file in b[0..len): 1 with
 * *start (where the dict begins), *hl (its length), descr, *fortran, dims and *nd filled; 0 when
 * len is too short yet; -1 with pb filled. */
static int npy_preamble(const unsigned char *b, size_t len, size_t *start, size_t *hl, char *descr,
                        size_t descr_n, int *fortran, size_t *dims, size_t *nd, wire_err *pb)
{
    size_t m = len < sizeof NPY_MAGIC ? len : sizeof NPY_MAGIC;
    if (memcmp(b, NPY_MAGIC, m) != 0)
        NPY_FAIL("not an .npy file (it must start with the magic \\x93NUMPY)");
    if (len < 10)
        return 0;
    unsigned major = b[6], minor = b[7];
    if (major == 1 && minor == 0) {
        *start = 10;
        *hl = (size_t)wire_le_get(b + 8, 2);
    } else if ((major == 2 || major == 3) && minor == 0) {
        if (len < 12)
            return 0;
        *start = 12;
        *hl = (size_t)wire_le_get(b + 8, 4);
    } else {
        NPY_FAIL(".npy format version %u.%u is not supported (1.0, 2.0 and 3.0 are)", major, minor);
    }
    if (*hl > WIRE_NPY_MAX_HEADER)
        NPY_FAIL(".npy header of %zu bytes exceeds the cap of %u bytes", *hl, WIRE_NPY_MAX_HEADER);
    if (len - *start < *hl)
        return 0;
    if (npy_dict((const char *)b + *start, *hl, descr, descr_n, fortran, dims, nd, pb) < 0)
        return -1;
    return 1;
}

int wire_npy_parse_header(const void *buf, size_t len, size_t max_table_bytes, wire_npy_info *info,
                          wire_err *pb)
{
    const unsigned char *b = buf;
    size_t start = 0, hl = 0;
    char descr[16];
    int fortran = 0;
    size_t dims[8] = {0}, nd = 0;
    int pr = npy_preamble(b, len, &start, &hl, descr, sizeof descr, &fortran, dims, &nd, pb);
    if (pr <= 0)
        return pr;
    wire_dtype dt;
    if (strcmp(descr, "<f2") == 0)
        dt = WIRE_DT_F16;
    else if (strcmp(descr, "<f4") == 0)
        dt = WIRE_DT_F32;
    else if (strcmp(descr, "<f8") == 0)
        dt = WIRE_DT_F64;
    else if (descr[0] == '>' && descr[1] == 'f')
        NPY_FAIL(".npy dtype '%s' is big-endian; only little-endian float16/32/64 are accepted "
                 "(save a.astype('<%s'))",
                 descr, descr + 1);
    else
        NPY_FAIL(".npy dtype '%s' is not supported; accepted: '<f2', '<f4', '<f8' "
                 "(save a.astype('<f4'))",
                 descr);
    if (fortran)
        NPY_FAIL(".npy array is in Fortran order; only C order is accepted "
                 "(save np.ascontiguousarray(a))");
    if (nd != 2)
        NPY_FAIL(".npy array is %zu-D; a table must be 2-D [positions][dim]", nd);
    if (dims[0] == 0 || dims[1] == 0)
        NPY_FAIL(".npy shape (%zu, %zu) is empty; a table needs at least one row and one column",
                 dims[0], dims[1]);
    size_t n, bytes;
    if (!pe_mul_ok(dims[0], dims[1], &n) || !pe_mul_ok(n, sizeof(double), &bytes) ||
        bytes > max_table_bytes) {
        body_fail(pb, WIRE_ELIMIT,
                  "a %zu x %zu table needs %zu x %zu x 8 bytes as float64; max_table_bytes is %zu",
                  dims[0], dims[1], dims[0], dims[1], max_table_bytes);
        return -1;
    }
    info->header_len = start + hl;
    info->rows = dims[0];
    info->cols = dims[1];
    info->dtype = dt;
    info->data_bytes = n * wire_dtype_size(dt);
    return 1;
}

int wire_npy_parse_header_nd(const void *buf, size_t len, int bf16, size_t max_bytes,
                             wire_npy_nd *info, wire_err *pb)
{
    size_t start = 0, hl = 0;
    char descr[16];
    int fortran = 0;
    size_t dims[8] = {0}, nd = 0;
    int pr = npy_preamble(buf, len, &start, &hl, descr, sizeof descr, &fortran, dims, &nd, pb);
    if (pr <= 0)
        return pr;
    wire_dtype dt;
    int two = strcmp(descr, "<u2") == 0 || strcmp(descr, "<i2") == 0 || strcmp(descr, "|V2") == 0 ||
              strcmp(descr, "<V2") == 0;
    if (bf16 && two)
        dt = WIRE_DT_BF16;
    else if (bf16)
        NPY_FAIL(".npy dtype '%s' with dtype bfloat16: send the raw 16-bit patterns as '<u2' "
                 "(a.view(np.uint16)) or '|V2'",
                 descr);
    else if (strcmp(descr, "<f2") == 0)
        dt = WIRE_DT_F16;
    else if (strcmp(descr, "<f4") == 0)
        dt = WIRE_DT_F32;
    else if (strcmp(descr, "<f8") == 0)
        dt = WIRE_DT_F64;
    else if (two)
        NPY_FAIL(".npy dtype '%s' is not a float type; for bfloat16 say dtype \"bfloat16\"", descr);
    else
        NPY_FAIL(".npy dtype '%s' is not supported; accepted: '<f2', '<f4', '<f8' (bfloat16 as "
                 "'<u2' with dtype \"bfloat16\")",
                 descr);
    if (fortran)
        NPY_FAIL(".npy array is in Fortran order; only C order is accepted "
                 "(save np.ascontiguousarray(a))");
    if (nd < 1 || nd > WIRE_NPY_MAX_RANK)
        NPY_FAIL(".npy array is %zu-D; a tensor has 1 to %d axes", nd, WIRE_NPY_MAX_RANK);
    size_t count = 1;
    for (size_t i = 0; i < nd; i++) {
        if (dims[i] == 0)
            NPY_FAIL(".npy shape has an empty axis (axis %zu is 0)", i);
        if (!pe_mul_ok(count, dims[i], &count))
            count = SIZE_MAX;
        info->shape[i] = dims[i];
    }
    size_t bytes;
    if (count == SIZE_MAX || !pe_mul_ok(count, sizeof(double), &bytes) || bytes > max_bytes) {
        body_fail(pb, WIRE_ELIMIT,
                  "a tensor of %zu values needs more than %zu bytes as float64 (the limit)", count,
                  max_bytes);
        return -1;
    }
    info->header_len = start + hl;
    info->ndim = (int)nd;
    info->dtype = dt;
    info->count = count;
    info->data_bytes = count * wire_dtype_size(dt);
    return 1;
}

int wire_npy_parse(const void *buf, size_t len, size_t max_table_bytes, int allow_trailing,
                   wire_tensor *out, size_t *consumed, wire_err *pb)
{
    memset(out, 0, sizeof *out);
    wire_npy_info info;
    int rc = wire_npy_parse_header(buf, len, max_table_bytes, &info, pb);
    if (rc == 0)
        NPY_FAIL(".npy file of %zu bytes ends inside its header", len);
    if (rc < 0)
        return -1;
    size_t have = len - info.header_len;
    if (have < info.data_bytes || (!allow_trailing && have != info.data_bytes))
        NPY_FAIL(".npy data of a %zu x %zu %s array must be %zu bytes, got %zu", info.rows,
                 info.cols, wire_dtype_name(info.dtype), info.data_bytes, have);
    size_t n = info.rows * info.cols;
    double *x = wire_alloc(pb, n, sizeof *x);
    if (x == NULL)
        return -1;
    size_t bad = wire_decode_le(info.dtype, (const unsigned char *)buf + info.header_len, n, x);
    if (bad < n) {
        free(x);
        NPY_FAIL(".npy value at row %zu, column %zu is not finite (NaN or Inf)", bad / info.cols,
                 bad % info.cols);
    }
    out->rows = info.rows;
    out->cols = info.cols;
    out->data = x;
    out->dtype = info.dtype;
    if (consumed)
        *consumed = info.header_len + info.data_bytes;
    return 0;
}

size_t wire_npy_header(char *out, size_t n, const char *descr, const size_t *shape, int ndim)
{
    char dict[WIRE_NPY_HEADER_MAX];
    int k =
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < ndim && k > 0 && (size_t)k < sizeof dict; i++)
        k += snprintf(dict + k, sizeof dict - (size_t)k, "%s%zu", i ? ", " : "", shape[i]);
    if (k > 0 && (size_t)k < sizeof dict)
        k += snprintf(dict + k, sizeof dict - (size_t)k, "%s), }", ndim == 1 ? "," : "");
    if (k <= 0 || (size_t)k >= sizeof dict)
        return 0;
    size_t total = 10 + (size_t)k + 1; /* preamble, dict, '\n', padded to 64 */
    total = (total + 63) / 64 * 64;
    if (total > n || total - 10 > 65535)
        return 0;
    memcpy(out, NPY_MAGIC, sizeof NPY_MAGIC);
    out[6] = 1; /* version 1.0 */
    out[7] = 0;
    uint16_t hl = (uint16_t)(total - 10);
    wire_le_put((unsigned char *)out + 8, &hl, 2);
    memcpy(out + 10, dict, (size_t)k);
    memset(out + 10 + k, ' ', total - 10 - (size_t)k - 1);
    out[total - 1] = '\n';
    return total;
}
