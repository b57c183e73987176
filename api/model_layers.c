/*
 * api/model_layers.c -- the layers of a pasted config and their RoPE kinds (see model_layers.h).
 */
#include "api/model_layers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/model_hybrid.h"
#include "api/req.h"

static const json_t *member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return (v == NULL || json_is_null(v)) ? NULL : v;
}

void api_ml_plan_free(api_ml_plan *p)
{
    free(p->kind_of);
    memset(p, 0, sizeof *p);
}

int api_ml_find_type(const api_ml_plan *p, const char *t)
{
    unsigned bit = strcmp(t, "full_attention") == 0      ? API_ML_FULL
                   : strcmp(t, "sliding_attention") == 0 ? API_ML_SLIDING
                                                         : 0;
    for (size_t i = 0; bit != 0 && i < p->n_kinds; i++)
        if (p->kind[i].rope && (p->kind[i].types & bit))
            return (int)i;
    return -1;
}

/* The kind equal to k (same method and base rule; per-type rope_parameters entries equal as
 * JSON), added when new; its types gain k's. params: the per-type rope_parameters or NULL. */
static int kind_index(api_ml_plan *p, const api_ml_kind *k, const json_t *params, int64_t layer)
{
    for (size_t i = 0; i < p->n_kinds; i++) {
        const api_ml_kind *o = &p->kind[i];
        if (o->rope != k->rope || o->local_base != k->local_base || o->unscaled != k->unscaled)
            continue;
        if (!k->rope && o->mixer != k->mixer &&
            (o->mixer == NULL || k->mixer == NULL || strcmp(o->mixer, k->mixer) != 0))
            continue; /* attention without positions apart from a Mamba block */
        if (k->rope && params != NULL &&
            !json_equal(member(params, o->params_key), member(params, k->params_key)))
            continue;
        p->kind[i].types |= k->types;
        return (int)i;
    }
    if (p->n_kinds >= API_ML_MAX_KINDS)
        return -1;
    p->kind[p->n_kinds] = *k;
    p->kind[p->n_kinds].first_layer = layer;
    return (int)p->n_kinds++;
}

/*
 * The layer-structure keys' JSON types (a wrong type is a 422 at its pointer, never ignored):
 * layer_types an array of num_hidden_layers strings (HF configuration_utils.py
 * layer_type_validation: its length must equal num_hidden_layers), no_rope_layers an array of
 * num_hidden_layers integers 0 or 1 (Llama4TextAttention / SmolLM3 index it by layer),
 * sliding_window an integer >= 1 or null, use_sliding_window a boolean. n: the layer count (0:
 * unknown, lengths not checked). Returns 0 or -1.
 */
static void check_layer_array(api_problem *pb, const json_t *cfg, const char *ptr, int strings,
                              int64_t n, int n_from_file)
{
    char fp[API_MC_PTR + 32];
    const char *key = strings ? "layer_types" : "no_rope_layers";
    const json_t *v = member(cfg, key);
    api_ptr(fp, sizeof fp, ptr, key);
    if (v == NULL)
        return;
    if (!json_is_array(v)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, fp, "must be an array of %s, one per layer",
                          strings ? "layer type strings" : "integers 0 or 1");
        return;
    }
    size_t len = json_array_size(v);
    if (len == 0 && !strings)
        return; /* Llama 4 / SmolLM3: [] means the default pattern */
    for (size_t i = 0; i < len; i++) {
        const json_t *e = json_array_get(v, i);
        int ok = strings ? json_is_string(e)
                         : json_is_integer(e) &&
                               (json_integer_value(e) == 0 || json_integer_value(e) == 1);
        if (!ok) {
            api_problem_idx(pb, API_PB_INVALID_FIELD, fp, i, "must be %s",
                            strings ? "a string (full_attention, sliding_attention, ...)"
                                    : "0 (no RoPE in this layer) or 1");
            break;
        }
        /* a layer type posenc cannot place (HF's layer_type_validation refuses unknown
         * ones; hybrid / sparse types mix in states posenc does not model) */
        static const char *const KNOWN[] = {"full_attention",
                                            "sliding_attention",
                                            "chunked_attention",
                                            "linear_attention",
                                            "mamba",
                                            "conv",
                                            NULL};
        if (strings && !api_str_in_list(KNOWN, json_string_value(e))) {
            api_problem_idx(pb, API_PB_INVALID_FIELD, fp, i,
                            "layer type \"%.40s\" is not one posenc can place (full_attention, "
                            "sliding_attention, chunked_attention: RoPE; linear_attention, "
                            "mamba, conv: no positions)",
                            json_string_value(e));
            break;
        }
    }
    if (n > 0 && n_from_file && (int64_t)len != n)
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "has %zu entries but the config has %lld layers "
                          "(num_hidden_layers): one entry per layer (%s)",
                          len, (long long)n,
                          strings ? "HF configuration_utils.py layer_type_validation"
                                  : "HF reads no_rope_layers[layer_idx]");
}

static int check_layer_keys(api_problem *pb, const json_t *cfg, const char *ptr, int64_t n,
                            int n_from_file, int hybrid)
{
    size_t e0 = api_problem_count(pb);
    if (!hybrid) /* a hybrid type's own layer names: api_model_hybrid_plan reads them */
        check_layer_array(pb, cfg, ptr, 1, n, n_from_file);
    check_layer_array(pb, cfg, ptr, 0, n, n_from_file);
    int64_t sw = 0;
    const json_t *swj = member(cfg, "sliding_window");
    if (swj != NULL && !json_is_integer(swj)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "sliding_window",
                        "must be an integer >= 1 (the attention window in tokens) or null");
    } else {
        api_get_int(pb, cfg, ptr, "sliding_window", 1, INT64_MAX, &sw);
    }
    int b = 0;
    api_get_bool(pb, cfg, ptr, "use_sliding_window", &b);
    return api_problem_count(pb) != e0 ? -1 : 0;
}

/* The file's layer count: num_hidden_layers | n_layer | num_layers | n_layers (xlstm: then
 * num_blocks, xLSTMConfig's alias), 0 when none. */
static int64_t layer_count(api_problem *pb, const json_t *cfg, const char *ptr, const char *mt)
{
    static const char *const LAYER_KEYS[] = {"num_hidden_layers", "n_layer", "num_layers",
                                             "n_layers", NULL};
    int64_t n = 0;
    for (const char *const *k = LAYER_KEYS; *k && n == 0; k++)
        api_get_int(pb, cfg, ptr, *k, 1, API_ML_MAX_LAYERS, &n);
    if (n == 0 && strcmp(mt, "xlstm") == 0)
        api_get_int(pb, cfg, ptr, "num_blocks", 1, API_ML_MAX_LAYERS, &n);
    return n;
}

/*
 * MiniMax-Text-01's attn_type_list (read when layer_types is absent): an array of 0 (lightning,
 * i.e. linear, attention without positions) or 1 (softmax attention with RoPE), one per layer
 * (MiniMaxConfig builds layer_types from it). A 422 at /.../attn_type_list otherwise.
 */
static void check_attn_type_list(api_problem *pb, const json_t *cfg, const char *ptr,
                                 const char *mt, int64_t n)
{
    const json_t *atl = strcmp(mt, "minimax") == 0 && member(cfg, "layer_types") == NULL
                            ? member(cfg, "attn_type_list")
                            : NULL;
    for (size_t x = 0; atl != NULL && x < (json_is_array(atl) ? json_array_size(atl) : 1); x++) {
        const json_t *e = json_is_array(atl) ? json_array_get(atl, x) : NULL;
        if (e == NULL || !json_is_integer(e) || json_integer_value(e) < 0 ||
            json_integer_value(e) > 1 || (n > 0 && (int64_t)json_array_size(atl) != n)) {
            api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "attn_type_list",
                            "must be an array of 0 (linear attention) or 1 (softmax attention), "
                            "one per layer");
            return;
        }
    }
}

/*
 * RecurrentGemma's block_types (RecurrentGemmaConfig: default recurrent, recurrent, attention;
 * layers_block_type = (block_types * 100)[:num_hidden_layers]; RecurrentGemmaDecoderLayer looks
 * each up in TEMPORAL_BLOCK_CLASSES, which has "recurrent" and "attention" only). Returns the
 * array to read (the file's, or NULL for the default) and 0, or -1 with a 422 at /.../block_types
 * for anything HF cannot build.
 */
static int rgemma_blocks(api_problem *pb, const json_t *cfg, const char *ptr, int64_t n,
                         const json_t **out)
{
    const json_t *bt = member(cfg, "block_types");
    *out = NULL;
    if (bt == NULL)
        return 0;
    char fp[API_MC_PTR + 32];
    api_ptr(fp, sizeof fp, ptr, "block_types");
    size_t len = json_is_array(bt) ? json_array_size(bt) : 0;
    for (size_t i = 0; i < len; i++) {
        const char *b = json_string_value(json_array_get(bt, i));
        if (b == NULL || (strcmp(b, "recurrent") != 0 && strcmp(b, "attention") != 0)) {
            len = 0;
            break;
        }
    }
    if (len == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "must be a non-empty array of \"recurrent\" and \"attention\" "
                          "(modeling_recurrent_gemma.py TEMPORAL_BLOCK_CLASSES)");
        return -1;
    }
    if (n > 0 && (uint64_t)n > 100u * len) {
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "%zu entries repeated 100 times (RecurrentGemmaConfig "
                          "layers_block_type) cover fewer than the %lld layers",
                          len, (long long)n);
        return -1;
    }
    *out = bt;
    return 0;
}

int api_ml_check_layer_lists(api_problem *pb, const api_model_text *text)
{
    api_problem scratch; /* a bad layer count is the plan's error, not this check's */
    api_problem_init(&scratch);
    int64_t n = layer_count(&scratch, text->obj, text->ptr, text->model_type);
    const api_model_default *dn = api_model_text_default(text, "num_hidden_layers");
    size_t e0 = api_problem_count(pb);
    if (!api_model_hybrid_known(text->model_type))
        check_layer_array(pb, text->obj, text->ptr, 1, n, n > 0);
    check_layer_array(pb, text->obj, text->ptr, 0, n, n > 0);
    check_attn_type_list(pb, text->obj, text->ptr, text->model_type,
                         n == 0 && dn != NULL ? (int64_t)dn->value : n);
    const json_t *bt = NULL;
    if (strcmp(text->model_type, "recurrent_gemma") == 0)
        rgemma_blocks(pb, text->obj, text->ptr, n, &bt);
    return api_problem_count(pb) != e0 ? -1 : 0;
}

/* ModernBERT's own keys (ModernBertConfig, configuration_modernbert.py): global_attn_every_n_layers
 * (an integer >= 1, default 3) into *every. Refused with a 422 at the key: a rope_scaling (the
 * class applies it to both layer types, which posenc does not read), local_rope_theta null
 * (transformers 4 then used global_rope_theta on sliding layers, v5 sets a null base), and a v5
 * per-layer-type rope_parameters entry without rope_theta (the class fills it from the v4 keys).
 * Returns 0 or -1. */
static int modernbert_check(api_problem *pb, const json_t *cfg, const char *ptr, int per_type,
                            int64_t *every)
{
    if (api_get_int(pb, cfg, ptr, "global_attn_every_n_layers", 1, API_ML_MAX_LAYERS, every) < 0)
        return -1;
    const json_t *lr = json_object_get(cfg, "local_rope_theta");
    if (lr != NULL && json_is_null(lr)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "local_rope_theta",
                        "is null: transformers 4's ModernBertAttention then used "
                        "global_rope_theta on the sliding layers, v5's ModernBertConfig sets a "
                        "null base; send the base you run");
        return -1;
    }
    if (member(cfg, "rope_scaling") != NULL) {
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "rope_scaling",
                        "ModernBertConfig applies rope_scaling to both layer types "
                        "(convert_rope_params_to_dict); posenc does not read it for ModernBERT: "
                        "give per-layer-type rope_parameters");
        return -1;
    }
    const json_t *params = member(cfg, "rope_parameters");
    static const char *const TYPES[] = {"full_attention", "sliding_attention", NULL};
    for (const char *const *t = TYPES; per_type && *t; t++) {
        const json_t *e = member(params, *t);
        if (e == NULL || !json_is_object(e) || member(e, "rope_theta") == NULL) {
            char fp[API_MC_PTR + 64];
            api_ptr(fp, sizeof fp, ptr, "rope_parameters");
            api_problem_key(pb, API_PB_INVALID_FIELD, fp, *t,
                            "needs its rope_theta: ModernBertConfig fills a missing one from "
                            "global_rope_theta / local_rope_theta (160000 / 10000); give it");
            return -1;
        }
    }
    return 0;
}
int api_ml_plan_layers(api_problem *pb, const api_model_text *text, api_ml_plan *out)
{
    memset(out, 0, sizeof *out);
    const json_t *cfg = text->obj;
    const char *ptr = text->ptr, *mt = text->model_type;
    size_t e0 = api_problem_count(pb);
    int64_t n = layer_count(pb, cfg, ptr, mt);
    if (api_problem_count(pb) != e0)
        return -1;
    int n_from_file = n > 0;
    const api_model_default *dn = api_model_text_default(text, "num_hidden_layers");
    if (n == 0 && dn != NULL)
        n = (int64_t)dn->value; /* a sparse wrapped text config (LLaVA): the class default */
    int hybrid = api_model_hybrid_known(mt);
    if (check_layer_keys(pb, cfg, ptr, n, n_from_file, hybrid) < 0 ||
        api_model_temp_tuning(pb, text, &out->temp) < 0)
        return -1;
    api_hy_plan hy; /* hybrid and attention-free types place their own layers */
    memset(&hy, 0, sizeof hy);
    if (hybrid && (n > 0 || strcmp(mt, "nemotron_h") == 0)) {
        if (api_model_hybrid_plan(pb, text, n, &hy) < 0) {
            api_hy_plan_free(&hy);
            return -1;
        }
        n = hy.n_layers;
        snprintf(out->layers_src, sizeof out->layers_src, "%s", hy.layers_src);
    }
    if (n == 0)
        return 0;

    const json_t *lt = member(cfg, "layer_types");
    const json_t *params = member(cfg, "rope_parameters");
    int per_type = params && json_is_object(params) && member(params, "rope_type") == NULL &&
                   member(params, "type") == NULL && json_object_size(params) > 0;
    /* Gemma 3n too: its sliding layers use rope_local_base_freq without scaling
     * (modeling_gemma3n.py rotary_emb_local), every 5th layer full by default */
    int gemma3n = strcmp(mt, "gemma3n_text") == 0 || strcmp(mt, "gemma3n") == 0;
    int gemma3 = strcmp(mt, "gemma3_text") == 0 || strcmp(mt, "gemma3") == 0 || gemma3n;
    int64_t pattern = gemma3n ? 5 : 6;
    if (gemma3 &&
        api_get_int(pb, cfg, ptr, "sliding_window_pattern", 1, API_ML_MAX_LAYERS, &pattern) == 0)
        api_get_int(pb, cfg, ptr, "_sliding_window_pattern", 1, API_ML_MAX_LAYERS, &pattern);
    const json_t *nrl = member(cfg, "no_rope_layers");
    int nope_default =
        strcmp(mt, "llama4_text") == 0 || strcmp(mt, "llama4") == 0 || strcmp(mt, "smollm3") == 0;
    int64_t interval = 4;
    api_get_int(pb, cfg, ptr, "no_rope_layer_interval", 1, API_ML_MAX_LAYERS, &interval);
    /* EXAONE 4 and K-EXAONE (exaone_moe: Exaone4Attention): Exaone4Config's sliding_window is 4096
     * unless the file says null, layer_types default from sliding_window_pattern (4); with a
     * window the full-attention layers have no RoPE (`if self.sliding_window is None or
     * self.is_sliding`) */
    int exaone = strcmp(mt, "exaone4") == 0 || strcmp(mt, "exaone_moe") == 0;
    const json_t *swin = json_object_get(cfg, "sliding_window");
    int exaone_nope = exaone && !(swin != NULL && json_is_null(swin));
    /* AFMoE (Arcee Trinity): layer_types default from global_attn_every_n_layers (4); only the
     * sliding layers rotate (modular_afmoe.py AfmoeAttention: `if self.is_local_attention`) */
    int afmoe = strcmp(mt, "afmoe") == 0;
    if (exaone_nope || afmoe) {
        pattern = 4;
        api_get_int(pb, cfg, ptr, afmoe ? "global_attn_every_n_layers" : "sliding_window_pattern",
                    1, API_ML_MAX_LAYERS, &pattern);
    }
    /* ModernBERT (ModernBertConfig, transformers v5): layer_types default from
     * global_attn_every_n_layers (3): layer l is full attention when l % n == 0 (from layer 0),
     * sliding otherwise; the sliding layers' base is local_rope_theta (api_ml_kind.local_base) */
    int modernbert = strcmp(mt, "modernbert") == 0;
    int64_t global_every = 3;
    if (modernbert && modernbert_check(pb, cfg, ptr, per_type, &global_every) < 0)
        return -1;
    /* Cohere 2 (Command R7B, Aya): layer_types default from sliding_window_pattern (4); only the
     * sliding layers rotate (modeling_cohere2.py: `if self.sliding_window is not None`) */
    int cohere2 = strcmp(mt, "cohere2") == 0;
    if (cohere2) {
        pattern = 4;
        if (api_get_int(pb, cfg, ptr, "sliding_window_pattern", 1, API_ML_MAX_LAYERS, &pattern) ==
            0)
            api_get_int(pb, cfg, ptr, "_sliding_window_pattern", 1, API_ML_MAX_LAYERS, &pattern);
    }
    /* OLMo 3: layer_types default: every 4th layer full (Olmo3Config), whatever form the
     * rope_parameters take; one flat scaling object scales the full-attention layers only
     * (model_layers.h) */
    int olmo3 = strcmp(mt, "olmo3") == 0;
    const json_t *flat = member(cfg, "rope_scaling") ? member(cfg, "rope_scaling") : params;
    const json_t *ft = flat && json_is_object(flat) ? member(flat, "rope_type") : NULL;
    if (flat && json_is_object(flat) && ft == NULL)
        ft = member(flat, "type");
    int olmo3_split = olmo3 && !per_type && ft != NULL && json_is_string(ft) &&
                      strcmp(json_string_value(ft), "default") != 0;
    /* Qwen3-Next and Qwen3.5 (Qwen3_5TextConfig / Qwen3_5MoeTextConfig): layer_types default
     * from full_attention_interval (4), the others linear */
    int qwen3_next = strcmp(mt, "qwen3_next") == 0 || strncmp(mt, "qwen3_5", 7) == 0;
    int64_t full_every = 4;
    if (qwen3_next)
        api_get_int(pb, cfg, ptr, "full_attention_interval", 1, API_ML_MAX_LAYERS, &full_every);
    /* MiniMax-Text-01: attn_type_list, 0 = lightning (linear) attention without positions, 1 =
     * softmax attention with RoPE, as MiniMax's remote code reads it (transformers' MiniMaxConfig
     * ignores it: api_model_rotary_conflicts warns); without either list, MiniMaxConfig's
     * layer_types default: full attention where (i + 1) % 2, linear the others */
    int minimax = strcmp(mt, "minimax") == 0;
    const json_t *atl = minimax && lt == NULL ? member(cfg, "attn_type_list") : NULL;
    check_attn_type_list(pb, cfg, ptr, mt, n);
    /* Mllama: the cross-attention layers attend to the image without rotary embedding */
    const json_t *xattn =
        strncmp(mt, "mllama", 6) == 0 ? member(cfg, "cross_attention_layers") : NULL;
    if (xattn != NULL && !json_is_array(xattn)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "cross_attention_layers",
                        "must be an array of layer indices");
    }
    /* RecurrentGemma: recurrent blocks have no attention, hence no position method; attention
     * blocks rotate partial_rotary_factor (0.5) of the head (RecurrentGemmaSdpaAttention) */
    int rgemma = strcmp(mt, "recurrent_gemma") == 0;
    const json_t *blocks = NULL;
    if (rgemma)
        rgemma_blocks(pb, cfg, ptr, n, &blocks);
    if (api_problem_count(pb) != e0) {
        api_hy_plan_free(&hy);
        return -1;
    }

    out->kind_of = malloc((size_t)n);
    if (out->kind_of == NULL) {
        api_hy_plan_free(&hy);
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while planning the layers");
        return -1;
    }
    out->n_layers = n;
    for (int64_t l = 0; l < n; l++) {
        const char *type = "full_attention";
        const json_t *t = lt ? json_array_get(lt, (size_t)l) : NULL;
        if (t != NULL && json_is_string(t))
            type = json_string_value(t);
        else if (gemma3 || cohere2 || exaone_nope || afmoe)
            type = (l + 1) % pattern == 0 ? "full_attention" : "sliding_attention";
        else if (olmo3)
            type = (l + 1) % 4 == 0 ? "full_attention" : "sliding_attention";
        else if (modernbert)
            type = l % global_every == 0 ? "full_attention" : "sliding_attention";
        else if (qwen3_next)
            type = (l + 1) % full_every == 0 ? "full_attention" : "linear_attention";
        else if (atl != NULL)
            type = json_integer_value(json_array_get(atl, (size_t)l)) == 1 ? "full_attention"
                                                                           : "linear_attention";
        else if (minimax)
            type = (l + 1) % 2 ? "full_attention" : "linear_attention";
        int sliding = strcmp(type, "sliding_attention") == 0;
        int recurrent = 0;
        if (rgemma) { /* the default pattern: recurrent, recurrent, attention */
            const char *b =
                blocks != NULL
                    ? json_string_value(json_array_get(blocks, (size_t)l % json_array_size(blocks)))
                    : (l % 3 == 2 ? "attention" : "recurrent");
            recurrent = strcmp(b, "recurrent") == 0;
        }

        int use_rope = 1;
        const char *why = NULL;
        if (nrl != NULL && json_is_array(nrl) && json_array_size(nrl) > 0) {
            const json_t *v = json_array_get(nrl, (size_t)l);
            use_rope = !(v != NULL && json_is_integer(v) && json_integer_value(v) == 0);
            why = "no_rope_layers marks it 0";
        } else if (nope_default) {
            use_rope = (l + 1) % interval != 0;
            why = "every no_rope_layer_interval-th layer (default 4) has no RoPE";
        }
        if (exaone_nope && !sliding) {
            use_rope = 0;
            why = "EXAONE 4: full-attention layers have no RoPE unless sliding_window is null "
                  "(Exaone4Config's default 4096)";
        }
        if (afmoe && !sliding) {
            use_rope = 0;
            why = "AFMoE: only sliding-window layers apply RoPE (modular_afmoe.py)";
        }
        /* Cohere2Config's sliding_window is 4096 unless the file says null */
        if (cohere2 && !(sliding && !(swin != NULL && json_is_null(swin)))) {
            use_rope = 0;
            why = "Cohere 2: only sliding-window layers apply RoPE (modeling_cohere2.py)";
        }
        static const char *const NO_POS_TYPES[] = {"linear_attention", "mamba", "conv", NULL};
        if (api_str_in_list(NO_POS_TYPES, type)) {
            use_rope = 0;
            why = "a linear-attention / state-space layer: it takes no positions";
        }
        if (recurrent) {
            use_rope = 0;
            why = "RecurrentGemma recurrent block (RecurrentGemmaRecurrentBlock: RG-LRU, "
                  "conv1d): no attention, no position method";
        }
        for (size_t x = 0; xattn != NULL && x < json_array_size(xattn); x++) {
            const json_t *e = json_array_get(xattn, x);
            if (json_is_integer(e) && json_integer_value(e) == l) {
                use_rope = 0;
                why = "Mllama cross-attention layer: no rotary embedding "
                      "(MllamaTextCrossAttention)";
            }
        }
        const char *mixer = recurrent                             ? "recurrent"
                            : api_str_in_list(NO_POS_TYPES, type) ? type
                                                                  : "attention";
        if (hy.layer != NULL) {
            use_rope = hy.layer[l].rope;
            why = hy.layer[l].why;
            mixer = hy.layer[l].mixer;
        }
        api_ml_kind k;
        memset(&k, 0, sizeof k);
        k.rope = use_rope;
        if (!use_rope) {
            k.why = why;
            k.mixer = mixer;
        } else {
            if (lt != NULL || gemma3 || cohere2 || olmo3 || exaone_nope || afmoe || modernbert)
                k.types = sliding ? API_ML_SLIDING : API_ML_FULL;
            if (per_type) {
                const char *key = sliding ? "sliding_attention" : "full_attention";
                if (member(params, key) == NULL && (gemma3 || olmo3)) {
                    /* Gemma3TextConfig / Olmo3Config fill a missing entry with {"rope_type":
                     * "default"} and a rope_theta of their own rule, not the other entry */
                    api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "rope_parameters",
                                    "has no \"%s\" entry for layer %lld: %s fills it with "
                                    "rope_type default and a rope_theta of its own rule; give "
                                    "the entry",
                                    key, (long long)l, gemma3 ? "Gemma3TextConfig" : "Olmo3Config");
                    api_hy_plan_free(&hy);
                    return -1;
                }
                if (member(params, key) == NULL)
                    key = "full_attention";
                snprintf(k.params_key, sizeof k.params_key, "%s", key);
            } else if (gemma3 || modernbert) {
                k.local_base = sliding;
            } else if (olmo3_split) {
                k.unscaled = sliding;
            }
        }
        int ki = kind_index(out, &k, per_type ? params : NULL, l);
        if (ki < 0) {
            api_hy_plan_free(&hy);
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "more than %d kinds of layer",
                              API_ML_MAX_KINDS);
            return -1;
        }
        out->kind_of[l] = (uint8_t)ki;
        out->kind[ki].n_layers++;
    }
    api_hy_plan_free(&hy);
    return 0;
}
