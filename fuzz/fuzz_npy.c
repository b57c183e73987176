/*
 * fuzz/fuzz_npy.c -- libFuzzer harness for the .npy parser (wire_npy_parse_header, wire_npy_parse;
 * wire/tensor_io.h). Input: the file bytes; the input length's low bit picks allow_trailing.
 * Checks: header and whole-file parses agree; a success has rows, cols >= 1, rows*cols*8 <=
 * max_table_bytes, only finite values, consumed = header + data <= len (= len without trailing);
 * a failure is a 4xx problem that renders as valid problem+json; every prefix shorter than the
 * header reads as "need more" or an error, never as success; a parsed table written back with
 * wire_npy_header + wire_encode_f64_le parses to the same bits. The tensor header
 * (wire_npy_parse_header_nd, the low bit declaring bfloat16): consistent counts and sizes within
 * the limit, and the same header length and 2 axes wherever the table header parses.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_check.h"
#include "wire/tensor_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TABLE ((size_t)1 << 20)

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz check failed: %s %s\n", what, detail ? detail : "");
    abort();
}

/* A wire error as the daemon answers it (api_problem_from_wire) must be a well-formed 4xx. */
static void check_problem(const wire_err *we)
{
    api_limits lim;
    fz_limits(&lim);
    api_problem pbuf;
    api_problem_init(&pbuf);
    api_problem_from_wire(&pbuf, we);
    const api_problem *pb = &pbuf;
    if (!api_problem_failed(pb))
        die("failure without a problem", NULL);
    int st = api_problem_status(pb->code);
    if (st < 400 || st >= 500)
        die("problem status not 4xx:", pb->detail);
    api_response r;
    api_problem_response(pb, "fuzz", &r);
    char why[512];
    if (fz_check_response(&r, &lim, why, sizeof why) != 0)
        die("problem response:", why);
    api_response_free(&r);
}

static void check_table(const wire_tensor *t, size_t max_table)
{
    if (t->rows < 1 || t->cols < 1 || t->data == NULL)
        die("empty table accepted", NULL);
    if (t->rows > max_table / 8 / t->cols)
        die("table over max_table_bytes accepted", NULL);
    for (size_t i = 0; i < t->rows * t->cols; i++) {
        if (!isfinite(t->data[i]))
            die("non-finite value accepted", NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int trailing = (int)(size & 1);
    wire_err pb;
    wire_err_init(&pb);
    wire_npy_info info;
    memset(&info, 0, sizeof info);
    int hrc = wire_npy_parse_header(data, size, MAX_TABLE, &info, &pb);
    if (hrc < 0)
        check_problem(&pb);
    else if (wire_err_failed(&pb))
        die("header: problem recorded without -1", pb.detail);
    if (hrc == 1) {
        if (info.header_len > size || info.rows < 1 || info.cols < 1 ||
            info.data_bytes != info.rows * info.cols * wire_dtype_size(info.dtype))
            die("header info inconsistent", NULL);
        /* a prefix that cuts the header never parses as a header */
        wire_err p2;
        wire_err_init(&p2);
        wire_npy_info i2;
        if (info.header_len > 0 &&
            wire_npy_parse_header(data, info.header_len - 1, MAX_TABLE, &i2, &p2) == 1)
            die("a cut header parsed", NULL);
    }

    /* the tensor header (issue 16): 1 to 4 axes; bfloat16 declared on odd sizes */
    wire_err_init(&pb);
    wire_npy_nd nd;
    int nrc = wire_npy_parse_header_nd(data, size, trailing, MAX_TABLE, &nd, &pb);
    if (nrc < 0)
        check_problem(&pb);
    else if (wire_err_failed(&pb))
        die("tensor header: problem recorded without -1", pb.detail);
    if (nrc == 1) {
        size_t count = 1;
        for (int i = 0; i < nd.ndim; i++)
            count *= nd.shape[i];
        if (nd.header_len > size || nd.ndim < 1 || nd.ndim > WIRE_NPY_MAX_RANK ||
            count != nd.count || count == 0 || count > MAX_TABLE / 8 ||
            nd.data_bytes != count * wire_dtype_size(nd.dtype) ||
            (nd.dtype == WIRE_DT_BF16) != (trailing == 1))
            die("tensor header info inconsistent", NULL);
        if (hrc == 1 && (nd.ndim != 2 || nd.header_len != info.header_len))
            die("table and tensor headers disagree", NULL);
    }

    wire_err_init(&pb);
    wire_tensor t;
    size_t consumed = 0;
    int rc = wire_npy_parse(data, size, MAX_TABLE, trailing, &t, &consumed, &pb);
    if (rc < 0) {
        check_problem(&pb);
        if (t.data != NULL)
            die("failure left a table", NULL);
        return 0;
    }
    if (hrc != 1)
        die("file parsed but its header did not", NULL);
    check_table(&t, MAX_TABLE);
    if (t.rows != info.rows || t.cols != info.cols || t.dtype != info.dtype)
        die("file and header disagree", NULL);
    if (consumed != info.header_len + info.data_bytes || consumed > size ||
        (!trailing && consumed != size))
        die("consumed wrong", NULL);

    /* round trip through the f64 writer */
    size_t n = t.rows * t.cols;
    size_t total = WIRE_NPY_F64_HEADER_MAX + n * 8;
    unsigned char *buf = malloc(total);
    if (buf == NULL)
        die("oom", NULL);
    size_t hl = wire_npy_header((char *)buf, WIRE_NPY_F64_HEADER_MAX, "<f8",
                                (const size_t[]){t.rows, t.cols}, 2);
    if (hl == 0 || hl % 64 != 0 || hl > WIRE_NPY_F64_HEADER_MAX)
        die("f64 header length", NULL);
    wire_encode_f64_le(t.data, n, buf + hl);
    wire_tensor t2;
    wire_err_init(&pb);
    if (wire_npy_parse(buf, hl + n * 8, MAX_TABLE, 0, &t2, NULL, &pb) != 0)
        die("round trip failed:", pb.detail);
    if (t2.rows != t.rows || t2.cols != t.cols || t2.dtype != WIRE_DT_F64 ||
        memcmp(t2.data, t.data, n * sizeof(double)) != 0)
        die("round trip changed the table", NULL);
    wire_tensor_free(&t2);
    free(buf);
    wire_tensor_free(&t);
    return 0;
}
