/*
 * api/model_scale.c -- the attention scale by model_type (see model_scale.h). Every row cites the
 * Hugging Face file whose attention module sets it (transformers v5, src/transformers/models/).
 */
#include "api/model_scale.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/req.h"

typedef enum {
    R_HEAD_DIM,  /* head_dim^-0.5 */
    R_KEY_RSQRT, /* config[key]^-0.5 (class default def) */
    R_KEY,       /* config[key] (class default def) */
    R_ONE,       /* 1: no scaling */
    R_MLA,       /* (qk_nope_head_dim + qk_rope_head_dim)^-0.5 (DeepSeek MLA; def = the
                  * class default of qk_nope_head_dim) */
    R_MPT,       /* attn_config.softmax_scale, else head_dim^-0.5 */
    R_KEY_X_HD,  /* config[key] x head_dim^-0.5 (class default def): a multiplier of k */
    R_HALF_HEAD, /* (head_dim / 2)^-0.5 with head_dim = 2 hidden_size / num_attention_heads */
    R_MLA_QLORA  /* R_MLA x sqrt(hidden_size / q_lora_rank) (LongCat-Flash's q scale) */
} rule;

typedef struct {
    const char *model_type;
    rule r;
    const char *key;  /* R_KEY_RSQRT, R_KEY */
    double def;       /* the config class's default of key */
    const char *hf;   /* the file and line of code it follows */
    const char *note; /* a caveat about the rest of the attention (NULL: none) */
} row;

#define HD(t, file)                                                                                \
    {                                                                                              \
        t, R_HEAD_DIM, NULL, 0.0, file ": scaling = head_dim**-0.5", NULL                          \
    }
#define SINKS                                                                                      \
    "the model adds a learned sink logit per head to the softmax (weights from the checkpoint, "   \
    "modeling_gpt_oss.py): scores are exact, weights and output are without the sinks"

#define MLA_NOTE                                                                                   \
    "multi-head latent attention: q.k^T here is the rotary part only (qk_rope_head_dim); the "     \
    "model adds q_nope.k_nope (qk_nope_head_dim) before the scale (modeling_deepseek_v3.py)"

static const row TABLE[] = {
    HD("llama", "modeling_llama.py"),
    HD("llama4", "modeling_llama4.py"),
    HD("llama4_text", "modeling_llama4.py"),
    HD("mistral", "modeling_mistral.py"),
    HD("ministral3", "modeling_ministral3.py"),
    HD("mixtral", "modeling_mixtral.py"),
    HD("qwen2", "modeling_qwen2.py"),
    HD("qwen2_moe", "modeling_qwen2_moe.py"),
    HD("qwen2_vl", "modeling_qwen2_vl.py"),
    HD("qwen2_5_vl", "modeling_qwen2_5_vl.py"),
    HD("qwen2_5_vl_text", "modeling_qwen2_5_vl.py"),
    HD("qwen3", "modeling_qwen3.py"),
    HD("qwen3_moe", "modeling_qwen3_moe.py"),
    HD("qwen3_next", "modeling_qwen3_next.py"),
    HD("qwen3_5", "modeling_qwen3_5.py"),
    HD("qwen3_5_text", "modeling_qwen3_5.py"),
    HD("qwen3_5_moe", "modeling_qwen3_5_moe.py"),
    HD("qwen3_5_moe_text", "modeling_qwen3_5_moe.py"),
    HD("qwen3_vl", "modeling_qwen3_vl.py"),
    HD("qwen3_vl_text", "modeling_qwen3_vl.py"),
    HD("gemma", "modeling_gemma.py"),
    HD("cohere", "modeling_cohere.py"),
    HD("cohere2", "modeling_cohere2.py"),
    HD("olmo", "modeling_olmo.py"),
    HD("olmo2", "modeling_olmo2.py"),
    HD("olmo3", "modeling_olmo3.py"),
    HD("olmoe", "modeling_olmoe.py"),
    HD("phi", "modeling_phi.py"),
    HD("phi3", "modeling_phi3.py"),
    HD("phimoe", "modeling_phimoe.py"),
    HD("stablelm", "modeling_stablelm.py"),
    HD("starcoder2", "modeling_starcoder2.py"),
    HD("glm", "modeling_glm.py"),
    HD("glm4", "modeling_glm4.py"),
    HD("glm4_moe", "modeling_glm4_moe.py"),
    HD("glm4v", "modeling_glm4v.py"),
    HD("glm4v_text", "modeling_glm4v.py"),
    HD("ernie4_5", "modeling_ernie4_5.py"),
    HD("ernie4_5_moe", "modeling_ernie4_5_moe.py"),
    HD("hunyuan_v1_dense", "modeling_hunyuan_v1_dense.py"),
    HD("hunyuan_v1_moe", "modeling_hunyuan_v1_moe.py"),
    HD("exaone4", "modeling_exaone4.py"),
    HD("smollm3", "modeling_smollm3.py"),
    HD("opt", "modeling_opt.py"),
    HD("bart", "modeling_bart.py"),
    /* the sinusoidal families' attention (BartAttention's copies; XGLMAttention, FSMT's
     * Attention, WhisperAttention): scaling = head_dim**-0.5 */
    HD("whisper", "modeling_whisper.py"),
    HD("marian", "modeling_marian.py"),
    HD("pegasus", "modeling_pegasus.py"),
    HD("m2m_100", "modeling_m2m_100.py"),
    HD("nllb-moe", "modeling_nllb_moe.py"),
    HD("speech_to_text", "modeling_speech_to_text.py"),
    HD("fsmt", "modeling_fsmt.py"),
    HD("xglm", "modeling_xglm.py"),
    HD("modernbert", "modeling_modernbert.py"), /* eager_attention_forward: head_dim**-0.5 */
    {"gpt_neox", R_HEAD_DIM, NULL, 0.0, "modeling_gpt_neox.py: scaling = head_size**-0.5", NULL},
    {"gptj", R_HEAD_DIM, NULL, 0.0, "modeling_gptj.py: attn_weights / scale_attn, sqrt(head_dim)",
     NULL},
    {"falcon", R_HEAD_DIM, NULL, 0.0, "modeling_falcon.py: inv_norm_factor = 1/sqrt(head_dim)",
     NULL},
    {"bloom", R_HEAD_DIM, NULL, 0.0, "modeling_bloom.py: inv_norm_factor = 1/sqrt(head_dim)", NULL},
    {"dbrx", R_HEAD_DIM, NULL, 0.0, "modeling_dbrx.py: attn_weights / sqrt(head_dim)", NULL},
    {"bert", R_HEAD_DIM, NULL, 0.0, "modeling_bert.py: scaling = attention_head_size**-0.5", NULL},
    {"roberta", R_HEAD_DIM, NULL, 0.0, "modeling_roberta.py: scaling = attention_head_size**-0.5",
     NULL},
    {"electra", R_HEAD_DIM, NULL, 0.0, "modeling_electra.py: scaling = attention_head_size**-0.5",
     NULL},
    {"distilbert", R_HEAD_DIM, NULL, 0.0, "modeling_distilbert.py: scaling = dim_per_head**-0.5",
     NULL},
    {"gpt2", R_HEAD_DIM, NULL, 0.0,
     "modeling_gpt2.py: attn_weights / value.size(-1)**0.5 (scale_attn_weights)", NULL},
    {"gpt_oss", R_HEAD_DIM, NULL, 0.0, "modeling_gpt_oss.py: scaling = head_dim**-0.5", SINKS},
    {"recurrent_gemma", R_HEAD_DIM, NULL, 0.0,
     "modeling_recurrent_gemma.py: scaled_dot_product_attention(scale=head_dim**-0.5)", NULL},
    {"gemma2", R_KEY_RSQRT, "query_pre_attn_scalar", 256.0,
     "modeling_gemma2.py: scaling = query_pre_attn_scalar**-0.5; Gemma2Config default 256", NULL},
    {"gemma3_text", R_KEY_RSQRT, "query_pre_attn_scalar", 256.0,
     "modeling_gemma3.py: scaling = query_pre_attn_scalar**-0.5; Gemma3TextConfig default 256",
     NULL},
    {"gemma3n_text", R_ONE, NULL, 0.0, "modeling_gemma3n.py: scaling = 1.0", NULL},
    {"gemma4_text", R_ONE, NULL, 0.0, "modeling_gemma4.py: scaling = 1.0", NULL},
    {"granite", R_KEY, "attention_multiplier", 1.0,
     "modeling_granite.py: scaling = attention_multiplier; GraniteConfig default 1.0", NULL},
    {"granitemoe", R_KEY, "attention_multiplier", 1.0,
     "modeling_granitemoe.py: scaling = attention_multiplier; GraniteMoeConfig default 1.0", NULL},
    {"granitemoeshared", R_KEY, "attention_multiplier", 1.0,
     "modeling_granitemoeshared.py: scaling = attention_multiplier; default 1.0", NULL},
    {"granitemoehybrid", R_KEY, "attention_multiplier", 1.0,
     "modeling_granitemoehybrid.py: scaling = attention_multiplier; default 1.0", NULL},
    {"deepseek_v2", R_MLA, NULL, 128.0,
     "modeling_deepseek_v2.py: scaling = qk_head_dim**-0.5, qk_head_dim = qk_nope_head_dim + "
     "qk_rope_head_dim (x mscale^2 with yarn: softmax_scale_factor)",
     MLA_NOTE},
    {"deepseek_v3", R_MLA, NULL, 128.0,
     "modeling_deepseek_v3.py: scaling = qk_head_dim**-0.5, qk_head_dim = qk_nope_head_dim + "
     "qk_rope_head_dim (x mscale^2 with yarn: softmax_scale_factor)",
     MLA_NOTE},
    {"deepseek_v32", R_MLA, NULL, 128.0,
     "modeling_deepseek_v32.py: scaling = qk_head_dim**-0.5, qk_head_dim = qk_nope_head_dim + "
     "qk_rope_head_dim (x mscale^2 with yarn: softmax_scale_factor)",
     MLA_NOTE},
    /* Mistral4Attention (DeepseekV3Attention's shape); Mistral4Config's qk_nope_head_dim is 64 */
    {"mistral4", R_MLA, NULL, 64.0,
     "modeling_mistral4.py: scaling = qk_head_dim**-0.5, qk_head_dim = qk_nope_head_dim + "
     "qk_rope_head_dim (x mscale^2 with yarn: softmax_scale_factor, transformers#47435)",
     MLA_NOTE},
    /* YoutuAttention is DeepseekV3Attention (modular_youtu.py); YoutuConfig qk_nope_head_dim 128 */
    {"youtu", R_MLA, NULL, 128.0,
     "modular_youtu.py (DeepseekV3Attention): scaling = qk_head_dim**-0.5, qk_head_dim = "
     "qk_nope_head_dim + qk_rope_head_dim (x mscale^2 with yarn: softmax_scale_factor)",
     MLA_NOTE},
    /* Kimi K2 (model_type kimi_k2): DeepSeek-V3's architecture under its own name, run by the
     * Hub repository's remote modeling_deepseek.py (no transformers port) */
    {"kimi_k2", R_MLA, NULL, 128.0,
     "remote code moonshotai/Kimi-K2-Instruct modeling_deepseek.py (DeepseekV3Attention): "
     "softmax_scale = q_head_dim**-0.5, q_head_dim = qk_nope_head_dim + qk_rope_head_dim (x "
     "mscale^2 with yarn: softmax_scale_factor)",
     MLA_NOTE},
    /* GLM-5: GlmMoeDsaAttention (MLA; GlmMoeDsaConfig qk_nope_head_dim 192) */
    {"glm_moe_dsa", R_MLA, NULL, 192.0,
     "modeling_glm_moe_dsa.py: scaling = qk_head_dim**-0.5, qk_head_dim = qk_nope_head_dim + "
     "qk_rope_head_dim (no yarn mscale)",
     MLA_NOTE},
    /* issue 15's coverage sweep: LlamaAttention's / Exaone4Attention's / Glm4MoeAttention's
     * scaling = head_dim**-0.5 */
    HD("afmoe", "modular_afmoe.py (LlamaAttention)"),
    HD("exaone_moe", "modular_exaone_moe.py (Exaone4Attention)"),
    HD("solar_open", "modular_solar_open.py (Glm4MoeAttention)"),
    HD("cwm", "modular_cwm.py (Qwen2Attention)"),
    HD("flex_olmo", "modeling_flex_olmo.py (OLMo 2's attention)"),
    /* hybrid models (api/model_hybrid.h) */
    HD("jamba", "modeling_jamba.py"),
    HD("nemotron_h", "modeling_nemotron_h.py"),
    HD("lfm2", "modeling_lfm2.py"),
    HD("nemotron-nas", "Hub remote code modeling_decilm.py (DeciLMAttention)"),
    HD("lfm2_moe", "modeling_lfm2_moe.py"),
    HD("minimax_m2", "modeling_minimax_m2.py"),
    HD("minimax", "modeling_minimax.py (MixtralAttention)"),
    HD("bailing_moe_v2",
       "remote code inclusionAI/Ling-V2 models/modeling_bailing_moe_v2.py (SDPA's "
       "default)"),
    {"falcon_h1", R_KEY_X_HD, "key_multiplier", 1.0,
     "modeling_falcon_h1.py: FalconH1Attention multiplies k_proj's output by key_multiplier "
     "before RoPE (linear, so it scales q.k^T) and scaling = head_dim**-0.5; FalconH1Config "
     "default 1.0; attention_in_multiplier scales the layer's input before q_proj / k_proj",
     NULL},
    {"zamba2", R_HALF_HEAD, NULL, 0.0,
     "modeling_zamba2.py: Zamba2Attention scaling = (head_dim / 2)**-0.5, head_dim = "
     "attention_head_dim = 2 hidden_size / num_attention_heads (Zamba2Config)",
     NULL},
    {"kimi_linear", R_MLA, NULL, 128.0,
     "modeling_kimi_linear.py: KimiLinearAttention scaling = qk_head_dim**-0.5, qk_head_dim = "
     "qk_nope_head_dim + qk_rope_head_dim (KimiLinearConfig defaults 128, 64)",
     NULL},
    {"longcat_flash", R_MLA_QLORA, NULL, 128.0,
     "modular_longcat_flash.py: LongcatFlashMLA multiplies q (its rotary part too) by "
     "mla_scale_q_lora = sqrt(hidden_size / q_lora_rank) before q.k, scaling = qk_head_dim**-0.5 "
     "(x mscale^2 with yarn: softmax_scale_factor)",
     MLA_NOTE},
    /* issue 15, second pass: types whose attention scales by head_dim^-0.5 (each row its file) */
    HD("phi4_multimodal", "modeling_phi4_multimodal.py"),
    HD("phi4mm", "remote code microsoft/Phi-4-multimodal-instruct modeling_phi4mm.py (Phi-3's)"),
    HD("ernie4_5_vl_moe", "modeling_ernie4_5_vl_moe.py"),
    HD("ernie4_5_vl_moe_text", "modeling_ernie4_5_vl_moe.py"),
    HD("glm4v_moe", "modeling_glm4v_moe.py"),
    HD("glm4v_moe_text", "modeling_glm4v_moe.py"),
    HD("qwen2_vl_text", "modeling_qwen2_vl.py"),
    HD("qwen3_vl_moe", "modeling_qwen3_vl_moe.py"),
    HD("qwen3_vl_moe_text", "modeling_qwen3_vl_moe.py"),
    HD("qwen2_5_omni", "modeling_qwen2_5_omni.py"),
    HD("qwen2_5_omni_thinker", "modeling_qwen2_5_omni.py"),
    HD("qwen2_5_omni_text", "modeling_qwen2_5_omni.py"),
    HD("qwen3_omni_moe", "modeling_qwen3_omni_moe.py"),
    HD("qwen3_omni_moe_thinker", "modeling_qwen3_omni_moe.py"),
    HD("qwen3_omni_moe_text", "modeling_qwen3_omni_moe.py"),
    HD("step3_vl", "remote code stepfun-ai/step3 modeling_step3.py; vLLM step3_text.py"),
    HD("step3_text", "remote code stepfun-ai/step3 modeling_step3.py; vLLM step3_text.py"),
    HD("minicpmv", "remote code openbmb/MiniCPM-V-2_6 modeling_minicpmv.py (Qwen2Attention)"),
    HD("minicpmo", "remote code openbmb/MiniCPM-o-2_6 modeling_minicpmo.py (Qwen2Attention)"),
    HD("dots_ocr", "remote code rednote-hilab/dots.ocr modeling_dots_ocr.py (Qwen2Attention)"),
    HD("dots1", "modeling_dots1.py"),
    HD("arcee", "modeling_arcee.py"),
    HD("apertus", "modeling_apertus.py"),
    HD("seed_oss", "modeling_seed_oss.py"),
    HD("helium", "modeling_helium.py"),
    HD("bitnet", "modeling_bitnet.py"),
    HD("ministral", "modeling_ministral.py"),
    HD("persimmon", "modeling_persimmon.py"),
    HD("nemotron", "modeling_nemotron.py"),
    HD("aria_text", "modeling_aria.py"),
    HD("internlm2", "remote code internlm/internlm2_5-7b-chat modeling_internlm2.py"),
    HD("internlm3", "remote code internlm/internlm3-8b-instruct modeling_internlm3.py"),
    HD("minicpm", "remote code openbmb/MiniCPM-2B modeling_minicpm.py"),
    {"codegen", R_HEAD_DIM, NULL, 0.0,
     "modeling_codegen.py: attn_weights / scale_attn, "
     "sqrt(head_dim)",
     NULL},
    {"gpt_neox_japanese", R_HEAD_DIM, NULL, 0.0,
     "modeling_gpt_neox_japanese.py: norm_factor = "
     "sqrt(head_size)",
     NULL},
    {"mpt", R_MPT, NULL, 0.0,
     "modeling_mpt.py: softmax_scale = attn_config.softmax_scale, else 1/sqrt(head_dim)", NULL},
    {"t5", R_ONE, NULL, 0.0, "modeling_t5.py: T5Attention does not scale q.k^T", NULL},
    {"mt5", R_ONE, NULL, 0.0, "modeling_mt5.py: MT5Attention does not scale q.k^T", NULL},
    {"umt5", R_ONE, NULL, 0.0, "modeling_umt5.py: UMT5Attention does not scale q.k^T", NULL},
    {"longt5", R_ONE, NULL, 0.0, "modeling_longt5.py: LongT5Attention does not scale q.k^T", NULL},
    {"switch_transformers", R_ONE, NULL, 0.0,
     "modeling_switch_transformers.py: SwitchTransformersAttention does not scale q.k^T", NULL},
};
#define N_TABLE (sizeof TABLE / sizeof TABLE[0])

/* attn_logit_softcapping: read by these model types' attention (softcap = ...). */
static const struct {
    const char *model_type;
    double def; /* the class default (0: None) */
    const char *hf;
} SOFTCAP[] = {
    {"gemma2", 50.0,
     "modeling_gemma2.py: scores = tanh(scores / softcap) x softcap; Gemma2Config default 50"},
    {"gemma3_text", 0.0,
     "modeling_gemma3.py: scores = tanh(scores / softcap) x softcap (Gemma3TextConfig: None)"},
};

/* A wrapper's type names its text model's row when the text object says no model_type. */
static const char *text_type(const char *mt)
{
    if (strcmp(mt, "gemma3") == 0)
        return "gemma3_text";
    if (strcmp(mt, "gemma3n") == 0)
        return "gemma3n_text";
    if (strcmp(mt, "gemma4") == 0)
        return "gemma4_text";
    return mt;
}

int api_model_scale_key(const char *key)
{
    return strcmp(key, "query_pre_attn_scalar") == 0 || strcmp(key, "attention_multiplier") == 0 ||
           strcmp(key, "attn_logit_softcapping") == 0 || strcmp(key, "key_multiplier") == 0;
}

/* Reads number key of t (> 0) into *v, or the default def (src says which). 1 read, 0 default,
 * -1 error (pb filled). */
static int read_key(api_problem *pb, const api_model_text *t, const char *key, double def,
                    double *v)
{
    int rc = api_get_number(pb, t->obj, t->ptr, key, 0.0, HUGE_VAL, API_NUM_MIN_EXCL, v);
    if (rc == 0)
        *v = def;
    return rc;
}

/* LongCat-Flash: the MLA scale times sqrt(hidden_size / q_lora_rank), each key else
 * LongcatFlashConfig's default (6144, 1536: api_model_default_find); q_lora_rank null (no q LoRA)
 * is a 422: LongcatFlashMLA divides by it. */
static int qlora(api_problem *pb, const api_model_text *t, const row *w, api_model_scale *out)
{
    static const char *const K[] = {"hidden_size", "q_lora_rank"};
    double v[2] = {0.0, 0.0};
    int given[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        const json_t *kj = json_object_get(t->obj, K[i]);
        const api_model_default *d = api_model_default_find(t->model_type, K[i]);
        int rc = api_get_number(pb, t->obj, t->ptr, K[i], 0.0, HUGE_VAL, API_NUM_MIN_EXCL, &v[i]);
        if (rc == 0 && (d == NULL || (kj != NULL && json_is_null(kj)))) {
            api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, K[i],
                            "must be a positive number: LongCat-Flash multiplies q by "
                            "sqrt(hidden_size / q_lora_rank) (modular_longcat_flash.py)");
            return -1;
        }
        if (rc < 0)
            return -1;
        if (rc == 0)
            v[i] = d->value;
        given[i] = rc > 0;
    }
    out->scale *= sqrt(v[0] / v[1]);
    char hs[64], qs[64];
    snprintf(hs, sizeof hs, given[0] ? "hidden_size" : "hidden_size %g (class default)", v[0]);
    snprintf(qs, sizeof qs, given[1] ? "q_lora_rank" : "q_lora_rank %g (class default)", v[1]);
    snprintf(out->src, sizeof out->src,
             "sqrt(%.100s.%s / %s) / sqrt(qk_nope_head_dim + qk_rope_head_dim) (%.300s)", t->src,
             hs, qs, w->hf);
    return 0;
}

static int scale_of_row(api_problem *pb, const api_model_text *t, const row *w, int64_t head_dim,
                        api_model_scale *out)
{
    double v = 0.0;
    int rc;
    switch (w->r) {
    case R_HEAD_DIM:
        out->scale = 1.0 / sqrt((double)head_dim);
        snprintf(out->src, sizeof out->src, "1/sqrt(head_dim) (%s)", w->hf);
        return 0;
    case R_ONE:
        out->scale = 1.0;
        snprintf(out->src, sizeof out->src, "1 (%s)", w->hf);
        return 0;
    case R_KEY_RSQRT:
    case R_KEY:
        if ((rc = read_key(pb, t, w->key, w->def, &v)) < 0)
            return -1;
        out->scale = w->r == R_KEY ? v : 1.0 / sqrt(v);
        snprintf(out->key, sizeof out->key, "%s.%s", t->src, w->key);
        if (rc > 0)
            snprintf(out->src, sizeof out->src, "%s.%s (%s)", t->src, w->key, w->hf);
        else
            snprintf(out->src, sizeof out->src, "default %.17g of %s (%s)", w->def, w->key, w->hf);
        return 0;
    case R_MLA:
    case R_MLA_QLORA: {
        double nope = w->def, rope = 64.0; /* the config class's defaults */
        if (read_key(pb, t, "qk_nope_head_dim", w->def, &nope) < 0 ||
            read_key(pb, t, "qk_rope_head_dim", 64.0, &rope) < 0)
            return -1;
        out->scale = 1.0 / sqrt(nope + rope);
        snprintf(out->src, sizeof out->src,
                 "1/sqrt(%s.qk_nope_head_dim + %s.qk_rope_head_dim) (%s)", t->src, t->src, w->hf);
        return w->r == R_MLA ? 0 : qlora(pb, t, w, out);
    }
    case R_KEY_X_HD:
        if ((rc = read_key(pb, t, w->key, w->def, &v)) < 0)
            return -1;
        out->scale = v / sqrt((double)head_dim);
        snprintf(out->key, sizeof out->key, "%s.%s", t->src, w->key);
        if (rc > 0)
            snprintf(out->src, sizeof out->src, "%s.%s / sqrt(head_dim) (%s)", t->src, w->key,
                     w->hf);
        else
            snprintf(out->src, sizeof out->src, "default %.17g of %s / sqrt(head_dim) (%s)", w->def,
                     w->key, w->hf);
        return 0;
    case R_HALF_HEAD: {
        double hidden = 0.0, heads = 0.0;
        if (read_key(pb, t, "hidden_size", 2560.0, &hidden) < 0 ||
            read_key(pb, t, "num_attention_heads", 32.0, &heads) < 0)
            return -1;
        double hd = floor(2.0 * hidden / heads); /* integer division in Zamba2Config */
        out->scale = 1.0 / sqrt(hd / 2.0);
        snprintf(out->src, sizeof out->src,
                 "1/sqrt(attention_head_dim / 2), attention_head_dim = 2 %s.hidden_size // "
                 "%s.num_attention_heads (%s)",
                 t->src, t->src, w->hf);
        return 0;
    }
    case R_MPT: {
        const json_t *ac = NULL;
        if (api_get_object(pb, t->obj, t->ptr, "attn_config", &ac) < 0)
            return -1;
        char ptr[API_MC_PTR];
        api_ptr(ptr, sizeof ptr, t->ptr, "attn_config");
        rc = ac ? api_get_number(pb, ac, ptr, "softmax_scale", 0.0, HUGE_VAL, API_NUM_MIN_EXCL, &v)
                : 0;
        if (rc < 0)
            return -1;
        out->scale = rc > 0 ? v : 1.0 / sqrt((double)head_dim);
        if (rc > 0)
            snprintf(out->key, sizeof out->key, "%s.attn_config.softmax_scale", t->src);
        snprintf(out->src, sizeof out->src, "%s (%s)",
                 rc > 0 ? out->key : "1/sqrt(head_dim), attn_config.softmax_scale unset", w->hf);
        return 0;
    }
    }
    return 0;
}

int api_model_attn_scale(api_problem *pb, const api_model_text *t, int64_t head_dim,
                         api_model_scale *out)
{
    memset(out, 0, sizeof *out);
    const char *mt = text_type(t->model_type);
    const row *w = NULL;
    for (size_t i = 0; i < N_TABLE && w == NULL; i++)
        if (strcmp(TABLE[i].model_type, mt) == 0)
            w = &TABLE[i];
    if (head_dim < 1)
        head_dim = 1;
    if (w == NULL) {
        out->scale = 1.0 / sqrt((double)head_dim);
        snprintf(out->src, sizeof out->src,
                 "1/sqrt(head_dim), assumed (LlamaAttention's rule: modeling_llama.py)");
        snprintf(out->caveat, sizeof out->caveat,
                 mt[0] ? "model_type \"%.40s\" is not in posenc's table of attention scales: "
                         "1/sqrt(head_dim) is assumed (as LlamaAttention); send `scale` if the "
                         "model's attention scales otherwise"
                       : "%sthe config names no model_type: 1/sqrt(head_dim) is assumed (as "
                         "LlamaAttention); send `scale` if the model's attention scales otherwise",
                 mt);
        return 0;
    }
    out->known = 1;
    if (scale_of_row(pb, t, w, head_dim, out) < 0)
        return -1;
    if (w->note)
        snprintf(out->caveat, sizeof out->caveat, "%s", w->note);
    const json_t *fq = json_object_get(t->obj, "mla_scale_q_lora");
    if (w->r == R_MLA_QLORA && json_is_false(fq)) /* the readings differ: say which is answered */
        snprintf(
            out->caveat + strlen(out->caveat), sizeof out->caveat - strlen(out->caveat),
            "%s%s.mla_scale_q_lora is false: transformers' LongcatFlashMLA multiplies q "
            "by sqrt(hidden_size / q_lora_rank) whatever it says, as answered here; "
            "the checkpoint's remote code (modeling_longcat_flash.py) skips it when false (send "
            "scale for theirs)",
            out->caveat[0] ? "; " : "", t->src[0] ? t->src : "config");
    if (strcmp(mt, "gpt2") == 0) { /* per-layer and optional rules of GPT2Attention */
        const json_t *sw = json_object_get(t->obj, "scale_attn_weights");
        const json_t *il = json_object_get(t->obj, "scale_attn_by_inverse_layer_idx");
        if ((sw != NULL && json_is_false(sw)) || (il != NULL && json_is_true(il)))
            snprintf(out->caveat, sizeof out->caveat,
                     "scale_attn_weights false / scale_attn_by_inverse_layer_idx true change "
                     "GPT-2's scale (modeling_gpt2.py) and are not modelled: send `scale`");
    }
    for (size_t i = 0; i < sizeof SOFTCAP / sizeof SOFTCAP[0]; i++) {
        if (strcmp(SOFTCAP[i].model_type, mt) != 0)
            continue;
        double c = 0.0;
        const json_t *cj = json_object_get(t->obj, "attn_logit_softcapping");
        int rc = cj != NULL && json_is_null(cj) /* None: no softcapping */
                     ? 1
                     : read_key(pb, t, "attn_logit_softcapping", SOFTCAP[i].def, &c);
        if (rc < 0)
            return -1;
        out->softcap = c;
        if (rc > 0 && c == 0.0) { /* null: None */
            snprintf(out->softcap_key, sizeof out->softcap_key, "%s.attn_logit_softcapping",
                     t->src);
            snprintf(out->softcap_src, sizeof out->softcap_src, "%s is null: no soft-capping (%s)",
                     out->softcap_key, SOFTCAP[i].hf);
        } else if (rc > 0) {
            snprintf(out->softcap_key, sizeof out->softcap_key, "%s.attn_logit_softcapping",
                     t->src);
            snprintf(out->softcap_src, sizeof out->softcap_src, "%s (%s)", out->softcap_key,
                     SOFTCAP[i].hf);
        } else if (c > 0.0) {
            snprintf(out->softcap_src, sizeof out->softcap_src, "default %.17g (%s)", c,
                     SOFTCAP[i].hf);
        }
    }
    return 0;
}

void api_model_head_dim_warn(const api_model_text *t, int64_t head_dim, api_rc_warnings *w)
{
    if (w == NULL || strcmp(t->model_type, "nemotron_h") != 0 ||
        api_member(t->obj, "head_dim") != NULL)
        return;
    const json_t *a = api_member(t->obj, "attention_head_dim");
    if (json_is_integer(a) && json_integer_value(a) != head_dim)
        api_rc_warn(w,
                    "%s.attention_head_dim %lld: NemotronHConfig (transformers v5) has no such "
                    "field and its NemotronHAttention uses head_dim, %lld by default, as answered "
                    "here; code that sizes heads by attention_head_dim would scale by "
                    "%lld^-0.5: add head_dim to the config for that",
                    t->src[0] ? t->src : "config", (long long)json_integer_value(a),
                    (long long)head_dim, (long long)json_integer_value(a));
}
