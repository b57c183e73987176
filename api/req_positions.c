/*
 * api/req_positions.c -- the position fields of api/req.h: lists of positions (JSON or numbers)
 * and the `positions` | `seq_len` [+ `offset`] convention, with the service's position limits.
 */
#include <stdlib.h>

#include "api/req.h"

/* At most lim->max_positions positions (else a 422 limit-exceeded at ptr); *p = room for len of
 * them (NULL for none). Returns 0 or -1. */
static int positions_start(api_problem *pb, size_t len, const char *ptr, const api_limits *lim,
                           int64_t **p)
{
    *p = NULL;
    if (len > lim->max_positions) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr, "has %zu positions; max_positions is %zu",
                          len, lim->max_positions);
        return -1;
    }
    *p = len ? api_alloc(pb, len, sizeof **p) : NULL;
    return len && *p == NULL ? -1 : 0;
}

int api_position_array(api_problem *pb, const json_t *v, const char *ptr, const api_limits *lim,
                       int64_t **out, size_t *n)
{
    *out = NULL;
    if (!json_is_array(v)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be an array of integers");
        return -1;
    }
    size_t len = json_array_size(v);
    int64_t *p = NULL;
    if (positions_start(pb, len, ptr, lim, &p) < 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        char ip[160];
        api_ptr_idx(ip, sizeof ip, ptr, i);
        if (api_int_value(pb, json_array_get(v, i), ip, 0, lim->max_position - 1, &p[i]) < 0) {
            free(p);
            return -1;
        }
    }
    *out = p;
    *n = len;
    return 1;
}

int api_position_ints(api_problem *pb, const int64_t *v, size_t len, const char *ptr,
                      const api_limits *lim, int64_t **out, size_t *n)
{
    int64_t *p = NULL;
    *out = NULL;
    if (positions_start(pb, len, ptr, lim, &p) < 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        char ip[160];
        api_ptr_idx(ip, sizeof ip, ptr, i);
        if (api_int_in_range(pb, ip, v[i], 0, lim->max_position - 1) < 0) {
            free(p);
            return -1;
        }
        p[i] = v[i];
    }
    *out = p;
    *n = len;
    return 1;
}

int api_get_position_list(api_problem *pb, const json_t *obj, const char *base, const char *key,
                          const api_limits *lim, int64_t **out, size_t *n)
{
    *out = NULL;
    const json_t *v = api_member(obj, key);
    if (v == NULL)
        return 0;
    char ptr[160];
    api_ptr(ptr, sizeof ptr, base, key);
    return api_position_array(pb, v, ptr, lim, out, n);
}

int api_get_positions(api_problem *pb, const json_t *obj, const char *base, const api_limits *lim,
                      int required, int64_t **out, size_t *n)
{
    *out = NULL;
    const json_t *pos = api_member(obj, "positions");
    const json_t *sl = api_member(obj, "seq_len");
    const json_t *off = api_member(obj, "offset");
    if (pos && sl) {
        api_problem_key(pb, API_PB_INVALID_FIELD, base, "seq_len",
                        "give either positions or seq_len, not both");
        return -1;
    }
    if (pos) {
        if (off) {
            api_problem_key(pb, API_PB_INVALID_FIELD, base, "offset",
                            "offset goes with seq_len, not positions");
            return -1;
        }
        return api_get_position_list(pb, obj, base, "positions", lim, out, n);
    }
    if (!sl) {
        if (off) {
            api_problem_key(pb, API_PB_INVALID_FIELD, base, "offset", "offset needs seq_len");
            return -1;
        }
        if (required) {
            api_problem_key(pb, API_PB_INVALID_FIELD, base, "positions",
                            "positions or seq_len is required");
            return -1;
        }
        return 0;
    }
    int64_t len = 0, offset = 0;
    if (api_get_int(pb, obj, base, "seq_len", 1, (int64_t)lim->max_positions, &len) < 0)
        return -1;
    if (api_get_int(pb, obj, base, "offset", 0, lim->max_position - 1, &offset) < 0)
        return -1;
    if (offset > lim->max_position - len) {
        api_problem_key(pb, API_PB_LIMIT_EXCEEDED, base, "offset",
                        "offset + seq_len must not exceed max_position (%lld)",
                        (long long)lim->max_position);
        return -1;
    }
    int64_t *p = api_alloc(pb, (size_t)len, sizeof *p);
    if (p == NULL)
        return -1;
    for (int64_t i = 0; i < len; i++)
        p[i] = offset + i;
    *out = p;
    *n = (size_t)len;
    return 1;
}
