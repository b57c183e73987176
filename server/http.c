/* server/http.c -- see http.h. Access-handler protocol: ../shared/docs/ecosystem-notes.md §1. */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "api/table_body.h"
#include "core/cache.h"
#include "server/pool.h"
#include "wire/tensor_io.h"

enum { PUT_JSON = 0, PUT_NPY = 1, PUT_ST = 2 };
static const char *const PUT_FORMATS[] = {"json", "npy", "safetensors"};
#define TABLE_ALLOW "GET, HEAD, PUT, DELETE, OPTIONS"

/* Per-request state kept in *con_cls from the first call to the completion callback. */
typedef struct {
    const api_route *route; /* compute route, or NULL */
    const char *label;      /* metrics label */
    char method[8];
    char path[160];
    char request_id[72];
    char *buf; /* request body so far */
    size_t len, cap;
    int too_big;               /* body over max_body_bytes: discard and answer 413 */
    size_t held;               /* bytes reserved in ctx->budget: the buffer's capacity, or what the
                                * .safetensors parser holds */
    size_t declared;           /* the body's declared Content-Length (0: none) */
    int overloaded;            /* the budget refused this body: discard it and answer 503 */
    size_t ovl_more, ovl_seen; /* the refusal: bytes asked for, bytes held by all then */
    int compute;               /* a POST to a compute route */
    int table_put;             /* a PUT /tables/{name} (an upload) */
    int put_format;            /* PUT_JSON, PUT_NPY or PUT_ST */
    char table[STORE_NAME_MAX + 1];
    wire_st_stream *st;          /* PUT_ST: the incremental .safetensors parser (no body buffer) */
    int queued;                  /* a response was queued */
    int submitted;               /* the computation was handed to the pool (connection suspended) */
    struct MHD_Connection *conn; /* for the pool job: the suspended connection */
    srv_ctx *ctx;                /* for the pool job */
    api_opts opts;               /* response options (npy, streaming) */
    api_response ar;             /* the pool job's result, sent when the connection resumes */
    int status;                  /* status of the queued response */
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
        MHD_add_response_header(resp, "Access-Control-Expose-Headers",
                                "X-Request-Id, X-Posenc-Array");
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

/* A streamed body (wire/stream.h): MHD asks for the next bytes whenever the socket can take them,
 * so a large response never stalls the other connections of its worker thread. */
typedef struct {
    wire_stream *s;
    size_t *bytes; /* the request's resp_bytes: valid while MHD still reads (before completion) */
} srv_stream;

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    srv_stream *ss = cls;
    size_t n = wire_stream_read(ss->s, buf, max);
    if (n == 0) /* an incomplete body must not look complete: abort the connection then */
        return wire_stream_failed(ss->s) ? MHD_CONTENT_READER_END_WITH_ERROR
                                         : MHD_CONTENT_READER_END_OF_STREAM;
    *ss->bytes += n;
    return (ssize_t)n;
}

static void stream_done(void *cls)
{
    srv_stream *ss = cls;
    wire_stream_free(ss->s);
    free(ss);
}

/* Bytes MHD asks a stream for at a time (at most; it offers what its write buffer has free). */
#define STREAM_BLOCK (64 * 1024)

static enum MHD_Result send_api(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                api_response *ar)
{
    struct MHD_Response *resp;
    if (ar->stream != NULL) {
        srv_stream *ss = malloc(sizeof *ss);
        if (ss == NULL) {
            api_response_free(ar);
            return MHD_NO;
        }
        ss->s = ar->stream;
        ss->bytes = &rq->resp_bytes;
        ar->stream = NULL;
        uint64_t size = wire_stream_size(ss->s);
        rq->resp_bytes = 0;
        resp = MHD_create_response_from_callback(size == WIRE_STREAM_SIZE_UNKNOWN ? MHD_SIZE_UNKNOWN
                                                                                  : size,
                                                 STREAM_BLOCK, stream_read, ss, stream_done);
        if (resp == NULL) {
            stream_done(ss);
            return MHD_NO;
        }
    } else {
        if (ar->body == NULL)
            return MHD_NO;
        resp = MHD_create_response_from_buffer_with_free_callback(ar->len, ar->body, &free);
        if (resp == NULL) {
            api_response_free(ar);
            return MHD_NO;
        }
        ar->body = NULL;
        rq->resp_bytes = ar->len;
    }
    if (rq->compute)
        MHD_add_response_header(resp, "Vary", "Accept");
    if (ar->retry_after > 0) { /* 503 overloaded: the budget refused the body's parsed form */
        char ra[16];
        snprintf(ra, sizeof ra, "%d", ar->retry_after);
        MHD_add_response_header(resp, "Retry-After", ra);
        srv_budget_note_refused(&ctx->budget);
    }
    if (ar->npy_array != NULL) {
        char disp[96];
        snprintf(disp, sizeof disp, "attachment; filename=\"%s.npy\"", rq->label);
        MHD_add_response_header(resp, "Content-Disposition", disp);
        MHD_add_response_header(resp, "X-Posenc-Array", ar->npy_array);
    }
    return send_resp(ctx, c, rq, ar->status, resp, ar->content_type);
}

/* A problem response, with one extra header hname: hvalue when hname is not NULL. */
static enum MHD_Result send_problem_hdr(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                        api_problem_code code, const char *detail,
                                        const char *hname, const char *hvalue)
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
    if (hname)
        MHD_add_response_header(resp, hname, hvalue);
    return send_resp(ctx, c, rq, ar.status, resp, ar.content_type);
}

static enum MHD_Result send_problem(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                    api_problem_code code, const char *detail, const char *allow)
{
    return send_problem_hdr(ctx, c, rq, code, detail, allow ? MHD_HTTP_HEADER_ALLOW : NULL, allow);
}

/* ---- the budget for request bodies held in memory (budget.h, max_inflight_bytes) --------------
 */

/* Moves rq's reservation to want bytes. On a refusal rq->overloaded is set (the body is then
 * discarded and answered by send_overloaded) and -1 returned; nothing is reserved. */
/* Records a refusal of `more` bytes while `seen` were reserved (for send_overloaded); -1. */
static int refused(srv_req *rq, size_t more, size_t seen)
{
    rq->overloaded = 1;
    rq->ovl_more = more;
    rq->ovl_seen = seen;
    return -1;
}

static int req_hold(srv_ctx *ctx, srv_req *rq, size_t want)
{
    size_t seen = 0;
    if (srv_budget_hold(&ctx->budget, &rq->held, want, &seen) == 0)
        return 0;
    return refused(rq, want - rq->held, seen);
}

/* Refuses at the headers (503 overloaded, nothing read) a declared body that does not fit in the
 * budget now. Nothing is reserved: a client that declares a large body and then sends it slowly
 * holds only what has arrived (append_body), so a few slow uploads cannot make every other
 * request 503. Returns 0 when it fits, else -1 with rq->overloaded set as req_hold does. */
static int req_fits(srv_ctx *ctx, srv_req *rq, size_t declared)
{
    size_t seen = 0;
    if (srv_budget_fits(&ctx->budget, declared, &seen) == 0)
        return 0;
    return refused(rq, declared, seen);
}

/* The .safetensors parser's accounting hook (wire_st_hold_fn): its header buffer, then its table.
 * Such an upload has no body buffer, so rq->held is what the parser holds. */
static int st_hold(void *cls, size_t bytes)
{
    srv_req *rq = cls;
    return req_hold(rq->ctx, rq, bytes);
}

/* 503 overloaded, Retry-After: 1, with the figures of the refusal. */
static enum MHD_Result send_overloaded(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char d[256];
    snprintf(d, sizeof d,
             "request bodies held in memory would pass max_inflight_bytes (%zu): %zu bytes are "
             "held now and this request needs %zu more; retry later",
             ctx->budget.max, rq->ovl_seen, rq->ovl_more);
    srv_budget_note_refused(&ctx->budget);
    return send_problem_hdr(ctx, c, rq, API_PB_OVERLOADED, d, "Retry-After", "1");
}

/* The declared Content-Length (0 when absent or not a number). */
static unsigned long long declared_length(struct MHD_Connection *c)
{
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if (cl == NULL)
        return 0;
    char *end = NULL;
    unsigned long long n = strtoull(cl, &end, 10);
    return end != cl ? n : 0;
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
             "\"max_dim\":%zu,\"max_heads\":%zu,\"max_positions\":%zu,\"max_position\":%lld,"
             "\"max_work\":%zu,\"max_inflight_bytes\":%zu}",
             l->max_body_bytes, l->max_table_bytes, l->max_output_elements, l->max_dim,
             l->max_heads, l->max_positions, (long long)l->max_position, l->max_work,
             l->max_inflight_bytes);
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
    char *b = srv_metrics_render(ctx->metrics, ctx->api.cache, &ctx->budget, &len);
    if (b == NULL)
        return send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
    return send_buffer(ctx, c, rq, 200, "text/plain; version=0.0.4; charset=utf-8", b, len);
}

static enum MHD_Result get_spec(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (ctx->spec == NULL)
        return send_problem(ctx, c, rq, API_PB_NOT_FOUND, "openapi.yaml is not available", NULL);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(ctx->spec_len, ctx->spec, MHD_RESPMEM_PERSISTENT);
    rq->resp_bytes = ctx->spec_len;
    return send_resp(ctx, c, rq, 200, resp, "application/yaml");
}

static const struct {
    const char *ext;
    const char *type;
} MIME[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
    {".yaml", "application/yaml"},
    {".woff2", "font/woff2"},
    {".map", "application/json"},
};

/* Serves a file under web_dir. Paths with "..", "//" or a NUL are refused (404). */
/* The file under web_dir that path p names ("/" and "/docs" map to their index.html), into
 * file. Returns 0, or -1 when there is no web dir or p could escape it ("..", "//"). */
static int static_file(const srv_ctx *ctx, const char *p, char *file, size_t n)
{
    if (ctx->cfg->web_dir[0] == '\0' || strstr(p, "..") || strstr(p, "//") || p[0] != '/')
        return -1;
    int r;
    if (strcmp(p, "/") == 0 || strcmp(p, "/docs") == 0 || strcmp(p, "/docs/") == 0)
        r = snprintf(file, n, "%s%s", ctx->cfg->web_dir,
                     p[1] == 'd' ? "/docs/index.html" : "/index.html");
    else
        r = snprintf(file, n, "%s%s", ctx->cfg->web_dir, p);
    return (r < 0 || (size_t)r >= n) ? -1 : 0;
}

/* 1 when p names a regular file that get_static would serve. */
static int static_exists(const srv_ctx *ctx, const char *p)
{
    char file[1024];
    struct stat st;
    return static_file(ctx, p, file, sizeof file) == 0 && stat(file, &st) == 0 &&
           S_ISREG(st.st_mode);
}

static enum MHD_Result get_static(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char file[1024];
    if (static_file(ctx, rq->path, file, sizeof file) != 0)
        return send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such resource", NULL);
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
    /* HTML revalidates every time so a new deployment is seen at once; assets are cached briefly.
     */
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
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
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

/* ---- learned tables: /tables, /tables/{name} (api.md "Learned tables"; store/store.h) ------- */

/* created_ms as RFC 3339 UTC with milliseconds, or JSON null (built-in). */
static void jw_created(wire_jw *w, int64_t ms)
{
    if (ms < 0) {
        wire_jw_null(w);
        return;
    }
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char ts[40], full[48];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(full, sizeof full, "%s.%03dZ", ts, (int)(ms % 1000));
    wire_jw_str(w, full);
}

/* {name, shape, dtype, format, bytes, created, builtin[, tensor]} */
static void jw_table_info(wire_jw *w, const store_table_info *i, const char *tensor)
{
    wire_jw_obj_begin(w);
    wire_jw_key(w, "name");
    wire_jw_str(w, i->name);
    wire_jw_key(w, "shape");
    wire_jw_arr_begin(w);
    wire_jw_int(w, (int64_t)i->rows);
    wire_jw_int(w, (int64_t)i->cols);
    wire_jw_arr_end(w);
    wire_jw_key(w, "dtype");
    wire_jw_str(w, wire_dtype_name(i->dtype));
    wire_jw_key(w, "format");
    wire_jw_str(w, i->format);
    wire_jw_key(w, "bytes");
    wire_jw_int(w, (int64_t)(i->rows * i->cols * sizeof(double)));
    wire_jw_key(w, "created");
    jw_created(w, i->created_ms);
    wire_jw_key(w, "builtin");
    wire_jw_bool(w, i->builtin);
    if (tensor) {
        wire_jw_key(w, "tensor");
        wire_jw_str(w, tensor);
    }
    wire_jw_obj_end(w);
}

static enum MHD_Result send_jw(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, int status,
                               wire_jw *w, const char *location)
{
    size_t len = 0;
    char *b = wire_jw_take(w, &len);
    if (b == NULL)
        return send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
    struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback(len, b, &free);
    if (resp == NULL) {
        free(b);
        return MHD_NO;
    }
    if (location)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, location);
    rq->resp_bytes = len;
    return send_resp(ctx, c, rq, status, resp, "application/json");
}

static enum MHD_Result bad_table_name(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    return send_problem(ctx, c, rq, API_PB_NOT_FOUND,
                        "no such table: names match [A-Za-z0-9][A-Za-z0-9._-]{0,63}", NULL);
}

static enum MHD_Result tables_list(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    store_table_info *v = NULL;
    size_t n = 0;
    if (store_list(ctx->store, &v, &n) < 0)
        return send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
    wire_jw w;
    wire_jw_init(&w, (size_t)1 << 26);
    wire_jw_obj_begin(&w);
    wire_jw_key(&w, "tables");
    wire_jw_arr_begin(&w);
    for (size_t i = 0; i < n; i++)
        jw_table_info(&w, &v[i], NULL);
    wire_jw_arr_end(&w);
    wire_jw_obj_end(&w);
    free(v);
    return send_jw(ctx, c, rq, 200, &w, NULL);
}

/* The .npy download: the 1.0 header, then the float64 rows straight from the acquired table. */
typedef struct {
    store_dir *store;
    const store_table *t;
    char hdr[WIRE_NPY_F64_HEADER_MAX];
    size_t hl;
} npy_download;

static ssize_t npy_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    const npy_download *d = cls;
    uint64_t data_bytes = (uint64_t)d->t->rows * d->t->cols * sizeof(double);
    if (pos >= d->hl + data_bytes)
        return MHD_CONTENT_READER_END_OF_STREAM;
    size_t out = 0;
    if (pos < d->hl) {
        out = d->hl - (size_t)pos < max ? d->hl - (size_t)pos : max;
        memcpy(buf, d->hdr + pos, out);
    }
    uint64_t b = pos + out - d->hl; /* first data byte to send */
    size_t k = data_bytes - b < max - out ? (size_t)(data_bytes - b) : max - out;
    const uint16_t one = 1;
    if (*(const unsigned char *)&one == 1) {
        memcpy(buf + out, (const unsigned char *)d->t->data + b, k);
    } else { /* big-endian host: .npy says '<f8' */
        for (size_t i = 0; i < k; i++) {
            uint64_t bits;
            memcpy(&bits, &d->t->data[(b + i) / 8], sizeof bits);
            buf[out + i] = (char)(bits >> (8 * ((b + i) % 8)));
        }
    }
    return (ssize_t)(out + k);
}

static void npy_done(void *cls)
{
    npy_download *d = cls;
    store_release(d->store, d->t);
    free(d);
}

/* 1 when the Accept header asks for application/x-npy. */
static int wants_npy(struct MHD_Connection *c)
{
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    for (; a && *a; a++) {
        if (strncasecmp(a, "application/x-npy", 17) == 0)
            return 1;
    }
    return 0;
}

static enum MHD_Result table_get(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                 const char *name)
{
    const store_table *t = store_acquire(ctx->store, name);
    if (t == NULL) {
        char d[160];
        snprintf(d, sizeof d, "no table named \"%s\"", name);
        return send_problem(ctx, c, rq, API_PB_NOT_FOUND, d, NULL);
    }
    if (!wants_npy(c)) {
        store_table_info info;
        store_info(t, &info);
        store_release(ctx->store, t);
        wire_jw w;
        wire_jw_init(&w, 1u << 16);
        jw_table_info(&w, &info, NULL);
        return send_jw(ctx, c, rq, 200, &w, NULL);
    }
    npy_download *d = calloc(1, sizeof *d);
    if (d == NULL) {
        store_release(ctx->store, t);
        return send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
    }
    d->store = ctx->store;
    d->t = t;
    d->hl = wire_npy_f64_header(d->hdr, sizeof d->hdr, t->rows, t->cols);
    uint64_t total = d->hl + (uint64_t)t->rows * t->cols * sizeof(double);
    struct MHD_Response *resp =
        MHD_create_response_from_callback(total, 64 * 1024, npy_read, d, npy_done);
    if (resp == NULL) {
        npy_done(d);
        return MHD_NO;
    }
    char disp[128];
    snprintf(disp, sizeof disp, "attachment; filename=\"%s.npy\"", name);
    MHD_add_response_header(resp, "Content-Disposition", disp);
    rq->resp_bytes = (size_t)total;
    return send_resp(ctx, c, rq, 200, resp, "application/x-npy");
}

static enum MHD_Result table_delete(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                    const char *name)
{
    char err[256], d[200];
    switch (store_delete(ctx->store, name, err, sizeof err)) {
    case STORE_DELETED: {
        struct MHD_Response *resp =
            MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        return send_resp(ctx, c, rq, 204, resp, NULL);
    }
    case STORE_BUILTIN_NAME:
        snprintf(d, sizeof d, "\"%s\" is built in and cannot be deleted", name);
        return send_problem(ctx, c, rq, API_PB_CONFLICT, d, NULL);
    case STORE_NOT_FOUND:
        snprintf(d, sizeof d, "no table named \"%s\"", name);
        return send_problem(ctx, c, rq, API_PB_NOT_FOUND, d, NULL);
    case STORE_BAD_NAME:
        return bad_table_name(ctx, c, rq);
    default:
        return send_problem(ctx, c, rq, API_PB_UNAVAILABLE, err[0] ? err : "cannot delete", NULL);
    }
}

/* GET|HEAD /tables, GET|HEAD|DELETE /tables/{name} (PUT is an upload: table_put_*). */
static enum MHD_Result dispatch_tables(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    int is_get = strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0;
    int is_options = strcmp(rq->method, "OPTIONS") == 0;
    if (strcmp(rq->path, "/tables") == 0) {
        rq->label = is_options ? "options" : "tables";
        if (is_options)
            return preflight(ctx, c, rq, "GET, HEAD, OPTIONS");
        if (!is_get)
            return send_problem(ctx, c, rq, API_PB_METHOD_NOT_ALLOWED,
                                "/tables takes GET (PUT /tables/{name} stores a table)",
                                "GET, HEAD, OPTIONS");
        return tables_list(ctx, c, rq);
    }
    const char *name = rq->path + 8;
    rq->label = is_options ? "options" : "table";
    if (is_options)
        return preflight(ctx, c, rq, TABLE_ALLOW);
    int is_delete = strcmp(rq->method, "DELETE") == 0;
    if (!is_get && !is_delete)
        return send_problem(ctx, c, rq, API_PB_METHOD_NOT_ALLOWED,
                            "/tables/{name} takes GET, PUT and DELETE", TABLE_ALLOW);
    if (!store_name_valid(name))
        return bad_table_name(ctx, c, rq);
    return is_get ? table_get(ctx, c, rq, name) : table_delete(ctx, c, rq, name);
}

/* The media type of ct (before any ';', trimmed) equals type, ignoring case. */
static int media_is(const char *ct, const char *type)
{
    if (ct == NULL)
        return 0;
    size_t n = strlen(type);
    if (strncasecmp(ct, type, n) != 0)
        return 0;
    const char *rest = ct + n;
    while (*rest == ' ' || *rest == '\t')
        rest++;
    return *rest == '\0' || *rest == ';';
}

/* First call of PUT /tables/{name} (headers only): refuse at once what cannot succeed. JSON and
 * .npy bodies are buffered up to max_body_bytes; .safetensors is streamed with no body cap (the
 * kept tensor is bounded by max_table_bytes instead). Both count against the budget: a declared
 * length that does not fit is refused here (req_fits), a buffered body is reserved as it arrives
 * (append_body), the streamed parser reserves its header, then its table (st_hold). */
static enum MHD_Result table_put_headers(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                         const char *name)
{
    rq->label = "table_put";
    if (atomic_load(&ctx->draining))
        return send_problem(ctx, c, rq, API_PB_SHUTTING_DOWN, "the server is draining", NULL);
    if (!store_name_valid(name))
        return bad_table_name(ctx, c, rq);
    snprintf(rq->table, sizeof rq->table, "%s", name);
    if (strcmp(name, STORE_BUILTIN) == 0)
        return send_problem(ctx, c, rq, API_PB_CONFLICT,
                            "\"" STORE_BUILTIN "\" is built in and cannot be replaced", NULL);
    if (!store_writable(ctx->store))
        return send_problem(ctx, c, rq, API_PB_UNAVAILABLE,
                            "no usable data directory (--data-dir): tables cannot be stored", NULL);
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    if (json_content_type(ct))
        rq->put_format = PUT_JSON;
    else if (media_is(ct, "application/x-npy"))
        rq->put_format = PUT_NPY;
    else if (media_is(ct, "application/x-safetensors") || media_is(ct, "application/octet-stream"))
        rq->put_format = PUT_ST;
    else
        return send_problem(ctx, c, rq, API_PB_UNSUPPORTED_MEDIA_TYPE,
                            "Content-Type must be application/json ({\"data\": [[...]]}), "
                            "application/x-npy (.npy) or application/x-safetensors / "
                            "application/octet-stream (.safetensors)",
                            NULL);
    if (rq->put_format == PUT_ST) {
        rq->st = malloc(sizeof *rq->st);
        const char *want = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "tensor");
        /* the JSON header is capped by max_body_bytes (it is body text held in memory), the
         * kept tensor by max_table_bytes */
        if (rq->st == NULL || wire_st_init(rq->st, want, ctx->cfg->lim.max_body_bytes,
                                           ctx->cfg->lim.max_table_bytes) < 0)
            return send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
        wire_st_set_hold(rq->st, st_hold, rq); /* what it keeps counts against the budget */
        return MHD_YES;
    }
    unsigned long long n = declared_length(c);
    if (n > ctx->cfg->lim.max_body_bytes) {
        char d[200];
        snprintf(d, sizeof d,
                 "the body of %llu bytes exceeds max_body_bytes (%zu); a .safetensors upload "
                 "is streamed without that cap",
                 n, ctx->cfg->lim.max_body_bytes);
        return send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
    }
    rq->declared = (size_t)n;
    if (req_fits(ctx, rq, rq->declared) < 0) /* before any of the body is read */
        return send_overloaded(ctx, c, rq);
    return MHD_YES;
}

/* Final call of PUT /tables/{name}: parse, store durably, answer 201 / 200. */
static enum MHD_Result table_put_finish(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (rq->too_big) {
        char d[128];
        snprintf(d, sizeof d, "the body exceeds max_body_bytes (%zu)",
                 ctx->cfg->lim.max_body_bytes);
        return send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
    }
    if (rq->overloaded) /* the body was discarded: nothing is parsed or stored */
        return send_overloaded(ctx, c, rq);
    api_problem pb;
    api_problem_init(&pb);
    wire_tensor t;
    const char *tensor = NULL;
    size_t max_table = ctx->cfg->lim.max_table_bytes;
    int rc;
    wire_err we;
    wire_err_init(&we);
    if (rq->put_format == PUT_JSON)
        rc = api_table_json_parse(rq->buf, rq->len, max_table, &t, &pb);
    else if (rq->put_format == PUT_NPY)
        rc = wire_npy_parse(rq->buf ? rq->buf : "", rq->len, max_table, 0, &t, NULL, &we);
    else
        rc = wire_st_finish(rq->st, &t, &tensor, &we);
    api_problem_from_wire(&pb, &we);
    free(rq->buf);
    rq->buf = NULL;
    if (rq->put_format != PUT_ST || rc < 0) /* the body buffer is gone (a failed stream's too) */
        srv_budget_hold(&ctx->budget, &rq->held, 0, NULL);
    if (rc < 0) {
        api_response ar;
        api_problem_response(&pb, rq->request_id, &ar);
        return send_api(ctx, c, rq, &ar);
    }
    store_table_info info;
    char err[256], d[200];
    store_result r =
        store_put(ctx->store, rq->table, &t, PUT_FORMATS[rq->put_format], &info, err, sizeof err);
    srv_budget_hold(&ctx->budget, &rq->held, 0, NULL); /* a streamed table: stored or freed now */
    if (r == STORE_CREATED || r == STORE_REPLACED) {
        wire_jw w;
        wire_jw_init(&w, 1u << 16);
        jw_table_info(&w, &info, tensor);
        char loc[96];
        snprintf(loc, sizeof loc, "/tables/%s", rq->table);
        return send_jw(ctx, c, rq, r == STORE_CREATED ? 201 : 200, &w, loc);
    }
    if (r == STORE_BUILTIN_NAME) {
        snprintf(d, sizeof d, "\"%s\" is built in and cannot be replaced", rq->table);
        return send_problem(ctx, c, rq, API_PB_CONFLICT, d, NULL);
    }
    if (r == STORE_BAD_NAME)
        return bad_table_name(ctx, c, rq);
    return send_problem(ctx, c, rq, API_PB_UNAVAILABLE,
                        r == STORE_IO      ? err
                        : r == STORE_NOMEM ? "out of memory"
                                           : "no usable data directory",
                        NULL);
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
    if (strcmp(url, "/tables") == 0 || strncmp(url, "/tables/", 8) == 0)
        return dispatch_tables(ctx, c, rq);
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
        if (static_exists(ctx, url))
            return send_problem(ctx, c, rq, API_PB_METHOD_NOT_ALLOWED, "this resource takes GET",
                                "GET, HEAD, OPTIONS");
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
    unsigned long long n = declared_length(c);
    if (n > ctx->cfg->lim.max_body_bytes) {
        char d[128];
        snprintf(d, sizeof d, "the body of %llu bytes exceeds max_body_bytes (%zu)", n,
                 ctx->cfg->lim.max_body_bytes);
        return send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
    }
    rq->declared = (size_t)n;
    if (req_fits(ctx, rq, rq->declared) < 0) /* before any of the body is read */
        return send_overloaded(ctx, c, rq);
    return MHD_YES; /* the body follows */
}

/* Drops the body buffer and its reservation (the rest of the body is discarded). */
static void drop_body(srv_ctx *ctx, srv_req *rq)
{
    free(rq->buf);
    rq->buf = NULL;
    rq->len = rq->cap = 0;
    srv_budget_hold(&ctx->budget, &rq->held, 0, NULL);
}

/* Appends one piece of a buffered body (compute POST, JSON / .npy PUT), up to max_body_bytes; past
 * it the body is discarded and the final call answers 413. The buffer grows by doubling from 4 KiB
 * (the last growth no larger than the declared length); each growth is reserved in the budget
 * first, and a refusal discards the body (the final call answers 503 overloaded). */
static enum MHD_Result append_body(srv_ctx *ctx, srv_req *rq, const char *upload, size_t n)
{
    if (rq->too_big || rq->overloaded)
        return MHD_YES;
    if (n > ctx->cfg->lim.max_body_bytes - rq->len) {
        rq->too_big = 1;
        drop_body(ctx, rq);
        return MHD_YES;
    }
    if (rq->len + n > rq->cap) {
        size_t ncap = rq->cap ? rq->cap : 4096;
        while (ncap < rq->len + n)
            ncap *= 2;
        if (ncap > ctx->cfg->lim.max_body_bytes)
            ncap = ctx->cfg->lim.max_body_bytes;
        if (rq->declared >= rq->len + n && ncap > rq->declared)
            ncap = rq->declared; /* the last growth: no more than the declared length */
        if (req_hold(ctx, rq, ncap) < 0) {
            drop_body(ctx, rq);
            return MHD_YES;
        }
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

/* Runs a compute request (on a pool thread, or inline) and resumes its connection; MHD then calls
 * the access handler again, which sends rq->ar. */
static void compute_job(void *arg)
{
    srv_req *rq = arg;
    api_handle_route(&rq->ctx->api, rq->route, rq->buf, rq->len, rq->request_id, &rq->opts,
                     &rq->ar);
    free(rq->buf);
    rq->buf = NULL;
    srv_budget_hold(&rq->ctx->budget, &rq->held, 0, NULL); /* before the resume: see on_completed */
    MHD_resume_connection(rq->conn);
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
        rq->ctx = ctx;
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
        if (strcmp(method, "PUT") == 0 && strncmp(url, "/tables/", 8) == 0) {
            rq->table_put = 1;
            return table_put_headers(ctx, c, rq, url + 8);
        }
        return MHD_YES; /* answered on the next call, keeping the connection alive */
    }
    if (rq->queued || !(rq->compute || rq->table_put)) {
        if (*upload_size > 0) {
            *upload_size = 0; /* a body nobody reads (or after an early 413/415): discard */
            return MHD_YES;
        }
        return rq->queued ? MHD_YES : dispatch_other(ctx, c, rq);
    }
    if (*upload_size > 0) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (rq->st) { /* streamed: only the wanted tensor is kept; errors are sticky */
            wire_st_feed(rq->st, upload, n);
            return MHD_YES;
        }
        return append_body(ctx, rq, upload, n);
    }
    if (rq->table_put)
        return table_put_finish(ctx, c, rq);
    /* final call: the whole body is here */
    if (rq->too_big) {
        char d[128];
        snprintf(d, sizeof d, "the body exceeds max_body_bytes (%zu)",
                 ctx->cfg->lim.max_body_bytes);
        return send_problem(ctx, c, rq, API_PB_TOO_LARGE, d, NULL);
    }
    if (rq->overloaded) /* the budget refused the body while it arrived: never computed */
        return send_overloaded(ctx, c, rq);
    if (rq->submitted) /* resumed: the pool job computed the response */
        return send_api(ctx, c, rq, &rq->ar);
    rq->opts = (api_opts){
        .npy = wire_accept_npy(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept")),
        .stream = 1,
    };
    rq->conn = c;
    rq->submitted = 1;
    /* Compute on a pool thread with the connection suspended, so that this HTTP thread keeps
     * serving its other connections; without a pool (or if it refuses) compute right here. */
    MHD_suspend_connection(c);
    if (ctx->pool == NULL || srv_pool_submit(ctx->pool, compute_job, rq) != 0)
        compute_job(rq);
    return MHD_YES;
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
        printf("%s %s %s %d %zu %.3fms id=%s%s\n", ts, rq->method, rq->path, status, rq->resp_bytes,
               secs * 1e3, rq->request_id,
               toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
    fflush(stdout);
    free(rq->buf);
    if (rq->st) {
        wire_st_free(rq->st); /* reports 0 held to st_hold */
        free(rq->st);
    }
    /* whatever this request still holds (also after an abort: this runs for every request) */
    srv_budget_hold(&ctx->budget, &rq->held, 0, NULL);
    api_response_free(&rq->ar); /* a pool result that was never sent (client gone) */
    free(rq);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes s in place like MHD's default, except that "%00" stays as it is: a decoded NUL
 * would silently cut the path short ("/tables/a%00b" would address table "a"). Returns the new
 * length. Used for the path and the query arguments. */
static size_t unescape_keep_nul(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    char *w = s;
    for (const char *r = s; *r; r++) {
        int hi = r[0] == '%' ? hex_digit(r[1]) : -1;
        int lo = hi >= 0 ? hex_digit(r[2]) : -1;
        if (lo >= 0 && (hi | lo) != 0) {
            *w++ = (char)(hi * 16 + lo);
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

/* Counts open connections, for the accept policy below. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)c;
    (void)socket_ctx;
    srv_ctx *ctx = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        atomic_fetch_add(&ctx->open_conns, 1);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
        atomic_fetch_sub(&ctx->open_conns, 1);
}

/* Refuses (accepts and closes at once) a connection past --connection-limit. MHD 0.9.75's own
 * limit instead stops accepting, which leaves new clients hanging in the listen backlog while
 * slow clients hold the slots; so MHD's limit is set to twice ours and this decides. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)addr;
    (void)len;
    srv_ctx *ctx = cls;
    return atomic_load(&ctx->open_conns) >= ctx->cfg->connection_limit ? MHD_NO : MHD_YES;
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
    unsigned compute = cfg->compute_threads;
    if (compute == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        compute = n > 0 ? (unsigned)n : 2;
    }
    ctx->pool = srv_pool_create(compute);
    if (ctx->pool == NULL)
        fprintf(stderr, "posencd: warning: no compute threads; computing on the HTTP threads\n");
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0,
        &accept_policy, ctx, &on_request, ctx, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned int)cfg->connection_timeout, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned int)cfg->connection_limit * 2u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)cfg->connection_memory, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1, MHD_OPTION_NOTIFY_COMPLETED,
        &on_completed, ctx, MHD_OPTION_UNESCAPE_CALLBACK, &unescape_keep_nul, NULL,
        MHD_OPTION_NOTIFY_CONNECTION, &on_connection, ctx, MHD_OPTION_END);
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
    MHD_socket ls = MHD_quiesce_daemon(d);
    /* Stop listening now: new connects are refused instead of parked in the backlog (where they
     * would be reset when the socket closes). The descriptor stays valid until MHD_stop_daemon,
     * as MHD requires for a quiesced socket. Draining starts only after that, so no client gets
     * Connection: close while a reconnect could still land in the backlog. */
    if (ls != MHD_INVALID_SOCKET)
        shutdown(ls, SHUT_RDWR);
    atomic_store(&ctx->draining, 1);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (now_since(&t0) < (double)ctx->cfg->drain_seconds) {
        const union MHD_DaemonInfo *info =
            MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        if (info == NULL || info->num_connections == 0)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* finish the computations in flight (their connections resume) before MHD stops; requests
     * arriving from now on compute on the HTTP threads */
    if (ctx->pool)
        srv_pool_stop(ctx->pool);
    MHD_stop_daemon(d);
    srv_pool_destroy(ctx->pool);
    ctx->pool = NULL;
    if (ls != MHD_INVALID_SOCKET)
        close(ls);
}
