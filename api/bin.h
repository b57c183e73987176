/*
 * api/bin.h -- binary tensors in: POST /rope with a multipart/form-data body (docs/api.md, "Binary
 * tensors"). The body is a JSON `params` part (the fields of a JSON /rope body but q and k) and q,
 * k as .npy parts (float64, float32, float16; bfloat16 when params says "dtype": "bfloat16",
 * then a 2-byte descr holds the raw patterns). The answer is .npz (q_rotated, k_rotated, and cos /
 * sin / cos_hf / sin_hf when `include` asks) or one .npy (?array=), in the tensors' own dtype.
 *
 * Memory does not grow with the tensors: params must come first; when the first .npy header is
 * whole, params and the shapes are read and the frequency table taken (the shared cache's, up to
 * its bounds); then each part's data is rotated as it arrives, one window of whole rows at a time,
 * and written to a spool file (api_spool, opened by the caller), where the answer is laid out.
 * In memory: the params text, one .npy header and one window (API_BIN_WINDOW_BYTES of float64,
 * plus its raw bytes and cos / sin), all told to the hold hook.
 *
 * Shapes (the last axis is head_dim D; H heads; B batch rows; T positions):
 *   rank 2 [T, D], or [T, H*D] with num_heads (q) / num_key_value_heads (k; default num_heads);
 *   rank 3 [T, H, D]; rank 4 with tensor_layout "bthd" ([B, T, H, D], after the projection) or
 *   "bhtd" ([B, H, T, D], in attention). q and k may differ in H (grouped-query attention) but
 *   share B and T. positions: absent (0 .. T-1), [T], or [B][T] (one row per batch row).
 *
 * Numbers: each vector is rotated exactly as POST /rope rotates a row of q given as JSON at the
 * same position (the same cos/sin, attention factor and query scale, core/rope.h), in float64,
 * then rounded once to the tensor's dtype: float64 answers are bit-identical to the JSON path's,
 * float32 ones its float32 rounding (tests/api/check_api_bin.c).
 */
#ifndef API_BIN_H
#define API_BIN_H

#include <stddef.h>
#include <stdint.h>

#include "api/api.h"

#ifndef API_BIN_WINDOW_BYTES
/* float64 rows rotated at once, bytes: small enough that a window's buffers stay in L2 (1 MiB
 * windows cost the daemon about 35% more CPU per request here) */
#define API_BIN_WINDOW_BYTES (1u << 17)
#endif

/*
 * Where the tensors wait: fd is an open read-write file (unlinked: it goes when closed), owned by
 * the caller. reserve(cls, total) is told the spool bytes this request will hold (before they are
 * written; a smaller total after release, also 0 at the end) and returns 0, or -1 when the quota
 * refuses (the request then fails with 507 insufficient-storage). reclaim(cls) is called when a
 * write finds the spool's file system full (ENOSPC, EDQUOT): it frees what the caller holds there
 * outside requests (server/spool.c's kept files) and returns 1 when it freed something (the write
 * is then retried once), else 0; only a write that still fails is a 507. Either may be NULL.
 */
typedef struct {
    int fd;
    int (*reserve)(void *cls, uint64_t total);
    void *cls;
    int (*reclaim)(void *cls);
    uint64_t quota; /* the whole quota reserve checks against (0: none): a request that alone
                     * needs more can never be answered, a 413 rather than reserve's 507 */
} api_spool;

typedef struct api_bin api_bin;

/*
 * A binary request for route (api_route_rope) with the multipart boundary, ctx (borrowed: its
 * limits -- max_tensor_bytes caps the data of q and k together, max_body_bytes the params part
 * -- and the frequency-table cache), spool sp (copied) and hold (memory; may be NULL). NULL when
 * out of memory.
 */
api_bin *api_bin_new(const api_ctx *ctx, const api_route *route, const char *boundary,
                     const api_spool *sp, api_arena_hold_fn hold, void *hold_cls);

/* Feeds the next n bytes of the body. 0, or -1 once the request has failed (sticky: later bytes
 * are read and dropped; api_bin_run answers the first error). Runs on the HTTP thread: parses
 * the params part when it ends, reads params and the tensors' shapes when the first .npy header
 * is whole, rotates the data window by window into the spool. */
int api_bin_feed(api_bin *b, const void *buf, size_t n);

/* 1 once the request has failed (the rest of the body is dropped). */
int api_bin_failed(const api_bin *b);

/*
 * The body is complete: fills out (the .npz / .npy, written into the spool file and answered as
 * a stream of one range of it, which the daemon may send from the file itself, wire_stream_file;
 * or a problem: 4xx naming the part ("/q", "/params") or the field of params ("/positions"), 503
 * out of memory or overloaded, 507 spool quota or disk full). opts: npy chooses .npy, array the
 * members (api_opts). The stream reads the spool file: close it only after the stream.
 */
void api_bin_run(api_bin *b, const api_opts *opts, const char *request_id, api_response *out);

/* Frees b (NULL allowed); gives back its spool reservation and memory hold. */
void api_bin_free(api_bin *b);

#endif
