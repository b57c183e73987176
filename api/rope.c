/*
 * api/rope.c -- POST /rope (../shared/docs/api.md, "POST /rope"): a RoPE configuration (head_dim,
 * rotary_dim | partial_rotary_factor, base | rope_theta, layout, scaling | rope_scaling, inv_freq,
 * config) plus optional inputs (positions | seq_len, q_positions, k_positions, q, k, include,
 * distances) -> {inv_freq, attention_factor, softmax_scale_factor, resolved, warnings?,
 * positions?, q_positions?, q_rotated?, k_positions?, k_rotated?, scores?, cos?, sin?, bands?,
 * decay?, float32_error?}.
 *
 * Numbers come from core/: every configuration goes through the frequency-table cache
 * (core/cache.h); cos/sin rows the table does not hold are computed with pe_rope_cos_sin on the
 * table's inv_freq (bit-identical to the table's own rows). Parsing of the scaling object and of a
 * pasted config lives in rope_config.c, as do the fields this handler reads as the multi-axis one
 * does (head_dim, rotary dim, base, layout, q, k).
 *
 * `decay` entries are {distance, upper_bound, upper_bound_sum, mean_cos}. upper_bound_sum is
 * api.md's formula verbatim, (1/n)·Σ_{j=1..n} |Σ_{k<j} e^{i r θ_k}| (RoFormer arXiv:2104.09864
 * §3.4.3), which is (n+1)/2 at r = 0; upper_bound is that curve divided by its value at r = 0, the
 * *relative* upper bound, so that both curves start at 1 and can share one axis (the issue asks for
 * decay at distance 0 to be 1 for both curves); mean_cos = (1/n)·Σ_j cos(r θ_j) is 1 at r = 0.
 *
 * Work bound: the rotations, scores, cos/sin, decay (n per distance) and float32_error (n per
 * position) together must stay within max_work (api_check_work; 422 limit-exceeded beyond), as
 * outputs stay within max_output_elements numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/model_config.h"
#include "api/rope_config.h"
#include "api/rope_multiaxis.h"
#include "core/attention.h"
#include "core/cache.h"
#include "core/rope.h"
#include "core/rope_explain.h"

static const char *const INCLUDES[] = {"cos_sin", "bands", "decay", "float32_error", NULL};
enum { INC_COS_SIN = 1, INC_BANDS = 2, INC_DECAY = 4, INC_F32 = 8 };

/* Evaluations (n per distance / position) allowed per max_output_elements number. */

/* One side's positions: an explicit list, or 0 .. range-1 (materialised on demand). */
typedef struct {
    int64_t *v; /* owned */
    size_t n;
    char ptr[API_RC_PTR]; /* where they came from, for errors ("/q_positions", "/seq_len") */
    const char *src;      /* "positions", "q_positions", "seq_len", ... (for resolved) */
} pos_set;

/* Everything parsed from one request (owned arrays freed by req_free). */
typedef struct {
    const api_limits *lim;
    api_rc_warnings warn;
    int has_config;
    api_rope_config cfg;

    int64_t head_dim;
    api_rc_origin head_dim_o;
    int64_t rotary_dim;
    api_rc_origin rotary_o;
    double base;
    api_rc_origin base_o;
    pe_rope_layout layout;
    api_rc_origin layout_o;
    api_rope_scaling sc;
    double *lists[2]; /* longrope short/long factors (owned) */
    const json_t *inv_freq_j;
    double *inv_freq; /* explicit (owned) */

    int has_seq_len;
    int64_t seq_len;               /* as given */
    int64_t max_req;               /* largest explicit position + 1 (0 when none) */
    int64_t L;                     /* sequence length used (seq_len, else max_req) */
    pos_set pos, qpos, kpos, tpos; /* tpos: the rows of cos/sin and float32_error */
    int has_pos, has_qpos, has_kpos;

    const json_t *q_j, *k_j;
    double *q, *k;
    size_t q_rows, k_rows;
    int q_vec, k_vec;

    unsigned include;
    int include_idx[4]; /* index in `include` of each kind, for pointers */
    int64_t *dist;
    size_t n_dist;
} rope_req;

static void req_free(rope_req *r)
{
    free(r->lists[0]);
    free(r->lists[1]);
    free(r->inv_freq);
    free(r->pos.v);
    free(r->qpos.v);
    free(r->kpos.v);
    free(r->tpos.v);
    free(r->q);
    free(r->k);
    free(r->dist);
}

static const json_t *member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return (v == NULL || json_is_null(v)) ? NULL : v;
}

static size_t n_errs(const api_problem *pb)
{
    return pb->n_errors + pb->n_dropped;
}

/* The pointer to blame for a value with origin o ("" for defaults falls back to fallback). */
static const char *blame(const api_rc_origin *o, const char *fallback)
{
    return (o->set && o->ptr[0]) ? o->ptr : fallback;
}

/* ---- configuration -------------------------------------------------------------------------- */

/* What the pasted config need not say: the shared fields the request gives, and the scaling. */
static unsigned skip_mask(const json_t *req)
{
    unsigned s = api_rope_config_skip(req);
    /* an explicit "scaling": null also wins over the config's rope_scaling (no scaling) */
    if (json_object_get(req, "scaling") || json_object_get(req, "rope_scaling") ||
        member(req, "inv_freq"))
        s |= API_RC_SKIP_SCALING;
    return s;
}

/* head_dim and the rotary dim (read in rope_config.c; the range checks and their wording are this
 * handler's). Returns 0 when both are valid, -1 otherwise. */
static int parse_dims(api_problem *pb, const json_t *req, rope_req *r)
{
    size_t e0 = n_errs(pb);
    const api_rope_config *cfg = r->has_config ? &r->cfg : NULL;
    if (api_rope_head_dim_resolve(pb, req, cfg, &r->head_dim, &r->head_dim_o) < 0)
        return -1;
    const char *hp = blame(&r->head_dim_o, "/head_dim");
    if (r->head_dim < 2) {
        api_problem_field(pb, API_PB_INVALID_FIELD, hp, "head_dim must be >= 2, got %lld",
                          (long long)r->head_dim);
        return -1;
    }
    if ((uint64_t)r->head_dim > r->lim->max_dim) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, hp, "head_dim %lld exceeds max_dim (%zu)",
                          (long long)r->head_dim, r->lim->max_dim);
        return -1;
    }
    if (r->head_dim % 2 != 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, hp, "head_dim must be even, got %lld",
                          (long long)r->head_dim);
        return -1;
    }

    int64_t rd = 0;
    int rc =
        api_rope_rotary_dim_resolve(pb, req, cfg, r->head_dim, &r->head_dim_o, &rd, &r->rotary_o);
    if (rc < 0)
        return -1;
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
    return n_errs(pb) != e0 ? -1 : 0;
}

static void parse_base_layout(api_problem *pb, const json_t *req, rope_req *r)
{
    const api_rope_config *cfg = r->has_config ? &r->cfg : NULL;
    api_rope_base_resolve(pb, req, cfg, &r->base, &r->base_o);
    api_rope_layout_resolve(pb, req, cfg, &r->layout, &r->layout_o);
}

static void parse_scaling(api_problem *pb, const json_t *req, rope_req *r)
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
static void check_inv_freq_conflicts(api_problem *pb, const json_t *req, rope_req *r)
{
    r->inv_freq_j = member(req, "inv_freq");
    if (r->inv_freq_j == NULL)
        return;
    static const char *const CONFLICTS[] = {"base", "rope_theta", "scaling", "rope_scaling", NULL};
    for (const char *const *c = CONFLICTS; *c; c++) {
        if (member(req, *c)) {
            char ptr[API_RC_PTR];
            api_ptr(ptr, sizeof ptr, "", *c);
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                              "%s cannot be combined with inv_freq: explicit frequencies replace "
                              "base and scaling",
                              *c);
        }
    }
    const json_t *cfg = member(req, "config");
    if (r->has_config && (r->cfg.base_o.set || member(cfg, "rope_scaling") != NULL ||
                          member(cfg, "rope_parameters") != NULL))
        api_rc_warn(&r->warn, "inv_freq is given: the config's rope_theta and rope_scaling were "
                              "not used");
}

/* Required fields of the scaling type, list contents, cross-field rules. Needs rotary_dim. */
static void check_scaling(api_problem *pb, rope_req *r)
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
    char ptr[API_RC_PTR];
    for (size_t i = 0; i < sizeof REQUIRED / sizeof REQUIRED[0]; i++) {
        if (REQUIRED[i].t != sc->type)
            continue;
        for (int j = 0; j < REQUIRED[i].n; j++) {
            api_rs_field f = REQUIRED[i].f[j];
            if (sc->origin[f].set)
                continue;
            api_ptr(ptr, sizeof ptr, sc->ptr, api_rs_field_name(f));
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "%s is required for scaling type %s",
                              api_rs_field_name(f), api_rope_type_name(sc->type));
        }
    }
    size_t n = (size_t)r->rotary_dim / 2;
    if (sc->type == PE_ROPE_DYNAMIC || sc->type == PE_ROPE_NTK) {
        if (r->rotary_dim < 4)
            api_problem_field(pb, API_PB_INVALID_FIELD, blame(&r->rotary_o, "/head_dim"),
                              "%s scaling divides by rotary dim - 2: rotary dim must be >= 4, "
                              "got %lld",
                              api_rope_type_name(sc->type), (long long)r->rotary_dim);
    }
    if (sc->type == PE_ROPE_LLAMA3 && sc->origin[API_RS_LOW_FREQ_FACTOR].set &&
        sc->origin[API_RS_HIGH_FREQ_FACTOR].set &&
        !(sc->num[API_RS_LOW_FREQ_FACTOR] <= sc->num[API_RS_HIGH_FREQ_FACTOR]))
        api_problem_field(pb, API_PB_INVALID_FIELD, sc->origin[API_RS_HIGH_FREQ_FACTOR].ptr,
                          "high_freq_factor (%.17g) must not be below low_freq_factor (%.17g)",
                          sc->num[API_RS_HIGH_FREQ_FACTOR], sc->num[API_RS_LOW_FREQ_FACTOR]);
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
                    char ip[API_RC_PTR];
                    api_ptr_idx(ip, sizeof ip, sc->origin[f].ptr, j);
                    api_problem_field(pb, API_PB_INVALID_FIELD, ip,
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

/* ---- inputs --------------------------------------------------------------------------------- */

static void parse_positions(api_problem *pb, const json_t *req, rope_req *r)
{
    const api_limits *lim = r->lim;
    int64_t sl = 0;
    if (api_get_int(pb, req, "", "seq_len", 1, lim->max_position, &sl) > 0) {
        r->has_seq_len = 1;
        r->seq_len = sl;
    }
    if (api_get_position_list(pb, req, "", "positions", lim, &r->pos.v, &r->pos.n) > 0) {
        r->has_pos = 1;
        snprintf(r->pos.ptr, sizeof r->pos.ptr, "/positions");
        r->pos.src = "positions";
    }
    static const char *const KEYS[2][2] = {{"q_positions", "query_positions"},
                                           {"k_positions", "key_positions"}};
    for (int s = 0; s < 2; s++) {
        const char *used = NULL;
        const json_t *v = api_get_alias(pb, req, "", KEYS[s][0], KEYS[s][1], &used);
        if (v == NULL)
            continue;
        pos_set *ps = s == 0 ? &r->qpos : &r->kpos;
        api_ptr(ps->ptr, sizeof ps->ptr, "", used);
        if (api_position_array(pb, v, ps->ptr, lim, &ps->v, &ps->n) > 0) {
            ps->src = used;
            if (s == 0)
                r->has_qpos = 1;
            else
                r->has_kpos = 1;
        }
    }
}

static void parse_include(api_problem *pb, const json_t *req, rope_req *r)
{
    for (int i = 0; i < 4; i++)
        r->include_idx[i] = -1;
    const json_t *inc = member(req, "include");
    if (inc != NULL) {
        if (!json_is_array(inc)) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/include",
                              "must be an array of strings (cos_sin, bands, decay, "
                              "float32_error)");
        } else {
            for (size_t i = 0; i < json_array_size(inc); i++) {
                char ip[API_RC_PTR];
                api_ptr_idx(ip, sizeof ip, "/include", i);
                int k = 0;
                if (api_enum_value(pb, json_array_get(inc, i), ip, INCLUDES, &k) < 0)
                    continue;
                r->include |= 1u << k;
                if (r->include_idx[k] < 0)
                    r->include_idx[k] = (int)i;
            }
        }
    }
    const json_t *dv = member(req, "distances");
    if (r->include & INC_DECAY) {
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

/* Fills 0 .. n-1 into ps (n <= max_positions checked by the caller). */
static int fill_range(api_problem *pb, pos_set *ps, int64_t n)
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

static int copy_set(api_problem *pb, pos_set *dst, const pos_set *src)
{
    dst->v = src->n ? api_alloc(pb, src->n, sizeof *dst->v) : NULL;
    if (src->n && dst->v == NULL)
        return -1;
    if (src->n)
        memcpy(dst->v, src->v, src->n * sizeof *dst->v);
    dst->n = src->n;
    snprintf(dst->ptr, sizeof dst->ptr, "%s", src->ptr);
    dst->src = src->src;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sorted union of q and k positions (cos/sin rows when only those were given). */
static int union_set(api_problem *pb, pos_set *dst, const pos_set *a, const pos_set *b)
{
    size_t n = a->n + b->n;
    dst->v = n ? api_alloc(pb, n, sizeof *dst->v) : NULL;
    if (n && dst->v == NULL)
        return -1;
    if (a->n)
        memcpy(dst->v, a->v, a->n * sizeof *dst->v);
    if (b->n)
        memcpy(dst->v + a->n, b->v, b->n * sizeof *dst->v);
    if (n)
        qsort(dst->v, n, sizeof *dst->v, cmp_i64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || dst->v[i] != dst->v[m - 1])
            dst->v[m++] = dst->v[i];
    dst->n = m;
    snprintf(dst->ptr, sizeof dst->ptr, "%s", a->n ? a->ptr : b->ptr);
    dst->src = "union of q and k positions";
    return 0;
}

static int64_t max_plus_one(const pos_set *ps)
{
    int64_t m = 0;
    for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i] + 1 > m)
            m = ps->v[i] + 1;
    return m;
}

/*
 * Decides the sequence length and which positions every output uses (api.md: positions, else
 * 0 .. seq_len-1; q_positions / k_positions override for q / k). Returns 0 or -1.
 */
static int resolve_positions(api_problem *pb, rope_req *r)
{
    const api_limits *lim = r->lim;
    int64_t m = 0, x;
    if (r->has_pos && (x = max_plus_one(&r->pos)) > m)
        m = x;
    if (r->has_qpos && (x = max_plus_one(&r->qpos)) > m)
        m = x;
    if (r->has_kpos && (x = max_plus_one(&r->kpos)) > m)
        m = x;
    r->max_req = m;
    if (r->has_seq_len && r->seq_len < m) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/seq_len",
                          "seq_len %lld is smaller than the largest position + 1 (%lld)",
                          (long long)r->seq_len, (long long)m);
        return -1;
    }
    r->L = r->has_seq_len ? r->seq_len : m;

    int want_q = r->q_j != NULL, want_k = r->k_j != NULL;
    int want_t = (r->include & (INC_COS_SIN | INC_F32)) != 0;
    int need_range = (want_q && !r->has_qpos && !r->has_pos) ||
                     (want_k && !r->has_kpos && !r->has_pos) || (want_t && !r->has_pos);
    pos_set range;
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
    const pos_set *base = r->has_pos ? &r->pos : (range.v ? &range : NULL);
    if (want_q) {
        const pos_set *s = r->has_qpos ? &r->qpos : base;
        if (s == NULL) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                              "q needs positions: give positions, q_positions or seq_len");
            rc = -1;
        }
    }
    if (want_k) {
        const pos_set *s = r->has_kpos ? &r->kpos : base;
        if (s == NULL) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                              "k needs positions: give positions, k_positions or seq_len");
            rc = -1;
        }
    }
    if (rc == 0 && want_q && !r->has_qpos && copy_set(pb, &r->qpos, base) < 0)
        rc = -1;
    if (rc == 0 && want_k && !r->has_kpos && copy_set(pb, &r->kpos, base) < 0)
        rc = -1;
    if (rc == 0 && want_t) {
        if (base != NULL) {
            rc = copy_set(pb, &r->tpos, base);
        } else if (r->has_qpos || r->has_kpos) {
            rc = union_set(pb, &r->tpos, &r->qpos, &r->kpos);
        } else {
            int k = (r->include & INC_COS_SIN) ? 0 : 3;
            api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                              "include \"%s\" needs positions: give positions or seq_len",
                              INCLUDES[k]);
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

/* q or k: one vector of head_dim numbers, or one row per position of that side. */
static void parse_vectors(api_problem *pb, rope_req *r)
{
    size_t hd = (size_t)r->head_dim, max = r->lim->max_output_elements;
    api_rope_vectors_parse(pb, r->q_j, "q", r->qpos.n, r->qpos.ptr, hd, max, &r->q, &r->q_rows,
                           &r->q_vec);
    api_rope_vectors_parse(pb, r->k_j, "k", r->kpos.n, r->kpos.ptr, hd, max, &r->k, &r->k_rows,
                           &r->k_vec);
}

/* ---- output --------------------------------------------------------------------------------- */

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

static void include_ptr(char *out, size_t n, const rope_req *r, int k)
{
    api_ptr_idx(out, n, "/include", (size_t)(r->include_idx[k] < 0 ? 0 : r->include_idx[k]));
}

/* Checks the whole response size (and the decay / float32_error work) before allocating. */
static int check_sizes(api_problem *pb, const rope_req *r)
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
    if (r->include & INC_COS_SIN) {
        include_ptr(ip, sizeof ip, r, 0);
        if (!mul3(r->tpos.n, n, 2, &t) ||
            account(pb, lim, &total, t + r->tpos.n, ip, "cos and sin") < 0)
            goto over;
    }
    if (r->include & INC_BANDS) {
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
    if (r->include & INC_DECAY) {
        if (!mul3(r->n_dist, 4, 1, &t) || account(pb, lim, &total, t, "/distances", "decay") < 0)
            goto over;
        if (api_check_work(pb, lim, &work, r->n_dist, n, 2 * API_WORK_TRIG, "/distances", "decay") <
            0)
            return -1;
    }
    if (r->include & INC_F32) {
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

/* Fills cos/sin rows for positions: from the table where it has them, else computed. */
static void rows_cos_sin(const pe_freq_table *t, const int64_t *pos, size_t np, double *c,
                         double *s)
{
    size_t n = t->n_freq;
    for (size_t i = 0; i < np; i++) {
        if ((uint64_t)pos[i] < t->n_pos) {
            memcpy(c + i * n, t->cos + (size_t)pos[i] * n, n * sizeof *c);
            memcpy(s + i * n, t->sin + (size_t)pos[i] * n, n * sizeof *s);
        } else {
            pe_rope_cos_sin(t->inv_freq, n, &pos[i], 1, c + i * n, s + i * n);
        }
    }
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* Rotates one side into *out ([np][head_dim], malloc'd). Returns 0 or -1 (pb filled). */
static int rotate_side(api_problem *pb, const rope_req *r, const pe_freq_table *t,
                       const pos_set *ps, const double *x, int is_vec, const char *ptr,
                       double **out)
{
    size_t n = t->n_freq, hd = (size_t)r->head_dim, np = ps->n;
    double *c = api_alloc(pb, np * n, sizeof *c);
    double *s = api_alloc(pb, np * n, sizeof *s);
    double *o = api_alloc(pb, np * hd, sizeof *o);
    if (c == NULL || s == NULL || o == NULL) {
        free(c);
        free(s);
        free(o);
        return -1;
    }
    rows_cos_sin(t, ps->v, np, c, s);
    pe_rope_rotate(x, is_vec ? 0 : hd, c, s, np, hd, (size_t)r->rotary_dim, r->layout,
                   t->attention_factor, o);
    free(c);
    free(s);
    if (!all_finite(o, np * hd)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "the rotated vectors overflow (values too large for float64)");
        free(o);
        return -1;
    }
    *out = o;
    return 0;
}

static void write_origin(wire_jw *out, const char *key, const api_rc_origin *o)
{
    wire_jw_key(out, key);
    wire_jw_str(out, o->set ? o->src : "default");
}

static void write_scaling(wire_jw *out, const rope_req *r, const pe_rope_params *p,
                          const pe_freq_table *t)
{
    const api_rope_scaling *sc = &r->sc;
    wire_jw_obj_begin(out);
    wire_jw_key(out, "type");
    wire_jw_str(out, api_rope_type_name(p->type));
    if (sc->present && sc->type_given[0] && strcmp(sc->type_given, api_rope_type_name(p->type))) {
        wire_jw_key(out, "type_given");
        wire_jw_str(out, sc->type_given);
    }
    switch (p->type) {
    case PE_ROPE_DEFAULT:
        break;
    case PE_ROPE_LINEAR:
        wire_jw_key(out, "factor");
        wire_jw_double(out, p->factor);
        break;
    case PE_ROPE_DYNAMIC: {
        double l0 = p->original_max_position_embeddings;
        wire_jw_key(out, "factor");
        wire_jw_double(out, p->factor);
        wire_jw_key(out, "original_max_position_embeddings");
        wire_jw_double(out, l0);
        wire_jw_key(out, "seq_len");
        wire_jw_int(out, (int64_t)p->seq_len);
        wire_jw_key(out, "effective_seq_len"); /* L' = max(seq_len, L0) */
        wire_jw_double(out, (double)p->seq_len > l0 ? (double)p->seq_len : l0);
        wire_jw_key(out, "effective_base");
        wire_jw_double(out, t->info.effective_base);
        break;
    }
    case PE_ROPE_YARN: {
        wire_jw_key(out, "factor");
        wire_jw_double(out, p->factor);
        wire_jw_key(out, "original_max_position_embeddings");
        wire_jw_double(out, p->original_max_position_embeddings);
        wire_jw_key(out, "beta_fast");
        wire_jw_double(out, p->beta_fast != 0.0 ? p->beta_fast : 32.0);
        wire_jw_key(out, "beta_slow");
        wire_jw_double(out, p->beta_slow != 0.0 ? p->beta_slow : 1.0);
        wire_jw_key(out, "mscale");
        if (p->has_mscale)
            wire_jw_double(out, p->mscale);
        else
            wire_jw_null(out);
        wire_jw_key(out, "mscale_all_dim");
        if (p->has_mscale_all_dim)
            wire_jw_double(out, p->mscale_all_dim);
        else
            wire_jw_null(out);
        wire_jw_key(out, "attention_factor");
        if (p->has_attention_factor)
            wire_jw_double(out, p->attention_factor);
        else
            wire_jw_null(out);
        wire_jw_key(out, "attention_factor_rule");
        if (p->has_attention_factor)
            wire_jw_str(out, "given");
        else if (p->has_mscale && p->has_mscale_all_dim && p->mscale != 0.0 &&
                 p->mscale_all_dim != 0.0)
            wire_jw_str(out, "g(factor, mscale) / g(factor, mscale_all_dim), "
                             "g(s, m) = 0.1 m ln s + 1 (1 if s <= 1)");
        else
            wire_jw_str(out, "g(factor, 1) = 0.1 ln factor + 1 (1 if factor <= 1)");
        wire_jw_key(out, "truncate");
        wire_jw_bool(out, p->truncate);
        wire_jw_key(out, "ramp_low"); /* correction range after truncate/clamp */
        wire_jw_double(out, t->info.ramp_low);
        wire_jw_key(out, "ramp_high");
        wire_jw_double(out, t->info.ramp_high);
        break;
    }
    case PE_ROPE_LONGROPE: {
        size_t n = p->rotary_dim / 2;
        wire_jw_key(out, "factor");
        wire_jw_double(out, p->factor);
        wire_jw_key(out, "original_max_position_embeddings");
        wire_jw_double(out, p->original_max_position_embeddings);
        wire_jw_key(out, "short_factor");
        wire_jw_doubles(out, p->short_factor, n);
        wire_jw_key(out, "long_factor");
        wire_jw_doubles(out, p->long_factor, n);
        wire_jw_key(out, "attention_factor");
        if (p->has_attention_factor)
            wire_jw_double(out, p->attention_factor);
        else
            wire_jw_null(out);
        wire_jw_key(out, "attention_factor_rule");
        wire_jw_str(out, p->has_attention_factor ? "given"
                         : p->factor <= 1.0
                             ? "1 (factor <= 1)"
                             : "sqrt(1 + ln factor / ln original_max_position_embeddings)");
        wire_jw_key(out, "seq_len");
        wire_jw_int(out, (int64_t)p->seq_len);
        wire_jw_key(out, "list_used"); /* long when seq_len > original (strictly) */
        wire_jw_str(out, t->info.longrope_long ? "long_factor" : "short_factor");
        break;
    }
    case PE_ROPE_LLAMA3: {
        double l0 = p->original_max_position_embeddings;
        wire_jw_key(out, "factor");
        wire_jw_double(out, p->factor);
        wire_jw_key(out, "original_max_position_embeddings");
        wire_jw_double(out, l0);
        wire_jw_key(out, "low_freq_factor");
        wire_jw_double(out, p->low_freq_factor);
        wire_jw_key(out, "high_freq_factor");
        wire_jw_double(out, p->high_freq_factor);
        wire_jw_key(out, "low_freq_wavelen"); /* wavelengths above: divided by factor */
        wire_jw_double(out, l0 / p->low_freq_factor);
        wire_jw_key(out, "high_freq_wavelen"); /* wavelengths below: kept */
        wire_jw_double(out, l0 / p->high_freq_factor);
        break;
    }
    case PE_ROPE_NTK:
        wire_jw_key(out, "alpha");
        wire_jw_double(out, p->alpha);
        wire_jw_key(out, "effective_base"); /* base * alpha^(d/(d-2)) */
        wire_jw_double(out, t->info.effective_base);
        break;
    }
    wire_jw_obj_end(out);
}

static void write_resolved(wire_jw *out, const rope_req *r, const pe_rope_params *p,
                           const pe_freq_table *t)
{
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    wire_jw_key(out, "head_dim");
    wire_jw_int(out, r->head_dim);
    wire_jw_key(out, "rotary_dim");
    wire_jw_int(out, r->rotary_dim);
    wire_jw_key(out, "layout");
    wire_jw_str(out, r->layout == PE_ROPE_INTERLEAVED ? "interleaved" : "half");
    wire_jw_key(out, "inv_freq_source");
    wire_jw_str(out, p->inv_freq ? "explicit" : "computed");
    wire_jw_key(out, "base");
    if (p->inv_freq)
        wire_jw_null(out);
    else
        wire_jw_double(out, p->base);
    wire_jw_key(out, "scaling");
    if (p->inv_freq)
        wire_jw_null(out);
    else
        write_scaling(out, r, p, t);
    wire_jw_key(out, "seq_len");
    if (r->L > 0)
        wire_jw_int(out, r->L);
    else
        wire_jw_null(out);
    wire_jw_key(out, "seq_len_source");
    wire_jw_str(out, r->has_seq_len ? "request" : r->L > 0 ? "largest position + 1" : "none");
    if (r->has_config) {
        const api_rope_scaling *sc = &r->sc;
        wire_jw_key(out, "sources");
        wire_jw_obj_begin(out);
        write_origin(out, "head_dim", &r->head_dim_o);
        write_origin(out, "rotary_dim", &r->rotary_o);
        if (!p->inv_freq) {
            write_origin(out, "base", &r->base_o);
            wire_jw_key(out, "scaling");
            if (!sc->present) {
                wire_jw_str(out, "none");
            } else if (strncmp(sc->ptr, "/config/", 8) == 0) {
                char src[API_RC_PTR];
                api_model_ptr_to_src(sc->ptr, src, sizeof src); /* config.text_config.rope_... */
                wire_jw_str(out, src);
            } else {
                wire_jw_str(out, "request");
            }
            if (sc->present) {
                write_origin(out, "scaling.type", &sc->type_origin);
                for (int f = 0; f < API_RS__COUNT; f++) {
                    if (!sc->origin[f].set)
                        continue;
                    char key[64];
                    snprintf(key, sizeof key, "scaling.%s", api_rs_field_name((api_rs_field)f));
                    write_origin(out, key, &sc->origin[f]);
                }
            }
        }
        write_origin(out, "layout", &r->layout_o);
        wire_jw_obj_end(out);
    }
    wire_jw_obj_end(out);
}

static void write_bands(wire_jw *out, const pe_rope_band *b, size_t n)
{
    wire_jw_key(out, "bands");
    wire_jw_arr_begin(out);
    for (size_t j = 0; j < n && wire_jw_ok(out); j++) {
        wire_jw_obj_begin(out);
        wire_jw_key(out, "pair");
        wire_jw_int(out, (int64_t)b[j].pair);
        wire_jw_key(out, "inv_freq");
        wire_jw_double(out, b[j].inv_freq);
        wire_jw_key(out, "wavelength");
        if (isfinite(b[j].wavelength))
            wire_jw_double(out, b[j].wavelength);
        else
            wire_jw_null(out); /* inv_freq 0: never turns */
        if (b[j].has_rotations) {
            wire_jw_key(out, "rotations");
            wire_jw_double(out, b[j].rotations);
        }
        wire_jw_key(out, "class");
        wire_jw_str(out, pe_rope_band_class_str(b[j].cls));
        if (b[j].has_ramp) {
            wire_jw_key(out, "ramp");
            wire_jw_double(out, b[j].ramp);
        }
        wire_jw_obj_end(out);
    }
    wire_jw_arr_end(out);
}

/* Fills the core parameters from the validated request. */
static void fill_params(const rope_req *r, pe_rope_params *p)
{
    const api_rope_scaling *sc = &r->sc;
    pe_rope_params_init(p);
    p->rotary_dim = (size_t)r->rotary_dim;
    p->base = r->base;
    if (r->inv_freq != NULL) {
        p->inv_freq = r->inv_freq;
        return;
    }
    if (!sc->present)
        return;
    p->type = sc->type;
    const double *v = sc->num;
    switch (sc->type) {
    case PE_ROPE_DEFAULT:
        break;
    case PE_ROPE_LINEAR:
        p->factor = v[API_RS_FACTOR];
        break;
    case PE_ROPE_DYNAMIC:
        p->factor = v[API_RS_FACTOR];
        p->original_max_position_embeddings = v[API_RS_ORIGINAL_MAX_POSITION];
        p->seq_len = (size_t)r->L;
        break;
    case PE_ROPE_YARN:
        p->factor = v[API_RS_FACTOR];
        p->original_max_position_embeddings = v[API_RS_ORIGINAL_MAX_POSITION];
        if (sc->origin[API_RS_BETA_FAST].set)
            p->beta_fast = v[API_RS_BETA_FAST];
        if (sc->origin[API_RS_BETA_SLOW].set)
            p->beta_slow = v[API_RS_BETA_SLOW];
        p->has_mscale = sc->origin[API_RS_MSCALE].set;
        p->mscale = p->has_mscale ? v[API_RS_MSCALE] : 0.0;
        p->has_mscale_all_dim = sc->origin[API_RS_MSCALE_ALL_DIM].set;
        p->mscale_all_dim = p->has_mscale_all_dim ? v[API_RS_MSCALE_ALL_DIM] : 0.0;
        p->has_attention_factor = sc->origin[API_RS_ATTENTION_FACTOR].set;
        p->attention_factor = p->has_attention_factor ? v[API_RS_ATTENTION_FACTOR] : 0.0;
        if (sc->origin[API_RS_TRUNCATE].set)
            p->truncate = v[API_RS_TRUNCATE] != 0.0;
        break;
    case PE_ROPE_LONGROPE:
        p->factor = v[API_RS_FACTOR];
        p->original_max_position_embeddings = v[API_RS_ORIGINAL_MAX_POSITION];
        p->seq_len = (size_t)r->L;
        p->short_factor = r->lists[0];
        p->long_factor = r->lists[1];
        p->has_attention_factor = sc->origin[API_RS_ATTENTION_FACTOR].set;
        p->attention_factor = p->has_attention_factor ? v[API_RS_ATTENTION_FACTOR] : 0.0;
        break;
    case PE_ROPE_LLAMA3:
        p->factor = v[API_RS_FACTOR];
        p->original_max_position_embeddings = v[API_RS_ORIGINAL_MAX_POSITION];
        p->low_freq_factor = v[API_RS_LOW_FREQ_FACTOR];
        p->high_freq_factor = v[API_RS_HIGH_FREQ_FACTOR];
        break;
    case PE_ROPE_NTK:
        p->alpha = v[API_RS_ALPHA];
        break;
    }
}

/* Maps a cache failure to a problem naming the most likely field. */
static void cache_failure(api_problem *pb, const rope_req *r, pe_status st)
{
    const api_rope_scaling *sc = &r->sc;
    char ptr[API_RC_PTR];
    if (st == PE_ERR_NOMEM) {
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while computing frequencies");
        return;
    }
    if (st == PE_ERR_OVERFLOW) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, blame(&r->head_dim_o, "/head_dim"),
                          "the frequency table size overflows");
        return;
    }
    api_rs_field f = API_RS_FACTOR;
    if (sc->type == PE_ROPE_NTK)
        f = API_RS_ALPHA;
    else if (sc->type == PE_ROPE_LONGROPE)
        f = API_RS_ORIGINAL_MAX_POSITION;
    if (r->inv_freq != NULL)
        snprintf(ptr, sizeof ptr, "/inv_freq");
    else if (sc->present && sc->type != PE_ROPE_DEFAULT)
        snprintf(ptr, sizeof ptr, "%s", blame(&sc->origin[f], sc->ptr));
    else
        snprintf(ptr, sizeof ptr, "%s", blame(&r->base_o, "/base"));
    api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                      st == PE_ERR_NONFINITE
                          ? "this configuration gives non-finite frequencies or attention factor"
                          : "invalid RoPE configuration (%s)",
                      pe_status_str(st));
}

/* Writes the response; returns 0 or -1 (pb filled). */
/*
 * The softmax scale factor of the answer. A pasted config's yarn mscale_all_dim scales the softmax
 * only where the model's HF attention does it (the DeepSeek family, api_model_softmax_mscale;
 * Mistral 3 / Ministral 3 carry mscale_all_dim and do not); elsewhere 1, with a warning.
 */
static double softmax_scale(rope_req *r, const pe_freq_table *t)
{
    if (t->softmax_scale_factor == 1.0 || !r->has_config || r->cfg.softmax_mscale ||
        strncmp(r->sc.ptr, "/config/", 8) != 0)
        return t->softmax_scale_factor;
    api_rc_warn(&r->warn,
                "softmax_scale_factor is 1: Hugging Face multiplies the softmax scale by "
                "mscale(factor, mscale_all_dim)^2 only in the DeepSeek family "
                "(modeling_deepseek_v3.py), not for model_type %s",
                r->cfg.model_type);
    return 1.0;
}

static int compute(const api_ctx *ctx, rope_req *r, wire_jw *out, api_problem *pb)
{
    pe_rope_params p;
    fill_params(r, &p);
    size_t n = p.rotary_dim / 2;

    /* rows asked for: take a table up to the largest position when that is not much larger
     * than the rows themselves (a table is built once per configuration and then shared) */
    size_t rows = 0;
    int64_t maxp = -1;
    const pos_set *sets[3] = {r->q ? &r->qpos : NULL, r->k ? &r->kpos : NULL,
                              (r->include & INC_COS_SIN) ? &r->tpos : NULL};
    for (int s = 0; s < 3; s++) {
        if (sets[s] == NULL)
            continue;
        rows += sets[s]->n;
        for (size_t i = 0; i < sets[s]->n; i++)
            if (sets[s]->v[i] > maxp)
                maxp = sets[s]->v[i];
    }
    size_t need = 0;
    if (maxp >= 0 && (uint64_t)maxp + 1 <= 4 * (uint64_t)rows + PE_CACHE_POS_CHUNK)
        need = (size_t)maxp + 1;

    pe_status st = PE_OK;
    const pe_freq_table *t = pe_cache_get(ctx->cache, &p, need, &st);
    if (t == NULL) {
        cache_failure(pb, r, st);
        return -1;
    }
    int rc = -1;
    double *qr = NULL, *kr = NULL, *sc = NULL, *cs = NULL, *sn = NULL;
    pe_rope_band *bands = NULL;
    pe_rope_decay_point *decay = NULL;
    pe_rope_f32_error f32 = {0.0, 0.0, 0.0};

    if (r->q && rotate_side(pb, r, t, &r->qpos, r->q, r->q_vec, "/q", &qr) < 0)
        goto done;
    if (r->k && rotate_side(pb, r, t, &r->kpos, r->k, r->k_vec, "/k", &kr) < 0)
        goto done;
    size_t hd = (size_t)r->head_dim, pq = r->qpos.n, pk = r->kpos.n;
    if (qr && kr) {
        sc = api_alloc(pb, pq * pk, sizeof *sc);
        if (sc == NULL)
            goto done;
        /* scores[i][j] = q_rotated_i . k_rotated_j (scale 1: the dot products as they are) */
        if (pe_attention_logits(qr, kr, pq, pk, hd, 1.0, sc) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/q",
                              "the scores overflow (q and k values too large for float64)");
            goto done;
        }
    }
    if (r->include & INC_COS_SIN) {
        cs = api_alloc(pb, r->tpos.n * n, sizeof *cs);
        sn = api_alloc(pb, r->tpos.n * n, sizeof *sn);
        if (cs == NULL || sn == NULL)
            goto done;
        rows_cos_sin(t, r->tpos.v, r->tpos.n, cs, sn);
    }
    if (r->include & INC_BANDS) {
        bands = api_alloc(pb, n, sizeof *bands);
        if (bands == NULL)
            goto done;
        if (pe_rope_bands(&p, t->inv_freq, &t->info, n, bands) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/include", "bands are not available");
            goto done;
        }
    }
    if (r->include & INC_DECAY) {
        decay = api_alloc(pb, r->n_dist ? r->n_dist : 1, sizeof *decay);
        if (decay == NULL)
            goto done;
        if (pe_rope_decay(t->inv_freq, n, r->dist, r->n_dist, decay) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/distances", "decay is not available");
            goto done;
        }
    }
    if ((r->include & INC_F32) &&
        pe_rope_float32_error(t->inv_freq, n, r->tpos.v, r->tpos.n, &f32) != PE_OK) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/include", "float32_error is not available");
        goto done;
    }

    wire_jw_obj_begin(out);
    wire_jw_key(out, "inv_freq");
    wire_jw_doubles(out, t->inv_freq, n);
    wire_jw_key(out, "attention_factor");
    wire_jw_double(out, t->attention_factor);
    wire_jw_key(out, "softmax_scale_factor");
    wire_jw_double(out, softmax_scale(r, t));
    if (r->warn.n > 0) {
        wire_jw_key(out, "warnings");
        wire_jw_arr_begin(out);
        for (size_t i = 0; i < r->warn.n; i++)
            wire_jw_str(out, r->warn.text[i]);
        if (r->warn.n_dropped > 0) {
            char more[64];
            snprintf(more, sizeof more, "(%zu more warnings omitted)", r->warn.n_dropped);
            wire_jw_str(out, more);
        }
        wire_jw_arr_end(out);
    }
    if (qr) {
        wire_jw_key(out, "q_positions");
        wire_jw_ints(out, r->qpos.v, pq);
        wire_jw_key(out, "q_rotated");
        wire_jw_matrix(out, qr, NULL, pq, hd);
    }
    if (kr) {
        wire_jw_key(out, "k_positions");
        wire_jw_ints(out, r->kpos.v, pk);
        wire_jw_key(out, "k_rotated");
        wire_jw_matrix(out, kr, NULL, pk, hd);
    }
    if (sc) {
        wire_jw_key(out, "scores");
        wire_jw_matrix(out, sc, NULL, pq, pk);
    }
    if (r->include & (INC_COS_SIN | INC_F32)) {
        wire_jw_key(out, "positions");
        wire_jw_ints(out, r->tpos.v, r->tpos.n);
    }
    if (cs) {
        wire_jw_key(out, "cos");
        wire_jw_matrix(out, cs, NULL, r->tpos.n, n);
        wire_jw_key(out, "sin");
        wire_jw_matrix(out, sn, NULL, r->tpos.n, n);
    }
    if (bands)
        write_bands(out, bands, n);
    if (decay) {
        wire_jw_key(out, "decay");
        wire_jw_arr_begin(out);
        for (size_t i = 0; i < r->n_dist && wire_jw_ok(out); i++) {
            wire_jw_obj_begin(out);
            wire_jw_key(out, "distance");
            wire_jw_int(out, decay[i].distance);
            wire_jw_key(out, "upper_bound");
            wire_jw_double(out, decay[i].upper_bound_rel);
            wire_jw_key(out, "upper_bound_sum");
            wire_jw_double(out, decay[i].upper_bound);
            wire_jw_key(out, "mean_cos");
            wire_jw_double(out, decay[i].mean_cos);
            wire_jw_obj_end(out);
        }
        wire_jw_arr_end(out);
    }
    if (r->include & INC_F32) {
        wire_jw_key(out, "float32_error");
        wire_jw_obj_begin(out);
        wire_jw_key(out, "angle_max_abs");
        wire_jw_double(out, f32.angle_max_abs);
        wire_jw_key(out, "cos_max_abs");
        wire_jw_double(out, f32.cos_max_abs);
        wire_jw_key(out, "sin_max_abs");
        wire_jw_double(out, f32.sin_max_abs);
        wire_jw_obj_end(out);
    }
    write_resolved(out, r, &p, t);
    wire_jw_obj_end(out);
    rc = 0;
done:
    free(qr);
    free(kr);
    free(sc);
    free(cs);
    free(sn);
    free(bands);
    free(decay);
    pe_cache_release(ctx->cache, t);
    return rc;
}

int api_rope(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    /* multi-axis requests (`axes`, or a pasted config with mrope_section): api/rope_multiaxis.c */
    if (api_rope_axes_wanted(req))
        return api_rope_axes(ctx, req, out, pb);
    rope_req r;
    memset(&r, 0, sizeof r);
    r.lim = ctx->lim;
    int rc = -1;

    /* `axes` requests went to api/rope_multiaxis.c above; "axes": null reaches this handler
     * (api_rope_axes_wanted is 0 for it) and means no axes */
    api_rope_check_fields(pb, req);
    const json_t *cfg = NULL;
    if (api_get_object(pb, req, "", "config", &cfg) > 0) {
        r.has_config = 1;
        api_rope_config_resolve(pb, cfg, "/config", skip_mask(req), &r.cfg, &r.warn);
    }
    int dims_ok = parse_dims(pb, req, &r) == 0;
    parse_base_layout(pb, req, &r);
    parse_scaling(pb, req, &r);
    check_inv_freq_conflicts(pb, req, &r);
    parse_positions(pb, req, &r);
    parse_include(pb, req, &r);
    r.q_j = member(req, "q");
    r.k_j = member(req, "k");
    if (!dims_ok || api_problem_failed(pb))
        goto done;

    check_scaling(pb, &r);
    if (r.inv_freq_j != NULL) {
        size_t n = (size_t)r.rotary_dim / 2, got = 0;
        api_number_array(pb, r.inv_freq_j, "/inv_freq", n, n, "rotary_dim/2", &r.inv_freq, &got);
    }
    if (api_problem_failed(pb))
        goto done;
    if (resolve_positions(pb, &r) < 0)
        goto done;
    parse_vectors(pb, &r);
    if (api_problem_failed(pb) || check_sizes(pb, &r) < 0)
        goto done;
    rc = compute(ctx, &r, out, pb);
done:
    req_free(&r);
    return rc;
}
