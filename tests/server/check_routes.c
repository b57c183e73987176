/*
 * tests/server/check_routes.c -- the one route table (server/routes.h): which row answers a
 * method on a path, the Allow header derived from the rows, and the metrics labels in the order
 * /metrics has always listed them.
 */
#include <check.h>
#include <string.h>

#include "server/routes.h"

/* The row answering method on path: its label and kind. */
#define ASSERT_ROW(path, method, label_, kind_)                                                    \
    do {                                                                                           \
        const srv_route *r_ = srv_route_find((path), (method));                                    \
        ck_assert_msg(strcmp(r_->label, (label_)) == 0 && r_->kind == (kind_),                     \
                      "%s %s: row %s (kind %d), want %s", (method), (path), r_->label,             \
                      (int)r_->kind, (label_));                                                    \
    } while (0)

START_TEST(test_find)
{
    ASSERT_ROW("/rope", "POST", "rope", SRV_COMPUTE);
    ASSERT_ROW("/rope", "GET", "rope", SRV_COMPUTE); /* answered 405 by its row */
    ASSERT_ROW("/t5/buckets", "POST", "t5_buckets", SRV_COMPUTE);
    ASSERT_ROW("/healthz", "HEAD", "healthz", SRV_SERVICE);
    ASSERT_ROW("/openapi.yaml", "GET", "openapi", SRV_SERVICE);
    ASSERT_ROW("/tables", "GET", "tables", SRV_TABLES);
    ASSERT_ROW("/tables", "PUT", "tables", SRV_TABLES); /* 405: PUT is /tables/{name} */
    ASSERT_ROW("/tables/x", "GET", "table", SRV_TABLE);
    ASSERT_ROW("/tables/x", "DELETE", "table", SRV_TABLE);
    ASSERT_ROW("/tables/x", "PUT", "table_put", SRV_TABLE_PUT);
    ASSERT_ROW("/tables/x", "POST", "table", SRV_TABLE);
    ASSERT_ROW("/tables/", "GET", "table", SRV_TABLE); /* an empty name: 404 from the rules */
    ASSERT_ROW("/tables/a/b", "GET", "table", SRV_TABLE);
    ASSERT_ROW("/", "GET", "static", SRV_STATIC);
    ASSERT_ROW("/docs", "GET", "docs", SRV_STATIC);
    ASSERT_ROW("/docs/x.css", "GET", "docs", SRV_STATIC);
    ASSERT_ROW("/docsx", "GET", "docs", SRV_STATIC); /* by prefix, as always */
    ASSERT_ROW("/app.js", "GET", "static", SRV_STATIC);
    ASSERT_ROW("/rope/", "POST", "static", SRV_STATIC); /* exact paths only */
    ASSERT_ROW("/tablesx", "GET", "static", SRV_STATIC);
    ASSERT_ROW("*", "OPTIONS", "static", SRV_STATIC);
    ASSERT_ROW("http://host/rope", "POST", "static", SRV_STATIC);
}
END_TEST

START_TEST(test_allow)
{
    ck_assert_str_eq(srv_route_allow(srv_route_find("/rope", "POST")), "POST, OPTIONS");
    ck_assert_str_eq(srv_route_allow(srv_route_find("/limits", "GET")), "GET, HEAD, OPTIONS");
    ck_assert_str_eq(srv_route_allow(srv_route_find("/tables", "GET")), "GET, HEAD, OPTIONS");
    /* the union of the two rows of /tables/{name} */
    ck_assert_str_eq(srv_route_allow(srv_route_find("/tables/x", "GET")),
                     "GET, HEAD, PUT, DELETE, OPTIONS");
    ck_assert_str_eq(srv_route_allow(srv_route_find("/tables/x", "PUT")),
                     "GET, HEAD, PUT, DELETE, OPTIONS");
    ck_assert_str_eq(srv_route_allow(srv_route_find("/nowhere", "GET")), "GET, HEAD, OPTIONS");
    ck_assert_int_eq(srv_route_takes(srv_route_find("/healthz", "HEAD"), "HEAD"), 1);
    ck_assert_int_eq(srv_route_takes(srv_route_find("/healthz", "GET"), "POST"), 0);
    ck_assert_int_eq(srv_route_takes(srv_route_find("/rope", "POST"), "PATCH"), 0);
}
END_TEST

/* The labels of posenc_http_requests_total, in the order of the exposition before issue 14 (the
 * compute routes, then the fixed labels), with model_method (issue 15) after the other compute
 * routes. */
START_TEST(test_labels)
{
    static const char *const WANT[] = {
        "sinusoidal", "rope",    "alibi",  "attention", "t5_buckets", "learned", "model_method",
        "healthz",    "readyz",  "limits", "metrics",   "version",    "openapi", "docs",
        "static",     "options", "tables", "table",     "table_put",  "other"};
    const char *got[32];
    size_t n = srv_route_labels(got, 32);
    ck_assert_uint_eq(n, sizeof WANT / sizeof WANT[0]);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(got[i], WANT[i]);
    ck_assert_uint_eq(srv_route_labels(got, 3), 3);
    ck_assert_str_eq(srv_route_of(SRV_PREFLIGHT)->label, "options");
    ck_assert_str_eq(srv_route_of(SRV_NO_ROUTE)->label, "other");
}
END_TEST

/* The in-process lookup of api/ (the CLI's) and the server's rows name the same operation for
 * path. */
START_TEST(test_api_lookup_agrees)
{
    size_t n = 0;
    for (size_t i = 0; api_route_path(i) != NULL; i++, n++) {
        const char *p = api_route_path(i);
        const srv_route *r = srv_route_find(p, "POST");
        ck_assert_msg(r->kind == SRV_COMPUTE && r->compute == api_route_named(p),
                      "%s: the server's row and api_route_named disagree", p);
    }
    ck_assert_uint_eq(n, 7); /* the 7 compute labels of test_labels: no row the lookup lacks */
}
END_TEST

Suite *routes_suite(void)
{
    Suite *s = suite_create("routes");
    TCase *tc = tcase_create("routes");
    tcase_add_test(tc, test_find);
    tcase_add_test(tc, test_allow);
    tcase_add_test(tc, test_labels);
    tcase_add_test(tc, test_api_lookup_agrees);
    suite_add_tcase(s, tc);
    return s;
}
