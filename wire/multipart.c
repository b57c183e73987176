/*
 * wire/multipart.c -- the incremental multipart/form-data reader (wire/multipart.h).
 *
 * A delimiter "\r\n--boundary" (L bytes) whole inside one feed is found by sampling: every run of
 * L - 1 consecutive positions holds a position p = first + k (L - 1), and an occurrence starting
 * at s covers the pair p, p + 1 for the one such p in [s, s + L - 2]; so looking at the pair at
 * every (L - 1)th byte and verifying only where that pair occurs in the delimiter (a bit table of
 * byte pairs) finds every occurrence. On float data that is one 2-byte look per L - 1 bytes and
 * almost never a verification, where a search for CR stopped every ~256 bytes (0x0D is that
 * common in float bytes). A boundary holds no CR (wire_mp_boundary refuses it), so CR occurs in
 * the delimiter only at its start: occurrences never overlap, and a partial match at the end of a
 * feed (kept in a counter and continued byte by byte in the next) is a CR in the last L - 1 bytes
 * followed by a prefix of the delimiter; the bytes of a failed partial match are part data and are
 * emitted from the delimiter text itself. Between delimiters, a feed's data goes out in one call.
 */
#include "wire/multipart.h"

#include <string.h>

enum { MP_PREAMBLE, MP_AFTER_DELIM, MP_AFTER_CR, MP_HEADERS, MP_BODY, MP_EPILOGUE, MP_FAILED };

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* 1 when s[0..n) starts with the ASCII word w, case-insensitively. */
static int starts_ci(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++)
        if (lower((unsigned char)s[i]) != lower((unsigned char)w[i]))
            return 0;
    return 1;
}

static const char *skip_ws(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

int wire_mp_boundary(const char *ct, char *out, size_t n)
{
    if (ct == NULL)
        return 0;
    const char *end = ct + strlen(ct), *p = skip_ws(ct, end);
    static const char TYPE[] = "multipart/form-data";
    if (!starts_ci(p, (size_t)(end - p), TYPE))
        return 0;
    p += sizeof TYPE - 1;
    p = skip_ws(p, end);
    if (p < end && *p != ';')
        return 0; /* multipart/form-dataX */
    int found = 0;
    while (p < end) {
        p = skip_ws(p + 1, end); /* past ';' */
        const char *key = p;
        while (p < end && *p != '=' && *p != ';')
            p++;
        size_t klen = (size_t)(p - key);
        while (klen > 0 && (key[klen - 1] == ' ' || key[klen - 1] == '\t'))
            klen--;
        if (p >= end || *p == ';')
            continue; /* a parameter without a value */
        p = skip_ws(p + 1, end);
        char val[WIRE_MP_MAX_BOUNDARY + 2];
        size_t vlen = 0;
        int bad = 0;
        if (p < end && *p == '"') {
            for (p++; p < end && *p != '"'; p++) {
                if (*p == '\\' && p + 1 < end)
                    p++;
                if (vlen < sizeof val - 1)
                    val[vlen++] = *p;
                else
                    bad = 1;
            }
            if (p >= end)
                bad = 1;
            else
                p++;
            p = skip_ws(p, end);
        } else {
            for (; p < end && *p != ';' && *p != ' ' && *p != '\t'; p++) {
                if (vlen < sizeof val - 1)
                    val[vlen++] = *p;
                else
                    bad = 1;
            }
            p = skip_ws(p, end);
        }
        if (klen == 8 && starts_ci(key, klen, "boundary")) {
            /* a second boundary: a proxy might split the body at the other one */
            if (found || bad || vlen == 0 || vlen > WIRE_MP_MAX_BOUNDARY || n < vlen + 1)
                return -1;
            for (size_t i = 0; i < vlen; i++)
                if ((unsigned char)val[i] < 0x20 || val[i] == 0x7f)
                    return -1;
            memcpy(out, val, vlen);
            out[vlen] = '\0';
            found = (int)vlen;
        }
        while (p < end && *p != ';')
            p++;
    }
    return found ? found : -1;
}

void wire_mp_init(wire_mp *m, const char *boundary, const wire_mp_cb *cb, void *cls)
{
    memset(m, 0, sizeof *m);
    wire_err_init(&m->err);
    size_t b = strlen(boundary);
    if (b > WIRE_MP_MAX_BOUNDARY)
        b = WIRE_MP_MAX_BOUNDARY;
    memcpy(m->delim, "\r\n--", 4);
    memcpy(m->delim + 4, boundary, b);
    m->delim_len = 4 + b;
    for (size_t j = 0; j + 1 < m->delim_len; j++) {
        unsigned pair = (unsigned)(unsigned char)m->delim[j] << 8 | (unsigned char)m->delim[j + 1];
        m->pairs[pair >> 3] = (unsigned char)(m->pairs[pair >> 3] | 1u << (pair & 7));
    }
    m->matched = 2; /* the first delimiter may open the body without its CRLF */
    m->state = MP_PREAMBLE;
    m->cb = cb;
    m->cls = cls;
}

static int fail(wire_mp *m, const char *why)
{
    wire_err_at(&m->err, WIRE_EINVALID, "", "multipart body: %s", why);
    m->state = MP_FAILED;
    return -1;
}

/* A callback stopped the reader (its reason is in its own state). */
static int stop(wire_mp *m)
{
    m->state = MP_FAILED;
    return -1;
}

/* The value of parameter key ("name") in a Content-Disposition value v[0..n) into out. Returns 1
 * found, 0 absent, -1 malformed or too long, -2 given twice (readers disagree on which counts:
 * Python's take the last, a first-match reader the first). */
static int disp_param(const char *v, size_t n, const char *key, char *out, size_t cap)
{
    const char *p = v, *end = v + n;
    size_t kl = strlen(key);
    int found = 0;
    while (p < end) {
        while (p < end && *p != ';')
            p++;
        if (p >= end)
            return found;
        p = skip_ws(p + 1, end);
        const char *k = p;
        while (p < end && *p != '=' && *p != ';')
            p++;
        size_t klen = (size_t)(p - k);
        while (klen > 0 && (k[klen - 1] == ' ' || k[klen - 1] == '\t'))
            klen--;
        int match = klen == kl && starts_ci(k, klen, key);
        if (p >= end || *p == ';') {
            if (match)
                return -1;
            continue;
        }
        p = skip_ws(p + 1, end);
        size_t o = 0;
        int quoted = p < end && *p == '"';
        if (quoted)
            p++;
        while (p < end && (quoted ? *p != '"' : (*p != ';' && *p != ' ' && *p != '\t'))) {
            if (quoted && *p == '\\' && p + 1 < end)
                p++;
            if (match && !found) {
                if (o + 1 >= cap || (unsigned char)*p < 0x20)
                    return -1;
                out[o++] = *p;
            }
            p++;
        }
        if (quoted) {
            if (p >= end) /* an unterminated quote after the name: read as before, unchecked */
                return found && !match ? found : -1;
            p++;
        }
        if (match && found)
            return -2;
        if (match) {
            out[o] = '\0';
            found = 1;
        }
    }
    return found;
}

/* The header block m->hdr[0..hdr_n) (lines ending CRLF, the last one empty) -> begin(). */
static int headers_done(wire_mp *m)
{
    char name[WIRE_MP_MAX_NAME] = "", ctype[128] = "";
    int has_disp = 0;
    const char *p = m->hdr, *end = m->hdr + m->hdr_n - 2; /* without the empty line's CRLF */
    while (p < end) {
        const char *eol = p;
        while (eol + 1 < end + 2 && !(eol[0] == '\r' && eol[1] == '\n'))
            eol++;
        size_t len = (size_t)(eol - p);
        if (len > 0 && (*p == ' ' || *p == '\t'))
            return fail(m, "a part header is folded (obsolete line folding is not accepted)");
        const char *colon = memchr(p, ':', len);
        if (colon == NULL)
            return fail(m, "a part header line has no ':'");
        size_t nl = (size_t)(colon - p);
        const char *v = skip_ws(colon + 1, eol);
        size_t vl = (size_t)(eol - v);
        while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
            vl--;
        if (nl == 19 && starts_ci(p, nl, "content-disposition")) {
            if (has_disp)
                return fail(m, "a part has two Content-Disposition headers");
            has_disp = 1;
            if (!starts_ci(v, vl, "form-data") || (vl > 9 && v[9] != ';' && v[9] != ' '))
                return fail(m, "a part's Content-Disposition is not form-data");
            int rc = disp_param(v, vl, "name", name, sizeof name);
            if (rc == -2)
                return fail(m, "a part's Content-Disposition gives its name twice");
            if (rc < 0)
                return fail(m, "a part's name is malformed or longer than 63 bytes");
            if (rc == 0 || name[0] == '\0')
                return fail(m, "a part has no name (Content-Disposition: form-data; name=\"...\")");
        } else if (nl == 12 && starts_ci(p, nl, "content-type")) {
            if (vl >= sizeof ctype)
                return fail(m, "a part's Content-Type is longer than 127 bytes");
            memcpy(ctype, v, vl);
            ctype[vl] = '\0';
        }
        p = eol + 2;
    }
    if (!has_disp)
        return fail(m, "a part has no Content-Disposition header");
    if (++m->parts > WIRE_MP_MAX_PARTS)
        return fail(m, "more than 16 parts");
    m->in_part = 1;
    if (m->cb->begin(m->cls, name, ctype) < 0)
        return stop(m);
    return 0;
}

/* Emits buf[from..to) as part data (in a part; the preamble is dropped). 0 or -1. */
static int emit(wire_mp *m, const unsigned char *buf, size_t from, size_t to)
{
    if (m->state != MP_BODY || to <= from)
        return 0;
    return m->cb->data(m->cls, buf + from, to - from) < 0 ? stop(m) : 0;
}

/* The delimiter is complete: the part (if any) ends. Returns 0 or -1. */
static int delimiter(wire_mp *m)
{
    m->matched = 0;
    int body = m->state == MP_BODY;
    m->state = MP_AFTER_DELIM;
    m->dash = 0;
    if (body) {
        m->in_part = 0;
        if (m->cb->end(m->cls) < 0)
            return stop(m);
    }
    return 0;
}

/* The start of the first complete delimiter in buf[i..n), or n when there is none (the sampling
 * of the file comment: one pair every delim_len - 1 bytes). */
static size_t find_delim(const wire_mp *m, const unsigned char *buf, size_t i, size_t n)
{
    size_t L = m->delim_len;
    if (n - i < L)
        return n;
    for (size_t p = i + L - 2; p + 1 < n; p += L - 1) {
        unsigned pair = (unsigned)buf[p] << 8 | buf[p + 1];
        if (!((unsigned)m->pairs[pair >> 3] >> (pair & 7) & 1u))
            continue;
        for (size_t j = 0; j + 1 < L && j <= p - i; j++) { /* the candidate starts p - j */
            size_t s = p - j;
            if (buf[s] == '\r' && s + L <= n && memcmp(buf + s, m->delim, L) == 0)
                return s;
        }
    }
    return n;
}

/* Matches the delimiter over buf[i..n) in the preamble or a part. The data before a delimiter (or
 * before the input's end) goes out in one piece. Returns the index just past a complete delimiter
 * (state moved to MP_AFTER_DELIM), n when the input ran out (a partial match at its end kept in
 * m->matched), or -1. */
static long scan(wire_mp *m, const unsigned char *buf, size_t i, size_t n)
{
    while (m->matched > 0 && i < n) { /* a match left over from the previous feed */
        if (buf[i] != (unsigned char)m->delim[m->matched]) {
            if (emit(m, (const unsigned char *)m->delim, 0, m->matched) < 0)
                return -1;
            m->matched = 0; /* buf[i] is looked at again below */
            break;
        }
        i++;
        if (++m->matched == m->delim_len)
            return delimiter(m) < 0 ? -1 : (long)i;
    }
    if (m->matched > 0)
        return (long)n;
    size_t start = i, j = find_delim(m, buf, i, n);
    if (j < n) {
        if (emit(m, buf, start, j) < 0 || delimiter(m) < 0)
            return -1;
        return (long)(j + m->delim_len);
    }
    /* no complete delimiter: the input may end inside one, starting in its last delim_len - 1 */
    for (size_t t = n - i < m->delim_len ? i : n - m->delim_len + 1; t < n; t++) {
        const unsigned char *cr = memchr(buf + t, '\r', n - t);
        if (cr == NULL)
            break;
        t = (size_t)(cr - buf);
        if (memcmp(cr, m->delim, n - t) == 0) {
            if (emit(m, buf, start, t) < 0)
                return -1;
            m->matched = n - t;
            return (long)n;
        }
    }
    return emit(m, buf, start, n) < 0 ? -1 : (long)n;
}

int wire_mp_feed(wire_mp *m, const void *data, size_t n)
{
    const unsigned char *buf = data;
    size_t i = 0;
    while (i < n) {
        unsigned char c = buf[i];
        switch (m->state) {
        case MP_FAILED:
            return -1;
        case MP_EPILOGUE:
            return 0;
        case MP_PREAMBLE:
        case MP_BODY: {
            long r = scan(m, buf, i, n);
            if (r < 0)
                return -1;
            i = (size_t)r;
            break;
        }
        case MP_AFTER_DELIM:
            i++;
            if (m->dash) {
                if (c != '-')
                    return fail(m, "a delimiter is followed by a single '-'");
                m->state = MP_EPILOGUE;
            } else if (c == '-') {
                m->dash = 1;
            } else if (c == '\r') {
                m->state = MP_AFTER_CR;
            } else if (c == '\n') {
                return fail(m, "a delimiter line ends in LF alone: multipart needs CRLF line ends");
            } else if (c != ' ' && c != '\t') {
                return fail(m, "a delimiter is followed by text (the boundary occurs in the data)");
            }
            break;
        case MP_AFTER_CR:
            i++;
            if (c != '\n')
                return fail(m, "a delimiter line does not end in CRLF");
            m->state = MP_HEADERS;
            m->hdr_n = 0;
            break;
        case MP_HEADERS:
            i++;
            if (m->hdr_n >= sizeof m->hdr)
                return fail(m, "a part's headers are longer than 8192 bytes");
            m->hdr[m->hdr_n++] = (char)c;
            if (c == '\n' && m->hdr_n >= 2 && m->hdr[m->hdr_n - 2] == '\r' &&
                (m->hdr_n == 2 ||
                 (m->hdr_n >= 4 && m->hdr[m->hdr_n - 3] == '\n' && m->hdr[m->hdr_n - 4] == '\r'))) {
                if (headers_done(m) < 0)
                    return -1;
                m->state = MP_BODY;
            }
            break;
        }
    }
    return m->state == MP_FAILED ? -1 : 0;
}

int wire_mp_finish(wire_mp *m)
{
    if (m->state == MP_FAILED)
        return -1;
    if (m->state == MP_EPILOGUE)
        return 0;
    return fail(m, m->parts == 0 ? "no part (is the boundary right?)"
                                 : "the body ends before the close delimiter (--boundary--)");
}
