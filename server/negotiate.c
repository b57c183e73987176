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

int srv_accept_npy(const char *accept)
{
    if (accept == NULL)
        return 0;
    double q_npy = -1.0, q_json = -1.0, q_wild = -1.0;
    const char *p = accept;
    while (*p) {
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
        if (media_eq(t, n, "application/x-npy") && q > q_npy)
            q_npy = q;
        else if (media_eq(t, n, "application/json") && q > q_json)
            q_json = q;
        else if ((media_eq(t, n, "application/*") || media_eq(t, n, "*/*")) && q > q_wild)
            q_wild = q;
        p = *end ? end + 1 : end;
    }
    double json = q_json >= 0.0 ? q_json : q_wild;
    return q_npy > 0.0 && q_npy >= json;
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
