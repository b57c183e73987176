/*
 * api/rope_fields.c -- the /rope request fields the 1-D and the multi-axis modes read alike
 * (layout, the known fields, what a pasted config may skip, head_dim, the rotary dim, base, q and
 * k); see api/rope_parse.h. Pure: borrowed jansson values in, caller-owned values out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/req.h"
#include "api/rope_parse.h"

void api_rope_layout_resolve(api_problem *pb, const json_t *req, const api_rope_config *cfg,
                             pe_rope_layout *layout, api_rc_origin *o)
{
    static const char *const LAYOUTS[] = {"half", "interleaved", NULL};
    int li = 0;
    *layout = PE_ROPE_HALF;
    api_rc_origin_set(o, "", "default");
    if (api_get_enum(pb, req, "", "layout", LAYOUTS, &li) > 0) {
        *layout = li == 1 ? PE_ROPE_INTERLEAVED : PE_ROPE_HALF;
        api_rc_origin_set(o, "/layout", "request");
    } else if (cfg != NULL) {
        *layout = cfg->layout;
        *o = cfg->layout_o;
    }
}

/* ---- request fields shared by the 1-D and the multi-axis handlers --------------------------- */

int api_rope_check_fields(api_problem *pb, const json_t *req)
{
    static const char *const FIELDS[] = {"head_dim",
                                         "rotary_dim",
                                         "partial_rotary_factor",
                                         "base",
                                         "rope_theta",
                                         "layout",
                                         "scaling",
                                         "rope_scaling",
                                         "inv_freq",
                                         "config",
                                         "seq_len",
                                         "positions",
                                         "q_positions",
                                         "query_positions",
                                         "k_positions",
                                         "key_positions",
                                         "q",
                                         "k",
                                         "include",
                                         "distances",
                                         "axes",
                                         "layer",
                                         "layer_type",
                                         NULL};
    return api_check_fields_config(pb, req, "", FIELDS);
}

unsigned api_rope_config_skip(const json_t *req)
{
    unsigned s = 0;
    if (api_member(req, "head_dim"))
        s |= API_RC_SKIP_HEAD_DIM;
    if (api_member(req, "rotary_dim") || api_member(req, "partial_rotary_factor"))
        s |= API_RC_SKIP_ROTARY;
    if (api_member(req, "base") || api_member(req, "rope_theta"))
        s |= API_RC_SKIP_BASE;
    if (api_member(req, "layout"))
        s |= API_RC_SKIP_LAYOUT;
    return s;
}

int api_rope_head_dim_resolve(api_problem *pb, const json_t *req, const api_rope_config *cfg,
                              int64_t given, int64_t *head_dim, api_rc_origin *o)
{
    int64_t hd = 0;
    int rc = 0;
    /* as if the request held "head_dim": given (json_object_get: a null member counts) */
    if (given > 0 && json_object_get(req, "head_dim") == NULL &&
        json_object_get(req, "config") == NULL) {
        hd = given;
        rc = 1;
    } else {
        rc = api_get_int(pb, req, "", "head_dim", INT64_MIN, INT64_MAX, &hd);
    }
    if (rc > 0) {
        *head_dim = hd;
        api_rc_origin_set(o, "/head_dim", "request");
        return 1;
    }
    if (rc == 0 && cfg != NULL && cfg->head_dim_o.set) {
        *head_dim = cfg->head_dim;
        *o = cfg->head_dim_o;
        return 1;
    }
    if (rc == 0)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/head_dim",
                          cfg != NULL ? "head_dim is required: the config has none of "
                                        "qk_rope_head_dim, head_dim, hidden_size / "
                                        "num_attention_heads"
                                      : "head_dim is required");
    return -1;
}

int api_rope_rotary_dim_resolve(api_problem *pb, const json_t *req, const api_rope_config *cfg,
                                int64_t head_dim, const api_rc_origin *head_dim_o,
                                int64_t *rotary_dim, api_rc_origin *o)
{
    int64_t rd = 0;
    double f = 0.0;
    int has_rd = api_get_int(pb, req, "", "rotary_dim", INT64_MIN, INT64_MAX, &rd);
    int has_f =
        api_get_number(pb, req, "", "partial_rotary_factor", 0.0, 1.0, API_NUM_MIN_EXCL, &f);
    if (has_rd < 0 || has_f < 0)
        return -1;
    if (has_rd > 0 && has_f > 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/partial_rotary_factor",
                          "give rotary_dim or partial_rotary_factor, not both");
        return -1;
    }
    const char *fsrc = "request";
    char fptr[API_RC_PTR] = "/partial_rotary_factor";
    if (has_rd > 0) {
        api_rc_origin_set(o, "/rotary_dim", "request");
    } else if (has_f > 0) {
        /* below */
    } else if (cfg != NULL && cfg->rotary_dim_o.set) {
        rd = cfg->rotary_dim;
        has_rd = 1;
        *o = cfg->rotary_dim_o;
    } else if (cfg != NULL && cfg->partial_o.set) {
        f = cfg->partial_rotary_factor;
        has_f = 1;
        fsrc = cfg->partial_o.src;
        snprintf(fptr, sizeof fptr, "%s", cfg->partial_o.ptr);
    }
    if (has_rd > 0) {
        *rotary_dim = rd;
        return 1;
    }
    if (has_f > 0) {
        int64_t d = (int64_t)floor((double)head_dim * f); /* HF: int(head_dim * factor) */
        if (d < 2 || d % 2 != 0) {
            api_problem_field(pb, API_PB_INVALID_FIELD, fptr,
                              "rotary dim = floor(head_dim %lld x partial_rotary_factor %.17g) = "
                              "%lld must be even and >= 2",
                              (long long)head_dim, f, (long long)d);
            return -1;
        }
        *rotary_dim = d;
        api_rc_origin_set(o, fptr, "%s (floor(head_dim x %.17g))", fsrc, f);
        return 0;
    }
    *rotary_dim = head_dim;
    api_rc_origin_set(o, head_dim_o->ptr, "head_dim (all dims rotate)");
    return 0;
}

int api_rope_base_resolve(api_problem *pb, const json_t *req, const api_rope_config *cfg,
                          double *base, api_rc_origin *o)
{
    const char *used = NULL;
    const json_t *bv = api_get_alias(pb, req, "", "base", "rope_theta", &used);
    *base = 10000.0;
    api_rc_origin_set(o, "", "default");
    if (bv != NULL) {
        char ptr[API_RC_PTR];
        api_ptr(ptr, sizeof ptr, "", used);
        if (api_number_value(pb, bv, ptr, 1.0, HUGE_VAL, API_NUM_MIN_EXCL, base) < 0)
            return -1;
        api_rc_origin_set(o, ptr, "request");
        return 1;
    }
    if (cfg != NULL && cfg->base_o.set) {
        *base = cfg->base;
        *o = cfg->base_o;
    }
    return 0;
}

static const char *const INCLUDES[] = {"cos_sin",       "bands",      "decay",
                                       "float32_error", "cos_sin_hf", NULL};

const char *api_rope_include_name(int k)
{
    return k >= 0 && k < 5 ? INCLUDES[k] : "unknown";
}

int api_rope_include_kind(api_problem *pb, const json_t *inc, size_t i, char *ptr, size_t n)
{
    char ip[API_RC_PTR];
    api_ptr_idx(ip, sizeof ip, "/include", i);
    if (ptr != NULL)
        snprintf(ptr, n, "%s", ip);
    int k = 0;
    return api_enum_value(pb, json_array_get(inc, i), ip, INCLUDES, &k) < 0 ? -1 : k;
}

const char *api_rope_head_dim_read(api_problem *pb, const json_t *req, int64_t given,
                                   api_rope_req *r)
{
    const api_rope_config *cfg = r->has_config ? &r->cfg : NULL;
    if (api_rope_head_dim_resolve(pb, req, cfg, given, &r->head_dim, &r->head_dim_o) < 0)
        return NULL;
    return api_rc_blame(&r->head_dim_o, "/head_dim");
}

int api_rope_head_dim_fits(api_problem *pb, const api_rope_req *r, const char *hp)
{
    if ((uint64_t)r->head_dim > r->lim->max_dim) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, hp, "head_dim %lld exceeds max_dim (%zu)",
                          (long long)r->head_dim, r->lim->max_dim);
        return -1;
    }
    return 0;
}

int api_rope_rotary_read(api_problem *pb, const json_t *req, api_rope_req *r, int64_t *rd)
{
    const api_rope_config *cfg = r->has_config ? &r->cfg : NULL;
    return api_rope_rotary_dim_resolve(pb, req, cfg, r->head_dim, &r->head_dim_o, rd, &r->rotary_o);
}

void api_rope_inputs(const json_t *req, const api_rope_direct *dir, api_rope_req *r)
{
    if (dir == NULL) {
        r->q_j = api_member(req, "q");
        r->k_j = api_member(req, "k");
    }
    r->want_q = dir ? 1 : r->q_j != NULL;
    r->want_k = dir ? 1 : r->k_j != NULL;
}

int api_rope_vectors_parse(api_problem *pb, const json_t *v, const char *key, size_t n_pos,
                           const char *pos_ptr, size_t head_dim, size_t max_elems, double **out,
                           size_t *rows, int *is_vec)
{
    if (v == NULL)
        return 0;
    *out = NULL;
    char ptr[API_RC_PTR];
    api_ptr(ptr, sizeof ptr, "", key);
    if (json_is_array(v) && json_array_size(v) > 0 && json_is_array(json_array_get(v, 0)) &&
        json_array_size(v) != n_pos) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "a matrix %s needs one row per position: %zu rows for %zu "
                          "positions (%s)",
                          key, json_array_size(v), n_pos, pos_ptr[0] ? pos_ptr : "/positions");
        return -1;
    }
    size_t cols = 0;
    return api_number_matrix(pb, v, ptr, 0, head_dim, max_elems, 1, out, rows, &cols, is_vec);
}

int api_rope_vectors_direct(api_problem *pb, const double *x, size_t rows, size_t cols,
                            const char *key, size_t n_pos, const char *pos_ptr, size_t head_dim,
                            size_t max_elems, double **out, size_t *out_rows, int *is_vec)
{
    *out = NULL;
    *is_vec = 0;
    char ptr[API_RC_PTR];
    api_ptr(ptr, sizeof ptr, "", key);
    /* the checks api_rope_vectors_parse and api_number_matrix make of a matrix, in their order */
    if (rows == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be a non-empty array of rows");
        return -1;
    }
    if (rows != n_pos) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "a matrix %s needs one row per position: %zu rows for %zu "
                          "positions (%s)",
                          key, rows, n_pos, pos_ptr[0] ? pos_ptr : "/positions");
        return -1;
    }
    size_t total;
    if (api_matrix_shape(pb, ptr, rows, cols, 0, head_dim, max_elems, &total) < 0)
        return -1;
    double *c = api_alloc(pb, total, sizeof *c);
    if (c == NULL)
        return -1;
    for (size_t i = 0; i < total; i++) {
        if (!isfinite(x[i])) {
            char rp[API_RC_PTR];
            api_ptr_idx(rp, sizeof rp, ptr, i / cols);
            api_problem_idx(pb, API_PB_INVALID_FIELD, rp, i % cols, "must be finite");
            free(c);
            return -1;
        }
        c[i] = x[i];
    }
    *out = c;
    *out_rows = rows;
    return 1;
}
