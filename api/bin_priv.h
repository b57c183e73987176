/*
 * api/bin_priv.h -- the state of a binary request (api/bin.h), shared by its files: bin.c (the
 * parts as they arrive), bin_plan.c (params and shapes -> what to rotate), bin_rotate.c (the
 * windows rotated into the spool), bin_answer.c (the .npz / .npy answer read from the spool).
 */
#ifndef API_BIN_PRIV_H
#define API_BIN_PRIV_H

#include <jansson.h>

#include "api/bin.h"
#include "api/rope_req.h"
#include "wire/multipart.h"
#include "wire/tensor_io.h"

/* The tensor parts, in the order of api_bin.t[]. */
enum { API_BIN_Q = 0, API_BIN_K = 1, API_BIN_NT = 2 };
extern const char *const api_bin_part_names[API_BIN_NT]; /* "q", "k" */

/* One .npy part (q or k). */
typedef struct {
    int present;        /* the part began */
    int complete;       /* its data all arrived */
    unsigned char *hdr; /* the .npy header while it arrives (freed once parsed) */
    size_t hdr_n, hdr_cap;
    int hdr_done;
    wire_npy_nd info; /* the header, once parsed */
    /* its .npz member in the spool (bin_answer.c): the local header at blk, lh_len bytes, then
     * the .npy header (npy_len bytes), the data at off, the data descriptor; crc: the CRC-32 of
     * the .npy header and of the data rotated so far */
    uint64_t blk, off;
    size_t lh_len, npy_len;
    uint32_t crc;
    uint64_t got; /* data bytes received so far */
    /* the plan (bin_plan.c) */
    size_t B, T, H, D;  /* batch rows, positions, heads, head_dim */
    int bhtd;           /* 1: [B, H, T, D]; 0: positions outermost ([B, T, H, D] and ranks 2-3) */
    size_t wrows;       /* rows per window (bin_rotate.c) */
    uint64_t rows_done; /* rows rotated and written */
} api_bin_part;

/* Rotated data is written to the spool in aligned chunks of this many bytes (api_bin_win.carry;
 * the first part's data starts on one, api_bin_lay_part): writes that are not aligned to the
 * file's large folios make the page cache use 4 KiB ones, which cost the writes, the reads and
 * sendfile more per byte (docs/performance.md, "sendfile"). */
#define API_BIN_CHUNK (64u * 1024u)

/* The window of the part arriving now (bin_rotate.c). */
typedef struct {
    unsigned char *raw; /* wrows rows in the part's dtype, fill bytes so far */
    size_t fill;
    double *x, *y; /* the rows as float64, in and out */
    double *c, *s; /* [wrows][n] cos / sin when not read from the table in place */
    int64_t *pos;  /* [wrows] each row's position */
    size_t bytes;  /* what the buffers hold (told to hold) */
    /* the rotated bytes of the last, partial chunk not yet written (API_BIN_CHUNK bytes): a
     * window's bytes go to the spool in whole aligned chunks, the rest waits for the next window
     * or the part's end */
    unsigned char *carry;
    size_t carry_n;
    uint64_t carry_off; /* where carry[0] goes (on a chunk) */
} api_bin_win;

struct api_bin {
    const api_ctx *ctx;
    const api_route *route;
    const api_limits *lim;
    api_spool sp;
    api_arena_hold_fn hold;
    void *hold_cls;
    size_t held;          /* bytes last told to hold */
    uint64_t spool_total; /* bytes reserved in the spool: what has been written to it */
    uint64_t spool_end;   /* bytes of the spool the parts' .npz members will take (their layout) */
    uint64_t spool_pad;   /* the hole before the first member (its data on a page): not counted */
    size_t params_tree;   /* bytes of params as parsed (jansson's tree, measured in an arena) */
    size_t plan_bytes;    /* bytes the plan holds: positions, cos / sin (bin_plan.c) */
    wire_mp mp;
    wire_mp_cb cb;
    int cur;      /* the part being read: 0 q, 1 k, 2 params, -1 none */
    char *params; /* the params part's text while it arrives */
    size_t params_n, params_cap;
    int params_seen; /* the params part began */
    json_t *pj;      /* params, parsed at the end of its part */
    int bf16;        /* params said "dtype": "bfloat16" */
    api_bin_part t[API_BIN_NT];
    api_bin_win win;
    int planned;                /* params and the first part's shape read (api_bin_plan_part) */
    int first;                  /* the part planned first */
    int bhtd, has_layout;       /* tensor_layout */
    int64_t nh, nkv;            /* num_heads, num_key_value_heads (0: absent) */
    const pe_freq_table *table; /* the frequency table held for the rotations (or NULL) */
    api_problem pb;             /* the first error (sticky) */
    int failed;
    json_t *req; /* the request api_rope_parse read (bin_plan.c; owned) */
    api_rope_req r;
    api_rope_res res;
    int has_r;
    int64_t *pos; /* [pos_b][T] positions of every vector (owned) */
    size_t pos_b; /* rows of pos: 1 (shared) or B */
};

/* Tells hold the bytes b holds in memory now; -1 (b failed, 503 overloaded) when refused. */
int api_bin_hold(api_bin *b, size_t bytes);
/* The bytes b holds in memory now: the params text, the headers arriving and the window. */
size_t api_bin_held_now(const api_bin *b);
/* Marks b failed with code at pointer ptr (NULL: none) and the printf-style detail. */
void api_bin_fail(api_bin *b, api_problem_code code, const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* bin_plan.c: part i's header is whole: its shape as [B, T, H, D]; for the first part also params
 * into b->r (api_rope_parse, api_rope_run), b->pos and b->table; a later part must share the
 * first's B, T and D. 0, or -1 with b->pb filled. Runs on the HTTP thread. */
int api_bin_plan_part(api_bin *b, int i);

/* bin_rotate.c: the window of part i (buffers told to hold). 0 or -1. */
int api_bin_window_open(api_bin *b, int i);
/* n more data bytes of part i: rotated and written to the spool window by window (the last
 * rows when the data is complete). 0 or -1 (b failed). */
int api_bin_window_feed(api_bin *b, int i, const unsigned char *buf, size_t n);
/* Writes what the window's carry holds (the part's last partial page). 0 or -1. */
int api_bin_window_flush(api_bin *b);
/* Frees the window and gives its hold back. */
void api_bin_window_free(api_bin *b);

/* bin_answer.c: part p's header is whole: its .npz member's place in the spool (blk, off: after
 * the members laid before it), its CRC-32 begun with its .npy header; b->spool_end moves past it.
 * 0 or -1 (b failed: out of memory). */
int api_bin_lay_part(api_bin *b, api_bin_part *p);

/* bin_rotate.c: writes the n bytes of buf to the spool at off (the spool reserved beforehand;
 * a full disk makes the caller's reclaim run once, then retry). 0 or -1 (b failed: 507). */
int api_bin_spool_write(api_bin *b, const void *buf, size_t n, uint64_t off);

/* bin_answer.c: the answer (.npz, or .npy with opts->npy) of a rotated b into out; a problem
 * (422 at /array) when opts->array names something the answer does not have. */
void api_bin_answer(api_bin *b, const api_opts *opts, const char *request_id, api_response *out);

#endif
