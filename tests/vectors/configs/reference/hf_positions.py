#!/usr/bin/env python3
"""Independent float64 reference: which position method each layer of a config.json uses, and the
RoPE numbers of every RoPE layer, following Hugging Face transformers (v5) as read in its source:

  configuration_*.py   class defaults (Gemma3TextConfig: rope_theta 1e6, head_dim 256,
                       rope_local_base_freq 1e4, sliding_window_pattern 6; Gemma4TextConfig:
                       global_head_dim 512; Llama4TextConfig / SmolLM3Config: no_rope_layers
                       default every 4th layer NoPE)
  modeling_rope_utils  inv_freq and attention factor per rope type (default, linear, dynamic,
                       yarn, longrope, llama3, proportional)
  modeling_llama4.py   the query temperature of the no-RoPE layers (attn_scale, floor_scale)
  modeling_olmo3.py    (4.57.1) sliding layers: rope_type default with the same base
  modeling_gemma4.py   Gemma4TextRotaryEmbedding: a proportional full_attention entry is computed
                       with head_dim_key "global_head_dim"
  configuration_jamba / nemotron_h / zamba2 / granitemoehybrid / lfm2 / kimi_linear.py
                       which layers of a hybrid model are attention and whether they rotate
                       (hybrid_layers below), and their attention scale (hybrid_scale)
  modeling_decilm.py   (Hub remote code of nemotron-nas) block_configs: no_op / linear attention
  modeling_bloom/falcon/mpt.py  ALiBi slopes per head (build_alibi_tensor, build_mpt_alibi_tensor)
  configuration_modernbert.py  ModernBERT's layer pattern and global / local bases
  modeling_m2m_100/xglm/marian/pegasus/whisper/fsmt/speech_to_text.py  the sinusoidal tables'
                       rows for the first tokens (describe_sinusoidal)
  modeling_*.py        which pairs rotate (adjacent pairs for gptj, codegen, glm*, ernie4_5*,
                       deepseek_v2/v3(+rope_interleave)/v32, llama4), HunYuan's dynamic alpha,
                       learned offsets (RoBERTa padding_idx + 1, OPT/BART 2), ALiBi, T5 buckets,
                       the DeepSeek softmax mscale

  apply_rotary_pos_emb rotated q / k and scores of every RoPE kind at a few positions ("probes":
                       rotate_half, adjacent pairs, DeepSeek's permuted interleave; Ministral 3's
                       query scale after RoPE), and Llama 4's temperature-scaled no-RoPE scores

Written for posenc's corpus test without reading posenc's code or output. Python stdlib only.
Usage: hf_positions.py CONFIG.json [...]  -> writes ../expected/<name>.json next to this folder.
"""
import json
import math
import os
import sys

NEST = ("thinker_config", "text_config", "llm_config", "language_config")


LLAMA_DEFAULTS = {"hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
                  "rope_theta": 10000.0, "max_position_embeddings": 2048}  # LlamaConfig


def text_model(cfg):
    """The innermost text config of a (possibly multimodal) config, and its model_type. A LLaVA
    wrapper builds its text_config with CONFIG_MAPPING[text_config.get("model_type", "llama")]
    (configuration_llava.py), so a sparse nested llama text config gets LlamaConfig's defaults."""
    mt = cfg.get("model_type") or ""
    wrapper = mt
    obj = cfg
    nested = False
    for _ in range(4):
        nxt = next((obj[k] for k in NEST if isinstance(obj.get(k), dict)), None)
        if nxt is None:
            break
        obj = nxt
        nested = True
        mt = obj.get("model_type") or mt
    if nested and obj.get("model_type") is None and wrapper in ("llava", "llava_next", "vipllava"):
        mt = "llama"
    if nested and mt == "llama":
        obj = dict(LLAMA_DEFAULTS, **{k: v for k, v in obj.items() if v is not None})
    if mt == "mistral4" and obj.get("rope_scaling") is None and obj.get("rope_parameters") is None:
        # Mistral4Config.__post_init__: rope_parameters None -> its YaRN dict; the dict has its own
        # rope_theta, so a top-level one is not read (convert_rope_params_to_dict setdefault)
        nope, rope = obj.get("qk_nope_head_dim", 64), obj.get("qk_rope_head_dim", 64)
        obj = {k: v for k, v in obj.items() if k != "rope_theta"}
        obj["rope_parameters"] = {
            "type": "yarn", "rope_theta": 10000.0, "factor": 128.0,
            "original_max_position_embeddings": 8192, "beta_fast": 32.0, "beta_slow": 1.0,
            "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1,
            "partial_rotary_factor": rope / (nope + rope)}
    return obj, mt


GEMMA3 = {"rope_theta": 1000000.0, "head_dim": 256, "rope_local_base_freq": 10000.0}
# Qwen3_5TextConfig / Qwen3_5MoeTextConfig: head_dim 256; __post_init__
# kwargs.setdefault("partial_rotary_factor", 0.25); layer_types from full_attention_interval (4)
QWEN35 = {"head_dim": 256, "partial_rotary_factor": 0.25}
QWEN35_TYPES = ("qwen3_5_text", "qwen3_5_moe_text", "qwen3_5", "qwen3_5_moe")


QWEN3_NEXT = {"head_dim": 256}  # Qwen3NextConfig


def get(cfg, key, mt, default=None):
    if cfg.get(key) is not None:
        return cfg[key]
    if mt in ("gemma3_text", "gemma3") and key in GEMMA3:
        return GEMMA3[key]
    if mt in QWEN35_TYPES and key in QWEN35:
        return QWEN35[key]
    if mt == "qwen3_next" and key in QWEN3_NEXT:
        return QWEN3_NEXT[key]
    if mt == "olmo3" and key == "rope_theta":
        return 500000.0  # Olmo3Config.default_theta
    return default


def head_dim(cfg, mt):
    if mt == "zamba2":  # Zamba2Config.attention_head_dim = 2 * hidden_size // num_attention_heads
        return 2 * cfg["hidden_size"] // cfg["num_attention_heads"]
    for k in ("qk_rope_head_dim", "head_dim"):
        v = get(cfg, k, mt)
        if v:
            return int(v)
    hid = cfg.get("hidden_size") or cfg.get("n_embd")
    heads = cfg.get("num_attention_heads") or cfg.get("n_head")
    return hid // heads


def rope_params(cfg):
    rp = cfg.get("rope_scaling")
    if rp is None:
        rp = cfg.get("rope_parameters")
    return dict(rp) if isinstance(rp, dict) else None


# Model types whose modeling_<type>.py (transformers v5) keeps LlamaRotaryEmbedding's
# compute_default_rope_parameters (dim = head_dim; no partial_rotary_factor read) and applies
# apply_rotary_pos_emb to all of q and k: a rotary fraction in their file does not change the
# default rope type's numbers; with a scaling type modeling_rope_utils builds
# int(head_dim * rope_parameters.partial_rotary_factor) dims that the attention cannot apply.
WHOLE_HEAD = {"llama", "mistral", "mixtral", "ministral", "ministral3", "qwen2", "qwen2_moe",
              "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3", "gemma3_text", "olmo", "olmo2",
              "olmo3", "olmoe", "smollm3", "exaone4", "starcoder2", "granite", "granitemoe",
              "granitemoehybrid", "falcon", "falcon_h1", "arcee", "apertus", "seed_oss", "helium",
              "dots1", "hunyuan_v1_dense", "hunyuan_v1_moe", "gpt_oss", "cohere", "cohere2",
              "lfm2", "lfm2_moe", "bitnet", "dbrx", "modernbert"}


def rotary_dim(cfg, mt, hd, rp):
    if mt in WHOLE_HEAD:
        f = cfg.get("partial_rotary_factor")
        if f is None and rp is not None:
            f = rp.get("partial_rotary_factor")
        scaled = rp is not None and rp.get("rope_type", rp.get("type", "default")) != "default"
        if f is not None and int(hd * f) != hd and scaled:
            raise ValueError("%s: HF's scaled inv_freq spans int(%d x %g) dims, its attention "
                             "all %d: no HF numbers" % (mt, hd, f, hd))
        return hd
    if mt == "mistral4":
        # configuration_mistral4.py: head_dim = qk_nope_head_dim + qk_rope_head_dim and
        # rope_parameters.setdefault("partial_rotary_factor", qk_rope_head_dim / head_dim);
        # modeling_rope_utils: dim = int(head_dim * partial_rotary_factor)
        whole = int(cfg.get("qk_nope_head_dim", 64)) + int(cfg.get("qk_rope_head_dim", 64))
        f = cfg.get("partial_rotary_factor")
        if f is None and rp is not None:
            f = rp.get("partial_rotary_factor")
        return int(whole * f) if f is not None else hd
    if mt == "minimax_m2":  # MiniMaxM2Config: rotary_dim / head_dim, else head_dim // 2
        return int(cfg.get("rotary_dim", hd // 2))
    if cfg.get("rotary_dim") is not None:
        return int(cfg["rotary_dim"])
    f = cfg.get("partial_rotary_factor")
    if f is None:
        f = cfg.get("rotary_pct")
    if f is None and rp is not None:
        f = rp.get("partial_rotary_factor")
    if f is None:
        f = get(cfg, "partial_rotary_factor", mt)
    if f is None and cfg.get("rotary_dim", 0) is not None:
        f = PARTIAL_DEFAULT.get(mt)  # the config class's default for a file without the key
    return int(hd * f) if f is not None else hd


# Config-class defaults of the rotated share: PhiConfig, PersimmonConfig, NemotronConfig 0.5,
# StableLmConfig 0.25, GPTNeoXConfig rotary_pct 0.25; GlmConfig, Glm4Config, Glm4MoeConfig
# kwargs.setdefault("partial_rotary_factor", 0.5); Qwen3NextConfig 0.25
PARTIAL_DEFAULT = {"phi": 0.5, "persimmon": 0.5, "nemotron": 0.5, "stablelm": 0.25,
                   "gpt_neox": 0.25, "glm": 0.5, "glm4": 0.5, "glm4_moe": 0.5,
                   "glm4v_moe_text": 0.5,  # Glm4vMoeTextConfig.__post_init__ setdefault
                   "qwen3_next": 0.25}


def base_of(cfg, mt, rp):
    # v5 convert_rope_params_to_dict: rope_parameters.setdefault("rope_theta", <top-level>): the
    # scaling object's own rope_theta wins over a top-level one
    if rp is not None and rp.get("rope_theta") is not None:
        return float(rp["rope_theta"])
    # Lfm2Config: kwargs.get("theta", kwargs.get("rope_theta", 1e6))
    keys = ("theta", "rope_theta") if mt in ("lfm2", "lfm2_moe") else ("rope_theta", "rotary_emb_base")
    for k in keys:
        if cfg.get(k) is not None:
            return float(cfg[k])
    return float(get(cfg, "rope_theta", mt, 10000.0))


# ERNIE 4.5 VL: modeling_ernie4_5_vl_moe.py rotate_half_text takes x[0::2], x[1::2]
ADJACENT = {"gptj", "codegen", "glm", "glm4", "glm4v", "glm4v_text", "ernie4_5", "ernie4_5_moe",
            "deepseek_v32", "llama4", "llama4_text", "ernie4_5_vl_moe", "ernie4_5_vl_moe_text"}
INTERLEAVE_DEFAULT_TRUE = {"deepseek_v2", "deepseek_v3", "glm4_moe_lite", "mistral4"}
# apply_rotary_pos_emb_interleave of modeling_deepseek_v3.py (deepseek_v32 imports it): permute
# the pairs apart, rotate_half, keep the permuted order
DEEPSEEK_APPLY = {"deepseek_v3", "deepseek_v32", "mistral4"}
# DeepseekV2/V3Attention; Mistral4Attention since transformers#47435
DEEPSEEK_SOFTMAX = {"deepseek_v2", "deepseek_v3", "deepseek_v32", "glm4_moe_lite", "mistral4"}
# get_llama_4_attn_scale after RoPE (modeling_ministral3.py, modeling_mistral4.py)
QUERY_SCALE = {"ministral3", "mistral4"}


def layout(cfg, mt):
    if mt in ADJACENT:
        return "interleaved"
    if cfg.get("rope_interleave") is not None:
        return "interleaved" if cfg["rope_interleave"] else "half"
    return "interleaved" if mt in INTERLEAVE_DEFAULT_TRUE else "half"


def plain(base, d):
    return [1.0 / (base ** ((2 * j) / d)) for j in range(d // 2)]


def mscale(s, m=1.0):
    return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0


def rope_numbers(cfg, mt, rp, base, d, maxpos):
    """(type, inv_freq, attention_factor, softmax_scale) at seq_len <= original length."""
    rtype = (rp or {}).get("rope_type", (rp or {}).get("type", "default")) if rp else "default"
    if mt == "phi3" and rtype in ("su", "yarn"):
        rtype = "longrope"
    if rtype == "su":
        rtype = "longrope"
    if rtype == "dynamic" and rp.get("alpha") and mt in ("hunyuan_v1_dense", "hunyuan_v1_moe"):
        b = base * rp["alpha"] ** (d / (d - 2))
        return "ntk", plain(b, d), 1.0, 1.0
    if rp and rp.get("mrope_section"):  # multi-axis: a text token's three positions are equal
        return ("mrope_interleaved" if rp.get("mrope_interleaved") else "mrope"), plain(base, d), 1.0, 1.0
    if rtype == "default":
        return "default", plain(base, d), 1.0, 1.0
    s = float(rp.get("factor", 1.0))
    if rtype == "linear":
        return "linear", [f / s for f in plain(base, d)], 1.0, 1.0
    if rtype == "dynamic":  # at seq_len <= max_position_embeddings: plain frequencies
        return "dynamic", plain(base, d), 1.0, 1.0
    l0 = rp.get("original_max_position_embeddings") or cfg.get("original_max_position_embeddings") or maxpos
    if rtype == "llama3":
        lo_f, hi_f = float(rp["low_freq_factor"]), float(rp["high_freq_factor"])
        out = []
        for f in plain(base, d):
            wl = 2 * math.pi / f
            if wl < l0 / hi_f:
                out.append(f)
            elif wl > l0 / lo_f:
                out.append(f / s)
            else:
                sm = (l0 / wl - lo_f) / (hi_f - lo_f)
                out.append((1 - sm) * f / s + sm * f)
        return "llama3", out, 1.0, 1.0
    if rtype == "yarn":
        bf, bs = rp.get("beta_fast") or 32, rp.get("beta_slow") or 1
        trunc = rp.get("truncate", True)

        def corr(r):
            return (d * math.log(l0 / (r * 2 * math.pi))) / (2 * math.log(base))
        lo, hi = corr(bf), corr(bs)
        if trunc:
            lo, hi = math.floor(lo), math.ceil(hi)
        lo, hi = max(lo, 0), min(hi, d - 1)
        if lo == hi:
            hi += 0.001
        out = []
        for j in range(d // 2):
            pf = base ** ((2 * j) / d)
            ramp = min(max((j - lo) / (hi - lo), 0.0), 1.0)
            keep = 1 - ramp
            out.append((1 / (s * pf)) * (1 - keep) + (1 / pf) * keep)
        m, mad = rp.get("mscale"), rp.get("mscale_all_dim")
        if rp.get("attention_factor") is not None:
            att = float(rp["attention_factor"])
        elif m and mad:
            att = mscale(s, m) / mscale(s, mad)
        else:
            att = mscale(s)
        soft = mscale(s, mad) ** 2 if (mad and mt in DEEPSEEK_SOFTMAX) else 1.0
        return "yarn", out, att, soft
    if rtype == "longrope":
        # _compute_longrope_parameters: factor = rope_parameters.factor, else (Phi-3's configs carry
        # none) max_position_embeddings / original_max_position_embeddings; short_factor while
        # seq_len <= the original length (long_factor: longrope_long below)
        lst = rp["short_factor"]
        out = [1.0 / (e * base ** ((2 * j) / d)) for j, e in enumerate(lst)]
        f = rp.get("factor")
        if f is None:
            f = maxpos / l0
        att = rp.get("attention_factor")
        if att is None:
            att = 1.0 if f <= 1 else math.sqrt(1 + math.log(f) / math.log(l0))
        return "longrope", out, att, 1.0
    raise ValueError("rope type " + rtype)


def proportional_kind(cfg, mt, rp, base, lt):
    """_compute_proportional_rope_parameters: head = config[head_dim_key] (global_head_dim for
    Gemma 4's full_attention layers) or hidden // heads; rope_angles = int(p * head // 2); the
    first rope_angles frequencies 1 / base ** (2i / head), the rest 0, all / factor; attention
    factor 1; rotate_half over the whole head."""
    key = "global_head_dim" if (lt == "full_attention" and mt in ("gemma4", "gemma4_text")) \
        else "head_dim"
    hd = cfg.get(key)
    if hd is None and key == "global_head_dim":
        hd = 512  # Gemma4TextConfig default
    if not hd:
        hd = cfg["hidden_size"] // cfg["num_attention_heads"]
    p = rp.get("partial_rotary_factor", 1.0)
    f = rp.get("factor", 1.0)
    angles = int(p * hd // 2)
    inv = [(1.0 / (base ** ((2 * i) / hd)) if i < angles else 0.0) / f for i in range(hd // 2)]
    return {"method": "rope", "head_dim": hd, "rotary_dim": hd, "base": base,
            "layout": layout(cfg, mt), "type": "proportional", "inv_freq": inv,
            "attention_factor": 1.0, "softmax_scale_factor": 1.0}


def rope_kind(cfg, mt, rp, base, lt=None):
    if rp and rp.get("rope_type", rp.get("type")) == "proportional":
        return proportional_kind(cfg, mt, rp, base, lt)
    hd = head_dim(cfg, mt)
    d = rotary_dim(cfg, mt, hd, rp)
    t, inv, att, soft = rope_numbers(cfg, mt, rp, base, d, cfg.get("max_position_embeddings"))
    out = {"method": "rope", "head_dim": hd, "rotary_dim": d, "base": base,
           "layout": layout(cfg, mt), "type": t, "inv_freq": inv, "attention_factor": att,
           "softmax_scale_factor": soft}
    l0 = (rp or {}).get("original_max_position_embeddings") or cfg.get("original_max_position_embeddings")
    if l0:
        out["original_max_position_embeddings"] = int(l0)
    if t == "longrope":  # seq_len > original length: long_factor (_longrope_frequency_update)
        out["inv_freq_long"] = [1.0 / (e * base ** ((2 * j) / d))
                                for j, e in enumerate(rp["long_factor"])]
    if out["layout"] == "interleaved" and mt in DEEPSEEK_APPLY:
        out["hf_apply"] = "deepseek_interleave"
    return out


def alibi_slopes(mt, heads):
    """The per-head ALiBi slopes as HF builds them (in float32 there; float64 here).
      bloom, falcon  build_alibi_tensor (modeling_bloom.py, modeling_falcon.py): c = 2 **
                     floor(log2 heads), base = 2 ** -(2 ** -(log2 c - 3)), slopes base ** 1..c;
                     then, when c < heads, extra_base = 2 ** -(2 ** -(log2 2c - 3)) to the odd
                     powers 1, 3, ... (heads - c of them)
      mpt            build_mpt_alibi_tensor (modeling_mpt.py, alibi_bias_max 8: MptModel never
                     passes the config's): n2 = 2 ** ceil(log2 heads), slopes 1 / 2 ** (i * 8 /
                     n2) for i = 1..n2; when n2 > heads, slopes[1::2] + slopes[::2], first heads"""
    if mt == "mpt":
        n2 = 2 ** math.ceil(math.log2(heads))
        sl = [1.0 / 2 ** (i * (8.0 / n2)) for i in range(1, n2 + 1)]
        if n2 != heads:
            sl = (sl[1::2] + sl[::2])[:heads]
        return sl
    c = 2 ** math.floor(math.log2(heads))
    base = 2 ** (-(2 ** -(math.log2(c) - 3)))
    sl = [base ** i for i in range(1, c + 1)]
    if c != heads:
        eb = 2 ** (-(2 ** -(math.log2(2 * c) - 3)))
        rem = min(c, heads - c)
        sl += [eb ** i for i in range(1, 1 + 2 * rem, 2)]
    return sl


# ---- hybrid and attention-free models: which layers are attention, which rotate ---------------
# (configuration_<type>.py places the layers, modeling_<type>.py says whether attention rotates)

ATTENTION_FREE = {"mamba": "mamba", "mamba2": "mamba", "falcon_mamba": "mamba", "rwkv": "rwkv",
                  "xlstm": "xlstm"}
HYBRID = {"jamba", "nemotron_h", "granitemoehybrid", "zamba2", "falcon_h1", "lfm2", "lfm2_moe",
          "kimi_linear", "nemotron-nas"}


def hybrid_layers(tc, mt, n):
    """[(mixer, rotates)] per layer, as each config class places them:
      jamba       JambaConfig.layers_block_type: attention where i % attn_layer_period ==
                  attn_layer_offset (8, 4); JambaAttention has no rotary embedding
      nemotron_h  layers_block_type, else hybrid_override_pattern (M mamba, * attention, - mlp,
                  E moe), one character per layer; NemotronHAttention has no rotary embedding
      zamba2      layers_block_type (mamba / hybrid = the shared attention block); the attention
                  rotates when use_mem_rope
      granitemoehybrid  layer_types (mamba / attention, default all mamba); rotates only with
                  position_embedding_type "rope"
      lfm2        layer_types (conv / full_attention), else full_attn_idxs, else every layer
      falcon_h1   every layer: RoPE attention beside a Mamba mixer
      kimi_linear layer_types, else linear_attn_config full_attn_layers / kda_layers (1-based),
                  else full where (i + 1) % 4 == 0 (today's KimiLinearConfig; its first release
                  had i and i % 4 == 0); its MLA layers use no RoPE
      nemotron-nas  the Hub repositories' remote code, modeling_decilm.py DeciLMDecoderLayer:
                  per layer block_configs[i]; attention.no_op -> no self_attn (the layer is its
                  FFN: "mlp", or nothing: "none" when ffn.no_op too); else
                  attention.replace_with_linear -> DeciLMLinearAttention (a Linear: "linear");
                  else DeciLMAttention, rotated by DeciLMRotaryEmbedding(config) as Llama"""
    if mt in ATTENTION_FREE:
        return [(ATTENTION_FREE[mt], False)] * n
    if mt == "jamba":
        per, off = tc.get("attn_layer_period", 8), tc.get("attn_layer_offset", 4)
        return [("attention" if i % per == off else "mamba", False) for i in range(n)]
    if mt == "nemotron_h":
        names = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe", "mamba": "mamba",
                 "linear_attention": "mamba", "attention": "attention",
                 "full_attention": "attention", "mlp": "mlp", "moe": "moe"}
        lst = tc.get("layers_block_type") or tc.get("layer_types") or \
            list(tc.get("hybrid_override_pattern", "ME*-"))
        return [(names[t], False) for t in lst]
    if mt == "zamba2":
        rope = bool(tc.get("use_mem_rope", False))
        return [("attention", rope) if t == "hybrid" else ("mamba", False)
                for t in tc["layers_block_type"]]
    if mt == "granitemoehybrid":
        rope = tc.get("position_embedding_type") == "rope"
        # attribute_map {"layers_block_type": "layer_types"}
        lst = tc.get("layer_types") or tc.get("layers_block_type") or ["mamba"] * n
        # transformers v5 remap_legacy_layer_types: attention -> full_attention
        return [("attention", rope) if t in ("attention", "full_attention") else ("mamba", False)
                for t in lst]
    if mt in ("lfm2", "lfm2_moe"):
        lst = tc.get("layer_types")
        if lst is None:
            idx = tc.get("full_attn_idxs", list(range(n)))
            lst = ["full_attention" if i in idx else "conv" for i in range(n)]
        return [("attention", True) if t == "full_attention" else ("conv", False) for t in lst]
    if mt == "falcon_h1":
        return [("attention", True)] * n
    if mt == "nemotron-nas":
        out = []
        for b in tc["block_configs"]:
            a, f = b["attention"], b.get("ffn") or {}
            if a.get("no_op"):
                out.append(("none" if f.get("no_op") else "mlp", False))
            elif a.get("replace_with_linear"):
                out.append(("linear", False))
            else:
                out.append(("attention", True))
        return out
    if mt == "kimi_linear":
        lst = tc.get("layer_types")
        lac = tc.get("linear_attn_config") or {}
        if lst is None and "full_attn_layers" in lac and "kda_layers" in lac:
            lst = [None] * n
            for i in lac["full_attn_layers"]:
                lst[i - 1] = "full_attention"
            for i in lac["kda_layers"]:
                lst[i - 1] = "linear_attention"
        if lst is None:
            lst = ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(n)]
        return [("attention", False) if t == "full_attention" else ("linear_attention", False)
                for t in lst]
    return None


def hybrid_scale(tc, mt):
    """The attention's softmax scale (modeling_<type>.py): head_dim**-0.5 (jamba, nemotron_h with
    NemotronHConfig's head_dim default 128, lfm2 hidden // heads); Zamba2Attention (head_dim / 2)
    **-0.5 with head_dim = 2 hidden // heads; FalconH1Attention key_multiplier * head_dim**-0.5
    (k_proj output times key_multiplier); GraniteMoeHybridAttention attention_multiplier;
    KimiLinearAttention (qk_nope_head_dim + qk_rope_head_dim)**-0.5 (128, 64)."""
    if mt in ATTENTION_FREE:
        return None
    hd = tc.get("head_dim") or tc["hidden_size"] // tc["num_attention_heads"]
    if mt == "nemotron_h":  # NemotronHConfig.head_dim = 128; NemotronHAttention reads only it
        hd = tc.get("head_dim") or 128
    if mt == "nemotron-nas":  # DeciLMAttention: head_dim = hidden_size // num_heads, no key
        hd = tc["hidden_size"] // tc["num_attention_heads"]
    if mt == "zamba2":
        return 1.0 / math.sqrt((2 * tc["hidden_size"] // tc["num_attention_heads"]) / 2)
    if mt == "falcon_h1":
        return tc.get("key_multiplier", 1.0) / math.sqrt(hd)
    if mt == "granitemoehybrid":
        return float(tc.get("attention_multiplier", 1.0))
    if mt == "kimi_linear":
        return 1.0 / math.sqrt(tc.get("qk_nope_head_dim", 128) + tc.get("qk_rope_head_dim", 64))
    return 1.0 / math.sqrt(hd)


def describe_hybrid(tc, mt, n):
    layers = hybrid_layers(tc, mt, n)
    sc = hybrid_scale(tc, mt)
    rp = rope_params(tc)
    out, rope = [], None
    for mixer, rotates in layers:
        if rotates:
            if rope is None:
                rope = rope_kind(tc, mt, rp, base_of(tc, mt, rp))
                rope["scale"] = sc
            out.append(rope)
        else:
            k = {"method": "none", "mixer": mixer}
            if sc is not None:
                k["scale"] = sc
            out.append(k)
    return mt, out, len(out)


# ---- sinusoidal tables (HF modeling files, transformers models/<name>/) ---------------------------
# M2M100SinusoidalPositionalEmbedding.get_embedding (NLLB-MoE's subclass, Speech2Text's copy,
# FSMT's fairseq SinusoidalPositionalEmbedding): half = d // 2, emb = log(10000) / (half - 1),
# freqs exp(arange(half) * -emb), cat([sin, cos]) and a zero column for odd d; the row of token t
# is padding_idx + 1 + t (create_position_ids_from_input_ids / make_positions, padding_idx =
# pad_token_id, default 1). XGLM: the same table, position_ids + 2. Marian / Pegasus _init_weight:
# pos / np.power(10000, 2 * (j // 2) / dim), sin of the even j in the first ceil(d/2) columns,
# cos of the odd j after; row t. Whisper: sinusoids() (get_embedding's frequencies, [sin, cos]),
# row t; WhisperDecoder's WhisperPositionalEmbedding is a learned nn.Embedding from 0.
SIN_PAD = ("m2m_100", "nllb-moe", "speech_to_text", "fsmt")
SIN_TYPES = SIN_PAD + ("xglm", "marian", "pegasus", "whisper")


def sin_row(conv, d, p):
    if conv == "vaswani":
        enc = [p / (10000 ** (2 * (j // 2) / d)) for j in range(d)]
        return [math.sin(x) for x in enc[0::2]] + [math.cos(x) for x in enc[1::2]]
    half = d // 2
    emb = math.log(10000) / (half - 1)
    f = [math.exp(k * -emb) for k in range(half)]
    return [math.sin(p * x) for x in f] + [math.cos(p * x) for x in f] + [0.0] * (d % 2)


def sin_probe(conv, d, offset, maxpos):
    tokens = sorted({0, 1, 2, min(1000, maxpos - 1)})
    cols = sorted({0, 1, 2, d // 2 - 1, d // 2, d // 2 + 1, d - 1})
    return {"tokens": tokens, "columns": cols,
            "values": [[sin_row(conv, d, offset + t)[c] for c in cols] for t in tokens]}


def describe_sinusoidal(tc, mt, n):
    d = tc["d_model"]
    conv = "vaswani" if mt in ("marian", "pegasus") else "fairseq"
    if mt == "xglm":
        maxpos = tc["max_position_embeddings"]
        k = {"method": "sinusoidal", "convention": conv, "offset": 2,
             "probe": sin_probe(conv, d, 2, maxpos)}
        return mt, [k] * n, n
    off = tc.get("pad_token_id", 1) + 1 if mt in SIN_PAD else 0
    ne = tc.get("encoder_layers") or n
    nd = tc.get("decoder_layers") or n
    src = tc.get("max_source_positions") or tc.get("max_position_embeddings")
    tgt = tc.get("max_target_positions") or tc.get("max_position_embeddings")
    enc = {"method": "sinusoidal", "stack": "encoder", "convention": conv, "offset": off,
           "probe": sin_probe(conv, d, off, src)}
    if mt == "whisper":
        dec = {"method": "learned_absolute", "offset": 0}
    else:
        dec = {"method": "sinusoidal", "stack": "decoder", "convention": conv, "offset": off,
               "probe": sin_probe(conv, d, off, tgt)}
    return mt, [enc] * ne + [dec] * nd, ne + nd


def describe(cfg):
    tc, mt = text_model(cfg)
    n = tc.get("num_hidden_layers") or tc.get("n_layer") or tc.get("num_layers") or tc.get("n_layers")
    if mt in HYBRID or mt in ATTENTION_FREE:
        return describe_hybrid(tc, mt, n)
    if mt in SIN_TYPES:
        return describe_sinusoidal(tc, mt, n)
    if mt == "distilbert" and tc.get("sinusoidal_pos_embds"):
        raise ValueError("distilbert with sinusoidal_pos_embds: not in this reference")
    if mt in ("bert", "gpt2", "gpt_neo", "electra", "distilbert"):
        k = {"method": "learned_absolute", "offset": 0}
        return mt, [k] * n, n
    if mt in ("roberta", "xlm-roberta", "camembert"):
        return mt, [{"method": "learned_absolute", "offset": tc.get("pad_token_id", 1) + 1}] * n, n
    if mt in ("opt", "bart", "mbart", "biogpt"):
        return mt, [{"method": "learned_absolute", "offset": 2}] * n, n
    if mt == "bloom" or (mt == "falcon" and tc.get("alibi")) or mt == "mpt":
        heads = tc.get("n_head") or tc.get("num_attention_heads") or tc.get("n_heads")
        return mt, [{"method": "alibi", "num_heads": heads, "slopes": alibi_slopes(mt, heads)}] * n, n
    if mt in ("t5", "mt5", "umt5", "longt5"):
        nb = tc.get("relative_attention_num_buckets", 32)
        md = tc.get("relative_attention_max_distance", 128)
        nd = tc.get("num_decoder_layers") or n
        enc = {"method": "t5_relative", "num_buckets": nb, "max_distance": md, "bidirectional": True}
        dec = dict(enc, bidirectional=False)
        return mt, [enc] * n + [dec] * nd, n + nd
    rp = rope_params(tc)
    per_type = rp is not None and "rope_type" not in rp and "type" not in rp and rp
    layer_types = tc.get("layer_types")
    gemma3 = mt in ("gemma3_text", "gemma3")
    # OLMo 3 with one flat scaling object: transformers 4.57.1 modeling_olmo3.py builds
    # rotary_embs = {"sliding_attention": Olmo3RotaryEmbedding(config, rope_type="default"),
    # "full_attention": Olmo3RotaryEmbedding(config)}: the sliding layers keep the base and drop
    # the scaling (layer_types default: every 4th layer full, Olmo3Config)
    # (layer_types default every 4th layer full whatever form rope_parameters take: Olmo3Config)
    olmo3 = mt == "olmo3"
    # ModernBertConfig (configuration_modernbert.py, v5): layer_types default "sliding_attention"
    # if i % global_attn_every_n_layers (3) else "full_attention"; rope_parameters.full_attention
    # .rope_theta from global_rope_theta (default_theta global 160000), sliding_attention's from
    # local_rope_theta (local 10000); ModernBertRotaryEmbedding: dim = hidden_size // heads
    modernbert = mt == "modernbert"
    olmo3_split = olmo3 and not per_type and rp is not None and \
        rp.get("rope_type", rp.get("type", "default")) != "default"
    pattern = tc.get("sliding_window_pattern") or tc.get("_sliding_window_pattern") or 6
    nrl = tc.get("no_rope_layers")
    if not nrl and mt in ("llama4_text", "llama4", "smollm3"):
        iv = tc.get("no_rope_layer_interval", 4)
        nrl = [int((i + 1) % iv != 0) for i in range(n)]
    cache = {}
    layers = []
    for i in range(n):
        if layer_types:
            lt = layer_types[i]
        elif gemma3:
            lt = "full_attention" if (i + 1) % pattern == 0 else "sliding_attention"
        elif olmo3:
            lt = "full_attention" if (i + 1) % 4 == 0 else "sliding_attention"
        elif modernbert:
            every = tc.get("global_attn_every_n_layers", 3)
            lt = "sliding_attention" if i % every else "full_attention"
        elif mt in QWEN35_TYPES or mt == "qwen3_next":
            every = tc.get("full_attention_interval", 4)
            lt = "full_attention" if (i + 1) % every == 0 else "linear_attention"
        else:
            lt = "full_attention"
        use = True
        # linear-attention / state-space layers take no positions (Qwen3-Next / Qwen3.5's
        # GatedDeltaNet layers: modeling_qwen3_next.py, modeling_qwen3_5.py decoder layers build
        # linear_attn for layer_type "linear_attention" and pass it no position embeddings)
        if lt in ("linear_attention", "mamba", "conv"):
            layers.append({"method": "none"})
            continue
        if nrl:
            use = bool(nrl[i])
        if mt == "exaone4" and tc.get("sliding_window") is not None and lt != "sliding_attention":
            use = False
        if not use:
            none = {"method": "none"}
            # modeling_llama4.py: attn_temperature_tuning and not use_rope scales q by
            # log1p(floor((pos + 1) / floor_scale)) * attn_scale + 1 (Llama4TextConfig defaults)
            if mt in ("llama4", "llama4_text") and tc.get("attn_temperature_tuning", True):
                none["query_scale"] = {"attn_scale": float(tc.get("attn_scale", 0.1)),
                                       "floor_scale": float(tc.get("floor_scale", 8192))}
            layers.append(none)
            continue
        key = lt if (per_type or gemma3 or olmo3_split or modernbert) else "all"
        if key not in cache:
            c, r = tc, rp
            if per_type:
                r = dict(rp.get(lt) or rp.get("full_attention"))
                c = dict(tc, rope_parameters=r)
                c.pop("rope_scaling", None)
                # the entry's rope_theta, else the top-level one (Gemma3Config / Olmo3Config
                # convert_rope_params_to_dict: entry.setdefault("rope_theta", ...))
                base = base_of(c, mt, r)
            elif gemma3 and lt == "sliding_attention":
                r = None
                base = float(get(tc, "rope_local_base_freq", mt))
            elif modernbert and not per_type:
                r = None
                if lt == "sliding_attention":
                    base = float(tc.get("local_rope_theta", 10000.0))
                else:
                    base = float(tc.get("global_rope_theta", 160000.0))
            elif olmo3_split and lt == "sliding_attention":
                base = base_of(tc, mt, rp)
                r = None
            else:
                base = base_of(tc, mt, rp)
            cache[key] = rope_kind(c, mt, r, base, lt)
        layers.append(cache[key])
    return mt, layers, n



# ---- scores: HF's apply_rotary_pos_emb on fixed q, k at a few positions ----------------------

def probe_vectors(n):
    """The fixed q and k of every probe, length n (head_dim): q[i] = sin(0.37 (i + 1)),
    k[i] = cos(0.11 (i + 1) + 0.5)."""
    return ([math.sin(0.37 * (i + 1)) for i in range(n)],
            [math.cos(0.11 * (i + 1) + 0.5) for i in range(n)])


def probe_positions(tc, kind):
    """The probes' position sets: 0, 1, 7, 1000, the original length L0 (where the scaling has
    one below the maximum) and max_position_embeddings - 1. HF's longrope update reads seq_len =
    max(position_ids) + 1 and takes long_factor beyond L0: such a kind gets a second set that
    stays within L0 (0, 1, 7, 1000, L0 - 1), answered with short_factor. Returns [(positions,
    inv_freq)]."""
    maxpos = tc.get("max_position_embeddings") or tc.get("n_positions") or 2048
    ps = {0, 1, 7, 1000, maxpos - 1}
    l0 = kind.get("original_max_position_embeddings")
    if l0 and l0 < maxpos:
        ps.add(int(l0))
    sets = [(sorted(p for p in ps if p < maxpos), kind["inv_freq"])]
    if kind["type"] == "longrope":
        top = l0 if l0 else maxpos
        if max(sets[0][0]) + 1 > top:
            sets[0] = (sets[0][0], kind["inv_freq_long"])
        sets.append((sorted(p for p in {0, 1, 7, 1000, top - 1} if p < top), kind["inv_freq"]))
    return sets


def rotate(x, kind, p, inv_freq):
    """x (head_dim numbers) at position p as HF's modeling code of the kind's layout rotates it.
    cos/sin as the rotary embeddings return them: angle = p * inv_freq[j] (float64 here), both
    times attention_factor; only the first rotary_dim dims rotate, the rest pass through.
      half         rotate_half: emb = cat(freqs, freqs); x * cos + cat(-x2, x1) * sin
                   (modeling_llama.py apply_rotary_pos_emb; gpt_neox, phi, gemma*, qwen*, ...)
      interleaved  adjacent pairs: cos/sin repeat_interleave(2); x * cos + rotate_every_two(x) *
                   sin with rotate_every_two = stack(-x[1::2], x[0::2]).flatten (modeling_gptj.py;
                   glm4's rotate_half_llm, ernie4_5) -- Llama 4's complex product
                   (x0 + i x1) * (cos + i sin) is the same pair rotation
      deepseek     apply_rotary_pos_emb_interleave (modeling_deepseek_v3.py, used by
                   deepseek_v32): x.view(d/2, 2).transpose -> (x0, x2, ..., x1, x3, ...), then
                   rotate_half; the result stays in that order (returned as order[])."""
    d, af = kind["rotary_dim"], kind["attention_factor"]
    rot, rest = x[:d], x[d:]
    h = d // 2
    c = [math.cos(p * f) * af for f in inv_freq]
    s = [math.sin(p * f) * af for f in inv_freq]
    if kind["layout"] == "interleaved" and kind.get("hf_apply") != "deepseek_interleave":
        out = []
        for j in range(h):
            a, b = rot[2 * j], rot[2 * j + 1]
            out += [a * c[j] + (-b) * s[j], b * c[j] + a * s[j]]
        return out + rest
    if kind.get("hf_apply") == "deepseek_interleave":
        rot = rot[0::2] + rot[1::2]
    cc, ss = c + c, s + s
    rh = [-v for v in rot[h:]] + rot[:h]
    return [rot[i] * cc[i] + rh[i] * ss[i] for i in range(d)] + rest


def probe_rope(tc, mt, kind, pos, inv_freq):
    """A probe of the kind at positions pos with frequencies inv_freq: q, k, positions,
    q_rotated / k_rotated [P][head_dim] in HF's output order, scores [P][P] = q_rotated(p) . k_rotated(p') (no 1/sqrt(d), no softmax factor), and
    q_scale [P] where the model scales queries after RoPE (modeling_ministral3.py:
    q * (1 + beta * log(1 + floor(cache_position / original_max_position_embeddings))), beta =
    rope_parameters.llama_4_scaling_beta)."""
    q, k = probe_vectors(kind["head_dim"])
    rp = rope_params(tc) or {}
    qs = [1.0] * len(pos)
    if mt in QUERY_SCALE and rp.get("llama_4_scaling_beta") is not None:
        beta, l0 = float(rp["llama_4_scaling_beta"]), rp["original_max_position_embeddings"]
        qs = [1 + beta * math.log(1 + math.floor(p / l0)) for p in pos]
    qr = [[v * qs[a] for v in rotate(q, kind, p, inv_freq)] for a, p in enumerate(pos)]
    kr = [rotate(k, kind, p, inv_freq) for p in pos]
    sc = [[math.fsum(x * y for x, y in zip(qa, kb)) for kb in kr] for qa in qr]
    out = {"q": q, "k": k, "positions": pos, "q_rotated": qr, "k_rotated": kr, "scores": sc}
    if mt in QUERY_SCALE and rp.get("llama_4_scaling_beta") is not None:
        out["q_scale"] = qs
    if kind.get("hf_apply") == "deepseek_interleave":
        d = kind["rotary_dim"]
        out["order"] = list(range(0, d, 2)) + list(range(1, d, 2)) + list(range(d, len(q)))
    return out


def probe_none(tc, kind):
    """A no-RoPE kind with Llama 4's query temperature: contiguous blocks of positions (offset,
    offset + 1, ...), q and k unrotated, q times log1p(floor((p + 1) / floor_scale)) * attn_scale
    + 1 (modeling_llama4.py, cache_position), scores [T][T] = q_scaled(p) . k per block."""
    hd = tc.get("head_dim") or tc["hidden_size"] // tc["num_attention_heads"]
    q, k = probe_vectors(hd)
    qs_ = kind["query_scale"]
    maxpos = tc.get("max_position_embeddings") or 2048
    fs = int(qs_["floor_scale"])
    blocks = []
    for off in (0, fs - 3, 2 * fs - 2, maxpos - 4):
        pos = list(range(off, off + 4))
        s = [math.log1p(math.floor((p + 1) / qs_["floor_scale"])) * qs_["attn_scale"] + 1
             for p in pos]
        qk = math.fsum(x * y for x, y in zip(q, k))
        blocks.append({"offset": off, "q_scale": s, "scores": [[sa * qk] * 4 for sa in s]})
    return {"q": q, "k": k, "blocks": blocks}


def main(paths):
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = os.path.join(os.path.dirname(here), "expected")
    for p in paths:
        cfg = json.load(open(p))
        mt, layers, n = describe(cfg)
        kinds, index = [], []
        for lay in layers:
            if lay not in kinds:
                kinds.append(lay)
            index.append(kinds.index(lay))
        tc = text_model(cfg)[0]
        for kd in kinds:
            if kd["method"] == "rope":
                kd["probes"] = [probe_rope(tc, mt, kd, pos, inv)
                                for pos, inv in probe_positions(tc, kd)]
            elif kd.get("query_scale"):
                kd["probes"] = [probe_none(tc, kd)]
        out = {"model_type": mt, "num_layers": n,
               "methods": [lay["method"] for lay in layers], "layers": index, "kinds": kinds}
        name = os.path.splitext(os.path.basename(p))[0]
        with open(os.path.join(outdir, name + ".json"), "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
