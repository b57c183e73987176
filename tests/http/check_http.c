/*
 * tests/http/check_http.c -- integration: a real posencd on an ephemeral loopback port, spoken to
 * over HTTP with libcurl. Bad input of every kind gets the right status and a problem+json body,
 * the lesson's numbers come back over the wire, and afterwards the server still answers correctly.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/http_util.h"

static th_server srv;

static void start(void)
{
    /* A small body cap keeps the 413 tests cheap. */
    static const char *const args[] = {
        "--max-body-bytes", "65536",     "--web-dir", "web", "--spec",
        "openapi.yaml",     "--threads", "2",         NULL};
    ck_assert_int_eq(th_server_start(&srv, args), 0);
}

static void stop(void)
{
    th_server_stop(&srv);
}

/* Parses r's body as JSON (test fails if it is not). */
static json_t *body_json(const th_resp *r)
{
    json_error_t e;
    json_t *j = json_loads(r->body, 0, &e);
    ck_assert_msg(j != NULL, "body is not JSON: %s", r->body);
    return j;
}

/* Asserts a problem+json response with the status and, when ptr != NULL, an errors[0].pointer. */
static void expect_problem(const char *path, const char *body, long status, const char *ptr)
{
    th_resp r;
    ck_assert_int_eq(th_post(&srv, path, body, &r), 0);
    ck_assert_msg(r.status == status, "%s %s: status %ld, want %ld: %s", path, body, r.status,
                  status, r.body);
    ck_assert_msg(strstr(r.headers, "application/problem+json") != NULL, "not problem+json");
    json_t *j = body_json(&r);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), status);
    ck_assert_ptr_nonnull(json_string_value(json_object_get(j, "type")));
    if (ptr) {
        json_t *e0 = json_array_get(json_object_get(j, "errors"), 0);
        const char *got = json_string_value(json_object_get(e0, "pointer"));
        ck_assert_msg(got && strcmp(got, ptr) == 0, "%s: pointer %s, want %s (%s)", body,
                      got ? got : "(none)", ptr, r.body);
    }
    json_decref(j);
    th_resp_free(&r);
}

static double num_at(json_t *j, const char *key, size_t i, size_t k)
{
    json_t *a = json_object_get(j, key);
    json_t *v = json_array_get(a, i);
    if (json_is_array(v))
        v = json_array_get(v, k);
    ck_assert_msg(json_is_number(v), "%s[%zu][%zu] is not a number", key, i, k);
    return json_number_value(v);
}

START_TEST(test_malformed_json)
{
    th_resp r;
    ck_assert_int_eq(th_post(&srv, "/sinusoidal", "{\"d_model\": 4,\n \"seq_len\": }", &r), 0);
    ck_assert_int_eq(r.status, 400);
    /* jansson reports line 2 for the stray '}' */
    ck_assert_msg(strstr(r.body, "line 2") != NULL && strstr(r.body, "column") != NULL, "%s",
                  r.body);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_bad_fields)
{
    expect_problem("/sinusoidal", "{\"d_model\": \"8\", \"seq_len\": 2}", 422, "/d_model");
    expect_problem("/sinusoidal", "{\"d_model\": 4.5, \"seq_len\": 2}", 422, "/d_model");
    expect_problem("/sinusoidal", "{\"seq_len\": 2}", 422, "/d_model");
    expect_problem("/sinusoidal", "{\"d_model\": 0, \"seq_len\": 2}", 422, "/d_model");
    expect_problem("/sinusoidal", "{\"d_model\": -4, \"seq_len\": 2}", 422, "/d_model");
    expect_problem("/sinusoidal", "{\"d_model\": 4, \"seq_len\": 2, \"colour\": 1}", 422,
                   "/colour");
    expect_problem("/sinusoidal", "{\"d_model\": 4, \"positions\": [-1]}", 422, "/positions/0");
    expect_problem("/rope", "{\"head_dim\": 7, \"positions\": [1]}", 422, "/head_dim");
    expect_problem("/rope", "{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"factr\": 2}}",
                   422, "/scaling/factr");
    expect_problem("/alibi", "{\"num_heads\": 0, \"seq_len\": 4}", 422, "/num_heads");
    expect_problem("/attention", "{\"method\": \"nope\", \"q\": [[1]], \"k\": [[1]]}", 422,
                   "/method");
    /* top level must be an object */
    expect_problem("/rope", "[1, 2]", 422, "");
}
END_TEST

START_TEST(test_limits)
{
    /* max_dim is 65536 by default */
    expect_problem("/sinusoidal", "{\"d_model\": 100000, \"seq_len\": 1}", 422, "/d_model");
    /* 2,000,000 positions exceed max_positions (1,000,000) */
    expect_problem("/sinusoidal", "{\"d_model\": 2, \"seq_len\": 2000000}", 422, "/seq_len");
    /* 4096 x 2048 = 8,388,608 numbers exceed max_output_elements (4,194,304) */
    th_resp r;
    ck_assert_int_eq(th_post(&srv, "/sinusoidal", "{\"d_model\": 2048, \"seq_len\": 4096}", &r), 0);
    ck_assert_int_eq(r.status, 422);
    ck_assert_msg(strstr(r.body, "max_output_elements") != NULL, "%s", r.body);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_nonfinite_rejected)
{
    /* q·k = 1e200 * 1e200 overflows to infinity: never NaN or Infinity in the output. */
    th_resp r;
    ck_assert_int_eq(th_post(&srv, "/attention",
                             "{\"method\": \"none\", \"q\": [[1e200]], \"k\": [[1e200]]}", &r),
                     0);
    ck_assert_msg(r.status == 422, "status %ld: %s", r.status, r.body);
    ck_assert(strstr(r.body, "NaN") == NULL && strstr(r.body, "Infinity") == NULL);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_http_errors)
{
    th_resp r;
    /* 415: wrong content type */
    ck_assert_int_eq(th_request(&srv, "POST", "/rope", "text/plain", "{}", 2, 0, &r), 0);
    ck_assert_int_eq(r.status, 415);
    th_resp_free(&r);
    /* charset=utf-8 is fine */
    ck_assert_int_eq(th_request(&srv, "POST", "/sinusoidal", "application/json; charset=utf-8",
                                "{\"d_model\":2,\"positions\":[0]}", 29, 0, &r),
                     0);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    /* 404 and 405 with Allow */
    ck_assert_int_eq(th_request(&srv, "POST", "/nope", "application/json", "{}", 2, 0, &r), 0);
    ck_assert_int_eq(r.status, 404);
    th_resp_free(&r);
    ck_assert_int_eq(th_request(&srv, "GET", "/rope", NULL, NULL, 0, 0, &r), 0);
    ck_assert_int_eq(r.status, 405);
    ck_assert_msg(strstr(r.headers, "Allow: POST") != NULL, "%s", r.headers);
    th_resp_free(&r);
    /* 413: a declared length over the 64 KiB cap of this test server */
    size_t big = 100000;
    char *body = malloc(big + 1);
    memset(body, ' ', big);
    body[0] = '{';
    body[big - 1] = '}';
    body[big] = '\0';
    ck_assert_int_eq(th_request(&srv, "POST", "/rope", "application/json", body, big, 0, &r), 0);
    ck_assert_int_eq(r.status, 413);
    th_resp_free(&r);
    /* 413 also for a chunked body (no declared length) */
    ck_assert_int_eq(th_request(&srv, "POST", "/rope", "application/json", body, big, 1, &r), 0);
    ck_assert_int_eq(r.status, 413);
    th_resp_free(&r);
    free(body);
}
END_TEST

START_TEST(test_pieces_and_chunked)
{
    /* The same body sent 7 bytes at a time, then chunked: both give the lesson's row. */
    const char *json = "{\"d_model\": 4, \"positions\": [4]}";
    char raw[512];
    int n = snprintf(raw, sizeof raw,
                     "POST /sinusoidal HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     strlen(json), json);
    th_resp r;
    ck_assert_int_eq(th_raw_pieces(&srv, raw, (size_t)n, 7, 20, &r), 0);
    ck_assert_int_eq(r.status, 200);
    json_t *j = body_json(&r);
    /* sin 4 = -0.7568024953079282 */
    ck_assert_double_eq_tol(num_at(j, "matrix", 0, 0), -0.7568024953079282, 1e-15);
    json_decref(j);
    th_resp_free(&r);
    ck_assert_int_eq(
        th_request(&srv, "POST", "/sinusoidal", "application/json", json, strlen(json), 1, &r), 0);
    ck_assert_int_eq(r.status, 200);
    j = body_json(&r);
    ck_assert_double_eq_tol(num_at(j, "matrix", 0, 3), cos(0.04), 1e-15);
    json_decref(j);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_lesson_numbers)
{
    th_resp r;
    /* RoPE, 0.5 rad per position, q=(1,2), k=(3,1): 5cos(d)-5sin(d) with d = 0.5*(m-n); pairs
     * (2,0),(5,3),(9,7) give d=1 → 5(cos 1 - sin 1) = -1.5058433946987; (3,5) gives d=-1 →
     * 5(cos 1 + sin 1) = 6.9088... */
    ck_assert_int_eq(th_post(&srv, "/rope",
                             "{\"head_dim\":2,\"inv_freq\":[0.5],\"q\":[1,2],\"k\":[3,1],"
                             "\"q_positions\":[2,5,9,3],\"k_positions\":[0,3,7,5]}",
                             &r),
                     0);
    ck_assert_msg(r.status == 200, "%s", r.body);
    json_t *j = body_json(&r);
    double lo = 5 * (cos(1.0) - sin(1.0)), hi = 5 * (cos(1.0) + sin(1.0));
    ck_assert_double_eq_tol(num_at(j, "scores", 0, 0), lo, 1e-12);
    ck_assert_double_eq_tol(num_at(j, "scores", 1, 1), lo, 1e-12);
    ck_assert_double_eq_tol(num_at(j, "scores", 2, 2), lo, 1e-12);
    ck_assert_double_eq_tol(num_at(j, "scores", 3, 3), hi, 1e-12);
    json_decref(j);
    th_resp_free(&r);
    /* ALiBi, 8 heads, query 3, keys 0..3, scores (2,1,3,2): bias -m*(3,2,1,0).
     * Head 0 (m = 1/2): softmax(2-1.5, 1-1, 3-0.5, 2) = (0.074199, 0.045004, 0.548260, 0.332537);
     * head 7 (m = 1/256) = (0.195285, 0.072123, 0.535004, 0.197587) (docs/conventions.md#alibi). */
    ck_assert_int_eq(th_post(&srv, "/alibi",
                             "{\"num_heads\":8,\"query_positions\":[3],\"key_positions\":[0,1,2,3],"
                             "\"scores\":[[2,1,3,2]]}",
                             &r),
                     0);
    ck_assert_msg(r.status == 200, "%s", r.body);
    j = body_json(&r);
    json_t *w = json_object_get(j, "weights");
    const double h0[] = {0.074199, 0.045004, 0.548260, 0.332537};
    const double h7[] = {0.195285, 0.072123, 0.535004, 0.197587};
    for (size_t k = 0; k < 4; k++) {
        ck_assert_double_eq_tol(
            json_number_value(json_array_get(json_array_get(json_array_get(w, 0), 0), k)), h0[k],
            5e-7);
        ck_assert_double_eq_tol(
            json_number_value(json_array_get(json_array_get(json_array_get(w, 7), 0), k)), h7[k],
            5e-7);
    }
    json_decref(j);
    th_resp_free(&r);
    /* Sinusoidal d_model 4 at position 4: (sin 4, cos 4, sin 0.04, cos 0.04). */
    ck_assert_int_eq(th_post(&srv, "/sinusoidal", "{\"d_model\":4,\"positions\":[4]}", &r), 0);
    j = body_json(&r);
    const double row[] = {sin(4.0), cos(4.0), sin(0.04), cos(0.04)};
    for (size_t k = 0; k < 4; k++)
        ck_assert_double_eq_tol(num_at(j, "matrix", 0, k), row[k], 1e-15);
    json_decref(j);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_service_routes)
{
    th_resp r;
    ck_assert_int_eq(th_request(&srv, "GET", "/healthz", NULL, NULL, 0, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_msg(strstr(r.headers, "X-Request-Id:") != NULL, "%s", r.headers);
    th_resp_free(&r);
    ck_assert_int_eq(th_request(&srv, "GET", "/readyz", NULL, NULL, 0, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    th_resp_free(&r);
    ck_assert_int_eq(th_request(&srv, "GET", "/limits", NULL, NULL, 0, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    json_t *j = body_json(&r);
    /* this test server runs with --max-body-bytes 65536; the rest are docs/api.md's defaults */
    ck_assert_int_eq(json_integer_value(json_object_get(j, "max_body_bytes")), 65536);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "max_output_elements")), 4194304);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "max_dim")), 65536);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "max_inflight_bytes")), 268435456);
    /* 128 MiB = 134217728 (api/req.c's default) */
    ck_assert_int_eq(json_integer_value(json_object_get(j, "max_parse_bytes")), 134217728);
    /* the settings the memory ceiling is made of, and the ceiling is their formula
     * (server/memory.h; its terms are checked by hand in tests/server/check_memory.c) */
    ck_assert_int_eq(json_integer_value(json_object_get(j, "connection_memory")), 65536);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "table_cache_bytes")), 268435456);
    ck_assert_int_ge(json_integer_value(json_object_get(j, "threads")), 2);
    const json_t *m = json_object_get(j, "memory_ceiling");
    ck_assert_ptr_nonnull(m);
    long long sum = 0;
    const char *terms[] = {"base", "connections", "inflight",  "parse",
                           "work", "tables",      "freq_cache"};
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        ck_assert_int_gt(json_integer_value(json_object_get(m, terms[i])), 0);
        sum += json_integer_value(json_object_get(m, terms[i]));
    }
    ck_assert_int_eq(json_integer_value(json_object_get(m, "total")), sum);
    json_decref(j);
    th_resp_free(&r);
    ck_assert_int_eq(th_request(&srv, "OPTIONS", "/rope", NULL, NULL, 0, 0, &r), 0);
    ck_assert_int_eq(r.status, 204);
    ck_assert_msg(strstr(r.headers, "Access-Control-Allow-Methods: POST") != NULL, "%s", r.headers);
    th_resp_free(&r);
}
END_TEST

START_TEST(test_metrics_cache_miss_then_hit)
{
    /* A configuration no other test uses: the first request misses, the second hits. */
    const char *req = "{\"head_dim\":6,\"base\":12345,\"positions\":[1,2]}";
    th_resp r;
    ck_assert_int_eq(th_request(&srv, "GET", "/metrics", NULL, NULL, 0, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    const char *p = strstr(r.body, "\nposenc_cache_misses_total ");
    ck_assert_ptr_nonnull(p);
    long miss0 = strtol(p + 27, NULL, 10);
    p = strstr(r.body, "\nposenc_cache_hits_total ");
    long hit0 = strtol(p + 25, NULL, 10);
    th_resp_free(&r);
    ck_assert_int_eq(th_post(&srv, "/rope", req, &r), 0);
    th_resp_free(&r);
    ck_assert_int_eq(th_request(&srv, "GET", "/metrics", NULL, NULL, 0, 0, &r), 0);
    long miss1 = strtol(strstr(r.body, "\nposenc_cache_misses_total ") + 27, NULL, 10);
    long hit1 = strtol(strstr(r.body, "\nposenc_cache_hits_total ") + 25, NULL, 10);
    th_resp_free(&r);
    ck_assert_int_eq(th_post(&srv, "/rope", req, &r), 0);
    th_resp_free(&r);
    ck_assert_int_eq(th_request(&srv, "GET", "/metrics", NULL, NULL, 0, 0, &r), 0);
    long miss2 = strtol(strstr(r.body, "\nposenc_cache_misses_total ") + 27, NULL, 10);
    long hit2 = strtol(strstr(r.body, "\nposenc_cache_hits_total ") + 25, NULL, 10);
    ck_assert_msg(strstr(r.body, "posenc_http_requests_total{route=\"rope\",status=\"200\"}") !=
                      NULL,
                  "%s", r.body);
    th_resp_free(&r);
    ck_assert_int_eq(miss1, miss0 + 1);
    ck_assert_int_eq(hit1, hit0);
    ck_assert_int_eq(miss2, miss1);
    ck_assert_int_eq(hit2, hit1 + 1);
}
END_TEST

START_TEST(test_still_alive_after_abuse)
{
    /* Runs last: after every bad request above the server still computes correctly. */
    th_resp r;
    ck_assert_int_eq(th_post(&srv, "/sinusoidal", "{\"d_model\":2,\"positions\":[1]}", &r), 0);
    ck_assert_int_eq(r.status, 200);
    json_t *j = body_json(&r);
    ck_assert_double_eq_tol(num_at(j, "matrix", 0, 0), sin(1.0), 1e-15);
    ck_assert_double_eq_tol(num_at(j, "matrix", 0, 1), cos(1.0), 1e-15);
    json_decref(j);
    th_resp_free(&r);
}
END_TEST

Suite *http_suite(void)
{
    Suite *s = suite_create("http");
    TCase *tc = tcase_create("live");
    tcase_add_unchecked_fixture(tc, start, stop);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_malformed_json);
    tcase_add_test(tc, test_bad_fields);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_nonfinite_rejected);
    tcase_add_test(tc, test_http_errors);
    tcase_add_test(tc, test_pieces_and_chunked);
    tcase_add_test(tc, test_lesson_numbers);
    tcase_add_test(tc, test_service_routes);
    tcase_add_test(tc, test_metrics_cache_miss_then_hit);
    tcase_add_test(tc, test_still_alive_after_abuse);
    suite_add_tcase(s, tc);
    return s;
}
