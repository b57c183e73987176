/*
 * wire/multipart.h -- an incremental multipart/form-data reader (RFC 7578 over RFC 2046 section
 * 5.1): the binary request bodies of POST /rope and /attention (a JSON `params` part, q and k as
 * .npy parts). Bytes in, callbacks out; no I/O, no allocation after wire_mp_init, so it can be
 * fuzzed directly.
 *
 * Why not libmicrohttpd's post processor: it hands binary parts out in pieces too, but it lives in
 * server/ (it needs a connection) while the rules of the format belong here, where they can be
 * fuzzed without a daemon; and it accepts what we must refuse (a part without a name, a body that
 * never closes) silently. This reader is ~300 lines, holds nothing but one part's headers (at most
 * WIRE_MP_MAX_HEADERS bytes) and emits the data of a part as it arrives, in the pieces it arrived
 * in (a delimiter split across feeds costs at most its own length of look-behind).
 *
 * Format: the body is a preamble (ignored), then parts, each introduced by the delimiter
 * CRLF "--" boundary (the first may start the body without the CRLF), optional spaces / tabs and
 * CRLF, header lines (field: value CRLF) up to an empty line, then the part's bytes up to the next
 * delimiter; after the last part the delimiter is followed by "--" (the close delimiter) and an
 * epilogue (ignored). Every part must carry Content-Disposition: form-data; name="..." (the name
 * at most WIRE_MP_MAX_NAME - 1 bytes; a filename is allowed and ignored); Content-Type is passed
 * on as given (empty when absent).
 */
#ifndef WIRE_MULTIPART_H
#define WIRE_MULTIPART_H

#include <stddef.h>

#include "wire/err.h"

#define WIRE_MP_MAX_BOUNDARY 70 /* RFC 2046: 1 to 70 characters */
#define WIRE_MP_MAX_HEADERS 8192
#define WIRE_MP_MAX_NAME 64
#define WIRE_MP_MAX_PARTS 16

/*
 * The boundary parameter of a Content-Type "multipart/form-data; boundary=..." (quoted or not;
 * the type compared case-insensitively) into out (>= WIRE_MP_MAX_BOUNDARY + 1 bytes). Returns
 * its length, 0 when the type is not multipart/form-data, -1 when it is but the boundary is
 * missing, given twice or invalid (empty, over 70 characters, a control character, CR or LF).
 */
int wire_mp_boundary(const char *content_type, char *out, size_t n);

/* What the reader calls; each returns 0 to go on or -1 to stop (the reader then fails, sticky,
 * with the error the callback recorded in its own state; wire_mp_feed returns -1). */
typedef struct {
    /* A part begins: its name, and its Content-Type ("" when absent). */
    int (*begin)(void *cls, const char *name, const char *content_type);
    /* The next n bytes of the current part (n >= 1). */
    int (*data)(void *cls, const unsigned char *buf, size_t n);
    /* The current part ended (its delimiter was seen). */
    int (*end)(void *cls);
} wire_mp_cb;

/* Reader state; the caller owns the storage. Fields are private (wire/multipart.c). */
typedef struct {
    char delim[WIRE_MP_MAX_BOUNDARY + 5]; /* CRLF "--" boundary */
    size_t delim_len;
    unsigned char pairs[8192]; /* bit (a << 8 | b) set when the bytes a, b occur in delim in turn */
    size_t matched;            /* bytes of delim matched at the end of the input so far */
    int state;                 /* MP_* in multipart.c */
    int in_part;               /* a part is open (begin called, end not yet) */
    int parts;
    char hdr[WIRE_MP_MAX_HEADERS]; /* the current part's header block while it arrives */
    size_t hdr_n;
    char dash; /* after a delimiter: the first '-' of "--" seen */
    const wire_mp_cb *cb;
    void *cls;
    wire_err err; /* the sticky error (status WIRE_OK while fine) */
} wire_mp;

/* Starts a reader for boundary (as wire_mp_boundary gave it) with callbacks cb (borrowed). */
void wire_mp_init(wire_mp *m, const char *boundary, const wire_mp_cb *cb, void *cls);

/* Feeds the next n bytes of the body. 0 while fine, -1 once the body is known to be bad or a
 * callback stopped (sticky; the reason in m->err unless a callback stopped it). */
int wire_mp_feed(wire_mp *m, const void *buf, size_t n);

/* The body ended: 0 when the close delimiter was seen, else -1 with m->err set (truncated). */
int wire_mp_finish(wire_mp *m);

#endif
