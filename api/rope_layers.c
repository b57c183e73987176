/*
 * api/rope_layers.c -- /rope's per-layer answers (see api/rope_req.h): `layer` / `layer_type`
 * choose the kind of layer of a pasted config that the answer is for; with several kinds and no
 * choice, the answer lists every kind (`layer_kinds`) and position-level outputs (q / k
 * rotation, cos / sin, float32_error, scores) are a 422 listing the choices. The kinds are
 * api_ml_plan_layers's, as for POST /model/method.
 */
#include <stdio.h>
#include <string.h>

#include "api/model_hybrid.h"
#include "api/model_layers.h"
#include "api/req.h"
#include "api/rope_parse.h"

/* The layers of kind k as text for an error: "0-4, 6-10, ..." (first few runs). */
static void layer_runs(const api_ml_plan *p, int k, char *out, size_t n)
{
    size_t len = 0;
    int runs = 0;
    out[0] = '\0';
    for (int64_t l = 0; l < p->n_layers && runs < 4; l++) {
        if (p->kind_of[l] != k || (l > 0 && p->kind_of[l - 1] == k))
            continue;
        int64_t e = l;
        while (e + 1 < p->n_layers && p->kind_of[e + 1] == k)
            e++;
        int w = e > l ? snprintf(out + len, n - len, "%s%lld-%lld", runs ? ", " : "", (long long)l,
                                 (long long)e)
                      : snprintf(out + len, n - len, "%s%lld", runs ? ", " : "", (long long)l);
        if (w < 0 || (size_t)w >= n - len)
            return;
        len += (size_t)w;
        runs++;
    }
    if (runs == 4 && len + 6 < n)
        snprintf(out + len, n - len, ", ...");
}

/* The choices of plan p as text for a 422. */
static void choices(const api_ml_plan *p, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < p->n_kinds && len + 1 < n; i++) {
        char runs[96];
        layer_runs(p, (int)i, runs, sizeof runs);
        const api_ml_kind *k = &p->kind[i];
        const char *t = !k->rope                     ? "no RoPE"
                        : k->types == API_ML_SLIDING ? "RoPE, layer_type sliding_attention"
                        : k->types == API_ML_FULL    ? "RoPE, layer_type full_attention"
                                                     : "RoPE";
        int w =
            snprintf(out + len, n - len, "%skind %zu (%s): layers %s", i ? "; " : "", i, t, runs);
        if (w < 0 || (size_t)w >= n - len)
            return;
        len += (size_t)w;
    }
}

void api_rope_kinds_unchosen(api_problem *pb, const api_ml_plan *p)
{
    char msg[400];
    choices(p, msg, sizeof msg);
    api_problem_field(pb, API_PB_INVALID_FIELD, "/layer",
                      "the config's layers differ in RoPE: choose the layer (index) or "
                      "layer_type to rotate for; %s",
                      msg);
}

/* 1 when req asks for numbers at positions (q, k, include cos_sin / float32_error). */
static int wants_positions(const json_t *req)
{
    if (api_member(req, "q") != NULL || api_member(req, "k") != NULL)
        return 1;
    const json_t *inc = api_member(req, "include");
    for (size_t i = 0; inc != NULL && json_is_array(inc) && i < json_array_size(inc); i++) {
        const char *s = json_string_value(json_array_get(inc, i));
        if (s != NULL && (strcmp(s, "cos_sin") == 0 || strcmp(s, "float32_error") == 0))
            return 1;
    }
    return 0;
}

const api_ml_kind *api_rope_layer_select(api_problem *pb, const json_t *req, const json_t *cfg,
                                         int forced, int direct, api_rope_req *r)
{
    char msg[400];
    r->kind = -1;
    int64_t layer = -1;
    const char *lt = NULL;
    int has_layer = api_get_int(pb, req, "", "layer", 0, API_ML_MAX_LAYERS - 1, &layer) > 0;
    const json_t *ltj = api_member(req, "layer_type");
    if (ltj != NULL && !json_is_string(ltj))
        api_problem_field(pb, API_PB_INVALID_FIELD, "/layer_type",
                          "must be a string (full_attention or sliding_attention)");
    else if (ltj != NULL)
        lt = json_string_value(ltj);
    if (api_problem_failed(pb))
        return NULL;
    if (cfg == NULL) {
        if (has_layer || lt != NULL)
            api_problem_field(pb, API_PB_INVALID_FIELD, has_layer ? "/layer" : "/layer_type",
                              "chooses a layer of a pasted config: it needs config");
        return NULL;
    }
    api_model_text text;
    api_model_text_find(cfg, "/config", &text);
    int chosen = forced >= 0 || has_layer || lt != NULL;
    /* layer_types, no_rope_layers, attn_type_list that HF refuses: refused with or without a
     * choice */
    if (!chosen && api_ml_check_layer_lists(pb, &text) < 0)
        return NULL;
    /* without a choice, a config the plan cannot read is answered as a whole, as before */
    api_problem scratch;
    api_problem_init(&scratch);
    /* ... but per-layer-type rope_parameters have no whole answer: the plan's error is the one */
    const json_t *rp = json_object_get(text.obj, "rope_parameters");
    int per_type = json_is_object(rp) && json_object_size(rp) > 0 &&
                   json_object_get(rp, "rope_type") == NULL && json_object_get(rp, "type") == NULL;
    /* ... and so do hybrid types, whose layers decide whether anything rotates */
    int hybrid = api_model_hybrid_known(text.model_type);
    if (api_ml_plan_layers(chosen || per_type || hybrid ? pb : &scratch, &text, &r->plan) < 0) {
        api_ml_plan_free(&r->plan);
        return NULL;
    }
    const api_ml_plan *p = &r->plan;
    int any_rope = p->n_layers == 0;
    for (size_t i = 0; i < p->n_kinds; i++)
        any_rope |= p->kind[i].rope;
    size_t shown = 0; /* the reason of the attention layers when there are some */
    for (size_t i = 0; i < p->n_kinds; i++)
        if (p->kind[i].mixer != NULL && strcmp(p->kind[i].mixer, "attention") == 0)
            shown = i;
    /* Jamba, Nemotron-H, Mamba, ...: nothing rotates (api/model_hybrid.h); a chosen layer of the
     * config is answered for itself below (at /layer, with what that layer is) */
    int layer_chosen = forced < 0 && has_layer;
    if (!any_rope && !layer_chosen) {
        api_problem_key(pb, API_PB_INVALID_FIELD, text.ptr, "model_type",
                        "no layer of this %.40s config uses RoPE (%s): there is nothing to "
                        "rotate; POST /model/method describes its layers",
                        text.model_type,
                        p->kind[shown].why ? p->kind[shown].why : "no positional encoding");
        return NULL;
    }
    int k = forced;
    if (k < 0 && has_layer) {
        if (p->n_layers == 0) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/layer",
                              "the config does not say its number of layers (num_hidden_layers)");
            return NULL;
        }
        if (layer >= p->n_layers) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/layer",
                              "must be below the config's number of layers (%lld)",
                              (long long)p->n_layers);
            return NULL;
        }
        k = p->kind_of[layer];
    }
    if (k < 0 && lt != NULL) {
        k = api_ml_find_type(p, lt);
        if (k < 0 && p->n_kinds == 1 && p->kind[0].types == 0 && strcmp(lt, "full_attention") == 0)
            k = 0; /* a config of one kind without layer types: every layer is full attention */
        if (k < 0) {
            choices(p, msg, sizeof msg);
            api_problem_field(pb, API_PB_INVALID_FIELD, "/layer_type",
                              "no RoPE layer of the config has layer_type \"%.40s\"; the kinds "
                              "are: %s",
                              lt, msg[0] ? msg : "one kind, layer types not named");
            return NULL;
        }
    } else if (has_layer && lt != NULL && forced < 0 && api_ml_find_type(p, lt) != k) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/layer_type",
                          "layer %lld is not of layer_type \"%.40s\"", (long long)layer, lt);
        return NULL;
    }
    if (k >= 0 && !p->kind[k].rope) {
        api_problem_field(pb, API_PB_INVALID_FIELD, has_layer ? "/layer" : "/layer_type",
                          "layer %lld uses no RoPE (%s): there is nothing to rotate (POST "
                          "/model/method describes the layer)",
                          (long long)(has_layer ? layer : p->kind[k].first_layer),
                          p->kind[k].why ? p->kind[k].why : "no positional encoding");
        return NULL;
    }
    if (k < 0 && p->n_kinds > 1) {
        if (direct || wants_positions(req)) {
            api_rope_kinds_unchosen(pb, p);
            return NULL;
        }
        r->kinds_listed = 1;
    }
    if (k >= 0) {
        r->kind = k;
        return &p->kind[k];
    }
    /* per-layer-type rope_parameters have no answer as a whole: the full-attention kind's */
    const json_t *params = api_member(text.obj, "rope_parameters");
    if (params != NULL && json_is_object(params) && api_member(params, "rope_type") == NULL &&
        api_member(params, "type") == NULL) {
        int full = api_ml_find_type(p, "full_attention");
        for (size_t i = 0; full < 0 && i < p->n_kinds; i++)
            if (p->kind[i].rope)
                full = (int)i;
        return full >= 0 ? &p->kind[full] : NULL;
    }
    return NULL;
}

void api_rope_write_kind_open(wire_jw *out, const api_ml_plan *p, int k)
{
    const api_ml_kind *kd = &p->kind[k];
    wire_jw_obj_begin(out);
    wire_jw_key(out, "kind");
    wire_jw_int(out, k);
    wire_jw_key(out, "method");
    wire_jw_str(out, kd->rope ? "rope" : "none");
    if (kd->types != 0) {
        wire_jw_key(out, "layer_types");
        wire_jw_arr_begin(out);
        if (kd->types & API_ML_FULL)
            wire_jw_str(out, "full_attention");
        if (kd->types & API_ML_SLIDING)
            wire_jw_str(out, "sliding_attention");
        wire_jw_arr_end(out);
    }
    wire_jw_key(out, "layers");
    wire_jw_arr_begin(out);
    for (int64_t l = 0; l < p->n_layers; l++)
        if (p->kind_of[l] == k)
            wire_jw_int(out, l);
    wire_jw_arr_end(out);
    if (!kd->rope && kd->why != NULL) {
        wire_jw_key(out, "why");
        wire_jw_str(out, kd->why);
    }
    if (!kd->rope && p->temp.on) /* Llama 4: POST /attention applies it, per position */
        api_rope_write_query_scale(out, p->temp.attn_scale, p->temp.floor_scale,
                                   "(modeling_llama4.py; POST /attention with this layer applies "
                                   "it)");
}

void api_rope_write_query_scale(wire_jw *out, double attn_scale, double floor_scale,
                                const char *where)
{
    char rule[256];
    snprintf(rule, sizeof rule, "q x (log1p(floor((pos + 1) / floor_scale)) x attn_scale + 1) %s",
             where);
    wire_jw_key(out, "query_scale");
    wire_jw_obj_begin(out);
    wire_jw_key(out, "rule");
    wire_jw_str(out, rule);
    wire_jw_key(out, "attn_scale");
    wire_jw_double(out, attn_scale);
    wire_jw_key(out, "floor_scale");
    wire_jw_double(out, floor_scale);
    wire_jw_obj_end(out);
}

void api_rope_write_kind(wire_jw *out, const api_ml_plan *p, int k)
{
    api_rope_write_kind_open(out, p, k);
    wire_jw_obj_end(out);
}

int api_rope_read_config(api_problem *pb, const json_t *req, int direct, unsigned skip,
                         api_rope_req *r, const json_t **cfg_out)
{
    const json_t *cfg = NULL;
    int has_cfg = api_get_object(pb, req, "", "config", &cfg) > 0;
    size_t e_sel = api_problem_count(pb);
    const api_ml_kind *kind =
        api_rope_layer_select(pb, req, has_cfg ? cfg : NULL, r->forced_kind, direct, r);
    if (api_problem_count(pb) != e_sel)
        return -1;
    if (cfg_out != NULL)
        *cfg_out = cfg;
    if (!has_cfg)
        return 0;
    r->has_config = 1;
    api_rope_config_resolve_kind(pb, cfg, "/config", skip, kind, &r->cfg, &r->warn);
    return 1;
}
