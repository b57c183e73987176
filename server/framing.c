/*
 * server/framing.c -- strict HTTP/1.1 framing, decided from the request headers before any of the
 * body is read (request.h). libmicrohttpd 0.9.75 is lenient where RFC 9112 asks a server to refuse:
 * it lets Transfer-Encoding override a Content-Length (request smuggling behind a proxy that reads
 * the other one), keeps the first of two Content-Lengths, files "Transfer-Encoding : chunked" under
 * a name with a trailing space, and serves HTTP/1.1 without Host. Each is refused here with 400.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/request.h"

/* What the header walk finds. */
typedef struct {
    unsigned n_cl, n_te, n_host;
    const char *cl;       /* the first Content-Length */
    int cl_differs;       /* a later Content-Length differs from the first */
    int cl_bad;           /* a Content-Length that is not digits only */
    const char *te;       /* the first Transfer-Encoding */
    const char *bad_name; /* a field name with whitespace or a control character in it */
} framing_scan;

static int digits_only(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
    }
    return 1;
}

static enum MHD_Result scan_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    framing_scan *f = cls;
    for (const char *p = key; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch <= ' ' || ch == 0x7f) {
            if (f->bad_name == NULL)
                f->bad_name = key;
        }
    }
    if (value == NULL)
        value = "";
    if (strcasecmp(key, "Content-Length") == 0) {
        if (!digits_only(value))
            f->cl_bad = 1;
        if (f->n_cl++ == 0)
            f->cl = value;
        else if (strcmp(f->cl, value) != 0)
            f->cl_differs = 1;
    } else if (strcasecmp(key, "Transfer-Encoding") == 0) {
        if (f->n_te++ == 0)
            f->te = value;
    } else if (strcasecmp(key, "Host") == 0) {
        f->n_host++;
    }
    return MHD_YES;
}

int srv_framing_bad(struct MHD_Connection *c, const char *version, char *why, size_t n)
{
    framing_scan f;
    memset(&f, 0, sizeof f);
    MHD_get_connection_values(c, MHD_HEADER_KIND, &scan_header, &f);
    if (f.bad_name != NULL)
        snprintf(why, n,
                 "a header field name contains whitespace or a control character "
                 "(RFC 9112 section 5.1)");
    else if (f.n_cl > 0 && f.n_te > 0)
        snprintf(why, n,
                 "both Content-Length and Transfer-Encoding: the body's length is "
                 "ambiguous (RFC 9112 section 6.3)");
    else if (f.cl_differs)
        snprintf(why, n, "two different Content-Length values (RFC 9112 section 6.3)");
    else if (f.cl_bad)
        snprintf(why, n, "Content-Length is not a decimal number (RFC 9110 section 8.6)");
    else if (f.n_te > 1 || (f.n_te == 1 && strcasecmp(f.te, "chunked") != 0))
        snprintf(why, n,
                 "Transfer-Encoding must be exactly \"chunked\" (no other coding is "
                 "supported)");
    else if (strcmp(version, "HTTP/1.1") == 0 && f.n_host != 1)
        snprintf(why, n,
                 "an HTTP/1.1 request needs exactly one Host header (RFC 9112 section 3.2)");
    else
        return 0;
    return 1;
}

int srv_has_body(struct MHD_Connection *c)
{
    if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding") != NULL)
        return 1;
    return srv_declared_length(c) > 0;
}
