/* server/negotiate.c -- Accept and Content-Type (negotiate.h). */
#include "server/negotiate.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* q of one media range's parameters (";q=0.5"); 1 when absent, 0 when malformed. */
static double accept_q(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
            p++;
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            char tmp[16];
            size_t n = 0;
            p += 2;
            while (p < end && *p != ';' && n + 1 < sizeof tmp)
                tmp[n++] = *p++;
            tmp[n] = '\0';
            char *stop = NULL;
            double q = strtod(tmp, &stop);
            if (stop == tmp || !(q >= 0.0 && q <= 1.0))
                return 0.0;
            return q;
        }
        while (p < end && *p != ';')
            p++;
    }
    return 1.0;
}

/* 1 when the n bytes at p are the media type `type`, ignoring case. */
static int media_eq(const char *p, size_t n, const char *type)
{
    return n == strlen(type) && strncasecmp(p, type, n) == 0;
}

/* The q of each media range the answer may take (-1: not named) in an Accept header value. */
typedef struct {
    double npy, npz, json, wild;
} accept_qs;

static accept_qs accept_scan(const char *accept)
{
    accept_qs a = {-1.0, -1.0, -1.0, -1.0};
    const char *p = accept;
    while (p && *p) {
        const char *end = strchr(p, ',');
        if (end == NULL)
            end = p + strlen(p);
        const char *t = p;
        while (t < end && (*t == ' ' || *t == '\t'))
            t++;
        const char *te = t;
        while (te < end && *te != ';' && *te != ' ' && *te != '\t')
            te++;
        double q = accept_q(te, end);
        size_t n = (size_t)(te - t);
        if (media_eq(t, n, "application/x-npy") && q > a.npy)
            a.npy = q;
        else if (media_eq(t, n, "application/x-npz") && q > a.npz)
            a.npz = q;
        else if (media_eq(t, n, "application/json") && q > a.json)
            a.json = q;
        else if ((media_eq(t, n, "application/*") || media_eq(t, n, "*/*")) && q > a.wild)
            a.wild = q;
        p = *end ? end + 1 : end;
    }
    return a;
}

int srv_accept_npy(const char *accept)
{
    accept_qs a = accept_scan(accept);
    double json = a.json >= 0.0 ? a.json : a.wild;
    return a.npy > 0.0 && a.npy >= json;
}

srv_accept srv_accept_answer(const char *accept)
{
    accept_qs a = accept_scan(accept);
    double json = a.json >= 0.0 ? a.json : a.wild;
    if (a.npz > 0.0 && a.npz >= json && a.npz >= a.npy)
        return SRV_ACCEPT_NPZ;
    return a.npy > 0.0 && a.npy >= json ? SRV_ACCEPT_NPY : SRV_ACCEPT_JSON;
}

int srv_media_is(const char *ct, const char *type)
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

int srv_json_content_type(const char *ct)
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

api_table_format srv_table_format(const char *ct)
{
    if (srv_json_content_type(ct))
        return API_TABLE_JSON;
    if (srv_media_is(ct, "application/x-npy"))
        return API_TABLE_NPY;
    if (srv_media_is(ct, "application/x-safetensors") ||
        srv_media_is(ct, "application/octet-stream"))
        return API_TABLE_SAFETENSORS;
    return API_TABLE_UNSUPPORTED;
}
