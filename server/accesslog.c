/*
 * server/accesslog.c -- one access-log line per request on stdout (request.h), in the text or the
 * JSON format (--log-format). Every field is escaped, whatever the client sent: a decoded "%0a" in
 * the path cannot start a forged line, a '"' in the method cannot end a JSON string, and invalid
 * UTF-8 never reaches a JSON line (each line is valid JSON, RFC 8259).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "server/request.h"

/* Length of the valid UTF-8 sequence at s[0..n) (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return len;
}

/* Escapes s into out (always NUL-terminated, cut at a whole escape when full). json: the inside of
 * a JSON string (\" \\ \uXXXX for controls, U+FFFD for each invalid UTF-8 byte); text: printable
 * ASCII as is except '\\' and '"', every other byte as \xHH (so a line stays one line of ASCII
 * without spaces). */
void srv_log_escape(const char *s, int json, char *out, size_t n)
{
    static const char HEX[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), w = 0;
    for (size_t i = 0; i < len;) {
        /* the escape of p[i] into tmp, t bytes, consuming k input bytes (written by hand: this
         * runs for every byte of every logged method, path and id, and a snprintf per byte was
         * about 1 % of a small request's CPU time) */
        char tmp[8];
        size_t k = 1, t;
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)c;
            t = 2;
        } else if ((c > 0x20 && c < 0x7f) || (c == ' ' && json)) {
            tmp[0] = (char)c;
            t = 1;
        } else if (!json) {
            memcpy(tmp, "\\x", 2);
            tmp[2] = HEX[c >> 4];
            tmp[3] = HEX[c & 15];
            t = 4;
        } else if (c < 0x80) {
            memcpy(tmp, "\\u00", 4);
            tmp[4] = HEX[c >> 4];
            tmp[5] = HEX[c & 15];
            t = 6;
        } else if ((k = utf8_len(p + i, len - i)) > 0) {
            memcpy(tmp, p + i, k);
            t = k;
        } else {
            k = 1;
            memcpy(tmp, "\\ufffd", 6);
            t = 6;
        }
        if (w + t >= n)
            break;
        memcpy(out + w, tmp, t);
        w += t;
        i += k;
    }
    out[n ? (w < n ? w : n - 1) : 0] = '\0';
}

/* The UTC time of now as 2026-01-31T12:00:00Z into ts (at least 21 bytes): gmtime_r and strftime
 * once a second per thread, the string kept between. */
static void log_timestamp(char ts[32])
{
    static _Thread_local time_t last = (time_t)-1;
    static _Thread_local char text[32];
    time_t t = time(NULL);
    if (t != last) {
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
        last = t;
    }
    memcpy(ts, text, 32);
}

void srv_log_request(const srv_ctx *ctx, const srv_req *rq, int status, double secs, int completed)
{
    char ts[32];
    log_timestamp(ts);
    int json = strcmp(ctx->cfg->log_format, "json") == 0;
    char method[64], path[4 * sizeof rq->path], id[4 * sizeof rq->request_id];
    srv_log_escape(rq->method, json, method, sizeof method);
    srv_log_escape(json ? rq->label : rq->path, json, path, sizeof path);
    srv_log_escape(rq->request_id, json, id, sizeof id);
    if (json)
        printf("{\"ts\":\"%s\",\"method\":\"%s\",\"path\":\"%s\",\"status\":%d,\"bytes\":%zu,"
               "\"ms\":%.3f,\"request_id\":\"%s\",\"completed\":%s}\n",
               ts, method, path, status, rq->resp_bytes, secs * 1e3, id,
               completed ? "true" : "false");
    else
        printf("%s %s %s %d %zu %.3fms id=%s%s\n", ts, method, path, status, rq->resp_bytes,
               secs * 1e3, id, completed ? "" : " (aborted)");
    fflush(stdout);
}
