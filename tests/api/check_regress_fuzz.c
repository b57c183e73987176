/*
 * tests/api/check_regress_fuzz.c -- regression tests from fuzz findings (issue 9). Two parts:
 * 1. every input kept under fuzz/regress/<harness>/ (a minimised libFuzzer artifact) is replayed
 *    through the same rules the harness checks (fuzz/fuzz_check.h and the harness's own
 *    invariants), so a finding stays fixed in the plain, ASan (make asan) and valgrind builds;
 * 2. the findings spelled out as requests through api_handle, with the exact expectation.
 * The directory is fuzz/regress relative to the working directory (make check runs from the repo
 * root), or $POSENC_FUZZ_REGRESS.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/rope_config.h"
#include "api/table_body.h"
#include "core/cache.h"
#include "fuzz/fuzz_check.h"
#include "wire/tensor_io.h"

static api_limits lim;
static api_ctx ctx;

static void setup(void)
{
    fz_limits(&lim);
    fz_tables_init();
    ctx.lim = &lim;
    ctx.cache = pe_cache_create((size_t)1 << 20, 4096);
    ctx.tables = &fz_table_source;
    ck_assert_ptr_nonnull(ctx.cache);
}

static void teardown(void)
{
    pe_cache_destroy(ctx.cache);
    ctx.cache = NULL;
}

/* The problem renders as problem+json that fz_check_response accepts; status is 4xx. */
static void assert_problem_ok(const api_problem *pb, const char *file)
{
    ck_assert_msg(api_problem_failed(pb), "%s: failure without a problem", file);
    int st = api_problem_status(pb->code);
    ck_assert_msg(st >= 400 && st < 500, "%s: problem status %d", file, st);
    api_response r;
    api_problem_response(pb, "regress", &r);
    char why[512];
    ck_assert_msg(fz_check_response(&r, &lim, why, sizeof why) == 0, "%s: %s", file, why);
    api_response_free(&r);
}

static void assert_table_ok(const wire_tensor *t, size_t max_table, const char *file)
{
    ck_assert_msg(t->rows >= 1 && t->cols >= 1 && t->rows <= max_table / 8 / t->cols,
                  "%s: bad shape accepted", file);
    for (size_t i = 0; i < t->rows * t->cols; i++)
        ck_assert_msg(isfinite(t->data[i]), "%s: non-finite value accepted", file);
}

/* Default limits with max_table_bytes = max_table (one static copy: tests run one at a time). */
static const api_limits *tlim(size_t max_table)
{
    static api_limits tl;
    api_limits_default(&tl);
    tl.max_table_bytes = max_table;
    return &tl;
}

/* ---- replays, one per harness kind --------------------------------------------------------- */

/* As the handler harnesses do: buffered, streamed and .npy answers (fz_check_route). */
static void replay_route(const api_route *route, const unsigned char *d, size_t n, const char *file)
{
    char why[512];
    ck_assert_msg(fz_check_route(&ctx, route, (const char *)d, n, why, sizeof why, NULL) == 0,
                  "%s: %s", file, why);
}

static void replay_npy(const unsigned char *d, size_t n, const char *file)
{
    api_problem pb;
    api_problem_init(&pb);
    wire_err we;
    wire_err_init(&we);
    wire_tensor t;
    int rc = wire_npy_parse(d, n, (size_t)1 << 20, (int)(n & 1), &t, NULL, &we);
    api_problem_from_wire(&pb, &we);
    if (rc < 0) {
        assert_problem_ok(&pb, file);
        return;
    }
    assert_table_ok(&t, (size_t)1 << 20, file);
    wire_tensor_free(&t);
}

static void replay_table_json(const unsigned char *d, size_t n, const char *file)
{
    api_problem pb;
    api_problem_init(&pb);
    wire_tensor t;
    if (api_table_json_parse((const char *)d, n, tlim((size_t)1 << 20), &t, &pb) < 0) {
        assert_problem_ok(&pb, file);
        return;
    }
    assert_table_ok(&t, (size_t)1 << 20, file);
    wire_tensor_free(&t);
}

/* One-shot and byte-by-byte parses agree (same as fuzz/fuzz_safetensors.c, want by n mod 3). */
static void replay_safetensors(const unsigned char *d, size_t n, const char *file)
{
    static const char *const WANT[] = {NULL, "a", "weight"};
    const char *want = WANT[n % 3];
    wire_tensor t1, t2;
    api_problem p1, p2;
    api_problem_init(&p1);
    api_problem_init(&p2);
    wire_err w1, w2;
    wire_err_init(&w1);
    wire_err_init(&w2);
    wire_st_stream s1, s2;
    ck_assert_int_eq(wire_st_init(&s1, want, (size_t)1 << 16, (size_t)1 << 20), 0);
    ck_assert_int_eq(wire_st_init(&s2, want, (size_t)1 << 16, (size_t)1 << 20), 0);
    wire_st_feed(&s1, d, n);
    for (size_t i = 0; i < n; i++)
        wire_st_feed(&s2, d + i, 1);
    int rc1 = wire_st_finish(&s1, &t1, NULL, &w1);
    int rc2 = wire_st_finish(&s2, &t2, NULL, &w2);
    api_problem_from_wire(&p1, &w1);
    api_problem_from_wire(&p2, &w2);
    ck_assert_msg(rc1 == rc2, "%s: one-shot %d vs chunked %d", file, rc1, rc2);
    if (rc1 < 0) {
        assert_problem_ok(&p1, file);
        ck_assert_str_eq(p1.detail, p2.detail);
    } else {
        assert_table_ok(&t1, (size_t)1 << 20, file);
        ck_assert(t1.rows == t2.rows && t1.cols == t2.cols);
        ck_assert(memcmp(t1.data, t2.data, t1.rows * t1.cols * sizeof(double)) == 0);
        wire_tensor_free(&t1);
        wire_tensor_free(&t2);
    }
    wire_st_free(&s1);
    wire_st_free(&s2);
}

static void replay_rope_config(const unsigned char *d, size_t n, const char *file)
{
    json_error_t err;
    json_t *j = json_loadb((const char *)d, n, JSON_REJECT_DUPLICATES, &err);
    if (j == NULL)
        return;
    if (json_is_object(j)) {
        const json_t *cfg = json_object_get(j, "config");
        if (!json_is_object(cfg))
            cfg = j;
        for (unsigned skip = 0; skip < 32; skip += 31) {
            api_problem pb;
            api_problem_init(&pb);
            api_rc_warnings w;
            memset(&w, 0, sizeof w);
            api_rope_config out;
            int rc = api_rope_config_resolve(&pb, cfg, "/config", skip, &out, &w);
            ck_assert_msg((rc == 0) == !api_problem_failed(&pb), "%s: rc vs problem", file);
            if (rc < 0)
                assert_problem_ok(&pb, file);
        }
    }
    json_decref(j);
}

typedef struct {
    const char *dir;
    const api_route *route; /* a compute operation, or NULL: replay */
    void (*replay)(const unsigned char *, size_t, const char *);
} harness;

static const harness HARNESSES[] = {
    {"sinusoidal", &api_route_sinusoidal, NULL},
    {"rope", &api_route_rope, NULL},
    {"alibi", &api_route_alibi, NULL},
    {"attention", &api_route_attention, NULL},
    {"t5_buckets", &api_route_t5_buckets, NULL},
    {"learned", &api_route_learned, NULL},
    {"npy", NULL, replay_npy},
    {"table_json", NULL, replay_table_json},
    {"safetensors", NULL, replay_safetensors},
    {"rope_config", NULL, replay_rope_config},
};

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, len = 0;
    unsigned char *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            unsigned char *nb = realloc(b, cap * 2);
            if (nb == NULL) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *n = len;
    return b;
}

/* Every file under fuzz/regress/<harness>/ replays cleanly; there is at least one file. */
START_TEST(test_replay_regress_dir)
{
    const char *root = getenv("POSENC_FUZZ_REGRESS");
    if (root == NULL)
        root = "fuzz/regress";
    size_t replayed = 0;
    for (size_t i = 0; i < sizeof HARNESSES / sizeof HARNESSES[0]; i++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", root, HARNESSES[i].dir);
        DIR *dp = opendir(dir);
        if (dp == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(dp)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            size_t n = 0;
            unsigned char *d = read_all(path, &n);
            ck_assert_msg(d != NULL, "cannot read %s", path);
            if (HARNESSES[i].route)
                replay_route(HARNESSES[i].route, d, n, path);
            else
                HARNESSES[i].replay(d, n, path);
            free(d);
            replayed++;
        }
        closedir(dp);
    }
    /* 4 findings were kept when this test was written (npy, table_json, safetensors, attention) */
    ck_assert_msg(replayed >= 4, "only %zu inputs under %s (run from the repo root)", replayed,
                  root);
}
END_TEST

/* ---- the findings as explicit requests -------------------------------------------------- */

static json_t *handle_json(api_handler h, const char *body, size_t len, api_response *r)
{
    memset(r, 0, sizeof *r);
    api_handle(&ctx, h, body, len, "regress", r);
    json_error_t err;
    json_t *j = json_loadb(r->body, r->len, 0, &err);
    ck_assert_msg(j != NULL, "status %d body is not JSON (%s): %s", r->status, err.text, r->body);
    return j;
}

/*
 * Finding 1 (fuzz_table_json, then every handler): a malformed body with a byte that is not
 * UTF-8 inside the quoted context jansson echoes ("invalid escape near '"\<0xCA>'") gave a 400
 * whose body was not valid UTF-8, i.e. not JSON. Fix: wire/jw.c writes ill-formed bytes as U+FFFD.
 */
START_TEST(test_malformed_json_with_invalid_utf8_is_valid_problem)
{
    static const char body[] = "{\"\\\xca\x99V\x02\x10"
                               "b\0\0a],]}";
    static const api_handler hs[] = {api_sinusoidal, api_rope,       api_alibi,
                                     api_attention,  api_t5_buckets, api_learned};
    for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) {
        api_response r;
        json_t *j = handle_json(hs[i], body, sizeof body - 1, &r);
        ck_assert_int_eq(r.status, 400);
        ck_assert_str_eq(r.content_type, "application/problem+json");
        ck_assert_str_eq(json_string_value(json_object_get(j, "type")),
                         "urn:posenc:problem:malformed-json");
        /* the bad byte 0xCA is replaced by U+FFFD (UTF-8 EF BF BD) */
        ck_assert_ptr_nonnull(
            strstr(json_string_value(json_object_get(j, "detail")), "\xef\xbf\xbd"));
        json_decref(j);
        api_response_free(&r);
    }
}
END_TEST

/*
 * Finding 1 again, through truncation: an unknown field whose name is 100 two-byte characters
 * (200 bytes) is cut to fit api_field_error.pointer (160 bytes) and the message; the cut used to
 * fall inside a character. The 422 must stay valid JSON and still name the field.
 */
START_TEST(test_unknown_field_cut_inside_a_character)
{
    char body[512];
    size_t k = 0;
    body[k++] = '{';
    body[k++] = '"';
    body[k++] = 'x'; /* odd offset: the pointer "/x\xc3\xa9..." is cut at an odd byte */
    for (int i = 0; i < 100; i++) {
        body[k++] = (char)0xc3;
        body[k++] = (char)0xa9; /* e-acute */
    }
    static const char tail[] = "\":1,\"d_model\":4,\"seq_len\":1}";
    memcpy(body + k, tail, sizeof tail - 1);
    k += sizeof tail - 1;
    api_response r;
    json_t *j = handle_json(api_sinusoidal, body, k, &r);
    ck_assert_int_eq(r.status, 422);
    const json_t *e0 = json_array_get(json_object_get(j, "errors"), 0);
    const char *ptr = json_string_value(json_object_get(e0, "pointer"));
    ck_assert_ptr_nonnull(ptr);
    ck_assert(strncmp(ptr, "/x\xc3\xa9\xc3\xa9", 6) == 0);
    json_decref(j);
    api_response_free(&r);
}
END_TEST

/* wire_jw_str: well-formed UTF-8 passes through; each ill-formed byte becomes one U+FFFD (RFC 3629
 * table 3-7: overlong C0 80, surrogate ED A0 80, F5, a lone continuation 80, a cut E2 82). */
START_TEST(test_jw_str_replaces_ill_formed_utf8)
{
    static const struct {
        const char *in, *out;
    } CASES[] = {
        {"a\xc3\xa9"
         "b",
         "\"a\xc3\xa9"
         "b\""},
        {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},
        {"\xc0\x80", "\"\\ufffd\\ufffd\""},
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},
        {"\xf5", "\"\\ufffd\""},
        {"\x80x", "\"\\ufffdx\""},
        {"\xe2\x82", "\"\\ufffd\\ufffd\""},
        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        wire_jw w;
        wire_jw_init(&w, 1024);
        wire_jw_str(&w, CASES[i].in);
        size_t len = 0;
        char *s = wire_jw_take(&w, &len);
        ck_assert_ptr_nonnull(s);
        ck_assert_str_eq(s, CASES[i].out);
        free(s);
    }
}
END_TEST

/*
 * Finding 2 (fuzz_safetensors; wire/tensor_io_st.c st_header_done): when the chosen tensor's
 * data_offsets span the wrong number of bytes, the 422 message printed chosen.dtype, a string
 * owned by the header's JSON, after json_decref(h) had freed it (heap-use-after-free; ASan and
 * valgrind flag it, the plain build may print garbage). Tensor "a" [2, 1] F32 spans 16 bytes,
 * needs 8.
 */
START_TEST(test_safetensors_span_mismatch_names_dtype)
{
    static const char hdr[] = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2,1],\"data_offsets\":[0,16]}}";
    unsigned char file[8 + sizeof hdr - 1 + 16];
    size_t hl = sizeof hdr - 1;
    memset(file, 0, sizeof file);
    for (int i = 0; i < 8; i++)
        file[i] = (unsigned char)((uint64_t)hl >> (8 * i));
    memcpy(file + 8, hdr, hl);
    wire_tensor t;
    api_problem pb;
    api_problem_init(&pb);
    wire_err we;
    wire_err_init(&we);
    int rc = wire_safetensors_parse(file, sizeof file, "a", (size_t)1 << 20, &t, &we);
    api_problem_from_wire(&pb, &we);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(api_problem_status(pb.code), 422);
    ck_assert_msg(strstr(pb.detail, "spans 16 bytes") != NULL, "%s", pb.detail);
    ck_assert_msg(strstr(pb.detail, "F32 needs 8") != NULL, "%s", pb.detail);
}
END_TEST

/*
 * Finding 3 (fuzz_attention): /attention with method rope and a q (or k) value of 1e20 answered
 * 503 "out of memory". api/attention_rope.c runs api_rope, then re-parses its JSON text with
 * json_loadb; wire/jw.c writes the integral double 1e20 as "100000000000000000000" (ECMAScript
 * style, valid JSON), which jansson refuses ("too big integer"), and every parse failure was
 * reported as out of memory. At position 0 the rotation is the identity, so the result is finite:
 * the answer must be 200 with the score 1e20 * 1 * scale = 5e19 (one head: scores is [t][t]; scale
 * = 1/sqrt(head_dim 4) = 0.5, as {"q":[[2,0,0,0]],"k":[[1,0,0,0]],"method":"rope"} gives 1).
 */
START_TEST(test_attention_rope_huge_integral_value)
{
    static const char body[] = "{\"q\":[[1e20,0,0,0]],\"k\":[[1,0,0,0]],\"method\":\"rope\"}";
    api_response r;
    memset(&r, 0, sizeof r);
    api_handle(&ctx, api_attention, body, sizeof body - 1, "regress", &r);
    ck_assert_msg(r.status == 200, "status %d: %s", r.status, r.body);
    json_error_t err;
    json_t *j = json_loadb(r.body, r.len, JSON_DECODE_INT_AS_REAL, &err);
    ck_assert_ptr_nonnull(j);
    const json_t *s00 = json_array_get(json_array_get(json_object_get(j, "scores"), 0), 0);
    ck_assert_msg(fabs(json_number_value(s00) - 5e19) <= 5e19 * 1e-15, "score %.17g",
                  json_number_value(s00)); /* tolerance: 1e-15 relative */
    json_decref(j);
    api_response_free(&r);
}
END_TEST

/*
 * Finding 4 (fuzz_rope, issue 16's .npz checks): /rope with multi-axis type mixed (no inv_freq) and
 * neither q, k nor include answered JSON 200 but .npy 500 "this response has no array": no key of
 * the .npy list was in the answer. axis_freqs ([A][n], every multi-axis answer has it) is now the
 * last choice: .npy 200 with X-Posenc-Array axis_freqs, values = the request's freqs (mixed takes
 * them as given): A = 2 axes, n = head_dim 8 / 2 = 4.
 */
START_TEST(test_rope_mixed_npy_has_an_array)
{
    static const char body[] =
        "{\"head_dim\":8,\"axes\":{\"type\":\"mixed\",\"freqs\":[[0.5,0.25,0.125,0.0625],"
        "[1,0.75,0.5,0.25]]},\"positions\":[[0,0],[1,2]]}";
    api_opts o = {.npy = 1};
    api_response r;
    memset(&r, 0, sizeof r);
    api_handle_route(&ctx, &api_route_rope, body, sizeof body - 1, "regress", &o, &r);
    ck_assert_msg(r.status == 200, "status %d: %s", r.status, r.body);
    ck_assert_str_eq(r.npy_array, "axis_freqs");
    ck_assert_uint_eq(r.len, 128 + 2 * 4 * 8); /* header (2, 4) + 8 float64 */
    double v[8];
    memcpy(v, r.body + 128, sizeof v);
    ck_assert_double_eq(v[0], 0.5);
    ck_assert_double_eq(v[3], 0.0625);
    ck_assert_double_eq(v[5], 0.75);
    api_response_free(&r);
}
END_TEST

Suite *regress_fuzz_suite(void)
{
    Suite *s = suite_create("regress_fuzz");
    TCase *tc = tcase_create("replay");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_replay_regress_dir);
    suite_add_tcase(s, tc);
    tc = tcase_create("findings");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_malformed_json_with_invalid_utf8_is_valid_problem);
    tcase_add_test(tc, test_unknown_field_cut_inside_a_character);
    tcase_add_test(tc, test_jw_str_replaces_ill_formed_utf8);
    tcase_add_test(tc, test_safetensors_span_mismatch_names_dtype);
    tcase_add_test(tc, test_attention_rope_huge_integral_value);
    tcase_add_test(tc, test_rope_mixed_npy_has_an_array);
    suite_add_tcase(s, tc);
    return s;
}
