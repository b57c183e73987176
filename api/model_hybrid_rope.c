/*
 * api/model_hybrid_rope.c -- the rotary rules of hybrid and newer model types (see
 * model_hybrid.h): LFM2's base key, Zamba2's head, MiniMax / MiniMax-M2's rotary dims and layer
 * lists where Hugging Face's config class and the model's own code read them differently.
 */
#include <stdint.h>
#include <string.h>

#include "api/model_hybrid.h"
#include "api/req.h"

const char *api_model_base_alias(const char *model_type)
{
    static const char *const LFM2[] = {"lfm2", "lfm2_moe", NULL};
    if (model_type != NULL && strcmp(model_type, "modernbert") == 0)
        return "global_rope_theta"; /* ModernBertConfig: rope_parameters.full_attention */
    return api_str_in_list(LFM2, model_type) ? "theta" : NULL;
}

const char *api_model_local_base_key(const char *model_type)
{
    if (model_type != NULL && strcmp(model_type, "modernbert") == 0)
        return "local_rope_theta"; /* ModernBertConfig: rope_parameters.sliding_attention */
    return "rope_local_base_freq"; /* Gemma 3 / 3n (modeling_gemma3.py rotary_emb_local) */
}

int api_model_head_dim_rule(const json_t *cfg, const char *model_type, int64_t *hd)
{
    if (model_type == NULL || strcmp(model_type, "zamba2") != 0)
        return 0;
    const json_t *h = api_member(cfg, "hidden_size"), *n = api_member(cfg, "num_attention_heads");
    if (!json_is_integer(h) || !json_is_integer(n) || json_integer_value(h) < 1 ||
        json_integer_value(n) < 1)
        return 0;
    /* floor(2h / n) = 2 (h / n) + floor(2 (h % n) / n), in int64 without overflow: a quotient
     * past INT64_MAX / 2 gives INT64_MAX, which max_dim refuses */
    int64_t hv = (int64_t)json_integer_value(h), nv = (int64_t)json_integer_value(n);
    int64_t q = hv / nv, r = hv % nv;
    *hd = q > INT64_MAX / 2 - 1 ? INT64_MAX : 2 * q + (r >= nv - r ? 1 : 0);
    return *hd >= 1;
}

/* The head of t: head_dim, else hidden_size / num_attention_heads, else def (0: unknown). */
static double head_of(const api_model_text *t, double def)
{
    const json_t *h = api_member(t->obj, "head_dim");
    if (json_is_integer(h) && json_integer_value(h) > 0)
        return (double)json_integer_value(h);
    const json_t *d = api_member(t->obj, "hidden_size"),
                 *n = api_member(t->obj, "num_attention_heads");
    if (json_is_integer(d) && json_is_integer(n) && json_integer_value(n) > 0)
        return (double)(json_integer_value(d) / json_integer_value(n));
    return def;
}

int api_model_rotary_conflicts(api_problem *pb, const api_model_text *t, api_rc_warnings *w)
{
    int m2 = strcmp(t->model_type, "minimax_m2") == 0, m1 = strcmp(t->model_type, "minimax") == 0;
    if (!m2 && !m1)
        return 0;
    if (m1 && w != NULL && api_member(t->obj, "layer_types") == NULL &&
        api_member(t->obj, "attn_type_list") != NULL)
        api_rc_warn(w,
                    "%s.attn_type_list: MiniMax's own code places its lightning (0) and softmax "
                    "(1) layers by it, as answered here; Hugging Face's MiniMaxConfig does not "
                    "read it and alternates them (full attention at layers 0, 2, 4, ...; "
                    "configuration_minimax.py): add layer_types for Hugging Face's layers",
                    t->src[0] ? t->src : "config");
    /* partial_rotary_factor: top-level, else in the scaling object */
    const char *sk = api_member(t->obj, "rope_scaling") ? "rope_scaling" : "rope_parameters";
    const json_t *sc = api_member(t->obj, sk), *pf = api_member(t->obj, "partial_rotary_factor");
    char fp[API_MC_PTR + 64];
    api_ptr(fp, sizeof fp, t->ptr, "partial_rotary_factor");
    if (pf == NULL && json_is_object(sc) && api_member(sc, "partial_rotary_factor") != NULL) {
        pf = api_member(sc, "partial_rotary_factor");
        char sp[API_MC_PTR + 32];
        api_ptr(sp, sizeof sp, t->ptr, sk);
        api_ptr(fp, sizeof fp, sp, "partial_rotary_factor");
    }
    const json_t *rdj = api_member(t->obj, "rotary_dim");
    double hd = head_of(t, m2 ? 128.0 : 0.0);
    if (hd <= 0.0 || (pf != NULL && !json_is_number(pf)) || (rdj != NULL && !json_is_integer(rdj)))
        return 0; /* the dims' and factors' own checks refuse these */
    double f = pf != NULL ? json_number_value(pf) : 1.0;
    if (m2) {
        double rd = rdj != NULL ? (double)json_integer_value(rdj) : (double)((int64_t)hd / 2);
        if (pf != NULL && (double)(int64_t)(hd * f) != rd) {
            api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                              "MiniMaxM2Config replaces partial_rotary_factor with rotary_dim / "
                              "head_dim (%g / %g; head_dim // 2 without rotary_dim: "
                              "configuration_minimax_m2.py), so Hugging Face rotates %g dims, not "
                              "%g: remove it, or send POST /rope with the rotary_dim you run",
                              rd, hd, rd, (double)(int64_t)(hd * f));
            return -1;
        }
        return 0;
    }
    if (w != NULL && rdj != NULL && (double)json_integer_value(rdj) != (double)(int64_t)(hd * f))
        api_rc_warn(w,
                    "%s.rotary_dim: MiniMax's own code and vLLM rotate rotary_dim = %lld dims, as "
                    "answered here; Hugging Face's MiniMaxConfig has no rotary_dim and its "
                    "MiniMaxRotaryEmbedding rotates head_dim x partial_rotary_factor = %g "
                    "(modeling_minimax.py; the -hf checkpoints set partial_rotary_factor): add "
                    "partial_rotary_factor to the config for Hugging Face's numbers",
                    t->src[0] ? t->src : "config", (long long)json_integer_value(rdj),
                    (double)(int64_t)(hd * f));
    return 0;
}

int64_t api_model_nope_head_dim(const api_model_text *t)
{
    const json_t *h = api_member(t->obj, "head_dim");
    int64_t hd = 0;
    if (strcmp(t->model_type, "kimi_linear") == 0) { /* MLA: q rows are qk_nope + qk_rope */
        const json_t *n = api_member(t->obj, "qk_nope_head_dim"),
                     *r = api_member(t->obj, "qk_rope_head_dim");
        int64_t nope = json_is_integer(n) ? (int64_t)json_integer_value(n) : 128,
                rope = json_is_integer(r) ? (int64_t)json_integer_value(r) : 64;
        if ((rope > 0 && nope > INT64_MAX - rope) || (rope < 0 && nope < INT64_MIN - rope))
            return INT64_MAX; /* no q row is that wide: a 422 at /q/0, without an overflow */
        return nope + rope;
    }
    if (api_model_head_dim_rule(t->obj, t->model_type, &hd)) /* Zamba2 */
        return hd;
    if (json_is_integer(h) && json_integer_value(h) > 0)
        return (int64_t)json_integer_value(h);
    const api_model_default *d = api_model_text_default(t, "head_dim");
    if (d != NULL)
        return (int64_t)d->value;
    const json_t *dm = api_member(t->obj, "hidden_size"),
                 *nh = api_member(t->obj, "num_attention_heads");
    if (json_is_integer(dm) && json_is_integer(nh) && json_integer_value(nh) > 0 &&
        json_integer_value(dm) > 0 && json_integer_value(dm) % json_integer_value(nh) == 0)
        return (int64_t)(json_integer_value(dm) / json_integer_value(nh));
    return 0;
}
