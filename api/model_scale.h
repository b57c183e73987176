/*
 * api/model_scale.h -- the attention scale of a model, as its Hugging Face attention code computes
 * it (the multiplier of q.k^T before the softmax), by model_type: one table in api/model_scale.c,
 * each row citing transformers v5 src/transformers/models/<name>/modeling_<name>.py.
 *
 * Used by POST /attention for a pasted config (method rope: `rope.config`) when the request sets
 * no `scale`, and by POST /model/method (each kind's parameters.scale). Gemma 2's (and a Gemma 3
 * config's) attn_logit_softcapping is read here too: it changes the same scores.
 *
 * Pure: borrowed jansson values in, caller-owned structs out; const tables only; thread-safe.
 */
#ifndef API_MODEL_SCALE_H
#define API_MODEL_SCALE_H

#include <jansson.h>
#include <stdint.h>

#include "api/model_config.h"
#include "api/problem.h"
#include "api/rope_config.h"

#define API_MS_SRC 640 /* bytes of a source text */

/* The model's attention scale and what it came from. */
typedef struct {
    int known;                 /* 1: model_type is in the table; 0: 1/sqrt(head_dim) assumed */
    double scale;              /* multiplier of q.k^T (> 0), before DeepSeek's mscale^2 (which
                                * /attention takes from RoPE's softmax_scale_factor) */
    char src[API_MS_SRC];      /* e.g. "config.query_pre_attn_scalar (modeling_gemma2.py: ...)" */
    char key[API_MC_PTR + 48]; /* dotted path of the config key read ("" when none) */
    double softcap;            /* attn_logit_softcapping: scores -> c tanh(scores / c); 0 none */
    char softcap_src[API_MS_SRC];
    char softcap_key[API_MC_PTR + 48];
    char caveat[API_MS_SRC]; /* when not known (or a per-layer rule not modelled): why */
} api_model_scale;

/*
 * The attention scale of the text model t for heads of head_dim numbers (> 0; the rotary part's
 * width for DeepSeek's MLA, whose scale reads qk_nope_head_dim + qk_rope_head_dim instead).
 * Sources are dotted paths from t->src ("config.text_config.query_pre_attn_scalar"). A model_type
 * not in the table gets 1/sqrt(head_dim) (LlamaAttention's rule) with out->known 0 and a caveat.
 * A key of the wrong type or domain (query_pre_attn_scalar <= 0, ...) is a 422 at its pointer.
 * Returns 0 or -1 (pb filled).
 */
int api_model_attn_scale(api_problem *pb, const api_model_text *t, int64_t head_dim,
                         api_model_scale *out);

/* 1 when key (a top-level key of a text config) is one api_model_attn_scale may read for some
 * model_type (query_pre_attn_scalar, attention_multiplier, attn_logit_softcapping). */
int api_model_scale_key(const char *key);

/*
 * Nemotron-H: NemotronHConfig (transformers v5) has head_dim (default 128) and no
 * attention_head_dim, the key NVIDIA's published files carry; when the file gives no head_dim and
 * its attention_head_dim differs from head_dim (the value answered), adds a warning to w naming
 * both readings. Other model types: nothing.
 */
void api_model_head_dim_warn(const api_model_text *t, int64_t head_dim, api_rc_warnings *w);

#endif
