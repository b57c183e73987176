/*
 * api/model_config.h -- what a pasted config.json means beyond its own keys: where a multimodal
 * wrapper keeps the text model's fields, and the per-model_type facts that live in Hugging Face's
 * code rather than in the file (config-class defaults, adjacent-pair rotation, the DeepSeek
 * softmax scale, HunYuan's alpha). One table per fact; every row cites the HF file it follows
 * (transformers v5, src/transformers/models/<name>/).
 *
 * Pure: borrowed jansson values in, caller-owned structs out; no globals but const tables;
 * thread-safe.
 */
#ifndef API_MODEL_CONFIG_H
#define API_MODEL_CONFIG_H

#include <jansson.h>
#include <stddef.h>

#include "api/problem.h"
#include "api/rope_config.h"

#define API_MC_PTR 160 /* bytes of a JSON pointer (as API_RC_PTR) */
#define API_MC_TYPE 48 /* bytes of a model_type */

/*
 * The object that holds the text model's fields. Wrappers nest it under `text_config` (Gemma 3/4,
 * Llama 4, Qwen2.5-VL/Qwen3-VL, Mistral 3, GLM-4V), `llm_config` (InternVL), `language_config`
 * (DeepSeek-VL2) or `thinker_config.text_config` (Qwen2.5-Omni, Qwen3-Omni); the nesting is
 * followed to the innermost such object (HF: a composite config builds its text sub-config from
 * that dict, and its top-level keys do not reach the text model).
 */
typedef struct {
    const json_t *obj;              /* the text model's object (borrowed); the input when flat */
    char ptr[API_MC_PTR];           /* its JSON pointer ("/config", "/config/text_config", ...) */
    char src[API_MC_PTR];           /* the same as a dotted path ("config.text_config") */
    char model_type[API_MC_TYPE];   /* the text object's model_type, else the nearest wrapper's
                                     * ("llama" under a LLaVA wrapper, as LlavaConfig builds) */
    char wrapper_type[API_MC_TYPE]; /* the outermost wrapper's model_type ("" when flat) */
    int nested;                     /* 1 when obj is not the input */
} api_model_text;

/* Finds the text model's object in config (an object at pointer ptr). Never fails: a config
 * without a nesting key is its own text model. */
void api_model_text_find(const json_t *config, const char *ptr, api_model_text *out);

/* Rewrites every "config." that starts a word of src (a provenance text such as
 * "config.hidden_size / config.num_attention_heads") to "<prefix>." in place; src has n bytes.
 * prefix "config" leaves src unchanged. */
void api_model_src_rebase(char *src, size_t n, const char *prefix);

/* A dotted source path from a JSON pointer: "/config/text_config/rope_scaling" ->
 * "config.text_config.rope_scaling". */
void api_model_ptr_to_src(const char *ptr, char *out, size_t n);

/* A value the model's HF config class sets when the file omits the key. */
typedef struct {
    const char *model_type;
    const char *key;
    double value;
    const char *hf; /* the class and file it comes from */
} api_model_default;

/* The default of key for model_type, or NULL when the class has none we model. */
const api_model_default *api_model_default_find(const char *model_type, const char *key);

/* api_model_default_find for the text model t, plus the defaults HF's config class gives a
 * sparse text config nested in a wrapper (LLaVA-1.5: LlamaConfig's hidden_size 4096,
 * num_attention_heads 32, num_hidden_layers 32, rope_theta 10000, max_position_embeddings 2048),
 * only when t is nested. NULL when none. */
const api_model_default *api_model_text_default(const api_model_text *t, const char *key);

/*
 * Pair layout decided by the model's code. Returns 1 (adjacent pairs, posenc "interleaved") for
 * model types whose HF attention always rotates adjacent pairs, whatever the config says (glm,
 * glm4, glm4v, ernie4_5, ernie4_5_moe, deepseek_v32), and sets *why to the HF file that shows it;
 * 0 otherwise.
 */
int api_model_layout_fixed(const char *model_type, const char **why);

/*
 * 1 for model types whose HF attention always rotates the half layout although their config
 * class documents a rope_interleave (glm_moe_dsa: modeling_glm_moe_dsa.py apply_rotary_pos_emb is
 * rotate_half and reads no rope_interleave), and sets *why to the HF file that shows it; 0
 * otherwise.
 */
int api_model_layout_fixed_half(const char *model_type, const char **why);

/* 1 for Gemma 4's text model types (gemma4, gemma4_text): a proportional full_attention entry
 * of its per-layer-type rope_parameters spans global_head_dim (modeling_gemma4.py,
 * Gemma4TextRotaryEmbedding: head_dim_key "global_head_dim"). */
int api_model_is_gemma4(const char *model_type);

/* The reason posenc refuses to read RoPE from a config of this model_type (its HF or remote code
 * rotates differently from what the file's keys say: chatglm, bamba, nanochat), or NULL. */
const char *api_model_rope_refused(const char *model_type);

/* 1 when the model type's attention multiplies the softmax scale by mscale(factor,
 * mscale_all_dim)^2 (the DeepSeek family: deepseek_v2, deepseek_v3, deepseek_v32,
 * glm4_moe_lite, youtu; longcat_flash; mistral4 since transformers#47435), 0 otherwise. */
int api_model_softmax_mscale(const char *model_type);

/* 1 when the model type's attention multiplies q (after RoPE) by 1 + beta ln(1 + floor(pos / L0))
 * with beta = the scaling object's llama_4_scaling_beta and L0 its
 * original_max_position_embeddings (ministral3, mistral4: get_llama_4_attn_scale), 0 otherwise. */
int api_model_query_scale_beta(const char *model_type);

/*
 * The rope_parameters a config class puts in place of an absent (or null) rope_scaling /
 * rope_parameters, as a new JSON object (caller decrefs), with *hf naming the class; NULL when the
 * class has none (most: plain RoPE) or cfg's values make none. GptOssConfig: YaRN factor 32 over
 * 4096, beta 32 / 1, truncate false. SolarOpenConfig: YaRN factor 2 over 65536. Mistral4Config:
 * YaRN factor 128,
 * rope_theta 10000, original_max_position_embeddings 8192, beta_fast 32, beta_slow 1, mscale and
 * mscale_all_dim 1, llama_4_scaling_beta 0.1, partial_rotary_factor qk_rope_head_dim /
 * (qk_nope_head_dim + qk_rope_head_dim) (defaults 64, 64).
 */
json_t *api_model_class_rope_params(const json_t *cfg, const char *model_type, const char **hf);

/* 1 when the model type reads a `dynamic` rope_scaling's `alpha` as HunYuan does (base' = base x
 * alpha^(d/(d-2)), attention factor 1: modeling_hunyuan_v1_dense.py / _moe.py), 0 otherwise. */
int api_model_dynamic_alpha(const char *model_type);

/*
 * Keys of a text config that make a single RoPE answer partial (another kind of layer, or a
 * query scale by position): api_model_caveat(i, &text) gives key i (NULL past the end) and what
 * it means; callers warn about each one present.
 */
size_t api_model_caveat_count(void);
const char *api_model_caveat(size_t i, const char **text);

/*
 * Llama 4's attention temperature tuning (Llama4TextAttention: queries of the no-RoPE layers times
 * log1p(floor((pos + 1) / floor_scale)) * attn_scale + 1, core/rope_qscale.h). Read for model
 * types llama4 / llama4_text from the text config, with Llama4TextConfig's defaults
 * (attn_temperature_tuning true, floor_scale 8192, attn_scale 0.1) for keys the file omits.
 */
typedef struct {
    int on;                         /* 1: the model applies it (llama4 and tuning true) */
    double attn_scale, floor_scale; /* floor_scale > 0 */
    char on_src[API_MC_PTR + 48], attn_scale_src[API_MC_PTR + 48], floor_scale_src[API_MC_PTR + 48];
} api_model_temp;

/* Fills out for the text model t; 422 at the pointer of a key of the wrong type or domain.
 * Returns 0 (out->on 0 for other model types) or -1. */
int api_model_temp_tuning(api_problem *pb, const api_model_text *t, api_model_temp *out);

/* ---- steps of api_rope_config_resolve (api/rope_config.c) that follow from these tables ---- */

/*
 * `alpha` of the pasted scaling object sc_obj (sources prefixed sc_src, "config.rope_scaling"),
 * after out->scaling was parsed: for HunYuan's model types with type dynamic it becomes type ntk
 * (base x alpha^(d/(d-2)), factor and the other fields dropped with a warning each); type ntk
 * reads it as its own field; anything else is a 422 at its pointer. Returns 0 or -1.
 */
int api_model_rope_alpha(api_problem *pb, const json_t *sc_obj, const char *sc_src,
                         api_rope_config *out, api_rc_warnings *w);

/* Warns about each caveat key (api_model_caveat) present in the text config cfg, and about a
 * class default of one the file omits (Gemma 3's rope_local_base_freq). per_layer: the answer is
 * for one kind of layer (api/model_layers.h), so the layer-structure keys need no warning. */
void api_model_rope_caveats(const json_t *cfg, const api_model_text *text, int per_layer,
                            api_rc_warnings *w);

/*
 * Model types whose Hugging Face attention rotates the whole head (api/model_full_head.c: llama,
 * mistral, qwen2, qwen3, gemma2, olmo2, granite, falcon_h1, gpt_oss, ...): their rotary
 * embedding's compute_default_rope_parameters reads no partial_rotary_factor (transformers v5,
 * LlamaRotaryEmbedding's) and apply_rotary_pos_emb rotates all of head_dim. The HF modeling file
 * for such a type, NULL for any other (also NULL).
 */
const char *api_model_full_head(const char *model_type);

/*
 * A rotary fraction of the file (partial_rotary_factor, rotary_pct or rotary_dim; out's
 * partial_o / rotary_dim_o) that would rotate fewer than head_dim dims, for a full-head model
 * type: with the default rope type (or none) it is dropped, so the whole head rotates as HF does,
 * with a warning naming the key and the HF file (api/rope_keys.c lists it in resolved.ignored);
 * partial_rotary_factor with a scaling type is a 422 at its pointer (HF's scaling function builds
 * head_dim x factor frequencies that the attention cannot apply: HF has no numbers). Runs after
 * the scaling object is parsed. Returns 0, or -1 with the error in pb.
 */
int api_model_full_head_rotary(api_problem *pb, api_rope_config *out, api_rc_warnings *w);

/*
 * The rotary-fraction rules of two model types, run once head_dim and the fraction are read (the
 * fraction in out->partial_o): Mistral 4 counts partial_rotary_factor on qk_nope_head_dim +
 * qk_rope_head_dim (configuration_mistral4.py), turned here into out's rotary_dim, a 422 when it
 * is not the rotated qk_rope_head_dim slice; RecurrentGemma chunks the head in two
 * (modeling_recurrent_gemma.py), a 422 for a factor that does not give two halves. cfg is the
 * text model's object at JSON pointer ptr. Errors in pb.
 */
void api_model_fraction_rules(api_problem *pb, const json_t *cfg, const char *ptr,
                              api_rope_config *out);

/* Rewrites every source of out from "config." to prefix (the wrapper's nested path). */
void api_model_rope_rebase(api_rope_config *out, const char *prefix);

/* 1 when model_type's Hugging Face code rotates q and k (a table in model_config.c); 0 for any
 * other (also "" and NULL). POST /model/method answers RoPE for another type only when its config
 * has rotary keys of its own, with a warning. */
int api_model_is_rope(const char *model_type);

/* The RoPE model types added in issue 15's second pass (api/model_types.c: Phi-4-multimodal's
 * remote-code phi4mm, ERNIE 4.5 VL, Qwen2.5-Omni / Qwen3-Omni thinker text models, Step3,
 * MiniCPM-V / -o, dots.ocr): 1 for one of them, 0 otherwise (also NULL). Part of
 * api_model_is_rope. */
int api_model_is_rope_2025(const char *model_type);

/* 1 for ERNIE 4.5 VL's model types (ernie4_5_vl_moe, ernie4_5_vl_moe_text), whose 3-D RoPE
 * posenc answers for text positions only (api/rope_multiaxis.c), 0 otherwise. */
int api_model_ernie_vl(const char *model_type);

/* The model types of POST /model/method's learned kinds (from position 0; from padding_idx + 1;
 * with an offset of 2) and T5-bucket kinds, NULL-terminated (api/model_types.c). */
extern const char *const API_MODEL_LEARNED[];
extern const char *const API_MODEL_LEARNED_PAD[];
extern const char *const API_MODEL_LEARNED_2[];
extern const char *const API_MODEL_T5[];

/* What a config of model_type uses instead of RoPE (learned absolute positions, T5 buckets,
 * ALiBi: bloom, mpt, falcon with `alibi` true), as a phrase naming its route; NULL for a RoPE or
 * unknown type. POST /rope refuses such a config (there is nothing to rotate). */
const char *api_model_not_rope(const char *model_type, const json_t *cfg);

/* 1 when cfg (the text model's object) has a rotary key of its own (rope_theta, rope_scaling,
 * rope_parameters, rotary_dim, rotary_pct, rotary_emb_base, qk_rope_head_dim,
 * partial_rotary_factor; null counts as absent), 0 otherwise. */
int api_model_has_rope_keys(const json_t *cfg);

/* POST /rope's check of a pasted config's text model (object cfg at pointer ptr): a 422 at its
 * model_type when the model uses another method (api_model_not_rope), or when model_type is one
 * posenc does not know (not RoPE, not hybrid) and cfg has no rotary key; a 422 at its rope_theta
 * when it has none and the type's config class defaults it differently in different transformers
 * releases (qwen3_vl / qwen3_vl_text, persimmon). A config without model_type passes (the caller
 * describes its own RoPE). Returns 0 or -1. */
int api_model_rope_method_check(api_problem *pb, const json_t *cfg, const char *ptr,
                                const char *model_type);

#endif
