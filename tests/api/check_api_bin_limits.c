/*
 * tests/api/check_api_bin_limits.c -- what a hostile binary request (api/bin.h) may hold, found by
 * breaking it from outside (issue 16): a .npy header alone reserves none of the spool (the quota
 * follows the bytes written), a failed request gives its reservation back at once (while the
 * client may still be sending), the params part is held to max_parse_bytes as parsed, and a shape
 * past the address space is a 413 like any other shape over max_tensor_bytes.
 */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/bin.h"
#include "tests/lib/api_util.h"
#include "tests/lib/bin_util.h"
#include "wire/multipart.h"
#include "wire/stream.h"

/* The spool reservations asked for: the last total and the largest. */
typedef struct {
    uint64_t last, peak;
} spool_log;

static int log_reserve(void *cls, uint64_t total)
{
    spool_log *s = cls;
    s->last = total;
    if (total > s->peak)
        s->peak = total;
    return 0;
}

/* Closes body b, runs it (.npy answer), expects a problem (status, pointer ptr) and frees b. */
static void expect_problem(bu_body *b, int status, const char *ptr)
{
    bu_end(b);
    bu_opts o = {.npy = 1};
    api_response r = bu_run(b, &o);
    bu_expect_problem(&r, status, ptr);
    api_response_free(&r);
    free(b->buf);
}

/* A binary /rope request spooled to f (a tmpfile), its reservations logged in *log. */
static api_bin *open_bin(FILE *f, spool_log *log)
{
    ck_assert_ptr_nonnull(f);
    api_spool sp = {fileno(f), log_reserve, log, NULL, 0};
    api_bin *bin = api_bin_new(&au_ctx, &api_route_rope, BU_BOUNDARY, &sp, NULL, NULL);
    ck_assert_ptr_nonnull(bin);
    return bin;
}

/* The start of a body: params {} and the part q holding an .npy header of a float64 [rows, cols]
 * tensor, then data bytes of 0.5 (whole values). */
static void header_then(bu_body *b, size_t rows, size_t cols, size_t data)
{
    bu_params(b, "{}");
    char dict[128];
    int k = snprintf(dict, sizeof dict,
                     "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu, %zu), }", rows, cols);
    size_t hl = ((size_t)k + 11 + 63) / 64 * 64; /* magic .. dict .. '\n', padded to 64 */
    unsigned char *f = calloc(1, hl + data);
    ck_assert_ptr_nonnull(f);
    memcpy(f, "\x93NUMPY\x01\x00", 8);
    f[8] = (unsigned char)((hl - 10) & 255);
    f[9] = (unsigned char)((hl - 10) >> 8);
    memset(f + 10, ' ', hl - 11);
    memcpy(f + 10, dict, (size_t)k);
    f[hl - 1] = '\n';
    for (size_t i = 0; i < data / 8; i++)
        memcpy(f + hl + i * 8, &(double){0.5}, 8);
    static const char part[] = "--" BU_BOUNDARY "\r\nContent-Disposition: form-data; "
                               "name=\"q\"\r\n\r\n";
    bu_add(b, part, sizeof part - 1);
    bu_add(b, f, hl + data);
    free(f);
}

/* A header declaring about 1 GB of float64 then 64 bytes of data: the spool is not reserved for
 * what has not arrived (before the fix the header alone reserved all 1 GiB, so a few clients that
 * send headers and then trickle held the whole quota: every binary request 507). */
START_TEST(test_header_reserves_nothing)
{
    bu_body b = {0};
    header_then(&b, 1000000, 128, 64); /* 10^6 rows x 128 x 8 bytes = 1.024 GB declared */
    FILE *f = tmpfile();
    spool_log log = {0, 0};
    api_bin *bin = open_bin(f, &log);
    ck_assert_int_eq(api_bin_feed(bin, b.buf, b.len), 0);
    ck_assert_int_eq(api_bin_failed(bin), 0);
    /* 64 bytes are less than one window (whole rows up to 128 KiB of float64): nothing written
     * (before the fix: 1,024,000,000 reserved) */
    ck_assert_uint_le(log.peak, 64);
    api_bin_free(bin);
    fclose(f);
    free(b.buf);
}
END_TEST

/* 300,000 bytes of data (two whole windows of 131,072 bytes written), then the part ends short
 * of its shape: the request fails, and its reservation (262,144 bytes: the two windows) goes
 * back at once, before the rest of the body (the client may take its time) and api_bin_free. */
START_TEST(test_failure_releases_spool)
{
    bu_body b = {0};
    header_then(&b, 100000, 8, 300000);
    bu_add(&b, "\r\n", 2);
    bu_end(&b);
    FILE *f = tmpfile();
    spool_log log = {0, 0};
    api_bin *bin = open_bin(f, &log);
    size_t first = b.len - 300000 + 262144; /* through the second window */
    ck_assert_int_eq(api_bin_feed(bin, b.buf, first), 0);
    ck_assert_uint_eq(log.last, 262144);
    ck_assert_int_eq(api_bin_feed(bin, b.buf + first, b.len - first), -1); /* ends short */
    ck_assert_uint_eq(log.last, 0);
    ck_assert_uint_eq(log.peak, 262144);
    api_bin_free(bin);
    fclose(f);
    free(b.buf);
}
END_TEST

/* A params part whose parsed form passes max_parse_bytes is a 413 at /params, as the same JSON in
 * a JSON body is (before the fix the binary path parsed it without a cap: 16 MB of params made
 * the daemon's resident memory grow by about 330 MB, outside max_inflight_bytes). */
START_TEST(test_params_parse_cap)
{
    size_t n = 20000, cap = 32 + n * 2;
    char *params = malloc(cap);
    ck_assert_ptr_nonnull(params);
    size_t k = (size_t)snprintf(params, cap, "{\"positions\": [");
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(params + k, cap - k, "%s0", i ? "," : "");
    snprintf(params + k, cap - k, "]}");
    double q[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t s2[2] = {1, 8};
    bu_body b = {0};
    bu_params(&b, params);
    bu_npy(&b, "q", WIRE_DT_F64, s2, 2, q);
    bu_end(&b);
    bu_opts o = {.npy = 1};
    au_lim.max_parse_bytes = 65536; /* 20,000 numbers: about 1 MB as jansson's tree */
    api_response r = bu_run(&b, &o);
    bu_expect_problem(&r, 413, "/params");
    api_response_free(&r);
    au_lim.max_parse_bytes = (size_t)1 << 27; /* the default: then the positions are wrong */
    r = bu_run(&b, &o);
    bu_expect_problem(&r, 422, "/positions");
    api_response_free(&r);
    free(b.buf);
    free(params);
}
END_TEST

/* shape (2^62, 8): more values than a size_t counts in bytes. 413 at /q like (2^40, 8) (before:
 * a 422 "needs more than 18446744073709551615 bytes"). */
START_TEST(test_shape_overflow_413)
{
    bu_body b = {0};
    header_then(&b, (size_t)1 << 62, 8, 0);
    bu_add(&b, "\r\n", 2);
    expect_problem(&b, 413, "/q");
}
END_TEST

/* The answer streams from the spool: what it holds in memory (reserved in max_inflight_bytes while
 * it is sent, server/respond.c) is not its size. Before the fix a custom stream counted twice its
 * size, so every binary answer over max_inflight_bytes / 2 (a 512 MiB upload of q and k) was a
 * 503 overloaded after the whole upload. q [4096, 8] float64: 262,144 bytes of answer. */
START_TEST(test_answer_held_small)
{
    bu_body b = {0};
    header_then(&b, 4096, 8, 4096 * 64);
    bu_add(&b, "\r\n", 2);
    bu_end(&b);
    FILE *f = tmpfile();
    spool_log log = {0, 0};
    api_bin *bin = open_bin(f, &log);
    ck_assert_int_eq(api_bin_feed(bin, b.buf, b.len), 0);
    for (int npy = 0; npy <= 1; npy++) {
        api_opts opts = {.npy = npy, .npz = !npy, .stream = 1};
        api_response r;
        api_bin_run(bin, &opts, "t", &r);
        ck_assert_int_eq(r.status, 200);
        ck_assert_ptr_nonnull(r.stream);
        ck_assert_uint_gt(wire_stream_size(r.stream), 262144);
        ck_assert_uint_lt(api_response_held(&r), 65536);
        api_response_free(&r);
    }
    api_bin_free(bin);
    fclose(f);
    free(b.buf);
}
END_TEST

/* num_heads that disagrees with a rank-4 tensor's heads is a 422 at /q, as for rank 3 (before:
 * ignored, a 200). q [1, 2, 3, 8] bthd: 3 heads; params says 2. */
START_TEST(test_num_heads_rank4)
{
    double q[48] = {0};
    size_t s4[4] = {1, 2, 3, 8};
    bu_body b = {0};
    bu_params(&b, "{\"tensor_layout\": \"bthd\", \"num_heads\": 2}");
    bu_npy(&b, "q", WIRE_DT_F64, s4, 4, q);
    expect_problem(&b, 422, "/q");
}
END_TEST

/* Two boundary parameters: the reader and a proxy in front of it could split the body
 * differently, so the Content-Type is refused (before: the first one was used). */
START_TEST(test_two_boundaries)
{
    char out[WIRE_MP_MAX_BOUNDARY + 1];
    ck_assert_int_eq(
        wire_mp_boundary("multipart/form-data; boundary=a; boundary=b", out, sizeof out), -1);
    ck_assert_int_eq(
        wire_mp_boundary("multipart/form-data; boundary=\"a\"; charset=x", out, sizeof out), 1);
    ck_assert_str_eq(out, "a");
}
END_TEST

/* The plan counts in the memory budget: q [4096, 128] float16 (1 MiB) with include cos_sin holds
 * cos and sin of 4096 x 64 float64 (4 MiB) until its answer is sent; a hold refused above 2 MiB
 * is a 503 (before: the plan was not counted, the window alone fit: a 200). */
START_TEST(test_plan_counts)
{
    size_t T = 4096, D = 128, s2[2] = {4096, 128};
    double *q = calloc(T * D, sizeof *q);
    ck_assert_ptr_nonnull(q);
    bu_body b = {0};
    bu_params(&b, "{\"include\": [\"cos_sin\"]}");
    bu_npy(&b, "q", WIRE_DT_F16, s2, 2, q);
    bu_end(&b);
    bu_opts o = {.npy = 1, .refuse_hold_at = 2 << 20};
    api_response r = bu_run(&b, &o);
    bu_expect_problem(&r, 503, NULL);
    api_response_free(&r);
    o.refuse_hold_at = 8 << 20;
    r = bu_run(&b, &o);
    ck_assert_int_eq(r.status, 200);
    api_response_free(&r);
    free(b.buf);
    free(q);
}
END_TEST

/* A body with LF line ends (a hand-written client): the 400 says so (before: "a delimiter is
 * followed by text (the boundary occurs in the data)"). */
START_TEST(test_lf_only)
{
    bu_body b = {0};
    static const char lf[] =
        "--" BU_BOUNDARY "\nContent-Disposition: form-data; name=\"params\"\n\n"
        "{}\n--" BU_BOUNDARY "--\n";
    bu_add(&b, lf, sizeof lf - 1);
    bu_opts o = {.npy = 1};
    api_response r = bu_run(&b, &o);
    bu_expect_problem(&r, 400, NULL);
    ck_assert_ptr_nonnull(strstr(r.body, "CRLF"));
    api_response_free(&r);
    free(b.buf);
}
END_TEST

/* The spool's file system full (the daemon's kept spool files, outside the quota, may fill a
 * small --spool-dir such as the Kubernetes Deployment's 16 MiB tmpfs /tmp): reclaim is asked to
 * free them and the write is retried, so the request is answered, bit for bit as on a disk with
 * room; when nothing could be freed it stays a 507. The full disk is /dev/full (every write
 * ENOSPC); "freeing" puts a temporary file on the same descriptor. Before the fix a request that
 * the quota took was refused with 507 while idle kept files held the space. */
typedef struct {
    int fd, calls, frees;
} reclaim_log;

static int reclaim_dev_full(void *cls)
{
    reclaim_log *r = cls;
    r->calls++;
    if (!r->frees)
        return 0;
    FILE *t = tmpfile();
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(dup2(fileno(t), r->fd), r->fd);
    fclose(t); /* the file lives on through r->fd */
    return 1;
}

START_TEST(test_disk_full_reclaims)
{
    double q[24];
    for (int i = 0; i < 24; i++)
        q[i] = 0.25 * i - 2.0;
    size_t shape[2] = {3, 8};
    bu_body b = {0};
    bu_params(&b, "{\"positions\": [4, 5, 6]}");
    bu_npy(&b, "q", WIRE_DT_F32, shape, 2, q);
    bu_end(&b);
    bu_opts o = {.npy = 1};
    api_response want = bu_run(&b, &o); /* on a disk with room */
    const unsigned char *wd = bu_npy_data(&want, WIRE_DT_F32, 24);
    api_opts opts = {.npy = 1};
    for (int frees = 1; frees >= 0; frees--) {
        int fd = open("/dev/full", O_RDWR | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        reclaim_log rl = {fd, 0, frees};
        api_spool sp = {fd, NULL, &rl, reclaim_dev_full, 0};
        api_bin *bin = api_bin_new(&au_ctx, &api_route_rope, BU_BOUNDARY, &sp, NULL, NULL);
        ck_assert_ptr_nonnull(bin);
        api_bin_feed(bin, b.buf, b.len);
        api_response r;
        api_bin_run(bin, &opts, "t", &r);
        if (frees) {
            const unsigned char *got = bu_npy_data(&r, WIRE_DT_F32, 24);
            ck_assert(memcmp(got, wd, 24 * 4) == 0);
        } else {
            bu_expect_problem(&r, 507, NULL);
            ck_assert_ptr_nonnull(strstr(r.body, "No space left on device"));
        }
        ck_assert_int_eq(rl.calls, 1);
        api_response_free(&r);
        api_bin_free(bin);
        close(fd);
    }
    api_response_free(&want);
    free(b.buf);
}
END_TEST

Suite *api_bin_limits_suite(void)
{
    Suite *s = suite_create("api_bin_limits");
    TCase *tc = tcase_create("bin_limits");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_header_reserves_nothing);
    tcase_add_test(tc, test_failure_releases_spool);
    tcase_add_test(tc, test_params_parse_cap);
    tcase_add_test(tc, test_shape_overflow_413);
    tcase_add_test(tc, test_answer_held_small);
    tcase_add_test(tc, test_num_heads_rank4);
    tcase_add_test(tc, test_two_boundaries);
    tcase_add_test(tc, test_plan_counts);
    tcase_add_test(tc, test_lf_only);
    tcase_add_test(tc, test_disk_full_reclaims);
    suite_add_tcase(s, tc);
    return s;
}
