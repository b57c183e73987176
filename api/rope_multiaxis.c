/*
 * api/rope_multiaxis.c -- step 1 of POST /rope for multi-axis RoPE (docs: multi-axis RoPE;
 * openapi.yaml "axes"): coordinate-tuple positions, `axes` {type axial | mrope | pixtral | mixed,
 * sections?, freqs?}, or a pasted Qwen2-VL config whose rope_scaling (or v5 rope_parameters)
 * carries `mrope_section`. Every rule a 422 naming its field: scaling other than null/default
 * (/scaling), inv_freq, base with mixed, include other than cos_sin (/include/i), distances,
 * pixtral with a rotary dim not divisible by 4 (the rotary dim's field), sections / freqs shape
 * errors (/axes/sections, /axes/freqs/i), unknown fields in axes (/axes/<name>). Positions and
 * sizes: api/rope_multiaxis_pos.c; numbers: api/rope_run.c (core/rope_axes.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/model_config.h"
#include "api/rope_parse.h"

static const char *const AXES_FIELDS[] = {"type", "sections", "freqs", NULL};
static const char *const TYPES[] = {"axial", "mrope", "pixtral", "mixed", "mrope_interleaved",
                                    NULL};

/* The scaling-like object of a pasted config: rope_scaling, else v5 rope_parameters. */
/* The scaling-like object of a pasted config: rope_scaling, else v5 rope_parameters. */
static const json_t *config_scaling(const json_t *cfg, const char **key)
{
    *key = "rope_scaling";
    const json_t *sc = api_member(cfg, "rope_scaling");
    if (sc == NULL) {
        *key = "rope_parameters";
        sc = api_member(cfg, "rope_parameters");
    }
    return (sc != NULL && json_is_object(sc)) ? sc : NULL;
}

int api_rope_axes_wanted(const json_t *req)
{
    if (api_member(req, "axes") != NULL)
        return 1;
    const json_t *cfg = api_member(req, "config");
    if (cfg == NULL || !json_is_object(cfg))
        return 0;
    api_model_text text; /* a wrapper keeps mrope_section in its text_config */
    api_model_text_find(cfg, "/config", &text);
    const char *key = NULL;
    const json_t *sc = config_scaling(text.obj, &key);
    return sc != NULL && api_member(sc, "mrope_section") != NULL;
}

/* ---- configuration -------------------------------------------------------------------------- */

/*
 * A pasted config's rope_scaling: with type mrope or default (or none) it may carry
 * mrope_section, which stands for axes mrope unless the request sends its own axes; any other
 * type is context-extension scaling, which is not defined for multi-axis RoPE.
 */
static int config_axes(api_problem *pb, api_rope_req *r, const json_t *cfg, int req_axes)
{
    api_model_text text;
    api_model_text_find(cfg, "/config", &text);
    const char *key = NULL;
    const json_t *sc = config_scaling(text.obj, &key);
    if (sc == NULL)
        return 0;
    char sp[API_RC_PTR];
    api_ptr(sp, sizeof sp, text.ptr, key);
    const char *used = NULL;
    const json_t *tv = api_get_alias(pb, sc, sp, "type", "rope_type", &used);
    if (tv != NULL) {
        const char *s = json_is_string(tv) ? json_string_value(tv) : NULL;
        if (s == NULL || (strcmp(s, "mrope") != 0 && strcmp(s, "default") != 0)) {
            api_problem_key(pb, API_PB_INVALID_FIELD, sp, used,
                            "%s type \"%.40s\" is context-extension scaling, which is not "
                            "defined for multi-axis RoPE; only \"mrope\" or \"default\" combine "
                            "with mrope_section / axes",
                            key, s ? s : "(not a string)");
            return 0;
        }
    }
    int interleaved = 0;
    api_get_bool(pb, sc, sp, "mrope_interleaved", &interleaved);
    const json_t *ms = api_member(sc, "mrope_section");
    if (ms == NULL)
        return 0;
    if (req_axes) {
        api_rc_warn(&r->warn, "the request's axes replace %s.%s.mrope_section", text.src, key);
        return 0;
    }
    r->type = interleaved ? PE_AXES_MROPE_INTERLEAVED : PE_AXES_MROPE;
    r->sections_j = ms;
    snprintf(r->axes_ptr, sizeof r->axes_ptr, "%s", sp);
    api_ptr(r->sections_ptr, sizeof r->sections_ptr, sp, "mrope_section");
    snprintf(r->axes_src, sizeof r->axes_src, "%s.%s.mrope_section%s", text.src, key,
             interleaved ? " (mrope_interleaved)" : "");
    if (api_member(sc, "mrope_interleaved") != NULL &&
        snprintf(r->axes_il, sizeof r->axes_il, "%s.%s.mrope_interleaved", text.src, key) >=
            (int)sizeof r->axes_il)
        r->axes_il[0] = '\0'; /* too long to name: the key is then a 422 (rope_keys.c) */
    return api_model_ernie_vl(text.model_type);
}

/*
 * ERNIE 4.5 VL (api_model_ernie_vl): its 3-D RoPE gives the even pairs of the first
 * mrope_section[0] + [1] to h, the odd ones to w and the rest to t
 * (modeling_ernie4_5_vl_moe.py, Ernie4_5_VLMoeTextRotaryEmbedding), which is none of posenc's axes
 * types. Text tokens (all coordinates equal) are plain RoPE whatever the assignment and are
 * answered; an image or video position is a 422 at its pointer. Returns 0 or -1.
 */
static int ernie_text_positions(api_problem *pb, const api_rope_req *r)
{
    const api_rope_pos *sides[] = {&r->pos, &r->qpos, &r->kpos, &r->tpos};
    for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++)
        for (size_t i = 0; i < sides[s]->n; i++)
            for (size_t a = 1; a < r->A; a++)
                if (sides[s]->v[i * r->A + a] != sides[s]->v[i * r->A]) {
                    api_problem_field(
                        pb, API_PB_INVALID_FIELD, sides[s]->ptr,
                        "entry %zu: ERNIE 4.5 VL's 3-D RoPE is not modelled (h/w on alternate "
                        "pairs, t on the last: modeling_ernie4_5_vl_moe.py); only "
                        "text positions, all coordinates equal",
                        i);
                    return -1;
                }
    return 0;
}

/* head_dim and the rotary dim (read in rope_fields.c, as by the 1-D parse; the range checks and
 * their wording are this mode's). given: api_rope_head_dim_resolve's. Returns 0 when both are
 * valid, -1 otherwise. */
static int parse_dims(api_problem *pb, const json_t *req, int64_t given, api_rope_req *r)
{
    const char *hp = api_rope_head_dim_read(pb, req, given, r);
    if (hp == NULL)
        return -1;
    if (r->head_dim < 2) {
        api_problem_field(pb, API_PB_INVALID_FIELD, hp, "head_dim must be even and >= 2, got %lld",
                          (long long)r->head_dim);
        return -1;
    }
    if (api_rope_head_dim_fits(pb, r, hp) < 0)
        return -1;

    /* an odd head_dim with an even, smaller rotated part: HF's partial rotary (q[..., :rd]
     * rotates, the rest passes through), as in the 1-D parse */
    int64_t rd = 0;
    int rc = api_rope_rotary_read(pb, req, r, &rd);
    if (rc < 0)
        return -1;
    if (r->head_dim % 2 != 0 && rd == r->head_dim) {
        api_problem_field(pb, API_PB_INVALID_FIELD, hp, "head_dim must be even and >= 2, got %lld",
                          (long long)r->head_dim);
        return -1;
    }
    if (rc > 0 && (rd < 2 || rd % 2 != 0 || rd > r->head_dim)) { /* an explicit rotary_dim */
        api_problem_field(pb, API_PB_INVALID_FIELD, r->rotary_o.ptr,
                          "rotary_dim must be even, >= 2 and <= head_dim (%lld), got %lld",
                          (long long)r->head_dim, (long long)rd);
        return -1;
    }
    r->rotary_dim = rd;
    return 0;
}

/* base (as the 1-D parse, but not with mixed) and layout. */
static void parse_base_layout(api_problem *pb, const json_t *req, api_rope_req *r)
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
            api_problem_key(pb, API_PB_INVALID_FIELD, "", used,
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
static void check_one_d_only(api_problem *pb, const json_t *req, api_rope_req *r)
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
    if (api_member(req, "inv_freq") != NULL)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/inv_freq",
                          "an explicit 1-D inv_freq list does not combine with axes; give the "
                          "frequencies per axis with axes {\"type\": \"mixed\", \"freqs\": ...}");
    if (api_member(req, "distances") != NULL)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/distances",
                          "distances belong to include \"decay\", which is 1-D only");
    const json_t *inc = api_member(req, "include");
    if (inc == NULL)
        return;
    if (!json_is_array(inc)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/include",
                          "must be an array of strings; with axes only \"cos_sin\"");
        return;
    }
    for (size_t i = 0; i < json_array_size(inc); i++) {
        char ip[API_RC_PTR];
        int k = api_rope_include_kind(pb, inc, i, ip, sizeof ip);
        if (k < 0)
            continue;
        if (k != 0) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ip,
                              "include \"%s\" is 1-D only; with axes only \"cos_sin\" is "
                              "available",
                              api_rope_include_name(k));
        } else if (!(r->include & API_ROPE_INC_COS_SIN)) {
            r->include |= API_ROPE_INC_COS_SIN;
            r->include_idx[0] = (int)i;
        }
    }
}

/* The request's `axes` object: type and the raw sections / freqs (validated once n is known). */
static void parse_axes_object(api_problem *pb, const json_t *ax, api_rope_req *r)
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
                          "type is required: \"axial\", \"mrope\", \"pixtral\", \"mixed\" or "
                          "\"mrope_interleaved\"");
    if (rc <= 0)
        return;
    r->type = (pe_axes_type)t;
    r->sections_j = api_member(ax, "sections");
    r->freqs_j = api_member(ax, "freqs");
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
    if (r->sections_j == NULL && r->type == PE_AXES_MROPE_INTERLEAVED)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes/sections",
                          "type \"mrope_interleaved\" needs three sections (t, h, w; Qwen3-VL's "
                          "[24, 20, 20]); there is no default split");
}

/* sections: integers >= 1 summing to n. */
static void parse_sections(api_problem *pb, api_rope_req *r, size_t n)
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
static int resolve_axes(api_problem *pb, api_rope_req *r)
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
    case PE_AXES_MROPE_INTERLEAVED:
        parse_sections(pb, r, n);
        if (r->A != 0 && r->A != 3) {
            api_problem_field(pb, API_PB_INVALID_FIELD, r->sections_ptr,
                              "interleaved M-RoPE has three axes (t, h, w): give three sections, "
                              "got %zu",
                              r->A);
            r->A = 0;
        }
        break;
    case PE_AXES_PIXTRAL:
        if (d % 4 != 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, api_rc_blame(&r->rotary_o, "/head_dim"),
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
        api_problem_field(pb, API_PB_INVALID_FIELD, api_rc_blame(&r->base_o, r->axes_ptr),
                          "this configuration gives no valid frequencies (%s)", pe_status_str(st));
        return -1;
    }
    return 0;
}

int api_rope_axes_parse(api_problem *pb, const json_t *req, const api_rope_direct *dir,
                        api_rope_req *r)
{
    /* the /rope fields (docs/api.md); those that do not combine with axes get a 422 of their own */
    if (dir == NULL) /* a direct caller checked the object's fields against its own list */
        api_rope_check_fields(pb, req);
    const json_t *ax = api_member(req, "axes");
    if (ax != NULL)
        parse_axes_object(pb, ax, r);
    const json_t *cfg = NULL;
    /* the config's scaling is always skipped: config_axes reads it (mrope_section) */
    int has_cfg = api_rope_read_config(pb, req, dir != NULL,
                                       api_rope_config_skip(req) | API_RC_SKIP_SCALING, r, &cfg);
    if (has_cfg < 0)
        return -1;
    int text_only = has_cfg ? config_axes(pb, r, cfg, ax != NULL) : 0;
    if (ax == NULL && r->sections_j == NULL && !api_problem_failed(pb))
        api_problem_field(pb, API_PB_INVALID_FIELD, "/axes",
                          "multi-axis RoPE needs axes (or a config with mrope_section)");
    int dims_ok = parse_dims(pb, req, dir ? dir->head_dim : 0, r) == 0;
    parse_base_layout(pb, req, r);
    check_one_d_only(pb, req, r);
    api_rope_inputs(req, dir, r);
    if (!dims_ok || api_problem_failed(pb))
        return -1;
    if (resolve_axes(pb, r) < 0 || api_problem_failed(pb))
        return -1;
    api_rope_parse_positions(pb, req, dir, r);
    if (api_problem_failed(pb) || api_rope_axes_resolve_positions(pb, r) < 0)
        return -1;
    if (text_only && ernie_text_positions(pb, r) < 0)
        return -1;
    api_rope_parse_vectors(pb, dir, r);
    if (api_problem_failed(pb) || api_rope_axes_check_sizes(pb, r) < 0)
        return -1;
    if (has_cfg &&
        api_rope_account_keys(pb, cfg, api_rope_config_skip(req) | API_RC_SKIP_SCALING, r) < 0)
        return -1;
    return 0;
}
