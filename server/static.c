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

/* The file of request path p opened (open_under), or -1. */
static int static_open(const srv_ctx *ctx, const char *p, struct stat *st)
{
    char rel[1024];
    if (static_file(ctx, p, rel, sizeof rel) != 0 || rel[0] == '\0')
        return -1;
    return open_under(ctx->cfg->web_dir, rel, st);
}

int srv_static_exists(const srv_ctx *ctx, const char *p)
{
    struct stat st;
    int fd = static_open(ctx, p, &st);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

enum MHD_Result srv_get_static(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char file[1024];
    struct stat st;
    int fd = static_open(ctx, rq->path, &st);
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
