/*
 * fuzz/fuzz_safetensors.c -- libFuzzer harness for the .safetensors parsers (wire/tensor_io.h):
 * the one-shot wire_safetensors_parse against the incremental wire_st_* fed in random chunk sizes
 * (1 byte ... the whole rest; the sizes come from a PRNG seeded with a hash of the input, so a
 * crash replays). The wanted tensor is NULL, "a" or "weight" by the input length mod 3.
 * Checks: both paths give the same result (status, table bits, problem code and detail); a
 * success has rows, cols >= 1, rows*cols*8 <= max_table_bytes and finite values; a failure is a
 * 4xx problem that renders as valid problem+json; feeding after a failure keeps failing; once
 * wire_st_done is 1, finishing right there gives the same table as feeding the whole file.
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
#define MAX_HEADER ((size_t)1 << 16)

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

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int same(int rc1, const wire_tensor *a, const wire_err *pa, int rc2, const wire_tensor *b,
                const wire_err *pb)
{
    if (rc1 != rc2)
        return 0;
    if (rc1 < 0)
        return pa->status == pb->status && strcmp(pa->detail, pb->detail) == 0;
    return a->rows == b->rows && a->cols == b->cols && a->dtype == b->dtype &&
           memcmp(a->data, b->data, a->rows * a->cols * sizeof(double)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const WANT[] = {NULL, "a", "weight"};
    const char *want = WANT[size % 3];

    /* one-shot (header cap MAX_HEADER through the incremental API, as the server sets it) */
    wire_st_stream s1;
    if (wire_st_init(&s1, want, MAX_HEADER, MAX_TABLE) != 0)
        die("init", NULL);
    wire_st_feed(&s1, data, size);
    wire_tensor t1;
    wire_err p1;
    wire_err_init(&p1);
    const char *name1 = NULL;
    int rc1 = wire_st_finish(&s1, &t1, &name1, &p1);
    if (rc1 < 0) {
        check_problem(&p1);
    } else {
        if (t1.rows < 1 || t1.cols < 1 || t1.rows > MAX_TABLE / 8 / t1.cols)
            die("bad shape accepted", NULL);
        for (size_t i = 0; i < t1.rows * t1.cols; i++) {
            if (!isfinite(t1.data[i]))
                die("non-finite accepted", NULL);
        }
        if (name1 == NULL || (want && strcmp(name1, want) != 0))
            die("wrong tensor name", NULL);
    }

    /* incremental, random chunks */
    uint64_t seed = 1469598103934665603ULL;
    for (size_t i = 0; i < size; i++)
        seed = (seed ^ data[i]) * 1099511628211ULL;
    wire_st_stream s2;
    if (wire_st_init(&s2, want, MAX_HEADER, MAX_TABLE) != 0)
        die("init", NULL);
    size_t pos = 0;
    int failed = 0, done_checked = 0;
    while (pos < size) {
        uint64_t r = splitmix(&seed);
        size_t rest = size - pos, k;
        switch (r % 4) {
        case 0:
            k = 1;
            break;
        case 1:
            k = 1 + (size_t)((r >> 8) % 16);
            break;
        case 2:
            k = 1 + (size_t)((r >> 8) % 1024);
            break;
        default:
            k = rest;
            break;
        }
        if (k > rest)
            k = rest;
        int f = wire_st_feed(&s2, data + pos, k);
        if (failed && f != -1)
            die("a failed stream recovered", NULL);
        failed = f < 0;
        pos += k;
        if (!done_checked && wire_st_done(&s2)) {
            done_checked = 1;
            /* nothing after the wanted tensor can fail the file */
            if (rc1 != 0)
                die("done, but the whole file failed:", p1.detail);
        }
    }
    wire_tensor t2;
    wire_err p2;
    wire_err_init(&p2);
    int rc2 = wire_st_finish(&s2, &t2, NULL, &p2);
    if (!same(rc1, &t1, &p1, rc2, &t2, &p2)) {
        fprintf(stderr, "one-shot rc %d (%s) vs chunked rc %d (%s)\n", rc1, p1.detail, rc2,
                p2.detail);
        die("one-shot and chunked parses differ", NULL);
    }
    /* a stream stopped as soon as it is done gives the same table */
    if (rc1 == 0) {
        wire_st_stream s3;
        wire_st_init(&s3, want, MAX_HEADER, MAX_TABLE);
        size_t i = 0;
        while (i < size && !wire_st_done(&s3)) {
            size_t k = size - i < 7 ? size - i : 7; /* may run past done: harmless */
            wire_st_feed(&s3, data + i, k);
            i += k;
        }
        wire_tensor t3;
        wire_err p3;
        wire_err_init(&p3);
        int rc3 = wire_st_finish(&s3, &t3, NULL, &p3);
        if (!same(rc1, &t1, &p1, rc3, &t3, &p3))
            die("stopping at done changed the result", p3.detail);
        if (rc3 == 0)
            wire_tensor_free(&t3);
        wire_st_free(&s3);
    }
    if (rc1 == 0)
        wire_tensor_free(&t1);
    if (rc2 == 0)
        wire_tensor_free(&t2);
    wire_st_free(&s1);
    wire_st_free(&s2);
    return 0;
}
