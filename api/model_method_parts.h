/*
 * api/model_method_parts.h -- parts of POST /model/method's kinds that follow from Hugging Face
 * class facts rather than from the file: the class defaults a sparse text config nested in a
 * wrapper relies on (LLaVA-1.5: LlamaConfig), Llama 4's query scale in its no-RoPE layers, and
 * the M-RoPE section rule. Pure but for allocation; thread-safe.
 */
#ifndef API_MODEL_METHOD_PARTS_H
#define API_MODEL_METHOD_PARTS_H

#include <jansson.h>
#include <stdint.h>

#include "api/model_config.h"
#include "api/model_layers.h"
#include "api/problem.h"
#include "api/rope_config.h"

/*
 * mrope_section of the scaling object sc (a member of cfg, which sits at pointer ptr): integers
 * >= 0 summing to rotary_dim / 2 (HF Qwen2-VL apply_multimodal_rotary_pos_emb splits cos / sin
 * by mrope_section * 2 over the rotary dims). Returns 0, or -1 with a 422 at its pointer.
 */
int api_mm_check_sections(api_problem *pb, const json_t *sc, const json_t *cfg, const char *ptr,
                          const json_t *sections, int64_t rd);

/* Writes into edited (a flat copy of text's object) the wrapped-only class defaults the nested
 * text config relies on (api_model_text_default: hidden_size, num_attention_heads,
 * num_hidden_layers, rope_theta), so that a kind's /rope request stands alone. Returns the keys
 * written, as bits for api_mm_name_defaults. */
unsigned api_mm_fill_defaults(json_t *edited, const api_model_text *text);

/* Rewrites in sources (a kind's {name: source text}) every word naming a key written by
 * api_mm_fill_defaults ("config.text_config.hidden_size") to "default of <class> (<key>)". */
void api_mm_name_defaults(json_t *sources, const api_model_text *text, unsigned filled);

/* Llama 4's query_scale object for a no-RoPE kind: {rule, attn_scale, floor_scale, route,
 * sources} with sources named from the config's root `where` ("config.text_config"). New
 * reference (NULL when out of memory). */
/*
 * No silent drops on POST /model/method either: the position keys of a RoPE kind's (edited) text
 * config `edited`, resolved into rc (rotary dim origin ro), accounted for as POST /rope does
 * (api_rope_account_keys): a key that would change a number and that posenc does not read is a 422
 * at its pointer under text_ptr ("" or "/text_config"). Returns 0, or -1 with the errors in pb.
 */
int api_mm_account_keys(api_problem *pb, const json_t *edited, const char *text_ptr,
                        const api_rope_config *rc, const api_rc_origin *ro);

json_t *api_mm_query_scale(const api_model_temp *tt, const api_model_text *text, const char *where);

/*
 * Adds the model's attention scale to a kind (api/model_scale.h): parameters.scale (and
 * parameters.attn_logit_softcapping when the model caps its scores), with sources.scale (and
 * sources.attn_logit_softcapping) named from the config's root `where`. head_dim is the kind's
 * parameters.head_dim, else the config's head_dim, d_kv, or hidden size / heads. A caveat
 * (model_type not in the table, a rule not modelled, no head_dim to read) goes to w. Returns 0,
 * or -1 with a 422 at a scale key of the wrong type or domain (or 503 when out of memory).
 */
int api_mm_attn_scale(api_problem *pb, json_t *kind, const api_model_text *text, const char *where,
                      api_rc_warnings *w);

/*
 * The sources of a kind read from an edited config name what the file holds: a per-layer-type
 * value (layer_type non-NULL) under <where>.rope_parameters.<layer type>; for gemma3_type
 * non-NULL (a Gemma 3 sliding layer) the base is <where>.rope_local_base_freq when the file has
 * it (has_local_base), else the config class's default of it. Edits sources in place.
 */
void api_mm_name_edited_sources(json_t *sources, const char *where, const char *layer_type,
                                const char *gemma3_type, int has_local_base);

/*
 * A "none" kind of POST /model/method: {method "none", why, mixer, route null, request null} and,
 * for a hybrid model type (api/model_hybrid.h), sources.layers naming the keys that placed its
 * layers (plan->layers_src, named from the config's root `where`). why is the kind's own rule for
 * hybrid types, else the text it always had. New reference (NULL when out of memory).
 */
json_t *api_mm_none_kind(const api_ml_kind *kd, const api_ml_plan *plan, const api_model_text *text,
                         const char *where);

/* OLMo 3's sliding layers (api_ml_kind.unscaled): cfg's flat scaling object (rope_scaling or
 * rope_parameters) becomes {"rope_type": "default"} keeping only its rope_theta and
 * partial_rotary_factor, so the kind's request answers without the scaling (transformers 4.57
 * modeling_olmo3.py rotary_embs). Edits cfg in place. */
void api_mm_unscale(json_t *cfg);

/* Falcon with alibi (modeling_falcon.py, FalconAttention): attention_logits = (q.k^T + alibi) x
 * inv_norm_factor, inv_norm_factor = 1/sqrt(head_dim): the bias is scaled with the scores, unlike
 * BLOOM (baddbmm: alibi + q.k^T / sqrt(head_dim)) and MPT (bias added after softmax_scale). An
 * alibi kind gains parameters.bias_scale (= its parameters.scale) and sources.bias_scale. */
void api_mm_falcon_bias_scale(json_t *k);

#endif
