/* server/routes.c -- the one route table (routes.h) and what is derived from it. */
#include "server/routes.h"

#include <string.h>

#define TAKES_POST "this route takes POST"
#define TAKES_GET "this route takes GET"

/* Every route, in the order of the /metrics exposition. Checked against openapi.yaml by
 * tests/contract/routes.test.mjs, which reads the rows {"path", "label", METHODS, ...}. */
static const srv_route ROUTES[] = {
    {"/sinusoidal", "sinusoidal", SRV_POST, SRV_COMPUTE, TAKES_POST, &api_route_sinusoidal, NULL},
    {"/rope", "rope", SRV_POST, SRV_COMPUTE, TAKES_POST, &api_route_rope, NULL},
    {"/alibi", "alibi", SRV_POST, SRV_COMPUTE, TAKES_POST, &api_route_alibi, NULL},
    {"/attention", "attention", SRV_POST, SRV_COMPUTE, TAKES_POST, &api_route_attention, NULL},
    {"/t5/buckets", "t5_buckets", SRV_POST, SRV_COMPUTE, TAKES_POST, &api_route_t5_buckets, NULL},
    {"/learned", "learned", SRV_POST, SRV_COMPUTE, TAKES_POST, &api_route_learned, NULL},
    {"/model/method", "model_method", SRV_POST, SRV_COMPUTE, TAKES_POST, &api_route_model_method,
     NULL},
    {"/healthz", "healthz", SRV_GET, SRV_SERVICE, TAKES_GET, NULL, srv_get_healthz},
    {"/readyz", "readyz", SRV_GET, SRV_SERVICE, TAKES_GET, NULL, srv_get_readyz},
    {"/limits", "limits", SRV_GET, SRV_SERVICE, TAKES_GET, NULL, srv_get_limits},
    {"/metrics", "metrics", SRV_GET, SRV_SERVICE, TAKES_GET, NULL, srv_get_metrics},
    {"/version", "version", SRV_GET, SRV_SERVICE, TAKES_GET, NULL, srv_get_version},
    {"/openapi.yaml", "openapi", SRV_GET, SRV_SERVICE, TAKES_GET, NULL, srv_get_spec},
    {"/docs", "docs", SRV_GET, SRV_STATIC, "this resource takes GET", NULL, NULL},
    {"/", "static", SRV_GET, SRV_STATIC, "this resource takes GET", NULL, NULL},
    {NULL, "options", 0, SRV_PREFLIGHT, NULL, NULL, NULL},
    {"/tables", "tables", SRV_GET, SRV_TABLES,
     "/tables takes GET (PUT /tables/{name} stores a table)", NULL, NULL},
    {"/tables/{name}", "table", SRV_GET | SRV_DELETE, SRV_TABLE,
     "/tables/{name} takes GET, PUT and DELETE", NULL, NULL},
    {"/tables/{name}", "table_put", SRV_PUT, SRV_TABLE_PUT,
     "/tables/{name} takes GET, PUT and DELETE", NULL, NULL},
    {NULL, "other", 0, SRV_NO_ROUTE, "no such route", NULL, NULL},
};
#define N_ROUTES (sizeof ROUTES / sizeof ROUTES[0])

/* The bit of method ("HEAD" counts as GET); 0 for any other. */
static unsigned method_bit(const char *m)
{
    static const struct {
        const char *name;
        unsigned bit;
    } M[] = {{"GET", SRV_GET},
             {"HEAD", SRV_GET},
             {"POST", SRV_POST},
             {"PUT", SRV_PUT},
             {"DELETE", SRV_DELETE}};
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        if (strcmp(m, M[i].name) == 0)
            return M[i].bit;
    }
    return 0;
}

/* 1 when a non-static row's path matches url: equal, or the prefix before "{" of a path with a
 * parameter. */
static int path_matches(const char *pattern, const char *url)
{
    const char *brace = strchr(pattern, '{');
    if (brace == NULL)
        return strcmp(pattern, url) == 0;
    return strncmp(pattern, url, (size_t)(brace - pattern)) == 0;
}

const srv_route *srv_route_find(const char *path, const char *method)
{
    unsigned bit = method_bit(method);
    const srv_route *first = NULL;
    for (size_t i = 0; i < N_ROUTES; i++) {
        const srv_route *r = &ROUTES[i];
        if (r->path == NULL || r->kind == SRV_STATIC || !path_matches(r->path, path))
            continue;
        if (r->methods & bit)
            return r;
        if (first == NULL)
            first = r;
    }
    if (first != NULL)
        return first;
    const srv_route *fallback = NULL; /* the static rows: "/docs" by prefix, "/" for any path */
    for (size_t i = 0; i < N_ROUTES; i++) {
        const srv_route *r = &ROUTES[i];
        if (r->kind != SRV_STATIC)
            continue;
        if (strncmp(path, r->path, strlen(r->path)) == 0 && strcmp(r->path, "/") != 0)
            return r;
        fallback = r; /* "/" also takes "*", "http://host/x" and other paths not under "/" */
    }
    return fallback;
}

int srv_route_takes(const srv_route *r, const char *method)
{
    return (r->methods & method_bit(method)) != 0;
}

/* Allow values: index = the method bits of a path (OPTIONS always). */
static const char *const ALLOW[16] = {
    [0] = "OPTIONS",
    [SRV_GET] = "GET, HEAD, OPTIONS",
    [SRV_POST] = "POST, OPTIONS",
    [SRV_GET | SRV_POST] = "GET, HEAD, POST, OPTIONS",
    [SRV_PUT] = "PUT, OPTIONS",
    [SRV_GET | SRV_PUT] = "GET, HEAD, PUT, OPTIONS",
    [SRV_POST | SRV_PUT] = "POST, PUT, OPTIONS",
    [SRV_GET | SRV_POST | SRV_PUT] = "GET, HEAD, POST, PUT, OPTIONS",
    [SRV_DELETE] = "DELETE, OPTIONS",
    [SRV_GET | SRV_DELETE] = "GET, HEAD, DELETE, OPTIONS",
    [SRV_POST | SRV_DELETE] = "POST, DELETE, OPTIONS",
    [SRV_GET | SRV_POST | SRV_DELETE] = "GET, HEAD, POST, DELETE, OPTIONS",
    [SRV_PUT | SRV_DELETE] = "PUT, DELETE, OPTIONS",
    [SRV_GET | SRV_PUT | SRV_DELETE] = "GET, HEAD, PUT, DELETE, OPTIONS",
    [SRV_POST | SRV_PUT | SRV_DELETE] = "POST, PUT, DELETE, OPTIONS",
    [SRV_GET | SRV_POST | SRV_PUT | SRV_DELETE] = "GET, HEAD, POST, PUT, DELETE, OPTIONS",
};

const char *srv_route_allow(const srv_route *r)
{
    unsigned bits = r->methods;
    for (size_t i = 0; r->path != NULL && i < N_ROUTES; i++) {
        if (ROUTES[i].path != NULL && strcmp(ROUTES[i].path, r->path) == 0)
            bits |= ROUTES[i].methods;
    }
    return ALLOW[bits & 15u];
}

size_t srv_route_labels(const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < N_ROUTES && n < max; i++)
        out[n++] = ROUTES[i].label;
    return n;
}

const srv_route *srv_route_of(srv_kind kind)
{
    for (size_t i = 0; i < N_ROUTES; i++) {
        if (ROUTES[i].kind == kind)
            return &ROUTES[i];
    }
    return &ROUTES[N_ROUTES - 1];
}
