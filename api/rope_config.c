/*
 * api/rope_config.c -- the pasted-config resolver of POST /rope (see rope_config.h): a model's
 * config.json to head_dim, rotary dim, base, layout, scaling and lengths, each with its source.
 * Pure functions: borrowed jansson values in, caller-owned structs out. The scaling object itself
 * is parsed in api/rope_scaling.c.
 */
#include "api/rope_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/model_config.h"
#include "api/model_hybrid.h"
#include "api/model_layers.h"
#include "api/req.h"

/* Reads an integer >= 1 member; 1 present, 0 absent, -1 invalid (error recorded). */
static int cfg_int(api_problem *pb, const json_t *cfg, const char *ptr, const char *key,
                   int64_t *out)
{
    return api_get_int(pb, cfg, ptr, key, 1, INT64_MAX, out);
}

/* Reads a finite number member within (lo, hi]; 1 / 0 / -1 as cfg_int. */
static int cfg_num(api_problem *pb, const json_t *cfg, const char *ptr, const char *key, double lo,
                   double hi, double *out)
{
    return api_get_number(pb, cfg, ptr, key, lo, hi, API_NUM_MIN_EXCL, out);
}

static void resolve_dims(api_problem *pb, const json_t *cfg, const char *ptr, unsigned skip,
                         const api_model_text *text, api_rope_config *out)
{
    char fp[API_RC_PTR];
    int64_t v = 0;
    const api_model_default *dflt = NULL;
    if (!(skip & API_RC_SKIP_HEAD_DIM)) {
        if (cfg_int(pb, cfg, ptr, "qk_rope_head_dim", &v) > 0) {
            out->head_dim = v;
            api_ptr(fp, sizeof fp, ptr, "qk_rope_head_dim");
            api_rc_origin_set(&out->head_dim_o, fp, "config.qk_rope_head_dim");
        } else if (cfg_int(pb, cfg, ptr, "head_dim", &v) > 0) {
            out->head_dim = v;
            api_ptr(fp, sizeof fp, ptr, "head_dim");
            api_rc_origin_set(&out->head_dim_o, fp, "config.head_dim");
        } else if (api_model_head_dim_rule(cfg, text->model_type, &v)) { /* Zamba2 */
            out->head_dim = v;
            api_ptr(fp, sizeof fp, ptr, "hidden_size");
            api_rc_origin_set(&out->head_dim_o, fp,
                              "2 config.hidden_size // config.num_attention_heads (Zamba2Config "
                              "attention_head_dim)");
        } else if ((dflt = api_model_text_default(text, "head_dim")) != NULL) {
            /* the config class defines head_dim (Gemma 3): HF never divides hidden_size */
            out->head_dim = (int64_t)dflt->value;
            api_ptr(fp, sizeof fp, ptr, "model_type");
            api_rc_origin_set(&out->head_dim_o, fp, "default of %s", dflt->hf);
        } else {
            /* hidden size / heads: HF names first, then GPT-J / GPT-2 style names */
            static const char *const DIMS[] = {"hidden_size", "n_embd", NULL};
            static const char *const HEADS[] = {"num_attention_heads", "n_head", NULL};
            /* DbrxConfig: d_model / n_heads (its attribute_map aliases the HF names) */
            static const char *const DBRX_DIMS[] = {"d_model", "hidden_size", NULL};
            static const char *const DBRX_HEADS[] = {"n_heads", "num_attention_heads", NULL};
            int dbrx = strcmp(text->model_type, "dbrx") == 0;
            int64_t hidden = 0, heads = 0;
            const char *hk = NULL, *nk = NULL;
            for (const char *const *d = dbrx ? DBRX_DIMS : DIMS; *d && hk == NULL; d++)
                if (cfg_int(pb, cfg, ptr, *d, &hidden) > 0)
                    hk = *d;
            for (const char *const *h = dbrx ? DBRX_HEADS : HEADS; *h && nk == NULL; h++)
                if (cfg_int(pb, cfg, ptr, *h, &heads) > 0)
                    nk = *h;
            const api_model_default *dh = hk ? NULL : api_model_text_default(text, "hidden_size");
            const api_model_default *dn =
                nk ? NULL : api_model_text_default(text, "num_attention_heads");
            if ((hk || dh) && (nk || dn) && (dh || dn)) { /* a wrapped sparse text config */
                hidden = dh ? (int64_t)dh->value : hidden;
                heads = dn ? (int64_t)dn->value : heads;
                api_ptr(fp, sizeof fp, ptr, hk ? hk : "model_type");
                out->head_dim = hidden / heads;
                char hs[48], ns[48];
                if (hk)
                    snprintf(hs, sizeof hs, "config.%s", hk);
                else
                    snprintf(hs, sizeof hs, "hidden_size %lld", (long long)hidden);
                if (nk)
                    snprintf(ns, sizeof ns, "config.%s", nk);
                else
                    snprintf(ns, sizeof ns, "num_attention_heads %lld", (long long)heads);
                api_rc_origin_set(&out->head_dim_o, fp, "%s / %s (default of %s)", hs, ns,
                                  (dh ? dh : dn)->hf);
            } else if (hk && nk) {
                api_ptr(fp, sizeof fp, ptr, hk);
                if (hidden % heads != 0) {
                    api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                                      "%s (%lld) is not divisible by %s (%lld); give head_dim", hk,
                                      (long long)hidden, nk, (long long)heads);
                } else {
                    out->head_dim = hidden / heads;
                    api_rc_origin_set(&out->head_dim_o, fp, "config.%s / config.%s", hk, nk);
                }
            }
        }
    }
    if (!(skip & API_RC_SKIP_ROTARY)) {
        double f = 0.0;
        if (cfg_num(pb, cfg, ptr, "partial_rotary_factor", 0.0, 1.0, &f) > 0) {
            out->partial_rotary_factor = f;
            api_ptr(fp, sizeof fp, ptr, "partial_rotary_factor");
            api_rc_origin_set(&out->partial_o, fp, "config.partial_rotary_factor");
        } else if (cfg_num(pb, cfg, ptr, "rotary_pct", 0.0, 1.0, &f) > 0) {
            out->partial_rotary_factor = f;
            api_ptr(fp, sizeof fp, ptr, "rotary_pct");
            api_rc_origin_set(&out->partial_o, fp, "config.rotary_pct");
        } else if (cfg_int(pb, cfg, ptr, "rotary_dim", &v) > 0) {
            out->rotary_dim = v;
            api_ptr(fp, sizeof fp, ptr, "rotary_dim");
            api_rc_origin_set(&out->rotary_dim_o, fp, "config.rotary_dim");
        }
    }
}

/* Gemma 4's full-attention head (Gemma4TextRotaryEmbedding: head_dim_key "global_head_dim" for
 * a proportional full_attention entry; Gemma4TextConfig's default 512 when the file omits it). */
static void resolve_global_head_dim(api_problem *pb, const json_t *cfg, const char *ptr,
                                    api_rope_config *out)
{
    char fp[API_RC_PTR];
    int64_t v = 0;
    int rc = cfg_int(pb, cfg, ptr, "global_head_dim", &v);
    if (rc > 0) {
        out->head_dim = v;
        api_ptr(fp, sizeof fp, ptr, "global_head_dim");
        api_rc_origin_set(&out->head_dim_o, fp, "config.global_head_dim");
        return;
    }
    const api_model_default *d = api_model_default_find(out->model_type, "global_head_dim");
    if (rc == 0 && d != NULL) {
        out->head_dim = (int64_t)d->value;
        api_ptr(fp, sizeof fp, ptr, "model_type");
        api_rc_origin_set(&out->head_dim_o, fp, "default of %s (global_head_dim)", d->hf);
    }
}

static void resolve_layout(api_problem *pb, const json_t *cfg, const char *ptr, unsigned skip,
                           api_rope_config *out)
{
    char fp[API_RC_PTR];
    out->layout = PE_ROPE_HALF;
    api_rc_origin_set(&out->layout_o, "", "default");
    if (skip & API_RC_SKIP_LAYOUT)
        return;
    const char *why = NULL;
    if (api_model_layout_fixed(out->model_type, &why)) {
        out->layout = PE_ROPE_INTERLEAVED; /* the model's code decides, not rope_interleave */
        api_ptr(fp, sizeof fp, ptr, "model_type");
        api_rc_origin_set(&out->layout_o, fp, "config.model_type (%s: %s)", out->model_type, why);
        return;
    }
    if (api_model_layout_fixed_half(out->model_type, &why)) {
        api_ptr(fp, sizeof fp, ptr, "model_type");
        api_rc_origin_set(&out->layout_o, fp, "config.model_type (%s: %s)", out->model_type, why);
        return;
    }
    int il = 0;
    int rc = api_get_bool(pb, cfg, ptr, "rope_interleave", &il);
    if (rc > 0) {
        out->layout = il ? PE_ROPE_INTERLEAVED : PE_ROPE_HALF;
        api_ptr(fp, sizeof fp, ptr, "rope_interleave");
        api_rc_origin_set(&out->layout_o, fp, "config.rope_interleave");
        return;
    }
    /* rope_interleave defaults to true (DeepseekV3Config and its copies, Mistral4Config); Kimi K2
     * (model_type kimi_k2, moonshotai/Kimi-K2-Instruct) runs DeepSeek-V3's remote
     * modeling_deepseek.py, whose apply_rotary_pos_emb permutes q and k into pairs */
    static const char *const INTERLEAVED_MODELS[] = {"gptj",        "codegen",       "deepseek_v2",
                                                     "deepseek_v3", "glm4_moe_lite", "mistral4",
                                                     "youtu",       "kimi_k2",       NULL};
    if (out->model_type[0] && api_str_in_list(INTERLEAVED_MODELS, out->model_type)) {
        out->layout = PE_ROPE_INTERLEAVED;
        api_ptr(fp, sizeof fp, ptr, "model_type");
        api_rc_origin_set(&out->layout_o, fp, "config.model_type (%s)", out->model_type);
    }
}

/* Fills the original length and a missing factor of the config's scaling (HF v5 rules). */
static void resolve_lengths(api_problem *pb, const json_t *cfg, const char *ptr, const char *sc_src,
                            api_rope_config *out, api_rc_warnings *w)
{
    api_rope_scaling *sc = &out->scaling;
    api_rc_origin *l0o = &sc->origin[API_RS_ORIGINAL_MAX_POSITION];
    api_rc_origin *fo = &sc->origin[API_RS_FACTOR];
    char fp[API_RC_PTR];
    int64_t top_orig = 0;
    int has_top_orig = cfg_int(pb, cfg, ptr, "original_max_position_embeddings", &top_orig) > 0;
    int has_max = out->max_position_embeddings > 0;
    char max_ptr[API_RC_PTR];
    api_ptr(max_ptr, sizeof max_ptr, ptr, "max_position_embeddings");

    switch (sc->type) {
    case PE_ROPE_DYNAMIC:
        /* HF: dynamic NTK always measures against config.max_position_embeddings */
        if (l0o->set && (!has_max || sc->num[API_RS_ORIGINAL_MAX_POSITION] !=
                                         (double)out->max_position_embeddings))
            api_rc_warn(w,
                        "%s.original_max_position_embeddings is ignored for dynamic scaling: "
                        "Hugging Face uses config.max_position_embeddings",
                        sc_src);
        memset(l0o, 0, sizeof *l0o);
        sc->num[API_RS_ORIGINAL_MAX_POSITION] = 0.0;
        if (!has_max) {
            api_problem_field(pb, API_PB_INVALID_FIELD, max_ptr,
                              "dynamic scaling needs max_position_embeddings (its original "
                              "length)");
            return;
        }
        sc->num[API_RS_ORIGINAL_MAX_POSITION] = (double)out->max_position_embeddings;
        api_rc_origin_set(l0o, max_ptr, "config.max_position_embeddings");
        return;
    case PE_ROPE_YARN:
    case PE_ROPE_LONGROPE:
    case PE_ROPE_LLAMA3:
        break;
    default:
        return;
    }
    if (has_top_orig) {
        sc->num[API_RS_ORIGINAL_MAX_POSITION] = (double)top_orig;
        api_ptr(fp, sizeof fp, ptr, "original_max_position_embeddings");
        api_rc_origin_set(l0o, fp, "config.original_max_position_embeddings");
    } else if (!l0o->set && has_max) {
        sc->num[API_RS_ORIGINAL_MAX_POSITION] = (double)out->max_position_embeddings;
        api_rc_origin_set(l0o, max_ptr, "config.max_position_embeddings");
    }
    /* HF v5: a yarn/longrope factor given wins; a missing one is max / original */
    if (!fo->set && (sc->type == PE_ROPE_YARN || sc->type == PE_ROPE_LONGROPE) && has_max &&
        l0o->set) {
        sc->num[API_RS_FACTOR] =
            (double)out->max_position_embeddings / sc->num[API_RS_ORIGINAL_MAX_POSITION];
        api_rc_origin_set(fo, max_ptr, "config.max_position_embeddings / %s", l0o->src);
        if (sc->num[API_RS_FACTOR] < 1.0)
            api_rc_warn(w,
                        "derived scaling factor %.17g (max_position_embeddings / original) is "
                        "below 1",
                        sc->num[API_RS_FACTOR]);
    }
}

/* Ministral 3's and Mistral 4's llama_4_scaling_beta in the scaling object sc (at sc_ptr, key
 * sc_key): the query scale 1 + beta ln(1 + floor(pos / L0)) with L0 the object's
 * original_max_position_embeddings (Ministral3Attention and Mistral4Attention read both from
 * rope_parameters). Other model types' attention does not read it (api/rope_keys.c lists it as
 * ignored). */
static void resolve_qscale(api_problem *pb, const json_t *sc, const char *sc_ptr,
                           const char *sc_key, api_rope_config *out)
{
    char fp[API_RC_PTR];
    if (!api_model_query_scale_beta(out->model_type) ||
        api_get_number(pb, sc, sc_ptr, "llama_4_scaling_beta", 0.0, 1e6, 0, &out->qscale_beta) <= 0)
        return;
    api_ptr(fp, sizeof fp, sc_ptr, "llama_4_scaling_beta");
    api_rc_origin_set(&out->qscale_beta_o, fp, "config.%s.llama_4_scaling_beta", sc_key);
    if (cfg_int(pb, sc, sc_ptr, "original_max_position_embeddings", &out->qscale_l0) <= 0) {
        if (!api_problem_failed(pb))
            api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                              "needs original_max_position_embeddings beside it (the model "
                              "divides the position by it: get_llama_4_attn_scale)");
        return;
    }
    char lp[API_RC_PTR];
    api_ptr(lp, sizeof lp, sc_ptr, "original_max_position_embeddings");
    api_rc_origin_set(&out->qscale_l0_o, lp, "config.%s.original_max_position_embeddings", sc_key);
    out->has_qscale = 1;
}

int api_rope_config_resolve(api_problem *pb, const json_t *config, const char *ptr, unsigned skip,
                            api_rope_config *out, api_rc_warnings *w)
{
    return api_rope_config_resolve_kind(pb, config, ptr, skip, NULL, out, w);
}

/* The values read from a config class's rope_parameters (api_model_class_rope_params): every
 * origin that names config.rope_parameters names the class's default instead, with no pointer
 * (the file has no such key), and so does the scaling object itself. */
static void class_sources(api_rope_config *out, const char *hf)
{
    static const char KEY[] = "config.rope_parameters";
    api_rc_origin *all[API_RS__COUNT + 8] = {
        &out->head_dim_o, &out->rotary_dim_o,        &out->partial_o,     &out->base_o,
        &out->layout_o,   &out->scaling.type_origin, &out->qscale_beta_o, &out->qscale_l0_o};
    size_t n = 8;
    for (int f = 0; f < API_RS__COUNT; f++)
        all[n++] = &out->scaling.origin[f];
    for (size_t i = 0; i < n; i++) {
        const char *at = strstr(all[i]->src, KEY);
        if (!all[i]->set || at == NULL)
            continue;
        char buf[sizeof all[i]->src];
        snprintf(buf, sizeof buf, "%.*sdefault of %s: rope_parameters%s", (int)(at - all[i]->src),
                 all[i]->src, hf, at + strlen(KEY));
        snprintf(all[i]->src, sizeof all[i]->src, "%s", buf);
        all[i]->ptr[0] = '\0';
    }
    out->scaling.ptr[0] = '\0';
}

int api_rope_config_resolve_kind(api_problem *pb, const json_t *config, const char *ptr,
                                 unsigned skip, const api_ml_kind *kind, api_rope_config *out,
                                 api_rc_warnings *w)
{
    memset(out, 0, sizeof *out);
    out->layout = PE_ROPE_HALF;
    api_rc_origin_set(&out->layout_o, "", "default");
    char fp[API_RC_PTR];
    size_t errs_before = api_problem_count(pb);
    size_t warns_before = w != NULL ? w->n : 0;

    /* a multimodal wrapper: read the text model's object, naming its nested path */
    api_model_text text;
    api_model_text_find(config, ptr, &text);
    config = text.obj;
    ptr = text.ptr;
    snprintf(out->text_src, sizeof out->text_src, "%s", text.src);
    snprintf(out->model_type, sizeof out->model_type, "%s", text.model_type);
    out->softmax_mscale = out->model_type[0] == '\0' || api_model_softmax_mscale(out->model_type);
    const char *refused = api_model_rope_refused(out->model_type);
    if (refused != NULL) {
        api_ptr(fp, sizeof fp, ptr, "model_type");
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "posenc cannot give model_type \"%.40s\"'s numbers: %s", out->model_type,
                          refused);
        return -1;
    }
    if (api_model_rope_method_check(pb, config, ptr, out->model_type) < 0) /* BERT, T5, ... */
        return -1;
    if (api_model_rotary_conflicts(pb, &text, w) < 0) /* keys the HF class overrides */
        return -1;

    int64_t maxpos = 0;
    if (cfg_int(pb, config, ptr, "max_position_embeddings", &maxpos) > 0)
        out->max_position_embeddings = maxpos;

    /* v5 configs keep rope_theta (and maybe partial_rotary_factor) inside rope_parameters */
    const json_t *params = NULL;
    char sc_key[96] = "rope_scaling", sc_ptr[API_RC_PTR];
    const json_t *sc = api_member(config, "rope_scaling");
    api_ptr(sc_ptr, sizeof sc_ptr, ptr, "rope_scaling");
    if (sc == NULL && api_member(config, "rope_parameters") != NULL) {
        snprintf(sc_key, sizeof sc_key, "rope_parameters");
        api_ptr(sc_ptr, sizeof sc_ptr, ptr, "rope_parameters");
        sc = api_member(config, "rope_parameters");
        /* one layer type's entry of per-layer-type rope_parameters (api/model_layers.h) */
        if (kind != NULL && kind->params_key[0] && sc != NULL && json_is_object(sc)) {
            char pp[API_RC_PTR];
            snprintf(pp, sizeof pp, "%s", sc_ptr);
            api_ptr(sc_ptr, sizeof sc_ptr, pp, kind->params_key);
            snprintf(sc_key, sizeof sc_key, "rope_parameters.%s", kind->params_key);
            sc = api_member(sc, kind->params_key);
        }
    }
    /* a file without either: the config class's own rope_parameters (Mistral4Config's YaRN),
     * read as if the file had them and named as that default (class_sources below) */
    const char *class_hf = NULL;
    json_t *class_sc = NULL;
    if (sc == NULL && api_member(config, "rope_parameters") == NULL &&
        !(skip & API_RC_SKIP_SCALING))
        class_sc = api_model_class_rope_params(config, out->model_type, &class_hf);
    if (class_sc != NULL) {
        sc = class_sc;
        snprintf(sc_key, sizeof sc_key, "rope_parameters");
        api_ptr(sc_ptr, sizeof sc_ptr, ptr, "rope_parameters");
    }
    if (sc != NULL && !json_is_object(sc)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, sc_ptr, "must be an object or null");
        sc = NULL;
    }
    if (sc != NULL && strncmp(sc_key, "rope_parameters", 15) == 0) {
        params = sc;
        /* v5 hybrid models nest one parameter set per layer type (full_attention, ...) */
        const char *k, *nested = NULL;
        json_t *v;
        json_object_foreach((json_t *)params, k, v)
        {
            if (nested == NULL && json_is_object(v))
                nested = k;
        }
        if (nested != NULL && api_member(params, "rope_type") == NULL &&
            api_member(params, "type") == NULL) {
            api_ptr(fp, sizeof fp, ptr, sc_key);
            api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                              "per-layer-type rope_parameters (\"%.40s\", ...) need the "
                              "number of layers (num_hidden_layers) to tell which layers use "
                              "which entry",
                              nested);
            params = NULL;
            sc = NULL;
        }
    }

    /* Gemma 4's proportional RoPE: partial_rotary_factor is the type's own field (the rotary dim
     * stays the head), and its full-attention layers use global_head_dim */
    const json_t *tj = params != NULL ? api_member(params, "rope_type") : NULL;
    if (params != NULL && tj == NULL)
        tj = api_member(params, "type");
    int prop =
        tj != NULL && json_is_string(tj) && strcmp(json_string_value(tj), "proportional") == 0;
    if (prop && !(skip & API_RC_SKIP_HEAD_DIM) && api_model_is_gemma4(out->model_type) &&
        (kind == NULL || strcmp(kind->params_key, "full_attention") == 0)) {
        resolve_global_head_dim(pb, config, ptr, out);
        skip |= API_RC_SKIP_HEAD_DIM;
    }
    resolve_dims(pb, config, ptr, skip, &text, out);
    /* as rope_theta: the scaling object's partial_rotary_factor wins over a top-level one */
    if (sc != NULL && !prop && !(skip & API_RC_SKIP_ROTARY) && !out->rotary_dim_o.set &&
        api_member(sc, "partial_rotary_factor") != NULL)
        memset(&out->partial_o, 0, sizeof out->partial_o);
    if (sc != NULL && !prop && !(skip & API_RC_SKIP_ROTARY) && !out->partial_o.set &&
        !out->rotary_dim_o.set) {
        double f = 0.0;
        if (cfg_num(pb, sc, sc_ptr, "partial_rotary_factor", 0.0, 1.0, &f) > 0) {
            out->partial_rotary_factor = f;
            api_ptr(fp, sizeof fp, sc_ptr, "partial_rotary_factor");
            api_rc_origin_set(&out->partial_o, fp, "config.%s.partial_rotary_factor", sc_key);
        }
    }
    if (!prop && !(skip & API_RC_SKIP_ROTARY) && !out->partial_o.set && !out->rotary_dim_o.set &&
        json_object_get(config, "rotary_dim") == NULL) { /* null: GPT-J rotates it all */
        /* the config class's rotated share when the file says nothing (PhiConfig 0.5, ...) */
        const api_model_default *d = api_model_text_default(&text, "partial_rotary_factor");
        const api_model_default *r = api_model_text_default(&text, "rotary_dim");
        api_ptr(fp, sizeof fp, ptr, "model_type");
        if (d != NULL) {
            out->partial_rotary_factor = d->value;
            api_rc_origin_set(&out->partial_o, fp, "default of %s", d->hf);
        } else if (r != NULL) {
            out->rotary_dim = (int64_t)r->value;
            api_rc_origin_set(&out->rotary_dim_o, fp, "default of %s", r->hf);
        }
    }

    if (!(skip & API_RC_SKIP_ROTARY) && !(skip & API_RC_SKIP_HEAD_DIM)) {
        api_model_fraction_rules(pb, config, ptr, out);
    }

    if (!(skip & API_RC_SKIP_BASE)) {
        /* Lfm2Config reads "theta", ModernBertConfig "global_rope_theta" (its full-attention
         * layers) before rope_theta (api_model_base_alias) */
        const char *bases[] = {api_model_base_alias(out->model_type), "rope_theta",
                               "rotary_emb_base", NULL};
        if (strcmp(out->model_type, "modernbert") == 0)
            bases[1] = NULL; /* ModernBertConfig reads no rope_theta (4.x and v5) */
        const char *const *BASES = bases[0] != NULL ? bases : bases + 1;
        if (kind != NULL && kind->local_base) { /* Gemma 3's / ModernBERT's sliding layers */
            const char *lk = api_model_local_base_key(out->model_type);
            const api_model_default *d = api_model_default_find(out->model_type, lk);
            if (cfg_num(pb, config, ptr, lk, 1.0, HUGE_VAL, &out->base) > 0) {
                api_ptr(fp, sizeof fp, ptr, lk);
                api_rc_origin_set(&out->base_o, fp, "config.%s", lk);
            } else if (d != NULL) {
                out->base = d->value;
                api_ptr(fp, sizeof fp, ptr, "model_type");
                api_rc_origin_set(&out->base_o, fp, "default of %s (%s)", d->hf, lk);
            }
        }
        /* HF v5 (RotaryEmbeddingConfigMixin.convert_rope_params_to_dict): rope_scaling, else
         * rope_parameters, becomes rope_parameters, then rope_parameters.setdefault("rope_theta",
         * <top-level rope_theta>): the scaling object's own rope_theta wins */
        if (!out->base_o.set && sc != NULL &&
            cfg_num(pb, sc, sc_ptr, "rope_theta", 1.0, HUGE_VAL, &out->base) > 0) {
            api_ptr(fp, sizeof fp, sc_ptr, "rope_theta");
            api_rc_origin_set(&out->base_o, fp, "config.%s.rope_theta", sc_key);
        }
        for (const char *const *b = BASES; *b && !out->base_o.set; b++) {
            if (cfg_num(pb, config, ptr, *b, 1.0, HUGE_VAL, &out->base) > 0) {
                api_ptr(fp, sizeof fp, ptr, *b);
                api_rc_origin_set(&out->base_o, fp, "config.%s", *b);
            }
        }
        /* DBRX: HF v4's DbrxAttention took its rotary base from config.attn_config.rope_theta
         * (modeling_dbrx.py; DbrxAttentionConfig's default 10000, the same as posenc's). HF v5's
         * DbrxConfig has rope_parameters and its DbrxAttentionConfig no rope_theta (the rotary
         * embedding reads rope_parameters): a file that has rope_parameters.rope_theta (or a
         * top-level rope_theta, which v5 moves there) is read from it, read above; the attention
         * config's value only when neither is there. */
        const json_t *attn =
            strcmp(out->model_type, "dbrx") == 0 ? api_member(config, "attn_config") : NULL;
        if (attn != NULL && !json_is_object(attn)) {
            api_ptr(fp, sizeof fp, ptr, "attn_config");
            api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                              "must be an object (DbrxAttentionConfig)");
        } else if (attn != NULL) {
            char ap[API_RC_PTR];
            api_ptr(ap, sizeof ap, ptr, "attn_config");
            double theta = 0.0; /* checked either way: a bad value is a 422, as it was */
            if (cfg_num(pb, attn, ap, "rope_theta", 1.0, HUGE_VAL, &theta) > 0 &&
                !out->base_o.set) {
                out->base = theta;
                api_ptr(fp, sizeof fp, ap, "rope_theta");
                api_rc_origin_set(&out->base_o, fp, "config.attn_config.rope_theta");
            }
        }
        const api_model_default *d = api_model_text_default(&text, "rope_theta");
        if (!out->base_o.set && d != NULL) {
            out->base = d->value; /* Gemma 3's published text_config omits rope_theta */
            api_ptr(fp, sizeof fp, ptr, "model_type");
            api_rc_origin_set(&out->base_o, fp, "default of %s", d->hf);
        }
    }

    resolve_layout(pb, config, ptr, skip, out);

    char sc_src[112];
    snprintf(sc_src, sizeof sc_src, "config.%s", sc_key);
    api_rope_scaling_init(&out->scaling, sc_ptr);
    if (kind != NULL && (kind->local_base || kind->unscaled))
        sc = NULL; /* Gemma 3's (rotary_emb_local) and OLMo 3's sliding layers: rope_type default */
    if (!(skip & API_RC_SKIP_SCALING) && sc != NULL) {
        static const char *const PARAM_SKIP[] = {"rope_theta", "partial_rotary_factor", "alpha",
                                                 "llama_4_scaling_beta", NULL};
        static const char *const PROP_SKIP[] = {"rope_theta", "alpha", "llama_4_scaling_beta",
                                                NULL};
        /* Mistral4Config writes max_position_embeddings into rope_parameters; its validation
         * ignores it and no rope function reads it (resolved.ignored says so, api/rope_keys.c) */
        static const char *const MISTRAL4_SKIP[] = {
            "rope_theta",           "partial_rotary_factor",   "alpha",
            "llama_4_scaling_beta", "max_position_embeddings", NULL};
        int phi3 = strcmp(out->model_type, "phi3") == 0;
        const char *const *pskip = prop ? PROP_SKIP : PARAM_SKIP;
        if (!prop && strcmp(out->model_type, "mistral4") == 0)
            pskip = MISTRAL4_SKIP;
        /* short_mscale / long_mscale: only PhimoeRotaryEmbedding reads them (modular_phimoe.py);
         * for any other model_type they are skipped here and refused (api/rope_keys.c) */
        const char *nskip[16];
        size_t ns = 0;
        for (; pskip[ns] != NULL && ns + 3 < sizeof nskip / sizeof nskip[0]; ns++)
            nskip[ns] = pskip[ns];
        if (strcmp(out->model_type, "phimoe") != 0) {
            nskip[ns++] = "short_mscale";
            nskip[ns++] = "long_mscale";
        }
        nskip[ns] = NULL;
        pskip = nskip;
        int sc_rc = api_rope_scaling_parse(pb, sc, sc_ptr, sc_src, API_RS_LENIENT, phi3, pskip,
                                           &out->scaling, w);
        const api_rope_scaling *ps = &out->scaling;
        if (sc_rc == 0 && ps->type == PE_ROPE_LONGROPE &&
            ps->origin[API_RS_SHORT_MSCALE].set != ps->origin[API_RS_LONG_MSCALE].set) {
            /* PhimoeRotaryEmbedding.forward indexes rope_parameters["short_mscale"] or
             * ["long_mscale"] by the sequence length: with one of them HF fails on the other */
            api_rs_field miss =
                ps->origin[API_RS_SHORT_MSCALE].set ? API_RS_LONG_MSCALE : API_RS_SHORT_MSCALE;
            api_problem_key(pb, API_PB_INVALID_FIELD, sc_ptr, api_rs_field_name(miss),
                            "short_mscale and long_mscale go together (modular_phimoe.py "
                            "PhimoeRotaryEmbedding reads the one for the sequence length)");
            sc_rc = -1;
        }
        if (sc_rc == 0 && api_model_rope_alpha(pb, sc, sc_src, out, w) == 0) {
            resolve_lengths(pb, config, ptr, sc_src, out, w);
        }
        if (out->scaling.present && out->scaling.type == PE_ROPE_DEFAULT && params == NULL &&
            json_object_size(sc) == 0)
            out->scaling.present = 0; /* "rope_scaling": {} says nothing */
    }
    if (sc != NULL)
        resolve_qscale(pb, sc, sc_ptr, sc_key, out);
    if (class_sc != NULL) {
        class_sources(out, class_hf);
        json_decref(class_sc);
    }
    if (!(skip & API_RC_SKIP_ROTARY)) /* after the scaling type is known */
        api_model_full_head_rotary(pb, out, w);
    /* the warnings so far name the text object as "config.": in a wrapper, its nested path (the
     * caveats below name it themselves) */
    for (size_t i = warns_before; text.nested && w != NULL && i < w->n; i++)
        api_model_src_rebase(w->text[i], sizeof w->text[i], text.src);
    api_model_rope_caveats(config, &text, kind != NULL, w);
    if (text.nested) /* every source names the nested path: config.text_config.rope_theta */
        api_model_rope_rebase(out, text.src);
    return api_problem_count(pb) != errs_before ? -1 : 0;
}
