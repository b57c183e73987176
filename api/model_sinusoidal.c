/*
 * api/model_sinusoidal.c -- POST /model/method's sinusoidal kinds (see model_sinusoidal.h for
 * each family's table as its Hugging Face modeling file builds it).
 */
#include "api/model_sinusoidal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/model_config.h"
#include "api/req.h"

enum { OFF_ZERO, OFF_PAD, OFF_TWO };

typedef struct {
    const char *model_type;
    const char *cls;        /* the config class whose defaults a missing pad_token_id takes */
    const char *hf;         /* the HF code that builds the table */
    const char *convention; /* POST /sinusoidal's convention with HF's frequencies */
    const char *layout;     /* and its column layout */
    const char *d_key;      /* the width's key (d_model; DistilBERT's dim) */
    int enc_dec;            /* 1: an encoder and a decoder stack */
    int offset_rule;
    const char *max_key[2]; /* the table length of each stack */
    const char *heads[2];   /* attention heads of each stack */
} family;

static const family FAMILIES[] = {
    {"whisper",
     "WhisperConfig",
     "modeling_whisper.py sinusoids(): exp(-k ln(10000) / (d/2 - 1)), [sin | cos]",
     "fairseq",
     "concat",
     "d_model",
     1,
     OFF_ZERO,
     {"max_source_positions", "max_target_positions"},
     {"encoder_attention_heads", "decoder_attention_heads"}},
    {"marian",
     "MarianConfig",
     "modeling_marian.py MarianSinusoidalPositionalEmbedding._init_weight: pos / "
     "10000^(2(j//2)/d), sines then cosines",
     "vaswani",
     "concat",
     "d_model",
     1,
     OFF_ZERO,
     {"max_position_embeddings", "max_position_embeddings"},
     {"encoder_attention_heads", "decoder_attention_heads"}},
    {"pegasus",
     "PegasusConfig",
     "modeling_pegasus.py PegasusSinusoidalPositionalEmbedding (Marian's): pos / "
     "10000^(2(j//2)/d), sines then cosines",
     "vaswani",
     "concat",
     "d_model",
     1,
     OFF_ZERO,
     {"max_position_embeddings", "max_position_embeddings"},
     {"encoder_attention_heads", "decoder_attention_heads"}},
    {"m2m_100",
     "M2M100Config",
     "modeling_m2m_100.py M2M100SinusoidalPositionalEmbedding.get_embedding: exp(-k ln(10000) / "
     "(d/2 - 1)), [sin | cos | 0]",
     "fairseq",
     "concat",
     "d_model",
     1,
     OFF_PAD,
     {"max_position_embeddings", "max_position_embeddings"},
     {"encoder_attention_heads", "decoder_attention_heads"}},
    {"nllb-moe",
     "NllbMoeConfig",
     "modeling_nllb_moe.py NllbMoeSinusoidalPositionalEmbedding (M2M100's): exp(-k ln(10000) / "
     "(d/2 - 1)), [sin | cos | 0]",
     "fairseq",
     "concat",
     "d_model",
     1,
     OFF_PAD,
     {"max_position_embeddings", "max_position_embeddings"},
     {"encoder_attention_heads", "decoder_attention_heads"}},
    {"speech_to_text",
     "Speech2TextConfig",
     "modeling_speech_to_text.py Speech2TextSinusoidalPositionalEmbedding (M2M100's): "
     "exp(-k ln(10000) / (d/2 - 1)), [sin | cos | 0]",
     "fairseq",
     "concat",
     "d_model",
     1,
     OFF_PAD,
     {"max_source_positions", "max_target_positions"},
     {"encoder_attention_heads", "decoder_attention_heads"}},
    {"fsmt",
     "FSMTConfig",
     "modeling_fsmt.py SinusoidalPositionalEmbedding.get_embedding (fairseq's): exp(-k ln(10000) "
     "/ (d/2 - 1)), [sin | cos | 0]",
     "fairseq",
     "concat",
     "d_model",
     1,
     OFF_PAD,
     {"max_position_embeddings", "max_position_embeddings"},
     {"encoder_attention_heads", "decoder_attention_heads"}},
    {"xglm",
     "XGLMConfig",
     "modeling_xglm.py XGLMSinusoidalPositionalEmbedding.get_embedding: exp(-k ln(10000) / "
     "(d/2 - 1)), [sin | cos | 0]",
     "fairseq",
     "concat",
     "d_model",
     0,
     OFF_TWO,
     {"max_position_embeddings", NULL},
     {"attention_heads", NULL}},
    /* only with sinusoidal_pos_embds true (plan_fixed; else a learned table from 0) */
    {"distilbert",
     "DistilBertConfig",
     "modeling_distilbert.py create_sinusoidal_embeddings: pos / 10000^(2(j//2)/d), sines in the "
     "even columns, cosines in the odd",
     "vaswani",
     "interleaved",
     "dim",
     0,
     OFF_ZERO,
     {"max_position_embeddings", NULL},
     {"n_heads", NULL}},
};

static const family *find(const char *mt)
{
    for (size_t i = 0; mt != NULL && i < sizeof FAMILIES / sizeof FAMILIES[0]; i++)
        if (strcmp(FAMILIES[i].model_type, mt) == 0)
            return &FAMILIES[i];
    return NULL;
}

int api_model_sinusoidal_type(const char *model_type)
{
    return find(model_type) != NULL && strcmp(model_type, "distilbert") != 0;
}

/* The row of the first token and the rule that gives it; -1 with a 422 when the config's
 * pad_token_id leaves no answer. */
static int64_t first_row(api_problem *pb, const json_t *cfg, const char *ptr, const family *f,
                         int stack, char *rule, size_t n, char *src, size_t sn, const char *where)
{
    if (f->offset_rule == OFF_ZERO) {
        snprintf(rule, n, "positions from 0 (row t for token t, after past tokens: past + t)");
        snprintf(src, sn, "%s", f->hf);
        return 0;
    }
    if (f->offset_rule == OFF_TWO) {
        snprintf(rule, n,
                 "position_ids from 0 plus the fixed offset 2 (forward: position_ids += "
                 "self.offset), whatever pad_token_id is");
        snprintf(src, sn, "%s", f->hf);
        /* get_embedding zeroes row padding_idx = pad_token_id (XGLMConfig default 1): rows 0
         * and 1 are never read, row p >= 2 is token p - 2's */
        int64_t xpad = 1;
        if (api_get_int(pb, cfg, ptr, "pad_token_id", 0, INT32_MAX, &xpad) < 0)
            return -1;
        if (xpad >= 2) {
            api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "pad_token_id",
                            "%lld: XGLMSinusoidalPositionalEmbedding zeroes row pad_token_id of "
                            "its table (get_embedding: emb[padding_idx] = 0), the row token %lld "
                            "reads (position_ids + 2); no sinusoidal answer",
                            (long long)xpad, (long long)(xpad - 2));
            return -1;
        }
        return 2;
    }
    int64_t pad = 1; /* the class default of every OFF_PAD family */
    const json_t *pv = json_object_get(cfg, "pad_token_id");
    if (api_get_int(pb, cfg, ptr, "pad_token_id", 0, INT32_MAX, &pad) < 0)
        return -1;
    if (pv != NULL && !json_is_null(pv))
        snprintf(src, sn, "%s.pad_token_id + 1 (%s)", where, f->hf);
    else
        snprintf(src, sn, "default of %s (pad_token_id 1) + 1 (%s)", f->cls, f->hf);
    if (strcmp(f->model_type, "speech_to_text") == 0 && stack == 0 && pad == 0) {
        /* Speech2TextEncoder numbers a padding mask (0 = a frame) with padding_idx 0: every
         * frame is padding, position padding_idx, the zeroed row */
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "pad_token_id",
                        "0: Speech2TextEncoder numbers its padding mask (0 for every real frame) "
                        "with padding_idx 0, so every frame reads the zeroed padding row; no "
                        "sinusoidal answer");
        return -1;
    }
    snprintf(rule, n,
             "row padding_idx + 1 + t for token t (create_position_ids_from_input_ids / "
             "make_positions, padding_idx = pad_token_id %lld); padding tokens read the zeroed "
             "row padding_idx",
             (long long)pad);
    return pad + 1;
}

static json_t *stack_kind(api_problem *pb, const json_t *cfg, const char *ptr, const char *where,
                          const family *f, int stack, int64_t d)
{
    int64_t maxpos = 0, heads = 0;
    const char *mk = f->max_key[stack];
    if (api_get_int(pb, cfg, ptr, mk, 1, INT64_MAX, &maxpos) == 0)
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, mk,
                        "is required: the number of positions of the %s's table",
                        f->enc_dec ? (stack ? "decoder" : "encoder") : "model");
    api_get_int(pb, cfg, ptr, f->heads[stack], 1, INT64_MAX, &heads);
    if (api_problem_failed(pb))
        return NULL;
    json_t *params = json_object(), *src = json_object();
    char buf[512];
    if (params == NULL || src == NULL)
        goto oom;
    json_object_set_new(params, "d_model", json_integer((json_int_t)d));
    snprintf(buf, sizeof buf, "%s.%s", where, f->d_key);
    json_object_set_new(src, "d_model", json_string(buf));
    if (heads > 0 && d % heads == 0) { /* HF's attention: head_dim = embed_dim // num_heads */
        json_object_set_new(params, "head_dim", json_integer((json_int_t)(d / heads)));
        snprintf(buf, sizeof buf, "%s.%s / %s.%s", where, f->d_key, where, f->heads[stack]);
        json_object_set_new(src, "head_dim", json_string(buf));
    }
    json_object_set_new(params, "max_positions", json_integer((json_int_t)maxpos));
    snprintf(buf, sizeof buf, "%s.%s", where, mk);
    json_object_set_new(src, "max_positions", json_string(buf));
    json_t *k;
    if (strcmp(f->model_type, "whisper") == 0 && stack == 1) {
        /* WhisperDecoder: embed_positions = WhisperPositionalEmbedding (nn.Embedding), rows
         * past .. past + seq_len - 1 */
        json_object_set_new(params, "max_position_embeddings", json_integer((json_int_t)maxpos));
        json_object_set_new(params, "offset", json_integer(0));
        json_object_set_new(params, "offset_rule",
                            json_string("position ids from 0 (WhisperPositionalEmbedding: "
                                        "weight[past : past + seq_len])"));
        json_object_set_new(src, "method",
                            json_string("modeling_whisper.py WhisperDecoder: "
                                        "WhisperPositionalEmbedding, a learned nn.Embedding"));
        k = json_pack("{s:s, s:s, s:o, s:s, s:n, s:s, s:o}", "method", "learned_absolute", "stack",
                      "decoder", "parameters", params, "route", "/learned", "request", "note",
                      "the trained table comes from the model's weights: store it with "
                      "PUT /tables/{name}, then POST /learned",
                      "sources", src);
        return k != NULL ? k : (api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory"), NULL);
    }
    char rule[320], osrc[512];
    int64_t off = first_row(pb, cfg, ptr, f, stack, rule, sizeof rule, osrc, sizeof osrc, where);
    if (off >= 0 && maxpos > (int64_t)INT32_MAX - off) /* POST /sinusoidal's rows end there */
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, off > 2 ? "pad_token_id" : mk,
                        "the table's rows %lld .. %lld (offset + %s) pass 2147483647, the last "
                        "position POST /sinusoidal computes",
                        (long long)off, (long long)off + maxpos - 1, mk);
    if (off < 0 || api_problem_failed(pb)) {
        json_decref(params);
        json_decref(src);
        return NULL;
    }
    json_object_set_new(params, "base", json_real(10000.0));
    json_object_set_new(params, "convention", json_string(f->convention));
    json_object_set_new(params, "layout", json_string(f->layout));
    json_object_set_new(params, "offset", json_integer((json_int_t)off));
    json_object_set_new(params, "offset_rule", json_string(rule));
    snprintf(buf, sizeof buf, "%s (10000 fixed in the code)", f->hf);
    json_object_set_new(src, "base", json_string(buf));
    json_object_set_new(src, "convention", json_string(f->hf));
    json_object_set_new(src, "offset", json_string(osrc));
    json_t *req = json_pack("{s:I, s:f, s:s, s:s, s:I, s:I}", "d_model", (json_int_t)d, "base",
                            10000.0, "convention", f->convention, "layout", f->layout, "seq_len",
                            (json_int_t)maxpos, "offset", (json_int_t)off);
    if (req == NULL)
        goto oom;
    k = json_pack("{s:s, s:o, s:s, s:o, s:o}", "method", "sinusoidal", "parameters", params,
                  "route", "/sinusoidal", "request", req, "sources", src);
    if (k != NULL && f->enc_dec)
        json_object_set_new(k, "stack", json_string(stack ? "decoder" : "encoder"));
    if (k == NULL)
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while describing the model");
    return k;
oom:
    json_decref(params);
    json_decref(src);
    api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while describing the model");
    return NULL;
}

int api_mm_sinusoidal_kinds(api_problem *pb, const json_t *cfg, const char *ptr, const char *where,
                            const char *mt, int64_t n_layers, json_t *out[2], int64_t n_out[2])
{
    const family *f = find(mt);
    out[0] = out[1] = NULL;
    n_out[0] = n_out[1] = 0;
    if (f == NULL) { /* the caller checked api_model_sinusoidal_type */
        api_problem_set(pb, API_PB_INTERNAL, "not a sinusoidal model type");
        return -1;
    }
    int64_t d = 0;
    if (api_get_int(pb, cfg, ptr, f->d_key, 1, INT32_MAX, &d) == 0 && !api_problem_failed(pb))
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, f->d_key,
                        "is required: the width of %s's position table", f->cls);
    if (api_problem_failed(pb))
        return -1;
    if (strcmp(f->model_type, "whisper") == 0 && (d % 2 != 0 || d < 4)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "d_model",
                        "%lld: Whisper's sinusoids() raises for an odd width and divides by "
                        "d_model/2 - 1 = 0 at 2",
                        (long long)d);
        return -1;
    }
    if (strcmp(f->convention, "fairseq") == 0 && (d == 2 || d == 3)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, ptr, "d_model",
                        "%lld: %s divides by d_model/2 - 1 = 0", (long long)d, f->hf);
        return -1;
    }
    static const char *const LAYERS[] = {"encoder_layers", "decoder_layers"};
    for (int s = 0; s < (f->enc_dec ? 2 : 1); s++) {
        n_out[s] = n_layers;
        if (f->enc_dec)
            api_get_int(pb, cfg, ptr, LAYERS[s], 1, 4096, &n_out[s]);
        if (api_problem_failed(pb))
            return -1;
        out[s] = stack_kind(pb, cfg, ptr, where, f, s, d);
        if (out[s] == NULL) {
            json_decref(out[0]);
            out[0] = NULL;
            return -1;
        }
    }
    return 0;
}
