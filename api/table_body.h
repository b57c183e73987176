/*
 * api/table_body.h -- the JSON body of PUT /tables/{name}: {"data": [[...], ...]}
 * (docs/api.md#tables). The binary bodies (.npy, .safetensors) are parsed in wire/tensor_io.h.
 */
#ifndef API_TABLE_BODY_H
#define API_TABLE_BODY_H

#include <stddef.h>

#include "api/problem.h"
#include "api/req.h"
#include "wire/tensor_io.h"

/*
 * Parses a JSON body {"data": [[...], ...]} (rows = positions; only the member "data"; rows of
 * equal, non-zero length; finite numbers; integers beyond 2^53 are rounded to the nearest double).
 * rows * cols * 8 must be <= lim->max_table_bytes (else 422 limit-exceeded at /data). The parsed
 * tree lives in an arena capped by lim->max_parse_bytes (api/arena.h; 413 above it). Malformed
 * JSON → 400 malformed-json (line and column); a non-object → 422 at "". Returns 0 with *out filled
 * (dtype WIRE_DT_F64) or -1 with pb filled (*out zeroed).
 */
int api_table_json_parse(const char *body, size_t len, const api_limits *lim, wire_tensor *out,
                         api_problem *pb);

#endif
