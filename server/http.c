/* server/http.c -- see http.h. Access-handler protocol: ../shared/docs/ecosystem-notes.md §1. */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"

/* Per-request state kept in *con_cls from the first call to the completion callback. */
typedef struct {
    const api_route *route;  /* compute route, or NULL */
    const char *label;       /* metrics label */
    char method[8];
    char path[160];
    char request_id[72];
    char *buf;               /* request body so far */
    size_t len, cap;
    int too_big;             /* body over max_body_bytes: discard and answer 413 */
    int compute;             /* a POST to a compute route */
    int queued;              /* a response was queued */
    int status;              /* status of the queued response */
    size_t resp_bytes;
    struct timespec t0;
} srv_req;

static double now_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int safe_request_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == ':';
        if (!ok)
            return 0;
    }
    return 1;
}

/* Queues resp with the headers every response carries. Returns MHD's result. */
static enum MHD_Result send_resp(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                                 struct MHD_Response *resp, const char *content_type)
{
    if (resp == NULL)
        return MHD_NO;
    if (content_type)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, "X-Request-Id", rq->request_id);
    if (ctx->cfg->cors_origins[0]) {
        MHD_add_response_header(resp, "Access-Control-Allow-Origin", ctx->cfg->cors_origins);
        MHD_add_response_header(resp, "Access-Control-Expose-Headers", "X-Request-Id");
        if (strcmp(ctx->cfg->cors_origins, "*") != 0)
            MHD_add_response_header(resp, "Vary", "Origin");
    }
    if (atomic_load(&ctx->draining))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    rq->queued = 1;
    rq->status = status;
    enum MHD_Result r = MHD_queue_response(c, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return r;
}

static enum MHD_Result send_buffer(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                                   const char *content_type, char *body, size_t len)
{
    /* body is malloc'd; MHD frees it with free() when the response is destroyed. */
    struct MHD_Response *resp =
        MHD_create_response_from_buffer_with_free_callback(len, body, &free);
    if (resp == NULL) {
        free(body);
        return MHD_NO;
    }
    rq->resp_bytes = len;
    return send_resp(ctx, c, rq, status, resp, content_type);
}

static enum MHD_Result send_api(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                api_response *ar)
{
    if (ar->body == NULL)
        return MHD_NO;
    char *b = ar->body;
    ar->body = NULL;
    return send_buffer(ctx, c, rq, ar->status, ar->content_type, b, ar->len);
}

static enum MHD_Result send_problem(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                    api_problem_code code, const char *detail, const char *allow)
{
    api_response ar;
    api_simple_problem(code, detail, rq->request_id, &ar);
    if (ar.body == NULL)
        return MHD_NO;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer_with_free_callback(ar.len, ar.body, &free);
    if (resp == NULL) {
        free(ar.body);
        return MHD_NO;
    }
    rq->resp_bytes = ar.len;
    if (allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    return send_resp(ctx, c, rq, ar.status, resp, ar.content_type);
}

static enum MHD_Result send_text(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                                 const char *content_type, const char *text)
{
    size_t n = strlen(text);
    char *b = malloc(n + 1);
    if (b == NULL)
        return MHD_NO;
    memcpy(b, text, n + 1);
    return send_buffer(ctx, c, rq, status, content_type, b, n);
}

/* ---- service GET routes ---------------------------------------------------------------------- */

static enum MHD_Result get_limits(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    const api_limits *l = &ctx->cfg->lim;
    char tmp[640];
    snprintf(tmp, sizeof tmp,
             "{\"max_body_bytes\":%zu,\"max_table_bytes\":%zu,\"max_output_elements\":%zu,"
             "\"max_dim\":%zu,\"max_heads\":%zu,\"max_positions\":%zu,\"max_position\":%lld}",
             l->max_body_bytes, l->max_table_bytes, l->max_output_elements, l->max_dim,
             l->max_heads, l->max_positions, (long long)l->max_position);
    return send_text(ctx, c, rq, 200, "application/json", tmp);
}

static enum MHD_Result get_version(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char tmp[640];
    snprintf(tmp, sizeof tmp,
             "{\"name\":\"posenc\",\"version\":\"%s\",\"git_revision\":\"%s\","
             "\"build\":{\"compiler\":\"%s\",\"date\":\"%s\"},"
             "\"libraries\":{\"libmicrohttpd\":\"%s\",\"jansson\":\"%s\"}}",
             POSENC_VERSION, POSENC_GIT_REV, __VERSION__, __DATE__, MHD_get_version(),
             jansson_version_str());
    return send_text(ctx, c, rq, 200, "application/json", tmp);
}

static enum MHD_Result get_metrics(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    size_t len = 0;
    char *b = srv_metrics_render(ctx->metrics, ctx->api.cache, &len);
    if (b == NULL)
        return send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
    return send_buffer(ctx, c, rq, 200, "text/plain; version=0.0.4; charset=utf-8", b, len);
}

static enum MHD_Result get_spec(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (ctx->spec == NULL)
        return send_problem(ctx, c, rq, API_PB_NOT_FOUND, "openapi.yaml is not available", NULL);
    struct MHD_Response *resp = MHD_create_response_from_buffer(ctx->spec_len, ctx->spec,
                                                                MHD_RESPMEM_PERSISTENT);
    rq->resp_bytes = ctx->spec_len;
    return send_resp(ctx, c, rq, 200, resp, "application/yaml");
}

static const struct {
    const char *ext;
    const char *type;
} MIME[] = {
    {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
    {".json", "application/json"}, {".svg", "image/svg+xml"}, {".png", "image/png"},
    {".ico", "image/x-icon"}, {".txt", "text/plain; charset=utf-8"},
    {".yaml", "application/yaml"}, {".woff2", "font/woff2"}, {".map", "application/json"},
};

/* Serves a file under web_dir. Paths with "..", "//" or a NUL are refused (404). */
static enum MHD_Result get_static(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    const char *p = rq->path;
    if (ctx->cfg->web_dir[0] == '\0' || strstr(p, "..") || strstr(p, "//") || p[0] != '/')
        return send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such resource", NULL);
    char file[1024];
    if (strcmp(p, "/") == 0 || strcmp(p, "/docs") == 0 || strcmp(p, "/docs/") == 0)
        snprintf(file, sizeof file, "%s%s", ctx->cfg->web_dir,
                 p[1] == 'd' ? "/docs/index.html" : "/index.html");
    else
        snprintf(file, sizeof file, "%s%s", ctx->cfg->web_dir, p);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such resource", NULL);
    }
    const char *type = "application/octet-stream";
    const char *dot = strrchr(file, '.');
    for (size_t i = 0; dot && i < sizeof MIME / sizeof MIME[0]; i++) {
        if (strcasecmp(dot, MIME[i].ext) == 0)
            type = MIME[i].type;
    }
    struct MHD_Response *resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
    if (resp == NULL) {
        close(fd);
        return MHD_NO;
    }
    /* HTML revalidates every time so a new deployment is seen at once; assets are cached briefly. */
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
                            strstr(type, "text/html") ? "no-cache" : "public, max-age=300");
    rq->resp_bytes = (size_t)st.st_size;
    return send_resp(ctx, c, rq, 200, resp, type);
}

typedef enum MHD_Result (*get_fn)(srv_ctx *, struct MHD_Connection *, srv_req *);

static enum MHD_Result get_healthz(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    return send_text(ctx, c, rq, 200, "application/json", "{\"status\":\"ok\"}");
}

static enum MHD_Result get_readyz(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (atomic_load(&ctx->draining))
        return send_problem(ctx, c, rq, API_PB_SHUTTING_DOWN, "the server is draining", NULL);
    return send_text(ctx, c, rq, 200, "application/json", "{\"status\":\"ready\"}");
}

/* The service routes (GET and HEAD). */
static const struct {
    const char *path;
    const char *label;
    get_fn fn;
} GET_ROUTES[] = {
    {"/healthz", "healthz", get_healthz}, {"/readyz", "readyz", get_readyz},
    {"/limits", "limits", get_limits},    {"/version", "version", get_version},
    {"/metrics", "metrics", get_metrics}, {"/openapi.yaml", "openapi", get_spec},
};
#define N_GET (sizeof GET_ROUTES / sizeof GET_ROUTES[0])

/* Content-Type must be application/json, optionally with charset=utf-8. */
static int json_content_type(const char *ct)
{
    if (ct == NULL)
        return 0;
    size_t n = strlen("application/json");
    if (strncasecmp(ct, "application/json", n) != 0)
        return 0;
    const char *rest = ct + n;
    while (*rest == ' ')
        rest++;
    if (*rest == '\0')
        return 1;
    if (*rest != ';')
        return 0;
    rest++;
    while (*rest == ' ')
        rest++;
    if (strncasecmp(rest, "charset=", 8) != 0)
        return 0;
    rest += 8;
    if (*rest == '"')
        rest++;
    return strncasecmp(rest, "utf-8", 5) == 0;
}

static enum MHD_Result preflight(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                 const char *allow)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (ctx->cfg->cors_origins[0]) {
        MHD_add_response_header(resp, "Access-Control-Allow-Methods", allow);
        MHD_add_response_header(resp, "Access-Control-Allow-Headers",
                                "Content-Type, Accept, X-Request-Id");
        MHD_add_response_header(resp, "Access-Control-Max-Age", "600");
    }
    return send_resp(ctx, c, rq, 204, resp, NULL);
}

/* Answers everything but a compute POST: preflights, 405s, service GETs, static files, 404. Runs on
 * the second call of the access handler so that MHD keeps the connection alive. */
static enum MHD_Result dispatch_other(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    const char *method = rq->method;
    const char *url = rq->path;
    int is_get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    int is_options = strcmp(method, "OPTIONS") == 0;
    if (rq->route) {
        if (is_options) {
            rq->label = "options";
            return preflight(ctx, c, rq, "POST, OPTIONS");
        }
        return send_problem(ctx, c, rq, API_PB_METHOD_NOT_ALLOWED, "this route takes POST",
                            "POST, OPTIONS");
    }
    for (size_t i = 0; i < N_GET; i++) {
        if (strcmp(url, GET_ROUTES[i].path) != 0)
            continue;
        rq->label = GET_ROUTES[i].label;
        if (is_options) {
            rq->label = "options";
            return preflight(ctx, c, rq, "GET, HEAD, OPTIONS");
        }
        if (!is_get)
            return send_problem(ctx, c, rq, API_PB_METHOD_NOT_ALLOWED, "this route takes GET",
                                "GET, HEAD, OPTIONS");
        return GET_ROUTES[i].fn(ctx, c, rq);
    }
    rq->label = strncmp(url, "/docs", 5) == 0 ? "docs" : "static";
    if (is_options) {
        rq->label = "options";
        return preflight(ctx, c, rq, "GET, HEAD, OPTIONS");
    }
    if (!is_get) {
        rq->label = "other";
        return send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such route", NULL);
    }
    return get_static(ctx, c, rq);
}

/* First call of a compute POST (headers only): refuse at once what cannot succeed, so that a large
 * body is never read (MHD then closes the connection). */
static enum MHD_Result compute_headers(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (atomic_load(&ctx->draining))
        return send_problem(ctx, c, rq, API_PB_SHUTTING_DOWN, "the server is draining", NULL);
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    if (!json_content_type(ct))
        return send_problem(ctx, c, rq, API_PB_UNSUPPORTED_MEDIA_TYPE,
                            "Content-Type must be application/json", NULL);
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if (cl) {
        char *end = NULL;
        unsigned long long n = strtoull(cl, &end, 10);
        if (end != cl && n > ctx->cfg->lim.max_body_bytes) {
            char d[128];
            snprintf(d, sizeof d, "the body of %llu bytes exceeds max_body_bytes (%zu)", n,
                     ctx->cfg->lim.max_body_bytes);
            return send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
        }
    }
    return MHD_YES; /* the body follows */
}

/* Appends one piece of a compute POST body, up to max_body_bytes; past it the body is discarded
 * and the final call answers 413. */
static enum MHD_Result append_body(srv_ctx *ctx, srv_req *rq, const char *upload, size_t n)
{
    if (rq->too_big)
        return MHD_YES;
    if (n > ctx->cfg->lim.max_body_bytes - rq->len) {
        rq->too_big = 1;
        free(rq->buf);
        rq->buf = NULL;
        rq->len = rq->cap = 0;
        return MHD_YES;
    }
    if (rq->len + n > rq->cap) {
        size_t ncap = rq->cap ? rq->cap : 4096;
        while (ncap < rq->len + n)
            ncap *= 2;
        if (ncap > ctx->cfg->lim.max_body_bytes)
            ncap = ctx->cfg->lim.max_body_bytes;
        char *nb = realloc(rq->buf, ncap);
        if (nb == NULL)
            return MHD_NO;
        rq->buf = nb;
        rq->cap = ncap;
    }
    memcpy(rq->buf + rq->len, upload, n);
    rq->len += n;
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    srv_ctx *ctx = cls;
    srv_req *rq = *con_cls;
    if (rq == NULL) {
        rq = calloc(1, sizeof *rq);
        if (rq == NULL)
            return MHD_NO;
        *con_cls = rq;
        clock_gettime(CLOCK_MONOTONIC, &rq->t0);
        snprintf(rq->method, sizeof rq->method, "%s", method);
        snprintf(rq->path, sizeof rq->path, "%s", url);
        const char *rid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Request-Id");
        if (rid && safe_request_id(rid))
            snprintf(rq->request_id, sizeof rq->request_id, "%s", rid);
        else
            snprintf(rq->request_id, sizeof rq->request_id, "%08llx-%06llx",
                     ctx->id_salt & 0xffffffffULL,
                     (unsigned long long)atomic_fetch_add(&ctx->next_id, 1) & 0xffffffULL);
        rq->route = api_route_find(url);
        rq->label = rq->route ? rq->route->name : "other";
        rq->compute = rq->route != NULL && strcmp(method, "POST") == 0;
        if (rq->compute)
            return compute_headers(ctx, c, rq);
        return MHD_YES; /* answered on the next call, keeping the connection alive */
    }
    if (rq->queued || !rq->compute) {
        if (*upload_size > 0) {
            *upload_size = 0; /* a body nobody reads (or after an early 413/415): discard */
            return MHD_YES;
        }
        return rq->queued ? MHD_YES : dispatch_other(ctx, c, rq);
    }
    if (*upload_size > 0) {
        size_t n = *upload_size;
        *upload_size = 0;
        return append_body(ctx, rq, upload, n);
    }
    /* final call: the whole body is here */
    if (rq->too_big) {
        char d[128];
        snprintf(d, sizeof d, "the body exceeds max_body_bytes (%zu)", ctx->cfg->lim.max_body_bytes);
        return send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
    }
    api_response ar;
    api_handle(&ctx->api, rq->route->handler, rq->buf, rq->len, rq->request_id, &ar);
    free(rq->buf);
    rq->buf = NULL;
    return send_api(ctx, c, rq, &ar);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)c;
    srv_ctx *ctx = cls;
    srv_req *rq = *con_cls;
    if (rq == NULL)
        return;
    *con_cls = NULL;
    double secs = now_since(&rq->t0);
    int status = rq->queued ? rq->status : 0;
    srv_metrics_record(ctx->metrics, rq->label, status, secs);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char ts[32];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (strcmp(ctx->cfg->log_format, "json") == 0)
        printf("{\"ts\":\"%s\",\"method\":\"%s\",\"path\":\"%s\",\"status\":%d,\"bytes\":%zu,"
               "\"ms\":%.3f,\"request_id\":\"%s\",\"completed\":%s}\n",
               ts, rq->method, rq->label, status, rq->resp_bytes, secs * 1e3, rq->request_id,
               toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "true" : "false");
    else
        printf("%s %s %s %d %zu %.3fms id=%s%s\n", ts, rq->method, rq->path, status,
               rq->resp_bytes, secs * 1e3, rq->request_id,
               toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
    fflush(stdout);
    free(rq->buf);
    free(rq);
}

struct MHD_Daemon *srv_http_start(srv_ctx *ctx, unsigned *port_out)
{
    const srv_config *cfg = ctx->cfg;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)cfg->port);
    if (inet_pton(AF_INET, cfg->bind, &addr.sin_addr) != 1) {
        fprintf(stderr, "posencd: --bind \"%s\" is not an IPv4 address\n", cfg->bind);
        return NULL;
    }
    unsigned threads = cfg->threads;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (unsigned)n : 2;
    }
    if (threads < 2)
        threads = 2; /* a single epoll thread stalls under bursts in MHD 0.9.75 */
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0, NULL, NULL, &on_request,
        ctx, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned int)threads, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->connection_timeout,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)cfg->connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)cfg->connection_memory,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024, MHD_OPTION_LISTENING_ADDRESS_REUSE,
        (unsigned int)1, MHD_OPTION_NOTIFY_COMPLETED, &on_completed, ctx, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "posencd: cannot listen on %s:%u: %s\n", cfg->bind, cfg->port,
                strerror(errno));
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    *port_out = info ? info->port : cfg->port;
    return d;
}

void srv_http_drain_and_stop(srv_ctx *ctx, struct MHD_Daemon *d)
{
    atomic_store(&ctx->draining, 1);
    MHD_socket ls = MHD_quiesce_daemon(d);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (now_since(&t0) < (double)ctx->cfg->drain_seconds) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        if (info == NULL || info->num_connections == 0)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(d);
    if (ls != MHD_INVALID_SOCKET)
        close(ls);
}
