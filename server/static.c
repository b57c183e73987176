/* server/static.c -- the demo's files under --web-dir (request.h). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/negotiate.h"
#include "server/request.h"

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

int srv_static_exists(const srv_ctx *ctx, const char *p)
{
    char file[1024];
    struct stat st;
    return static_file(ctx, p, file, sizeof file) == 0 && stat(file, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* 1 when `file` + suffix is a regular file no older and smaller than the original `st`: a stale or
 * useless precompressed copy (the page edited after `make`, a tiny file) is never sent. */
static int variant_ok(const char *file, const char *suffix, const struct stat *st)
{
    char v[1040];
    struct stat vs;
    int r = snprintf(v, sizeof v, "%s%s", file, suffix);
    if (r < 0 || (size_t)r >= sizeof v || stat(v, &vs) != 0 || !S_ISREG(vs.st_mode))
        return 0;
    if (vs.st_size >= st->st_size)
        return 0;
    return vs.st_mtim.tv_sec > st->st_mtim.tv_sec ||
           (vs.st_mtim.tv_sec == st->st_mtim.tv_sec && vs.st_mtim.tv_nsec >= st->st_mtim.tv_nsec);
}

enum MHD_Result srv_get_static(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char file[1040];
    if (static_file(ctx, rq->path, file, 1024) != 0)
        return srv_send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such resource", NULL);
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return srv_send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such resource", NULL);
    const char *type = "application/octet-stream";
    const char *dot = strrchr(file, '.');
    for (size_t i = 0; dot && i < sizeof MIME / sizeof MIME[0]; i++) {
        if (strcasecmp(dot, MIME[i].ext) == 0)
            type = MIME[i].type;
    }
    /* Precompressed copies next to the file (file.br, file.gz, written by `make`), chosen by
     * Accept-Encoding; the body is sent as stored, so Content-Length is the copy's size. */
    unsigned avail = (variant_ok(file, ".gz", &st) ? 1u << SRV_ENC_GZIP : 0) |
                     (variant_ok(file, ".br", &st) ? 1u << SRV_ENC_BR : 0);
    srv_encoding enc = srv_pick_encoding(
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING), avail);
    if (enc != SRV_ENC_IDENTITY) { /* file has 16 bytes spare past the 1024 static_file used */
        size_t n = strlen(file);
        memcpy(file + n, enc == SRV_ENC_BR ? ".br" : ".gz", 4);
    }
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return srv_send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such resource", NULL);
    }
    struct MHD_Response *resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
    if (resp == NULL) {
        close(fd);
        return MHD_NO;
    }
    /* HTML revalidates every time so a new deployment is seen at once; assets are cached briefly.
     * Every static answer may differ by Accept-Encoding (a copy can appear with the next `make`).
     */
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
                            strstr(type, "text/html") ? "no-cache" : "public, max-age=300");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    if (enc != SRV_ENC_IDENTITY)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING,
                                enc == SRV_ENC_BR ? "br" : "gzip");
    rq->resp_bytes = (size_t)st.st_size;
    return srv_send_resp(ctx, c, rq, 200, resp, type);
}
