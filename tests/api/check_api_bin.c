/*
 * tests/api/check_api_bin.c -- binary tensors in (api/bin.h): every shape gives the JSON path's
 * numbers, bit for bit in float64 and as their float32 rounding in float32 (the JSON answer of the
 * same vector at the same position is the reference: POST /rope with q as rows), whatever the
 * pieces the body arrives in; the errors name the part or the params field.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/req.h"
#include "api/warn_header.h"
#include "tests/lib/api_util.h"
#include "tests/lib/bin_util.h"
#include "wire/tensor_enc.h"

/* Deterministic inputs: x_i = 3 sin(1.3 i + seed), as float32 values when f32. */
static double *inputs(size_t n, double seed, int f32)
{
    double *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++) {
        x[i] = 3.0 * sin(1.3 * (double)i + seed);
        if (f32)
            x[i] = (double)(float)x[i];
    }
    return x;
}

/* The JSON path's q_rotated for rows v[0..T) of head_dim D at positions pos (the config fields
 * cfg, without braces): [T][D], malloc'd. */
static double *json_rotated(const char *cfg, const double *v, size_t T, size_t D,
                            const int64_t *pos)
{
    size_t cap = 256 + T * D * 26 + T * 24 + strlen(cfg), n = 0;
    char *req = malloc(cap);
    ck_assert_ptr_nonnull(req);
    n += (size_t)snprintf(req + n, cap - n, "{%s%s\"positions\": [", cfg, cfg[0] ? ", " : "");
    for (size_t t = 0; t < T; t++)
        n += (size_t)snprintf(req + n, cap - n, "%s%lld", t ? "," : "", (long long)pos[t]);
    n += (size_t)snprintf(req + n, cap - n, "], \"q\": [");
    for (size_t t = 0; t < T; t++) {
        n += (size_t)snprintf(req + n, cap - n, "%s[", t ? "," : "");
        for (size_t d = 0; d < D; d++)
            n += (size_t)snprintf(req + n, cap - n, "%s%.17g", d ? "," : "", v[t * D + d]);
        n += (size_t)snprintf(req + n, cap - n, "]");
    }
    snprintf(req + n, cap - n, "]}");
    json_t *j = au_ok(api_rope, req);
    double *out = malloc(T * D * sizeof *out);
    for (size_t t = 0; t < T; t++)
        for (size_t d = 0; d < D; d++)
            out[t * D + d] = au_num(j, "q_rotated", (int)t, (int)d, -1);
    json_decref(j);
    free(req);
    return out;
}

static const char *YARN = "\"head_dim\": 8, \"rope_theta\": 500000, \"scaling\": {\"type\": "
                          "\"yarn\", \"factor\": 4, \"original_max_position_embeddings\": 16}";

/* float64 [T, D] with explicit positions: every bit equal to the JSON path's, fed in 7-byte
 * pieces (every delimiter and header split). */
START_TEST(test_f64_rank2_bit_identical)
{
    size_t T = 5, D = 8, shape[2] = {5, 8};
    int64_t pos[5] = {0, 3, 17, 40, 1000};
    double *q = inputs(T * D, 0.25, 0);
    bu_body b = {0};
    char params[400];
    snprintf(params, sizeof params, "{%s, \"positions\": [0, 3, 17, 40, 1000]}", YARN);
    bu_params(&b, params);
    bu_npy(&b, "q", WIRE_DT_F64, shape, 2, q);
    bu_end(&b);
    bu_opts o = {.piece = 7, .npy = 1};
    api_response r = bu_run(&b, &o);
    const unsigned char *got = bu_npy_data(&r, WIRE_DT_F64, T * D);
    double *want = json_rotated(YARN, q, T, D, pos);
    ck_assert_int_eq(memcmp(got, want, T * D * 8), 0);
    api_response_free(&r);
    free(want);
    free(q);
    free(b.buf);
}
END_TEST

/* float32 [B=2, H=3, T=4, D=8] "bhtd" with per-batch positions, GQA k [2, 1, 4, 8]: each head of
 * each batch row is the JSON answer for its rows at its row's positions, rounded to float32. */
START_TEST(test_f32_bhtd_per_batch_gqa)
{
    size_t B = 2, H = 3, T = 4, D = 8;
    size_t qs[4] = {2, 3, 4, 8}, ks[4] = {2, 1, 4, 8};
    int64_t pos[2][4] = {{0, 1, 2, 3}, {7, 9, 11, 5000}};
    double *q = inputs(B * H * T * D, 0.5, 1), *k = inputs(B * T * D, 1.5, 1);
    bu_body b = {0};
    char params[400];
    snprintf(params, sizeof params,
             "{%s, \"tensor_layout\": \"bhtd\", \"positions\": [[0,1,2,3],[7,9,11,5000]]}", YARN);
    bu_params(&b, params);
    bu_npy(&b, "q", WIRE_DT_F32, qs, 4, q);
    bu_npy(&b, "k", WIRE_DT_F32, ks, 4, k);
    bu_end(&b);
    for (int side = 0; side < 2; side++) {
        bu_opts o = {.piece = 61, .npy = 1, .array = side ? "k_rotated" : "q_rotated"};
        api_response r = bu_run(&b, &o);
        size_t heads = side ? 1 : H;
        const double *x = side ? k : q;
        const unsigned char *got = bu_npy_data(&r, WIRE_DT_F32, B * heads * T * D);
        for (size_t bi = 0; bi < B; bi++) {
            for (size_t h = 0; h < heads; h++) {
                size_t off = (bi * heads + h) * T * D;
                double *want = json_rotated(YARN, x + off, T, D, pos[bi]);
                for (size_t i = 0; i < T * D; i++) {
                    float g, w = (float)want[i];
                    memcpy(&g, got + 4 * (off + i), 4);
                    ck_assert_msg(memcmp(&g, &w, 4) == 0, "b %zu h %zu i %zu: %.9g vs %.9g", bi, h,
                                  i, (double)g, (double)w);
                }
                free(want);
            }
        }
        api_response_free(&r);
    }
    free(q);
    free(k);
    free(b.buf);
}
END_TEST

/* The same q as [T, H, D], as [T, H*D] with num_heads and as [1, T, H, D] "bthd": the same
 * bytes; and [1, H, T, D] "bhtd" (its transpose) holds the same vectors. */
START_TEST(test_layouts_agree)
{
    size_t T = 3, H = 2, D = 4;
    double *q = inputs(T * H * D, 2.0, 0), *qt = malloc(T * H * D * sizeof *qt);
    for (size_t t = 0; t < T; t++)
        for (size_t h = 0; h < H; h++)
            memcpy(qt + (h * T + t) * D, q + (t * H + h) * D, D * sizeof *q);
    struct {
        const char *params;
        size_t shape[4];
        int nd;
        const double *x;
    } v[4] = {{"{\"head_dim\": 4}", {3, 2, 4}, 3, q},
              {"{\"num_heads\": 2}", {3, 8}, 2, q},
              {"{\"tensor_layout\": \"bthd\"}", {1, 3, 2, 4}, 4, q},
              {"{\"tensor_layout\": \"bhtd\"}", {1, 2, 3, 4}, 4, qt}};
    unsigned char first[3 * 2 * 4 * 8];
    for (int i = 0; i < 4; i++) {
        bu_body b = {0};
        bu_params(&b, v[i].params);
        bu_npy(&b, "q", WIRE_DT_F64, v[i].shape, v[i].nd, v[i].x);
        bu_end(&b);
        bu_opts o = {.npy = 1};
        api_response r = bu_run(&b, &o);
        const unsigned char *got = bu_npy_data(&r, WIRE_DT_F64, T * H * D);
        if (i == 0)
            memcpy(first, got, sizeof first);
        for (size_t t = 0; t < T; t++)
            for (size_t h = 0; h < H; h++) {
                size_t src = i == 3 ? (h * T + t) * D : (t * H + h) * D;
                ck_assert_int_eq(memcmp(got + 8 * src, first + 8 * (t * H + h) * D, 8 * D), 0);
            }
        api_response_free(&r);
        free(b.buf);
    }
    free(q);
    free(qt);
}
END_TEST

/* float16 and bfloat16 at position 0 come back unchanged (the rotation by angle 0 with attention
 * factor 1 is the identity: cos 0 = 1, sin 0 = 0), in their own dtype; at position 1 each pair
 * (a, b) becomes (a cos 1 - b sin 1, b cos 1 + a sin 1) rounded once to the dtype. */
START_TEST(test_f16_bf16)
{
    for (int bf = 0; bf < 2; bf++) {
        wire_dtype dt = bf ? WIRE_DT_BF16 : WIRE_DT_F16;
        double x[4] = {1.0, 0.5, -2.0, 0.25}; /* exact in both */
        size_t shape[2] = {2, 2};
        bu_body b = {0};
        bu_params(&b, bf ? "{\"dtype\": \"bfloat16\"}" : "{}");
        bu_npy(&b, "q", dt, shape, 2, x);
        bu_end(&b);
        bu_opts o = {.npy = 1};
        api_response r = bu_run(&b, &o);
        const unsigned char *got = bu_npy_data(&r, dt, 4);
        uint16_t h[4];
        memcpy(h, got, 8);
        uint16_t one = bf ? 0x3f80 : 0x3c00, half = bf ? 0x3f00 : 0x3800;
        ck_assert_uint_eq(h[0], one);
        ck_assert_uint_eq(h[1], half);
        double a = -2.0, c = 0.25, cs = cos(1.0), sn = sin(1.0);
        uint16_t w0 =
            bf ? wire_double_to_bf16(a * cs - c * sn) : wire_double_to_f16(a * cs - c * sn);
        uint16_t w1 =
            bf ? wire_double_to_bf16(c * cs + a * sn) : wire_double_to_f16(c * cs + a * sn);
        ck_assert_uint_eq(h[2], w0);
        ck_assert_uint_eq(h[3], w1);
        api_response_free(&r);
        free(b.buf);
    }
}
END_TEST

/* Many windows (api/bin_rotate.c: 128 KiB of float64 each): q [1, 3, 200, 64] "bhtd" is 600 rows
 * of 64 values, 256 rows per window, so windows cross head boundaries (positions not consecutive:
 * cos/sin copied) and end in a partial one; positions 3990 .. 4189 cross the fixture cache's 4096
 * tabulated rows (rows past them computed). Every head equals the JSON answer bit for bit. */
START_TEST(test_many_windows)
{
    size_t H = 3, T = 200, D = 64, shape[4] = {1, 3, 200, 64};
    int64_t pos[200];
    char params[2400];
    size_t n = (size_t)snprintf(params, sizeof params,
                                "{\"head_dim\": 64, \"tensor_layout\": \"bhtd\", \"positions\": [");
    for (size_t t = 0; t < T; t++) {
        pos[t] = 3990 + (int64_t)t;
        n += (size_t)snprintf(params + n, sizeof params - n, "%s%lld", t ? "," : "",
                              (long long)pos[t]);
    }
    snprintf(params + n, sizeof params - n, "]}");
    double *q = inputs(H * T * D, 0.75, 0);
    bu_body b = {0};
    bu_params(&b, params);
    bu_npy(&b, "q", WIRE_DT_F64, shape, 4, q);
    bu_end(&b);
    bu_opts o = {.piece = 4093, .npy = 1};
    api_response r = bu_run(&b, &o);
    const unsigned char *got = bu_npy_data(&r, WIRE_DT_F64, H * T * D);
    for (size_t h = 0; h < H; h++) {
        double *want = json_rotated("\"head_dim\": 64", q + h * T * D, T, D, pos);
        ck_assert_msg(memcmp(got + 8 * h * T * D, want, 8 * T * D) == 0, "head %zu differs", h);
        free(want);
    }
    api_response_free(&r);
    free(q);
    free(b.buf);
}
END_TEST

/* 1 when needle occurs in hay[0..n). */
static int has_bytes(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return 1;
    return 0;
}

/* .npz by default: q_rotated and k_rotated, cos / sin with include cos_sin (the JSON path's). */
START_TEST(test_npz_members)
{
    double q[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t shape[2] = {2, 4};
    bu_body b = {0};
    bu_params(&b, "{\"include\": [\"cos_sin\"]}");
    bu_npy(&b, "q", WIRE_DT_F64, shape, 2, q);
    bu_npy(&b, "k", WIRE_DT_F64, shape, 2, q);
    bu_end(&b);
    bu_opts o = {0};
    api_response r = bu_run(&b, &o);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "application/x-npz");
    const char *names[4] = {"q_rotated.npy", "k_rotated.npy", "cos.npy", "sin.npy"};
    for (int i = 0; i < 4; i++)
        ck_assert(has_bytes(r.body, r.len, names[i]));
    ck_assert(!has_bytes(r.body, r.len, "cos_hf"));
    api_response_free(&r);
    bu_opts o2 = {.npy = 1, .array = "sin"};
    r = bu_run(&b, &o2);
    const unsigned char *s = bu_npy_data(&r, WIRE_DT_F64, 2 * 2);
    double s1;
    memcpy(&s1, s + 2 * 8, 8); /* sin at position 1, pair 0: sin(1 x 1) */
    ck_assert(s1 == sin(1.0));
    api_response_free(&r);
    free(b.buf);
}
END_TEST

/* No params part: the same answer as params {} (docs/api.md: its fields all take their defaults,
 * the JSON path's: rope_theta 10000, no scaling, half layout; head_dim from the tensor; positions
 * 0 .. T-1). q = [[1, 0], [1, 0]], D 2: inv_freq[0] = 10000^(0/2) = 1, so position 0 keeps
 * [1, 0] and position 1 turns it by 1 rad: [cos 1, sin 1]. */
START_TEST(test_no_params)
{
    double q[4] = {1, 0, 1, 0};
    size_t shape[2] = {2, 2};
    const char *params[] = {NULL, "{}", "{\"head_dim\": 2, \"rope_theta\": 10000}"};
    unsigned char first[32];
    for (int i = 0; i < 3; i++) {
        bu_body b = {0};
        if (params[i])
            bu_params(&b, params[i]);
        bu_npy(&b, "q", WIRE_DT_F64, shape, 2, q);
        bu_end(&b);
        bu_opts o = {.npy = 1, .array = "q_rotated"};
        api_response r = bu_run(&b, &o);
        ck_assert_msg(r.status == 200, "params %s: status %d", params[i] ? params[i] : "absent",
                      r.status);
        const unsigned char *d = bu_npy_data(&r, WIRE_DT_F64, 4);
        double v[4];
        memcpy(v, d, sizeof v);
        ck_assert_double_eq_tol(v[0], 1.0, 1e-15);
        ck_assert_double_eq_tol(v[1], 0.0, 1e-15);
        ck_assert_double_eq_tol(v[2], cos(1.0), 1e-15);
        ck_assert_double_eq_tol(v[3], sin(1.0), 1e-15);
        if (i == 0)
            memcpy(first, d, sizeof first);
        else
            ck_assert_int_eq(memcmp(first, d, sizeof first), 0); /* bit for bit */
        api_response_free(&r);
        free(b.buf);
    }
}
END_TEST

/* A Gemma 3 text config of two layers, head_dim 4: layer 0 sliding (rope_local_base_freq 1e4),
 * layer 1 full attention (rope_theta 1e6): two kinds of RoPE layer. */
#define TWO_KINDS                                                                                  \
    "{\"model_type\": \"gemma3_text\", \"head_dim\": 4, \"hidden_size\": 8, "                      \
    "\"num_attention_heads\": 2, \"num_hidden_layers\": 2, \"layer_types\": "                      \
    "[\"sliding_attention\", \"full_attention\"], \"rope_theta\": 1000000, "                       \
    "\"rope_local_base_freq\": 10000}"

/* Each broken rule: its status and the part or field it names. */
START_TEST(test_errors)
{
    double q[8] = {1, 2, 3, 4, 5, 6, 7, 8}, bad[8] = {1, 2, 3, 4, 5, NAN, 7, 8};
    size_t s2[2] = {2, 4}, s4[4] = {1, 1, 2, 4}, s1[1] = {8}, sk[2] = {2, 2}, s3[3] = {2, 1, 4};
    struct {
        const char *params;
        const double *q;
        size_t *qs;
        int qn;
        size_t *ks;
        int kn;
        int params_last;
        int status;
        const char *ptr;
    } c[] = {
        {"{}", bad, s2, 2, NULL, 0, 0, 422, "/q"},           /* NaN at [1, 1] */
        {"{}", q, s4, 4, NULL, 0, 0, 422, "/tensor_layout"}, /* rank 4, no layout */
        /* a misspelt tensor_layout is named as unknown (was "a rank-4 q needs tensor_layout") */
        {"{\"tensor_layuot\": \"bhtd\"}", q, s4, 4, NULL, 0, 0, 422, "/tensor_layuot"},
        /* tensor_layout names rank-4 axes: with a rank-2 or rank-3 q it would be ignored */
        {"{\"tensor_layout\": \"bhtd\"}", q, s2, 2, NULL, 0, 0, 422, "/tensor_layout"},
        {"{\"tensor_layout\": \"bthd\"}", q, s3, 3, NULL, 0, 0, 422, "/tensor_layout"},
        {"{}", q, s1, 1, NULL, 0, 0, 422, "/q"},                /* rank 1 */
        {"{}", q, s2, 2, sk, 2, 0, 422, "/k"},                  /* D 4 vs 2 */
        {"{\"head_dim\": 8}", q, s2, 2, NULL, 0, 0, 422, "/q"}, /* head_dim vs D */
        {"{\"q\": [1]}", q, s2, 2, NULL, 0, 0, 422, "/q"},      /* q in params */
        {"{\"dtype\": \"float32\"}", q, s2, 2, NULL, 0, 0, 422, "/dtype"},
        {"{\"positions\": [0]}", q, s2, 2, NULL, 0, 0, 422, "/positions"},
        {"{\"positions\": [0, -1]}", q, s2, 2, NULL, 0, 0, 422, "/positions/1"},
        {"{\"include\": [\"bands\"]}", q, s2, 2, NULL, 0, 0, 422, "/include/0"},
        {"{\"base\": 0.5}", q, s2, 2, NULL, 0, 0, 422, "/base"},
        {"{}", q, s2, 2, NULL, 0, 1, 422, "/params"}, /* params after q */
        {"{", q, s2, 2, NULL, 0, 0, 400, "/params"},  /* not JSON */
        /* a config whose two layers differ in RoPE (sliding: base 1e4, full: 1e6) and no layer:
         * tensors are a rotation, for one kind of layer, as the JSON path's q (was a 200 with
         * the full-attention layers' numbers, wrong for layer 0) */
        {"{\"config\": " TWO_KINDS "}", q, s2, 2, NULL, 0, 0, 422, "/layer"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        bu_body b = {0};
        if (!c[i].params_last)
            bu_params(&b, c[i].params);
        bu_npy(&b, "q", WIRE_DT_F64, c[i].qs, c[i].qn, c[i].q);
        if (c[i].ks)
            bu_npy(&b, "k", WIRE_DT_F64, c[i].ks, c[i].kn, q);
        if (c[i].params_last)
            bu_params(&b, c[i].params);
        bu_end(&b);
        bu_opts o = {.npy = 1};
        api_response r = bu_run(&b, &o);
        bu_expect_problem(&r, c[i].status, c[i].ptr);
        api_response_free(&r);
        free(b.buf);
    }
}
END_TEST

/* The config of two kinds with a layer chosen: that layer's RoPE. q = (1, 1, 0, 0) at position 1,
 * half layout, pairs (0, 2) and (1, 3): dim 3 is sin(inv_freq[1]), inv_freq[1] = base^(-2/4):
 * 0.01 for layer 0 (sliding, base 1e4), 0.001 for layer 1 (full, base 1e6). */
START_TEST(test_layer_chosen)
{
    double q[4] = {1, 1, 0, 0};
    size_t shape[2] = {1, 4};
    const double want[2] = {sin(0.01), sin(0.001)};
    for (int layer = 0; layer < 2; layer++) {
        char params[400];
        snprintf(params, sizeof params,
                 "{\"config\": " TWO_KINDS ", \"layer\": %d, "
                 "\"positions\": [1]}",
                 layer);
        bu_body b = {0};
        bu_params(&b, params);
        bu_npy(&b, "q", WIRE_DT_F64, shape, 2, q);
        bu_end(&b);
        bu_opts o = {.npy = 1, .array = "q_rotated"};
        api_response r = bu_run(&b, &o);
        ck_assert_msg(r.status == 200, "layer %d: status %d %s", layer, r.status, r.body);
        double v[4];
        memcpy(v, bu_npy_data(&r, WIRE_DT_F64, 4), sizeof v);
        ck_assert_double_eq_tol(v[0], cos(1.0), 1e-15);
        ck_assert_double_eq_tol(v[3], want[layer], 1e-15);
        api_response_free(&r);
        free(b.buf);
    }
}
END_TEST

/* The body's framing, the spool quota, the memory budget and the tensor cap. */
START_TEST(test_body_and_limits)
{
    double q[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t s2[2] = {2, 4};
    bu_body b = {0};
    bu_params(&b, "{}");
    bu_npy(&b, "q", WIRE_DT_F64, s2, 2, q);
    bu_body cut = b; /* no close delimiter */
    bu_opts o = {.npy = 1};
    api_response r = bu_run(&cut, &o);
    bu_expect_problem(&r, 400, NULL);
    api_response_free(&r);
    bu_end(&b);
    /* the data is 64 bytes: a quota of 63 can never take it, a 413 at /q (from its header, before
     * the data is read; it was a 507 "retry later"); a quota of 1000 of which others hold 950 is
     * full now: 507 */
    bu_opts quota = {.npy = 1, .quota = 63};
    r = bu_run(&b, &quota);
    bu_expect_problem(&r, 413, "/q");
    ck_assert_msg(strstr(r.body, "spool_quota_bytes") != NULL, "%s", r.body);
    api_response_free(&r);
    bu_opts busy = {.npy = 1, .quota = 1000, .others = 950};
    r = bu_run(&b, &busy);
    bu_expect_problem(&r, 507, NULL);
    api_response_free(&r);
    /* the data fits a quota of 200 but the .npz with cos and sin (two more members, their .npy
     * headers, the directory: over 500 bytes) never does: a 413 at /include */
    bu_body inc = {0};
    bu_params(&inc, "{\"include\": [\"cos_sin\"]}");
    bu_npy(&inc, "q", WIRE_DT_F64, s2, 2, q);
    bu_end(&inc);
    bu_opts small = {.quota = 200};
    r = bu_run(&inc, &small);
    bu_expect_problem(&r, 413, "/include");
    api_response_free(&r);
    free(inc.buf);
    bu_opts hold = {.npy = 1, .refuse_hold_at = 100};
    r = bu_run(&b, &hold);
    bu_expect_problem(&r, 503, NULL);
    api_response_free(&r);
    au_lim.max_tensor_bytes = 63;
    r = bu_run(&b, &o);
    bu_expect_problem(&r, 413, "/q");
    api_response_free(&r);
    au_lim.max_tensor_bytes = 64;
    r = bu_run(&b, &o);
    ck_assert_int_eq(r.status, 200);
    api_response_free(&r);
    bu_opts arr = {.npy = 1, .array = "cos"}; /* not asked for */
    r = bu_run(&b, &arr);
    bu_expect_problem(&r, 422, NULL);
    api_response_free(&r);
    bu_body unk = {0};
    bu_part(&unk, "v", "x", 1);
    bu_end(&unk);
    r = bu_run(&unk, &o);
    bu_expect_problem(&r, 422, "/v");
    api_response_free(&r);
    free(unk.buf);
    free(b.buf);
}
END_TEST

/* A float16 answer that overflows: 60000 at angle pi/4 becomes ~84853 > 65504. */
START_TEST(test_f16_overflow)
{
    double q[2] = {60000.0, 60000.0};
    size_t s2[2] = {1, 2};
    bu_body b = {0};
    bu_params(&b, "{\"positions\": [1], \"inv_freq\": [0.7853981633974483]}");
    bu_npy(&b, "q", WIRE_DT_F16, s2, 2, q);
    bu_end(&b);
    bu_opts o = {.npy = 1};
    api_response r = bu_run(&b, &o);
    bu_expect_problem(&r, 422, "/q");
    api_response_free(&r);
    free(b.buf);
}
END_TEST

/* float32 goes through the one-pass kernel (core's pe_rope_rotate_heads_f32) unless a value is
 * not finite or overflows: those fall back to the float64 path, which names the element. Partial
 * rotary (rotary_dim 4 of head_dim 8: four dims passed through) against the JSON path rounded. */
START_TEST(test_f32_one_pass)
{
    size_t T = 6, D = 8, shape[2] = {6, 8};
    int64_t pos[6] = {0, 1, 2, 3, 4, 5};
    double *q = inputs(T * D, 2.5, 1);
    const char *cfg = "\"head_dim\": 8, \"rotary_dim\": 4";
    bu_body b = {0};
    bu_params(&b, "{\"rotary_dim\": 4}");
    bu_npy(&b, "q", WIRE_DT_F32, shape, 2, q);
    bu_end(&b);
    bu_opts o = {.piece = 13, .npy = 1};
    api_response r = bu_run(&b, &o);
    const unsigned char *got = bu_npy_data(&r, WIRE_DT_F32, T * D);
    double *want = json_rotated(cfg, q, T, D, pos);
    for (size_t i = 0; i < T * D; i++) {
        float w = (float)want[i];
        ck_assert_msg(memcmp(got + 4 * i, &w, 4) == 0, "value %zu", i);
    }
    api_response_free(&r);
    free(want);
    free(b.buf);
    /* NaN at [1, 5]; then 3e38 at [2, 0] and [2, 4] (pair 0, inv_freq 1): at position 2 the second
     * of the pair, 3e38 (cos 2 + sin 2) = 1.48e38, stays finite, the first, 3e38 (cos 2 - sin 2) =
     * -3.98e38, overflows float32 */
    struct {
        size_t at[2];
        double v;
        const char *detail;
    } bad[] = {{{13, 13}, NAN, "the value at [1, 5] is not finite"},
               {{16, 20}, 3e38, "the rotated value at [2, 0] overflows float32"}};
    for (size_t k = 0; k < 2; k++) {
        double keep[2] = {q[bad[k].at[0]], q[bad[k].at[1]]};
        /* a NaN cannot be written by bu_npy (float32 from float64 refuses it): 12345 first, its
         * four bytes then replaced in the body */
        q[bad[k].at[0]] = q[bad[k].at[1]] = isnan(bad[k].v) ? 12345.0 : bad[k].v;
        bu_body e = {0};
        bu_params(&e, "{}");
        bu_npy(&e, "q", WIRE_DT_F32, shape, 2, q);
        bu_end(&e);
        if (isnan(bad[k].v)) {
            const float mark = 12345.0f, nan = NAN;
            size_t at = 0;
            while (at + 4 <= e.len && memcmp(e.buf + at, &mark, 4) != 0)
                at++;
            ck_assert_uint_lt(at + 4, e.len);
            memcpy(e.buf + at, &nan, 4);
        }
        r = bu_run(&e, &o);
        bu_expect_problem(&r, 422, "/q");
        ck_assert_msg(strstr(r.body, bad[k].detail) != NULL, "%s", r.body);
        api_response_free(&r);
        free(e.buf);
        q[bad[k].at[0]] = keep[0];
        q[bad[k].at[1]] = keep[1];
    }
    free(q);
}
END_TEST

/* cos_hf / sin_hf carry the attention factor (cos x attention_factor): past the tensors' dtype
 * they are a 422 at /include, never an answer (the encoder stops at the first value it cannot
 * write; the rest of its buffer was sent unwritten, heap bytes, before the fix). With float32
 * tensors the same request is answered: cos_hf at position 0 is the factor itself, 1e5. */
START_TEST(test_cos_hf_overflow)
{
    size_t shape[2] = {3, 8};
    double q[24] = {0};
    const char *params = "{\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4, "
                         "\"original_max_position_embeddings\": 16, \"attention_factor\": 1e5}, "
                         "\"include\": [\"cos_sin_hf\"]}";
    for (int f16 = 0; f16 < 2; f16++) {
        bu_body b = {0};
        bu_params(&b, params);
        bu_npy(&b, "q", f16 ? WIRE_DT_F16 : WIRE_DT_F32, shape, 2, q);
        bu_end(&b);
        bu_opts o = {.npy = 1, .array = "cos_hf"};
        api_response r = bu_run(&b, &o);
        if (f16) {
            bu_expect_problem(&r, 422, "/include");
            ck_assert_msg(strstr(r.body, "float16") != NULL, "%s", r.body);
        } else {
            const unsigned char *got = bu_npy_data(&r, WIRE_DT_F32, 3 * 8);
            float c00;
            memcpy(&c00, got, 4);
            ck_assert_float_eq(c00, 1e5f);
        }
        api_response_free(&r);
        free(b.buf);
    }
}
END_TEST

/* A config whose layers differ in RoPE (Gemma 3: sliding layers at rope_local_base_freq 1e4, full
 * ones at rope_theta 1e6) rotates only for a chosen layer, as the JSON path's q does: without
 * layer / layer_type a 422 at /layer (before the fix a 200 rotated with the full-attention kind,
 * the sliding layers' numbers never asked for); with layer 0 the sliding kind, bit for bit the
 * JSON answer of the same layer. */
START_TEST(test_layer_kinds_need_a_choice)
{
    size_t T = 3, D = 8, shape[2] = {3, 8};
    int64_t pos[3] = {0, 1, 2};
    double *q = inputs(T * D, 0.75, 0);
    const char *cfg = "\"config\": {\"model_type\": \"gemma3_text\", \"head_dim\": 8, "
                      "\"num_hidden_layers\": 2, \"layer_types\": [\"sliding_attention\", "
                      "\"full_attention\"], \"rope_theta\": 1000000, "
                      "\"rope_local_base_freq\": 10000}";
    char params[400];
    for (int with_layer = 0; with_layer < 2; with_layer++) {
        snprintf(params, sizeof params, "{%s%s}", cfg, with_layer ? ", \"layer\": 0" : "");
        bu_body b = {0};
        bu_params(&b, params);
        bu_npy(&b, "q", WIRE_DT_F64, shape, 2, q);
        bu_end(&b);
        bu_opts o = {.npy = 1};
        api_response r = bu_run(&b, &o);
        if (!with_layer) {
            bu_expect_problem(&r, 422, "/layer");
        } else {
            char jc[400];
            snprintf(jc, sizeof jc, "%s, \"layer\": 0", cfg);
            const unsigned char *got = bu_npy_data(&r, WIRE_DT_F64, T * D);
            double *want = json_rotated(jc, q, T, D, pos);
            ck_assert_int_eq(memcmp(got, want, T * D * 8), 0);
            free(want);
        }
        api_response_free(&r);
        free(b.buf);
    }
    free(q);
}
END_TEST

/* A binary answer's warnings: what the JSON answer's `warnings` member says, in the header
 * X-Posenc-Warnings (api_response.warnings) as an ASCII JSON array. Llama with
 * partial_rotary_factor 0.5 warns that HF rotates the whole head (api/model_full_head.c); the
 * header's array must equal the JSON answer's exactly. Both the
 * multipart path (api_bin) and a JSON request answered as .npz (api_handle_route) carry it;
 * a request without warnings has none (NULL). Seen failing with the header left out (NULL). */
START_TEST(test_warnings_header)
{
    const char *cfg = "\"config\": {\"model_type\": \"llama\", \"partial_rotary_factor\": 0.5, "
                      "\"hidden_size\": 32, \"num_attention_heads\": 4, \"rope_theta\": 10000, "
                      "\"num_hidden_layers\": 2}";
    char req[600];
    snprintf(req, sizeof req, "{%s, \"positions\": [0, 1], \"q\": [1, 0, 0, 0, 0, 0, 0, 0]}", cfg);
    json_t *j = au_ok(api_rope, req), *want = json_object_get(j, "warnings");
    ck_assert_uint_eq(json_array_size(want), 1);
    /* multipart: params and q [2, 8] */
    size_t shape[2] = {2, 8};
    double q[16] = {1};
    char params[400];
    snprintf(params, sizeof params, "{%s, \"positions\": [0, 1]}", cfg);
    bu_body b = {0};
    bu_params(&b, params);
    bu_npy(&b, "q", WIRE_DT_F64, shape, 2, q);
    bu_end(&b);
    bu_opts o = {.npy = 1};
    api_response r = bu_run(&b, &o);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(r.warnings);
    json_t *got = json_loads(r.warnings, 0, NULL);
    ck_assert_msg(json_equal(got, want), "header %s", r.warnings);
    json_decref(got);
    api_response_free(&r);
    free(b.buf);
    /* the JSON request, answered as .npz */
    const api_route *route = api_route_named("/rope");
    api_opts jo = {.npy = 1, .npz = 1};
    api_handle_route(&au_ctx, route, req, strlen(req), "t", &jo, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(r.warnings);
    got = json_loads(r.warnings, 0, NULL);
    ck_assert_msg(json_equal(got, want), "header %s", r.warnings);
    json_decref(got);
    api_response_free(&r);
    /* no warnings, no header */
    const char *plain = "{\"head_dim\": 8, \"positions\": [0], \"q\": [1, 0, 0, 0, 0, 0, 0, 0]}";
    api_handle_route(&au_ctx, route, plain, strlen(plain), "t", &jo, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_null(r.warnings);
    api_response_free(&r);
    json_decref(j);
}
END_TEST

/* The header stays under API_WARNINGS_HEADER_MAX (3072 bytes; nginx's default header buffer is
 * 4 KiB): 12 warnings of 300 bytes with a "×" each (2 bytes escaped to 6: 304 characters, + 2
 * quotes + a comma = 307 per string) cannot all fit; the first 9 do (9 x 307 + the count string's
 * 53 + 2 brackets = 2,818 <= 3072; 10 x 307 + 55 = 3,125 is over), then "(3 more warnings: the
 * JSON answer lists them all)". Seen failing with the cap raised to 8192 (all 12 sent). */
START_TEST(test_warnings_header_capped)
{
    char text[12][304];
    const char *s[12];
    for (int i = 0; i < 12; i++) {
        memset(text[i], 'a' + i, 300);
        memcpy(text[i] + 10, "\xc3\x97", 2);
        text[i][300] = '\0';
        s[i] = text[i];
    }
    char *h = api_warnings_header(s, 12);
    ck_assert_uint_le(strlen(h), API_WARNINGS_HEADER_MAX);
    json_t *j = json_loads(h, 0, NULL);
    ck_assert_uint_eq(json_array_size(j), 10);
    for (int i = 0; i < 9; i++)
        ck_assert_str_eq(json_string_value(json_array_get(j, (size_t)i)), text[i]);
    ck_assert_str_eq(json_string_value(json_array_get(j, 9)),
                     "(3 more warnings: the JSON answer lists them all)");
    json_decref(j);
    free(h);
    h = api_warnings_header(s, 2); /* what fits goes whole */
    j = json_loads(h, 0, NULL);
    ck_assert_uint_eq(json_array_size(j), 2);
    json_decref(j);
    free(h);
}
END_TEST

Suite *api_bin_suite(void)
{
    Suite *s = suite_create("api_bin");
    TCase *tc = tcase_create("bin");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_f64_rank2_bit_identical);
    tcase_add_test(tc, test_f32_bhtd_per_batch_gqa);
    tcase_add_test(tc, test_layouts_agree);
    tcase_add_test(tc, test_many_windows);
    tcase_add_test(tc, test_f16_bf16);
    tcase_add_test(tc, test_npz_members);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_layer_chosen);
    tcase_add_test(tc, test_no_params);
    tcase_add_test(tc, test_body_and_limits);
    tcase_add_test(tc, test_f16_overflow);
    tcase_add_test(tc, test_f32_one_pass);
    tcase_add_test(tc, test_cos_hf_overflow);
    tcase_add_test(tc, test_layer_kinds_need_a_choice);
    tcase_add_test(tc, test_warnings_header);
    tcase_add_test(tc, test_warnings_header_capped);
    suite_add_tcase(s, tc);
    return s;
}
