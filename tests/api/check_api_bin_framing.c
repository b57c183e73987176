/*
 * tests/api/check_api_bin_framing.c -- where a binary request's .npy part ends (api/bin.h over
 * wire/multipart.h): at the first delimiter, as RFC 2046 says, whatever its .npy header declares.
 * Data that holds the boundary text (without the CRLF "--" before it) or a delimiter cut short
 * passes through byte for byte, however the body is cut into pieces (a delimiter split across
 * reads at every point); a delimiter inside the declared data ends the part early (422 naming
 * the part); a part with fewer or more bytes than its header's shape is a 422 naming the part.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bin.h"
#include "tests/lib/api_util.h"
#include "tests/lib/bin_util.h"

#define T 4
#define D 8

/* q's float64 data (T x D values, 256 bytes) with the texts texts[0..n) planted at 8-byte-
 * misaligned offsets 3, 45, 90, ...; the other bytes 0x3f (each value near 0.49, finite and not
 * zero: at position 0 the rotation is then exact, x cos 0 - y sin 0 = x bit for bit). */
static void planted(double *q, const char *const *texts, size_t n)
{
    unsigned char bytes[T * D * 8];
    memset(bytes, 0x3f, sizeof bytes);
    for (size_t i = 0; i < n; i++)
        memcpy(bytes + 3 + 42 * i, texts[i], strlen(texts[i]));
    memcpy(q, bytes, sizeof bytes);
    for (size_t i = 0; i < T * D; i++) /* the ASCII texts make no Inf, NaN or zero */
        ck_assert(isfinite(q[i]) && q[i] != 0);
}

/* A body: params with positions all 0, then q [T, D] float64 of q. */
static void body_of(bu_body *b, const double *q)
{
    size_t shape[2] = {T, D};
    bu_params(b, "{\"positions\": [0, 0, 0, 0]}");
    bu_npy(b, "q", WIRE_DT_F64, shape, 2, q);
    bu_end(b);
}

/* q's data holds the boundary bare, after "--", after LF "--" (and "--" after it), the delimiter
 * without its last byte, and CRs and LFs around a "-": the answer at positions 0 is q itself,
 * whole, for the body fed at once and in pieces of 1 to 40 bytes (which splits each planted text,
 * and the real delimiters, at every point). */
START_TEST(test_boundary_text_in_data)
{
    const char *use[] = {BU_BOUNDARY, "--" BU_BOUNDARY, "\n--" BU_BOUNDARY "--", "\r\n--b0und-ar",
                         "\r\r\n-\r\n--"};
    double q[T * D];
    planted(q, use, sizeof use / sizeof use[0]);
    bu_body b = {0};
    body_of(&b, q);
    for (size_t piece = 0; piece <= 40; piece++) {
        bu_opts o = {.piece = piece, .npy = 1};
        api_response r = bu_run(&b, &o);
        const unsigned char *got = bu_npy_data(&r, WIRE_DT_F64, T * D);
        ck_assert_msg(memcmp(got, q, sizeof q) == 0, "pieces of %zu bytes", piece);
        api_response_free(&r);
    }
    free(b.buf);
}
END_TEST

/* The whole delimiter inside q's declared data, 3 bytes into it: q ends there (RFC 2046), after
 * 3 of the 256 data bytes its header declares: 422 at /q, fed at once and in pieces of 5 (the
 * delimiter split across them). */
START_TEST(test_delimiter_in_data_ends_part)
{
    const char *use[] = {"\r\n--" BU_BOUNDARY};
    double q[T * D];
    planted(q, use, 1);
    bu_body b = {0};
    body_of(&b, q);
    for (size_t piece = 0; piece <= 5; piece += 5) {
        bu_opts o = {.piece = piece, .npy = 1};
        api_response r = bu_run(&b, &o);
        bu_expect_problem(&r, 422, "/q");
        ck_assert_msg(strstr(r.body, "ends after 3 of the 256 data bytes") != NULL, "%s", r.body);
        api_response_free(&r);
    }
    free(b.buf);
}
END_TEST

/* q's header says [4, 8] float64 (256 bytes); the part holds 248 (one value short) or 264 (one
 * value more): 422 at /q, each with its own words. */
START_TEST(test_short_and_long)
{
    double q[T * D + 1];
    for (size_t i = 0; i <= T * D; i++)
        q[i] = 0.5 + (double)i;
    static const int delta[] = {-8, 8};
    static const char *const words[] = {"ends after 248 of the 256 data bytes",
                                        "holds more bytes than its .npy header's shape"};
    for (int c = 0; c < 2; c++) {
        bu_body b = {0};
        bu_params(&b, "{}");
        size_t shape[2] = {T, D};
        char hdr[WIRE_NPY_HEADER_MAX];
        size_t hl = wire_npy_header(hdr, sizeof hdr, "<f8", shape, 2);
        unsigned char part[WIRE_NPY_HEADER_MAX + sizeof q];
        memcpy(part, hdr, hl);
        memcpy(part + hl, q, sizeof q);
        bu_part(&b, "q", part, (size_t)((int)(hl + T * D * 8) + delta[c]));
        bu_end(&b);
        for (size_t piece = 0; piece <= 9; piece += 9) {
            bu_opts o = {.piece = piece, .npy = 1};
            api_response r = bu_run(&b, &o);
            bu_expect_problem(&r, 422, "/q");
            ck_assert_msg(strstr(r.body, words[c]) != NULL, "%s", r.body);
            api_response_free(&r);
        }
        free(b.buf);
    }
}
END_TEST

Suite *api_bin_framing_suite(void)
{
    Suite *s = suite_create("api_bin_framing");
    TCase *tc = tcase_create("bin_framing");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_boundary_text_in_data);
    tcase_add_test(tc, test_delimiter_in_data_ends_part);
    tcase_add_test(tc, test_short_and_long);
    suite_add_tcase(s, tc);
    return s;
}
