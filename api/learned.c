/*
 * api/learned.c -- POST /learned (docs/api.md#tables): rows of a stored learned position
 * table. Request: table (name), positions | seq_len [+offset], extend ("error" default | "copy" |
 * "interpolate"), target_length (L >= 2; required by and only allowed with "interpolate").
 * Response: {shape [P, cols], positions, matrix [P][cols], resolved}.
 *
 * Decisions: an unknown table is a 422 at /table ("no table named ..."), not a 404 -- the URL is
 * fine, a body field names something that does not exist. With extend "error", the first position
 * >= rows is a 422 naming that position and the row count, at /positions/<i>, or at /seq_len
 * (/offset when offset alone is already past the end). Numbers from core/learned.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/learned_cfg.h"
#include "core/learned.h"
#include "wire/tensor_io.h"

static const char *const FIELDS[] = {"table",  "positions",     "seq_len", "offset",
                                     "extend", "target_length", NULL};

const char *const API_LEARNED_EXTENDS[] = {"error", "copy", "interpolate", NULL};

int api_learned_cfg_parse(api_problem *pb, const json_t *obj, const char *base,
                          const api_limits *lim, api_learned_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    char ptr[160];
    api_ptr(ptr, sizeof ptr, base, "table");
    const json_t *t = json_object_get(obj, "table");
    if (t == NULL || json_is_null(t)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "table is required (a stored table's name, "
                          "see GET /tables)");
    } else if (!json_is_string(t) || !store_name_valid(json_string_value(t))) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "must be a table name matching [A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    } else {
        memcpy(cfg->table, json_string_value(t), strlen(json_string_value(t)) + 1);
    }
    int ext = PE_LEARNED_ERROR;
    api_get_enum(pb, obj, base, "extend", API_LEARNED_EXTENDS, &ext);
    cfg->extend = (pe_learned_extend)ext;
    int64_t tl = 0;
    int rc = api_get_int(pb, obj, base, "target_length", 2, lim->max_position, &tl);
    api_ptr(ptr, sizeof ptr, base, "target_length");
    if (rc > 0 && cfg->extend != PE_LEARNED_INTERPOLATE)
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "target_length goes with extend \"interpolate\" (extend is \"%s\")",
                          API_LEARNED_EXTENDS[ext]);
    else if (rc == 0 && cfg->extend == PE_LEARNED_INTERPOLATE)
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "extend \"interpolate\" needs target_length (the number of rows, >= 2, "
                          "the table is resampled to)");
    cfg->target_length = rc > 0 ? (uint64_t)tl : 0;
    return api_problem_failed(pb) ? -1 : 0;
}

const store_table *api_learned_acquire(api_problem *pb, const api_ctx *ctx, const char *ptr,
                                       const api_learned_cfg *cfg, pe_learned_params *p)
{
    const store_source *src = ctx->tables;
    const store_table *t = src ? src->acquire(src->self, cfg->table) : NULL;
    if (t == NULL) {
        api_problem_field(
            pb, API_PB_INVALID_FIELD, ptr,
            "no table named \"%s\" (GET /tables lists them; PUT /tables/%s stores one)", cfg->table,
            cfg->table);
        return NULL;
    }
    p->data = t->data;
    p->rows = t->rows;
    p->cols = t->cols;
    p->extend = cfg->extend;
    p->target_length = cfg->target_length;
    return t;
}

void api_learned_range_error(api_problem *pb, const char *ptr, const api_learned_cfg *cfg,
                             const pe_learned_params *p, int64_t pos)
{
    if (cfg->extend == PE_LEARNED_INTERPOLATE)
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "position %lld is beyond target_length %llu (the table \"%s\" resampled "
                          "to positions 0 .. %llu)",
                          (long long)pos, (unsigned long long)p->target_length, cfg->table,
                          (unsigned long long)(p->target_length - 1));
    else
        api_problem_field(
            pb, API_PB_INVALID_FIELD, ptr,
            "position %lld is beyond table \"%s\", which has %zu rows (positions 0 .. "
            "%zu); extend \"copy\" or \"interpolate\" reads past the end",
            (long long)pos, cfg->table, p->rows, p->rows - 1);
}

void api_learned_resolved(wire_jw *out, const api_learned_cfg *cfg, const pe_learned_params *p)
{
    wire_jw_key(out, "table");
    wire_jw_str(out, cfg->table);
    wire_jw_key(out, "rows");
    wire_jw_int(out, (int64_t)p->rows);
    wire_jw_key(out, "cols");
    wire_jw_int(out, (int64_t)p->cols);
    wire_jw_key(out, "extend");
    wire_jw_str(out, API_LEARNED_EXTENDS[cfg->extend]);
    if (cfg->extend == PE_LEARNED_INTERPOLATE) {
        wire_jw_key(out, "target_length");
        wire_jw_int(out, (int64_t)cfg->target_length);
    }
}

int api_learned(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    const api_limits *lim = ctx->lim;
    api_check_fields(pb, req, "", FIELDS);
    api_learned_cfg cfg;
    api_learned_cfg_parse(pb, req, "", lim, &cfg);
    int64_t *pos = NULL;
    size_t n_pos = 0;
    api_get_positions(pb, req, "", lim, 1, &pos, &n_pos);
    if (api_problem_failed(pb)) {
        free(pos);
        return -1;
    }
    pe_learned_params p;
    const store_table *t = api_learned_acquire(pb, ctx, "/table", &cfg, &p);
    if (t == NULL) {
        free(pos);
        return -1;
    }
    int listed = json_object_get(req, "positions") != NULL;
    uint64_t limit = pe_learned_limit(&p);
    for (size_t i = 0; i < n_pos; i++) {
        if ((uint64_t)pos[i] < limit)
            continue;
        char ptr[160] = "/seq_len";
        if (listed)
            api_ptr_idx(ptr, sizeof ptr, "/positions", i);
        else if (i == 0 && json_object_get(req, "offset") != NULL)
            snprintf(ptr, sizeof ptr, "/offset");
        api_learned_range_error(pb, ptr, &cfg, &p, pos[i]);
        break;
    }
    size_t n_out = 0; /* the matrix (the echoed positions are not counted, as in /sinusoidal) */
    const char *size_ptr = listed ? "/positions" : "/seq_len";
    if (!api_problem_failed(pb) && !pe_mul_ok(n_pos, p.cols, &n_out))
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, size_ptr, "the response size overflows");
    if (!api_problem_failed(pb))
        api_check_output(pb, lim, n_out, size_ptr, "these rows");
    /* every row first (interpolation may overflow: decided before anything is written), then
     * the matrix is handed to the writer, which streams it from these doubles */
    double *m = api_problem_failed(pb) ? NULL : api_alloc(pb, n_out ? n_out : 1, sizeof *m);
    if (m == NULL) {
        ctx->tables->release(ctx->tables->self, t);
        free(pos);
        return -1;
    }
    for (size_t i = 0; i < n_pos; i++) {
        if (pe_learned_row(&p, pos[i], m + i * p.cols) != PE_OK) {
            /* interpolation of entries near DBL_MAX overflowed */
            ctx->tables->release(ctx->tables->self, t);
            free(m);
            free(pos);
            api_problem_field(
                pb, API_PB_INVALID_FIELD, "/table",
                "interpolating this table overflows (entries near the float64 maximum)");
            return -1;
        }
    }
    wire_jw_obj_begin(out);
    wire_jw_key(out, "shape");
    wire_jw_arr_begin(out);
    wire_jw_int(out, (int64_t)n_pos);
    wire_jw_int(out, (int64_t)p.cols);
    wire_jw_arr_end(out);
    wire_jw_key(out, "positions");
    wire_jw_ints(out, pos, n_pos);
    wire_jw_key(out, "matrix");
    wire_jw_matrix_take(out, m, n_pos, p.cols);
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    api_learned_resolved(out, &cfg, &p);
    wire_jw_key(out, "n_positions");
    wire_jw_int(out, (int64_t)n_pos);
    wire_jw_obj_end(out);
    wire_jw_obj_end(out);
    ctx->tables->release(ctx->tables->self, t);
    free(pos);
    return 0;
}
