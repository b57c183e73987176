/*
 * api/rope_parse.c -- step 1 of POST /rope: the request -> api_rope_req (see api/rope_req.h).
 * The 1-D rules live here (dims, base, layout, scaling, inv_freq, include, distances); the
 * fields both modes read in api/rope_fields.c, positions in api/rope_positions.c, multi-axis
 * requests in api/rope_multiaxis.c. Every broken rule is a 422 naming its field; the order in
 * which fields are read is the order of the errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/rope_parse.h"

void api_rope_req_free(api_rope_req *r)
{
    free(r->lists[0]);
    free(r->lists[1]);
    free(r->inv_freq);
    free(r->dist);
    free(r->sections);
    free(r->F);
    free(r->pair_axis);
    free(r->pos.v);
    free(r->qpos.v);
    free(r->kpos.v);
    free(r->tpos.v);
    free(r->q);
    free(r->k);
    api_ml_plan_free(&r->plan);
    memset(r, 0, sizeof *r);
}

/* ---- configuration -------------------------------------------------------------------------- */

/* What the pasted config need not say: the shared fields the request gives, and the scaling. */
static unsigned skip_mask(const json_t *req)
{
    unsigned s = api_rope_config_skip(req);
    /* an explicit "scaling": null also wins over the config's rope_scaling (no scaling) */
    if (json_object_get(req, "scaling") || json_object_get(req, "rope_scaling") ||
        api_member(req, "inv_freq"))
        s |= API_RC_SKIP_SCALING;
    return s;
}

/* head_dim and the rotary dim (read in rope_fields.c; the range checks and their wording are the
 * 1-D mode's). given: api_rope_head_dim_resolve's. Returns 0 when both are valid, -1 otherwise. */
static int parse_dims(api_problem *pb, const json_t *req, int64_t given, api_rope_req *r)
{
    size_t e0 = api_problem_count(pb);
    const char *hp = api_rope_head_dim_read(pb, req, given, r);
    if (hp == NULL)
        return -1;
    if (r->head_dim < 2) {
        api_problem_field(pb, API_PB_INVALID_FIELD, hp, "head_dim must be >= 2, got %lld",
                          (long long)r->head_dim);
        return -1;
    }
    if (api_rope_head_dim_fits(pb, r, hp) < 0)
        return -1;

    /* An odd head_dim is fine when the rotated part is even and shorter (HF's partial rotary:
     * q[..., :rotary_dim] rotates, q[..., rotary_dim:] passes through, whatever the head's
     * parity); a head that rotates whole needs an even width (transformers#48101). */
    int64_t rd = 0;
    int rc = api_rope_rotary_read(pb, req, r, &rd);
    if (rc < 0)
        return -1;
    if (rd == r->head_dim && r->head_dim % 2 != 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, hp, "head_dim must be even, got %lld",
                          (long long)r->head_dim);
        return -1;
    }
    if (rc > 0) { /* an explicit rotary_dim */
        const char *rp = r->rotary_o.ptr;
        if (rd < 2 || rd % 2 != 0) {
            api_problem_field(pb, API_PB_INVALID_FIELD, rp,
                              "rotary_dim must be even and >= 2, got %lld", (long long)rd);
            return -1;
        }
        if (rd > r->head_dim) {
            api_problem_field(pb, API_PB_INVALID_FIELD, rp,
                              "rotary_dim %lld must be <= head_dim (%lld)", (long long)rd,
                              (long long)r->head_dim);
            return -1;
        }
    }
    r->rotary_dim = rd;
    return api_problem_count(pb) != e0 ? -1 : 0;
}

/* base | rope_theta (request, config, 10000) and layout. */
static void parse_base_layout(api_problem *pb, const json_t *req, api_rope_req *r)
{
    const api_rope_config *cfg = r->has_config ? &r->cfg : NULL;
    api_rope_base_resolve(pb, req, cfg, &r->base, &r->base_o);
    api_rope_layout_resolve(pb, req, cfg, &r->layout, &r->layout_o);
}

/* scaling | rope_scaling (strict), else the pasted config's (unless the request says null). */
static void parse_scaling(api_problem *pb, const json_t *req, api_rope_req *r)
{
    const char *used = NULL;
    const json_t *sv = api_get_alias(pb, req, "", "scaling", "rope_scaling", &used);
    char ptr[API_RC_PTR];
    memset(&r->sc, 0, sizeof r->sc);
    r->sc.type = PE_ROPE_DEFAULT;
    if (sv != NULL) {
        api_ptr(ptr, sizeof ptr, "", used);
        if (!json_is_object(sv)) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be an object or null");
            return;
        }
        api_rope_scaling_parse(pb, sv, ptr, "request", API_RS_STRICT, 0, NULL, &r->sc, &r->warn);
    } else if (r->has_config && r->cfg.scaling.present && json_object_get(req, "scaling") == NULL &&
               json_object_get(req, "rope_scaling") == NULL) {
        r->sc = r->cfg.scaling;
    }
}

/* The explicit inv_freq list: not together with base / scaling (they would be ignored). */
static void check_inv_freq_conflicts(api_problem *pb, const json_t *req, api_rope_req *r)
{
    r->inv_freq_j = api_member(req, "inv_freq");
    if (r->inv_freq_j == NULL)
        return;
    static const char *const CONFLICTS[] = {"base", "rope_theta", "scaling", "rope_scaling", NULL};
    for (const char *const *c = CONFLICTS; *c; c++) {
        if (api_member(req, *c)) {
            api_problem_key(pb, API_PB_INVALID_FIELD, "", *c,
                            "%s cannot be combined with inv_freq: explicit frequencies replace "
                            "base and scaling",
                            *c);
        }
    }
    const json_t *cfg = api_member(req, "config");
    if (r->has_config && (r->cfg.base_o.set || api_member(cfg, "rope_scaling") != NULL ||
                          api_member(cfg, "rope_parameters") != NULL))
        api_rc_warn(&r->warn, "inv_freq is given: the config's rope_theta and rope_scaling were "
                              "not used");
}

/* Required fields of the scaling type, list contents, cross-field rules. Needs rotary_dim. */
static void check_scaling(api_problem *pb, api_rope_req *r)
{
    api_rope_scaling *sc = &r->sc;
    if (!sc->present || r->inv_freq_j != NULL)
        return;
    static const struct {
        pe_rope_type t;
        api_rs_field f[5];
        int n;
    } REQUIRED[] = {
        {PE_ROPE_LINEAR, {API_RS_FACTOR}, 1},
        {PE_ROPE_DYNAMIC, {API_RS_FACTOR, API_RS_ORIGINAL_MAX_POSITION}, 2},
        {PE_ROPE_YARN, {API_RS_FACTOR, API_RS_ORIGINAL_MAX_POSITION}, 2},
        {PE_ROPE_LONGROPE,
         {API_RS_FACTOR, API_RS_ORIGINAL_MAX_POSITION, API_RS_SHORT_FACTOR, API_RS_LONG_FACTOR},
         4},
        {PE_ROPE_LLAMA3,
         {API_RS_FACTOR, API_RS_ORIGINAL_MAX_POSITION, API_RS_LOW_FREQ_FACTOR,
          API_RS_HIGH_FREQ_FACTOR},
         4},
        {PE_ROPE_NTK, {API_RS_ALPHA}, 1},
    };
    for (size_t i = 0; i < sizeof REQUIRED / sizeof REQUIRED[0]; i++) {
        if (REQUIRED[i].t != sc->type)
            continue;
        for (int j = 0; j < REQUIRED[i].n; j++) {
            api_rs_field f = REQUIRED[i].f[j];
            if (sc->origin[f].set)
                continue;
            api_problem_key(pb, API_PB_INVALID_FIELD, sc->ptr, api_rs_field_name(f),
                            "%s is required for scaling type %s", api_rs_field_name(f),
                            api_rope_type_name(sc->type));
        }
    }
    size_t n = (size_t)r->rotary_dim / 2;
    if (sc->type == PE_ROPE_DYNAMIC || sc->type == PE_ROPE_NTK) {
        if (r->rotary_dim < 4)
            api_problem_field(pb, API_PB_INVALID_FIELD, api_rc_blame(&r->rotary_o, "/head_dim"),
                              "%s scaling divides by rotary dim - 2: rotary dim must be >= 4, "
                              "got %lld",
                              api_rope_type_name(sc->type), (long long)r->rotary_dim);
    }
    if (sc->type == PE_ROPE_PROPORTIONAL && r->rotary_dim != r->head_dim)
        api_problem_field(pb, API_PB_INVALID_FIELD, api_rc_blame(&r->rotary_o, "/rotary_dim"),
                          "proportional RoPE pairs the whole head (HF "
                          "_compute_proportional_rope_parameters): rotary dim must equal head_dim "
                          "(%lld), got %lld; give the rotated share as the scaling's "
                          "partial_rotary_factor",
                          (long long)r->head_dim, (long long)r->rotary_dim);
    if (sc->type == PE_ROPE_LLAMA3 && sc->origin[API_RS_LOW_FREQ_FACTOR].set &&
        sc->origin[API_RS_HIGH_FREQ_FACTOR].set &&
        !(sc->num[API_RS_LOW_FREQ_FACTOR] <= sc->num[API_RS_HIGH_FREQ_FACTOR]))
        api_problem_field(pb, API_PB_INVALID_FIELD, sc->origin[API_RS_HIGH_FREQ_FACTOR].ptr,
                          "high_freq_factor (%.17g) must not be below low_freq_factor (%.17g)",
                          sc->num[API_RS_HIGH_FREQ_FACTOR], sc->num[API_RS_LOW_FREQ_FACTOR]);
    else if (sc->type == PE_ROPE_LLAMA3 && sc->origin[API_RS_LOW_FREQ_FACTOR].set &&
             sc->origin[API_RS_HIGH_FREQ_FACTOR].set &&
             sc->num[API_RS_LOW_FREQ_FACTOR] == sc->num[API_RS_HIGH_FREQ_FACTOR])
        /* HF only warns (transformers#32182, _validate_llama3_rope_parameters) */
        api_rc_warn(&r->warn,
                    "high_freq_factor equals low_freq_factor (%.17g): there is no medium band, "
                    "each pair is kept or divided by factor (accepted, as Hugging Face only "
                    "warns)",
                    sc->num[API_RS_LOW_FREQ_FACTOR]);
    if (sc->type == PE_ROPE_LONGROPE) {
        for (int l = 0; l < 2; l++) {
            api_rs_field f = l == 0 ? API_RS_SHORT_FACTOR : API_RS_LONG_FACTOR;
            if (sc->list[l] == NULL)
                continue;
            size_t got = 0;
            if (api_number_array(pb, sc->list[l], sc->origin[f].ptr, n, n, "rotary_dim/2",
                                 &r->lists[l], &got) < 0)
                continue;
            for (size_t j = 0; j < n; j++) {
                if (!(r->lists[l][j] > 0.0)) {
                    api_problem_idx(pb, API_PB_INVALID_FIELD, sc->origin[f].ptr, j,
                                    "must be > 0 (the frequency is divided by it), got %.17g",
                                    r->lists[l][j]);
                    break;
                }
            }
        }
    }
    if (sc->type == PE_ROPE_YARN) {
        int ms = sc->origin[API_RS_MSCALE].set, msad = sc->origin[API_RS_MSCALE_ALL_DIM].set;
        if (sc->origin[API_RS_ATTENTION_FACTOR].set && (ms || msad))
            api_rc_warn(&r->warn, "attention_factor is given, so mscale/mscale_all_dim do not "
                                  "change attention_factor (as in Hugging Face)");
        else if (ms && (!msad || sc->num[API_RS_MSCALE_ALL_DIM] == 0.0))
            api_rc_warn(&r->warn, "mscale without a non-zero mscale_all_dim is ignored (as in "
                                  "Hugging Face): attention_factor = 0.1 ln(factor) + 1");
        double bf = sc->num[API_RS_BETA_FAST] != 0.0 ? sc->num[API_RS_BETA_FAST] : 32.0;
        double bs = sc->num[API_RS_BETA_SLOW] != 0.0 ? sc->num[API_RS_BETA_SLOW] : 1.0;
        if (bf < bs)
            api_rc_warn(&r->warn,
                        "beta_fast (%.17g) is below beta_slow (%.17g): the YaRN ramp "
                        "runs backwards",
                        bf, bs);
    }
}

/* include (cos_sin, bands, decay, float32_error) and the distances of decay. */
static void parse_include(api_problem *pb, const json_t *req, api_rope_req *r)
{
    for (int i = 0; i < 4; i++)
        r->include_idx[i] = -1;
    const json_t *inc = api_member(req, "include");
    if (inc != NULL) {
        if (!json_is_array(inc)) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/include",
                              "must be an array of strings (cos_sin, bands, decay, "
                              "float32_error, cos_sin_hf)");
        } else {
            for (size_t i = 0; i < json_array_size(inc); i++) {
                int k = api_rope_include_kind(pb, inc, i, NULL, 0);
                if (k == API_ROPE_KIND_COS_SIN_HF) { /* cos_sin, and Hugging Face's shape too */
                    r->cos_sin_hf = 1;
                    k = 0;
                }
                if (k < 0)
                    continue;
                r->include |= 1u << k;
                if (r->include_idx[k] < 0)
                    r->include_idx[k] = (int)i;
            }
        }
    }
    const json_t *dv = api_member(req, "distances");
    if (r->include & API_ROPE_INC_DECAY) {
        if (dv == NULL)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/distances",
                              "distances (non-negative integers) are required with include "
                              "\"decay\"");
        else
            api_position_array(pb, dv, "/distances", r->lim, &r->dist, &r->n_dist);
    } else if (dv != NULL) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/distances",
                          "distances are only used with include \"decay\"");
    }
}

/* The 1-D request (api_rope_parse once it is known not to be multi-axis). */
static int parse_one_d(api_problem *pb, const json_t *req, const api_rope_direct *dir,
                       api_rope_req *r)
{
    /* `axes` requests are multi-axis; "axes": null reaches this parse and means no axes */
    if (dir == NULL) /* a direct caller checked the object's fields against its own list */
        api_rope_check_fields(pb, req);
    if (api_rope_read_config(pb, req, dir != NULL, skip_mask(req), r, NULL) < 0)
        return -1;
    int dims_ok = parse_dims(pb, req, dir ? dir->head_dim : 0, r) == 0;
    parse_base_layout(pb, req, r);
    parse_scaling(pb, req, r);
    check_inv_freq_conflicts(pb, req, r);
    api_rope_parse_positions(pb, req, dir, r);
    parse_include(pb, req, r);
    api_rope_inputs(req, dir, r);
    if (!dims_ok || api_problem_failed(pb))
        return -1;

    check_scaling(pb, r);
    if (r->inv_freq_j != NULL) {
        size_t n = (size_t)r->rotary_dim / 2, got = 0;
        api_number_array(pb, r->inv_freq_j, "/inv_freq", n, n, "rotary_dim/2", &r->inv_freq, &got);
    }
    if (api_problem_failed(pb))
        return -1;
    if (api_rope_resolve_positions(pb, r) < 0)
        return -1;
    api_rope_parse_vectors(pb, dir, r);
    if (api_problem_failed(pb) || api_rope_check_sizes(pb, r) < 0)
        return -1;
    if (r->has_config &&
        api_rope_account_keys(pb, api_member(req, "config"), skip_mask(req), r) < 0)
        return -1;
    return 0;
}

int api_rope_parse(api_problem *pb, const api_limits *lim, const json_t *req,
                   const api_rope_direct *dir, api_rope_req *r)
{
    return api_rope_parse_kind(pb, lim, req, dir, -1, r);
}

int api_rope_parse_kind(api_problem *pb, const api_limits *lim, const json_t *req,
                        const api_rope_direct *dir, int kind, api_rope_req *r)
{
    memset(r, 0, sizeof *r);
    r->lim = lim;
    r->forced_kind = kind;
    r->kind = -1;
    r->A = 1;
    for (int i = 0; i < 4; i++)
        r->include_idx[i] = -1;
    /* multi-axis requests (`axes`, or a pasted config with mrope_section): api/rope_multiaxis.c */
    if (api_rope_axes_wanted(req)) {
        r->axes = 1;
        r->A = 0;
        return api_rope_axes_parse(pb, req, dir, r);
    }
    return parse_one_d(pb, req, dir, r);
}
