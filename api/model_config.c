/*
 * api/model_config.c -- wrapper unwrapping and the per-model_type tables (see model_config.h).
 */
#include "api/model_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/req.h"
#include "api/rope_config.h"

static const json_t *member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return (v == NULL || json_is_null(v)) ? NULL : v;
}

void api_model_ptr_to_src(const char *ptr, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = ptr[0] == '/' ? ptr + 1 : ptr; *p && k + 1 < n; p++)
        out[k++] = *p == '/' ? '.' : *p;
    out[k < n ? k : n - 1] = '\0';
}

/* Copies the model_type string s into out (API_MC_TYPE bytes); a longer one is cut before the
 * character that does not fit whole, never inside a UTF-8 sequence (a cut one is not valid UTF-8:
 * jansson's json_string and json_pack refuse it, which made POST /model/method a 503). */
static void copy_model_type(char *out, const char *s)
{
    size_t n = strlen(s);
    if (n >= API_MC_TYPE) {
        n = API_MC_TYPE - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--; /* s[n], the first byte left out, continues a character: leave it all out */
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

void api_model_text_find(const json_t *config, const char *ptr, api_model_text *out)
{
    /* the keys under which real wrappers keep the text model, innermost first when nested */
    static const char *const NEST[] = {"thinker_config", "text_config", "llm_config",
                                       "language_config", NULL};
    memset(out, 0, sizeof *out);
    out->obj = config;
    snprintf(out->ptr, sizeof out->ptr, "%s", ptr);
    const json_t *mt = member(config, "model_type");
    if (mt != NULL && json_is_string(mt))
        copy_model_type(out->model_type, json_string_value(mt));
    for (int depth = 0; depth < 4; depth++) {
        const json_t *next = NULL;
        const char *key = NULL;
        for (const char *const *k = NEST; *k && next == NULL; k++) {
            const json_t *v = member(out->obj, *k);
            if (v != NULL && json_is_object(v)) {
                next = v;
                key = *k;
            }
        }
        if (next == NULL)
            break;
        if (!out->nested)
            snprintf(out->wrapper_type, sizeof out->wrapper_type, "%s", out->model_type);
        out->nested = 1;
        out->obj = next;
        char p[API_MC_PTR];
        api_ptr(p, sizeof p, out->ptr, key);
        snprintf(out->ptr, sizeof out->ptr, "%s", p);
        mt = member(next, "model_type");
        if (mt != NULL && json_is_string(mt))
            copy_model_type(out->model_type, json_string_value(mt));
    }
    /* LlavaConfig & co.: a text_config without model_type builds a LlamaConfig
     * (models/llava/configuration_llava.py: text_config.get("model_type", "llama")) */
    static const char *const LLAVA[] = {"llava", "llava_next", "vipllava", NULL};
    if (out->nested && member(out->obj, "model_type") == NULL &&
        api_str_in_list(LLAVA, out->wrapper_type))
        snprintf(out->model_type, sizeof out->model_type, "llama");
    api_model_ptr_to_src(out->ptr, out->src, sizeof out->src);
}

void api_model_src_rebase(char *src, size_t n, const char *prefix)
{
    if (strcmp(prefix, "config") == 0)
        return;
    char buf[512];
    size_t k = 0, plen = strlen(prefix);
    for (size_t i = 0; src[i] && k + 1 < sizeof buf;) {
        int word_start = i == 0 || src[i - 1] == ' ' || src[i - 1] == '(';
        if (word_start && strncmp(src + i, "config.", 7) == 0 && k + plen + 1 < sizeof buf) {
            memcpy(buf + k, prefix, plen);
            k += plen;
            buf[k++] = '.';
            i += 7;
        } else {
            buf[k++] = src[i++];
        }
    }
    buf[k] = '\0';
    snprintf(src, n, "%s", buf);
}

/* Attention code that rotates adjacent pairs (2j, 2j+1) whatever the config says. */
static const struct {
    const char *model_type;
    const char *why;
} FIXED_ADJACENT[] = {
    {"glm", "modeling_glm.py rotate_half: x[0::2], x[1::2]"},
    {"glm4", "modeling_glm4.py rotate_half: x[0::2], x[1::2]"},
    {"glm4v", "modeling_glm4v.py rotate_half_llm: x[0::2], x[1::2]"},
    {"glm4v_text", "modeling_glm4v.py rotate_half_llm: x[0::2], x[1::2]"},
    {"ernie4_5", "modeling_ernie4_5.py: GLM's rotate_half"},
    {"ernie4_5_moe", "modeling_ernie4_5_moe.py: Ernie 4.5's rotation"},
    /* ERNIE 4.5 VL (a text token, t = h = w, gets plain RoPE over the whole head) */
    {"ernie4_5_vl_moe", "modeling_ernie4_5_vl_moe.py rotate_half_text: x[0::2], x[1::2]"},
    {"ernie4_5_vl_moe_text", "modeling_ernie4_5_vl_moe.py rotate_half_text: x[0::2], x[1::2]"},
    {"llama4", "modeling_llama4.py: view_as_complex pairs"},
    {"llama4_text", "modeling_llama4.py: view_as_complex pairs"},
    {"deepseek_v32", "modeling_deepseek_v32.py: always interleaved"},
    {"longcat_flash", "modular_longcat_flash.py LongcatFlashMLA: apply_rotary_pos_emb_interleave"},
    {"cohere", "modeling_cohere.py rotate_half: x[..., ::2], x[..., 1::2] (repeat_interleave)"},
    {"cohere2", "modeling_cohere2.py rotate_half: x[..., ::2], x[..., 1::2] (repeat_interleave)"},
};

int api_model_layout_fixed(const char *model_type, const char **why)
{
    for (size_t i = 0; model_type != NULL && i < sizeof FIXED_ADJACENT / sizeof FIXED_ADJACENT[0];
         i++) {
        if (strcmp(FIXED_ADJACENT[i].model_type, model_type) == 0) {
            *why = FIXED_ADJACENT[i].why;
            return 1;
        }
    }
    return 0;
}

int api_model_layout_fixed_half(const char *model_type, const char **why)
{
    /* GLM-5: GlmMoeDsaConfig documents rope_interleave (default true), GlmMoeDsaAttention never
     * reads it: apply_rotary_pos_emb is the split-half rotate_half */
    if (model_type != NULL && strcmp(model_type, "glm_moe_dsa") == 0) {
        *why = "modeling_glm_moe_dsa.py apply_rotary_pos_emb: rotate_half, rope_interleave not "
               "read";
        return 1;
    }
    return 0;
}

/* Model types whose position code posenc's config reading would get wrong: a 422 naming why. */
static const struct {
    const char *model_type;
    const char *why;
} REFUSED[] = {
    {"chatglm", "remote code (modeling_chatglm.py): kv_channels / 2 dims in adjacent pairs at "
                "base 10000 x rope_ratio (send those to POST /rope)"},
    {"bamba", "BambaConfig fixes rope_theta 10000 and partial_rotary_factor 0.5 whatever the "
              "file says; only attn_layer_indices layers use RoPE"},
    /* modular_nanochat.py rotate_half: cat(x2, -x1), the half layout turned by -angle, which is
     * none of posenc's layouts (inv_freq and cos / sin are LlamaRotaryEmbedding's) */
    {"nanochat", "modular_nanochat.py rotates by minus the angle (rotate_half returns cat(x2, "
                 "-x1)), not a pair layout posenc has"},
    /* DeepseekV4Config.__post_init__ builds rope_parameters {main, compress}: answering the file
     * as one kind gave every layer rope_theta with the yarn scaling and its attention factor */
    {"deepseek_v4", "two RoPEs (configuration_deepseek_v4.py): sliding layers rope_theta "
                    "unscaled, compressed ones compress_rope_theta with the yarn and "
                    "attention_factor 1; send each to POST /rope"},
};

const char *api_model_rope_refused(const char *model_type)
{
    for (size_t i = 0; model_type != NULL && i < sizeof REFUSED / sizeof REFUSED[0]; i++)
        if (strcmp(REFUSED[i].model_type, model_type) == 0)
            return REFUSED[i].why;
    return NULL;
}

int api_model_is_gemma4(const char *model_type)
{
    static const char *const G4[] = {"gemma4", "gemma4_text", NULL};
    return api_str_in_list(G4, model_type);
}

int api_model_softmax_mscale(const char *model_type)
{
    /* DeepseekV2Attention / DeepseekV3Attention: scaling *= mscale(factor, mscale_all_dim)^2;
     * deepseek_v32 and glm4_moe_lite inherit DeepseekV3Attention; Mistral4Attention has it since
     * transformers#47435 */
    static const char *const DS[] = {
        "deepseek_v2", "deepseek_v3",   "deepseek_v32", "glm4_moe_lite",
        "mistral4",    "longcat_flash", "youtu",        "kimi_k2",
        NULL}; /* LongcatFlashMLA; YoutuAttention(DeepseekV3Attention);
                * Kimi K2: Moonshot's remote modeling_deepseek.py */
    return api_str_in_list(DS, model_type);
}

int api_model_query_scale_beta(const char *model_type)
{
    /* Ministral3Attention and Mistral4Attention: q x get_llama_4_attn_scale(position_ids,
     * rope_parameters["llama_4_scaling_beta"], rope_parameters["original_max_position_embeddings"])
     */
    static const char *const QS[] = {"ministral3", "mistral4", NULL};
    return api_str_in_list(QS, model_type);
}

json_t *api_model_class_rope_params(const json_t *cfg, const char *model_type, const char **hf)
{
    /* CwmConfig.__init__ (models/cwm/modular_cwm.py) when rope_parameters is None: llama3, factor
     * 16, low / high frequency factors 1 / 4 over 8192, rope_theta 1e6 */
    if (strcmp(model_type, "cwm") == 0) {
        *hf = "CwmConfig";
        return json_pack("{s:s, s:f, s:f, s:f, s:f, s:i}", "type", "llama3", "rope_theta",
                         1000000.0, "factor", 16.0, "low_freq_factor", 1.0, "high_freq_factor", 4.0,
                         "original_max_position_embeddings", 8192);
    }
    /* SolarOpenConfig.convert_rope_params_to_dict (models/solar_open/configuration_solar_open.py):
     * YaRN factor 2 over 65536 when neither rope_scaling nor rope_parameters is given */
    if (strcmp(model_type, "solar_open") == 0) {
        *hf = "SolarOpenConfig";
        return json_pack("{s:s, s:f, s:i}", "type", "yarn", "factor", 2.0,
                         "original_max_position_embeddings", 65536);
    }
    /* GptOssConfig.__post_init__ (models/gpt_oss/configuration_gpt_oss.py) when rope_parameters
     * is None: YaRN factor 32 over 4096, beta 32 / 1, truncate false (rope_theta: its
     * default_theta 150000, api/model_defaults.c) */
    if (strcmp(model_type, "gpt_oss") == 0) {
        *hf = "GptOssConfig";
        return json_pack("{s:s, s:f, s:i, s:f, s:f, s:b}", "type", "yarn", "factor", 32.0,
                         "original_max_position_embeddings", 4096, "beta_fast", 32.0, "beta_slow",
                         1.0, "truncate", 0);
    }
    /* Mistral4Config.__post_init__ (configuration_mistral4.py) when rope_parameters is None; its
     * max_position_embeddings entry is left out (nothing reads it) */
    if (strcmp(model_type, "mistral4") != 0)
        return NULL;
    double nope = 64.0, rope = 64.0; /* Mistral4Config's qk_nope_head_dim, qk_rope_head_dim */
    const json_t *v = member(cfg, "qk_nope_head_dim");
    if (v != NULL && json_is_number(v))
        nope = json_number_value(v);
    v = member(cfg, "qk_rope_head_dim");
    if (v != NULL && json_is_number(v))
        rope = json_number_value(v);
    if (!(nope >= 0.0 && rope > 0.0))
        return NULL;        /* the head dims' own checks refuse them */
    *hf = "Mistral4Config"; /* short: the sources hold the key name after it */
    return json_pack("{s:s, s:f, s:f, s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "type", "yarn",
                     "rope_theta", 10000.0, "factor", 128.0, "original_max_position_embeddings",
                     8192, "beta_fast", 32.0, "beta_slow", 1.0, "mscale_all_dim", 1.0, "mscale",
                     1.0, "llama_4_scaling_beta", 0.1, "partial_rotary_factor",
                     rope / (nope + rope));
}

int api_model_dynamic_alpha(const char *model_type)
{
    /* HunYuanDenseV1RotaryEmbedding / HunYuanMoEV1RotaryEmbedding: dynamic + alpha */
    static const char *const HY[] = {"hunyuan_v1_dense", "hunyuan_v1_moe", NULL};
    return api_str_in_list(HY, model_type);
}

int api_model_temp_tuning(api_problem *pb, const api_model_text *t, api_model_temp *out)
{
    static const char *const HF = "Llama4TextConfig (models/llama4/configuration_llama4.py)";
    memset(out, 0, sizeof *out);
    if (strcmp(t->model_type, "llama4") != 0 && strcmp(t->model_type, "llama4_text") != 0)
        return 0;
    size_t e0 = api_problem_count(pb);
    int on = 1;
    if (api_get_bool(pb, t->obj, t->ptr, "attn_temperature_tuning", &on) > 0)
        snprintf(out->on_src, sizeof out->on_src, "%s.attn_temperature_tuning", t->src);
    else
        snprintf(out->on_src, sizeof out->on_src, "default of %s (attn_temperature_tuning)", HF);
    out->floor_scale = 8192.0;
    out->attn_scale = 0.1;
    if (api_get_number(pb, t->obj, t->ptr, "floor_scale", 0.0, 1e300, API_NUM_MIN_EXCL,
                       &out->floor_scale) > 0)
        snprintf(out->floor_scale_src, sizeof out->floor_scale_src, "%s.floor_scale", t->src);
    else
        snprintf(out->floor_scale_src, sizeof out->floor_scale_src, "default of %s (floor_scale)",
                 HF);
    if (api_get_number(pb, t->obj, t->ptr, "attn_scale", -1e300, 1e300, 0, &out->attn_scale) > 0)
        snprintf(out->attn_scale_src, sizeof out->attn_scale_src, "%s.attn_scale", t->src);
    else
        snprintf(out->attn_scale_src, sizeof out->attn_scale_src, "default of %s (attn_scale)", HF);
    out->on = on;
    return api_problem_count(pb) != e0 ? -1 : 0;
}

/* Keys whose numbers this one-configuration answer does not carry (per-layer kinds, query
 * scaling): each is named in a warning, never dropped silently. */
static const struct {
    const char *key;
    const char *text;
} CAVEATS[] = {
    {"rope_local_base_freq", "sliding-window layers use this base without the scaling; this answer "
                             "is for the full-attention layers (per layer: POST /model/method)"},
    {"no_rope_layers", "the layers it marks 0 use no RoPE (per layer: POST /model/method)"},
    {"layer_types", "layers differ by attention type; this answer holds for the RoPE layers of one "
                    "kind (per layer: POST /model/method)"},
    {"attn_temperature_tuning", "Llama 4 scales the queries of its no-RoPE layers by position "
                                "(not part of this answer)"},
    {"llama_4_scaling_beta", "Ministral 3 scales queries by 1 + beta ln(1 + floor(pos / "
                             "original_max_position_embeddings)) (not applied here)"},
};

size_t api_model_caveat_count(void)
{
    return sizeof CAVEATS / sizeof CAVEATS[0];
}

const char *api_model_caveat(size_t i, const char **text)
{
    if (i >= api_model_caveat_count())
        return NULL;
    *text = CAVEATS[i].text;
    return CAVEATS[i].key;
}

/* ---- the pasted-config steps of api_rope_config_resolve that follow from these tables ---- */

/*
 * `alpha` in a pasted scaling object (passed over by the parser). HunYuan's code reads it with
 * type dynamic: base' = base x alpha^(d/(d-2)) with attention factor 1 and no use of factor
 * (HunYuanDenseV1RotaryEmbedding), which is posenc's type ntk. Anywhere else it would be dropped:
 * a 422 at its pointer. Returns 0, or -1 with the error in pb.
 */
int api_model_rope_alpha(api_problem *pb, const json_t *sc_obj, const char *sc_src,
                         api_rope_config *out, api_rc_warnings *w)
{
    api_rope_scaling *sc = &out->scaling;
    const json_t *a = member(sc_obj, "alpha");
    if (a == NULL)
        return 0;
    char fp[API_RC_PTR];
    api_ptr(fp, sizeof fp, sc->ptr, "alpha");
    if (sc->type == PE_ROPE_NTK) { /* posenc's own type: alpha is its field */
        if (api_number_value(pb, a, fp, 0.0, HUGE_VAL, API_NUM_MIN_EXCL, &sc->num[API_RS_ALPHA]) <
            0)
            return -1;
        api_rc_origin_set(&sc->origin[API_RS_ALPHA], fp, "%s.alpha", sc_src);
        return 0;
    }
    if (sc->type != PE_ROPE_DYNAMIC || !api_model_dynamic_alpha(out->model_type)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "alpha is read only by HunYuan's dynamic NTK (model_type "
                          "hunyuan_v1_dense / hunyuan_v1_moe with type dynamic); for model_type "
                          "\"%.40s\" and type %s it would change nothing posenc can vouch for "
                          "(send scaling {\"type\": \"ntk\", \"alpha\": ...} for the static "
                          "NTK-aware base)",
                          out->model_type, api_rope_type_name(sc->type));
        return -1;
    }
    double alpha = 0.0;
    if (api_number_value(pb, a, fp, 0.0, HUGE_VAL, API_NUM_MIN_EXCL, &alpha) < 0)
        return -1;
    for (int f = 0; f < API_RS__COUNT; f++) {
        if (sc->origin[f].set)
            api_rc_warn(w, "%s.%s is not read by HunYuan's alpha NTK and was ignored", sc_src,
                        api_rs_field_name((api_rs_field)f));
        memset(&sc->origin[f], 0, sizeof sc->origin[f]);
        sc->num[f] = 0.0;
    }
    api_rc_warn(w,
                "HunYuan alpha NTK holds while the sequence fits max_position_embeddings: past it "
                "Hugging Face's dynamic_rope_update recomputes plain dynamic NTK without alpha");
    sc->type = PE_ROPE_NTK;
    sc->num[API_RS_ALPHA] = alpha;
    api_rc_origin_set(&sc->origin[API_RS_ALPHA], fp, "%s.alpha (HunYuan dynamic alpha)", sc_src);
    return 0;
}

/* Warns about each key of the text config that this one-kind answer does not carry (see
 * api_model_caveat), and about a class-default local base the file omits (Gemma 3). */
void api_model_rope_caveats(const json_t *cfg, const api_model_text *text, int per_layer,
                            api_rc_warnings *w)
{
    const char *what = NULL, *key;
    for (size_t i = 0; (key = api_model_caveat(i, &what)) != NULL; i++) {
        if (per_layer && strstr(what, "POST /model/method") != NULL)
            continue; /* a layer-structure key: the kind answers it */
        const json_t *v = member(cfg, key);
        const api_model_default *d = api_model_default_find(text->model_type, key);
        if (v != NULL && !json_is_false(v) && !(json_is_array(v) && json_array_size(v) == 0))
            api_rc_warn(w, "%s.%s: %s", text->src, key, what);
        else if (v == NULL && d != NULL)
            api_rc_warn(w, "%s.%s (absent; %.17g by default of %s): %s", text->src, key, d->value,
                        d->hf, what);
    }
    /* OLMo 3: the references disagree. The OLMo 3 paper, transformers 4.57's modeling_olmo3.py
     * (one rotary embedding per layer type), today's configuration_olmo3.py (a flat rope_scaling
     * goes under rope_parameters.full_attention only, sliding_attention stays rope_type default)
     * and vLLM's Olmo3 leave the sliding-window layers unscaled, which posenc answers
     * (api/model_layers.c); the transformers 5 releases whose modeling_olmo3.py built one rotary
     * embedding for every layer scaled them all (transformers#45945 closed unmerged;
     * vllm-project/vllm#43419 disputed). The warning names both and how to get the second: its
     * numbers for any layer are the full-attention kind's. */
    const json_t *sc = member(cfg, "rope_scaling");
    if (sc == NULL)
        sc = member(cfg, "rope_parameters");
    const json_t *ty = sc != NULL ? member(sc, "rope_type") : NULL;
    if (sc != NULL && ty == NULL)
        ty = member(sc, "type");
    if (strcmp(text->model_type, "olmo3") == 0 && json_is_string(ty) &&
        strcmp(json_string_value(ty), "default") != 0)
        api_rc_warn(
            w, "OLMo 3: the scaling applies to the full-attention layers only and the "
               "sliding-window layers are unscaled, as the OLMo 3 paper, vLLM's Olmo3, "
               "transformers 4.57 and today's Olmo3Config (rope_scaling under full_attention "
               "only) compute them; transformers 5 releases with one rotary embedding for all "
               "layers applied it to every layer (transformers#45945, vllm-project/vllm#43419): "
               "for their numbers on any layer, ask for layer_type \"full_attention\"");
}

/* Rewrites every origin's "config." to the wrapper's nested path (prefix "config.text_config"). */
void api_model_rope_rebase(api_rope_config *out, const char *prefix)
{
    api_rc_origin *all[] = {&out->head_dim_o,    &out->rotary_dim_o, &out->partial_o,
                            &out->base_o,        &out->layout_o,     &out->scaling.type_origin,
                            &out->qscale_beta_o, &out->qscale_l0_o};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        api_model_src_rebase(all[i]->src, sizeof all[i]->src, prefix);
    for (int f = 0; f < API_RS__COUNT; f++)
        api_model_src_rebase(out->scaling.origin[f].src, sizeof out->scaling.origin[f].src, prefix);
}

/* Model types whose Hugging Face code rotates q and k (modeling_<type>.py applies
 * apply_rotary_pos_emb or a variant of it). A config of another type is described as RoPE only when
 * it carries rotary keys itself (ROPE_KEYS), with a warning; without them it is a 422: the route
 * never guesses a method (a ViT, DeBERTa or unknown model is not RoPE by default). */
static const char *const ROPE_MODELS[] = {"llama",
                                          "llama4",
                                          "llama4_text",
                                          "mistral",
                                          "mistral3",
                                          "ministral",
                                          "ministral3",
                                          "mistral4",
                                          "mixtral",
                                          "qwen2",
                                          "qwen2_moe",
                                          "qwen2_vl",
                                          "qwen2_vl_text",
                                          "qwen2_5_vl",
                                          "qwen2_5_vl_text",
                                          "qwen3",
                                          "qwen3_moe",
                                          "qwen3_next",
                                          "qwen3_5",
                                          "qwen3_5_text",
                                          "qwen3_5_moe",
                                          "qwen3_5_moe_text",
                                          "qwen3_vl",
                                          "qwen3_vl_text",
                                          "qwen3_vl_moe",
                                          "qwen3_vl_moe_text",
                                          "qwen3_omni_moe",
                                          "gemma",
                                          "gemma2",
                                          "gemma3",
                                          "gemma3_text",
                                          "gemma3n",
                                          "gemma3n_text",
                                          "gemma4",
                                          "gemma4_text",
                                          "modernbert",
                                          "recurrent_gemma",
                                          "phi",
                                          "phi3",
                                          "phimoe",
                                          "phi4_multimodal",
                                          "gpt_neox",
                                          "gpt_neox_japanese",
                                          "gptj",
                                          "codegen",
                                          "falcon",
                                          "deepseek_v2",
                                          "deepseek_v3",
                                          "kimi_k2",     /* DeepSeek-V3's remote code (Kimi K2) */
                                          "glm_moe_dsa", /* GLM-5 (modeling_glm_moe_dsa.py) */
                                          "deepseek_v32",
                                          "glm",
                                          "glm4",
                                          "glm4v",
                                          "glm4v_text",
                                          "glm4_moe",
                                          "glm4v_moe",
                                          "glm4v_moe_text",
                                          "glm4_moe_lite",
                                          "ernie4_5",
                                          "ernie4_5_moe",
                                          "hunyuan_v1_dense",
                                          "hunyuan_v1_moe",
                                          "olmo",
                                          "olmo2",
                                          "olmo3",
                                          "olmoe",
                                          "smollm3",
                                          "exaone4",
                                          "gpt_oss",
                                          "stablelm",
                                          "starcoder2",
                                          "internlm2",
                                          "internlm3",
                                          "cohere",
                                          "cohere2",
                                          "granite",
                                          "granitemoe",
                                          "persimmon",
                                          "nemotron",
                                          "minicpm",
                                          "minicpm3",
                                          "dbrx",
                                          "arcee",
                                          "apertus",
                                          "seed_oss",
                                          "bitnet",
                                          "helium",
                                          "dots1",
                                          "mimo",
                                          "llava",
                                          "mllama",
                                          "idefics3",
                                          "smolvlm",
                                          "aria_text",
                                          "jetmoe",
                                          "qwen",
                                          "minimax_m2",
                                          "minimax",
                                          "longcat_flash",
                                          "bailing_moe_v2",
                                          "afmoe",
                                          "exaone_moe",
                                          "solar_open",
                                          "youtu",
                                          "granitemoeshared",
                                          "cwm",
                                          "flex_olmo",
                                          NULL};
int api_model_is_rope(const char *model_type)
{
    return api_str_in_list(ROPE_MODELS, model_type) || api_model_is_rope_2025(model_type);
}
