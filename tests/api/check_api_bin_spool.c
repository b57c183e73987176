/*
 * tests/api/check_api_bin_spool.c -- the .npz answer of a binary request laid out in its spool
 * file (api/bin_answer.c): the tensors' members are placed as their headers arrive, their CRC-32s
 * summed window by window, the rotated data written in whole pages (a carry between windows), and
 * the answer is one range of the file. Here, on q and k of [600, 64] float32 (three windows each:
 * 256 + 256 + 88 rows of 64 values; k's data not on a page):
 *  - every CRC-32 and offset of the archive checks out against its bytes (local headers, data
 *    descriptors, central directory), fed whole and in pieces of 997 bytes;
 *  - k sent before q (k's member then copied after q's) answers the same bytes as q first;
 *  - ?array= choosing members that are not laid out in a row answers what a request of those
 *    members alone answers.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/api_util.h"
#include "tests/lib/bin_util.h"
#include "wire/crc32.h"

#define T 600
#define D 64

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned le16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* A body: params, then the parts named in order ("qk", "kq", "q", "k"); q[i] = 0.001 (i mod 977)
 * - 0.4, k[i] = 0.5 - 0.002 (i mod 499): values of both signs, q and k unlike. */
static bu_body make_body(const char *order, const char *params)
{
    static double q[T * D], k[T * D];
    for (size_t i = 0; i < T * D; i++) {
        q[i] = 0.001 * (double)(i % 977) - 0.4;
        k[i] = 0.5 - 0.002 * (double)(i % 499);
    }
    static const size_t shape[2] = {T, D};
    bu_body b = {0};
    bu_params(&b, params);
    for (const char *c = order; *c; c++)
        bu_npy(&b, *c == 'q' ? "q" : "k", WIRE_DT_F32, shape, 2, *c == 'q' ? q : k);
    bu_end(&b);
    return b;
}

/* Runs b (.npz, ?array=array, fed in pieces of piece bytes) and returns the 200 answer. */
static api_response run(const bu_body *b, const char *array, size_t piece)
{
    bu_opts o = {.piece = piece, .array = array};
    api_response r = bu_run(b, &o);
    ck_assert_msg(r.status == 200, "status %d: %.*s", r.status, (int)r.len, r.body ? r.body : "");
    ck_assert_str_eq(r.content_type, "application/x-npz");
    return r;
}

/* Checks archive z (n bytes, no ZIP64): the end record, then for every central directory entry
 * its local header's name, the CRC-32 of its data (computed here) in the directory and in the
 * data descriptor after the data. Returns the number of members. */
static unsigned check_zip(const unsigned char *z, size_t n)
{
    ck_assert_uint_ge(n, 22);
    const unsigned char *end = z + n - 22;
    ck_assert_uint_eq(le32(end), 0x06054b50u);
    unsigned entries = le16(end + 10);
    size_t cd = le32(end + 16), at = cd;
    ck_assert_uint_eq(cd + le32(end + 12), n - 22); /* the directory ends at the end record */
    for (unsigned e = 0; e < entries; e++) {
        const unsigned char *c = z + at;
        ck_assert_uint_eq(le32(c), 0x02014b50u);
        uint32_t crc = le32(c + 16), size = le32(c + 20);
        unsigned nl = le16(c + 28), el = le16(c + 30), cl = le16(c + 32);
        size_t local = le32(c + 42);
        const unsigned char *l = z + local;
        ck_assert_uint_eq(le32(l), 0x04034b50u);
        ck_assert_uint_eq(le16(l + 26), nl);
        ck_assert(memcmp(l + 30, c + 46, nl) == 0);
        const unsigned char *data = l + 30 + nl + le16(l + 28);
        ck_assert_uint_le((size_t)(data - z) + size + 16, cd);
        ck_assert_uint_eq(wire_crc32(0, data, size), crc);
        ck_assert_uint_eq(le32(data + size), 0x08074b50u);
        ck_assert_uint_eq(le32(data + size + 4), crc);
        ck_assert_uint_eq(le32(data + size + 8), size);
        at += 46 + nl + el + cl;
    }
    ck_assert_uint_eq(at, n - 22);
    return entries;
}

START_TEST(test_zip_checks_out)
{
    bu_body b = make_body("qk", "{\"include\": [\"cos_sin\"]}");
    api_response whole = run(&b, NULL, 0), pieces = run(&b, NULL, 997);
    ck_assert_uint_eq(check_zip((const unsigned char *)whole.body, whole.len), 4);
    ck_assert_uint_eq(whole.len, pieces.len);
    ck_assert(memcmp(whole.body, pieces.body, whole.len) == 0);
    api_response_free(&whole);
    api_response_free(&pieces);
    free(b.buf);
}
END_TEST

START_TEST(test_k_before_q)
{
    const char *params[2] = {"{}", "{\"include\": [\"cos_sin\"]}"};
    for (int i = 0; i < 2; i++) {
        bu_body qk = make_body("qk", params[i]), kq = make_body("kq", params[i]);
        api_response a = run(&qk, NULL, 0), c = run(&kq, NULL, 4096);
        ck_assert_uint_eq(check_zip((const unsigned char *)c.body, c.len), i ? 4 : 2);
        ck_assert_uint_eq(a.len, c.len);
        ck_assert_msg(memcmp(a.body, c.body, a.len) == 0, "params %s", params[i]);
        api_response_free(&a);
        api_response_free(&c);
        free(qk.buf);
        free(kq.buf);
    }
}
END_TEST

/* ?array= against a request of the chosen tensors alone (its default answer, all it has). */
static void expect_alone(const char *order, const char *array, const char *alone,
                         const char *params)
{
    bu_body both = make_body(order, params), one = make_body(alone, params);
    api_response a = run(&both, array, 0), o = run(&one, NULL, 0);
    check_zip((const unsigned char *)a.body, a.len);
    ck_assert_uint_eq(a.len, o.len);
    ck_assert_msg(memcmp(a.body, o.body, a.len) == 0, "%s ?array=%s", order, array);
    api_response_free(&a);
    api_response_free(&o);
    free(both.buf);
    free(one.buf);
}

START_TEST(test_array_choice)
{
    expect_alone("qk", "q_rotated", "q", "{}");      /* cut before k's member */
    expect_alone("kq", "k_rotated", "k", "{}");      /* k laid first */
    expect_alone("kq", "q_rotated", "q", "{}");      /* q laid after k */
    expect_alone("qk", "k_rotated", "k", "{}");      /* k laid after q */
    const char *cs = "{\"include\": [\"cos_sin\"]}"; /* cos / sin written over k's member */
    expect_alone("qk", "sin,cos,q_rotated", "q", cs);
}
END_TEST

Suite *api_bin_spool_suite(void);
Suite *api_bin_spool_suite(void)
{
    Suite *s = suite_create("api_bin_spool");
    TCase *tc = tcase_create("spool");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_zip_checks_out);
    tcase_add_test(tc, test_k_before_q);
    tcase_add_test(tc, test_array_choice);
    suite_add_tcase(s, tc);
    return s;
}
