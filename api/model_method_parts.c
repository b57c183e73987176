/*
 * api/model_method_parts.c -- parts of POST /model/method's kinds that follow from Hugging Face
 * class facts rather than from the file (see model_method_parts.h).
 */
#include "api/model_method_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/model_hybrid.h"
#include "api/model_scale.h"
#include "api/req.h"
#include "api/rope_req.h"

static const json_t *member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return (v == NULL || json_is_null(v)) ? NULL : v;
}

/*
 * mrope_section of the scaling object sc (of cfg at ptr): integers >= 0 whose sum is the pair
 * count rotary_dim / 2 (HF Qwen2-VL apply_multimodal_rotary_pos_emb splits cos / sin into
 * mrope_section * 2 chunks over the rotary dims). Returns 0, or -1 with a 422 at its pointer.
 */
int api_mm_check_sections(api_problem *pb, const json_t *sc, const json_t *cfg, const char *ptr,
                          const json_t *sections, int64_t rd)
{
    char fp[2 * API_MC_PTR];
    api_ptr(fp, sizeof fp, ptr,
            member(cfg, "rope_scaling") == sc ? "rope_scaling" : "rope_parameters");
    char sp[2 * API_MC_PTR + 16];
    api_ptr(sp, sizeof sp, fp, "mrope_section");
    int64_t sum = 0;
    int ok = json_is_array(sections) && json_array_size(sections) > 0;
    for (size_t i = 0; ok && i < json_array_size(sections); i++) {
        const json_t *e = json_array_get(sections, i);
        ok = json_is_integer(e) && json_integer_value(e) >= 0 && json_integer_value(e) <= rd;
        sum += ok ? json_integer_value(e) : 0;
    }
    if (!ok) {
        api_problem_field(pb, API_PB_INVALID_FIELD, sp,
                          "must be an array of integers >= 0 (pairs per axis: temporal, height, "
                          "width)");
        return -1;
    }
    if (sum != rd / 2) {
        api_problem_field(pb, API_PB_INVALID_FIELD, sp,
                          "sums to %lld pairs, but the rotary dim %lld has %lld (HF splits "
                          "cos / sin by mrope_section * 2 over the rotary dims)",
                          (long long)sum, (long long)rd, (long long)(rd / 2));
        return -1;
    }
    return 0;
}

/* The keys a sparse wrapped text config (LLaVA) takes from its class's defaults. */
static const char *const FILLABLE[] = {"hidden_size", "num_attention_heads", "num_hidden_layers",
                                       "rope_theta", NULL};

/* Writes into the kind's edited (flat) text config the class defaults the nested one relied on
 * (api_model_text_default), so that its ready /rope request stands alone. Returns the bits
 * (1 << index in FILLABLE) of the keys written. */
unsigned api_mm_fill_defaults(json_t *edited, const api_model_text *text)
{
    unsigned bits = 0;
    for (unsigned i = 0; FILLABLE[i]; i++) {
        const api_model_default *d = api_model_text_default(text, FILLABLE[i]);
        if (member(edited, FILLABLE[i]) != NULL || d == NULL ||
            api_model_default_find(text->model_type, FILLABLE[i]) == d)
            continue; /* present, no default, or a default the flat config gets anyway */
        json_object_set_new(edited, FILLABLE[i],
                            strcmp(FILLABLE[i], "rope_theta") == 0
                                ? json_real(d->value)
                                : json_integer((json_int_t)d->value));
        bits |= 1u << i;
    }
    return bits;
}

/* In the kind's sources, every word naming a key written by api_mm_fill_defaults
 * ("config.text_config.hidden_size") becomes "default of <class> (<key>)". */
void api_mm_name_defaults(json_t *sources, const api_model_text *text, unsigned filled)
{
    const char *k;
    json_t *v;
    json_object_foreach(sources, k, v)
    {
        const char *src = json_string_value(v);
        char buf[4 * API_MC_PTR];
        size_t n = 0;
        for (const char *w = src; w && *w && n + 1 < sizeof buf;) {
            size_t len = strcspn(w, " ");
            const char *hit = NULL;
            for (unsigned i = 0; FILLABLE[i] && hit == NULL; i++) {
                size_t kl = strlen(FILLABLE[i]);
                if ((filled & (1u << i)) && len > kl && w[len - kl - 1] == '.' &&
                    strncmp(w + len - kl, FILLABLE[i], kl) == 0)
                    hit = FILLABLE[i];
            }
            int m = hit ? snprintf(buf + n, sizeof buf - n, "default of %s (%s)",
                                   api_model_text_default(text, hit)->hf, hit)
                        : snprintf(buf + n, sizeof buf - n, "%.*s", (int)len, w);
            if (m < 0 || (size_t)m >= sizeof buf - n)
                break;
            n += (size_t)m;
            w += len;
            while (*w == ' ' && n + 1 < sizeof buf) {
                buf[n++] = ' ';
                w++;
            }
        }
        buf[n < sizeof buf ? n : sizeof buf - 1] = '\0';
        if (src != NULL)
            json_object_set_new(sources, k, json_string(buf));
    }
}

/* A source of tt (text.src-based) named from the config's root (where). */
static json_t *temp_src(const char *src, const api_model_text *text, const char *where)
{
    size_t n = strlen(text->src);
    char buf[3 * API_MC_PTR];
    if (strncmp(src, text->src, n) == 0 && src[n] == '.')
        snprintf(buf, sizeof buf, "%s%s", where, src + n);
    else if (n == 0 && strncmp(src, "default", 7) != 0)
        snprintf(buf, sizeof buf, "%s%s", where, src);
    else
        snprintf(buf, sizeof buf, "%s", src);
    return json_string(buf);
}

/* The query_scale object of a Llama 4 no-RoPE kind: the rule, its numbers and their sources. */
json_t *api_mm_query_scale(const api_model_temp *tt, const api_model_text *text, const char *where)
{
    return json_pack("{s:s, s:f, s:f, s:s, s:{s:o, s:o, s:o}}", "rule",
                     "q x (log1p(floor((pos + 1) / floor_scale)) x attn_scale + 1) at token "
                     "position pos (modeling_llama4.py, attn_temperature_tuning)",
                     "attn_scale", tt->attn_scale, "floor_scale", tt->floor_scale, "route",
                     "/attention (method rope, config and layer)", "sources",
                     "attn_temperature_tuning", temp_src(tt->on_src, text, where), "attn_scale",
                     temp_src(tt->attn_scale_src, text, where), "floor_scale",
                     temp_src(tt->floor_scale_src, text, where));
}

/* The first positive integer among keys of obj, 0 when none. */
static int64_t first_pos(const json_t *obj, const char *const *keys)
{
    for (const char *const *k = keys; *k; k++) {
        const json_t *v = member(obj, *k);
        if (v != NULL && json_is_integer(v) && json_integer_value(v) > 0)
            return (int64_t)json_integer_value(v);
    }
    return 0;
}

int api_mm_attn_scale(api_problem *pb, json_t *kind, const api_model_text *text, const char *where,
                      api_rc_warnings *w)
{
    static const char *const HD[] = {"head_dim", "d_kv", NULL};
    static const char *const DIM[] = {"hidden_size", "n_embd", "d_model", "dim", NULL};
    static const char *const HEADS[] = {"num_attention_heads", "n_head", "num_heads", "n_heads",
                                        NULL};
    json_t *params = json_object_get(kind, "parameters");
    int64_t hd = first_pos(params, HD);
    if (hd == 0)
        hd = first_pos(text->obj, HD);
    /* a config class that defines head_dim never divides hidden_size (NemotronHConfig: 128) */
    const api_model_default *dh = hd == 0 ? api_model_text_default(text, "head_dim") : NULL;
    if (dh != NULL)
        hd = (int64_t)dh->value;
    api_model_head_dim_warn(text, hd, w);
    if (hd == 0) {
        int64_t dim = first_pos(text->obj, DIM), heads = first_pos(text->obj, HEADS);
        hd = heads > 0 && dim % heads == 0 ? dim / heads : 0;
    }
    api_model_text t = *text; /* sources named from the config's root */
    snprintf(t.src, sizeof t.src, "%s", where);
    api_model_scale ms;
    if (api_model_attn_scale(pb, &t, hd > 0 ? hd : 1, &ms) < 0)
        return -1;
    if (hd == 0 && strstr(ms.src, "head_dim") != NULL && strstr(ms.src, "qk_") == NULL) {
        api_rc_warn(w, "the attention scale 1/sqrt(head_dim) needs head_dim (or hidden size and "
                       "heads), which the config does not give: parameters.scale is left out");
        return 0;
    }
    if (params == NULL || !json_is_object(params)) {
        params = json_object();
        if (params == NULL || json_object_set_new(kind, "parameters", params) < 0)
            goto oom;
    }
    json_t *sources = json_object_get(kind, "sources");
    if (sources == NULL || !json_is_object(sources)) {
        sources = json_object();
        if (sources == NULL || json_object_set_new(kind, "sources", sources) < 0)
            goto oom;
    }
    if (json_object_set_new(params, "scale", json_real(ms.scale)) < 0 ||
        json_object_set_new(sources, "scale", json_string(ms.src)) < 0)
        goto oom;
    if (dh != NULL && strstr(ms.src, "head_dim") != NULL) {
        char hs[256];
        snprintf(hs, sizeof hs, "default %lld of %s", (long long)hd, dh->hf);
        if (json_object_set_new(sources, "head_dim", json_string(hs)) < 0)
            goto oom;
    }
    if (ms.softcap > 0.0 &&
        (json_object_set_new(params, "attn_logit_softcapping", json_real(ms.softcap)) < 0 ||
         json_object_set_new(sources, "attn_logit_softcapping", json_string(ms.softcap_src)) < 0))
        goto oom;
    int seen = 0; /* one caveat for all kinds */
    for (size_t i = 0; i < w->n && !seen; i++)
        seen = strncmp(w->text[i], ms.caveat, sizeof w->text[i] - 1) == 0;
    if (ms.caveat[0] && !seen)
        api_rc_warn(w, "%s", ms.caveat);
    return 0;
oom:
    api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while describing the model");
    return -1;
}

int api_mm_account_keys(api_problem *pb, const json_t *edited, const char *text_ptr,
                        const api_rope_config *rc, const api_rc_origin *ro)
{
    api_rope_req *r = calloc(1, sizeof *r);
    if (r == NULL) {
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while describing the model");
        return -1;
    }
    r->kind = -1;
    r->forced_kind = -1;
    r->has_config = 1;
    r->cfg = *rc;
    r->sc = rc->scaling;
    size_t tl = strlen(text_ptr); /* the scaling object's pointer as POST /rope has it */
    if (strncmp(rc->scaling.ptr, text_ptr, tl) == 0)
        snprintf(r->sc.ptr, sizeof r->sc.ptr, "/config%s", rc->scaling.ptr + tl);
    r->head_dim_o = rc->head_dim_o;
    r->rotary_o = *ro;
    r->base_o = rc->base_o;
    r->layout_o = rc->layout_o;
    api_problem lp; /* pointers under /config, as POST /rope names them */
    api_problem_init(&lp);
    int rc_keys = api_rope_account_keys(&lp, edited, 0, r);
    for (size_t i = 0; rc_keys < 0 && i < lp.n_errors; i++) {
        const char *p = lp.errors[i].pointer;
        char fp[sizeof lp.errors[i].pointer + 64];
        snprintf(fp, sizeof fp, "%s%s", text_ptr, strncmp(p, "/config", 7) == 0 ? p + 7 : p);
        api_problem_field(pb, lp.code, fp, "%s", lp.errors[i].message);
    }
    free(r);
    return rc_keys < 0 ? -1 : 0;
}

/*
 * The sources of a kind read from an edited config name what the file holds: a per-layer-type
 * value sits under rope_parameters.<layer type>; a Gemma 3 sliding layer's base is
 * rope_local_base_freq (or Gemma3TextConfig's default of it), not the rope_theta it was put in.
 */
void api_mm_name_edited_sources(json_t *sources, const char *where, const char *layer_type,
                                const char *gemma3_type, int has_local_base)
{
    const char *k;
    json_t *v;
    char buf[6 * API_MC_PTR], needle[3 * API_MC_PTR];
    snprintf(needle, sizeof needle, "%s.rope_parameters.", where);
    json_object_foreach(sources, k, v)
    {
        const char *s = json_string_value(v);
        const char *at = s && layer_type ? strstr(s, needle) : NULL;
        if (at == NULL)
            continue;
        snprintf(buf, sizeof buf, "%.*s%s%s.%s", (int)(at - s), s, needle, layer_type,
                 at + strlen(needle));
        json_object_set_new(sources, k, json_string(buf));
    }
    if (gemma3_type == NULL)
        return;
    const char *lk = api_model_local_base_key(gemma3_type); /* ModernBERT: local_rope_theta */
    const api_model_default *d = api_model_default_find(gemma3_type, lk);
    if (has_local_base)
        snprintf(buf, sizeof buf, "%s.%s", where, lk);
    else
        snprintf(buf, sizeof buf, "default of %s (%s)", d ? d->hf : "?", lk);
    json_object_set_new(sources, "base", json_string(buf));
}

/* OLMo 3's sliding layers (api_ml_kind.unscaled): cfg's flat scaling object becomes a
 * default-type one that keeps the base and rotary fraction it holds (rope_theta,
 * partial_rotary_factor), so that the kind's request answers without the scaling. */
void api_mm_unscale(json_t *cfg)
{
    static const char *const KEYS[] = {"rope_scaling", "rope_parameters", NULL};
    for (const char *const *key = KEYS; *key; key++) {
        const json_t *sc = member(cfg, *key);
        if (sc == NULL || !json_is_object(sc))
            continue;
        json_t *d = json_pack("{s:s}", "rope_type", "default");
        static const char *const KEEP[] = {"rope_theta", "partial_rotary_factor", NULL};
        for (const char *const *k = KEEP; d != NULL && *k; k++)
            if (member(sc, *k) != NULL)
                json_object_set(d, *k, json_object_get(sc, *k));
        json_object_set_new(cfg, *key, d);
    }
}

json_t *api_mm_none_kind(const api_ml_kind *kd, const api_ml_plan *plan, const api_model_text *text,
                         const char *where)
{
    int hybrid = plan->layers_src[0] != '\0';
    const char *why = hybrid && kd->why ? kd->why
                                        : "no positional encoding in this layer (no_rope_layers / "
                                          "layer type)";
    json_t *k = json_pack("{s:s, s:s, s:s, s:n, s:n}", "method", "none", "why", why, "mixer",
                          kd->mixer ? kd->mixer : "attention", "route", "request");
    if (k != NULL && hybrid) {
        (void)text; /* layers_src is named from the config's root already */
        (void)where;
        json_object_set_new(k, "sources", json_pack("{s:s}", "layers", plan->layers_src));
    }
    if (k != NULL && kd->why != NULL) /* the model's rule for these layers */
        json_object_set_new(k, "rule", json_string(kd->why));
    return k;
}

void api_mm_falcon_bias_scale(json_t *k)
{
    const json_t *m = json_object_get(k, "method");
    json_t *par = json_object_get(k, "parameters"), *src = json_object_get(k, "sources");
    const json_t *sc = json_object_get(par, "scale");
    if (!json_is_string(m) || strcmp(json_string_value(m), "alibi") != 0 || !json_is_number(sc))
        return;
    json_object_set_new(par, "bias_scale", json_real(json_number_value(sc)));
    if (json_is_object(src))
        json_object_set_new(src, "bias_scale",
                            json_string("modeling_falcon.py: (q.k^T + alibi) x inv_norm_factor "
                                        "= 1/sqrt(head_dim); POST /alibi's slopes are HF's "
                                        "unscaled build_alibi_tensor"));
}
