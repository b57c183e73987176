/*
 * api/model_hybrid_nas.c -- the layers of NVIDIA's Nemotron-NAS models (model_type
 * "nemotron-nas": Llama-3.1-Nemotron-51B, Llama-3.3-Nemotron-Super-49B, Llama-3.1-Nemotron-
 * Ultra-253B; architectures DeciLMForCausalLM), as the Hub repositories' remote code builds them
 * (modeling_decilm.py DeciLMDecoderLayer; vLLM model_executor/models/nemotron_nas.py alike):
 *
 *   block_configs[l].attention.no_op true          no attention sublayer at all (the layer is
 *                                                  its FFN alone: mixer "mlp", or "none" when
 *                                                  block_configs[l].ffn.no_op is true too);
 *   block_configs[l].attention.replace_with_linear a linear map of the hidden states instead of
 *                                                  attention (DeciLMLinearAttention): mixer
 *                                                  "linear", no positions;
 *   otherwise                                      DeciLMAttention: Llama's GQA attention
 *                                                  (n_heads_in_group query heads per kv head)
 *                                                  rotated by DeciLMRotaryEmbedding(config):
 *                                                  Llama's RoPE with the config's rope_theta and
 *                                                  rope_scaling, head_dim = hidden_size //
 *                                                  num_attention_heads.
 * no_op is checked first (modeling_decilm.py). window_length (a sliding window) does not change
 * the RoPE: such layers stay in the one RoPE kind.
 */
#include <stdio.h>
#include <string.h>

#include "api/model_hybrid.h"
#include "api/req.h"

static const char *const NO_OP_WHY =
    "block_configs[l].attention.no_op: the layer has no attention sublayer (modeling_decilm.py "
    "DeciLMDecoderLayer), no positions";
static const char *const LINEAR_WHY =
    "block_configs[l].attention.replace_with_linear: a linear map of the hidden states instead "
    "of attention (modeling_decilm.py DeciLMLinearAttention), no positions";

static void set_layer(api_hy_layer *l, const char *mixer, int rope, const char *why)
{
    l->mixer = mixer;
    l->rope = rope;
    l->why = why;
}

/* A boolean member of the object o at pointer base (absent or null: 0, AttentionConfig /
 * FFNConfig's default). Returns 0 or -1 with a 422 at base/key. */
static int flag(api_problem *pb, const json_t *o, const char *base, const char *key, int *out)
{
    *out = 0;
    const json_t *v = json_object_get(o, key);
    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_boolean(v)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, base, key,
                        "must be true or false (DeciLM's block config)");
        return -1;
    }
    *out = json_is_true(v);
    return 0;
}

int api_model_nas_plan(api_problem *pb, const api_model_text *t, api_hy_plan *p)
{
    char bp[API_MC_PTR + 48];
    api_ptr(bp, sizeof bp, t->ptr, "block_configs");
    const json_t *bc = api_member(t->obj, "block_configs");
    if (bc == NULL || !json_is_array(bc) || (int64_t)json_array_size(bc) != p->n_layers) {
        api_problem_field(pb, API_PB_INVALID_FIELD, bp,
                          "must be an array of %lld block configs, one per layer: "
                          "DeciLMDecoderLayer reads block_configs[layer_idx] (modeling_decilm.py)",
                          (long long)p->n_layers);
        return -1;
    }
    /* DeciLMAttention: head_dim = hidden_size // num_attention_heads, never a head_dim key */
    const json_t *hd = api_member(t->obj, "head_dim"), *h = api_member(t->obj, "hidden_size"),
                 *n = api_member(t->obj, "num_attention_heads");
    if (hd != NULL && json_is_integer(h) && json_is_integer(n) && json_integer_value(n) > 0 &&
        !(json_is_integer(hd) &&
          json_integer_value(hd) == json_integer_value(h) / json_integer_value(n))) {
        api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, "head_dim",
                        "differs from hidden_size // num_attention_heads, the head DeciLMAttention "
                        "rotates (modeling_decilm.py reads no head_dim): remove it");
        return -1;
    }
    int64_t heads = json_is_integer(n) ? (int64_t)json_integer_value(n) : 0;
    for (size_t l = 0; l < json_array_size(bc); l++) {
        char ep[API_MC_PTR + 64], ap[API_MC_PTR + 80], fp[API_MC_PTR + 80];
        api_ptr_idx(ep, sizeof ep, bp, l);
        const json_t *e = json_array_get(bc, l);
        const json_t *att = json_is_object(e) ? api_member(e, "attention") : NULL;
        const json_t *ffn = json_is_object(e) ? api_member(e, "ffn") : NULL;
        if (att == NULL || !json_is_object(att) || (ffn != NULL && !json_is_object(ffn))) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ep,
                              "must be an object with an \"attention\" object (and an \"ffn\" "
                              "object): DeciLM's BlockConfig");
            return -1;
        }
        api_ptr(ap, sizeof ap, ep, "attention");
        api_ptr(fp, sizeof fp, ep, "ffn");
        int no_op = 0, linear = 0, ffn_no_op = 0;
        if (flag(pb, att, ap, "no_op", &no_op) < 0 ||
            flag(pb, att, ap, "replace_with_linear", &linear) < 0 ||
            (ffn != NULL && flag(pb, ffn, fp, "no_op", &ffn_no_op) < 0))
            return -1;
        if (no_op) {
            set_layer(&p->layer[l], ffn_no_op ? "none" : "mlp", 0, NO_OP_WHY);
        } else if (linear) {
            set_layer(&p->layer[l], "linear", 0, LINEAR_WHY);
        } else {
            /* num_key_value_heads = num_attention_heads // n_heads_in_group: HF fails on
             * anything but a divisor (q / kv shapes) */
            const json_t *g = api_member(att, "n_heads_in_group");
            if (!json_is_integer(g) || json_integer_value(g) < 1 ||
                (heads > 0 && heads % json_integer_value(g) != 0)) {
                api_problem_key(pb, API_PB_INVALID_FIELD, ap, "n_heads_in_group",
                                "must be an integer >= 1 dividing num_attention_heads in an "
                                "attention layer (DeciLMAttention: num_key_value_heads = "
                                "num_attention_heads // n_heads_in_group)");
                return -1;
            }
            set_layer(&p->layer[l], "attention", 1, NULL);
        }
    }
    snprintf(p->layers_src, sizeof p->layers_src,
             "%s.block_configs[l].attention (no_op, replace_with_linear: modeling_decilm.py "
             "DeciLMDecoderLayer)",
             t->src);
    return 0;
}
