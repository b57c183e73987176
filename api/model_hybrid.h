/*
 * api/model_hybrid.h -- hybrid and attention-free model types (issue 15): which layers of a
 * pasted config are attention layers, which of those rotate (RoPE) and which take no positions
 * at all (NoPE attention, Mamba / conv / linear-attention / MLP blocks), by model_type, as each
 * type's Hugging Face configuration_<type>.py places them and its modeling_<type>.py applies
 * positions (transformers v5, src/transformers/models/<type>/; one table row per type in
 * api/model_hybrid.c, each citing its files):
 *
 *   jamba             "attention" where l % attn_layer_period == attn_layer_offset (8, 4), else
 *                     "mamba" (JambaConfig.layers_block_type); JambaAttention: no RoPE.
 *   nemotron_h        layers_block_type / layer_types list, else hybrid_override_pattern (M
 *                     mamba, * attention, - MLP, E MoE: one character per layer), else the
 *                     class's 4-layer default; the layer count is the list's length
 *                     (NemotronHConfig); NemotronHAttention: no RoPE.
 *   granitemoehybrid  layer_types "mamba" / "attention" (default all "mamba"); attention rotates
 *                     only when position_embedding_type is "rope" (GraniteMoeHybridModel builds
 *                     no rotary embedding otherwise).
 *   bamba             attn_layer_indices are attention with RoPE, the rest "mamba".
 *   zamba2            layers_block_type "mamba" / "hybrid" (the shared attention block; default
 *                     Zamba2Config's 54-layer list); hybrid layers rotate when use_mem_rope.
 *   falcon_h1         every layer: RoPE attention beside a Mamba-2 mixer (FalconH1DecoderLayer).
 *   lfm2, lfm2_moe    layer_types "conv" / "full_attention", else full_attn_idxs (default every
 *                     layer attention; Lfm2Config); attention layers rotate.
 *   kimi_linear       layer_types, else linear_attn_config.full_attn_layers / kda_layers (1-based),
 *                     else full attention where l > 0 and l % 4 == 0 (KimiLinearConfig); its MLA
 *                     full-attention layers use no RoPE (KimiLinearAttention, "with NoPE").
 *   nemotron-nas      block_configs[l].attention: no_op (no attention: mixer "mlp", or "none"
 *                     when the ffn is a no-op too), replace_with_linear (mixer "linear"), else
 *                     Llama's RoPE attention (Hub remote code modeling_decilm.py; rule in
 *                     api/model_hybrid_nas.c).
 *   mamba, mamba2, falcon_mamba, rwkv, xlstm
 *                     no attention in any layer (method none everywhere, never a 422).
 *
 * Pure; const tables only; thread-safe.
 */
#ifndef API_MODEL_HYBRID_H
#define API_MODEL_HYBRID_H

#include <jansson.h>
#include <stdint.h>

#include "api/model_config.h"
#include "api/problem.h"
#include "api/rope_config.h"

#define API_HY_SRC 512 /* bytes of a layers_src text */

/* What one layer is. */
typedef struct {
    const char *mixer; /* static: "attention", "mamba", "conv", "linear_attention", "mlp", "moe",
                        * "rwkv", "xlstm" */
    int rope;          /* 1: an attention layer that rotates q and k (a RoPE kind) */
    const char *why;   /* static: the rule, for layers without positions */
} api_hy_layer;

/* The layers of a hybrid / attention-free model. */
typedef struct {
    int64_t n_layers;            /* the layer count (nemotron_h: its list's length) */
    api_hy_layer *layer;         /* [n_layers], owned (free with api_hy_plan_free) */
    char layers_src[API_HY_SRC]; /* the keys that placed them ("config.attn_layer_period,
                                  * config.attn_layer_offset", or "default of ...") */
    int attention_free;          /* 1: no layer has attention (mamba, rwkv, ...) */
} api_hy_plan;

/* 1 when model_type is a row of the hybrid table (above), 0 otherwise. */
int api_model_hybrid_known(const char *model_type);

/* 1 when model_type has no attention layer at all (mamba, mamba2, falcon_mamba, rwkv, xlstm). */
int api_model_attention_free(const char *model_type);

/*
 * Places the layers of the text config t (a known hybrid type). n_file: the file's layer count
 * (num_hidden_layers | n_layer | ...; 0 when absent). Keys read per type as listed above; a key of
 * the wrong type, an entry out of place (a pattern character HF has no block for, a layer index
 * outside the model, jamba's offset >= period, a position_embedding_type other than rope / nope /
 * null) is a 422 at its pointer. Returns 1 when planned (out filled), 0 when model_type is not in
 * the table, -1 on error (pb filled; 503 when out of memory).
 */
int api_model_hybrid_plan(api_problem *pb, const api_model_text *t, int64_t n_file,
                          api_hy_plan *out);

void api_hy_plan_free(api_hy_plan *p);

/*
 * Nemotron-NAS (model_type "nemotron-nas", DeciLMForCausalLM): places p->n_layers layers from
 * t's block_configs (one object per layer; api/model_hybrid_nas.c). 422 at the pointer of a
 * block_configs of the wrong length, an entry without an attention object, a flag that is not a
 * boolean, an attention layer's n_heads_in_group that does not divide num_attention_heads, a
 * head_dim other than hidden_size // num_attention_heads. Returns 0, or -1 with pb filled.
 */
int api_model_nas_plan(api_problem *pb, const api_model_text *t, api_hy_plan *p);

/*
 * The width of one q / k head row in t's attention layers, as the model's attention module
 * sizes it: Kimi Linear's MLA qk_nope_head_dim + qk_rope_head_dim (128 + 64 by default), Zamba2's
 * 2 hidden_size / heads, else head_dim, else the config class's head_dim (NemotronHConfig 128),
 * else hidden_size / num_attention_heads; 0 when the config does not say.
 */
int64_t api_model_nope_head_dim(const api_model_text *t);

/*
 * Rotary keys a model type's HF config class overrides, checked on the text config t: minimax_m2
 * (MiniMaxM2Config sets partial_rotary_factor = rotary_dim / head_dim, head_dim // 2 without
 * rotary_dim: a partial_rotary_factor, top-level or in rope_scaling / rope_parameters, that
 * disagrees is a 422 at it); minimax (MiniMaxConfig has no rotary_dim: HF's MiniMax rotates
 * head_dim x partial_rotary_factor, MiniMax's own code and vLLM rotary_dim; posenc answers
 * rotary_dim as the file says and a warning in w names the difference). Returns 0, or -1 with pb
 * filled.
 */
int api_model_rotary_conflicts(api_problem *pb, const api_model_text *t, api_rc_warnings *w);

/* A model type's own name of its rotary base, read before rope_theta: "theta" for lfm2 / lfm2_moe
 * (Lfm2Config: kwargs.get("theta", kwargs.get("rope_theta", 1e6))), "global_rope_theta" for
 * modernbert (ModernBertConfig: the full-attention layers' base, default 160000); NULL for other
 * types. */
const char *api_model_base_alias(const char *model_type);

/* The key of the base of a model type's sliding-window layers (api_ml_kind.local_base):
 * "local_rope_theta" for modernbert (ModernBertConfig, default 10000), else Gemma 3's
 * "rope_local_base_freq". Never NULL. */
const char *api_model_local_base_key(const char *model_type);

/* Zamba2's attention head: attention_head_dim = 2 hidden_size // num_attention_heads
 * (Zamba2Config: the shared block attends over the input concatenated with the embeddings). Sets
 * *hd and returns 1 for model_type zamba2 when cfg has both keys as integers >= 1; 0 otherwise. */
int api_model_head_dim_rule(const json_t *cfg, const char *model_type, int64_t *hd);

#endif
