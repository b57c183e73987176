/*
 * api/model_types.c -- RoPE model types added in issue 15's second pass (see model_config.h,
 * api_model_is_rope_2025). Each type's attention rotates q and k with the rule its row says; its
 * attention scale is its row in api/model_scale.c, its pair layout api_model_layout_fixed.
 * Also the model types whose positions are never RoPE (learned tables, ALiBi, T5 buckets), which
 * POST /model/method describes and POST /rope and /attention's rope method refuse.
 */
#include "api/model_config.h"

#include <string.h>

#include "api/req.h"

/* Learned absolute tables (nn.Embedding over position ids, modeling_<type>.py). */
static const char *const LEARNED[] = {"bert",       "electra",       "albert",
                                      "gpt2",       "gpt_neo",       "gpt_bigcode",
                                      "distilbert", "megatron-bert", NULL};
static const char *const LEARNED_PAD[] = {"roberta", "xlm-roberta", "camembert",
                                          "roberta-prelayernorm",
                                          NULL}; /* offset padding_idx + 1 */
static const char *const LEARNED_2[] = {"opt", "bart", "mbart", "biogpt", NULL}; /* offset 2 */
static const char *const T5S[] = {"t5", "mt5", "umt5", "longt5", "switch_transformers", NULL};

int api_model_learned(const char *model_type)
{
    return model_type == NULL                         ? 0
           : api_str_in_list(LEARNED, model_type)     ? API_ML_LEARNED_0
           : api_str_in_list(LEARNED_PAD, model_type) ? API_ML_LEARNED_PAD
           : api_str_in_list(LEARNED_2, model_type)   ? API_ML_LEARNED_2
                                                      : 0;
}

int api_model_t5(const char *model_type)
{
    return model_type != NULL && api_str_in_list(T5S, model_type);
}

const char *api_model_not_rope(const char *model_type)
{
    if (api_model_learned(model_type))
        return "its positions are a learned table added to the token embeddings, not RoPE: "
               "nothing rotates (POST /model/method describes its layers)";
    if (api_model_t5(model_type))
        return "its positions are T5's relative buckets, not RoPE: nothing rotates (POST "
               "/model/method describes its layers)";
    if (model_type != NULL && (strcmp(model_type, "bloom") == 0 || strcmp(model_type, "mpt") == 0))
        return "its positions are ALiBi (a bias added to the scores; transformers' MptModel "
               "always adds it), not RoPE: nothing rotates (POST /model/method describes its "
               "layers)";
    return NULL;
}

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
