/* tests/lib/http_util.c -- see http_util.h. */
#define _GNU_SOURCE
#include "tests/lib/http_util.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int th_server_start(th_server *s, const char *const *extra_args)
{
    const char *bin = getenv("POSENC_BIN");
    if (bin == NULL)
        bin = "build/posencd";
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    const char *argv[40];
    int n = 0;
    argv[n++] = bin;
    argv[n++] = "--bind";
    argv[n++] = "127.0.0.1";
    argv[n++] = "--port";
    argv[n++] = "0";
    for (int i = 0; extra_args && extra_args[i] && n < 38; i++)
        argv[n++] = extra_args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    char line[256];
    s->pid = pid;
    s->port = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "listening on http://");
        if (p) {
            const char *colon = strrchr(p, ':');
            s->port = (unsigned)strtoul(colon + 1, NULL, 10);
            break;
        }
    }
    /* keep draining the access log in a child so the daemon never blocks on a full pipe */
    if (fork() == 0) {
        char buf[4096];
        while (f && fread(buf, 1, sizeof buf, f) > 0)
            ;
        _exit(0);
    }
    if (f)
        fclose(f);
    return s->port ? 0 : -1;
}

int th_server_stop(th_server *s)
{
    if (s->pid <= 0)
        return -1;
    kill(s->pid, SIGTERM);
    int st = 0;
    if (waitpid(s->pid, &st, 0) != s->pid)
        return -1;
    s->pid = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

size_t th_curl_on_body(char *p, size_t sz, size_t n, void *ud)
{
    th_resp *r = ud;
    size_t add = sz * n;
    char *nb = realloc(r->body, r->len + add + 1);
    if (nb == NULL)
        return 0;
    memcpy(nb + r->len, p, add);
    r->body = nb;
    r->len += add;
    r->body[r->len] = '\0';
    return add;
}

size_t th_curl_on_header(char *p, size_t sz, size_t n, void *ud)
{
    th_resp *r = ud;
    size_t add = sz * n;
    size_t have = strlen(r->headers);
    if (have + add < sizeof r->headers) {
        memcpy(r->headers + have, p, add);
        r->headers[have + add] = '\0';
    }
    return add;
}

int th_request(const th_server *s, const char *method, const char *path, const char *content_type,
               const char *body, size_t len, int chunked, th_resp *r)
{
    memset(r, 0, sizeof *r);
    CURL *c = curl_easy_init();
    if (c == NULL)
        return -1;
    char url[512];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", s->port, path);
    struct curl_slist *h = NULL;
    char ct[256];
    if (content_type) {
        snprintf(ct, sizeof ct, "Content-Type: %s", content_type);
        h = curl_slist_append(h, ct);
    }
    h = curl_slist_append(h, "Expect:");
    if (chunked)
        h = curl_slist_append(h, "Transfer-Encoding: chunked");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        if (!chunked)
            curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, th_curl_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, th_curl_on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (r->body == NULL) {
        r->body = calloc(1, 1);
    }
    return rc == CURLE_OK ? 0 : -1;
}

int th_post(const th_server *s, const char *path, const char *json, th_resp *r)
{
    return th_request(s, "POST", path, "application/json", json, strlen(json), 0, r);
}

void th_resp_free(th_resp *r)
{
    free(r->body);
    r->body = NULL;
}

/* Writes all n bytes of p to fd. Returns 0 or -1. */
static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int th_raw_open(const th_server *s, const char *raw, size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)s->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 || write_all(fd, raw, len) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int th_raw_abandon(const th_server *s, const char *raw, size_t len)
{
    if (kill(s->pid, SIGSTOP) != 0)
        return -1;
    int fd = th_raw_open(s, raw, len);
    if (fd >= 0)
        close(fd);
    int rc = kill(s->pid, SIGCONT);
    return fd >= 0 && rc == 0 ? 0 : -1;
}

int th_raw_half_closed(const th_server *s, const char *raw, size_t len, th_resp *r)
{
    memset(r, 0, sizeof *r);
    if (kill(s->pid, SIGSTOP) != 0)
        return -1;
    int fd = th_raw_open(s, raw, len);
    if (fd >= 0)
        shutdown(fd, SHUT_WR);
    if (kill(s->pid, SIGCONT) != 0 || fd < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return th_raw_finish(fd, raw, 0, r);
}

int th_raw_finish(int fd, const char *raw, size_t len, th_resp *r)
{
    memset(r, 0, sizeof *r);
    if (write_all(fd, raw, len) != 0) {
        close(fd);
        return -1;
    }
    struct timeval tv = {20, 0}; /* never hang a test */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[65536];
    size_t got = 0;
    ssize_t k;
    while (got + 1 < sizeof buf && (k = read(fd, buf + got, sizeof buf - 1 - got)) > 0) {
        got += (size_t)k;
        buf[got] = '\0';
        const char *hdr_end = strstr(buf, "\r\n\r\n");
        const char *cl = strcasestr(buf, "Content-Length:");
        if (hdr_end && cl && got >= (size_t)(hdr_end + 4 - buf) + strtoul(cl + 15, NULL, 10))
            break;
    }
    close(fd);
    buf[got] = '\0';
    if (got < 12)
        return -1;
    r->status = strtol(buf + 9, NULL, 10);
    const char *hdr_end = strstr(buf, "\r\n\r\n");
    const char *b = hdr_end ? hdr_end + 4 : buf + got;
    size_t hl = (size_t)(b - buf) < sizeof r->headers ? (size_t)(b - buf) : sizeof r->headers - 1;
    memcpy(r->headers, buf, hl);
    r->headers[hl] = '\0';
    r->len = strlen(b);
    r->body = malloc(r->len + 1);
    if (r->body)
        memcpy(r->body, b, r->len + 1);
    return 0;
}

int th_raw_pieces(const th_server *s, const char *raw, size_t len, size_t piece, int pause_ms,
                  th_resp *r)
{
    memset(r, 0, sizeof *r);
    int fd = th_raw_open(s, "", 0);
    if (fd < 0)
        return -1;
    for (size_t off = 0; off < len; off += piece) {
        size_t n = len - off < piece ? len - off : piece;
        if (write_all(fd, raw + off, n) != 0) {
            close(fd);
            return -1;
        }
        struct timespec ts = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return th_raw_finish(fd, "", 0, r);
}
