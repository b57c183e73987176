/*
 * api/model_method.c -- POST /model/method: which position method a model uses, layer by layer.
 *
 * Request: any config.json, bare or wrapped as {"config": {...}} (wrappers such as text_config are
 * followed: api/model_config.h). Response (openapi.yaml ModelMethodResponse):
 *   {"model_type", "text_config" (dotted path of the text model), "num_layers",
 *    "layers": [kind index of layer 0, 1, ...], "kinds": [{"method", "layers", "parameters",
 *    "route", "request", "sources"}...], "warnings"?}
 * Methods and the HF code they follow (transformers v5, models/<name>/modeling_<name>.py):
 *   learned_absolute  bert, electra, gpt2, gpt_neo, gpt_bigcode, ... (nn.Embedding over position
 *                     ids); roberta-like models start at padding_idx + 1 (create_position_ids_
 *                     from_input_ids), OPT / BART / BioGPT add an offset of 2 (LearnedPositional
 *                     Embedding); route /learned needs the model's trained table.
 *   alibi             bloom, mpt (attn_config.alibi), falcon (alibi: true); route /alibi.
 *   sinusoidal        whisper (encoder; its decoder is learned_absolute), marian, pegasus,
 *                     m2m_100, nllb-moe, speech_to_text, fsmt, xglm: a fixed table added to the
 *                     embeddings; route /sinusoidal with the convention, layout and first row
 *                     that give HF's table (api/model_sinusoidal.h).
 *   t5_relative       t5, mt5, umt5, longt5, switch_transformers: bidirectional buckets in the
 *                     encoder, causal in the decoder; route /t5/buckets.
 *   rope              everything with rotary keys or a RoPE model_type; one kind per distinct
 *                     RoPE answer (Gemma 3 sliding layers: rope_local_base_freq without scaling;
 *                     v5 per-layer-type rope_parameters); route /rope, request {"config": the
 *                     text config edited down to that kind}.
 *   none              RoPE models' no-RoPE layers: no_rope_layers (Llama 4, SmolLM3: 0 = none,
 *                     default every 4th layer), EXAONE 4 full-attention layers when sliding_window
 *                     is set; Llama 4's carry `query_scale` (attention temperature tuning,
 *                     api/model_method_parts.h).
 * Every kind also carries the model's attention scale (parameters.scale, sources.scale:
 * api/model_scale.h, api_mm_attn_scale) and Gemma 2's attn_logit_softcapping.
 * Class defaults: a sparse text_config nested in a LLaVA wrapper takes LlamaConfig's (the kind's
 * request carries them written out, its sources name them as defaults); gpt2 without n_positions
 * GPT2Config's 1024. Keys of the wrong JSON type or shape are 422s (api/model_layers.h for the
 * layer-structure keys, mrope_section summing to rotary_dim / 2); an Accept refusing JSON is a
 * 406 (api/api.c: the route has no array).
 * Unknown model types without rotary keys are a 422 at /model_type. Pure but for allocation;
 * thread-safe.
 */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/model_config.h"
#include "api/model_hybrid.h"
#include "api/model_layers.h"
#include "api/model_method_parts.h"
#include "api/model_sinusoidal.h"
#include "api/req.h"
#include "api/rope_config.h"
#include "api/rope_parse.h" /* api_rope_rotary_dim_resolve: the same rule as /rope */

#define MAX_LAYERS 4096

static const json_t *member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return (v == NULL || json_is_null(v)) ? NULL : v;
}

/* 1 when obj (may be NULL) has key set to true. */
static int is_true(const json_t *obj, const char *key)
{
    const json_t *v = obj != NULL ? json_object_get(obj, key) : NULL;
    return v != NULL && json_is_true(v);
}

typedef enum { M_NONE, M_LEARNED, M_ALIBI, M_T5, M_ROPE } method_id;

/* Deepest config the answer can carry: the writer nests at most WIRE_JW_MAX_DEPTH levels and a
 * kind's ready request sits 4 levels down (kinds[i].request.config). */
#define MAX_CONFIG_DEPTH 16

/* the learned and T5 model types are api/model_config.h's API_MODEL_LEARNED, ... */
/* A kind under construction: its description and the layers it covers. */
typedef struct {
    json_t *obj;    /* {"method", "parameters", "route", "request", "sources"} */
    json_t *layers; /* [indices] */
} kind;

typedef struct {
    kind k[8];
    size_t n;
    json_t *per_layer; /* kind index per layer */
    int oom;
} plan;

/* Adds a kind, returns its index (or -1 when full / out of memory). obj is taken. */
static int add_kind(plan *p, json_t *obj)
{
    if (obj == NULL || p->n >= sizeof p->k / sizeof p->k[0]) {
        p->oom |= obj == NULL;
        json_decref(obj);
        return -1;
    }
    p->k[p->n].obj = obj;
    p->k[p->n].layers = json_array();
    return (int)p->n++;
}

static void assign(plan *p, int layer, int k)
{
    if (k < 0)
        return;
    if (json_array_append_new(p->k[k].layers, json_integer(layer)) < 0 ||
        json_array_append_new(p->per_layer, json_integer(k)) < 0)
        p->oom = 1;
}

/* The first of keys present in cfg as an integer >= 1 into *out (untouched when none). */
static void first_int(api_problem *pb, const json_t *cfg, const char *ptr, const char *const *keys,
                      int64_t *out)
{
    for (const char *const *k = keys; *k; k++)
        if (api_get_int(pb, cfg, ptr, *k, 1, INT64_MAX, out) != 0)
            return;
}

/* The learned / alibi / t5 / sinusoidal kinds (one or two per model; two stacks are numbered
 * encoder first, as T5's). Returns 0, 1 when not applicable. */
static int plan_fixed(api_problem *pb, plan *p, const json_t *cfg, const char *ptr,
                      const char *where, const char *mt, int64_t n_layers)
{
    /* api/model_sinusoidal.h; DistilBERT's fixed table (create_sinusoidal_embeddings) */
    if (api_model_sinusoidal_type(mt) ||
        (strcmp(mt, "distilbert") == 0 && is_true(cfg, "sinusoidal_pos_embds"))) {
        json_t *sk[2];
        int64_t sn[2];
        if (api_mm_sinusoidal_kinds(pb, cfg, ptr, where, mt, n_layers, sk, sn) < 0)
            return 0;
        for (int s = 0; s < 2 && sk[s] != NULL; s++) {
            int ki = add_kind(p, sk[s]);
            for (int64_t l = 0; l < sn[s]; l++)
                assign(p, (int)(s ? sn[0] + l : l), ki);
        }
        return 0;
    }
    int64_t maxpos = 0, hidden = 0, heads = 0, pad = 1;
    static const char *const POS[] = {"max_position_embeddings", "n_positions", NULL};
    static const char *const DIM[] = {"hidden_size", "n_embd", "d_model", "dim", NULL};
    static const char *const HEADS[] = {"num_attention_heads", "n_head", "num_heads", "n_heads",
                                        NULL};
    first_int(pb, cfg, ptr, POS, &maxpos);
    first_int(pb, cfg, ptr, DIM, &hidden);
    first_int(pb, cfg, ptr, HEADS, &heads);
    const json_t *pet = member(cfg, "position_embedding_type");
    char fp[160];
    if (pet != NULL && !json_is_string(pet)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "position_embedding_type",
                        "must be a string (absolute, relative_key, rope, ...)");
    }
    /* the ALiBi switches must be booleans (a "yes" must not read as false) */
    int flag = 0;
    if (strcmp(mt, "falcon") == 0)
        api_get_bool(pb, cfg, ptr, "alibi", &flag);
    const json_t *ac = NULL;
    if (strcmp(mt, "mpt") == 0 && api_get_object(pb, cfg, ptr, "attn_config", &ac) > 0) {
        api_ptr(fp, sizeof fp, ptr, "attn_config");
        api_get_bool(pb, ac, fp, "alibi", &flag);
    }
    if (api_problem_failed(pb))
        return 0;
    int learned = api_str_in_list(API_MODEL_LEARNED, mt) ||
                  api_str_in_list(API_MODEL_LEARNED_PAD, mt) ||
                  api_str_in_list(API_MODEL_LEARNED_2, mt);
    if (learned && pet != NULL && json_is_string(pet) &&
        strcmp(json_string_value(pet), "absolute") != 0) {
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "position_embedding_type",
                        "position_embedding_type \"%.40s\" (Shaw-style relative keys) has no "
                        "answer here yet; only \"absolute\" is described",
                        json_string_value(pet));
        return 0;
    }
    int alibi = strcmp(mt, "bloom") == 0 || (strcmp(mt, "falcon") == 0 && is_true(cfg, "alibi")) ||
                (strcmp(mt, "mpt") == 0 && is_true(member(cfg, "attn_config"), "alibi"));
    json_t *lsrc = NULL; /* sources of a learned kind's values HF's config class fills in */
    if (learned && maxpos == 0 && strcmp(mt, "gpt2") == 0) {
        maxpos = 1024; /* GPT2Config n_positions (models/gpt2/configuration_gpt2.py) */
        lsrc = json_pack("{s:s}", "max_position_embeddings",
                         "default of GPT2Config (models/gpt2/configuration_gpt2.py): n_positions");
    }
    if (strcmp(mt, "mpt") == 0 && !alibi) {
        /* transformers' MptModel has no position table and adds ALiBi in every forward
         * (modeling_mpt.py: build_mpt_alibi_tensor, attn_config.alibi never read); MosaicML's
         * remote code follows alibi / learned_pos_emb. Neither answer is sure: say both. */
        api_ptr(fp, sizeof fp, ptr, ac != NULL ? "attn_config" : "model_type");
        if (ac != NULL && member(ac, "alibi") != NULL) {
            char ap[sizeof fp];
            snprintf(ap, sizeof ap, "%s", fp);
            api_ptr(fp, sizeof fp, ap, "alibi");
        }
        api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                          "MPT without attn_config.alibi true: transformers' MptModel applies "
                          "ALiBi anyway (slopes_rule mpt, alibi_bias_max 8) and has no position "
                          "table, MosaicML's remote code a learned table (learned_pos_emb): send "
                          "POST /alibi or POST /learned for the one you run");
        return 0;
    }
    if (learned) {
        int64_t offset = 0;
        const char *why = "position ids from 0 (nn.Embedding)";
        if (api_str_in_list(API_MODEL_LEARNED_PAD, mt)) {
            api_get_int(pb, cfg, ptr, "pad_token_id", 0, INT64_MAX, &pad);
            offset = pad + 1;
            why = "position ids start at padding_idx + 1 (create_position_ids_from_input_ids)";
        } else if (api_str_in_list(API_MODEL_LEARNED_2, mt)) {
            offset = 2;
            why = "LearnedPositionalEmbedding adds an offset of 2";
        }
        json_t *k =
            json_pack("{s:s, s:{s:I, s:I, s:I, s:s}, s:s, s:n, s:s}", "method", "learned_absolute",
                      "parameters", "max_position_embeddings", (json_int_t)maxpos, "d_model",
                      (json_int_t)hidden, "offset", (json_int_t)offset, "offset_rule", why, "route",
                      "/learned", "request", "note",
                      "the trained table comes from the model's weights: store it with "
                      "PUT /tables/{name}, then POST /learned");
        if (k != NULL && lsrc != NULL)
            json_object_set_new(k, "sources", lsrc);
        else
            json_decref(lsrc);
        int ki = add_kind(p, k); /* one table, added to the token embeddings before layer 0 */
        for (int64_t l = 0; l < n_layers; l++)
            assign(p, (int)l, ki);
        return 0;
    }
    if (alibi) {
        json_t *k = json_pack("{s:s, s:{s:I}, s:s, s:{s:I}}", "method", "alibi", "parameters",
                              "num_heads", (json_int_t)heads, "route", "/alibi", "request",
                              "num_heads", (json_int_t)heads);
        /* transformers' MptModel always builds its slopes with alibi_bias_max 8
         * (build_mpt_alibi_tensor's default; modeling_mpt.py never passes the config's) */
        double bias_max = 8.0;
        if (ac != NULL)
            api_ptr(fp, sizeof fp, ptr, "attn_config");
        if (ac != NULL &&
            api_get_number(pb, ac, fp, "alibi_bias_max", 0.0, 1e300, API_NUM_MIN_EXCL, &bias_max) >
                0 &&
            bias_max != 8.0) {
            api_problem_key(pb, API_PB_INVALID_FIELD, fp, "alibi_bias_max",
                            "transformers' MptModel uses 8 whatever the file says, MosaicML's "
                            "remote code this value: send POST /alibi with slopes_rule mpt and "
                            "the alibi_bias_max you mean");
            json_decref(k);
            return 0;
        }
        if (api_problem_failed(pb)) {
            json_decref(k);
            return 0;
        }
        int ki = add_kind(p, k);
        for (int64_t l = 0; l < n_layers; l++)
            assign(p, (int)l, ki);
        return 0;
    }
    if (api_str_in_list(API_MODEL_T5, mt)) {
        int64_t nb = 32, md = 128, n_dec = n_layers;
        api_get_int(pb, cfg, ptr, "relative_attention_num_buckets", 1, INT64_MAX, &nb);
        api_get_int(pb, cfg, ptr, "relative_attention_max_distance", 1, INT64_MAX, &md);
        api_get_int(pb, cfg, ptr, "num_decoder_layers", 0, MAX_LAYERS, &n_dec);
        for (int dec = 0; dec < 2; dec++) {
            json_t *k =
                json_pack("{s:s, s:s, s:{s:I, s:I, s:b}, s:s, s:{s:I, s:I, s:b}}", "method",
                          "t5_relative", "stack", dec ? "decoder" : "encoder", "parameters",
                          "num_buckets", (json_int_t)nb, "max_distance", (json_int_t)md,
                          "bidirectional", !dec, "route", "/t5/buckets", "request", "num_buckets",
                          (json_int_t)nb, "max_distance", (json_int_t)md, "bidirectional", !dec);
            int ki = add_kind(p, k);
            int64_t n = dec ? n_dec : n_layers;
            for (int64_t l = 0; l < n; l++)
                assign(p, (int)(dec ? n_layers + l : l), ki);
        }
        return 0;
    }
    return 1;
}

/* One RoPE kind from a (possibly edited) text config: resolved as POST /rope would. */
static json_t *rope_kind(api_problem *pb, const json_t *cfg, const char *ptr, const char *where,
                         api_rc_warnings *w)
{
    /* multi-axis RoPE (Qwen2-VL family: mrope_section in the scaling object) is not a scaling
     * type: the config's dims and base are read without it and the sections reported as is */
    const json_t *msc = member(cfg, "rope_scaling");
    if (msc == NULL)
        msc = member(cfg, "rope_parameters");
    const json_t *sections = msc != NULL ? member(msc, "mrope_section") : NULL;
    int mrope_il = msc != NULL && is_true(msc, "mrope_interleaved");
    api_rope_config rc;
    if (api_rope_config_resolve(pb, cfg, ptr, sections ? API_RC_SKIP_SCALING : 0, &rc, w) < 0 ||
        !rc.head_dim_o.set) {
        if (!api_problem_failed(pb))
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                              "head_dim: the config has none of qk_rope_head_dim, head_dim, "
                              "hidden_size / num_attention_heads");
        return NULL;
    }
    json_t *empty = json_object();
    int64_t rd = 0;
    api_rc_origin ro;
    int rrc = api_rope_rotary_dim_resolve(pb, empty, &rc, rc.head_dim, &rc.head_dim_o, &rd, &ro);
    json_decref(empty);
    /* the checks of POST /rope (api/rope_parse.c): pairs need an even rotated width within the
     * head (an odd one has no HF answer: transformers#48101) */
    if (rrc >= 0 && rd == rc.head_dim && rd % 2 != 0) { /* the head's key, as /rope names it */
        api_problem_field(pb, API_PB_INVALID_FIELD, api_rc_blame(&rc.head_dim_o, ro.ptr),
                          "head_dim must be even, got %lld", (long long)rd);
        rrc = -1;
    } else if (rrc >= 0 && (rd < 2 || rd % 2 != 0)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ro.ptr,
                          "rotary_dim must be even and >= 2, got %lld", (long long)rd);
        rrc = -1;
    } else if (rrc >= 0 && rd > rc.head_dim) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ro.ptr,
                          "rotary_dim %lld must be <= head_dim (%lld)", (long long)rd,
                          (long long)rc.head_dim);
        rrc = -1;
    }
    if (rrc < 0 || (sections != NULL && api_mm_check_sections(pb, msc, cfg, ptr, sections, rd) < 0))
        return NULL;
    if (sections == NULL && api_mm_account_keys(pb, cfg, ptr, &rc, &ro) < 0)
        return NULL; /* a key POST /rope would refuse (it could change the numbers) */
    api_rc_origin *named[] = {&rc.head_dim_o, &rc.base_o, &rc.layout_o, &ro};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) /* config.text_config.x */
        api_model_src_rebase(named[i]->src, sizeof named[i]->src, where);
    double base = rc.base_o.set ? rc.base : 10000.0;
    const api_rope_scaling *sc = &rc.scaling;
    json_t *scaling = json_null();
    if (sections != NULL) {
        scaling = json_pack("{s:s, s:O, s:b}", "type", "mrope", "mrope_section", (json_t *)sections,
                            "mrope_interleaved", mrope_il);
    } else if (sc->present) {
        scaling = json_pack("{s:s}", "type", api_rope_type_name(sc->type));
        for (int f = 0; f < API_RS__COUNT; f++) {
            if (!sc->origin[f].set)
                continue;
            json_t *v = f == API_RS_SHORT_FACTOR  ? json_deep_copy(sc->list[0])
                        : f == API_RS_LONG_FACTOR ? json_deep_copy(sc->list[1])
                        : f == API_RS_TRUNCATE    ? json_boolean(sc->num[f] != 0.0)
                                                  : json_real(sc->num[f]);
            json_object_set_new(scaling, api_rs_field_name((api_rs_field)f), v);
        }
    }
    const char *layout = rc.layout == PE_ROPE_INTERLEAVED ? "interleaved" : "half";
    json_t *req =
        json_pack("{s:I, s:I, s:f, s:s, s:O}", "head_dim", (json_int_t)rc.head_dim, "rotary_dim",
                  (json_int_t)rd, "base", base, "layout", layout, "scaling", scaling);
    json_t *sources =
        json_pack("{s:s, s:s, s:s, s:s}", "head_dim", rc.head_dim_o.src, "rotary_dim", ro.src,
                  "base", rc.base_o.set ? rc.base_o.src : "default", "layout", rc.layout_o.src);
    /* the request is the (edited, one-kind) text config itself: POST /rope then applies the
     * model-type rules (layout, softmax factor) exactly as for the pasted file */
    const char *variant = sections != NULL ? (mrope_il ? "mrope_interleaved" : "mrope")
                          : sc->present    ? api_rope_type_name(sc->type)
                                           : "default";
    json_t *k = json_pack("{s:s, s:s, s:o, s:s, s:{s:O}, s:o}", "method", "rope", "variant",
                          variant, "parameters", req, "route", "/rope", "request", "config",
                          (json_t *)cfg, "sources", sources);
    json_decref(scaling);
    return k;
}

/* RoPE kinds per layer (api_ml_plan_layers: the rule /rope's per-layer answers use too).
 * Returns 0 or -1 (error in pb). */
static int plan_rope(api_problem *pb, plan *p, const api_model_text *text, const char *where,
                     api_rc_warnings *w)
{
    const json_t *cfg = text->obj;
    const char *mt = text->model_type;
    const json_t *params = member(cfg, "rope_parameters");
    int per_type = params && json_is_object(params) && member(params, "rope_type") == NULL &&
                   member(params, "type") == NULL && json_object_size(params) > 0;
    int modernbert = strcmp(mt, "modernbert") == 0;
    int gemma3 = strcmp(mt, "gemma3_text") == 0 || strcmp(mt, "gemma3") == 0 ||
                 strcmp(mt, "gemma3n_text") == 0 || strcmp(mt, "gemma3n") == 0 ||
                 modernbert; /* sliding layers: a local base of their own */
    api_ml_plan lp;
    if (api_ml_plan_layers(pb, text, &lp) < 0) {
        api_ml_plan_free(&lp);
        return -1;
    }
    api_model_temp tt; /* Llama 4's query temperature in its no-RoPE layers */
    if (api_model_temp_tuning(pb, text, &tt) < 0) {
        api_ml_plan_free(&lp);
        return -1;
    }
    int map[API_ML_MAX_KINDS];
    for (size_t i = 0; i < API_ML_MAX_KINDS; i++)
        map[i] = -1;
    int rc = 0;
    for (int64_t l = 0; l < lp.n_layers && rc == 0; l++) {
        int lk = lp.kind_of[l];
        const api_ml_kind *kd = &lp.kind[lk];
        if (map[lk] < 0 && !kd->rope) {
            json_t *k = api_mm_none_kind(kd, &lp, text, where);
            if (k != NULL && tt.on)
                json_object_set_new(k, "query_scale", api_mm_query_scale(&tt, text, where));
            map[lk] = add_kind(p, k);
        } else if (map[lk] < 0) {
            json_t *edited = json_deep_copy(cfg);
            if (edited == NULL) {
                p->oom = 1;
                rc = -1;
                break;
            }
            /* a wrapped text config without model_type builds the class the wrapper names
             * (api_model_text_find: LLaVA's llama, Qwen3.5's text class, ...): the kind's
             * request says which, or /rope would read it as a config of no known class */
            if (member(edited, "model_type") == NULL && mt[0])
                json_object_set_new(edited, "model_type", json_string(mt));
            if (kd->params_key[0]) {
                json_object_set(edited, "rope_parameters",
                                (json_t *)member(params, kd->params_key));
            } else if (kd->local_base) {
                /* Gemma 3 local layers: rope_local_base_freq, no scaling (Gemma3RotaryEmbedding
                 * for local layers is built with rope_type default); ModernBERT's:
                 * local_rope_theta, written as global_rope_theta (it reads no rope_theta) */
                const char *lbk = api_model_local_base_key(mt);
                const json_t *lb = member(cfg, lbk);
                const api_model_default *d = api_model_default_find(mt, lbk);
                json_object_set_new(edited, modernbert ? "global_rope_theta" : "rope_theta",
                                    lb ? json_deep_copy(lb) : json_real(d ? d->value : 10000.0));
                json_object_del(edited, "rope_scaling");
                api_mm_unscale(edited); /* a flat v5 rope_parameters: its type too */
                json_t *rp = json_object_get(edited, "rope_parameters");
                if (json_is_object(rp)) /* the local base above, not the object's rope_theta */
                    json_object_del(rp, "rope_theta");
            } else if (kd->unscaled) {
                api_mm_unscale(edited);
            }
            unsigned filled = api_mm_fill_defaults(edited, text);
            json_t *k = rope_kind(pb, edited, text->ptr, where, w);
            json_decref(edited);
            if (k != NULL && filled)
                api_mm_name_defaults(json_object_get(k, "sources"), text, filled);
            if (k == NULL) {
                rc = -1;
                break;
            }
            const char *lt_name =
                kd->types == API_ML_SLIDING ? "sliding_attention" : "full_attention";
            if (per_type || gemma3 || (strcmp(mt, "olmo3") == 0 && kd->types != 0))
                json_object_set_new(k, "layer_type", json_string(lt_name));
            api_mm_name_edited_sources(json_object_get(k, "sources"), where,
                                       per_type ? kd->params_key : NULL,
                                       gemma3 && !per_type && kd->local_base ? mt : NULL,
                                       member(cfg, api_model_local_base_key(mt)) != NULL);
            map[lk] = add_kind(p, k);
        }
        assign(p, (int)l, map[lk]);
    }
    api_ml_plan_free(&lp);
    return rc;
}

int api_model_method(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    (void)ctx;
    const json_t *cfg = req;
    const char *base = "";
    const json_t *wrapped = member(req, "config");
    if (wrapped != NULL && json_is_object(wrapped) && member(req, "model_type") == NULL) {
        static const char *const FIELDS[] = {"config", NULL}; /* the wrapper holds nothing else */
        if (api_check_fields(pb, req, "", FIELDS) < 0)
            return -1;
        cfg = wrapped;
        base = "/config";
    }
    api_model_text text;
    api_model_text_find(cfg, base, &text);
    const char *mt = text.model_type;
    /* the text model's place, named from the config's root: "config", "config.text_config" */
    char where[2 * API_MC_PTR + 8];
    snprintf(where, sizeof where, "config%s%s", text.nested ? "." : "",
             text.nested ? text.src + (base[0] ? strlen("config.") : 0) : "");
    int64_t n_layers = 0;
    static const char *const LAYER_KEYS[] = {"num_hidden_layers", "n_layer",        "num_layers",
                                             "n_layers",          "encoder_layers", NULL};
    for (const char *const *k = LAYER_KEYS; *k && n_layers == 0; k++)
        api_get_int(pb, text.obj, text.ptr, *k, 1, MAX_LAYERS, &n_layers);
    if (n_layers == 0 && strcmp(mt, "xlstm") == 0) /* xLSTMConfig: num_blocks, its alias */
        api_get_int(pb, text.obj, text.ptr, "num_blocks", 1, MAX_LAYERS, &n_layers);
    if (api_problem_failed(pb))
        return -1;
    if (n_layers == 0 && strcmp(mt, "nemotron_h") == 0) { /* NemotronHConfig: the list's length */
        api_hy_plan hy;
        int hrc = api_model_hybrid_plan(pb, &text, 0, &hy);
        n_layers = hy.n_layers;
        api_hy_plan_free(&hy);
        if (hrc < 0)
            return -1;
    }
    const api_model_default *dn = api_model_text_default(&text, "num_hidden_layers");
    int layers_default = n_layers == 0 && dn != NULL;
    if (layers_default)
        n_layers = (int64_t)dn->value; /* a sparse wrapped text config (LLaVA) */
    if (n_layers == 0) {
        api_problem_key(pb, API_PB_INVALID_FIELD, text.ptr, "num_hidden_layers",
                        "the number of layers is required (num_hidden_layers, n_layer, "
                        "num_layers or n_layers)");
        return -1;
    }

    /* the answer carries the config again (each kind's ready request), some levels down */
    if (api_json_depth(text.obj, MAX_CONFIG_DEPTH) > MAX_CONFIG_DEPTH) {
        api_problem_field(pb, API_PB_INVALID_FIELD, text.ptr[0] ? text.ptr : "",
                          "the config is nested deeper than %d levels; a model's config.json "
                          "is a few levels deep",
                          MAX_CONFIG_DEPTH);
        return -1;
    }
    plan p;
    memset(&p, 0, sizeof p);
    p.per_layer = json_array();
    api_rc_warnings w;
    memset(&w, 0, sizeof w);
    int rc = -1;
    if (layers_default)
        api_rc_warn(&w, "config.num_hidden_layers is absent: %lld by default of %s",
                    (long long)n_layers, dn->hf); /* "config." becomes the text's path below */
    int fixed = plan_fixed(pb, &p, text.obj, text.ptr, where, mt, n_layers);
    if (api_problem_failed(pb))
        goto done;
    if (fixed == 1) {
        int known = api_model_is_rope(mt) || api_model_hybrid_known(mt);
        if (!known && !api_model_has_rope_keys(text.obj)) {
            char fp[160];
            api_ptr(fp, sizeof fp, text.ptr, "model_type");
            if (mt[0] == '\0')
                api_problem_field(pb, API_PB_INVALID_FIELD, fp,
                                  "model_type is required to tell the position method (the config "
                                  "has no rotary keys either)");
            else
                api_problem_field(
                    pb, API_PB_INVALID_FIELD, fp,
                    "posenc does not know the position method of model_type "
                    "\"%.40s\" (not a learned, ALiBi, T5, sinusoidal or RoPE model it knows, "
                    "and the config has no rotary keys); see docs/models.md",
                    mt);
            goto done;
        }
        if (!known && mt[0] != '\0')
            api_rc_warn(&w,
                        "model_type \"%.40s\" is not in posenc's table of RoPE models; RoPE is "
                        "read from the config's own rotary keys",
                        mt);
        if (plan_rope(pb, &p, &text, where, &w) < 0)
            goto done;
    }
    if (p.oom) {
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while describing the model");
        goto done;
    }
    for (size_t i = 0; i < p.n && !api_model_attention_free(mt); i++) /* api/model_scale.h */
        if (p.k[i].obj != NULL && api_mm_attn_scale(pb, p.k[i].obj, &text, where, &w) < 0)
            goto done;
    for (size_t i = 0; strcmp(mt, "falcon") == 0 && i < p.n; i++)
        api_mm_falcon_bias_scale(p.k[i].obj);
    json_t *kinds = json_array();
    for (size_t i = 0; i < p.n; i++) {
        json_object_set(p.k[i].obj, "layers", p.k[i].layers);
        json_array_append(kinds, p.k[i].obj);
    }
    json_t *warn = json_array();
    for (size_t i = 0; i < w.n; i++) /* /rope's pointers back to this route are noise here */
        if (strstr(w.text[i], "POST /model/method") == NULL) {
            api_model_src_rebase(w.text[i], sizeof w.text[i], where);
            /* nocheck: a %.40s may have cut a request's character; the writer (wire_jw_str)
             * sends such bytes as U+FFFD, as /rope's warnings */
            json_array_append_new(warn, json_string_nocheck(w.text[i]));
        }
    json_t *resp =
        json_pack("{s:s, s:s, s:I, s:O, s:o}", "model_type", mt, "text_config", where, "num_layers",
                  (json_int_t)json_array_size(p.per_layer), "layers", p.per_layer, "kinds", kinds);
    if (resp != NULL && json_array_size(warn) > 0)
        json_object_set(resp, "warnings", warn);
    json_decref(warn);
    if (resp == NULL) {
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while describing the model");
        goto done;
    }
    wire_jw_json(out, resp);
    json_decref(resp);
    rc = 0;
done:
    for (size_t i = 0; i < p.n; i++) {
        json_decref(p.k[i].obj);
        json_decref(p.k[i].layers);
    }
    json_decref(p.per_layer);
    return rc;
}
