/*
 * fuzz/fuzz_table_json.c -- libFuzzer harness for the JSON table body of PUT /tables/{name}
 * (api_table_json_parse, api/table_body.h). Checks: a success has rows, cols >= 1, rows*cols*8 <=
 * max_table_bytes and finite values; a failure is a 400/422 problem that renders as valid
 * problem+json.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/table_body.h"
#include "fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TABLE ((size_t)1 << 20)

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz check failed: %s %s\n", what, detail ? detail : "");
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    api_limits lim;
    fz_limits(&lim);
    lim.max_table_bytes = MAX_TABLE;
    api_problem pb;
    api_problem_init(&pb);
    wire_tensor t;
    int rc = api_table_json_parse((const char *)data, size, &lim, &t, &pb);
    if (rc < 0) {
        int st = api_problem_status(pb.code);
        if (!api_problem_failed(&pb) || (st != 400 && st != 422))
            die("failure without a 400/422 problem", pb.detail);
        api_response r;
        api_problem_response(&pb, "fuzz", &r);
        char why[512];
        if (fz_check_response(&r, &lim, why, sizeof why) != 0)
            die("problem response:", why);
        api_response_free(&r);
        return 0;
    }
    if (t.rows < 1 || t.cols < 1 || t.data == NULL || t.rows > MAX_TABLE / 8 / t.cols)
        die("bad shape accepted", NULL);
    for (size_t i = 0; i < t.rows * t.cols; i++) {
        if (!isfinite(t.data[i]))
            die("non-finite accepted", NULL);
    }
    wire_tensor_free(&t);
    return 0;
}
