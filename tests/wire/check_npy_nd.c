/*
 * tests/wire/check_npy_nd.c -- the header of an .npy tensor of 1 to 4 axes
 * (wire_npy_parse_header_nd, wire/tensor_io.h), the first piece of binary q/k (issue 16), and
 * that the table parser built on the same preamble still refuses what it refused.
 * Expected values are read off the headers written here: count = product of the shape,
 * data_bytes = count x 2, 4 or 8, header_len = 64 for a dict of under 53 bytes.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "wire/tensor_io.h"

/* A .npy 1.0 header with dict (padded to 64 bytes with spaces and '\n'); returns its length. */
static size_t header(unsigned char *out, size_t cap, const char *dict)
{
    size_t dl = strlen(dict);
    size_t total = (10 + dl + 1 + 63) / 64 * 64;
    ck_assert_uint_le(total, cap);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)((total - 10) & 0xff);
    out[9] = (unsigned char)((total - 10) >> 8);
    memcpy(out + 10, dict, dl);
    memset(out + 10 + dl, ' ', total - 10 - dl - 1);
    out[total - 1] = '\n';
    return total;
}

static int parse(const char *dict, int bf16, size_t max, wire_npy_nd *info, wire_err *pb)
{
    unsigned char b[256];
    size_t n = header(b, sizeof b, dict);
    wire_err_init(pb);
    return wire_npy_parse_header_nd(b, n, bf16, max, info, pb);
}

START_TEST(test_ranks_and_dtypes)
{
    wire_npy_nd in;
    wire_err pb;
    /* [B, T, H, D] = [1, 2, 3, 4] float32: 24 values, 96 bytes */
    ck_assert_int_eq(parse("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3, 4), }", 0,
                           1 << 20, &in, &pb),
                     1);
    ck_assert_int_eq(in.ndim, 4);
    ck_assert_uint_eq(in.shape[0], 1);
    ck_assert_uint_eq(in.shape[3], 4);
    ck_assert_uint_eq(in.count, 24);
    ck_assert_uint_eq(in.data_bytes, 96);
    ck_assert_uint_eq(in.header_len, 128); /* the dict is 67 bytes: 10 + 67 + 1 > 64 */
    ck_assert_int_eq(in.dtype, WIRE_DT_F32);
    /* [T, H, D] float16, [T, D] float64, [D] */
    ck_assert_int_eq(parse("{'descr': '<f2', 'fortran_order': False, 'shape': (5, 2, 8), }", 0,
                           1 << 20, &in, &pb),
                     1);
    ck_assert_int_eq(in.dtype, WIRE_DT_F16);
    ck_assert_uint_eq(in.data_bytes, 160);
    ck_assert_int_eq(
        parse("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 8), }", 0, 1 << 20, &in, &pb),
        1);
    ck_assert_int_eq(in.ndim, 2);
    ck_assert_uint_eq(in.data_bytes, 192);
    ck_assert_int_eq(
        parse("{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", 0, 1 << 20, &in, &pb),
        1);
    ck_assert_int_eq(in.ndim, 1);
    /* bfloat16 only when said, from a 2-byte descr */
    ck_assert_int_eq(
        parse("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 4), }", 1, 1 << 20, &in, &pb),
        1);
    ck_assert_int_eq(in.dtype, WIRE_DT_BF16);
    ck_assert_uint_eq(in.data_bytes, 16);
    ck_assert_int_eq(
        parse("{'descr': '|V2', 'fortran_order': False, 'shape': (2, 4), }", 1, 1 << 20, &in, &pb),
        1);
}
END_TEST

START_TEST(test_refusals)
{
    static const struct {
        const char *dict;
        int bf16;
        wire_status code;
        const char *needle;
    } C[] = {
        {"{'descr': '<u2', 'fortran_order': False, 'shape': (2, 4), }", 0, WIRE_EINVALID,
         "say dtype \"bfloat16\""},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", 1, WIRE_EINVALID,
         "with dtype bfloat16"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (2, 4), }", 0, WIRE_EINVALID,
         "'<i8' is not supported"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 4), }", 0, WIRE_EINVALID,
         "Fortran order"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 2), }", 0, WIRE_EINVALID,
         "5-D"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 0, WIRE_EINVALID, "0-D"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 0), }", 0, WIRE_EINVALID,
         "axis 1 is 0"},
        /* 1000 x 1000 x 8 bytes = 8,000,000 > 7,999,999 */
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 1000), }", 0, WIRE_ELIMIT,
         "1000000 values"},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        wire_npy_nd in;
        wire_err pb;
        ck_assert_int_eq(parse(C[i].dict, C[i].bf16, 7999999, &in, &pb), -1);
        ck_assert_msg(pb.status == C[i].code && strstr(pb.detail, C[i].needle) != NULL,
                      "case %zu: %d %s", i, (int)pb.status, pb.detail);
    }
}
END_TEST

/* Too short for the whole header: 0 (read more), whatever the cut. */
START_TEST(test_needs_more)
{
    unsigned char b[256];
    size_t n = header(b, sizeof b, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }");
    for (size_t cut = 0; cut < n; cut++) {
        wire_npy_nd in;
        wire_err pb;
        wire_err_init(&pb);
        ck_assert_int_eq(wire_npy_parse_header_nd(b, cut, 0, 1 << 20, &in, &pb), 0);
    }
}
END_TEST

/* The table parser on the shared preamble: a 3-D upload is still its 422. */
START_TEST(test_table_rule_kept)
{
    unsigned char b[256];
    size_t n =
        header(b, sizeof b, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }");
    wire_npy_info info;
    wire_err pb;
    wire_err_init(&pb);
    ck_assert_int_eq(wire_npy_parse_header(b, n, 1 << 20, &info, &pb), -1);
    ck_assert_str_eq(pb.detail, ".npy array is 3-D; a table must be 2-D [positions][dim]");
}
END_TEST

Suite *npy_nd_suite(void);
Suite *npy_nd_suite(void)
{
    Suite *s = suite_create("npy_nd");
    TCase *tc = tcase_create("npy_nd");
    tcase_add_test(tc, test_ranks_and_dtypes);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_needs_more);
    tcase_add_test(tc, test_table_rule_kept);
    suite_add_tcase(s, tc);
    return s;
}
