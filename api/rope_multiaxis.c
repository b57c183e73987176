/*
 * api/rope_multiaxis.c -- POST /rope with `axes` (multi-axis RoPE); see rope_multiaxis.h for the
 * contract and ../shared/docs/rope-multiaxis.md §1 for the rules. Structure as api/rope.c: parse
 * and validate everything into one struct (every broken rule a 422 naming its field), check the
 * response size before allocating, compute with core/, write the response.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/model_config.h"
#include "api/rope_config.h"
#include "api/rope_multiaxis.h"
#include "core/attention.h"
#include "core/rope.h"
#include "core/rope_axes.h"

static const char *const AXES_FIELDS[] = {"type", "sections", "freqs", NULL};
static const char *const TYPES[] = {"axial", "mrope", "pixtral", "mixed", NULL};
static const char *const INCLUDES[] = {"cos_sin", "bands", "decay", "float32_error", NULL};

/* One side's coordinates: n tuples of A integers, row-major. */
typedef struct {
    int64_t *v; /* owned, [n][A] */
    size_t n;
    char ptr[API_RC_PTR]; /* where they came from ("/q_positions", "/seq_len") */
    const char *src;
} coord_set;

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

    /* axes: from the request's `axes`, or from a pasted config's mrope_section */
    pe_axes_type type;
    char axes_ptr[API_RC_PTR];      /* "/axes" or "/config/rope_scaling" */
    char sections_ptr[API_RC_PTR];  /* "/axes/sections" or ".../mrope_section" */
    char axes_src[API_RC_PTR + 32]; /* "request" or "config.rope_scaling.mrope_section" */
    const json_t *sections_j;
    const json_t *freqs_j;
    size_t A;
    size_t *sections;   /* [A] for axial / mrope (owned) */
    double *F;          /* [A][n] (owned) */
    int64_t *pair_axis; /* [n] except mixed (owned) */

    int has_seq_len;
    int64_t seq_len;
    int64_t L; /* seq_len, else the largest coordinate + 1 (0: no positions at all) */
    coord_set pos, qpos, kpos, tpos;
    int has_pos, has_qpos, has_kpos;

    const json_t *q_j, *k_j;
    double *q, *k;
    size_t q_rows, k_rows;
    int q_vec, k_vec;
    int cos_sin;
    size_t cos_sin_idx;
} axes_req;

static void req_free(axes_req *r)
{
    free(r->sections);
    free(r->F);
    free(r->pair_axis);
    free(r->pos.v);
    free(r->qpos.v);
    free(r->kpos.v);
    free(r->tpos.v);
    free(r->q);
    free(r->k);
}

static const json_t *member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return (v == NULL || json_is_null(v)) ? NULL : v;
}

static const char *blame(const api_rc_origin *o, const char *fallback)
{
    return (o->set && o->ptr[0]) ? o->ptr : fallback;
}

/* The scaling-like object of a pasted config: rope_scaling, else v5 rope_parameters. */
static const json_t *config_scaling(const json_t *cfg, const char **key)
{
    *key = "rope_scaling";
    const json_t *sc = member(cfg, "rope_scaling");
    if (sc == NULL) {
        *key = "rope_parameters";
        sc = member(cfg, "rope_parameters");
    }
    return (sc != NULL && json_is_object(sc)) ? sc : NULL;
}

int api_rope_axes_wanted(const json_t *req)
{
    if (member(req, "axes") != NULL)
        return 1;
    const json_t *cfg = member(req, "config");
    if (cfg == NULL || !json_is_object(cfg))
        return 0;
    api_model_text text; /* a wrapper keeps mrope_section in its text_config */
    api_model_text_find(cfg, "/config", &text);
    const char *key = NULL;
    const json_t *sc = config_scaling(text.obj, &key);
    return sc != NULL && member(sc, "mrope_section") != NULL;
}

/* ---- configuration -------------------------------------------------------------------------- */

/*
 * A pasted config's rope_scaling: with type mrope or default (or none) it may carry
 * mrope_section, which stands for axes mrope unless the request sends its own axes; any other
 * type is context-extension scaling, which is not defined for multi-axis RoPE.
 */
static void config_axes(api_problem *pb, axes_req *r, const json_t *cfg, int req_axes)
{
    api_model_text text;
    api_model_text_find(cfg, "/config", &text);
    const char *key = NULL;
    const json_t *sc = config_scaling(text.obj, &key);
    if (sc == NULL)
        return;
    char sp[API_RC_PTR], fp[API_RC_PTR];
    api_ptr(sp, sizeof sp, text.ptr, key);
    const char *used = NULL;
    const json_t *tv = api_get_alias(pb, sc, sp, "type", "rope_type", &used);
    if (tv != NULL) {
        const char *s = json_is_string(tv) ? json_string_value(tv) : NULL;
        if (s == NULL || (strcmp(s, "mrope") != 0 && strcmp(s, "default") != 0)) {
            api_ptr(fp, sizeof fp, sp, used);
            api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                              "%s type \"%.40s\" is context-extension scaling, which is not "
                              "defined for multi-axis RoPE; only \"mrope\" or \"default\" combine "
                              "with mrope_section / axes",
                              key, s ? s : "(not a string)");
            return;
        }
    }
    const json_t *il = member(sc, "mrope_interleaved");
    if (il != NULL && !json_is_false(il)) {
        api_ptr(fp, sizeof fp, sp, "mrope_interleaved");
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "interleaved M-RoPE (Qwen3-VL) is not a named axes type; send axes "
                          "{\"type\": \"mixed\", \"freqs\": ...} with the 1-D frequency of pair j "
                          "on the axis that owns j");
        return;
    }
    const json_t *ms = member(sc, "mrope_section");
    if (ms == NULL)
        return;
    if (req_axes) {
        api_rc_warn(&r->warn, "the request's axes replace %s.%s.mrope_section", text.src, key);
        return;
    }
    r->type = PE_AXES_MROPE;
    r->sections_j = ms;
    snprintf(r->axes_ptr, sizeof r->axes_ptr, "%s", sp);
    api_ptr(r->sections_ptr, sizeof r->sections_ptr, sp, "mrope_section");
    snprintf(r->axes_src, sizeof r->axes_src, "%s.%s.mrope_section", text.src, key);
}

/* head_dim and the rotary dim (read in rope_config.c, as by api/rope.c; the range checks and
 * their wording are this handler's). Returns 0 when both are valid, -1 otherwise. */
static int parse_dims(api_problem *pb, const json_t *req, axes_req *r)
{
    const api_rope_config *cfg = r->has_config ? &r->cfg : NULL;
    if (api_rope_head_dim_resolve(pb, req, cfg, &r->head_dim, &r->head_dim_o) < 0)
        return -1;
    const char *hp = blame(&r->head_dim_o, "/head_dim");
    if (r->head_dim < 2 || r->head_dim % 2 != 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, hp, "head_dim must be even and >= 2, got %lld",
                          (long long)r->head_dim);
        return -1;
    }
    if ((uint64_t)r->head_dim > r->lim->max_dim) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, hp, "head_dim %lld exceeds max_dim (%zu)",
                          (long long)r->head_dim, r->lim->max_dim);
        return -1;
    }

    int64_t rd = 0;
    int rc =
        api_rope_rotary_dim_resolve(pb, req, cfg, r->head_dim, &r->head_dim_o, &rd, &r->rotary_o);
    if (rc < 0)
        return -1;
    if (rc > 0 && (rd < 2 || rd % 2 != 0 || rd > r->head_dim)) { /* an explicit rotary_dim */
        api_problem_field(pb, API_PB_INVALID_FIELD, r->rotary_o.ptr,
                          "rotary_dim must be even, >= 2 and <= head_dim (%lld), got %lld",
                          (long long)r->head_dim, (long long)rd);
        return -1;
    }
    r->rotary_dim = rd;
    return 0;
}

/* base (as api/rope.c, but not with mixed) and layout. */
static void parse_base_layout(api_problem *pb, const json_t *req, axes_req *r)
{
    const api_rope_config *cfg = r->has_config ? &r->cfg : NULL;
    if (r->type != PE_AXES_MIXED) {
        api_rope_base_resolve(pb, req, cfg, &r->base, &r->base_o);
    } else {
        /* mixed takes its frequencies as given: a base is refused unread, the config's unused */
        const char *used = NULL;
        const json_t *bv = api_get_alias(pb, req, "", "base", "rope_theta", &used);
        r->base = 10000.0;
        api_rc_origin_set(&r->base_o, "", "default");
        if (bv != NULL) {
            char ptr[API_RC_PTR];
            api_ptr(ptr, sizeof ptr, "", used);
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                              "axes type \"mixed\" takes its frequencies as given (axes.freqs); "
                              "a base means nothing there");
        } else if (cfg != NULL && cfg->base_o.set) {
            api_rc_warn(&r->warn, "axes type mixed takes its frequencies as given: the config's "
                                  "rope_theta was not used");
        }
    }
    api_rope_layout_resolve(pb, req, cfg, &r->layout, &r->layout_o);
}

/* Fields of 1-D /rope that have no multi-axis meaning: scaling, inv_freq, include other than
 * cos_sin, distances. */
static void check_one_d_only(api_problem *pb, const json_t *req, axes_req *r)
{
    const char *used = NULL;
    const json_t *sv = api_get_alias(pb, req, "", "scaling", "rope_scaling", &used);
    if (sv != NULL) {
        char ptr[API_RC_PTR];
        api_ptr(ptr, sizeof ptr, "", used);
        int plain = json_is_object(sv);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)sv, k, v)
        {
            int is_type = strcmp(k, "type") == 0 || strcmp(k, "rope_type") == 0;
            if (json_is_null(v))
                continue;
            if (!is_type || !json_is_string(v) || strcmp(json_string_value(v), "default") != 0)
                plain = 0;
        }
        if (!plain)
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                              "context-extension scaling is not defined for multi-axis RoPE "
                              "(axes): only null or {\"type\": \"default\"}");
    }
    if (member(req, "inv_freq") != NULL)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/inv_freq",
                          "an explicit 1-D inv_freq list does not combine with axes; give the "
                          "frequencies per axis with axes {\"type\": \"mixed\", \"freqs\": ...}");
    if (member(req, "distances") != NULL)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/distances",
                          "distances belong to include \"decay\", which is 1-D only");
    const json_t *inc = member(req, "include");
    if (inc == NULL)
        return;
    if (!json_is_array(inc)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/include",
                          "must be an array of strings; with axes only \"cos_sin\"");
        return;
    }
    for (size_t i = 0; i < json_array_size(inc); i++) {
        char ip[API_RC_PTR];
        api_ptr_idx(ip, sizeof ip, "/include", i);
        int k = 0;
        if (api_enum_value(pb, json_array_get(inc, i), ip, INCLUDES, &k) < 0)
            continue;
        if (k != 0) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ip,
                              "include \"%s\" is 1-D only; with axes only \"cos_sin\" is "
                              "available",
                              INCLUDES[k]);
        } else if (!r->cos_sin) {
            r->cos_sin = 1;
            r->cos_sin_idx = i;
        }
    }
}

/* The request's `axes` object: type and the raw sections / freqs (validated once n is known). */
static void parse_axes_object(api_problem *pb, const json_t *ax, axes_req *r)
{
    snprintf(r->axes_ptr, sizeof r->axes_ptr, "/axes");
    snprintf(r->sections_ptr, sizeof r->sections_ptr, "/axes/sections");
    snprintf(r->axes_src, sizeof r->axes_src, "request");
    if (!json_is_object(ax)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes",
                          "must be an object {\"type\": \"axial\" | \"mrope\" | \"pixtral\" | "
                          "\"mixed\", \"sections\"?, \"freqs\"?}");
        return;
    }
    api_check_fields(pb, ax, "/axes", AXES_FIELDS);
    int t = 0;
    int rc = api_get_enum(pb, ax, "/axes", "type", TYPES, &t);
    if (rc == 0)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes/type",
                          "type is required: \"axial\", \"mrope\", \"pixtral\" or \"mixed\"");
    if (rc <= 0)
        return;
    r->type = (pe_axes_type)t;
    r->sections_j = member(ax, "sections");
    r->freqs_j = member(ax, "freqs");
    if (r->sections_j != NULL && (r->type == PE_AXES_PIXTRAL || r->type == PE_AXES_MIXED))
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes/sections",
                          "sections are not accepted with type \"%s\" (%s)", TYPES[t],
                          r->type == PE_AXES_PIXTRAL
                              ? "it always splits the pairs evenly between rows and columns"
                              : "every axis may contribute to every pair through freqs");
    if (r->freqs_j != NULL && r->type != PE_AXES_MIXED)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes/freqs",
                          "freqs are only accepted with type \"mixed\"");
    if (r->freqs_j == NULL && r->type == PE_AXES_MIXED)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes/freqs",
                          "type \"mixed\" needs freqs: one row of rotary_dim/2 numbers per axis");
    if (r->sections_j == NULL && r->type == PE_AXES_MROPE)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes/sections",
                          "type \"mrope\" needs sections (pairs per axis, e.g. Qwen2-VL's [16, "
                          "24, 24]); there is no default split");
}

/* sections: integers >= 1 summing to n. */
static void parse_sections(api_problem *pb, axes_req *r, size_t n)
{
    const json_t *v = r->sections_j;
    const char *ptr = r->sections_ptr;
    size_t len = json_is_array(v) ? json_array_size(v) : 0;
    if (len == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "must be a non-empty array of integers >= 1 (pairs per axis)");
        return;
    }
    if (len > n) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "has %zu sections, but there are only rotary_dim/2 = %zu pairs to "
                          "share (each section owns >= 1)",
                          len, n);
        return;
    }
    r->sections = api_alloc(pb, len, sizeof *r->sections);
    if (r->sections == NULL)
        return;
    size_t sum = 0;
    for (size_t a = 0; a < len; a++) {
        char ip[API_RC_PTR];
        api_ptr_idx(ip, sizeof ip, ptr, a);
        int64_t x = 0;
        if (api_int_value(pb, json_array_get(v, a), ip, 1, INT64_MAX, &x) < 0)
            return;
        if ((uint64_t)x > n) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ip,
                              "a section cannot own more than rotary_dim/2 = %zu pairs, got %lld",
                              n, (long long)x);
            return;
        }
        r->sections[a] = (size_t)x;
        sum += (size_t)x; /* <= len * n: no overflow */
    }
    if (sum != n) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "must add up to rotary_dim/2 = %zu pairs, got %zu", n, sum);
        return;
    }
    r->A = len;
}

/* Fills A, sections, F and pair_axis once the rotary dim is known. Returns 0 or -1. */
static int resolve_axes(api_problem *pb, axes_req *r)
{
    size_t d = (size_t)r->rotary_dim, n = d / 2;
    const api_limits *lim = r->lim;
    switch (r->type) {
    case PE_AXES_AXIAL:
        if (r->sections_j != NULL) {
            parse_sections(pb, r, n);
        } else if (n % 2 != 0) {
            api_problem_field(pb, API_PB_INVALID_FIELD, r->axes_ptr,
                              "axial without sections splits the rotary_dim/2 = %zu pairs in two "
                              "equal halves, so that number must be even; give sections",
                              n);
        } else {
            r->sections = api_alloc(pb, 2, sizeof *r->sections);
            if (r->sections != NULL) {
                r->sections[0] = r->sections[1] = n / 2;
                r->A = 2;
            }
        }
        break;
    case PE_AXES_MROPE:
        parse_sections(pb, r, n);
        break;
    case PE_AXES_PIXTRAL:
        if (d % 4 != 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, blame(&r->rotary_o, "/head_dim"),
                              "pixtral gives half of the pairs to rows and half to columns: the "
                              "rotary dim must be a multiple of 4, got %lld",
                              (long long)r->rotary_dim);
        else
            r->A = 2;
        break;
    case PE_AXES_MIXED: {
        size_t rows = 0, cols = 0;
        if (api_number_matrix(pb, r->freqs_j, "/axes/freqs", 0, n, lim->max_output_elements, 0,
                              &r->F, &rows, &cols, NULL) < 0)
            return -1;
        if (rows > lim->max_dim) {
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/axes/freqs",
                              "has %zu axes; max_dim (%zu) bounds the number of axes", rows,
                              lim->max_dim);
            return -1;
        }
        r->A = rows;
        return 0;
    }
    }
    if (api_problem_failed(pb))
        return -1;
    r->F = api_alloc(pb, r->A * n, sizeof *r->F); /* A <= n here */
    r->pair_axis = api_alloc(pb, n, sizeof *r->pair_axis);
    if (r->F == NULL || r->pair_axis == NULL)
        return -1;
    pe_status st = pe_rope_axes_freqs(r->type, d, r->base, r->sections, r->A, r->F, r->pair_axis);
    if (st != PE_OK) {
        api_problem_field(pb, API_PB_INVALID_FIELD, blame(&r->base_o, r->axes_ptr),
                          "this configuration gives no valid frequencies (%s)", pe_status_str(st));
        return -1;
    }
    return 0;
}

/* ---- positions ------------------------------------------------------------------------------ */

/* One positions list: each entry a plain integer p (p on every axis) or a list of A integers. */
static int parse_coords(api_problem *pb, const json_t *v, const char *ptr, const axes_req *r,
                        coord_set *out)
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
    size_t len = json_array_size(v), cells;
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
    int64_t *c = cells ? api_alloc(pb, cells, sizeof *c) : NULL;
    if (cells && c == NULL)
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

static void parse_positions(api_problem *pb, const json_t *req, axes_req *r)
{
    int64_t sl = 0;
    if (api_get_int(pb, req, "", "seq_len", 1, r->lim->max_position, &sl) > 0) {
        r->has_seq_len = 1;
        r->seq_len = sl;
    }
    const json_t *pv = member(req, "positions");
    if (pv != NULL && parse_coords(pb, pv, "/positions", r, &r->pos) == 0) {
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
        coord_set *cs = s == 0 ? &r->qpos : &r->kpos;
        char ptr[API_RC_PTR];
        api_ptr(ptr, sizeof ptr, "", used);
        if (parse_coords(pb, v, ptr, r, cs) == 0) {
            cs->src = used;
            if (s == 0)
                r->has_qpos = 1;
            else
                r->has_kpos = 1;
        }
    }
}

static int64_t max_plus_one(const coord_set *cs, size_t A)
{
    int64_t m = 0;
    for (size_t e = 0; e < cs->n * A; e++)
        if (cs->v[e] + 1 > m)
            m = cs->v[e] + 1;
    return m;
}

static int copy_set(api_problem *pb, coord_set *dst, const coord_set *src, size_t A)
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

/* Sorted, de-duplicated union of the q and k tuples (cos/sin rows when only those were given). */
static int union_set(api_problem *pb, coord_set *dst, const coord_set *x, const coord_set *y,
                     size_t A)
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

/* positions, else 0 .. seq_len-1 (plain integers); q_positions / k_positions override. */
static int resolve_positions(api_problem *pb, axes_req *r)
{
    size_t A = r->A;
    int64_t m = 0, x;
    if (r->has_pos && (x = max_plus_one(&r->pos, A)) > m)
        m = x;
    if (r->has_qpos && (x = max_plus_one(&r->qpos, A)) > m)
        m = x;
    if (r->has_kpos && (x = max_plus_one(&r->kpos, A)) > m)
        m = x;
    if (r->has_seq_len && r->seq_len < m) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/seq_len",
                          "seq_len %lld must exceed every coordinate (largest coordinate + 1 = "
                          "%lld)",
                          (long long)r->seq_len, (long long)m);
        return -1;
    }
    r->L = r->has_seq_len ? r->seq_len : m;

    int want_q = r->q_j != NULL, want_k = r->k_j != NULL, want_t = r->cos_sin;
    int need_range = (want_q && !r->has_qpos && !r->has_pos) ||
                     (want_k && !r->has_kpos && !r->has_pos) || (want_t && !r->has_pos);
    coord_set range;
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
    const coord_set *base = r->has_pos ? &r->pos : (range.v ? &range : NULL);
    if ((want_q && !r->has_qpos && base == NULL) || (want_k && !r->has_kpos && base == NULL)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                          "%s needs positions: give positions, %s or seq_len",
                          want_q && !r->has_qpos ? "q" : "k",
                          want_q && !r->has_qpos ? "q_positions" : "k_positions");
        rc = -1;
    }
    if (rc == 0 && want_q && !r->has_qpos && copy_set(pb, &r->qpos, base, A) < 0)
        rc = -1;
    if (rc == 0 && want_k && !r->has_kpos && copy_set(pb, &r->kpos, base, A) < 0)
        rc = -1;
    if (rc == 0 && want_t) {
        if (base != NULL) {
            rc = copy_set(pb, &r->tpos, base, A);
        } else if (r->has_qpos || r->has_kpos) {
            rc = union_set(pb, &r->tpos, &r->qpos, &r->kpos, A);
        } else {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/positions",
                              "include \"cos_sin\" needs positions: give positions or seq_len");
            rc = -1;
        }
    }
    free(range.v);
    return rc;
}

/* q or k: one vector of head_dim numbers, or one row per position of that side (A-tuples). */
static void parse_vectors(api_problem *pb, axes_req *r)
{
    size_t hd = (size_t)r->head_dim, max = r->lim->max_output_elements;
    api_rope_vectors_parse(pb, r->q_j, "q", r->qpos.n, r->qpos.ptr, hd, max, &r->q, &r->q_rows,
                           &r->q_vec);
    api_rope_vectors_parse(pb, r->k_j, "k", r->kpos.n, r->kpos.ptr, hd, max, &r->k, &r->k_rows,
                           &r->k_vec);
}

/* ---- sizes and output ----------------------------------------------------------------------- */

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

static int check_sizes(api_problem *pb, const axes_req *r)
{
    const api_limits *lim = r->lim;
    size_t n = (size_t)r->rotary_dim / 2, hd = (size_t)r->head_dim, A = r->A, total = 0;
    size_t pq = r->q ? r->qpos.n : 0, pk = r->k ? r->kpos.n : 0;
    char ip[API_RC_PTR];
    api_ptr_idx(ip, sizeof ip, "/include", r->cos_sin_idx);
    if (account(pb, lim, &total, A + 2, n, 64 + A, r->axes_ptr, "axis_freqs") < 0)
        return -1;
    if (r->q && account(pb, lim, &total, pq, hd + A, 0, "/q", "q_rotated") < 0)
        return -1;
    if (r->k && account(pb, lim, &total, pk, hd + A, 0, "/k", "k_rotated") < 0)
        return -1;
    if (r->q && r->k && account(pb, lim, &total, pq, pk, 0, "/k", "scores") < 0)
        return -1;
    if (r->cos_sin && account(pb, lim, &total, r->tpos.n, 2 * n + A, 0, ip, "cos and sin") < 0)
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

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* cos/sin of the angles at the tuples of cs ([cs->n][n] each). Returns 0 or -1. */
static int angles(api_problem *pb, const axes_req *r, const coord_set *cs, double **c, double **s)
{
    size_t n = (size_t)r->rotary_dim / 2;
    *c = api_alloc(pb, cs->n * n + 1, sizeof **c);
    *s = api_alloc(pb, cs->n * n + 1, sizeof **s);
    if (*c == NULL || *s == NULL)
        return -1;
    size_t bad = 0;
    if (pe_rope_axes_cos_sin(r->F, r->A, n, cs->v, cs->n, *c, *s, &bad) != PE_OK) {
        char ptr[API_RC_PTR];
        api_ptr_idx(ptr, sizeof ptr, cs->ptr, bad);
        api_problem_field(pb, API_PB_INVALID_FIELD, r->type == PE_AXES_MIXED ? "/axes/freqs" : ptr,
                          "the angle sum_a p_a F[a][j] at %s is not finite (frequencies x "
                          "coordinates overflow float64)",
                          ptr);
        return -1;
    }
    return 0;
}

/* Rotates one side: out [cs->n][head_dim]. */
static int rotate_side(api_problem *pb, const axes_req *r, const coord_set *cs, const double *x,
                       int is_vec, const char *ptr, double **out)
{
    size_t hd = (size_t)r->head_dim;
    double *c = NULL, *s = NULL;
    int rc = -1;
    if (angles(pb, r, cs, &c, &s) < 0)
        goto done;
    *out = api_alloc(pb, cs->n * hd + 1, sizeof **out);
    if (*out == NULL)
        goto done;
    pe_rope_rotate(x, is_vec ? 0 : hd, c, s, cs->n, hd, (size_t)r->rotary_dim, r->layout, 1.0,
                   *out);
    if (!all_finite(*out, cs->n * hd)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "the rotated vectors overflow (values too large for float64)");
        goto done;
    }
    rc = 0;
done:
    free(c);
    free(s);
    return rc;
}

static void write_tuples(wire_jw *out, const char *key, const coord_set *cs, size_t A)
{
    wire_jw_key(out, key);
    wire_jw_arr_begin(out);
    for (size_t i = 0; i < cs->n && wire_jw_ok(out); i++)
        wire_jw_ints(out, cs->v + i * A, A);
    wire_jw_arr_end(out);
}

static void write_origin(wire_jw *out, const char *key, const api_rc_origin *o)
{
    wire_jw_key(out, key);
    wire_jw_str(out, o->set ? o->src : "default");
}

static void write_resolved(wire_jw *out, const axes_req *r)
{
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    wire_jw_key(out, "head_dim");
    wire_jw_int(out, r->head_dim);
    wire_jw_key(out, "rotary_dim");
    wire_jw_int(out, r->rotary_dim);
    wire_jw_key(out, "layout");
    wire_jw_str(out, r->layout == PE_ROPE_INTERLEAVED ? "interleaved" : "half");
    wire_jw_key(out, "base");
    if (r->type == PE_AXES_MIXED)
        wire_jw_null(out);
    else
        wire_jw_double(out, r->base);
    wire_jw_key(out, "scaling");
    wire_jw_null(out);
    wire_jw_key(out, "axes");
    wire_jw_obj_begin(out);
    wire_jw_key(out, "type");
    wire_jw_str(out, pe_axes_type_str(r->type));
    wire_jw_key(out, "num_axes");
    wire_jw_int(out, (int64_t)r->A);
    if (r->sections != NULL) {
        wire_jw_key(out, "sections");
        wire_jw_arr_begin(out);
        for (size_t a = 0; a < r->A; a++)
            wire_jw_int(out, (int64_t)r->sections[a]);
        wire_jw_arr_end(out);
    }
    wire_jw_key(out, "source");
    wire_jw_str(out, r->axes_src);
    wire_jw_obj_end(out);
    wire_jw_key(out, "seq_len");
    if (r->L > 0)
        wire_jw_int(out, r->L);
    else
        wire_jw_null(out);
    wire_jw_key(out, "seq_len_source");
    wire_jw_str(out, r->has_seq_len ? "request" : r->L > 0 ? "largest coordinate + 1" : "none");
    if (r->has_config) {
        wire_jw_key(out, "sources");
        wire_jw_obj_begin(out);
        write_origin(out, "head_dim", &r->head_dim_o);
        write_origin(out, "rotary_dim", &r->rotary_o);
        if (r->type != PE_AXES_MIXED)
            write_origin(out, "base", &r->base_o);
        write_origin(out, "layout", &r->layout_o);
        wire_jw_key(out, "axes");
        wire_jw_str(out, r->axes_src);
        wire_jw_obj_end(out);
    }
    wire_jw_obj_end(out);
}

static int compute(axes_req *r, wire_jw *out, api_problem *pb)
{
    size_t n = (size_t)r->rotary_dim / 2, hd = (size_t)r->head_dim, A = r->A;
    size_t pq = r->qpos.n, pk = r->kpos.n;
    double *qr = NULL, *kr = NULL, *sc = NULL, *cs = NULL, *sn = NULL, *invf = NULL;
    int rc = -1;
    if (r->q && rotate_side(pb, r, &r->qpos, r->q, r->q_vec, "/q", &qr) < 0)
        goto done;
    if (r->k && rotate_side(pb, r, &r->kpos, r->k, r->k_vec, "/k", &kr) < 0)
        goto done;
    if (qr && kr) {
        sc = api_alloc(pb, pq * pk + 1, sizeof *sc);
        if (sc == NULL)
            goto done;
        /* scores[i][j] = q_rotated_i . k_rotated_j (scale 1: the dot products as they are) */
        if (pe_attention_logits(qr, kr, pq, pk, hd, 1.0, sc) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/q",
                              "the scores overflow (q and k values too large for float64)");
            goto done;
        }
    }
    if (r->cos_sin && angles(pb, r, &r->tpos, &cs, &sn) < 0)
        goto done;
    if (r->type != PE_AXES_MIXED) {
        invf = api_alloc(pb, n, sizeof *invf);
        if (invf == NULL)
            goto done;
        for (size_t j = 0; j < n; j++)
            invf[j] = r->F[(size_t)r->pair_axis[j] * n + j]; /* the column's nonzero entry */
    }

    wire_jw_obj_begin(out);
    if (invf) {
        wire_jw_key(out, "inv_freq");
        wire_jw_doubles(out, invf, n);
    }
    wire_jw_key(out, "axis_freqs");
    wire_jw_matrix(out, r->F, NULL, A, n);
    if (invf) {
        wire_jw_key(out, "pair_axis");
        wire_jw_ints(out, r->pair_axis, n);
    }
    wire_jw_key(out, "attention_factor");
    wire_jw_double(out, 1.0);
    wire_jw_key(out, "softmax_scale_factor");
    wire_jw_double(out, 1.0);
    if (r->warn.n > 0) {
        wire_jw_key(out, "warnings");
        wire_jw_arr_begin(out);
        for (size_t i = 0; i < r->warn.n; i++)
            wire_jw_str(out, r->warn.text[i]);
        wire_jw_arr_end(out);
    }
    if (qr) {
        write_tuples(out, "q_positions", &r->qpos, A);
        wire_jw_key(out, "q_rotated");
        wire_jw_matrix(out, qr, NULL, pq, hd);
    }
    if (kr) {
        write_tuples(out, "k_positions", &r->kpos, A);
        wire_jw_key(out, "k_rotated");
        wire_jw_matrix(out, kr, NULL, pk, hd);
    }
    if (sc) {
        wire_jw_key(out, "scores");
        wire_jw_matrix(out, sc, NULL, pq, pk);
    }
    if (cs) {
        write_tuples(out, "positions", &r->tpos, A);
        wire_jw_key(out, "cos");
        wire_jw_matrix(out, cs, NULL, r->tpos.n, n);
        wire_jw_key(out, "sin");
        wire_jw_matrix(out, sn, NULL, r->tpos.n, n);
    }
    write_resolved(out, r);
    wire_jw_obj_end(out);
    rc = 0;
done:
    free(qr);
    free(kr);
    free(sc);
    free(cs);
    free(sn);
    free(invf);
    return rc;
}

int api_rope_axes(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    axes_req r;
    memset(&r, 0, sizeof r);
    r.lim = ctx->lim;
    int rc = -1;

    /* the /rope fields (api.md); those that do not combine with axes get a 422 of their own */
    api_rope_check_fields(pb, req);
    const json_t *ax = member(req, "axes");
    if (ax != NULL)
        parse_axes_object(pb, ax, &r);
    const json_t *cfg = NULL;
    if (api_get_object(pb, req, "", "config", &cfg) > 0) {
        r.has_config = 1;
        /* the config's scaling is always skipped: config_axes reads it (mrope_section) */
        api_rope_config_resolve(pb, cfg, "/config", api_rope_config_skip(req) | API_RC_SKIP_SCALING,
                                &r.cfg, &r.warn);
        config_axes(pb, &r, cfg, ax != NULL);
    }
    if (ax == NULL && r.sections_j == NULL && !api_problem_failed(pb))
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes",
                          "multi-axis RoPE needs axes (or a config with mrope_section)");
    int dims_ok = parse_dims(pb, req, &r) == 0;
    parse_base_layout(pb, req, &r);
    check_one_d_only(pb, req, &r);
    r.q_j = member(req, "q");
    r.k_j = member(req, "k");
    if (!dims_ok || api_problem_failed(pb))
        goto done;
    if (resolve_axes(pb, &r) < 0 || api_problem_failed(pb))
        goto done;
    parse_positions(pb, req, &r);
    if (api_problem_failed(pb) || resolve_positions(pb, &r) < 0)
        goto done;
    parse_vectors(pb, &r);
    if (api_problem_failed(pb) || check_sizes(pb, &r) < 0)
        goto done;
    rc = compute(&r, out, pb);
done:
    req_free(&r);
    return rc;
}
