/*
 * bench/micro.c -- single-thread microbenchmarks of the core kernels and of the JSON number writer,
 * each against a baseline measured in the same process (`make bench` runs it; not a test).
 *
 * Every kernel is timed against memcpy of the same bytes (the kernel's output size; for RoPE and
 * softmax input and output have that size too), memcpy into the kernel's own output buffer right
 * before each kernel run so that both see the same machine state: ratio = memcpy time / kernel
 * time, so 1.0 means "as fast as copying the tensor" and 0.9 means 10 % slower than the copy. Each
 * time is the best of REPS runs on buffers that were written once before (no page faults).
 * The number writer is timed against jansson's json_dumps of the same array (default %.17g
 * formatting), interleaved: ratio = jansson time / posenc time, median over repetitions.
 *
 * Output: one line per figure, "name<TAB>value<TAB>unit<TAB>note", read by bench/run.sh.
 * usage: bench_micro [quick|rope|json]   (quick: smaller sizes, for a smoke run; rope, json: one
 * group only, full size)
 *        bench_micro request BODY.json   the small /rope request's CPU cost in this process, split
 *                                        into jansson's parse and the rest (see bench_request)
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "core/alibi.h"
#include "core/attention.h"
#include "core/cache.h"
#include "core/rope.h"
#include "core/sinusoidal.h"
#include "wire/jw.h"
#include "wire/stream.h"

#define REPS 15

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *big(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "bench_micro: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    memset(p, 1, bytes); /* fault every page in now */
    return p;
}

static void line(const char *name, double value, const char *unit, const char *note)
{
    printf("%s\t%.4g\t%s\t%s\n", name, value, unit, note);
    fflush(stdout);
}

static volatile double sink;

/* ---- RoPE [T][H][D] ------------------------------------------------------------------------- */

static void bench_rope(size_t T, size_t H, size_t D)
{
    size_t n = T * H * D, half = D / 2;
    size_t bytes = n * sizeof(double);
    double *x = big(bytes), *out = big(bytes);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(i % 977) / 977.0 - 0.5;
    double *inv = big(half * sizeof *inv);
    double *cs = big(T * half * sizeof *cs), *sn = big(T * half * sizeof *sn);
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = D;
    double att = 1.0;
    pe_rope_inv_freq(&p, inv, &att, NULL);

    double t_table = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = now_s();
        pe_rope_cos_sin_range(inv, half, 0, T, cs, sn);
        double dt = now_s() - t0;
        if (dt < t_table)
            t_table = dt;
    }
    static const struct {
        const char *name;
        pe_rope_layout layout;
        int bhsd;
    } V[] = {{"rope_tHD_half", PE_ROPE_HALF, 0},
             {"rope_tHD_interleaved", PE_ROPE_INTERLEAVED, 0},
             {"rope_HtD_half", PE_ROPE_HALF, 1}};
    char note[160];
    for (size_t v = 0; v < 3; v++) {
        double best = 1e30, t_copy = 1e30;
        for (int r = 0; r < REPS; r++) {
            /* memcpy of the same bytes between the same buffers, right before each run */
            double tc = now_s();
            memcpy(out, x, bytes);
            tc = now_s() - tc;
            if (tc < t_copy)
                t_copy = tc;
            double t0 = now_s();
            if (V[v].bhsd) {
                for (size_t h = 0; h < H; h++)
                    pe_rope_rotate(x + h * T * D, D, cs, sn, T, D, D, V[v].layout, 1.0,
                                   out + h * T * D);
            } else {
                pe_rope_rotate_heads(x, cs, sn, T, H, D, D, V[v].layout, 1.0, out);
            }
            double dt = now_s() - t0;
            if (dt < best)
                best = dt;
            sink += out[r];
        }
        snprintf(note, sizeof note,
                 "%zux%zux%zu f64 (%zu MiB): %.1f ms vs memcpy %.1f ms (%.2f GB/s copy)", T, H, D,
                 bytes >> 20, best * 1e3, t_copy * 1e3, 2.0 * (double)bytes / t_copy / 1e9);
        line(V[v].name, t_copy / best, "x memcpy", note);
    }
    snprintf(note, sizeof note, "cos/sin table %zux%zu once per call: %.2f ms", T, half,
             t_table * 1e3);
    line("rope_table_ms", t_table * 1e3, "ms", note);
    free(x);
    free(out);
    free(inv);
    free(cs);
    free(sn);
}

/* ---- sinusoidal ------------------------------------------------------------------------------ */

static void bench_sinusoidal(size_t T, size_t d)
{
    size_t bytes = T * d * sizeof(double);
    double *out = big(bytes);
    int64_t *pos = big(T * sizeof *pos);
    for (size_t i = 0; i < T; i++)
        pos[i] = (int64_t)i;
    pe_sinusoidal_params p;
    pe_sinusoidal_params_init(&p);
    p.d_model = d;
    double *src = big(bytes);
    double best = 1e30, t_copy = 1e30;
    for (int r = 0; r < REPS; r++) {
        double tc = now_s();
        memcpy(out, src, bytes);
        tc = now_s() - tc;
        if (tc < t_copy)
            t_copy = tc;
        double t0 = now_s();
        pe_sinusoidal_fill(&p, pos, T, out);
        double dt = now_s() - t0;
        if (dt < best)
            best = dt;
        sink += out[T * d - 1 - (size_t)r];
    }
    free(src);
    char note[160];
    snprintf(note, sizeof note,
             "%zux%zu f64 (%zu MiB): %.1f ms vs memcpy %.1f ms; %.1f ns per sin+cos", T, d,
             bytes >> 20, best * 1e3, t_copy * 1e3, best / (double)(T * d / 2) * 1e9);
    line("sinusoidal", t_copy / best, "x memcpy", note);
    free(out);
    free(pos);
}

/* ---- ALiBi bias --------------------------------------------------------------------------------
 */

static void bench_alibi(size_t H, size_t T)
{
    size_t n = T * T, bytes = H * n * sizeof(double);
    double *bias = big(bytes);
    double *slopes = big(H * sizeof *slopes);
    int64_t *pos = big(T * sizeof *pos);
    for (size_t i = 0; i < T; i++)
        pos[i] = (int64_t)i;
    pe_alibi_slopes(PE_ALIBI_PRESS, H, 8.0, slopes);
    double *src = big(bytes);
    double best = 1e30, t_copy = 1e30;
    for (int r = 0; r < REPS; r++) {
        double tc = now_s();
        memcpy(bias, src, bytes);
        tc = now_s() - tc;
        if (tc < t_copy)
            t_copy = tc;
        double t0 = now_s();
        for (size_t h = 0; h < H; h++)
            pe_alibi_bias(slopes[h], PE_ALIBI_CAUSAL, pos, T, pos, T, bias + h * n);
        double dt = now_s() - t0;
        if (dt < best)
            best = dt;
        sink += bias[(size_t)r * 7];
    }
    free(src);
    char note[160];
    snprintf(note, sizeof note,
             "%zux%zux%zu f64 causal (%zu MiB, written only): %.1f ms vs memcpy %.1f ms", H, T, T,
             bytes >> 20, best * 1e3, t_copy * 1e3);
    line("alibi_bias", t_copy / best, "x memcpy", note);
    free(bias);
    free(slopes);
    free(pos);
}

/* ---- masked softmax ----------------------------------------------------------------------------
 */

static void bench_softmax(size_t H, size_t T)
{
    size_t n = H * T * T, bytes = n * sizeof(double);
    double *logits = big(bytes), *w = big(bytes);
    for (size_t h = 0; h < H; h++)
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < T; j++)
                logits[(h * T + i) * T + j] =
                    j > i ? PE_MASKED : sin((double)(i * 31 + j * 17 + h)) * 4.0;
    double best = 1e30, t_copy = 1e30;
    for (int r = 0; r < REPS; r++) {
        double tc = now_s();
        memcpy(w, logits, bytes);
        tc = now_s() - tc;
        if (tc < t_copy)
            t_copy = tc;
        double t0 = now_s();
        size_t bad = 0;
        pe_attention_softmax_rows(logits, H * T, T, w, &bad);
        double dt = now_s() - t0;
        if (dt < best)
            best = dt;
        sink += w[(size_t)r * 13];
    }
    char note[160];
    snprintf(note, sizeof note, "%zux%zux%zu f64 causal (%zu MiB): %.1f ms vs memcpy %.1f ms", H, T,
             T, bytes >> 20, best * 1e3, t_copy * 1e3);
    line("softmax_masked", t_copy / best, "x memcpy", note);
    free(logits);
    free(w);
}

/* ---- 10^6 doubles to JSON ---------------------------------------------------------------------
 */

/* Rows of a [*][1000] matrix the caller keeps (like /sinusoidal's rows computed on demand). */
static const double *borrowed_row(void *self, size_t r, double *scratch)
{
    (void)scratch;
    return (const double *)self + r * 1000;
}

/* One run of each writer on x[0..n); each returns seconds and the text length in *len. */
static double json_run_buffer(const double *x, size_t n, size_t *len)
{
    double t0 = now_s();
    wire_jw w;
    wire_jw_init(&w, (size_t)1 << 30);
    wire_jw_doubles(&w, x, n);
    char *text = wire_jw_take(&w, len);
    double dt = now_s() - t0;
    free(text);
    return dt;
}

/* the daemon's path for a large array: deferred into a stream, read 64 KiB at a time */
static double json_run_stream(double *x, size_t n, size_t *len)
{
    static char chunk[65536];
    double t0 = now_s();
    wire_jw w;
    wire_jw_init_mode(&w, (size_t)1 << 30, WIRE_JW_STREAM, NULL);
    wire_rows src = {.rows = n / 1000, .cols = 1000, .row = borrowed_row, .self = x};
    wire_jw_rows(&w, &src);
    wire_stream *st = wire_stream_json(&w);
    size_t k, tot = 0;
    while ((k = wire_stream_read(st, chunk, sizeof chunk)) > 0)
        tot += k;
    wire_stream_free(st);
    double dt = now_s() - t0;
    *len = tot;
    return dt;
}

static double json_run_jansson(const json_t *arr, size_t *len)
{
    double t0 = now_s();
    char *text = json_dumps(arr, JSON_COMPACT);
    double dt = now_s() - t0;
    *len = strlen(text);
    free(text);
    return dt;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The three writers run in turn in every repetition (buffer, stream, jansson), so that a slow
 * stretch of this shared machine hits all of them alike; the figure is the median over
 * JSON_REPS repetitions of jansson's time / ours in the same repetition, and the notes give the
 * best times and the range of the ratio. */
#define JSON_REPS 15

static void bench_json(size_t n)
{
    double *x = big(n * sizeof *x);
    uint64_t s = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) { /* uniform in (-1, 1) with full 53-bit mantissas */
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    }
    json_t *arr = json_array();
    double tb = now_s();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_real(x[i]));
    double t_build = now_s() - tb;
    double rb[JSON_REPS], rs[JSON_REPS];
    double best_b = 1e30, best_s = 1e30, best_j = 1e30;
    size_t len_b = 0, len_s = 0, len_j = 0;
    for (int r = 0; r < JSON_REPS; r++) {
        double tb_ = json_run_buffer(x, n, &len_b);
        double ts_ = json_run_stream(x, n, &len_s);
        double tj_ = json_run_jansson(arr, &len_j);
        rb[r] = tj_ / tb_;
        rs[r] = tj_ / ts_;
        best_b = tb_ < best_b ? tb_ : best_b;
        best_s = ts_ < best_s ? ts_ : best_s;
        best_j = tj_ < best_j ? tj_ : best_j;
    }
    json_decref(arr);
    double mb = median(rb, JSON_REPS), ms = median(rs, JSON_REPS); /* rb, rs now sorted */
    char note[360];
    snprintf(
        note, sizeof note,
        "%zu doubles in (-1,1): wire_jw_doubles into one growing buffer, best %.1f ms (%.1f MB, "
        "shortest) vs jansson json_dumps best %.1f ms (%.1f MB, %%.17g; building its json_t "
        "array took another %.1f ms); ratio median of %d interleaved runs, range %.1f-%.1f",
        n, best_b * 1e3, (double)len_b / 1e6, best_j * 1e3, (double)len_j / 1e6, t_build * 1e3,
        JSON_REPS, rb[0], rb[JSON_REPS - 1]);
    line("json_1e6_doubles", mb, "x jansson", note);
    snprintf(note, sizeof note,
             "the same numbers as 1000 rows of a row source streamed 64 KiB at a time (the "
             "daemon's path for /sinusoidal): best %.1f ms (%.1f MB); ratio median of %d "
             "interleaved runs, range %.1f-%.1f",
             best_s * 1e3, (double)len_s / 1e6, JSON_REPS, rs[0], rs[JSON_REPS - 1]);
    line("json_1e6_streamed", ms, "x jansson", note);
    free(x);
}

/* ---- one small /rope request, in process ----------------------------------------------------
 * What a request costs before HTTP: `request_parse_us` is jansson's json_loadb of the body alone
 * (the daemon parses every body with it, api/api.c), `request_total_us` the whole of
 * api_handle_route (parse, validation, compute, every number formatted into one buffer), so
 * total - parse is posenc's own part. Mean over ITER requests, best of REPS; the cache is warm,
 * as in the daemon under wrk. */
static void bench_request(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "bench_micro: cannot open %s\n", path);
        exit(1);
    }
    static char body[1 << 16];
    size_t len = fread(body, 1, sizeof body, f);
    int bad = ferror(f) || len == sizeof body; /* a read error, or a body this buffer cuts */
    fclose(f);
    if (bad) {
        fprintf(stderr, "bench_micro: cannot read %s whole (at most %zu bytes)\n", path,
                sizeof body - 1);
        exit(1);
    }
    api_limits lim;
    api_limits_default(&lim);
    api_ctx ctx = {&lim, pe_cache_create((size_t)64 << 20, 1u << 20), NULL};
    const api_route *route = &api_route_rope;
    api_opts opts = {.npy = 0, .stream = 1};
    enum { ITER = 4000 };
    double t_total = 1e30, t_parse = 1e30;
    size_t out_len = 0;
    int status = 0;
    for (int r = 0; r < REPS; r++) {
        double t0 = now_s();
        for (int i = 0; i < ITER; i++) {
            api_response out;
            api_handle_route(&ctx, route, body, len, "bench", &opts, &out);
            status = out.status;
            out_len = out.len;
            api_response_free(&out);
        }
        double dt = (now_s() - t0) / ITER;
        if (dt < t_total)
            t_total = dt;
        t0 = now_s();
        for (int i = 0; i < ITER; i++) {
            json_error_t err;
            json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
            sink += j != NULL;
            json_decref(j);
        }
        dt = (now_s() - t0) / ITER;
        if (dt < t_parse)
            t_parse = dt;
    }
    pe_cache_destroy(ctx.cache);
    if (status != 200) {
        fprintf(stderr, "bench_micro: /rope answered %d to %s\n", status, path);
        exit(1);
    }
    char note[200];
    snprintf(note, sizeof note, "jansson json_loadb of the %zu-byte body", len);
    line("request_parse_us", t_parse * 1e6, "us", note);
    snprintf(note, sizeof note,
             "api_handle_route: parse, validate, compute, format (%zu bytes of JSON back)",
             out_len);
    line("request_total_us", t_total * 1e6, "us", note);
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "request") == 0) {
        bench_request(argv[2]);
        return sink == 12345.678 ? 1 : 0;
    }
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    if (argc > 1 && strcmp(argv[1], "rope") == 0) { /* only the RoPE figures, full size */
        bench_rope(4096, 32, 128);
        return sink == 12345.678 ? 1 : 0;
    }
    if (argc > 1 && strcmp(argv[1], "json") == 0) { /* only the number writer, full size */
        bench_json(1000000);
        return sink == 12345.678 ? 1 : 0;
    }
    size_t k = quick ? 4 : 1;
    bench_rope(4096 / k, 32, 128);
    bench_sinusoidal(8192 / k, 1024);
    bench_alibi(32 / k, 2048);
    bench_softmax(k > 1 ? (size_t)2 : (size_t)8, 2048);
    bench_json(1000000 / k);
    return sink == 12345.678 ? 1 : 0;
}
