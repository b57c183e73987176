/*
 * api/model_defaults.c -- the config-class defaults posenc uses where a published config.json
 * omits a key (see api_model_default_find in model_config.h): one row per model_type and key, each
 * citing the Hugging Face configuration class it follows.
 */
#include <stddef.h>
#include <string.h>

#include "api/model_config.h"
#include "api/req.h"

/* Config-class defaults that published files rely on (the 4B/12B/27B Gemma 3 text_config omits
 * rope_theta, head_dim and the head counts). */
static const api_model_default DEFAULTS[] = {
    {"gemma3_text", "rope_theta", 1000000.0,
     "Gemma3TextConfig (models/gemma3/configuration_gemma3.py)"},
    {"gemma3_text", "rope_local_base_freq", 10000.0,
     "Gemma3TextConfig (models/gemma3/configuration_gemma3.py)"},
    {"gemma3_text", "head_dim", 256.0, "Gemma3TextConfig (models/gemma3/configuration_gemma3.py)"},
    {"gemma3_text", "max_position_embeddings", 131072.0,
     "Gemma3TextConfig (models/gemma3/configuration_gemma3.py)"},
    {"gemma3_text", "sliding_window", 4096.0,
     "Gemma3TextConfig (models/gemma3/configuration_gemma3.py)"},
    {"gemma3n_text", "rope_theta", 1000000.0,
     "Gemma3nTextConfig (models/gemma3n/configuration_gemma3n.py)"},
    {"gemma3n_text", "rope_local_base_freq", 10000.0,
     "Gemma3nTextConfig (models/gemma3n/configuration_gemma3n.py)"},
    /* ModernBertConfig.default_theta {"global": 160000, "local": 10000}: the full-attention
     * layers' base when the file has no global_rope_theta, the sliding layers' without
     * local_rope_theta (convert_rope_params_to_dict: setdefault("rope_theta", kwargs.pop(...))) */
    {"modernbert", "rope_theta", 160000.0,
     "ModernBertConfig (models/modernbert/configuration_modernbert.py: default_theta global, the "
     "global_rope_theta of full-attention layers)"},
    {"modernbert", "local_rope_theta", 10000.0,
     "ModernBertConfig (models/modernbert/configuration_modernbert.py: default_theta local)"},
    {"gemma4_text", "global_head_dim", 512.0,
     "Gemma4TextConfig (models/gemma4/configuration_gemma4.py)"},
    /* PaliGemma's published text_config omits head_dim: 2304 / 8 = 288, but the class says 256 */
    {"gemma", "head_dim", 256.0, "GemmaConfig (models/gemma/configuration_gemma.py)"},
    {"gemma2", "head_dim", 256.0, "Gemma2Config (models/gemma2/configuration_gemma2.py)"},
    /* rope_theta where the class's default_theta is not PreTrainedConfig's 10000 (issue 15's
     * coverage sweep: each was answered at 10000 when the file omits rope_theta) */
    {"mixtral", "rope_theta", 1000000.0,
     "MixtralConfig (models/mixtral/configuration_mixtral.py: default_theta)"},
    {"phimoe", "rope_theta", 1000000.0,
     "PhimoeConfig (models/phimoe/configuration_phimoe.py: default_theta)"},
    {"qwen2_vl_text", "rope_theta", 1000000.0,
     "Qwen2VLTextConfig (models/qwen2_vl/configuration_qwen2_vl.py: default_theta)"},
    {"qwen2_5_vl_text", "rope_theta", 1000000.0,
     "Qwen2_5_VLTextConfig (models/qwen2_5_vl/configuration_qwen2_5_vl.py: rope_theta)"},
    {"qwen3_omni_moe_text", "rope_theta", 1000000.0,
     "Qwen3OmniMoeTextConfig (models/qwen3_omni_moe/configuration_qwen3_omni_moe.py: "
     "default_theta)"},
    {"ernie4_5", "rope_theta", 500000.0,
     "Ernie4_5Config (models/ernie4_5/configuration_ernie4_5.py: default_theta)"},
    {"ernie4_5_moe", "rope_theta", 500000.0,
     "Ernie4_5_MoeConfig (models/ernie4_5_moe/configuration_ernie4_5_moe.py: default_theta)"},
    {"llama4_text", "rope_theta", 500000.0,
     "Llama4TextConfig (models/llama4/configuration_llama4.py: default_theta)"},
    {"llama4_text", "head_dim", 128.0, "Llama4TextConfig (models/llama4/configuration_llama4.py)"},
    {"bitnet", "rope_theta", 500000.0,
     "BitNetConfig (models/bitnet/configuration_bitnet.py: default_theta)"},
    {"smollm3", "rope_theta", 2000000.0,
     "SmolLM3Config (models/smollm3/configuration_smollm3.py: default_theta)"},
    {"helium", "rope_theta", 100000.0,
     "HeliumConfig (models/helium/configuration_helium.py: default_theta)"},
    {"helium", "head_dim", 128.0, "HeliumConfig (models/helium/configuration_helium.py)"},
    {"gpt_oss", "rope_theta", 150000.0,
     "GptOssConfig (models/gpt_oss/configuration_gpt_oss.py: default_theta)"},
    {"gpt_oss", "head_dim", 64.0, "GptOssConfig (models/gpt_oss/configuration_gpt_oss.py)"},
    {"qwen3", "head_dim", 128.0, "Qwen3Config (models/qwen3/configuration_qwen3.py)"},
    {"qwen3_vl_text", "head_dim", 128.0,
     "Qwen3VLTextConfig (models/qwen3_vl/configuration_qwen3_vl.py)"},
    {"gemma3n_text", "head_dim", 256.0,
     "Gemma3nTextConfig (models/gemma3n/configuration_gemma3n.py)"},
    {"solar_open", "rope_theta", 1000000.0,
     "SolarOpenConfig (models/solar_open/configuration_solar_open.py: default_theta)"},
    {"solar_open", "head_dim", 128.0,
     "SolarOpenConfig (models/solar_open/configuration_solar_open.py)"},
    {"afmoe", "head_dim", 128.0, "AfmoeConfig (models/afmoe/configuration_afmoe.py)"},
    {"apertus", "rope_theta", 12000000.0,
     "ApertusConfig (models/apertus/configuration_apertus.py: default_theta)"},
    {"flex_olmo", "rope_theta", 500000.0,
     "FlexOlmoConfig (models/flex_olmo/configuration_flex_olmo.py: default_theta)"},
    {"cwm", "rope_theta", 1000000.0, "CwmConfig (models/cwm/modular_cwm.py: default_theta)"},
    {"cwm", "head_dim", 128.0, "CwmConfig (models/cwm/modular_cwm.py)"},
    /* the rotated share of the head when the file does not say */
    {"phi", "partial_rotary_factor", 0.5, "PhiConfig (models/phi/configuration_phi.py)"},
    {"persimmon", "partial_rotary_factor", 0.5,
     "PersimmonConfig (models/persimmon/configuration_persimmon.py)"},
    {"stablelm", "partial_rotary_factor", 0.25,
     "StableLmConfig (models/stablelm/configuration_stablelm.py)"},
    {"nemotron", "partial_rotary_factor", 0.5,
     "NemotronConfig (models/nemotron/configuration_nemotron.py)"},
    /* kwargs.setdefault("partial_rotary_factor", 0.5) in each __post_init__ (ml-explore/mlx-lm#1698
     * found THUDM/glm-4-9b-chat-hf relying on it) */
    {"glm", "partial_rotary_factor", 0.5, "GlmConfig (models/glm/configuration_glm.py)"},
    {"glm4", "partial_rotary_factor", 0.5, "Glm4Config (models/glm4/configuration_glm4.py)"},
    {"glm4_moe", "partial_rotary_factor", 0.5,
     "Glm4MoeConfig (models/glm4_moe/configuration_glm4_moe.py)"},
    {"glm4v_moe_text", "partial_rotary_factor", 0.5,
     "Glm4vMoeTextConfig (models/glm4v_moe/configuration_glm4v_moe.py)"},
    /* Qwen3NextConfig: head_dim 256, kwargs.setdefault("partial_rotary_factor", 0.25) */
    {"qwen3_next", "head_dim", 256.0,
     "Qwen3NextConfig (models/qwen3_next/configuration_qwen3_next.py)"},
    {"qwen3_next", "partial_rotary_factor", 0.25,
     "Qwen3NextConfig (models/qwen3_next/configuration_qwen3_next.py)"},
    {"gpt_neox", "partial_rotary_factor", 0.25,
     "GPTNeoXConfig (models/gpt_neox/configuration_gpt_neox.py: rotary_pct)"},
    /* Qwen3.5: Qwen3_5TextConfig / Qwen3_5MoeTextConfig __post_init__:
     * kwargs.setdefault("partial_rotary_factor", 0.25); head_dim 256 */
    {"qwen3_5_text", "partial_rotary_factor", 0.25,
     "Qwen3_5TextConfig (models/qwen3_5/configuration_qwen3_5.py)"},
    {"qwen3_5_text", "head_dim", 256.0,
     "Qwen3_5TextConfig (models/qwen3_5/configuration_qwen3_5.py)"},
    {"qwen3_5_moe_text", "partial_rotary_factor", 0.25,
     "Qwen3_5MoeTextConfig (models/qwen3_5_moe/configuration_qwen3_5_moe.py)"},
    {"qwen3_5_moe_text", "head_dim", 256.0,
     "Qwen3_5MoeTextConfig (models/qwen3_5_moe/configuration_qwen3_5_moe.py)"},
    /* Olmo3Config: default_theta 500000 (configuration_olmo3.py convert_rope_params_to_dict) */
    {"olmo3", "rope_theta", 500000.0, "Olmo3Config (models/olmo3/configuration_olmo3.py)"},
    /* RecurrentGemmaConfig: its attention blocks rotate half of the head at 10000 */
    {"recurrent_gemma", "partial_rotary_factor", 0.5,
     "RecurrentGemmaConfig (configuration_recurrent_gemma.py)"},
    {"recurrent_gemma", "rope_theta", 10000.0,
     "RecurrentGemmaConfig (configuration_recurrent_gemma.py)"},
    {"gptj", "rotary_dim", 64.0, "GPTJConfig (models/gptj/configuration_gptj.py)"},
    /* hybrid and newer types (api/model_hybrid.h): Lfm2Config reads kwargs "theta", else
     * "rope_theta", else 1e6 (api_model_base_alias); MiniMaxM2Config.convert_rope_params_to_dict:
     * default_theta 5e6, partial_rotary_factor = rotary_dim / head_dim, head_dim // 2 without
     * rotary_dim (0.5) */
    {"lfm2", "rope_theta", 1000000.0, "Lfm2Config (models/lfm2/configuration_lfm2.py)"},
    {"lfm2_moe", "rope_theta", 1000000.0,
     "Lfm2MoeConfig (models/lfm2_moe/configuration_lfm2_moe.py)"},
    {"minimax_m2", "rope_theta", 5000000.0,
     "MiniMaxM2Config (models/minimax_m2/configuration_minimax_m2.py: default_theta)"},
    {"minimax_m2", "head_dim", 128.0,
     "MiniMaxM2Config (models/minimax_m2/configuration_minimax_m2.py)"},
    {"minimax_m2", "partial_rotary_factor", 0.5,
     "MiniMaxM2Config (models/minimax_m2/configuration_minimax_m2.py: rotary_dim, else "
     "head_dim // 2)"},
    {"codegen", "rotary_dim", 64.0, "CodeGenConfig (models/codegen/configuration_codegen.py)"},
    /* LongcatFlashConfig: default_theta 1e7; hidden_size and q_lora_rank set LongcatFlashMLA's
     * q multiplier sqrt(hidden_size / q_lora_rank) (api/model_scale.c) */
    {"longcat_flash", "rope_theta", 10000000.0,
     "LongcatFlashConfig (models/longcat_flash/configuration_longcat_flash.py: default_theta)"},
    {"longcat_flash", "hidden_size", 6144.0,
     "LongcatFlashConfig (models/longcat_flash/configuration_longcat_flash.py)"},
    {"longcat_flash", "q_lora_rank", 1536.0,
     "LongcatFlashConfig (models/longcat_flash/configuration_longcat_flash.py)"},
    /* the layer count of hybrid / attention-free types whose file omits num_hidden_layers (each
     * class's default; nemotron_h counts its pattern, xlstm reads num_blocks first) */
    {"jamba", "num_hidden_layers", 32.0, "JambaConfig (models/jamba/configuration_jamba.py)"},
    {"granitemoehybrid", "num_hidden_layers", 32.0,
     "GraniteMoeHybridConfig (models/granitemoehybrid/configuration_granitemoehybrid.py)"},
    {"falcon_h1", "num_hidden_layers", 32.0,
     "FalconH1Config (models/falcon_h1/configuration_falcon_h1.py)"},
    {"lfm2", "num_hidden_layers", 32.0, "Lfm2Config (models/lfm2/configuration_lfm2.py)"},
    {"kimi_linear", "num_hidden_layers", 27.0,
     "KimiLinearConfig (models/kimi_linear/configuration_kimi_linear.py)"},
    {"zamba2", "num_hidden_layers", 54.0, "Zamba2Config (models/zamba2/configuration_zamba2.py)"},
    {"xlstm", "num_hidden_layers", 32.0, "xLSTMConfig (models/xlstm/configuration_xlstm.py)"},
    {"minimax", "rope_theta", 1000000.0,
     "MiniMaxConfig (models/minimax/configuration_minimax.py: default_theta)"},
    {"minimax_m2", "num_hidden_layers", 62.0,
     "MiniMaxM2Config (models/minimax_m2/configuration_minimax_m2.py)"},
    /* NemotronHAttention uses config.head_dim; the published files say attention_head_dim */
    {"nemotron_h", "head_dim", 128.0,
     "NemotronHConfig (models/nemotron_h/configuration_nemotron_h.py)"},
};

const api_model_default *api_model_default_find(const char *model_type, const char *key)
{
    /* a Gemma 3 wrapper whose text_config says no model_type builds a Gemma3TextConfig */
    if (model_type != NULL && strcmp(model_type, "gemma3") == 0)
        model_type = "gemma3_text";
    if (model_type != NULL && strcmp(model_type, "gemma3n") == 0)
        model_type = "gemma3n_text";
    if (model_type != NULL && strcmp(model_type, "gemma4") == 0)
        model_type = "gemma4_text";
    /* a flat Qwen2-VL / Qwen2.5-VL file builds its text config from the root keys; Llama 4's and
     * Qwen3-Omni's wrappers build theirs from text_config */
    if (model_type != NULL && strcmp(model_type, "qwen2_vl") == 0)
        model_type = "qwen2_vl_text";
    if (model_type != NULL && strcmp(model_type, "qwen2_5_vl") == 0)
        model_type = "qwen2_5_vl_text";
    if (model_type != NULL && strcmp(model_type, "llama4") == 0)
        model_type = "llama4_text";
    if (model_type != NULL && strcmp(model_type, "qwen3_vl") == 0)
        model_type = "qwen3_vl_text";
    /* a Qwen3.5 wrapper's text_config without model_type builds its text config class */
    if (model_type != NULL && strcmp(model_type, "qwen3_5") == 0)
        model_type = "qwen3_5_text";
    if (model_type != NULL && strcmp(model_type, "qwen3_5_moe") == 0)
        model_type = "qwen3_5_moe_text";
    for (size_t i = 0; model_type != NULL && i < sizeof DEFAULTS / sizeof DEFAULTS[0]; i++)
        if (strcmp(DEFAULTS[i].model_type, model_type) == 0 && strcmp(DEFAULTS[i].key, key) == 0)
            return &DEFAULTS[i];
    return NULL;
}

/* Defaults of a text config nested in a wrapper: LLaVA-1.5's text_config keeps only a few keys
 * (max_position_embeddings, model_type llama, ...) and HF builds a LlamaConfig from it, whose
 * class defaults give the rest. Applied to nested text configs only: a flat config without
 * these keys stays a 422 naming the key. */
static const api_model_default WRAPPED_DEFAULTS[] = {
    {"llama", "hidden_size", 4096.0, "LlamaConfig (models/llama/configuration_llama.py)"},
    {"llama", "num_attention_heads", 32.0, "LlamaConfig (models/llama/configuration_llama.py)"},
    {"llama", "num_hidden_layers", 32.0, "LlamaConfig (models/llama/configuration_llama.py)"},
    {"llama", "rope_theta", 10000.0, "LlamaConfig (models/llama/configuration_llama.py)"},
    {"llama", "max_position_embeddings", 2048.0,
     "LlamaConfig (models/llama/configuration_llama.py)"},
};

const api_model_default *api_model_text_default(const api_model_text *t, const char *key)
{
    const api_model_default *d = api_model_default_find(t->model_type, key);
    for (size_t i = 0;
         d == NULL && t->nested && i < sizeof WRAPPED_DEFAULTS / sizeof *WRAPPED_DEFAULTS; i++)
        if (strcmp(WRAPPED_DEFAULTS[i].model_type, t->model_type) == 0 &&
            strcmp(WRAPPED_DEFAULTS[i].key, key) == 0)
            d = &WRAPPED_DEFAULTS[i];
    return d;
}
