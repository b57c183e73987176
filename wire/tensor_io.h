/*
 * wire/tensor_io.h -- parsers for uploaded learned tables (PUT /tables/{name},
 * docs/api.md#tables): NumPy .npy and .safetensors (the JSON body {"data": [[...]]} is parsed in
 * api/table_body.c). Pure functions: bytes in, structs out; no I/O, no globals (store/store.c does
 * the files). Every parser bounds what it allocates before allocating it, never reads outside the
 * bytes it was given, and reports a malformed, truncated or unsupported input as a wire_err
 * (WIRE_EINVALID or WIRE_ELIMIT at pointer "", the whole body; api/ answers it as a 422), so it can
 * be fuzzed directly.
 *
 * Values are converted exactly to float64 (every float16, bfloat16 and float32 value is a
 * float64 value); a non-finite value (NaN, +-Inf) is refused, naming its row and column.
 *
 * Formats:
 * - .npy (NumPy format spec, numpy/lib/format.py, versions 1.0, 2.0 and 3.0): magic "\x93NUMPY",
 *   version, header length (u16 LE for 1.0, u32 LE for 2.0/3.0), a Python dict literal
 *   {'descr': '<f8', 'fortran_order': False, 'shape': (R, C), } padded with spaces to '\n', then
 *   the data. Accepted: 2-D, C order, descr '<f2' / '<f4' / '<f8' (what NumPy writes on
 *   little-endian machines); big-endian ('>'), Fortran order, other dtypes and 0-/1-/3-D are
 *   refused with a message saying how to convert. The header is capped at WIRE_NPY_MAX_HEADER.
 * - .safetensors (huggingface/safetensors, "Format"): u64 LE header size N, N bytes of a JSON
 *   object {"__metadata__": {...}?, "<tensor>": {"dtype", "shape", "data_offsets": [b, e]}, ...}
 *   (may end in spaces), then the data section; a tensor's bytes are data[b, e), little-endian,
 *   C order. Accepted dtypes F16, BF16, F32, F64. The wanted tensor is named by the caller
 *   (?tensor=) or is the file's only 2-D tensor. Parsed incrementally (wire_st_*): only the wanted
 *   tensor's bytes are kept (converted to float64 as they arrive), so a whole model file streams
 *   through in memory bounded by the header cap plus the table. Header cap: the caller's
 *   (the daemon passes max_body_bytes), else WIRE_ST_MAX_HEADER (16 MiB; the format itself allows
 *   100 MB, real model headers are well under 1 MiB).
 */
#ifndef WIRE_TENSOR_IO_H
#define WIRE_TENSOR_IO_H

#include <stddef.h>
#include <stdint.h>

#include "wire/err.h"

#define WIRE_NPY_MAX_HEADER 65536u     /* bytes of an .npy header dict (numpy: 10000) */
#define WIRE_ST_MAX_HEADER (16u << 20) /* bytes of a .safetensors JSON header */
#define WIRE_NPY_F64_HEADER_MAX 128    /* bytes of a 2-D '<f8' .npy header at most */

/* Element types of an upload. */
typedef enum { WIRE_DT_F16 = 0, WIRE_DT_BF16 = 1, WIRE_DT_F32 = 2, WIRE_DT_F64 = 3 } wire_dtype;

/* "float16", "bfloat16", "float32", "float64" (never NULL). */
const char *wire_dtype_name(wire_dtype dt);
/* Bytes per element: 2, 2, 4, 8. */
size_t wire_dtype_size(wire_dtype dt);

/* A parsed table. */
typedef struct {
    size_t rows;      /* >= 1 */
    size_t cols;      /* >= 1 */
    double *data;     /* [rows][cols] row-major, finite; malloc'd, owned (wire_tensor_free) */
    wire_dtype dtype; /* element type of the upload (JSON: float64) */
} wire_tensor;

/* Frees t->data and zeroes t. */
void wire_tensor_free(wire_tensor *t);

/* IEEE 754 binary16 (sign, 5-bit exponent, 10-bit fraction) as a double, exactly: subnormals
 * f * 2^-24, normals (1 + f/1024) * 2^(e-15), e = 31 gives +-Inf / NaN. */
double wire_f16_to_double(uint16_t h);
/* bfloat16 (the upper 16 bits of a binary32) as a double, exactly. */
double wire_bf16_to_double(uint16_t h);

/*
 * Decodes n little-endian elements of type dt from src into out (float64). For WIRE_DT_F64, src
 * may be the same memory as out (decoded in place); otherwise they must not overlap. Returns n
 * when every value is finite, else the index of the first non-finite one (out is then partly
 * written).
 */
size_t wire_decode_le(wire_dtype dt, const unsigned char *src, size_t n, double *out);

/*
 * float32 data used in place (the one-pass float32 rotation, core's pe_rope_rotate_heads_f32,
 * which reports a non-finite value itself): wire_f32_view gives the little-endian float32 values
 * at src as floats -- src itself -- when the host is little-endian and src is aligned for float,
 * else NULL (then wire_decode_le). wire_f32_bytes gives floats as their little-endian bytes -- f
 * itself -- when the host is little-endian, else NULL (then wire_encode_le from float64).
 */
const float *wire_f32_view(const unsigned char *src);
const unsigned char *wire_f32_bytes(const float *f);

/* Writes x[0..n) as little-endian float64 bytes into out[8n] (a copy on little-endian hosts). */
void wire_encode_f64_le(const double *x, size_t n, unsigned char *out);

/* What an .npy header says. */
typedef struct {
    size_t header_len; /* bytes before the data: magic, version, length field and dict */
    size_t rows, cols;
    wire_dtype dtype;
    size_t data_bytes; /* rows * cols * element size */
} wire_npy_info;

/*
 * Parses the .npy preamble and header dict in buf[0..len). Returns 1 with *info filled, 0 when
 * len is too short to hold the whole header yet (read more; nothing recorded in pb), or -1 (pb:
 * WIRE_EINVALID naming the rule: magic, version, dict syntax, descr, fortran_order, shape; or
 * WIRE_ELIMIT when rows * cols * 8 > max_table_bytes).
 */
int wire_npy_parse_header(const void *buf, size_t len, size_t max_table_bytes, wire_npy_info *info,
                          wire_err *pb);

/* Axes of an .npy tensor (wire_npy_parse_header_nd): [T, D] ... [B, T, H, D]. */
#define WIRE_NPY_MAX_RANK 4

/* What an .npy tensor header says. */
typedef struct {
    size_t header_len; /* bytes before the data */
    int ndim;          /* 1 .. WIRE_NPY_MAX_RANK */
    size_t shape[WIRE_NPY_MAX_RANK];
    wire_dtype dtype;
    size_t count;      /* product of the shape (>= 1) */
    size_t data_bytes; /* count * element size */
} wire_npy_nd;

/*
 * The header of an .npy tensor (q or k of a binary request) in buf[0..len), as
 * wire_npy_parse_header reads a table's, but of 1 to WIRE_NPY_MAX_RANK axes, none empty. descr
 * '<f2', '<f4', '<f8'; with bf16 1 (the request said dtype "bfloat16": NumPy has no such type)
 * a 2-byte descr ('<u2', '<i2', '|V2', '<V2') holding the raw bfloat16 patterns, and nothing
 * else. Returns 1 with *info filled, 0 when len is too short for the whole header yet, or -1
 * with pb filled (WIRE_EINVALID naming the rule; WIRE_ELIMIT when count x 8 > max_bytes).
 */
int wire_npy_parse_header_nd(const void *buf, size_t len, int bf16, size_t max_bytes,
                             wire_npy_nd *info, wire_err *pb);

/*
 * Parses a whole .npy file in buf[0..len). With allow_trailing 0 the data must end exactly at
 * len; with 1 bytes may follow it (*consumed = header_len + data_bytes, may be NULL). Returns 0
 * with *out filled, or -1 with pb filled (truncated data: WIRE_EINVALID naming the expected size).
 */
int wire_npy_parse(const void *buf, size_t len, size_t max_table_bytes, int allow_trailing,
                   wire_tensor *out, size_t *consumed, wire_err *pb);

/*
 * Writes an .npy 1.0 header for descr ("<f8", "<f4", "<i8") and shape[0..ndim) (1 <= ndim <=
 * WIRE_JW_MAX_DEPTH) into out (n >= WIRE_NPY_HEADER_MAX is always enough): magic, version 1.0,
 * u16 little-endian length, the dict {'descr': ..., 'fortran_order': False, 'shape': (...), }
 * padded with spaces and ended by '\n' so that data starts at a multiple of 64 (NumPy's
 * numpy/lib/format.py writes the same bytes). Returns its length, or 0 when it does not fit in n.
 */
#define WIRE_NPY_HEADER_MAX 1024
size_t wire_npy_header(char *out, size_t n, const char *descr, const size_t *shape, int ndim);

/* ---- .safetensors, incrementally -------------------------------------------------------- */

/*
 * Optional memory accounting hook of the incremental parser (wire_st_set_hold). bytes is the total
 * the parser is about to hold: the header bytes received so far while the header arrives, then 8
 * bytes per number of the table decoded so far (the float64 table fills as the data arrives),
 * reported before those bytes are stored; return 0 to go on or -1 to refuse (the stream then
 * fails, sticky, with WIRE_EREFUSED and frees what it held). A smaller total is
 * reported after memory is freed (also 0 on failure and in wire_st_free); the hook must accept
 * it. On success wire_st_finish hands the table to the caller together with its reservation: the
 * parser then reports nothing more for it, so the caller releases it when the table is gone.
 */
typedef int (*wire_st_hold_fn)(void *cls, size_t bytes);

/* Parser state; the caller owns the storage (init ... free). Fields are private. */
typedef struct {
    char *want;              /* wanted tensor name (owned copy) or NULL: the only 2-D tensor */
    size_t max_header;       /* header cap, bytes */
    size_t max_table_bytes;  /* cap on rows * cols * 8 */
    int state;               /* ST_LEN, ST_HEADER, ST_DATA, ST_FAILED (tensor_io.c) */
    unsigned char lenbuf[8]; /* the u64 header size while it arrives */
    size_t lenbuf_n;
    uint64_t header_len;
    char *header; /* header bytes while they arrive (freed once parsed) */
    size_t header_n;
    uint64_t data_pos;   /* bytes of the data section seen */
    uint64_t begin, end; /* the wanted tensor's range in the data section */
    wire_dtype dtype;
    size_t es; /* element size */
    size_t rows, cols;
    double *data;           /* [rows][cols], filled as bytes arrive */
    size_t n_done;          /* elements decoded */
    unsigned char carry[8]; /* an element split across feeds */
    size_t carry_n;
    uint64_t total;       /* bytes fed */
    char *name;           /* the chosen tensor's name (owned) */
    wire_err err;         /* the sticky error once state is ST_FAILED */
    wire_st_hold_fn hold; /* accounting hook or NULL (wire_st_set_hold) */
    void *hold_cls;       /* the hook's first argument */
    size_t held;          /* bytes last reported to hold */
} wire_st_stream;

/*
 * Initialises s. want: the tensor to keep (copied; NULL or "" = the file's only 2-D tensor).
 * max_header: header cap in bytes (0 = WIRE_ST_MAX_HEADER). max_table_bytes: cap on the kept
 * table as float64 (rows * cols * 8). Returns 0, or -1 when out of memory (s is then failed).
 */
int wire_st_init(wire_st_stream *s, const char *want, size_t max_header, size_t max_table_bytes);

/* Installs the accounting hook (see wire_st_hold_fn) on an initialised s, before the first feed;
 * fn NULL removes it. */
void wire_st_set_hold(wire_st_stream *s, wire_st_hold_fn fn, void *cls);

/*
 * Feeds the next n bytes of the file. Returns 0 while all is well, -1 once the input is known to
 * be bad (sticky: later feeds return -1 at once and cost nothing; wire_st_finish reports why).
 * Memory: the header (<= max_header) while it arrives, then only the wanted table.
 */
int wire_st_feed(wire_st_stream *s, const void *buf, size_t n);

/* 1 once the wanted tensor is complete (the rest of the file may be discarded unread). */
int wire_st_done(const wire_st_stream *s);

/*
 * Ends the stream: returns 0 with *out (the table, ownership moved to the caller) or -1 with pb
 * filled (the sticky error, or a truncated file). s must still be freed with wire_st_free.
 * *name_out (may be NULL) receives the chosen tensor's name, valid until wire_st_free.
 */
int wire_st_finish(wire_st_stream *s, wire_tensor *out, const char **name_out, wire_err *pb);

/* Frees everything s owns (also a table not taken by wire_st_finish). */
void wire_st_free(wire_st_stream *s);

/* One-shot: init, feed all of buf, finish, free. Same results as the incremental path. */
int wire_safetensors_parse(const void *buf, size_t len, const char *want, size_t max_table_bytes,
                           wire_tensor *out, wire_err *pb);

#endif
