/*
 * api/t5.c -- POST /t5/buckets (docs/api.md#t5-buckets): relative_positions (key - query, may be
 * negative) or query_positions + key_positions; bidirectional (default true), num_buckets (default
 * 32), max_distance (default 128) → {buckets (a list, or [Tq][Tk] with r = key - query), resolved}.
 * Source: Raffel et al., arXiv:1910.10683; HF `T5Attention._relative_position_bucket` (via
 * core/t5.h; definitions in docs/conventions.md#t5-buckets).
 */
#include <stdint.h>
#include <stdlib.h>

#include "api/attention_method.h"

static const char *const FIELDS[] = {"relative_positions", "query_positions", "q_positions",
                                     "key_positions",      "k_positions",     "bidirectional",
                                     "num_buckets",        "max_distance",    NULL};

static int has_member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return v != NULL && !json_is_null(v);
}

/* relative_positions: integers r with |r| < max_position (differences of valid positions). */
static int get_relative(api_problem *pb, const json_t *v, const api_limits *lim, int64_t **out,
                        size_t *n)
{
    *out = NULL;
    if (!json_is_array(v)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/relative_positions",
                          "must be an array of integers (key - query)");
        return -1;
    }
    size_t len = json_array_size(v);
    if (len == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/relative_positions", "must not be empty");
        return -1;
    }
    if (len > lim->max_positions) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/relative_positions",
                          "has %zu values; max_positions is %zu", len, lim->max_positions);
        return -1;
    }
    int64_t *r = api_alloc(pb, len, sizeof *r);
    if (r == NULL)
        return -1;
    int64_t m = lim->max_position - 1;
    for (size_t i = 0; i < len; i++) {
        char ip[160];
        api_ptr_idx(ip, sizeof ip, "/relative_positions", i);
        if (api_int_value(pb, json_array_get(v, i), ip, -m, m, &r[i]) < 0) {
            free(r);
            return -1;
        }
    }
    *out = r;
    *n = len;
    return 1;
}

/* One of the two position lists (either spelling); non-empty. */
static int get_pos(api_problem *pb, const json_t *req, const char *key, const char *alias,
                   const api_limits *lim, int64_t **out, size_t *n)
{
    *out = NULL;
    const char *used = NULL;
    const json_t *v = api_get_alias(pb, req, "", key, alias, &used);
    if (v == NULL)
        return api_problem_failed(pb) ? -1 : 0;
    char ptr[160];
    api_ptr(ptr, sizeof ptr, "", used);
    if (api_position_array(pb, v, ptr, lim, out, n) < 0)
        return -1;
    if (*n == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must not be empty");
        free(*out);
        *out = NULL;
        return -1;
    }
    return 1;
}

int api_t5_buckets(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    const api_limits *lim = ctx->lim;
    api_check_fields(pb, req, "", FIELDS);
    pe_t5_params p;
    api_t5_cfg_parse(pb, req, "", lim, 1, 32, NULL, &p);

    int has_rel = has_member(req, "relative_positions");
    int has_q = has_member(req, "query_positions") || has_member(req, "q_positions");
    int has_k = has_member(req, "key_positions") || has_member(req, "k_positions");
    int64_t *rel = NULL, *qp = NULL, *kp = NULL;
    size_t n_rel = 0, nq = 0, nk = 0;
    if (has_rel && (has_q || has_k)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/relative_positions",
                          "give either relative_positions or query_positions + key_positions, "
                          "not both");
    } else if (has_rel) {
        get_relative(pb, json_object_get(req, "relative_positions"), lim, &rel, &n_rel);
    } else if (has_q || has_k) {
        if (!has_k)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/key_positions",
                              "key_positions is required with query_positions");
        if (!has_q)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/query_positions",
                              "query_positions is required with key_positions");
        get_pos(pb, req, "query_positions", "q_positions", lim, &qp, &nq);
        get_pos(pb, req, "key_positions", "k_positions", lim, &kp, &nk);
    } else {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/relative_positions",
                          "relative_positions (key - query) or query_positions + key_positions is "
                          "required");
    }
    size_t n_out = n_rel;
    if (!api_problem_failed(pb) && !has_rel) {
        if (!pe_mul_ok(nq, nk, &n_out)) {
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/key_positions",
                              "the bucket matrix size overflows");
        } else {
            api_check_output(pb, lim, n_out, "/key_positions", "this bucket matrix");
        }
    }
    size_t *bk = NULL;
    int64_t *row = NULL;
    if (!api_problem_failed(pb)) {
        bk = api_alloc(pb, n_out, sizeof *bk);
        row = api_alloc(pb, has_rel ? n_rel : nk, sizeof *row);
    }
    if (!api_problem_failed(pb)) {
        pe_status st = has_rel ? pe_t5_buckets(&p, rel, n_rel, bk)
                               : pe_t5_bucket_matrix(&p, qp, nq, kp, nk, bk);
        if (st != PE_OK)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/num_buckets",
                              "invalid T5 bucketing configuration (%s)", pe_status_str(st));
    }
    if (api_problem_failed(pb)) {
        free(bk);
        free(row);
        free(rel);
        free(qp);
        free(kp);
        return -1;
    }

    wire_jw_obj_begin(out);
    wire_jw_key(out, "buckets");
    if (has_rel) {
        for (size_t i = 0; i < n_rel; i++)
            row[i] = (int64_t)bk[i];
        wire_jw_ints(out, row, n_rel);
    } else {
        wire_jw_arr_begin(out);
        for (size_t a = 0; a < nq && wire_jw_ok(out); a++) {
            for (size_t c = 0; c < nk; c++)
                row[c] = (int64_t)bk[a * nk + c];
            wire_jw_ints(out, row, nk);
        }
        wire_jw_arr_end(out);
    }
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    api_t5_cfg_resolved(out, &p);
    if (has_rel) {
        wire_jw_key(out, "n_relative_positions");
        wire_jw_int(out, (int64_t)n_rel);
    } else {
        wire_jw_key(out, "n_queries");
        wire_jw_int(out, (int64_t)nq);
        wire_jw_key(out, "n_keys");
        wire_jw_int(out, (int64_t)nk);
    }
    wire_jw_obj_end(out);
    wire_jw_obj_end(out);
    free(bk);
    free(row);
    free(rel);
    free(qp);
    free(kp);
    return 0;
}
