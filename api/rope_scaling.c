/*
 * api/rope_scaling.c -- the scaling object parser of POST /rope and the small origin and warning
 * helpers (see rope_config.h; the pasted-config resolver is api/rope_config.c). Pure functions:
 * borrowed jansson values in, caller-owned structs out.
 */
#include "api/rope_config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/req.h"

/* ---- small helpers -------------------------------------------------------------------------- */

void api_rc_origin_set(api_rc_origin *o, const char *ptr, const char *src_fmt, ...)
{
    o->set = 1;
    snprintf(o->ptr, sizeof o->ptr, "%s", ptr ? ptr : "");
    va_list ap;
    va_start(ap, src_fmt);
    vsnprintf(o->src, sizeof o->src, src_fmt, ap);
    va_end(ap);
}

void api_rc_warn(api_rc_warnings *w, const char *fmt, ...)
{
    if (w == NULL)
        return;
    if (w->n >= API_RC_MAX_WARNINGS) {
        w->n_dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(w->text[w->n], sizeof w->text[w->n], fmt, ap);
    va_end(ap);
    if (len >= (int)sizeof w->text[w->n]) /* cut: say so rather than end mid-word */
        memcpy(w->text[w->n] + sizeof w->text[w->n] - 4, "...", 4);
    w->n++;
}

size_t api_rc_warn_list(const api_rc_warnings *w, const char **out, char *more, size_t more_len)
{
    size_t n = 0;
    for (; n < w->n; n++)
        out[n] = w->text[n];
    if (w->n_dropped > 0) {
        snprintf(more, more_len, "(%zu more warnings omitted)", w->n_dropped);
        out[n++] = more;
    }
    return n;
}

const char *api_rc_blame(const api_rc_origin *o, const char *fallback)
{
    return (o->set && o->ptr[0]) ? o->ptr : fallback;
}

/* ---- scaling types and fields --------------------------------------------------------------- */

#define T_BIT(t) (1u << (unsigned)(t))
#define T_DEFAULT T_BIT(PE_ROPE_DEFAULT)
#define T_LINEAR T_BIT(PE_ROPE_LINEAR)
#define T_DYNAMIC T_BIT(PE_ROPE_DYNAMIC)
#define T_YARN T_BIT(PE_ROPE_YARN)
#define T_LONGROPE T_BIT(PE_ROPE_LONGROPE)
#define T_LLAMA3 T_BIT(PE_ROPE_LLAMA3)
#define T_NTK T_BIT(PE_ROPE_NTK)
#define T_PROP T_BIT(PE_ROPE_PROPORTIONAL)

/* K_BETA: YaRN's beta_fast / beta_slow, >= 0, where 0 stands for the default (HF
 * _compute_yarn_parameters reads `beta_fast or 32`, `beta_slow or 1`: a falsy 0 takes the
 * default; nothing divides by it). */
typedef enum { K_POS, K_NONNEG, K_INT, K_BOOL, K_LIST, K_SHARE, K_BETA } field_kind;

/* One row per api_rs_field, in enum order: name, types that use it, value kind. */
static const struct {
    const char *name;
    unsigned types;
    field_kind kind;
} RS_FIELDS[API_RS__COUNT] = {
    {"factor", T_LINEAR | T_DYNAMIC | T_YARN | T_LONGROPE | T_LLAMA3 | T_PROP, K_POS},
    {"original_max_position_embeddings", T_DYNAMIC | T_YARN | T_LONGROPE | T_LLAMA3, K_INT},
    {"beta_fast", T_YARN, K_BETA},
    {"beta_slow", T_YARN, K_BETA},
    {"mscale", T_YARN, K_NONNEG},
    {"mscale_all_dim", T_YARN, K_NONNEG},
    {"attention_factor", T_YARN | T_LONGROPE, K_POS},
    {"truncate", T_YARN, K_BOOL},
    {"low_freq_factor", T_LLAMA3, K_POS},
    {"high_freq_factor", T_LLAMA3, K_POS},
    {"alpha", T_NTK, K_POS},
    {"short_factor", T_LONGROPE, K_LIST},
    {"long_factor", T_LONGROPE, K_LIST},
    {"partial_rotary_factor", T_PROP, K_SHARE},
    {"short_mscale", T_LONGROPE, K_POS},
    {"long_mscale", T_LONGROPE, K_POS},
};

const char *api_rs_field_name(api_rs_field f)
{
    return (unsigned)f < API_RS__COUNT ? RS_FIELDS[f].name : "unknown";
}

const char *api_rope_type_name(pe_rope_type t)
{
    switch (t) {
    case PE_ROPE_DEFAULT:
        return "default";
    case PE_ROPE_LINEAR:
        return "linear";
    case PE_ROPE_DYNAMIC:
        return "dynamic";
    case PE_ROPE_YARN:
        return "yarn";
    case PE_ROPE_LONGROPE:
        return "longrope";
    case PE_ROPE_LLAMA3:
        return "llama3";
    case PE_ROPE_NTK:
        return "ntk";
    case PE_ROPE_PROPORTIONAL:
        return "proportional";
    }
    return "unknown";
}

/* Accepted spellings of `type` (su is HF's old name of longrope). */
static const struct {
    const char *name;
    pe_rope_type type;
} TYPE_NAMES[] = {
    {"default", PE_ROPE_DEFAULT},
    {"linear", PE_ROPE_LINEAR},
    {"dynamic", PE_ROPE_DYNAMIC},
    {"yarn", PE_ROPE_YARN},
    {"longrope", PE_ROPE_LONGROPE},
    {"su", PE_ROPE_LONGROPE},
    {"llama3", PE_ROPE_LLAMA3},
    {"ntk", PE_ROPE_NTK},
    {"proportional", PE_ROPE_PROPORTIONAL},
};
#define KNOWN_TYPES "default, linear, dynamic, yarn, longrope (alias su), llama3, ntk, proportional"

/* Lists the types using field f into buf ("yarn, longrope"). */
static void types_of(api_rs_field f, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = PE_ROPE_DEFAULT; t <= PE_ROPE_PROPORTIONAL && len + 1 < n; t++)
        if (RS_FIELDS[f].types & T_BIT(t))
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
                                    api_rope_type_name((pe_rope_type)t));
}

static int field_index(const char *key)
{
    for (int f = 0; f < API_RS__COUNT; f++)
        if (strcmp(RS_FIELDS[f].name, key) == 0)
            return f;
    return -1;
}

/* Reads field f's value v (pointer ptr) into out per its kind. Returns 0 or -1 (error in pb). */
static int read_field(api_problem *pb, api_rs_field f, const json_t *v, const char *ptr,
                      api_rope_scaling *out)
{
    double x = 0.0;
    switch (RS_FIELDS[f].kind) {
    case K_POS:
        if (api_number_value(pb, v, ptr, 0.0, HUGE_VAL, API_NUM_MIN_EXCL, &x) < 0)
            return -1;
        break;
    case K_NONNEG:
    case K_BETA:
        if (api_number_value(pb, v, ptr, 0.0, HUGE_VAL, 0, &x) < 0)
            return -1;
        break;
    case K_SHARE:
        if (api_number_value(pb, v, ptr, 0.0, 1.0, API_NUM_MIN_EXCL, &x) < 0)
            return -1;
        break;
    case K_INT: {
        int64_t i = 0;
        /* 2^53: every such length is exact as the double core computes with */
        if (api_int_value(pb, v, ptr, 1, (int64_t)1 << 53, &i) < 0)
            return -1;
        x = (double)i;
        break;
    }
    case K_BOOL:
        if (!json_is_boolean(v)) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be true or false");
            return -1;
        }
        x = json_is_true(v) ? 1.0 : 0.0;
        break;
    case K_LIST:
        if (!json_is_array(v)) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be an array of numbers");
            return -1;
        }
        out->list[f == API_RS_SHORT_FACTOR ? 0 : 1] = v;
        break;
    }
    out->num[f] = x;
    return 0;
}

void api_rope_scaling_init(api_rope_scaling *out, const char *ptr)
{
    memset(out, 0, sizeof *out);
    out->type = PE_ROPE_DEFAULT;
    snprintf(out->ptr, sizeof out->ptr, "%s", ptr ? ptr : "");
}

int api_rope_scaling_parse(api_problem *pb, const json_t *obj, const char *ptr,
                           const char *src_prefix, api_rs_mode mode, int phi3,
                           const char *const *skip, api_rope_scaling *out, api_rc_warnings *w)
{
    api_rope_scaling_init(out, ptr);
    if (obj == NULL)
        return 0;
    out->present = 1;
    int strict = mode == API_RS_STRICT;
    char fp[API_RC_PTR];
    size_t errs_before = api_problem_count(pb);

    /* Multi-axis RoPE is not a scaling type: say where it goes instead of "unknown field". */
    if (api_member(obj, "mrope_section") != NULL || api_member(obj, "mrope_interleaved") != NULL) {
        api_ptr(fp, sizeof fp, ptr,
                api_member(obj, "mrope_section") ? "mrope_section" : "mrope_interleaved");
        api_problem_field(pb, API_PB_INVALID_FIELD, strict ? fp : ptr,
                          "multi-axis RoPE (M-RoPE, mrope_section) is configured with the "
                          "top-level `axes` field, not as a scaling type");
        return -1;
    }

    /* type / rope_type */
    const char *used = NULL;
    const json_t *tv = api_get_alias(pb, obj, ptr, "type", "rope_type", &used);
    if (api_problem_count(pb) != errs_before)
        return -1; /* both spellings, different values */
    int type_ok = 1;
    if (tv == NULL) {
        /* {} is plain RoPE; anything else must say what it is */
        size_t n_fields = 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)obj, k, v)
        {
            if (!api_str_in_list(skip, k) && !json_is_null(v))
                n_fields++;
        }
        if (n_fields > 0) {
            api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "type",
                            "type (or rope_type) is required; one of " KNOWN_TYPES);
            return -1;
        }
        snprintf(out->type_given, sizeof out->type_given, "default");
        api_rc_origin_set(&out->type_origin, "", "default");
    } else {
        api_ptr(fp, sizeof fp, ptr, used);
        const char *s = json_is_string(tv) ? json_string_value(tv) : NULL;
        int found = 0;
        for (size_t i = 0; s && i < sizeof TYPE_NAMES / sizeof TYPE_NAMES[0]; i++) {
            if (strcmp(TYPE_NAMES[i].name, s) == 0) {
                out->type = TYPE_NAMES[i].type;
                found = 1;
            }
        }
        if (s && phi3 && strcmp(s, "yarn") == 0)
            out->type = PE_ROPE_LONGROPE; /* HF Phi3Config: `su` and `yarn` mean longrope */
        if (s && strcmp(s, "mrope") == 0) {
            api_problem_field(pb, API_PB_INVALID_FIELD, strict ? fp : ptr,
                              "\"mrope\" is multi-axis RoPE (Qwen2-VL): use the top-level `axes` "
                              "field ({\"type\": \"mrope\", \"sections\": [...]}), not scaling");
            return -1;
        }
        if (!found) {
            if (s)
                api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                                  "unknown scaling type \"%.40s\"; known types: " KNOWN_TYPES, s);
            else
                api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                                  "must be a string, one of " KNOWN_TYPES);
            type_ok = 0;
        } else {
            snprintf(out->type_given, sizeof out->type_given, "%s", s);
            if (strcmp(src_prefix, "request") == 0)
                api_rc_origin_set(&out->type_origin, fp, "request");
            else
                api_rc_origin_set(&out->type_origin, fp, "%s.%s", src_prefix, used);
        }
    }

    /* the other fields */
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (strcmp(k, "type") == 0 || strcmp(k, "rope_type") == 0 || api_str_in_list(skip, k))
            continue;
        api_ptr(fp, sizeof fp, ptr, k);
        int f = field_index(k);
        if (f < 0) {
            if (strict)
                api_problem_field(pb, API_PB_UNKNOWN_FIELD, fp,
                                  "unknown field \"%.60s\" in scaling", k);
            else
                api_rc_warn(w, "%s.%.60s is not modelled by posenc and was ignored", src_prefix, k);
            continue;
        }
        if (json_is_null(v))
            continue; /* null = absent (HF configs write e.g. "attention_factor": null) */
        if (!type_ok)
            continue; /* the type error says it all; do not guess which fields belong */
        if (!(RS_FIELDS[f].types & T_BIT(out->type))) {
            char types[96];
            types_of((api_rs_field)f, types, sizeof types);
            if (strict)
                api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                                  "\"%s\" is not a field of scaling type \"%s\" (it belongs to "
                                  "%s)",
                                  k, api_rope_type_name(out->type), types);
            else
                api_rc_warn(w,
                            "%s.%s is not used by scaling type %s and was ignored (it belongs "
                            "to %s)",
                            src_prefix, k, api_rope_type_name(out->type), types);
            continue;
        }
        if (read_field(pb, (api_rs_field)f, v, fp, out) < 0)
            continue;
        if (strcmp(src_prefix, "request") == 0)
            api_rc_origin_set(&out->origin[f], fp, "request");
        else
            api_rc_origin_set(&out->origin[f], fp, "%s.%s", src_prefix, k);
        if (RS_FIELDS[f].kind == K_BETA && out->num[f] == 0.0) {
            double def = f == API_RS_BETA_FAST ? 32.0 : 1.0;
            char at[API_RC_SRC];
            snprintf(at, sizeof at, "%s", out->origin[f].src);
            api_rc_origin_set(&out->origin[f], fp, "%.60s = 0, so HF's default %g (`%s or %g`)", at,
                              def, k, def);
            int req = strcmp(src_prefix, "request") == 0; /* name the request's pointer */
            api_rc_warn(w,
                        "%s%s%s is 0: Hugging Face reads `%s or %g` (modeling_rope_utils.py, "
                        "_compute_yarn_parameters), so %s = %g is used",
                        req ? fp : src_prefix, req ? "" : ".", req ? "" : k, k, def, k, def);
        }
    }
    if (api_problem_count(pb) != errs_before)
        return -1;
    if (out->origin[API_RS_FACTOR].set && out->num[API_RS_FACTOR] < 1.0)
        api_rc_warn(w,
                    "scaling factor %.17g is below 1: frequencies are raised instead of lowered "
                    "(accepted, as Hugging Face only warns)",
                    out->num[API_RS_FACTOR]);
    return 0;
}
