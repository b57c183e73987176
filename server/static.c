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

/* The path under web_dir that request path p names, without its leading '/' ("/" and "/docs" map
 * to their index.html), into file. Returns 0, or -1 when there is no web dir or p could escape it
 * ("..", "//"). */
static int static_file(const srv_ctx *ctx, const char *p, char *file, size_t n)
{
    if (ctx->cfg->web_dir[0] == '\0' || strstr(p, "..") || strstr(p, "//") || p[0] != '/')
        return -1;
    int r;
    if (strcmp(p, "/") == 0 || strcmp(p, "/docs") == 0 || strcmp(p, "/docs/") == 0)
        r = snprintf(file, n, "%s", p[1] == 'd' ? "docs/index.html" : "index.html");
    else
        r = snprintf(file, n, "%s", p + 1);
    return (r < 0 || (size_t)r >= n) ? -1 : 0;
}

/* Opens the regular file rel under web_dir one component at a time with O_NOFOLLOW, so that no
 * symbolic link under web_dir is followed (none can lead out of it), and with O_NONBLOCK, so that
 * a FIFO never blocks the thread (it is refused: only regular files are served). The descriptor,
 * with *st filled, or -1. web_dir itself may be a link. */
static int open_under(const char *web_dir, char *rel, struct stat *st)
{
    int dfd = open(web_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *save = NULL;
    char *part = strtok_r(rel, "/", &save);
    while (dfd >= 0 && part != NULL) {
        char *next = strtok_r(NULL, "/", &save);
        int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (next ? O_DIRECTORY : 0);
        int fd = openat(dfd, part, flags);
        close(dfd);
        dfd = fd;
        part = next;
        if (next == NULL)
            break;
    }
    if (dfd < 0)
        return -1;
    if (part != NULL || fstat(dfd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(dfd); /* no component at all ("" after the root), or not a regular file */
        return -1;
    }
    return dfd;
}

/* The file of request path p, with suffix appended (".gz", or "" for the file itself), opened
 * (open_under), or -1. */
static int static_open(const srv_ctx *ctx, const char *p, const char *suffix, struct stat *st)
{
    char rel[1040];
    if (static_file(ctx, p, rel, 1024) != 0 || rel[0] == '\0')
        return -1;
    size_t n = strlen(rel), k = strlen(suffix);
    if (n + k >= sizeof rel)
        return -1;
    memcpy(rel + n, suffix, k + 1);
    return open_under(ctx->cfg->web_dir, rel, st);
}

int srv_static_exists(const srv_ctx *ctx, const char *p)
{
    struct stat st;
    int fd = static_open(ctx, p, "", &st);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* 1 when the file of path p + suffix is a regular file no older and smaller than the original
 * `st`: a stale or useless precompressed copy (the page edited after `make`, a tiny file) is never
 * sent. */
static int variant_ok(const srv_ctx *ctx, const char *p, const char *suffix, const struct stat *st)
{
    struct stat vs;
    int fd = static_open(ctx, p, suffix, &vs);
    if (fd < 0)
        return 0;
    close(fd);
    if (vs.st_size >= st->st_size)
        return 0;
    return vs.st_mtim.tv_sec > st->st_mtim.tv_sec ||
           (vs.st_mtim.tv_sec == st->st_mtim.tv_sec && vs.st_mtim.tv_nsec >= st->st_mtim.tv_nsec);
}

enum MHD_Result srv_get_static(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char file[1024];
    struct stat st;
    int fd = static_open(ctx, rq->path, "", &st);
    if (fd < 0 || static_file(ctx, rq->path, file, sizeof file) != 0) {
        if (fd >= 0)
            close(fd);
        return srv_send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such resource", NULL);
    }
    const char *type = "application/octet-stream";
    const char *dot = strrchr(file, '.');
    for (size_t i = 0; dot && i < sizeof MIME / sizeof MIME[0]; i++) {
        if (strcasecmp(dot, MIME[i].ext) == 0)
            type = MIME[i].type;
    }
    /* Precompressed copies next to the file (file.br, file.gz, written by `make`), chosen by
     * Accept-Encoding; the body is sent as stored, so Content-Length is the copy's size. A copy is
     * opened as the file is (regular, no link followed). */
    unsigned avail = (variant_ok(ctx, rq->path, ".gz", &st) ? 1u << SRV_ENC_GZIP : 0) |
                     (variant_ok(ctx, rq->path, ".br", &st) ? 1u << SRV_ENC_BR : 0);
    srv_encoding enc = srv_pick_encoding(
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING), avail);
    if (enc != SRV_ENC_IDENTITY) {
        struct stat vs;
        int vfd = static_open(ctx, rq->path, enc == SRV_ENC_BR ? ".br" : ".gz", &vs);
        if (vfd >= 0) {
            close(fd);
            fd = vfd;
            st = vs;
        } else {
            enc = SRV_ENC_IDENTITY; /* gone since variant_ok: send the file itself */
        }
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
