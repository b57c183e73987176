/*
 * api/rope_positions.c -- positions of POST /rope (see api/rope_parse.h): the fields of both
 * modes (seq_len, positions, q_positions, k_positions; a multi-axis list is read by
 * api/rope_multiaxis_pos.c), the 1-D rules
 * (positions | seq_len, q_positions / k_positions, which rows every output uses), the sets both
 * modes share (copy, union, largest + 1; tuples of A coordinates, A = 1 for 1-D), q and k against
 * their sides, and the 1-D response size and work checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/rope_parse.h"

/* ---- 1-D positions -------------------------------------------------------------------------- */

/* One 1-D list of positions (v at ptr) into out. Returns 0 or -1. */
static int one_d_list(api_problem *pb, const json_t *v, const char *ptr, const api_rope_req *r,
                      api_rope_pos *out)
{
    if (api_position_array(pb, v, ptr, r->lim, &out->v, &out->n) < 0)
        return -1;
    snprintf(out->ptr, sizeof out->ptr, "%s", ptr);
    return 0;
}

/* dir's positions as a 1-D list at ptr into out. Returns 0 or -1. */
static int one_d_direct(api_problem *pb, const int64_t *v, size_t len, const char *ptr,
                        const api_rope_req *r, api_rope_pos *out)
{
    if (api_position_ints(pb, v, len, ptr, r->lim, &out->v, &out->n) < 0)
        return -1;
    snprintf(out->ptr, sizeof out->ptr, "%s", ptr);
    return 0;
}

void api_rope_parse_positions(api_problem *pb, const json_t *req, const api_rope_direct *dir,
                              api_rope_req *r)
{
    int (*list)(api_problem *, const json_t *, const char *, const api_rope_req *, api_rope_pos *) =
        r->axes ? api_rope_axes_coords : one_d_list;
    int64_t sl = 0;
    if (api_get_int(pb, req, "", "seq_len", 1, r->lim->max_position, &sl) > 0) {
        r->has_seq_len = 1;
        r->seq_len = sl;
    }
    const json_t *pv = api_member(req, "positions");
    int rc = -1;
    if (dir != NULL)
        rc = (r->axes ? api_rope_axes_coords_direct : one_d_direct)(pb, dir->positions, dir->n_pos,
                                                                    "/positions", r, &r->pos);
    else if (pv != NULL)
        rc = list(pb, pv, "/positions", r, &r->pos);
    if (rc == 0) {
        r->has_pos = 1;
        r->pos.src = "positions";
    }
    static const char *const KEYS[2][2] = {{"q_positions", "query_positions"},
                                           {"k_positions", "key_positions"}};
    for (int s = 0; s < 2; s++) {
        const char *used = NULL;
        const json_t *v = api_get_alias(pb, req, "", KEYS[s][0], KEYS[s][1], &used);
        if (v == NULL)
            continue;
        api_rope_pos *ps = s == 0 ? &r->qpos : &r->kpos;
        char ptr[API_RC_PTR];
        api_ptr(ptr, sizeof ptr, "", used);
        if (list(pb, v, ptr, r, ps) == 0) {
            ps->src = used;
            if (s == 0)
                r->has_qpos = 1;
            else
                r->has_kpos = 1;
        }
    }
}

/* Fills 0 .. n-1 into ps (n <= max_positions checked by the caller). */
static int fill_range(api_problem *pb, api_rope_pos *ps, int64_t n)
{
    ps->v = api_alloc(pb, (size_t)n, sizeof *ps->v);
    if (ps->v == NULL)
        return -1;
    for (int64_t i = 0; i < n; i++)
        ps->v[i] = i;
    ps->n = (size_t)n;
    snprintf(ps->ptr, sizeof ps->ptr, "/seq_len");
    ps->src = "seq_len";
    return 0;
}

/* ---- sets of A-tuples, both modes ----------------------------------------------------------- */

int64_t api_rope_pos_max(const api_rope_pos *cs, size_t A)
{
    int64_t m = 0;
    for (size_t e = 0; e < cs->n * A; e++)
        if (cs->v[e] + 1 > m)
            m = cs->v[e] + 1;
    return m;
}

int api_rope_pos_copy(api_problem *pb, api_rope_pos *dst, const api_rope_pos *src, size_t A)
{
    size_t cells = src->n * A;
    dst->v = cells ? api_alloc(pb, cells, sizeof *dst->v) : NULL;
    if (cells && dst->v == NULL)
        return -1;
    if (cells)
        memcpy(dst->v, src->v, cells * sizeof *dst->v);
    dst->n = src->n;
    snprintf(dst->ptr, sizeof dst->ptr, "%s", src->ptr);
    dst->src = src->src;
    return 0;
}

/* Lexicographic order of tuples x, y of A coordinates. */
static int tuple_cmp(const int64_t *x, const int64_t *y, size_t A)
{
    for (size_t a = 0; a < A; a++)
        if (x[a] != y[a])
            return x[a] < y[a] ? -1 : 1;
    return 0;
}

/* Stable bottom-up merge sort of the row indices idx [n] by their tuples (tmp: n scratch). */
static void sort_rows(const int64_t *v, size_t A, size_t *idx, size_t *tmp, size_t n)
{
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = tuple_cmp(v + idx[b] * A, v + idx[a] * A, A) < 0 ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[o++] = idx[a++];
            while (b < hi)
                tmp[o++] = idx[b++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

int api_rope_pos_union(api_problem *pb, api_rope_pos *dst, const api_rope_pos *x,
                       const api_rope_pos *y, size_t A)
{
    size_t n = x->n + y->n;
    int64_t *all = api_alloc(pb, n * A + 1, sizeof *all);
    size_t *idx = api_alloc(pb, n + 1, sizeof *idx);
    size_t *tmp = api_alloc(pb, n + 1, sizeof *tmp);
    dst->v = api_alloc(pb, n * A + 1, sizeof *dst->v);
    int rc = -1;
    if (all == NULL || idx == NULL || tmp == NULL || dst->v == NULL)
        goto out;
    if (x->n)
        memcpy(all, x->v, x->n * A * sizeof *all);
    if (y->n)
        memcpy(all + x->n * A, y->v, y->n * A * sizeof *all);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_rows(all, A, idx, tmp, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const int64_t *t = all + idx[i] * A;
        if (m > 0 && tuple_cmp(t, dst->v + (m - 1) * A, A) == 0)
            continue;
        memcpy(dst->v + m * A, t, A * sizeof *t);
        m++;
    }
    dst->n = m;
    snprintf(dst->ptr, sizeof dst->ptr, "%s", x->n ? x->ptr : y->ptr);
    dst->src = "union of q and k positions";
    rc = 0;
out:
    free(all);
    free(idx);
    free(tmp);
    return rc;
}

/* ---- 1-D: which positions each output uses --------------------------------------------------- */

/*
 * Decides the sequence length and which positions every output uses (docs/api.md: positions, else
 * 0 .. seq_len-1; q_positions / k_positions override for q / k). Returns 0 or -1.
 */
int api_rope_resolve_positions(api_problem *pb, api_rope_req *r)
{
    const api_limits *lim = r->lim;
    int64_t m = 0, x;
    if (r->has_pos && (x = api_rope_pos_max(&r->pos, 1)) > m)
        m = x;
    if (r->has_qpos && (x = api_rope_pos_max(&r->qpos, 1)) > m)
        m = x;
    if (r->has_kpos && (x = api_rope_pos_max(&r->kpos, 1)) > m)
        m = x;
    r->max_req = m;
    if (r->has_seq_len && r->seq_len < m) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/seq_len",
                          "seq_len %lld is smaller than the largest position + 1 (%lld)",
                          (long long)r->seq_len, (long long)m);
        return -1;
    }
    r->L = r->has_seq_len ? r->seq_len : m;

    int want_q = r->want_q, want_k = r->want_k;
    int want_t = (r->include & (API_ROPE_INC_COS_SIN | API_ROPE_INC_F32)) != 0;
    int need_range = (want_q && !r->has_qpos && !r->has_pos) ||
                     (want_k && !r->has_kpos && !r->has_pos) || (want_t && !r->has_pos);
    api_rope_pos range;
    memset(&range, 0, sizeof range);
    if (need_range && r->has_seq_len) {
        if ((uint64_t)r->seq_len > lim->max_positions) {
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/seq_len",
                              "seq_len %lld would give more positions than max_positions (%zu)",
                              (long long)r->seq_len, lim->max_positions);
            return -1;
        }
        if (fill_range(pb, &range, r->seq_len) < 0)
            return -1;
    }
    int rc = 0;
    const api_rope_pos *base = r->has_pos ? &r->pos : (range.v ? &range : NULL);
    if (want_q) {
        const api_rope_pos *s = r->has_qpos ? &r->qpos : base;
        if (s == NULL) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                              "q needs positions: give positions, q_positions or seq_len");
            rc = -1;
        }
    }
    if (want_k) {
        const api_rope_pos *s = r->has_kpos ? &r->kpos : base;
        if (s == NULL) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                              "k needs positions: give positions, k_positions or seq_len");
            rc = -1;
        }
    }
    if (rc == 0 && want_q && !r->has_qpos && api_rope_pos_copy(pb, &r->qpos, base, 1) < 0)
        rc = -1;
    if (rc == 0 && want_k && !r->has_kpos && api_rope_pos_copy(pb, &r->kpos, base, 1) < 0)
        rc = -1;
    if (rc == 0 && want_t) {
        if (base != NULL) {
            rc = api_rope_pos_copy(pb, &r->tpos, base, 1);
        } else if (r->has_qpos || r->has_kpos) {
            rc = api_rope_pos_union(pb, &r->tpos, &r->qpos, &r->kpos, 1);
        } else {
            int k = (r->include & API_ROPE_INC_COS_SIN) ? 0 : 3;
            api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                              "include \"%s\" needs positions: give positions or seq_len",
                              api_rope_include_name(k));
            rc = -1;
        }
    }
    free(range.v);
    if (rc == 0 && (r->sc.type == PE_ROPE_DYNAMIC || r->sc.type == PE_ROPE_LONGROPE) &&
        r->sc.present && r->inv_freq_j == NULL && r->L == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/seq_len",
                          "%s scaling depends on the sequence length: give seq_len or positions",
                          api_rope_type_name(r->sc.type));
        rc = -1;
    }
    return rc;
}

void api_rope_parse_vectors(api_problem *pb, const api_rope_direct *dir, api_rope_req *r)
{
    size_t hd = (size_t)r->head_dim, max = r->lim->max_output_elements;
    if (dir != NULL) {
        api_rope_vectors_direct(pb, dir->q, dir->rows, dir->cols, "q", r->qpos.n, r->qpos.ptr, hd,
                                max, &r->q, &r->q_rows, &r->q_vec);
        api_rope_vectors_direct(pb, dir->k, dir->rows, dir->cols, "k", r->kpos.n, r->kpos.ptr, hd,
                                max, &r->k, &r->k_rows, &r->k_vec);
        return;
    }
    api_rope_vectors_parse(pb, r->q_j, "q", r->qpos.n, r->qpos.ptr, hd, max, &r->q, &r->q_rows,
                           &r->q_vec);
    api_rope_vectors_parse(pb, r->k_j, "k", r->kpos.n, r->kpos.ptr, hd, max, &r->k, &r->k_rows,
                           &r->k_vec);
}

/* ---- sizes ---------------------------------------------------------------------------------- */

/* Adds n numbers to *total and checks it against max_output_elements, blaming ptr. */
static int account(api_problem *pb, const api_limits *lim, size_t *total, size_t n, const char *ptr,
                   const char *what)
{
    if (n > (size_t)-1 - *total) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr, "%s: response size overflows", what);
        return -1;
    }
    *total += n;
    return api_check_output(pb, lim, *total, ptr, what);
}

static int mul3(size_t a, size_t b, size_t c, size_t *out)
{
    size_t t;
    return pe_mul_ok(a, b, &t) && pe_mul_ok(t, c, out);
}

static void include_ptr(char *out, size_t n, const api_rope_req *r, int k)
{
    api_ptr_idx(out, n, "/include", (size_t)(r->include_idx[k] < 0 ? 0 : r->include_idx[k]));
}

/* Checks the whole response size (and the decay / float32_error work) before allocating. */
int api_rope_check_sizes(api_problem *pb, const api_rope_req *r)
{
    const api_limits *lim = r->lim;
    size_t n = (size_t)r->rotary_dim / 2, hd = (size_t)r->head_dim, total = 0, t;
    size_t pq = r->q ? r->qpos.n : 0, pk = r->k ? r->kpos.n : 0;
    char ip[API_RC_PTR];
    /* inv_freq, factors, resolved (longrope lists twice at most) */
    if (account(pb, lim, &total, 3 * n + 64, "/head_dim", "inv_freq") < 0)
        return -1;
    if (r->q && (!mul3(pq, hd, 1, &t) || account(pb, lim, &total, t + pq, "/q", "q_rotated") < 0))
        goto over;
    if (r->k && (!mul3(pk, hd, 1, &t) || account(pb, lim, &total, t + pk, "/k", "k_rotated") < 0))
        goto over;
    if (r->q && r->k && (!mul3(pq, pk, 1, &t) || account(pb, lim, &total, t, "/k", "scores") < 0))
        goto over;
    if (r->include & API_ROPE_INC_COS_SIN) {
        include_ptr(ip, sizeof ip, r, 0);
        if (!mul3(r->tpos.n, n, 2, &t) ||
            account(pb, lim, &total, t + r->tpos.n, ip, "cos and sin") < 0)
            goto over;
    }
    if (r->include & API_ROPE_INC_BANDS) {
        include_ptr(ip, sizeof ip, r, 1);
        if (!mul3(n, 6, 1, &t) || account(pb, lim, &total, t, ip, "bands") < 0)
            goto over;
    }
    /* compute budget: rotations and scores (multiply-adds), cos/sin, decay and float32_error
     * (transcendentals) */
    size_t work = 0;
    if (api_check_work(pb, lim, &work, pq + pk, hd, 1, "/q", "the rotations") < 0 ||
        (r->q && r->k && api_check_work(pb, lim, &work, pq, pk, hd, "/k", "the scores") < 0) ||
        api_check_work(pb, lim, &work, r->tpos.n, n, 2 * API_WORK_TRIG,
                       r->tpos.ptr[0] ? r->tpos.ptr : "/seq_len", "cos and sin") < 0)
        return -1;
    if (r->include & API_ROPE_INC_DECAY) {
        if (!mul3(r->n_dist, 4, 1, &t) || account(pb, lim, &total, t, "/distances", "decay") < 0)
            goto over;
        if (api_check_work(pb, lim, &work, r->n_dist, n, 2 * API_WORK_TRIG, "/distances", "decay") <
            0)
            return -1;
    }
    if (r->include & API_ROPE_INC_F32) {
        include_ptr(ip, sizeof ip, r, 3);
        if (account(pb, lim, &total, 3 + r->tpos.n, ip, "float32_error") < 0)
            goto over;
        if (api_check_work(pb, lim, &work, r->tpos.n, n, 4 * API_WORK_TRIG, ip, "float32_error") <
            0)
            return -1;
    }
    return 0;
over:
    if (!api_problem_failed(pb))
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "", "response size overflows");
    return -1;
}
