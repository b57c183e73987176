/*
 * api/rope_multiaxis_pos.c -- positions and sizes of a multi-axis POST /rope (see
 * api/rope_parse.h): each position a plain integer p (p on every axis) or a list of A integers,
 * seq_len above every coordinate, the rows of every output, and the response size and work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/rope_parse.h"

/* len positions of r->A coordinates: at most max_positions, at most max_output_elements
 * coordinates (422 limit-exceeded at ptr otherwise); *c = room for them (NULL for none). */
static int coords_alloc(api_problem *pb, size_t len, const char *ptr, const api_rope_req *r,
                        int64_t **c)
{
    const api_limits *lim = r->lim;
    size_t A = r->A, cells;
    *c = NULL;
    if (len > lim->max_positions) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr, "has %zu positions; max_positions is %zu",
                          len, lim->max_positions);
        return -1;
    }
    if (!pe_mul_ok(len, A, &cells) || cells > lim->max_output_elements) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr,
                          "%zu positions x %zu axes exceed max_output_elements (%zu)", len, A,
                          lim->max_output_elements);
        return -1;
    }
    *c = cells ? api_alloc(pb, cells, sizeof **c) : NULL;
    return cells && *c == NULL ? -1 : 0;
}

int api_rope_axes_coords(api_problem *pb, const json_t *v, const char *ptr, const api_rope_req *r,
                         api_rope_pos *out)
{
    const api_limits *lim = r->lim;
    size_t A = r->A;
    if (!json_is_array(v)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "must be an array of positions: integers, or lists of %zu integers "
                          "(one per axis)",
                          A);
        return -1;
    }
    size_t len = json_array_size(v);
    int64_t *c = NULL;
    if (coords_alloc(pb, len, ptr, r, &c) < 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        const json_t *e = json_array_get(v, i);
        char ip[API_RC_PTR];
        api_ptr_idx(ip, sizeof ip, ptr, i);
        int64_t *row = c + i * A;
        int bad = 0;
        if (json_is_array(e)) {
            if (json_array_size(e) != A) {
                api_problem_field(pb, API_PB_INVALID_FIELD, ip,
                                  "must have %zu coordinates (one per axis of type \"%s\"), got "
                                  "%zu",
                                  A, pe_axes_type_str(r->type), json_array_size(e));
                bad = 1;
            }
            for (size_t a = 0; a < A && !bad; a++) {
                char ap[API_RC_PTR];
                api_ptr_idx(ap, sizeof ap, ip, a);
                bad = api_int_value(pb, json_array_get(e, a), ap, 0, lim->max_position - 1,
                                    &row[a]) < 0;
            }
        } else if (json_is_number(e)) {
            int64_t p = 0;
            bad = api_int_value(pb, e, ip, 0, lim->max_position - 1, &p) < 0;
            for (size_t a = 0; a < A && !bad; a++)
                row[a] = p;
        } else {
            api_problem_field(pb, API_PB_INVALID_FIELD, ip,
                              "must be a non-negative integer or a list of %zu of them", A);
            bad = 1;
        }
        if (bad) {
            free(c);
            return -1;
        }
    }
    out->v = c;
    out->n = len;
    snprintf(out->ptr, sizeof out->ptr, "%s", ptr);
    return 0;
}

int api_rope_axes_coords_direct(api_problem *pb, const int64_t *v, size_t len, const char *ptr,
                                const api_rope_req *r, api_rope_pos *out)
{
    size_t A = r->A, n = 0;
    int64_t *c = NULL, *p = NULL;
    if (coords_alloc(pb, len, ptr, r, &c) < 0)
        return -1;
    if (api_position_ints(pb, v, len, ptr, r->lim, &p, &n) < 0) {
        free(c);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < A; a++)
            c[i * A + a] = p[i];
    free(p);
    out->v = c;
    out->n = len;
    snprintf(out->ptr, sizeof out->ptr, "%s", ptr);
    return 0;
}

/* positions, else 0 .. seq_len-1 (plain integers); q_positions / k_positions override. */
int api_rope_axes_resolve_positions(api_problem *pb, api_rope_req *r)
{
    size_t A = r->A;
    int64_t m = 0, x;
    if (r->has_pos && (x = api_rope_pos_max(&r->pos, A)) > m)
        m = x;
    if (r->has_qpos && (x = api_rope_pos_max(&r->qpos, A)) > m)
        m = x;
    if (r->has_kpos && (x = api_rope_pos_max(&r->kpos, A)) > m)
        m = x;
    if (r->has_seq_len && r->seq_len < m) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/seq_len",
                          "seq_len %lld must exceed every coordinate (largest coordinate + 1 = "
                          "%lld)",
                          (long long)r->seq_len, (long long)m);
        return -1;
    }
    r->L = r->has_seq_len ? r->seq_len : m;

    int want_q = r->want_q, want_k = r->want_k, want_t = (r->include & API_ROPE_INC_COS_SIN) != 0;
    int need_range = (want_q && !r->has_qpos && !r->has_pos) ||
                     (want_k && !r->has_kpos && !r->has_pos) || (want_t && !r->has_pos);
    api_rope_pos range;
    memset(&range, 0, sizeof range);
    if (need_range && r->has_seq_len) {
        size_t cells;
        if ((uint64_t)r->seq_len > r->lim->max_positions ||
            !pe_mul_ok((size_t)r->seq_len, A, &cells) || cells > r->lim->max_output_elements) {
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/seq_len",
                              "seq_len %lld would give more positions than max_positions (%zu) "
                              "or more coordinates than max_output_elements (%zu)",
                              (long long)r->seq_len, r->lim->max_positions,
                              r->lim->max_output_elements);
            return -1;
        }
        range.v = api_alloc(pb, cells, sizeof *range.v);
        if (range.v == NULL)
            return -1;
        for (size_t i = 0; i < (size_t)r->seq_len; i++)
            for (size_t a = 0; a < A; a++)
                range.v[i * A + a] = (int64_t)i;
        range.n = (size_t)r->seq_len;
        snprintf(range.ptr, sizeof range.ptr, "/seq_len");
        range.src = "seq_len";
    }
    int rc = 0;
    const api_rope_pos *base = r->has_pos ? &r->pos : (range.v ? &range : NULL);
    if ((want_q && !r->has_qpos && base == NULL) || (want_k && !r->has_kpos && base == NULL)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                          "%s needs positions: give positions, %s or seq_len",
                          want_q && !r->has_qpos ? "q" : "k",
                          want_q && !r->has_qpos ? "q_positions" : "k_positions");
        rc = -1;
    }
    if (rc == 0 && want_q && !r->has_qpos && api_rope_pos_copy(pb, &r->qpos, base, A) < 0)
        rc = -1;
    if (rc == 0 && want_k && !r->has_kpos && api_rope_pos_copy(pb, &r->kpos, base, A) < 0)
        rc = -1;
    if (rc == 0 && want_t) {
        if (base != NULL) {
            rc = api_rope_pos_copy(pb, &r->tpos, base, A);
        } else if (r->has_qpos || r->has_kpos) {
            rc = api_rope_pos_union(pb, &r->tpos, &r->qpos, &r->kpos, A);
        } else {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                              "include \"cos_sin\" needs positions: give positions or seq_len");
            rc = -1;
        }
    }
    free(range.v);
    return rc;
}

/* ---- sizes ---------------------------------------------------------------------------------- */

/* *total += a * b (+ c), checked against max_output_elements; blames ptr. */
static int account(api_problem *pb, const api_limits *lim, size_t *total, size_t a, size_t b,
                   size_t c, const char *ptr, const char *what)
{
    size_t t;
    if (!pe_mul_ok(a, b, &t) || t > (size_t)-1 - c || t + c > (size_t)-1 - *total) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr, "%s: the response size overflows", what);
        return -1;
    }
    *total += t + c;
    return api_check_output(pb, lim, *total, ptr, what);
}

int api_rope_axes_check_sizes(api_problem *pb, const api_rope_req *r)
{
    const api_limits *lim = r->lim;
    size_t n = (size_t)r->rotary_dim / 2, hd = (size_t)r->head_dim, A = r->A, total = 0;
    size_t pq = r->q ? r->qpos.n : 0, pk = r->k ? r->kpos.n : 0;
    char ip[API_RC_PTR];
    api_ptr_idx(ip, sizeof ip, "/include", (size_t)(r->include_idx[0] < 0 ? 0 : r->include_idx[0]));
    if (account(pb, lim, &total, A + 2, n, 64 + A, r->axes_ptr, "axis_freqs") < 0)
        return -1;
    if (r->q && account(pb, lim, &total, pq, hd + A, 0, "/q", "q_rotated") < 0)
        return -1;
    if (r->k && account(pb, lim, &total, pk, hd + A, 0, "/k", "k_rotated") < 0)
        return -1;
    if (r->q && r->k && account(pb, lim, &total, pq, pk, 0, "/k", "scores") < 0)
        return -1;
    if ((r->include & API_ROPE_INC_COS_SIN) &&
        account(pb, lim, &total, r->tpos.n, 2 * n + A, 0, ip, "cos and sin") < 0)
        return -1;
    /* compute budget: angles (A multiply-adds and a sin and cos per pair) for every position of
     * q, k and the table, rotations, and the scores */
    size_t work = 0;
    if (api_check_work(pb, lim, &work, pq + pk + r->tpos.n, n, A + 2 * API_WORK_TRIG, "/positions",
                       "the angles") < 0 ||
        api_check_work(pb, lim, &work, pq + pk, hd, 1, "/q", "the rotations") < 0 ||
        (r->q && r->k && api_check_work(pb, lim, &work, pq, pk, hd, "/k", "the scores") < 0))
        return -1;
    return 0;
}
