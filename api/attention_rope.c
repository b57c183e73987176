/*
 * api/attention_rope.c -- /attention method "rope": q and k rotated by RoPE at positions
 * offset .. offset+T-1 (rotated part × attention_factor, as Hugging Face does), logits also
 * multiplied by softmax_scale_factor (DeepSeek-style yarn; 1 otherwise), then plain attention.
 * Object: the /rope configuration fields (head_dim defaults to d and must equal it; rotary_dim,
 * partial_rotary_factor, base / rope_theta, layout, scaling / rope_scaling, inv_freq, config,
 * seq_len) plus `offset`.
 *
 * The object goes through /rope's own parse and run steps (api_rope_eval, api/rope_req.h) with
 * the positions and q / k given as numbers, so both routes validate and compute a configuration
 * identically — one set of rules, one cache — and the rotated rows are used as computed. Errors
 * are re-rooted under the method's object ("/rope/scaling/factor"), as /rope names them.
 * Source: RoFormer arXiv:2104.09864; HF LlamaAttention (rotate, then q·kᵀ·scale).
 *
 * A pasted Llama 4 config with `layer` naming one of its no-RoPE layers (no_rope_layers) is not
 * rotated: with attn_temperature_tuning (Llama4TextConfig's default) its queries are multiplied
 * by log1p(floor((pos + 1) / floor_scale)) * attn_scale + 1 at each position (HF
 * Llama4TextAttention, `attn_temperature_tuning and not self.use_rope`), keys unchanged.
 *
 * With a pasted config the scale defaults to the model's own (api/model_scale.h: Gemma 2
 * query_pre_attn_scalar^-0.5, Gemma 4 1, ...) and Gemma 2's scores are soft-capped; the keys used
 * leave resolved.ignored for resolved.sources (scale, attn_logit_softcapping).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/attention_method.h"
#include "api/model_config.h"
#include "api/model_hybrid.h"
#include "api/model_layers.h"
#include "api/model_scale.h"
#include "api/req.h"
#include "api/rope_req.h"
#include "core/rope_qscale.h"

static const char *const FIELDS[] = {"head_dim", "rotary_dim",   "partial_rotary_factor",
                                     "base",     "rope_theta",   "layout",
                                     "scaling",  "rope_scaling", "inv_freq",
                                     "config",   "seq_len",      "offset",
                                     "layer",    "layer_type",   NULL};

/* The method's state: the parsed configuration and its numbers (q_rot, k_rot [t][d]). */
typedef struct {
    api_rope_req r;
    api_rope_res res;
    int64_t *positions; /* [t]: offset .. offset+t-1 */
    int64_t offset;
    /* a Llama 4 no-RoPE layer with temperature tuning: q times q_scale[i], no rotation; or
     * (plain) a hybrid model's NoPE attention layer (api/model_hybrid.h): q_scale all 1 */
    int nope, plain;
    int64_t layer;
    const char *why; /* static: the rule that makes the layer no-RoPE */
    api_model_temp tt;
    double *q_scale; /* [t] */
    /* a pasted config's attention scale (api/model_scale.h) */
    api_model_scale ms;
    char scale_src[API_MS_SRC + 96];
    char caveats[2 * API_MS_SRC + 512]; /* the answer's caveats, joined ("" : none) */
} rope_state;

static void rope_release(api_att_plan *plan)
{
    rope_state *s = plan->state;
    if (s) {
        api_rope_res_free(&s->res);
        api_rope_req_free(&s->r);
        free(s->positions);
        free(s->q_scale);
        free(s);
    }
    plan->state = NULL;
}

/* Copies sub's errors into pb with their pointers re-rooted under base; the members the method
 * gives /rope map back to what the client sent: /positions → <base>/offset, /q → /q, /k → /k. */
static void reroot_errors(const api_problem *sub, const char *base, api_problem *pb)
{
    if (sub->n_errors == 0) {
        api_problem_set(pb, sub->code, "%s", sub->detail);
        return;
    }
    for (size_t i = 0; i < sub->n_errors; i++) {
        const char *p = sub->errors[i].pointer;
        char ptr[160];
        if (strncmp(p, "/positions", 10) == 0)
            api_ptr(ptr, sizeof ptr, base, "offset");
        else if (strncmp(p, "/q", 2) == 0 || strncmp(p, "/k", 2) == 0)
            snprintf(ptr, sizeof ptr, "%.150s", p);
        else
            snprintf(ptr, sizeof ptr, "%.40s%.110s", base, p);
        api_problem_field(pb, sub->code, ptr, "%s", sub->errors[i].message);
    }
}

/*
 * 1 when the object's config and layer choose a no-RoPE layer of a Llama 4 config whose attention
 * tunes the query temperature (s is then set up: q_scale per position); 0 otherwise (the /rope
 * parse then answers, a 422 at /layer for another no-RoPE layer); -1 on a bad tuning key.
 */
static int nope_temp_layer(const api_att_input *in, rope_state *s, api_problem *pb)
{
    const json_t *cfg = api_member(in->obj, "config"), *lj = api_member(in->obj, "layer");
    if (cfg == NULL || !json_is_object(cfg) || lj == NULL || !json_is_integer(lj))
        return 0;
    api_model_text text; /* named as /rope names the object's members: config.<key> */
    api_model_text_find(cfg, "/config", &text);
    api_problem scratch;
    api_problem_init(&scratch);
    api_ml_plan lp;
    int64_t l = json_integer_value(lj);
    int rc = 0;
    if (api_ml_plan_layers(&scratch, &text, &lp) == 0 && l >= 0 && l < lp.n_layers &&
        !lp.kind[lp.kind_of[l]].rope) {
        const api_ml_kind *kd = &lp.kind[lp.kind_of[l]];
        s->why = kd->why;
        api_problem sp;
        api_problem_init(&sp);
        rc = api_model_temp_tuning(&sp, &text, &s->tt) < 0 ? -1 : s->tt.on;
        if (rc < 0)
            reroot_errors(&sp, in->base, pb);
        /* Jamba, Nemotron-H, ...: attention without positions, scores as sent */
        s->plain = rc == 0 && api_model_hybrid_known(text.model_type) && kd->mixer != NULL &&
                   strcmp(kd->mixer, "attention") == 0;
        rc = s->plain ? 1 : rc;
    }
    api_ml_plan_free(&lp);
    if (rc <= 0)
        return rc;
    s->q_scale = api_alloc(pb, in->t + 1, sizeof *s->q_scale);
    if (s->q_scale == NULL)
        return -1;
    for (size_t i = 0; i < in->t; i++)
        s->q_scale[i] =
            s->plain ? 1.0
                     : pe_qscale_llama4_temp(s->positions[i], s->tt.attn_scale, s->tt.floor_scale);
    s->nope = 1;
    s->layer = l;
    /* q and k as the model has them: rows of its head (the scale is the model's for those) */
    int64_t hd = api_model_nope_head_dim(&text);
    if (hd > 0 && (uint64_t)hd != in->d) {
        for (int w = 0; w < 2; w++) {
            api_problem_field(pb, API_PB_INVALID_FIELD, w ? "/k/0" : "/q/0",
                              "must have %lld numbers (a head of this model's %s layer %lld: "
                              "head_dim of %.40s), got %zu",
                              (long long)hd, s->plain ? "attention" : "no-RoPE", (long long)l,
                              text.model_type, in->d);
        }
        return -1;
    }
    return 1;
}

/* Drops entry key from r's resolved.ignored (it is used now), or gives it reason why. */
static void unignore(api_rope_req *r, const char *key, const char *why)
{
    for (size_t i = 0; key[0] && i < r->ign.n; i++) {
        if (strcmp(r->ign.k[i].key, key) != 0)
            continue;
        if (why != NULL) {
            r->ign.k[i].why = why;
            continue;
        }
        memmove(&r->ign.k[i], &r->ign.k[i + 1], (r->ign.n - i - 1) * sizeof r->ign.k[0]);
        r->ign.n--;
        i--;
    }
}

/*
 * Adds to s->caveats when the pasted config's layers (those of the answered kind r->kind when
 * r is given) attend within a sliding window (`sliding_window`, unless `use_sliding_window` is
 * false) that the T positions reach: HF masks key positions `sliding_window` or more behind the
 * query (masking_utils.py, sliding_window_overlay), and these scores do not apply that mask.
 * Layer types that are all full attention, or T within the window, add nothing.
 */
static void window_caveat(const api_att_input *in, rope_state *s, const api_model_text *text,
                          const api_rope_req *r)
{
    const json_t *sw = api_member(text->obj, "sliding_window");
    const json_t *use = api_member(text->obj, "use_sliding_window");
    if (sw == NULL || !json_is_integer(sw) || json_integer_value(sw) < 1 ||
        (use != NULL && json_is_false(use)))
        return;
    int64_t w = (int64_t)json_integer_value(sw);
    if ((int64_t)in->t < w) /* the largest distance, t - 1, stays inside the window */
        return;
    unsigned types = r != NULL && r->kind >= 0 ? r->plan.kind[r->kind].types : 0u;
    /* the one layer asked for, when the config types it (layers that differ only in window
     * are one kind, so the kind alone may hold both) */
    const json_t *lt = api_member(text->obj, "layer_types");
    const json_t *lj = api_member(in->obj, "layer"), *ltj = api_member(in->obj, "layer_type");
    const json_t *one = json_is_string(ltj) ? ltj
                        : json_is_integer(lj) && json_is_array(lt)
                            ? json_array_get(lt, (size_t)json_integer_value(lj))
                            : NULL;
    if (json_is_string(one))
        types =
            strcmp(json_string_value(one), "sliding_attention") == 0 ? API_ML_SLIDING : API_ML_FULL;
    if (types != 0 && !(types & API_ML_SLIDING))
        return; /* the answered layers are all full attention */
    size_t n = strlen(s->caveats);
    snprintf(s->caveats + n, sizeof s->caveats - n,
             "%s%s.sliding_window = %lld: %s attend only to the last %lld positions "
             "(masking_utils.py); these %zu positions reach farther and the scores here do not "
             "apply that mask (send fewer than %lld positions, or a full-attention layer)",
             n ? "; " : "", text->src, (long long)w,
             types & API_ML_FULL ? "this kind's sliding-window layers"
                                 : "the sliding-window layers",
             (long long)w, in->t, (long long)w);
}

/*
 * The pasted config's own attention scale and soft-capping (api/model_scale.h), for plan: the
 * scale replaces the default 1/sqrt(d) unless the request set `scale` (which wins, said so in
 * the source). r (NULL on a no-RoPE layer) gets the sources, and the keys used leave its
 * resolved.ignored. 0 without a config or on success, -1 with pb filled.
 */
static int model_scale(const api_att_input *in, rope_state *s, api_rope_req *r, api_att_plan *plan,
                       api_problem *pb)
{
    const json_t *cfg = api_member(in->obj, "config");
    if (cfg == NULL || !json_is_object(cfg))
        return 0;
    api_model_text text; /* named as /rope names the object's members: config.<key> */
    api_model_text_find(cfg, "/config", &text);
    api_problem sp;
    api_problem_init(&sp);
    if (api_model_attn_scale(&sp, &text, (int64_t)in->d, &s->ms) < 0) {
        reroot_errors(&sp, in->base, pb);
        return -1;
    }
    if (in->scale_given)
        snprintf(s->scale_src, sizeof s->scale_src, "request (wins over the model's %.17g: %.200s)",
                 s->ms.scale, s->ms.src);
    else
        snprintf(s->scale_src, sizeof s->scale_src, "%s", s->ms.src);
    plan->has_model_scale = 1;
    plan->model_scale = s->ms.scale;
    plan->scale_src = s->scale_src;
    plan->softcap = s->ms.softcap;
    snprintf(s->caveats, sizeof s->caveats, "%s", s->ms.caveat);
    window_caveat(in, s, &text, r);
    plan->caveat = s->caveats[0] ? s->caveats : NULL;
    if (r != NULL) {
        snprintf(r->scale_src, sizeof r->scale_src, "%s", s->scale_src);
        snprintf(r->softcap_src, sizeof r->softcap_src, "%s", s->ms.softcap_src);
        unignore(r, s->ms.key, in->scale_given ? "the request's scale wins" : NULL);
        unignore(r, s->ms.softcap_key, NULL);
    }
    return 0;
}

static int rope_prepare(const api_att_input *in, api_att_plan *plan, api_problem *pb)
{
    const api_limits *lim = in->ctx->lim;
    rope_state *s = api_alloc(pb, 1, sizeof *s);
    if (s == NULL)
        return -1;
    plan->state = s;
    int64_t hd = 0;
    int rc = api_get_int(pb, in->obj, in->base, "head_dim", 1, INT64_MAX, &hd);
    if (rc > 0 && (uint64_t)hd != in->d) {
        api_problem_key(pb, API_PB_INVALID_FIELD, in->base, "head_dim",
                        "must equal the width of the q and k rows (%zu), got %lld", in->d,
                        (long long)hd);
        return -1;
    }
    if (rc < 0)
        return -1;
    rc = api_get_int(pb, in->obj, in->base, "offset", 0, lim->max_position - 1, &s->offset);
    if (rc < 0)
        return -1;
    if (s->offset > lim->max_position - (int64_t)in->t) {
        api_problem_key(pb, API_PB_LIMIT_EXCEEDED, in->base, "offset",
                        "offset + T must not exceed max_position (%lld)",
                        (long long)lim->max_position);
        return -1;
    }
    s->positions = api_alloc(pb, in->t + 1, sizeof *s->positions);
    if (s->positions == NULL)
        return -1;
    for (size_t i = 0; i < in->t; i++)
        s->positions[i] = s->offset + (int64_t)i;
    rc = nope_temp_layer(in, s, pb);
    if (rc != 0)
        return rc < 0 ? -1 : model_scale(in, s, NULL, plan, pb);
    /* /rope's rules for the object (its `offset` is ours: api_rope_check_fields knows it not,
     * but the object's fields were checked against FIELDS already and /rope reads no offset) */
    api_rope_direct dir = {.positions = s->positions,
                           .n_pos = in->t,
                           .q = in->q,
                           .k = in->k,
                           .rows = in->t,
                           .cols = in->d,
                           .head_dim = (int64_t)in->d};
    api_problem sp;
    api_problem_init(&sp);
    rc = api_rope_eval(in->ctx, in->obj, &dir, &s->r, &s->res, &sp);
    if (rc != 0 || api_problem_failed(&sp) || !api_rope_res_finite(&s->r, &s->res)) {
        if (api_problem_failed(&sp))
            reroot_errors(&sp, in->base, pb);
        else
            api_problem_field(pb, API_PB_INVALID_FIELD, in->base,
                              "the rotation overflows; use smaller q and k");
        return -1;
    }
    /* the rotation needs the whole head: a pasted config must resolve to head_dim = d */
    if ((uint64_t)s->r.head_dim != in->d) {
        api_problem_key(pb, API_PB_INVALID_FIELD, in->base, "config",
                        "resolves to head_dim %lld, but q and k rows have %zu numbers",
                        (long long)s->r.head_dim, in->d);
        return -1;
    }
    plan->scale_mult = s->res.softmax_scale_factor;
    return model_scale(in, s, &s->r, plan, pb);
}

static int rope_transform(const api_att_input *in, const api_att_plan *plan, double *q, double *k,
                          api_problem *pb)
{
    (void)pb;
    const rope_state *s = plan->state;
    if (s->nope) { /* Llama 4 no-RoPE layer: q scaled by position, k as sent */
        for (size_t i = 0; i < in->t; i++)
            for (size_t j = 0; j < in->d; j++)
                q[i * in->d + j] *= s->q_scale[i];
        return 0;
    }
    memcpy(q, s->res.q_rot, in->t * in->d * sizeof *q);
    memcpy(k, s->res.k_rot, in->t * in->d * sizeof *k);
    return 0;
}

/* /rope's resolved members, then the factors and the offset. */
static void rope_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    (void)in;
    const rope_state *s = plan->state;
    if (s->nope) {
        wire_jw_key(out, "method");
        wire_jw_str(out, "none");
        wire_jw_key(out, "layer");
        wire_jw_int(out, s->layer);
        wire_jw_key(out, "why");
        wire_jw_str(out, s->why ? s->why : "no positional encoding in this layer");
        if (s->plain) { /* no query temperature: q and k as sent */
            wire_jw_key(out, "mixer");
            wire_jw_str(out, "attention");
            wire_jw_key(out, "offset");
            wire_jw_int(out, s->offset);
            return;
        }
        api_rope_write_query_scale(out, s->tt.attn_scale, s->tt.floor_scale,
                                   "(Llama 4 attn_temperature_tuning, no-RoPE layers)");
        wire_jw_key(out, "q_scale");
        wire_jw_doubles(out, s->q_scale, in->t);
        wire_jw_key(out, "sources");
        wire_jw_obj_begin(out);
        wire_jw_key(out, "query_scale.attn_temperature_tuning");
        wire_jw_str(out, s->tt.on_src);
        wire_jw_key(out, "query_scale.attn_scale");
        wire_jw_str(out, s->tt.attn_scale_src);
        wire_jw_key(out, "query_scale.floor_scale");
        wire_jw_str(out, s->tt.floor_scale_src);
        wire_jw_obj_end(out);
        wire_jw_key(out, "offset");
        wire_jw_int(out, s->offset);
        return;
    }
    api_rope_write_resolved(out, &s->r, &s->res);
    wire_jw_key(out, "attention_factor");
    wire_jw_double(out, s->res.attention_factor);
    wire_jw_key(out, "softmax_scale_factor");
    wire_jw_double(out, s->res.softmax_scale_factor);
    wire_jw_key(out, "offset");
    wire_jw_int(out, s->offset);
}

const api_att_method api_att_method_rope = {
    .name = "rope",
    .fields = FIELDS,
    .needs_object = 0,
    .prepare = rope_prepare,
    .transform_qk = rope_transform,
    .bias = NULL,
    .add_output = NULL,
    .resolved = rope_resolved,
    .release = rope_release,
};
