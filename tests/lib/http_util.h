/*
 * tests/lib/http_util.h -- start a real posencd on an ephemeral loopback port and speak HTTP to it
 * (libcurl), for the integration suites.
 */
#ifndef TESTS_HTTP_UTIL_H
#define TESTS_HTTP_UTIL_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
    pid_t pid;
    unsigned port;
} th_server;

/* Starts $POSENC_BIN (default build/posencd) with --bind 127.0.0.1 --port 0 plus extra args
 * (NULL-terminated) and waits for its "listening" line. Returns 0 or -1. */
int th_server_start(th_server *s, const char *const *extra_args);
/* SIGTERM, then waits; returns the exit status (or -1). */
int th_server_stop(th_server *s);

typedef struct {
    long status;
    char *body; /* NUL-terminated, malloc'd */
    size_t len;
    char headers[4096]; /* raw response headers */
} th_resp;

/* One request. content_type may be NULL; chunked sends the body with Transfer-Encoding: chunked.
 * Returns 0 when a response arrived. */
int th_request(const th_server *s, const char *method, const char *path, const char *content_type,
               const char *body, size_t len, int chunked, th_resp *r);
/* libcurl callbacks filling a th_resp (CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION with the
 * th_resp as their data): the body grows NUL-terminated, the raw headers fill r->headers (cut at
 * its size). */
size_t th_curl_on_body(char *p, size_t sz, size_t n, void *ud);
size_t th_curl_on_header(char *p, size_t sz, size_t n, void *ud);

/* POST JSON shortcut. */
int th_post(const th_server *s, const char *path, const char *json, th_resp *r);
void th_resp_free(th_resp *r);

/* Sends raw bytes over a socket in pieces of `piece` bytes with pause_ms between them, then reads
 * the response into r (status, raw headers and body). */
int th_raw_pieces(const th_server *s, const char *raw, size_t len, size_t piece, int pause_ms,
                  th_resp *r);

/* Opens a connection to s and writes raw[0..len) (say, a request's headers and part of its body),
 * leaving the request unfinished. Returns the socket, or -1. */
int th_raw_open(const th_server *s, const char *raw, size_t len);
/* Writes raw[0..len) (the rest of the request) to fd, reads one response into r (status, raw
 * headers and body; the request should say Connection: close unless the response has a
 * Content-Length) and closes fd. Returns 0 when a response arrived. */
int th_raw_finish(int fd, const char *raw, size_t len, th_resp *r);

/* Stops the daemon (SIGSTOP), opens a connection, writes raw[0..len) (a request cut off half-way
 * through its body), closes it and lets the daemon go on (SIGCONT): the bytes and the client's
 * FIN are all queued before the daemon reads any of them, the case libmicrohttpd 0.9.75 alone
 * notices only at --connection-timeout (server/upload.c, CLIENT GONE). raw must fit the socket
 * buffers (64 KiB is safe). Returns 0, or -1. */
int th_raw_abandon(const th_server *s, const char *raw, size_t len);
/* The same, but the client only half-closes (shutdown SHUT_WR, after a complete request) and then
 * reads the response into r (as th_raw_finish). Returns 0 when a response arrived. */
int th_raw_half_closed(const th_server *s, const char *raw, size_t len, th_resp *r);

#endif
