/*
 * api/model_hybrid.c -- the layers of hybrid and attention-free model types (see model_hybrid.h).
 * Every rule cites the Hugging Face file it follows (transformers v5, src/transformers/models/).
 */
#include "api/model_hybrid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/req.h"

#define MAX_LAYERS 4096

/* Model types without attention in any layer: the block each layer is. */
static const struct {
    const char *model_type;
    const char *mixer;
    const char *why;
} FREE[] = {
    {"mamba", "mamba", "Mamba: a selective state-space block, no attention (modeling_mamba.py)"},
    {"mamba2", "mamba", "Mamba-2: a state-space block, no attention (modeling_mamba2.py)"},
    {"falcon_mamba", "mamba",
     "Falcon-Mamba: a Mamba block, no attention (modeling_falcon_mamba.py)"},
    {"rwkv", "rwkv",
     "RWKV: time-mixing recurrence, no attention and no positions "
     "(modeling_rwkv.py)"},
    {"xlstm", "xlstm", "xLSTM: mLSTM blocks, no attention (modeling_xlstm.py)"},
    /* RWKV-6 / RWKV-7 checkpoints run on flash-linear-attention's remote code (fla-hub) */
    {"rwkv6", "rwkv", "RWKV-6: time-mixing recurrence, no attention (fla remote code)"},
    {"rwkv7", "rwkv", "RWKV-7: time-mixing recurrence, no attention (fla remote code)"},
};

/* Hybrid model types (attention beside or between other blocks). */
static const char *const HYBRID[] = {
    "jamba", "nemotron_h", "granitemoehybrid", "zamba2",       "falcon_h1",
    "lfm2",  "lfm2_moe",   "kimi_linear",      "nemotron-nas", NULL};

int api_model_attention_free(const char *model_type)
{
    for (size_t i = 0; model_type != NULL && i < sizeof FREE / sizeof FREE[0]; i++)
        if (strcmp(FREE[i].model_type, model_type) == 0)
            return 1;
    return 0;
}

int api_model_hybrid_known(const char *model_type)
{
    return model_type != NULL &&
           (api_model_attention_free(model_type) || api_str_in_list(HYBRID, model_type));
}

void api_hy_plan_free(api_hy_plan *p)
{
    free(p->layer);
    memset(p, 0, sizeof *p);
}

static const char *const NOPE_JAMBA =
    "Jamba's attention layers use no positional encoding (modeling_jamba.py JambaAttention)";
static const char *const NOPE_NEMOTRON =
    "Nemotron-H's attention layers use no positional encoding (modeling_nemotron_h.py "
    "NemotronHAttention)";
static const char *const NOPE_GRANITE =
    "position_embedding_type is not \"rope\": GraniteMoeHybridModel builds no rotary embedding "
    "(modeling_granitemoehybrid.py)";
static const char *const NOPE_ZAMBA =
    "use_mem_rope is false: Zamba2's shared attention block applies no rotary embedding "
    "(modeling_zamba2.py)";
static const char *const NOPE_KIMI =
    "Kimi Linear's MLA full-attention layers use no RoPE (modeling_kimi_linear.py "
    "KimiLinearAttention: \"MLA ... with NoPE\")";
static const char *const MAMBA_WHY = "a Mamba (state-space) block: no attention, no positions";

static void set(api_hy_layer *l, const char *mixer, int rope, const char *why)
{
    l->mixer = mixer;
    l->rope = rope;
    l->why = why;
}

/* A list of layer type strings at key (one per layer); map each through names[] -> mixers[] (the
 * rope flag from rope_of[]). Returns the count read (0 when absent), -1 on error. */
static int64_t read_types(api_problem *pb, const api_model_text *t, const char *key,
                          const char *const *names, const char *const *mixers, const int *rope_of,
                          const char *nope_why, api_hy_layer *out, int64_t n_expect)
{
    const json_t *v = api_member(t->obj, key);
    char fp[API_MC_PTR + 48];
    api_ptr(fp, sizeof fp, t->ptr, key);
    if (v == NULL)
        return 0;
    if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > MAX_LAYERS ||
        (n_expect > 0 && (int64_t)json_array_size(v) != n_expect)) {
        if (n_expect > 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                              "must be an array of layer type strings, one per layer (%lld "
                              "layers)",
                              (long long)n_expect);
        else
            api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                              "must be a non-empty array of layer type strings, one per layer "
                              "(the layer count is its length)");
        return -1;
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        const char *s = json_string_value(json_array_get(v, i));
        int k = -1;
        for (int j = 0; s != NULL && names[j] != NULL && k < 0; j++)
            if (strcmp(names[j], s) == 0)
                k = j;
        if (k < 0) {
            char ep[API_MC_PTR + 64];
            api_ptr_idx(ep, sizeof ep, fp, i);
            char list[160] = "";
            for (int j = 0; names[j] != NULL; j++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "",
                         names[j]);
            api_problem_field(pb, API_PB_INVALID_FIELD, ep,
                              "is not a layer type of model_type \"%.40s\" (%s)", t->model_type,
                              list);
            return -1;
        }
        set(&out[i], mixers[k], rope_of[k], rope_of[k] ? NULL : nope_why);
        if (strcmp(mixers[k], "attention") != 0)
            out[i].why = MAMBA_WHY;
        if (strcmp(mixers[k], "conv") == 0)
            out[i].why = "a short-convolution block: no attention, no positions";
        if (strcmp(mixers[k], "linear_attention") == 0)
            out[i].why = "a linear-attention block: it takes no positions";
        if (strcmp(mixers[k], "mlp") == 0 || strcmp(mixers[k], "moe") == 0)
            out[i].why = "an MLP / MoE block: no attention, no positions";
    }
    return (int64_t)json_array_size(v);
}

/* Nemotron-H: NemotronHConfig (configuration_nemotron_h.py). */
static int plan_nemotron(api_problem *pb, const api_model_text *t, api_hy_plan *p)
{
    static const char *const NAMES[] = {
        "mamba", "linear_attention", "attention", "full_attention", "mlp", "moe", NULL};
    static const char *const MIX[] = {"mamba", "mamba", "attention", "attention", "mlp", "moe"};
    static const int ROPE[] = {0, 0, 0, 0, 0, 0};
    const char *keys[] = {"layers_block_type", "layer_types"};
    for (size_t i = 0; i < 2; i++) {
        int64_t n = read_types(pb, t, keys[i], NAMES, MIX, ROPE, NOPE_NEMOTRON, p->layer, 0);
        if (n < 0)
            return -1;
        if (n > 0) {
            p->n_layers = n;
            snprintf(p->layers_src, sizeof p->layers_src,
                     "%s.%s (NemotronHConfig: the layer count is its length)", t->src, keys[i]);
            return 0;
        }
    }
    const json_t *pat = api_member(t->obj, "hybrid_override_pattern");
    char fp[API_MC_PTR + 48];
    api_ptr(fp, sizeof fp, t->ptr, "hybrid_override_pattern");
    /* without either: the class's default list [linear_attention, moe, full_attention, mlp] */
    const char *s = pat != NULL ? json_string_value(pat) : "ME*-";
    size_t len = s != NULL ? strlen(s) : 0;
    if (s == NULL || len == 0 || len > MAX_LAYERS) {
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "must be a string of M (mamba), * (attention), - (MLP), E (MoE), one "
                          "character per layer");
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        const char *c = strchr("M*-E", s[i]);
        if (c == NULL || s[i] == '\0') {
            api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                              "character %zu ('%c') is not a Nemotron-H block: M (mamba), * "
                              "(attention), - (MLP), E (MoE) (NemotronHConfig._pattern_to_list)",
                              i, s[i]);
            return -1;
        }
        static const char *const M[] = {"mamba", "attention", "mlp", "moe"};
        const char *mx = M[c - "M*-E"];
        set(&p->layer[i], mx, 0,
            strcmp(mx, "attention") == 0 ? NOPE_NEMOTRON
            : strcmp(mx, "mamba") == 0   ? MAMBA_WHY
                                         : "an MLP / MoE block: no attention, no positions");
    }
    p->n_layers = (int64_t)len;
    if (pat != NULL)
        snprintf(p->layers_src, sizeof p->layers_src,
                 "%s.hybrid_override_pattern (NemotronHConfig: one character per layer)", t->src);
    else
        snprintf(p->layers_src, sizeof p->layers_src,
                 "default of NemotronHConfig (layers_block_type [linear_attention, moe, "
                 "full_attention, mlp])");
    return 0;
}

/* Jamba: JambaConfig.layers_block_type (configuration_jamba.py). */
static int plan_jamba(api_problem *pb, const api_model_text *t, api_hy_plan *p)
{
    int64_t period = 8, offset = 4;
    int rp = api_get_int(pb, t->obj, t->ptr, "attn_layer_period", 1, MAX_LAYERS, &period);
    int ro = api_get_int(pb, t->obj, t->ptr, "attn_layer_offset", 0, MAX_LAYERS, &offset);
    if (rp < 0 || ro < 0)
        return -1;
    if (offset >= period) {
        api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, "attn_layer_offset",
                        "must be smaller than attn_layer_period (%lld): JambaConfig refuses it "
                        "(_check_supported_offset)",
                        (long long)period);
        return -1;
    }
    for (int64_t l = 0; l < p->n_layers; l++) {
        if (l % period == offset)
            set(&p->layer[l], "attention", 0, NOPE_JAMBA);
        else
            set(&p->layer[l], "mamba", 0, MAMBA_WHY);
    }
    char ps[API_MC_PTR + 64], os[API_MC_PTR + 64];
    if (rp > 0)
        snprintf(ps, sizeof ps, "%s.attn_layer_period", t->src);
    else
        snprintf(ps, sizeof ps, "default of JambaConfig (attn_layer_period %lld)",
                 (long long)period);
    if (ro > 0)
        snprintf(os, sizeof os, "%s.attn_layer_offset", t->src);
    else
        snprintf(os, sizeof os, "default of JambaConfig (attn_layer_offset %lld)",
                 (long long)offset);
    snprintf(p->layers_src, sizeof p->layers_src,
             "%.200s, %.200s: attention where layer %% period == offset (JambaConfig)", ps, os);
    return 0;
}

/* GraniteMoeHybrid: layer_types and position_embedding_type (configuration_ and
 * modeling_granitemoehybrid.py). */
static int plan_granite(api_problem *pb, const api_model_text *t, api_hy_plan *p)
{
    const json_t *pe = api_member(t->obj, "position_embedding_type");
    int rope = 0;
    if (pe != NULL) {
        const char *s = json_string_value(pe);
        if (s == NULL || (strcmp(s, "rope") != 0 && strcmp(s, "nope") != 0)) {
            api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, "position_embedding_type",
                            "must be \"rope\", \"nope\" or null: GraniteMoeHybridModel rotates "
                            "only for \"rope\" (modeling_granitemoehybrid.py)");
            return -1;
        }
        rope = strcmp(s, "rope") == 0;
    }
    /* v5's names too (remap_legacy_layer_types: mamba -> linear_attention, attention ->
     * full_attention), as a config saved by transformers 5 carries them */
    static const char *const NAMES[] = {"mamba", "linear_attention", "attention", "full_attention",
                                        NULL};
    static const char *const MIX[] = {"mamba", "mamba", "attention", "attention"};
    int rope_of[] = {0, 0, rope, rope};
    /* attribute_map {"layers_block_type": "layer_types"}: either spelling places the layers; both
     * with different lists is a 422 (which one HF keeps depends on the order it sets them) */
    const char *key = "layer_types";
    const json_t *lt = api_member(t->obj, "layer_types"),
                 *lb = api_member(t->obj, "layers_block_type");
    if (lb != NULL && lt != NULL && !json_equal(lt, lb)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, "layers_block_type",
                        "differs from layer_types, of which GraniteMoeHybridConfig makes it an "
                        "alias (attribute_map): send one list");
        return -1;
    }
    if (lt == NULL && lb != NULL)
        key = "layers_block_type";
    const json_t *lk = api_member(t->obj, key);
    if (json_is_array(lk) && json_array_size(lk) == 0) {
        api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, key,
                        "is empty: transformers 4.x's GraniteMoeHybridConfig read that as every "
                        "layer Mamba, v5's keeps it empty (no layer type for the model to "
                        "index); send one type per layer, or leave the key out for every layer "
                        "Mamba");
        return -1;
    }
    int64_t n = read_types(pb, t, key, NAMES, MIX, rope_of, NOPE_GRANITE, p->layer, p->n_layers);
    if (n < 0)
        return -1;
    if (n == 0) { /* GraniteMoeHybridConfig.layers_block_type: all mamba */
        for (int64_t l = 0; l < p->n_layers; l++)
            set(&p->layer[l], "mamba", 0, MAMBA_WHY);
        snprintf(p->layers_src, sizeof p->layers_src,
                 "default of GraniteMoeHybridConfig (layers_block_type: every layer mamba)");
    } else {
        snprintf(p->layers_src, sizeof p->layers_src,
                 "%s.%s%s, %s.position_embedding_type (modeling_granitemoehybrid.py)", t->src, key,
                 strcmp(key, "layer_types") ? " (GraniteMoeHybridConfig: alias of layer_types)"
                                            : "",
                 t->src);
    }
    return 0;
}

/* Zamba2: Zamba2Config.layers_block_type, use_mem_rope (configuration_zamba2.py). */
static int plan_zamba2(api_problem *pb, const api_model_text *t, api_hy_plan *p)
{
    int mem_rope = 0, long_ctx = 0;
    if (api_get_bool(pb, t->obj, t->ptr, "use_mem_rope", &mem_rope) < 0 ||
        api_get_bool(pb, t->obj, t->ptr, "use_long_context", &long_ctx) < 0)
        return -1;
    if (mem_rope && long_ctx) { /* Zamba2RotaryEmbedding: base x 8^(d / (d - 2)) */
        api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, "use_long_context",
                        "true changes Zamba2's rotary base (rope_theta x 8^(d / (d - 2)), "
                        "configuration_zamba2.py) and posenc does not apply it from a pasted "
                        "config yet: send POST /rope with scaling {\"type\": \"ntk\", "
                        "\"alpha\": 8} and head_dim 2 hidden_size / num_attention_heads");
        return -1;
    }
    /* v5's Zamba2Config says linear_attention for mamba (remap_legacy_layer_types) */
    static const char *const NAMES[] = {"mamba", "linear_attention", "hybrid", NULL};
    static const char *const MIX[] = {"mamba", "mamba", "attention"};
    int rope_of[] = {0, 0, mem_rope};
    int64_t n = read_types(pb, t, "layers_block_type", NAMES, MIX, rope_of, NOPE_ZAMBA, p->layer,
                           p->n_layers);
    if (n < 0)
        return -1;
    if (n == 0) {
        /* the class's default: mamba, then (5 mamba + hybrid) x 7, 4 mamba, hybrid, 3 mamba,
         * hybrid, 2 mamba (54 layers) */
        if (p->n_layers != 54) {
            api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, "layers_block_type",
                            "is required: Zamba2Config's default list has 54 layers, the "
                            "config %lld",
                            (long long)p->n_layers);
            return -1;
        }
        static const int HY[] = {6, 12, 18, 24, 30, 36, 42, 47, 51};
        for (int64_t l = 0; l < 54; l++)
            set(&p->layer[l], "mamba", 0, MAMBA_WHY);
        for (size_t i = 0; i < sizeof HY / sizeof HY[0]; i++)
            set(&p->layer[HY[i]], "attention", mem_rope, mem_rope ? NULL : NOPE_ZAMBA);
        snprintf(p->layers_src, sizeof p->layers_src,
                 "default of Zamba2Config (layers_block_type), %s.use_mem_rope", t->src);
    } else {
        snprintf(p->layers_src, sizeof p->layers_src,
                 "%s.layers_block_type (hybrid: the shared attention block), %s.use_mem_rope",
                 t->src, t->src);
    }
    return 0;
}

/* LFM2: Lfm2Config layer_types, else full_attn_idxs (configuration_lfm2.py). */
static int plan_lfm2(api_problem *pb, const api_model_text *t, api_hy_plan *p)
{
    static const char *const NAMES[] = {"conv", "full_attention", NULL};
    static const char *const MIX[] = {"conv", "attention"};
    static const int ROPE[] = {0, 1};
    int64_t n = read_types(pb, t, "layer_types", NAMES, MIX, ROPE, NULL, p->layer, p->n_layers);
    if (n < 0)
        return -1;
    if (n > 0) {
        snprintf(p->layers_src, sizeof p->layers_src, "%s.layer_types", t->src);
        return 0;
    }
    const json_t *idx = api_member(t->obj, "full_attn_idxs");
    for (int64_t l = 0; l < p->n_layers; l++)
        set(&p->layer[l], idx != NULL ? "conv" : "attention", idx == NULL,
            "a short-convolution block: no attention, no positions");
    if (idx == NULL) {
        snprintf(p->layers_src, sizeof p->layers_src,
                 "default of Lfm2Config (full_attn_idxs: every layer)");
        return 0;
    }
    char fp[API_MC_PTR + 48];
    api_ptr(fp, sizeof fp, t->ptr, "full_attn_idxs");
    for (size_t i = 0; json_is_array(idx) && i < json_array_size(idx); i++) {
        const json_t *e = json_array_get(idx, i);
        if (!json_is_integer(e) || json_integer_value(e) < 0 ||
            json_integer_value(e) >= p->n_layers) {
            api_problem_idx(pb, API_PB_INVALID_FIELD, fp, i, "must be a layer index below %lld",
                            (long long)p->n_layers);
            return -1;
        }
        set(&p->layer[json_integer_value(e)], "attention", 1, NULL);
    }
    if (!json_is_array(idx)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, fp, "must be an array of layer indices");
        return -1;
    }
    snprintf(p->layers_src, sizeof p->layers_src, "%s.full_attn_idxs", t->src);
    return 0;
}

/* Kimi Linear: KimiLinearConfig.__post_init__ (configuration_kimi_linear.py). */
static int plan_kimi(api_problem *pb, const api_model_text *t, api_hy_plan *p)
{
    static const char *const NAMES[] = {"linear_attention", "full_attention", NULL};
    static const char *const MIX[] = {"linear_attention", "attention"};
    static const int ROPE[] = {0, 0};
    int64_t n =
        read_types(pb, t, "layer_types", NAMES, MIX, ROPE, NOPE_KIMI, p->layer, p->n_layers);
    if (n != 0)
        return n < 0 ? -1
                     : (snprintf(p->layers_src, sizeof p->layers_src, "%s.layer_types", t->src), 0);
    const json_t *lac = api_member(t->obj, "linear_attn_config");
    const json_t *full = lac ? api_member(lac, "full_attn_layers") : NULL;
    const json_t *kda = lac ? api_member(lac, "kda_layers") : NULL;
    if (full != NULL && kda != NULL) {
        for (int64_t l = 0; l < p->n_layers; l++)
            set(&p->layer[l], NULL, 0, NULL);
        const json_t *lists[] = {full, kda};
        const char *names[] = {"full_attn_layers", "kda_layers"};
        for (size_t w = 0; w < 2; w++) {
            char fp[API_MC_PTR + 64];
            api_ptr(fp, sizeof fp, t->ptr, "linear_attn_config");
            char lp[API_MC_PTR + 96];
            api_ptr(lp, sizeof lp, fp, names[w]);
            for (size_t i = 0; i < (json_is_array(lists[w]) ? json_array_size(lists[w]) : 1); i++) {
                const json_t *e = json_is_array(lists[w]) ? json_array_get(lists[w], i) : NULL;
                if (e == NULL || !json_is_integer(e) || json_integer_value(e) < 1 ||
                    json_integer_value(e) > p->n_layers) {
                    api_problem_field(pb, API_PB_INVALID_FIELD, lp,
                                      "must be an array of layer numbers 1 .. %lld (1-based, "
                                      "KimiLinearConfig)",
                                      (long long)p->n_layers);
                    return -1;
                }
                int64_t l = json_integer_value(e) - 1;
                if (w == 0)
                    set(&p->layer[l], "attention", 0, NOPE_KIMI);
                else
                    set(&p->layer[l], "linear_attention", 0,
                        "a Kimi delta-attention (linear) block: it takes no positions");
            }
        }
        for (int64_t l = 0; l < p->n_layers; l++) {
            if (p->layer[l].mixer == NULL) {
                api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, "linear_attn_config",
                                "layer %lld is in neither full_attn_layers nor kda_layers "
                                "(KimiLinearConfig leaves its type None)",
                                (long long)(l + 1));
                return -1;
            }
        }
        snprintf(p->layers_src, sizeof p->layers_src,
                 "%s.linear_attn_config.full_attn_layers / kda_layers (1-based)", t->src);
        return 0;
    }
    /* today's KimiLinearConfig: (i + 1) % 4 == 0, the 1-based 4, 8, ... of the published
     * full_attn_layers; its first release had "i and i % 4 == 0" (the source names both) */
    for (int64_t l = 0; l < p->n_layers; l++) {
        if ((l + 1) % 4 == 0)
            set(&p->layer[l], "attention", 0, NOPE_KIMI);
        else
            set(&p->layer[l], "linear_attention", 0,
                "a Kimi delta-attention (linear) block: it takes no positions");
    }
    snprintf(p->layers_src, sizeof p->layers_src,
             "default of KimiLinearConfig (full attention where (i + 1) %% 4 == 0, as "
             "configuration_kimi_linear.py has it today and the published checkpoints' "
             "full_attn_layers 4, 8, ... (1-based) place it; the first transformers release with "
             "Kimi Linear had i and i %% 4 == 0, one layer later: send layer_types for it)");
    return 0;
}

int api_model_hybrid_plan(api_problem *pb, const api_model_text *t_in, int64_t n_file,
                          api_hy_plan *out)
{
    memset(out, 0, sizeof *out);
    /* sources named from the config's root: "config.x", "config.text_config.x" (a bare body's
     * text object has src "" or "text_config") */
    api_model_text tt = *t_in;
    const api_model_text *t = &tt;
    if (strncmp(t_in->src, "config", 6) != 0)
        snprintf(tt.src, sizeof tt.src, "config%s%.150s", t_in->src[0] ? "." : "", t_in->src);
    const char *mt = t->model_type;
    if (!api_model_hybrid_known(mt))
        return 0;
    int nemotron = strcmp(mt, "nemotron_h") == 0;
    if (n_file == 0 && !nemotron) {
        api_problem_key(pb, API_PB_INVALID_FIELD, t->ptr, "num_hidden_layers",
                        "the number of layers is required to place %.40s's layers", mt);
        return -1;
    }
    out->layer = calloc(MAX_LAYERS, sizeof *out->layer);
    if (out->layer == NULL) {
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while planning the layers");
        return -1;
    }
    out->n_layers = n_file;
    int rc = 0;
    for (size_t i = 0; i < sizeof FREE / sizeof FREE[0]; i++) {
        if (strcmp(FREE[i].model_type, mt) != 0)
            continue;
        for (int64_t l = 0; l < out->n_layers; l++)
            set(&out->layer[l], FREE[i].mixer, 0, FREE[i].why);
        out->attention_free = 1;
        snprintf(out->layers_src, sizeof out->layers_src,
                 "model_type %s: no attention in any layer", mt);
        return 1;
    }
    if (nemotron)
        rc = plan_nemotron(pb, t, out);
    else if (strcmp(mt, "jamba") == 0)
        rc = plan_jamba(pb, t, out);
    else if (strcmp(mt, "granitemoehybrid") == 0)
        rc = plan_granite(pb, t, out);
    else if (strcmp(mt, "zamba2") == 0)
        rc = plan_zamba2(pb, t, out);
    else if (strcmp(mt, "lfm2") == 0 || strcmp(mt, "lfm2_moe") == 0)
        rc = plan_lfm2(pb, t, out);
    else if (strcmp(mt, "kimi_linear") == 0)
        rc = plan_kimi(pb, t, out);
    else if (strcmp(mt, "nemotron-nas") == 0) /* api/model_hybrid_nas.c */
        rc = api_model_nas_plan(pb, t, out);
    else { /* falcon_h1: FalconH1Config.layers_block_type, every layer "hybrid" */
        for (int64_t l = 0; l < out->n_layers; l++)
            set(&out->layer[l], "attention", 1, NULL);
        snprintf(out->layers_src, sizeof out->layers_src,
                 "FalconH1Config.layers_block_type: every layer runs RoPE attention beside its "
                 "Mamba-2 mixer (modeling_falcon_h1.py)");
    }
    return rc < 0 ? -1 : 1;
}
