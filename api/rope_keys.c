/*
 * api/rope_keys.c -- no silent drops (issue 15): every key of a pasted config that concerns
 * positions is used (named in resolved.sources), listed in resolved.ignored with the reason it
 * cannot change a number of this answer, or a 422 naming it (a key that would change a number
 * and that posenc does not implement). See api_rope_account_keys in api/rope_req.h.
 *
 * The reasons cite Hugging Face transformers v5 (src/transformers/...).
 */
#include <stdio.h>
#include <string.h>

#include "api/model_config.h"
#include "api/model_scale.h"
#include "api/req.h"
#include "api/rope_parse.h"

/* Names that concern positions: these prefixes, and the exact names below. */
static const char *const POS_PREFIX[] = {"rope",
                                         "rotary",
                                         "mrope",
                                         "partial_rotary",
                                         "alibi",
                                         "use_alibi",
                                         "sliding_window",
                                         "_sliding_window",
                                         "use_sliding_window",
                                         "no_rope",
                                         "max_position",
                                         "original_max_position",
                                         "position_",
                                         "relative_attention",
                                         NULL};
static const char *const POS_EXACT[] = {
    "layer_types", "attn_temperature_tuning", "llama_4_scaling_beta", "floor_scale", "attn_scale",
    "qk_rope_head_dim", "max_window_layers", "n_positions", "n_ctx", "max_seq_len", "seq_length",
    "interleaved_sliding_window", "use_dynamic_ntk", /* Qwen (v1) remote code */
    "use_logn_attn",
    /* hybrid models' layer placement (api/model_hybrid.h) */
    "attn_layer_period", "attn_layer_offset", "hybrid_override_pattern", "layers_block_type",
    "full_attn_idxs", "use_mem_rope", "use_long_context",
    "dual_chunk_attention_config",            /* Qwen2.5-1M's (vLLM) */
    "compress_rope_theta", "compress_ratios", /* DeepSeek-V4's second RoPE and its layers */
    NULL};

int api_rope_position_key(const char *k)
{
    for (const char *const *p = POS_PREFIX; *p; p++)
        if (strncmp(k, *p, strlen(*p)) == 0)
            return 1;
    for (const char *const *p = POS_EXACT; *p; p++)
        if (strcmp(k, *p) == 0)
            return 1;
    return api_model_scale_key(k); /* they change the scores (POST /attention) */
}

static int is(const char *k, const char *const *list);

/* ModernBertConfig's position keys (configuration_modernbert.py) */
static const char *const MODERNBERT_KEYS[] = {
    "global_rope_theta", "local_rope_theta", "global_attn_every_n_layers", "local_attention", NULL};

/* RecurrentGemma's own layer-pattern and window keys (RecurrentGemmaConfig), LFM2's
 * use_pos_enc (the published LFM2 files') and Nemotron-NAS's block_configs: position keys of
 * those models only (another
 * model_type's block_types is no concern of positions posenc knows). */
static int model_position_key(const char *k, const char *model_type)
{
    return api_rope_position_key(k) ||
           (strcmp(model_type, "recurrent_gemma") == 0 &&
            (strcmp(k, "block_types") == 0 || strcmp(k, "attention_window_size") == 0)) ||
           ((strcmp(model_type, "lfm2") == 0 || strcmp(model_type, "lfm2_moe") == 0) &&
            strcmp(k, "use_pos_enc") == 0) ||
           (strcmp(model_type, "modernbert") == 0 && is(k, MODERNBERT_KEYS)) ||
           /* Nemotron-NAS: which layers have attention (api/model_hybrid_nas.c) */
           (strcmp(model_type, "nemotron-nas") == 0 && strcmp(k, "block_configs") == 0);
}

static int is(const char *k, const char *const *list)
{
    for (const char *const *p = list; *p; p++)
        if (strcmp(k, *p) == 0)
            return 1;
    return 0;
}

/* 1 when the text `path` (a dotted source such as "config.text_config.rope_theta") is named in
 * one of the answer's sources: followed by the end, a space, '.', ')' or ','. */
static int named(const char *const *src, size_t n, const char *path)
{
    size_t len = strlen(path);
    for (size_t i = 0; i < n; i++) {
        for (const char *s = src[i]; s && (s = strstr(s, path)) != NULL; s++) {
            char c = s[len];
            if (c == '\0' || c == ' ' || c == '.' || c == ')' || c == ',')
                return 1;
        }
    }
    return 0;
}

/* A rotary fraction of a full-head model type (api_model_full_head): dropped, with a warning. */
static const char FULL_HEAD_WHY[] =
    "this model_type's Hugging Face attention rotates the whole head: its rotary embedding reads "
    "no rotary fraction under the default rope type and apply_rotary_pos_emb rotates all "
    "head_dim dims (transformers v5; the warning names the modeling file)";

/* Why a top-level key of the text config that no source names cannot change this answer, or
 * NULL when it could (then *refuse says why, for the 422). */
static const char *why_top(const char *k, const json_t *v, const api_rope_req *r, unsigned skip,
                           const char **refuse)
{
    static const char *const BASES[] = {"rope_theta", "rotary_emb_base", NULL};
    static const char *const ROTARY[] = {"partial_rotary_factor", "rotary_pct", "rotary_dim", NULL};
    static const char *const SCALING[] = {"rope_scaling", "rope_parameters", NULL};
    static const char *const LAYERS[] = {"layer_types",
                                         "no_rope_layers",
                                         "no_rope_layer_interval",
                                         "sliding_window_pattern",
                                         "_sliding_window_pattern",
                                         "attn_layer_period",
                                         "attn_layer_offset",
                                         "hybrid_override_pattern",
                                         "layers_block_type",
                                         "full_attn_idxs",
                                         "use_mem_rope",
                                         "block_types",
                                         "global_attn_every_n_layers",
                                         "block_configs",
                                         NULL};
    static const char *const WINDOW[] = {"sliding_window",
                                         "use_sliding_window",
                                         "max_window_layers",
                                         "sliding_window_size",
                                         "interleaved_sliding_window",
                                         "attention_window_size",
                                         "local_attention",
                                         NULL};
    static const char *const LENGTHS[] = {"max_position_embeddings",
                                          "original_max_position_embeddings",
                                          "n_positions",
                                          "n_ctx",
                                          "max_seq_len",
                                          "seq_length",
                                          NULL};
    static const char *const TEMP[] = {"attn_temperature_tuning", "floor_scale", "attn_scale",
                                       NULL};
    *refuse = NULL;
    if (r->inv_freq_j != NULL && (is(k, BASES) || is(k, SCALING)))
        return "the request's inv_freq gives the frequencies";
    if ((skip & API_RC_SKIP_BASE) && is(k, BASES))
        return "the request's base wins";
    if ((skip & API_RC_SKIP_ROTARY) && is(k, ROTARY))
        return "the request's rotary_dim / partial_rotary_factor wins";
    if ((skip & API_RC_SKIP_SCALING) && is(k, SCALING) && !r->axes)
        return "the request's scaling wins";
    if (r->axes && is(k, SCALING) && strcmp(r->axes_src, "request") == 0)
        return "the request's axes win";
    if (r->kind >= 0 && r->plan.kind[r->kind].local_base && is(k, SCALING))
        return "Gemma 3's sliding layers use no scaling (modeling_gemma3.py rotary_emb_local: "
               "rope_type default)";
    if (r->kind >= 0 && r->plan.kind[r->kind].unscaled && is(k, SCALING))
        return "OLMo 3's sliding layers use no scaling (modeling_olmo3.py rotary_embs: "
               "sliding_attention with rope_type default)";
    if ((skip & API_RC_SKIP_LAYOUT) && strcmp(k, "rope_interleave") == 0)
        return "the request's layout wins";
    if (is(k, BASES) && strcmp(r->cfg.model_type, "modernbert") == 0)
        return "ModernBertConfig reads no rope_theta (transformers 4 and v5): its bases are "
               "global_rope_theta and local_rope_theta (configuration_modernbert.py)";
    if (is(k, BASES))
        return "a second base key: rope_scaling.rope_theta, else rope_parameters.rope_theta, else "
               "rope_theta, else rotary_emb_base is read (HF v5 RotaryEmbeddingConfigMixin "
               "convert_rope_params_to_dict: rope_parameters.setdefault(\"rope_theta\", ...))";
    if (is(k, ROTARY) && api_model_full_head(r->cfg.model_type) != NULL)
        return FULL_HEAD_WHY;
    if (is(k, ROTARY))
        return "a second rotary-fraction key: rope_scaling / rope_parameters' "
               "partial_rotary_factor, else the "
               "first of partial_rotary_factor, rotary_pct, rotary_dim is read";
    if (is(k, SCALING) && json_is_object(v) && json_object_size(v) == 0)
        return "empty: no scaling";
    if (strcmp(k, "rope_interleave") == 0)
        return "the layout follows model_type (see resolved.sources.layout)";
    if (is(k, LAYERS))
        return "decides which layers each kind covers (layer_kind / layer_kinds, POST "
               "/model/method), not the numbers of a kind";
    if (is(k, WINDOW))
        return "the attention window (which keys a query sees), not RoPE's numbers";
    if (strcmp(k, "local_rope_theta") == 0)
        return "the base of ModernBERT's sliding-window layers only (ModernBertConfig: "
               "rope_parameters.sliding_attention); this answer is for the other layers "
               "(layer_kinds)";
    if (strcmp(k, "global_rope_theta") == 0)
        return "the base of ModernBERT's full-attention layers only (ModernBertConfig: "
               "rope_parameters.full_attention); this answer is for a sliding-window layer";
    if (strcmp(k, "rope_local_base_freq") == 0)
        return "the base of Gemma 3's sliding layers only (modeling_gemma3.py rotary_emb_local); "
               "this answer is for the other layers (layer_kinds)";
    if (is(k, LENGTHS))
        return "a context length that this answer's scaling type does not read "
               "(modeling_rope_utils.py)";
    /* Step3's own spelling (vLLM step3_text.py: config.max_position_embedding); with a scaling
     * type that reads a length posenc would read max_position_embeddings instead: a 422 then */
    if (strcmp(k, "max_position_embedding") == 0 && !r->cfg.scaling.present)
        return "Step3's context length (vLLM step3_text.py); RoPE without scaling reads no length";
    if (is(k, TEMP))
        return "Llama 4 scales queries by position only in its no-RoPE layers "
               "(modeling_llama4.py: attn_temperature_tuning and not use_rope); this answer is "
               "for RoPE layers";
    if (strcmp(k, "dual_chunk_attention_config") == 0)
        return "vLLM's dual chunk attention (Qwen2.5-7B/14B-Instruct-1M): no Hugging Face config "
               "class reads it and transformers' attention (modeling_qwen2.py) rotates every "
               "position with plain RoPE, as here; vLLM remaps relative positions beyond its "
               "chunk_size, which this answer does not model";
    if (strcmp(k, "use_pos_enc") == 0) /* LFM2's only (model_position_key) */
        return "LFM2's original config key: Hugging Face's Lfm2Config does not read it and "
               "Lfm2Attention rotates q and k whatever it says (configuration_lfm2.py, "
               "modeling_lfm2.py)";
    if (strcmp(k, "rotary") == 0 && json_is_true(v))
        return "says the model uses rotary embeddings (GPT-J's flag; GPTJConfig does not read "
               "it)";
    if (strcmp(k, "position_embedding_type") == 0 && strcmp(r->cfg.model_type, "modernbert") == 0)
        return "ModernBERT's published files carry it, but neither ModernBertConfig nor "
               "modeling_modernbert.py reads it: every ModernBERT attention layer rotates q and k "
               "(ModernBertRotaryEmbedding)";
    if (strcmp(k, "position_embedding_type") == 0 && json_is_string(v) &&
        (strcmp(json_string_value(v), "rope") == 0 || strcmp(json_string_value(v), "rotary") == 0))
        return "names RoPE, which this answer is";
    if (strcmp(k, "position_embedding_type") == 0 && json_is_string(v) &&
        strcmp(json_string_value(v), "rope_gptj") == 0 &&
        (strcmp(r->cfg.model_type, "cohere") == 0 || strcmp(r->cfg.model_type, "cohere2") == 0))
        return "Cohere's name for RoPE on adjacent pairs (Command R7B, Command A, Tiny Aya "
               "files): CohereConfig / Cohere2Config do not read it and modeling_cohere.py / "
               "modeling_cohere2.py rotate adjacent pairs (repeat_interleave) whatever it says";
    if ((strncmp(k, "alibi", 5) == 0 || strcmp(k, "use_alibi") == 0) && json_is_false(v))
        return "false: no ALiBi";
    if ((strcmp(k, "use_dynamic_ntk") == 0 || strcmp(k, "use_logn_attn") == 0) && json_is_false(v))
        return "false: Qwen's long-context base change / query scaling is off";
    if (strcmp(k, "use_long_context") == 0 && json_is_false(v))
        return "false: Zamba2's base is rope_theta unchanged (configuration_zamba2.py)";
    if (strcmp(k, "qk_rope_head_dim") == 0 && (skip & API_RC_SKIP_HEAD_DIM))
        return "the request's head_dim wins";
    if (strcmp(k, "llama_4_scaling_beta") == 0)
        return NULL; /* handled with the scaling object's (query scale) */
    if (api_model_scale_key(k))
        return "the attention scale of the scores, not a RoPE number: POST /attention applies it "
               "(resolved.rope.sources.scale; api/model_scale.c cites the model's code)";
    *refuse = strncmp(k, "alibi", 5) == 0 || strcmp(k, "use_alibi") == 0
                  ? "an ALiBi model has no RoPE (POST /alibi, POST /model/method)"
              : strcmp(k, "position_embedding_type") == 0
                  ? "this model's positions are not RoPE (POST /model/method tells its method)"
                  : "concerns positions and posenc does not read it: it could change the numbers";
    return NULL;
}

/* The same for a key of the config's scaling object (rope_scaling / rope_parameters). */
static const char *why_scaling(const char *k, const api_rope_req *r, const char **refuse)
{
    *refuse = NULL;
    if (strcmp(k, "type") == 0 || strcmp(k, "rope_type") == 0)
        return "the alias of the type named in resolved.sources (Hugging Face reads rope_type, "
               "else type)";
    if (r->inv_freq_j != NULL)
        return "the request's inv_freq gives the frequencies";
    if (strcmp(k, "rope_theta") == 0)
        return (r->kind >= 0 && r->plan.kind[r->kind].local_base)
                   ? "Gemma 3's sliding layers use rope_local_base_freq (modeling_gemma3.py)"
                   : "the request's base wins";
    if (strcmp(k, "partial_rotary_factor") == 0 && api_model_full_head(r->cfg.model_type) != NULL)
        return FULL_HEAD_WHY;
    if (strcmp(k, "partial_rotary_factor") == 0)
        return "the rotary dim comes from elsewhere: the request, a rotary_dim key or the "
               "type's own rule (see resolved.sources.rotary_dim)";
    if (strcmp(k, "llama_4_scaling_beta") == 0)
        return "only Ministral 3's and Mistral 4's attention read it (modeling_ministral3.py, "
               "modeling_mistral4.py); this model_type's does not";
    if ((strcmp(k, "short_mscale") == 0 || strcmp(k, "long_mscale") == 0) &&
        strcmp(r->cfg.model_type, "phimoe") != 0) {
        *refuse = "Phi-3.5-MoE's cos/sin multiplier (modular_phimoe.py PhimoeRotaryEmbedding), "
                  "read for model_type phimoe only: it could change the numbers";
        return NULL;
    }
    if (strcmp(k, "max_position_embeddings") == 0 && strcmp(r->cfg.model_type, "mistral4") == 0)
        return "Mistral4Config copies it into rope_parameters and its validation ignores it "
               "(configuration_mistral4.py); modeling_rope_utils does not read it";
    for (int f = 0; f < API_RS__COUNT; f++)
        if (strcmp(k, api_rs_field_name((api_rs_field)f)) == 0)
            return "not read for this scaling type (modeling_rope_utils.py; the warnings say "
                   "which value is read instead)";
    if (r->axes && strcmp(k, "mrope_section") == 0)
        return NULL;
    *refuse = "a scaling field posenc does not read: it could change the numbers";
    return NULL;
}

/* The value at JSON pointer ptr (RFC 6901) under root, or NULL. */
static const json_t *at_ptr(const json_t *root, const char *ptr)
{
    const json_t *v = root;
    while (v != NULL && *ptr == '/') {
        char key[API_RC_PTR];
        size_t k = 0;
        for (ptr++; *ptr && *ptr != '/' && k + 1 < sizeof key; ptr++) {
            if (ptr[0] == '~' && (ptr[1] == '0' || ptr[1] == '1')) {
                key[k++] = ptr[1] == '0' ? '~' : '/';
                ptr++;
            } else {
                key[k++] = *ptr;
            }
        }
        key[k] = '\0';
        v = json_is_object(v) ? json_object_get(v, key) : NULL;
    }
    return v;
}

/* Records key path with reason why in r->ign (dropped when full, counted). */
static void ignore(api_rope_req *r, const char *path, const char *why)
{
    if (r->ign.n >= API_ROPE_MAX_IGNORED) {
        r->ign.n_dropped++;
        return;
    }
    snprintf(r->ign.k[r->ign.n].key, sizeof r->ign.k[r->ign.n].key, "%s", path);
    r->ign.k[r->ign.n].why = why;
    r->ign.n++;
}

int api_rope_account_keys(api_problem *pb, const json_t *cfg, unsigned skip, api_rope_req *r)
{
    api_model_text text;
    api_model_text_find(cfg, "/config", &text);
    const api_rope_scaling *sc = &r->sc;
    const char *src[12 + API_RS__COUNT];
    size_t n = 0;
    char sc_src[API_RC_PTR];
    src[n++] = r->head_dim_o.src;
    src[n++] = r->rotary_o.src;
    src[n++] = r->base_o.src;
    src[n++] = r->layout_o.src;
    if (r->cfg.has_qscale) {
        src[n++] = r->cfg.qscale_beta_o.src;
        src[n++] = r->cfg.qscale_l0_o.src;
    }
    if (r->axes) {
        src[n++] = r->axes_src;
        src[n++] = r->axes_il;
    }
    if (!r->axes && sc->present && strncmp(sc->ptr, "/config/", 8) == 0) {
        api_model_ptr_to_src(sc->ptr, sc_src, sizeof sc_src);
        src[n++] = sc_src;
        src[n++] = sc->type_origin.src;
        for (int f = 0; f < API_RS__COUNT; f++)
            if (sc->origin[f].set)
                src[n++] = sc->origin[f].src;
    }
    size_t e0 = api_problem_count(pb);
    char path[2 * API_RC_PTR];
    const char *k, *refuse = NULL;
    json_t *v;
    json_object_foreach((json_t *)text.obj, k, v)
    {
        if (json_is_null(v) || !model_position_key(k, text.model_type))
            continue;
        snprintf(path, sizeof path, "%s.%s", text.src, k);
        if (named(src, n, path))
            continue;
        const char *why = why_top(k, v, r, skip, &refuse);
        const json_t *rs = json_object_get(text.obj, "rope_scaling");
        if (why == NULL && strcmp(k, "rope_parameters") == 0 && json_is_object(rs) &&
            json_object_size(rs) > 0 && json_equal(v, rs))
            why = "the same object as rope_scaling, which is read (HF v5 "
                  "convert_rope_params_to_dict: "
                  "rope_scaling, else rope_parameters)";
        if (why != NULL) {
            ignore(r, path, why);
        } else if (refuse != NULL) {
            api_problem_key(pb, API_PB_INVALID_FIELD, text.ptr, k, "%s", refuse);
        }
    }
    /* the keys of the scaling object read (its fields name themselves in sources) */
    if (!r->axes && sc->present && strncmp(sc->ptr, "/config/", 8) == 0) {
        const json_t *obj = at_ptr(cfg, sc->ptr + strlen("/config"));
        json_object_foreach((json_t *)obj, k, v)
        {
            if (json_is_null(v))
                continue;
            snprintf(path, sizeof path, "%s.%s", sc_src, k);
            if (named(src, n, path))
                continue;
            const char *why = why_scaling(k, r, &refuse);
            if (why != NULL) {
                ignore(r, path, why);
            } else if (refuse != NULL) {
                api_problem_key(pb, API_PB_INVALID_FIELD, sc->ptr, k, "%s", refuse);
            }
        }
    }
    /* multi-axis from the config: the members of its scaling object (mrope_section named) */
    if (r->axes && strncmp(r->axes_ptr, "/config/", 8) == 0) {
        const char *asrc = r->axes_src;
        size_t alen = strcspn(asrc, " ") - strlen(".mrope_section");
        const json_t *obj = at_ptr(cfg, r->axes_ptr + strlen("/config"));
        json_object_foreach((json_t *)obj, k, v)
        {
            if (json_is_null(v))
                continue;
            snprintf(path, sizeof path, "%.*s.%s", (int)alen, asrc, k);
            if (named(src, n, path))
                continue;
            const char *why =
                strcmp(k, "type") == 0 || strcmp(k, "rope_type") == 0
                    ? "\"mrope\" and \"default\" (the only types accepted with mrope_section) "
                      "both give M-RoPE's plain frequencies (modeling_rope_utils.py)"
                    : why_scaling(k, r, &refuse);
            if (why != NULL) {
                ignore(r, path, why);
            } else if (refuse != NULL) {
                api_problem_key(pb, API_PB_INVALID_FIELD, r->axes_ptr, k, "%s", refuse);
            }
        }
    }
    /* DBRX: attn_config.rope_theta when rope_parameters / rope_theta gave the base (HF v5) */
    const json_t *attn =
        strcmp(text.model_type, "dbrx") == 0 ? json_object_get(text.obj, "attn_config") : NULL;
    const json_t *att = json_is_object(attn) ? json_object_get(attn, "rope_theta") : NULL;
    snprintf(path, sizeof path, "%s.attn_config.rope_theta", text.src);
    if (att != NULL && !json_is_null(att) && !named(src, n, path))
        ignore(r, path,
               "HF v5's DbrxAttentionConfig has no rope_theta: DbrxRotaryEmbedding reads "
               "rope_parameters.rope_theta (models/dbrx/configuration_dbrx.py), used here");
    /* per-layer-type rope_parameters: the entries of the other layer types */
    const char *pk = r->kind >= 0 ? r->plan.kind[r->kind].params_key : "";
    const json_t *params = pk[0] ? json_object_get(text.obj, "rope_parameters") : NULL;
    json_object_foreach((json_t *)params, k, v)
    {
        if (json_is_null(v) || strcmp(k, pk) == 0)
            continue;
        snprintf(path, sizeof path, "%s.rope_parameters.%s", text.src, k);
        ignore(r, path,
               "the rope parameters of another layer type (modeling_rope_utils.py: each layer "
               "reads its layer type's entry); layer_kinds answers those layers");
    }
    if (text.nested) { /* the wrapper's own position keys do not reach the text model */
        json_object_foreach((json_t *)cfg, k, v)
        {
            if (json_is_null(v) || !api_rope_position_key(k))
                continue;
            snprintf(path, sizeof path, "config.%s", k);
            ignore(r, path,
                   "a wrapper's key: Hugging Face builds the text model from its text "
                   "config");
        }
    }
    return api_problem_count(pb) != e0 ? -1 : 0;
}
