/* server/static.c -- the demo's files under --web-dir (request.h). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

enum MHD_Result srv_get_static(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char file[1024];
    if (static_file(ctx, rq->path, file, sizeof file) != 0)
        return srv_send_problem(ctx, c, rq, API_PB_NOT_FOUND, "no such resource", NULL);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
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
    return srv_send_resp(ctx, c, rq, 200, resp, type);
}
