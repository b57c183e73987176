/*
 * server/negotiate.h -- content negotiation, for every route: which representation the client
 * accepts (Accept, RFC 9110 §12.5.1) and which one it sent (Content-Type). Pure functions of the
 * header values; unit-tested in tests/server/check_negotiate.c.
 */
#ifndef SRV_NEGOTIATE_H
#define SRV_NEGOTIATE_H

#include "api/tables.h"

/*
 * 1 when an Accept header value asks for application/x-npy rather than JSON: application/x-npy is
 * listed with q > 0 and with a q at least that of application/json (or, when JSON is not named,
 * of application/ * and * / *). A q of 0 refuses a type. NULL, "", or anything else: 0 (JSON, the
 * default). Examples: "application/x-npy" → 1; "application/json, application/x-npy;q=0" → 0;
 * "application/x-npy;q=0.5, application/json" → 0; "application/json;q=0.4,
 * application/x-npy;q=0.5" → 1.
 */
int srv_accept_npy(const char *accept);

/* Stored content codings of a static file (bit flags of `available`, and srv_pick_encoding's
 * answer). */
typedef enum { SRV_ENC_IDENTITY = 0, SRV_ENC_GZIP = 1, SRV_ENC_BR = 2 } srv_encoding;

/*
 * The content coding to send for an Accept-Encoding header value (RFC 9110 §12.5.3), among identity
 * and the codings whose bit (1 << SRV_ENC_GZIP, 1 << SRV_ENC_BR) is set in `available`. Each
 * coding's q is its own entry (names case-insensitive; "x-gzip" is gzip), else that of "*", else 0
 * (an unnamed identity is still the fallback). The highest q > 0 wins; on a tie br, then gzip, then
 * identity (the smaller body). NULL or "" (no preference, or "no coding wanted"): identity. When
 * nothing available is acceptable (e.g. "identity;q=0" alone) the answer is identity too: the RFC
 * lets a server send the unencoded body rather than a 406. A malformed q counts as 0. Examples,
 * both available: "gzip, br" → br; "gzip;q=1, br;q=0.5" → gzip; "br;q=0, *" → gzip; "identity" →
 * identity; "*;q=0, identity;q=0.1" → identity.
 */
srv_encoding srv_pick_encoding(const char *accept_encoding, unsigned available);
/* The representation of a compute answer (srv_accept_answer). */
typedef enum { SRV_ACCEPT_JSON = 0, SRV_ACCEPT_NPY = 1, SRV_ACCEPT_NPZ = 2 } srv_accept;

/*
 * The representation an Accept header value asks of a compute answer: application/x-npz when
 * it is listed with q > 0 and a q at least that of JSON (as srv_accept_npy counts it) and of
 * application/x-npy; else application/x-npy as srv_accept_npy decides; else JSON. Examples:
 * "application/x-npz" → NPZ; "application/x-npy, application/x-npz;q=0.5" → NPY;
 * "application/x-npz;q=0" → JSON.
 */
srv_accept srv_accept_answer(const char *accept);

/* 1 when an Accept header value allows application/json: NULL or "" (no preference), or JSON
 * listed with q > 0, or (JSON not named) application/ * or * / * with q > 0. Examples:
 * "application/x-npy" -> 0; "application/json;q=0, * / *" -> 0; "text/html, * / *;q=0.1" -> 1. */
int srv_accept_json(const char *accept);

/* Which binary representations (a binary-tensors answer has no JSON one) an Accept header value
 * allows: bit 0 application/x-npy, bit 1 application/x-npz, each when named with q > 0 or, not
 * named, when application/ * or * / * has q > 0. NULL or "": both (3). 0: answer 406. Examples:
 * "application/json" -> 0; "application/x-npz;q=0, * / *" -> 1; "application/json, * / *;q=0.1"
 * -> 3. */
unsigned srv_accept_binary(const char *accept);

/* 1 when the media type of ct (before any ';', trimmed) is type, ignoring case. NULL: 0. */
int srv_media_is(const char *ct, const char *type);

/* 1 when ct is application/json, optionally with charset=utf-8 (ignoring case), else 0. */
int srv_json_content_type(const char *ct);

/* 1 when a request body's Content-Encoding value is absent (NULL), empty or "identity" (any case,
 * spaces around): the only body codings posencd reads. Anything else ("gzip", "br, gzip") is 0:
 * the request is answered 415 before its body is read, never parsed as if it were plain. */
int srv_body_encoding_ok(const char *content_encoding);

/* The format of a PUT /tables/{name} body named by its Content-Type ct (NULL allowed):
 * application/json (as srv_json_content_type) → JSON, application/x-npy → .npy,
 * application/x-safetensors or application/octet-stream → .safetensors, else unsupported. */
api_table_format srv_table_format(const char *ct);

#endif
