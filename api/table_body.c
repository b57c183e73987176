/*
 * api/table_body.c -- the JSON table body of PUT /tables/{name} (table_body.h).
 */
#include "api/table_body.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api/arena.h"
#include "api/req.h"
#include "core/pe.h"

static int parse_in_arena(const char *body, size_t len, size_t max_table_bytes, wire_tensor *out,
                          api_problem *pb, json_t **reqp, json_error_t *err);

int api_table_json_parse(const char *body, size_t len, const api_limits *lim, wire_tensor *out,
                         api_problem *pb)
{
    memset(out, 0, sizeof *out);
    api_arena arena; /* jansson's tree counted and capped like a compute body's */
    api_arena_begin(&arena, lim->max_parse_bytes, NULL, NULL);
    json_t *req = NULL;
    json_error_t err;
    int rc = parse_in_arena(body, len, lim->max_table_bytes, out, pb, &req, &err);
    if (req == NULL && rc < 0 && !api_problem_failed(pb))
        api_body_parse_failed(pb, &arena, &err, len, lim);
    api_arena_end(&arena);
    return rc;
}

/* The parse and the checks; *reqp is NULL when jansson could not parse (the caller then names
 * why from the arena). Every jansson value is released before it returns. */
static int parse_in_arena(const char *body, size_t len, size_t max_table_bytes, wire_tensor *out,
                          api_problem *pb, json_t **reqp, json_error_t *errp)
{
    static const char *const FIELDS[] = {"data", NULL};
    json_t *req =
        json_loadb(body ? body : "", len,
                   JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL | JSON_DECODE_ANY, errp);
    *reqp = req;
    if (req == NULL)
        return -1; /* the caller says why: malformed, or memory (api_body_parse_failed) */
    if (!json_is_object(req)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "",
                          "the body must be a JSON object {\"data\": "
                          "[[...], ...]}");
        json_decref(req);
        return -1;
    }
    api_check_fields(pb, req, "", FIELDS);
    const json_t *data = json_object_get(req, "data");
    if (data == NULL && !api_problem_failed(pb))
        api_problem_field(pb, API_PB_INVALID_FIELD, "/data",
                          "data is required: an array of rows, one per position");
    if (api_problem_failed(pb)) {
        json_decref(req);
        return -1;
    }
    /* Bound the table before api_number_matrix allocates it. */
    if (json_is_array(data) && json_array_size(data) > 0 &&
        json_is_array(json_array_get(data, 0))) {
        size_t r = json_array_size(data), c = json_array_size(json_array_get(data, 0)), n, b;
        if (!pe_mul_ok(r, c, &n) || !pe_mul_ok(n, sizeof(double), &b) || b > max_table_bytes) {
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/data",
                              "a %zu x %zu table needs %zu x %zu x 8 bytes; max_table_bytes is %zu",
                              r, c, r, c, max_table_bytes);
            json_decref(req);
            return -1;
        }
    }
    double *x = NULL;
    size_t rows = 0, cols = 0;
    int rc = api_number_matrix(pb, data, "/data", 0, 0, (size_t)-1, 0, &x, &rows, &cols, NULL);
    json_decref(req);
    if (rc < 0) {
        free(x);
        return -1;
    }
    out->rows = rows;
    out->cols = cols;
    out->data = x;
    out->dtype = WIRE_DT_F64;
    return 0;
}
