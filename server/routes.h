/*
 * server/routes.h -- the one route table of the daemon (server/routes.c). Every list is derived
 * from it: routing (srv_route_find), the metrics labels (srv_route_labels), the Allow and
 * Access-Control-Allow-Methods headers (srv_route_allow), and the contract test
 * (tests/contract/routes.test.mjs reads the table's rows and compares them with openapi.yaml).
 */
#ifndef SRV_ROUTES_H
#define SRV_ROUTES_H

#include <stddef.h>

#include "server/request.h"

/* Methods of a row (a bit set). HEAD is served with every GET; OPTIONS (the preflight) with every
 * route. */
#define SRV_GET 1u
#define SRV_POST 2u
#define SRV_PUT 4u
#define SRV_DELETE 8u

/* What answers a row. */
typedef enum {
    SRV_COMPUTE,   /* POST, a JSON body: an api/ compute operation on a pool thread */
    SRV_SERVICE,   /* GET: a service route (service.c) */
    SRV_STATIC,    /* GET: a file under --web-dir (static.c); the fallback of unknown paths */
    SRV_TABLES,    /* GET /tables */
    SRV_TABLE,     /* GET, DELETE /tables/{name} */
    SRV_TABLE_PUT, /* PUT /tables/{name}: an upload */
    SRV_PREFLIGHT, /* no path: the OPTIONS preflight of any route (its metrics label) */
    SRV_NO_ROUTE,  /* no path: nothing answers (404; its metrics label, always the last row) */
} srv_kind;

/* A service route's handler. */
typedef enum MHD_Result (*srv_get_fn)(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);

/*
 * One row. path: an exact path ("/rope"); a prefix and one parameter ("/tables/{name}": the rest
 * of the path, whatever it is, is the parameter); for SRV_STATIC rows what any other path falls
 * back to ("/docs" by prefix, then "/" for all the rest); NULL for the two rows without a path.
 * Several rows may share a path (one per set of methods); the path's Allow is the union of their
 * methods.
 */
typedef struct srv_route {
    const char *path;
    const char *label;        /* metrics label (and the .npy file name of a compute route) */
    unsigned methods;         /* SRV_GET | ... */
    srv_kind kind;            /* what answers */
    const char *not_allowed;  /* detail of the 405 for another method (no route: of the 404) */
    const api_route *compute; /* SRV_COMPUTE: the operation */
    srv_get_fn get;           /* SRV_SERVICE: the handler */
} srv_route;

/* The row that answers method (e.g. "GET"; HEAD counts as GET) on path: among the rows whose path
 * matches, the first that takes the method, else the first; a path no row matches falls back to
 * the SRV_STATIC rows: "/docs" for a path starting so, else "/" (whatever the path, even one not
 * starting with '/', such as "*"). Never NULL. */
const srv_route *srv_route_find(const char *path, const char *method);

/* 1 when r takes method (HEAD as GET), else 0. */
int srv_route_takes(const srv_route *r, const char *method);

/* The Allow header of r's path, e.g. "GET, HEAD, PUT, DELETE, OPTIONS" (static string). */
const char *srv_route_allow(const srv_route *r);

/* Writes the metrics labels, in table order (the last is the fallback, "other"), into out[0..max)
 * and returns their count. */
size_t srv_route_labels(const char **out, size_t max);

/* The row of kind (the first), e.g. SRV_PREFLIGHT for its label. */
const srv_route *srv_route_of(srv_kind kind);

/* ---- the service handlers (service.c; openapi.yaml tag "service") ---- */

/* GET /healthz: 200 {"status":"ok"} while the process serves. */
enum MHD_Result srv_get_healthz(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* GET /readyz: 200 {"status":"ready"}, or 503 shutting-down while draining. */
enum MHD_Result srv_get_readyz(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* GET /limits: the request limits in force (api_limits), as JSON. */
enum MHD_Result srv_get_limits(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* GET /version: name, version, git revision, compiler, build date, library versions. */
enum MHD_Result srv_get_version(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* GET /metrics: the Prometheus text exposition (metrics.h); 503 when out of memory. */
enum MHD_Result srv_get_metrics(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);
/* GET /openapi.yaml: the contract the daemon loaded at start-up, or 404 when it had none. */
enum MHD_Result srv_get_spec(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);

#endif
