/*
 * api/model_types.c -- model types by position method: the RoPE model types added in issue 15's
 * second pass (see model_config.h, api_model_is_rope_2025; each type's attention rotates q and k
 * with the rule its row says; its attention scale is its row in api/model_scale.c, its pair
 * layout api_model_layout_fixed), and the types whose models use another method (learned, T5
 * buckets, ALiBi: api_model_not_rope), which POST /rope refuses (api_model_rope_method_check).
 */
#include "api/model_config.h"

#include <string.h>

#include "api/model_hybrid.h"
#include "api/model_sinusoidal.h"
#include "api/req.h"

static const struct {
    const char *model_type;
    const char *source; /* the code that shows it rotates q and k as a plain (or M-) RoPE model */
} MORE[] = {
    /* remote code microsoft/Phi-4-multimodal-instruct modeling_phi4mm.py: Phi-3's rotary embedding
     * (rotate_half, partial_rotary_factor, longrope); HF's own port is phi4_multimodal */
    {"phi4mm", "modeling_phi4mm.py (remote code; HF: modeling_phi4_multimodal.py)"},
    /* HF modeling_ernie4_5_vl_moe.py: Ernie4_5_VLMoeTextRotaryEmbedding over head_dim, adjacent
     * pairs; text tokens (t = h = w) get plain RoPE */
    {"ernie4_5_vl_moe", "modeling_ernie4_5_vl_moe.py"},
    {"ernie4_5_vl_moe_text", "modeling_ernie4_5_vl_moe.py"},
    /* HF modeling_qwen2_5_omni.py / modeling_qwen3_omni_moe.py: the thinker's text model is
     * Qwen2.5-VL's (mrope) / Qwen3-VL's (interleaved mrope) */
    {"qwen2_5_omni", "modeling_qwen2_5_omni.py"},
    {"qwen2_5_omni_thinker", "modeling_qwen2_5_omni.py"},
    {"qwen2_5_omni_text", "modeling_qwen2_5_omni.py"},
    {"qwen3_omni_moe_thinker", "modeling_qwen3_omni_moe.py"},
    {"qwen3_omni_moe_text", "modeling_qwen3_omni_moe.py"},
    /* remote code stepfun-ai/step3 modeling_step3.py; vLLM step3_text.py: get_rope(head_dim,
     * rope_parameters), NeoX (half) style, over the whole head */
    {"step3_vl", "modeling_step3.py (remote code; vLLM step3_text.py)"},
    {"step3_text", "modeling_step3.py (remote code; vLLM step3_text.py)"},
    /* remote code openbmb/MiniCPM-V-2_6, MiniCPM-o-2_6 modeling_minicpmv.py / modeling_minicpmo.py:
     * the language model is Qwen2ForCausalLM (Llama for MiniCPM-V 2.5) built from the root keys */
    {"minicpmv", "modeling_minicpmv.py (remote code: Qwen2ForCausalLM / LlamaForCausalLM)"},
    {"minicpmo", "modeling_minicpmo.py (remote code: Qwen2ForCausalLM)"},
    /* remote code rednote-hilab/dots.ocr modeling_dots_ocr.py: DotsOCRForCausalLM is a
     * Qwen2ForCausalLM over the root keys */
    {"dots_ocr", "modeling_dots_ocr.py (remote code: Qwen2ForCausalLM)"},
};

int api_model_is_rope_2025(const char *model_type)
{
    for (size_t i = 0; model_type != NULL && i < sizeof MORE / sizeof MORE[0]; i++)
        if (strcmp(MORE[i].model_type, model_type) == 0)
            return 1;
    return 0;
}

int api_model_ernie_vl(const char *model_type)
{
    return model_type != NULL && (strcmp(model_type, "ernie4_5_vl_moe") == 0 ||
                                  strcmp(model_type, "ernie4_5_vl_moe_text") == 0);
}

/* Position methods other than RoPE, by model_type (POST /model/method's learned / ALiBi / T5
 * kinds; POST /rope refuses these types, api_model_not_rope). HF modeling files: */
/* nn.Embedding over position ids from 0 (modeling_bert.py, modeling_gpt2.py, ...) */
const char *const API_MODEL_LEARNED[] = {"bert",       "electra",       "albert",
                                         "gpt2",       "gpt_neo",       "gpt_bigcode",
                                         "distilbert", "megatron-bert", NULL};
/* position ids from padding_idx + 1 (modeling_roberta.py create_position_ids_from_input_ids) */
const char *const API_MODEL_LEARNED_PAD[] = {"roberta", "xlm-roberta", "camembert",
                                             "roberta-prelayernorm", NULL};
/* LearnedPositionalEmbedding with an offset of 2 (modeling_opt.py, modeling_bart.py, ...) */
const char *const API_MODEL_LEARNED_2[] = {"opt", "bart", "mbart", "biogpt", NULL};
/* T5Attention's relative position buckets (modeling_t5.py and its copies) */
const char *const API_MODEL_T5[] = {"t5", "mt5", "umt5", "longt5", "switch_transformers", NULL};

/* The keys that make a config of a type posenc does not know a RoPE config of its own. */
static const char *const ROPE_KEYS[] = {
    "rope_theta",      "rope_scaling",     "rope_parameters",       "rotary_dim", "rotary_pct",
    "rotary_emb_base", "qk_rope_head_dim", "partial_rotary_factor", NULL};

int api_model_has_rope_keys(const json_t *cfg)
{
    for (const char *const *k = ROPE_KEYS; *k; k++) {
        const json_t *v = json_object_get(cfg, *k);
        if (v != NULL && !json_is_null(v))
            return 1;
    }
    return 0;
}

const char *api_model_not_rope(const char *model_type, const json_t *cfg)
{
    if (model_type == NULL || model_type[0] == '\0')
        return NULL;
    /* DistilBERT's sinusoidal_pos_embds true: create_sinusoidal_embeddings fills the table */
    const json_t *sin_pe = json_object_get(cfg, "sinusoidal_pos_embds");
    if (strcmp(model_type, "distilbert") == 0 && sin_pe != NULL && json_is_true(sin_pe))
        return "a fixed sinusoidal table added to the embeddings (sinusoidal_pos_embds true; "
               "POST /sinusoidal)";
    if (api_str_in_list(API_MODEL_LEARNED, model_type) ||
        api_str_in_list(API_MODEL_LEARNED_PAD, model_type) ||
        api_str_in_list(API_MODEL_LEARNED_2, model_type))
        return "learned absolute position embeddings (a trained table added before layer 0; "
               "POST /learned)";
    if (api_str_in_list(API_MODEL_T5, model_type))
        return "T5 relative position buckets (POST /t5/buckets)";
    if (api_model_sinusoidal_type(model_type)) /* api/model_sinusoidal.h */
        return "a fixed sinusoidal table added to the embeddings (POST /sinusoidal; Whisper's "
               "decoder a learned table)";
    /* modeling_bloom.py build_alibi_tensor; modeling_mpt.py build_mpt_alibi_tensor (MptModel adds
     * ALiBi whatever attn_config says); modeling_falcon.py with alibi true */
    const json_t *alibi = json_object_get(cfg, "alibi");
    if (strcmp(model_type, "mpt") == 0)
        return "ALiBi in transformers' MptModel (MosaicML's remote code: ALiBi or a learned table "
               "by attn_config.alibi; POST /alibi, POST /learned)";
    if (strcmp(model_type, "bloom") == 0 ||
        (strcmp(model_type, "falcon") == 0 && alibi != NULL && json_is_true(alibi)))
        return "ALiBi (a per-head linear bias on the scores; POST /alibi)";
    return NULL;
}

/* Config classes whose rope_theta default differs between transformers releases: a file without
 * rope_theta has no one answer (published files carry it). */
static const struct {
    const char *model_type;
    const char *why;
} DISPUTED_THETA[] = {
    {"qwen3_vl_text", "Qwen3VLTextConfig's default is 5000000 in transformers 4.57 and "
                      "default_theta 500000 in v5 (models/qwen3_vl/configuration_qwen3_vl.py)"},
    {"qwen3_vl", "Qwen3VLTextConfig's default is 5000000 in transformers 4.57 and default_theta "
                 "500000 in v5 (models/qwen3_vl/configuration_qwen3_vl.py)"},
    {"persimmon", "PersimmonConfig's default is 25000 in transformers 4 and PreTrainedConfig's "
                  "10000 in v5 (models/persimmon/configuration_persimmon.py)"},
};

/* 1 when cfg names a base: rope_theta at the top, in rope_scaling / rope_parameters, or in one
 * of rope_parameters' per-layer-type entries. */
static int has_theta(const json_t *cfg)
{
    const json_t *v = json_object_get(cfg, "rope_theta");
    if (v != NULL && !json_is_null(v))
        return 1;
    static const char *const SC[] = {"rope_scaling", "rope_parameters", NULL};
    for (const char *const *k = SC; *k; k++) {
        const json_t *sc = json_object_get(cfg, *k);
        const char *key;
        const json_t *e;
        if (!json_is_object(sc))
            continue;
        if (json_object_get(sc, "rope_theta") != NULL)
            return 1;
        json_object_foreach((json_t *)sc, key, e)
        {
            if (json_is_object(e) && json_object_get(e, "rope_theta") != NULL)
                return 1;
        }
    }
    return 0;
}

int api_model_rope_method_check(api_problem *pb, const json_t *cfg, const char *ptr,
                                const char *model_type)
{
    for (size_t i = 0; model_type != NULL && i < sizeof DISPUTED_THETA / sizeof *DISPUTED_THETA;
         i++) {
        if (strcmp(DISPUTED_THETA[i].model_type, model_type) != 0 || has_theta(cfg))
            continue;
        char tp[API_MC_PTR + 16];
        api_ptr(tp, sizeof tp, ptr, "rope_theta");
        api_problem_field(pb, API_PB_INVALID_FIELD, tp,
                          "is required for model_type \"%.40s\": %s; send the model's value",
                          model_type, DISPUTED_THETA[i].why);
        return -1;
    }
    const char *other = api_model_not_rope(model_type, cfg);
    if (other == NULL &&
        (model_type == NULL || model_type[0] == '\0' || api_model_is_rope(model_type) ||
         api_model_hybrid_known(model_type) || api_model_has_rope_keys(cfg)))
        return 0;
    char fp[API_MC_PTR + 16];
    api_ptr(fp, sizeof fp, ptr, "model_type");
    /* ModernBERT-decoder's own keys (configuration_modernbert_decoder.py; modernbert itself is a
     * RoPE type: api/model_layers.h) */
    if (other == NULL && strcmp(model_type, "modernbert-decoder") == 0 &&
        (json_object_get(cfg, "global_rope_theta") != NULL ||
         json_object_get(cfg, "local_rope_theta") != NULL)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "ModernBERT-decoder's global_rope_theta / local_rope_theta and its layer "
                          "pattern are not read yet: send one layer's numbers to POST /rope "
                          "(head_dim, base)");
        return -1;
    }
    if (other != NULL)
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "model_type \"%.40s\" uses %s, not RoPE: there is nothing to rotate "
                          "(POST /model/method describes its layers)",
                          model_type, other);
    else
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "posenc does not know the position method of model_type \"%.40s\" and "
                          "the config has no rotary key (rope_theta, rope_scaling, "
                          "rope_parameters, ...): RoPE numbers would be a guess",
                          model_type);
    return -1;
}
