/*
 * api/model_layers.h -- which RoPE kind each layer of a pasted config uses: the one rule behind
 * POST /model/method's RoPE kinds and /rope's per-layer answers (`layer`, `layer_type`,
 * `layer_kinds`).
 *
 * A kind is one distinct RoPE result (inv_freq, attention factor, layout) or "no RoPE"; layers
 * that differ only in attention window share a kind. Sources (transformers v5):
 *   - Gemma 3 (gemma3_text): layer l is sliding unless (l + 1) % sliding_window_pattern == 0
 *     (default 6), or as layer_types says; sliding layers use rope_local_base_freq (class
 *     default 10000) without rope_scaling (modeling_gemma3.py, rotary_emb_local);
 *   - v5 per-layer-type rope_parameters ({"full_attention": {...}, "sliding_attention": {...}}):
 *     each layer reads the entry of its layer_types value (modeling_rope_utils.py,
 *     Gemma 3/4, OLMo 3); entries equal as JSON are one kind;
 *   - OLMo 3 (olmo3) with one flat scaling object (rope_scaling, or rope_parameters with a
 *     rope_type other than default): its sliding layers use the same base without the scaling
 *     (transformers 4.57.1 modeling_olmo3.py: rotary_embs = {"sliding_attention":
 *     Olmo3RotaryEmbedding(config, rope_type="default"), "full_attention": ...}; main reads a
 *     rotary embedding per layer type the same way; vLLM olmo2.py: "Rope scaling is only applied
 *     on full attention layers");
 *   - no RoPE: no_rope_layers[l] == 0 (Llama 4, SmolLM3; when absent Llama 4 / SmolLM3 skip
 *     every no_rope_layer_interval-th layer, default 4), EXAONE 4's full-attention layers when
 *     sliding_window is set (modeling_exaone4.py);
 *   - hybrid and attention-free model types (jamba, nemotron_h, granitemoehybrid, zamba2,
 *     falcon_h1, lfm2, kimi_linear, nemotron-nas, mamba, rwkv, ...): api/model_hybrid.h places
 *     their layers.
 *   - RecurrentGemma's recurrent blocks (block_types, default recurrent, recurrent, attention:
 *     modeling_recurrent_gemma.py RecurrentGemmaRecurrentBlock has no attention).
 * Pure; thread-safe.
 */
#ifndef API_MODEL_LAYERS_H
#define API_MODEL_LAYERS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "api/model_config.h"
#include "api/problem.h"

#define API_ML_MAX_LAYERS 4096
#define API_ML_MAX_KINDS 8
#define API_ML_FULL 1u    /* layer type full_attention */
#define API_ML_SLIDING 2u /* layer type sliding_attention */

/* One kind of layer. */
typedef struct api_ml_kind_s {
    int rope;            /* 1: a RoPE kind, 0: no positional encoding in these layers */
    unsigned types;      /* API_ML_FULL | API_ML_SLIDING: the attention types of its layers
                          * (0 when the config names no layer types) */
    int local_base;      /* Gemma 3 sliding layers: rope_local_base_freq, no scaling */
    int unscaled;        /* OLMo 3 sliding layers: the same base, no scaling */
    char params_key[40]; /* the rope_parameters entry these layers read ("" when flat) */
    const char *why;     /* static text: the rule that gives this kind (for "none") */
    const char *mixer;   /* static, "none" kinds: what the layers are ("attention" without
                          * positions, "mamba", "conv", "linear_attention", "mlp", "moe", ...:
                          * api/model_hybrid.h); kinds of different mixers stay apart */
    size_t n_layers;     /* layers of this kind */
    int64_t first_layer; /* the lowest of them */
} api_ml_kind;

/* Layers and their kinds. kind_of[l] is the kind of layer l (0 .. n_kinds - 1). */
typedef struct {
    int64_t n_layers; /* 0 when the config does not say (one kind, nothing per layer) */
    size_t n_kinds;
    api_ml_kind kind[API_ML_MAX_KINDS];
    uint8_t *kind_of;     /* [n_layers] (owned; NULL when n_layers is 0) */
    api_model_temp temp;  /* Llama 4's query temperature of its no-RoPE kinds (temp.on) */
    char layers_src[512]; /* hybrid types: the keys that placed the layers
                           * (api/model_hybrid.h), "" otherwise */
} api_ml_plan;

/*
 * Plans the layers of the text config text->obj (at pointer text->ptr): n_layers from
 * num_hidden_layers | n_layer | num_layers | n_layers (1 .. API_ML_MAX_LAYERS; a sparse text config
 * nested in a LLaVA wrapper: LlamaConfig's 32; 0 when none), kinds in the order their first layer
 * appears. Errors: 422 at the pointer of a key of the wrong type (layer_types an array of
 * strings and no_rope_layers of 0 / 1, each with one entry per layer when the file gives the
 * layer count; sliding_window an integer or null; use_sliding_window a boolean), 503 out of
 * memory. Returns 0, or -1 with pb filled; free the plan with api_ml_plan_free either
 * way.
 */
int api_ml_plan_layers(api_problem *pb, const api_model_text *text, api_ml_plan *out);

/*
 * Checks text->obj's per-layer keys alone, as api_ml_plan_layers does: layer_types an array of
 * known layer type strings (HF configuration_utils.py layer_type_validation), no_rope_layers an
 * array of 0 / 1 (Llama 4, SmolLM3 index it by layer; [] is the default pattern), each with one
 * entry per layer when the file gives the layer count; MiniMax's attn_type_list (when layer_types
 * is absent) an array of 0 / 1, one per layer. For answers that do not plan the layers. Errors:
 * 422 at the key (not an array, wrong length) or at the entry. Returns 0 or -1 with pb filled.
 */
int api_ml_check_layer_lists(api_problem *pb, const api_model_text *text);

/* Frees the plan's array. */
void api_ml_plan_free(api_ml_plan *p);

/* The RoPE kind that layers of type t ("full_attention", "sliding_attention") use, or -1. */
int api_ml_find_type(const api_ml_plan *p, const char *t);

#endif
