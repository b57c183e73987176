/* server/negotiate.c -- Accept, Accept-Encoding and Content-Type (negotiate.h). */
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

/* Reads the list entry at *p (RFC 9110 "#" list: "name;params, name;params"): its name (trimmed,
 * before any ';') into *name / *n and its q into *q; moves *p past the entry's comma. Returns 0 at
 * the end of the list. Shared by Accept and Accept-Encoding. */
static int next_entry(const char **p, const char **name, size_t *n, double *q)
{
    if (**p == '\0')
        return 0;
    const char *end = strchr(*p, ',');
    if (end == NULL)
        end = *p + strlen(*p);
    const char *t = *p;
    while (t < end && (*t == ' ' || *t == '\t'))
        t++;
    const char *te = t;
    while (te < end && *te != ';' && *te != ' ' && *te != '\t')
        te++;
    *q = accept_q(te, end);
    *name = t;
    *n = (size_t)(te - t);
    *p = *end ? end + 1 : end;
    return 1;
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
    if (accept == NULL)
        return a;
    double q;
    const char *p = accept, *t;
    size_t n;
    while (next_entry(&p, &t, &n, &q)) {
        if (media_eq(t, n, "application/x-npy") && q > a.npy)
            a.npy = q;
        else if (media_eq(t, n, "application/x-npz") && q > a.npz)
            a.npz = q;
        else if (media_eq(t, n, "application/json") && q > a.json)
            a.json = q;
        else if ((media_eq(t, n, "application/*") || media_eq(t, n, "*/*")) && q > a.wild)
            a.wild = q;
    }
    return a;
}

int srv_accept_npy(const char *accept)
{
    accept_qs a = accept_scan(accept);
    double json = a.json >= 0.0 ? a.json : a.wild;
    return a.npy > 0.0 && a.npy >= json;
}

int srv_accept_json(const char *accept)
{
    if (accept == NULL || accept[strspn(accept, " \t")] == '\0')
        return 1;
    accept_qs a = accept_scan(accept);
    return (a.json >= 0.0 ? a.json : a.wild) > 0.0;
}

srv_accept srv_accept_answer(const char *accept)
{
    accept_qs a = accept_scan(accept);
    double json = a.json >= 0.0 ? a.json : a.wild;
    if (a.npz > 0.0 && a.npz >= json && a.npz >= a.npy)
        return SRV_ACCEPT_NPZ;
    return a.npy > 0.0 && a.npy >= json ? SRV_ACCEPT_NPY : SRV_ACCEPT_JSON;
}

unsigned srv_accept_binary(const char *accept)
{
    if (accept == NULL || accept[strspn(accept, " \t")] == '\0')
        return 3;
    accept_qs a = accept_scan(accept);
    unsigned m = 0;
    if ((a.npy >= 0.0 ? a.npy : a.wild) > 0.0)
        m |= 1;
    if ((a.npz >= 0.0 ? a.npz : a.wild) > 0.0)
        m |= 2;
    return m;
}

/* 1 when the n bytes at p are the content coding `name`, ignoring case. */
static int coding_eq(const char *p, size_t n, const char *name)
{
    return n == strlen(name) && strncasecmp(p, name, n) == 0;
}

srv_encoding srv_pick_encoding(const char *accept_encoding, unsigned available)
{
    if (accept_encoding == NULL)
        return SRV_ENC_IDENTITY;
    double q_br = -1.0, q_gzip = -1.0, q_id = -1.0, q_any = -1.0, q;
    const char *p = accept_encoding, *t;
    size_t n;
    while (next_entry(&p, &t, &n, &q)) {
        if (coding_eq(t, n, "br"))
            q_br = q;
        else if (coding_eq(t, n, "gzip") || coding_eq(t, n, "x-gzip"))
            q_gzip = q;
        else if (coding_eq(t, n, "identity"))
            q_id = q;
        else if (coding_eq(t, n, "*"))
            q_any = q;
    }
    /* unnamed codings take the q of "*"; without "*", others are refused and an unnamed identity
     * ranks last (any named coding with q > 0 beats it) but stays the fallback */
    if (q_br < 0.0)
        q_br = q_any >= 0.0 ? q_any : 0.0;
    if (q_gzip < 0.0)
        q_gzip = q_any >= 0.0 ? q_any : 0.0;
    if (q_id < 0.0)
        q_id = q_any >= 0.0 ? q_any : 0.0;
    if (!(available & (1u << SRV_ENC_BR)))
        q_br = 0.0;
    if (!(available & (1u << SRV_ENC_GZIP)))
        q_gzip = 0.0;
    if (q_br > 0.0 && q_br >= q_gzip && q_br >= q_id)
        return SRV_ENC_BR;
    if (q_gzip > 0.0 && q_gzip >= q_id)
        return SRV_ENC_GZIP;
    return SRV_ENC_IDENTITY;
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

int srv_body_encoding_ok(const char *ce)
{
    if (ce == NULL)
        return 1;
    while (*ce == ' ' || *ce == '\t')
        ce++;
    size_t n = strlen(ce);
    while (n > 0 && (ce[n - 1] == ' ' || ce[n - 1] == '\t'))
        n--;
    return n == 0 || (n == 8 && strncasecmp(ce, "identity", 8) == 0);
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
