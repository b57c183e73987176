/*
 * api/model_full_head.c -- model types whose Hugging Face attention rotates the whole head, and
 * what a rotary fraction in their config means there (see model_config.h, api_model_full_head).
 *
 * In these modeling_<type>.py files (transformers v5) the rotary embedding's
 * compute_default_rope_parameters is LlamaRotaryEmbedding's: inv_freq over dim = head_dim, no
 * partial_rotary_factor read; apply_rotary_pos_emb multiplies all of q and k by cos / sin (no
 * q_rot / q_pass cut as in modeling_phi.py, modeling_glm.py or modeling_qwen3_next.py).
 * transformers 4.x's shared _compute_default_rope_parameters read config.partial_rotary_factor
 * and built head_dim x factor frequencies that these attentions could not apply (a shape error).
 * The modeling_rope_utils.py functions of the scaling types (linear, dynamic, yarn, longrope,
 * llama3) read rope_parameters.partial_rotary_factor in both versions (v5's
 * RotaryEmbeddingConfigMixin copies a top-level one there): with a fraction below 1 they build
 * fewer frequencies than the attention multiplies, and HF does not run.
 *
 * Also the two types whose fraction is counted on another width than posenc's head_dim or must
 * split the head in two (api_model_fraction_rules): Mistral 4 and RecurrentGemma.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/model_config.h"
#include "api/req.h"

static const struct {
    const char *model_type;
    const char *file; /* src/transformers/models/<name>/ */
} FULL_HEAD[] = {
    {"llama", "modeling_llama.py"},
    {"mistral", "modeling_mistral.py"},
    {"mixtral", "modeling_mixtral.py"},
    {"ministral", "modeling_ministral.py"},
    {"ministral3", "modeling_ministral3.py"},
    {"qwen2", "modeling_qwen2.py"},
    {"qwen2_moe", "modeling_qwen2_moe.py"},
    {"qwen3", "modeling_qwen3.py"},
    {"qwen3_moe", "modeling_qwen3_moe.py"},
    {"gemma", "modeling_gemma.py"},
    {"gemma2", "modeling_gemma2.py"},
    {"gemma3", "modeling_gemma3.py"},
    {"gemma3_text", "modeling_gemma3.py"},
    {"olmo", "modeling_olmo.py"},
    {"olmo2", "modeling_olmo2.py"},
    {"olmo3", "modeling_olmo3.py"},
    {"olmoe", "modeling_olmoe.py"},
    {"smollm3", "modeling_smollm3.py"},
    {"exaone4", "modeling_exaone4.py"},
    {"starcoder2", "modeling_starcoder2.py"},
    {"granite", "modeling_granite.py"},
    {"granitemoe", "modeling_granitemoe.py"},
    {"granitemoehybrid", "modeling_granitemoehybrid.py"},
    {"falcon", "modeling_falcon.py"},
    {"falcon_h1", "modeling_falcon_h1.py"},
    {"arcee", "modeling_arcee.py"},
    {"apertus", "modeling_apertus.py"},
    {"seed_oss", "modeling_seed_oss.py"},
    {"helium", "modeling_helium.py"},
    {"dots1", "modeling_dots1.py"},
    {"hunyuan_v1_dense", "modeling_hunyuan_v1_dense.py"},
    {"hunyuan_v1_moe", "modeling_hunyuan_v1_moe.py"},
    {"gpt_oss", "modeling_gpt_oss.py"},
    {"cohere", "modeling_cohere.py"},
    {"cohere2", "modeling_cohere2.py"},
    {"lfm2", "modeling_lfm2.py"},
    {"lfm2_moe", "modeling_lfm2_moe.py"},
    {"bitnet", "modeling_bitnet.py"},
    {"dbrx", "modeling_dbrx.py"},
};

const char *api_model_full_head(const char *model_type)
{
    for (size_t i = 0; model_type != NULL && i < sizeof FULL_HEAD / sizeof FULL_HEAD[0]; i++)
        if (strcmp(FULL_HEAD[i].model_type, model_type) == 0)
            return FULL_HEAD[i].file;
    return NULL;
}

/* The key of a JSON pointer: the text after its last '/'. */
static const char *last_key(const char *ptr)
{
    const char *s = strrchr(ptr, '/');
    return s != NULL ? s + 1 : ptr;
}

int api_model_full_head_rotary(api_problem *pb, api_rope_config *out, api_rc_warnings *w)
{
    const char *file = api_model_full_head(out->model_type);
    api_rc_origin *o = out->rotary_dim_o.set ? &out->rotary_dim_o : &out->partial_o;
    /* only a key of the file (not a class default; none of these classes has one) */
    if (file == NULL || !o->set || strncmp(o->src, "config.", 7) != 0 || out->head_dim < 2)
        return 0;
    double f = out->partial_rotary_factor;
    int64_t rd = out->rotary_dim_o.set ? out->rotary_dim : (int64_t)((double)out->head_dim * f);
    if (rd == out->head_dim)
        return 0; /* the whole head either way: the source names it */
    const char *key = last_key(o->ptr);
    int scaled = out->scaling.present && out->scaling.type != PE_ROPE_DEFAULT;
    if (strcmp(key, "partial_rotary_factor") == 0 && scaled) {
        api_problem_field(pb, API_PB_INVALID_FIELD, o->ptr,
                          "remove it or send POST /rope with rotary_dim: under %s scaling HF makes "
                          "frequencies for int(head_dim %lld x %.17g) = %lld dims, and %s's "
                          "apply_rotary_pos_emb rotating all %lld fails",
                          api_rope_type_name(out->scaling.type), (long long)out->head_dim, f,
                          (long long)rd, file, (long long)out->head_dim);
        return -1;
    }
    if (strcmp(key, "partial_rotary_factor") == 0)
        api_rc_warn(w,
                    "%s %.17g: model_type \"%s\" rotates the whole head in Hugging Face (%s: "
                    "transformers 5's compute_default_rope_parameters reads no "
                    "partial_rotary_factor and apply_rotary_pos_emb rotates all head_dim dims; "
                    "transformers 4.x built %lld dims of frequencies that this attention could "
                    "not apply): answered for all %lld dims; send POST /rope with rotary_dim for "
                    "a partial rotation",
                    o->src, f, out->model_type, file, (long long)rd, (long long)out->head_dim);
    else
        api_rc_warn(w,
                    "%s: model_type \"%s\"'s Hugging Face code does not read %s and rotates the "
                    "whole head (%s: apply_rotary_pos_emb over all head_dim dims): answered for "
                    "all %lld dims, not %lld; send POST /rope with rotary_dim for a partial "
                    "rotation",
                    o->src, out->model_type, key, file, (long long)out->head_dim, (long long)rd);
    memset(&out->rotary_dim_o, 0, sizeof out->rotary_dim_o);
    memset(&out->partial_o, 0, sizeof out->partial_o);
    out->rotary_dim = 0;
    out->partial_rotary_factor = 0.0;
    return 0;
}

/* RecurrentGemma (modeling_recurrent_gemma.py, RecurrentGemmaSdpaAttention): q and k are cut
 * with torch.chunk(q, int(1 / partial_rotary_factor)) into exactly two pieces, the first
 * rotated by a rotary embedding of int(partial_rotary_factor x head_dim) dims; any factor for
 * which that is not two pieces with the first ceil(head_dim / 2) wide fails in HF: a 422. */
static void check_rgemma_rotary(api_problem *pb, api_rope_config *out)
{
    if (strcmp(out->model_type, "recurrent_gemma") != 0 || !out->partial_o.set || out->head_dim < 2)
        return;
    double f = out->partial_rotary_factor;
    int64_t pieces = (int64_t)floor(1.0 / f), d = (int64_t)floor((double)out->head_dim * f);
    if (pieces != 2 || d != (out->head_dim + 1) / 2)
        api_problem_field(pb, API_PB_INVALID_FIELD, out->partial_o.ptr,
                          "RecurrentGemma splits the head with torch.chunk(q, int(1 / %.17g) = "
                          "%lld) and rotates the first piece with int(head_dim %lld x %.17g) = "
                          "%lld dims: HF runs only when that is two pieces and half the head "
                          "(partial_rotary_factor 0.5)",
                          f, (long long)pieces, (long long)out->head_dim, f, (long long)d);
}

/* Mistral 4 (configuration_mistral4.py): Mistral4Config makes head_dim qk_nope_head_dim +
 * qk_rope_head_dim and rope_parameters' partial_rotary_factor qk_rope_head_dim / head_dim, so HF's
 * rotary dim int(head_dim x partial_rotary_factor) is counted on that whole head, while posenc's
 * head_dim is the rotated qk_rope_head_dim slice. Turns a factor read into that rotary dim; a
 * factor whose rotary dim is not the slice is a 422 (Mistral4Attention's q_rot would not match). */
static void resolve_mistral4_rotary(api_problem *pb, const json_t *cfg, const char *ptr,
                                    api_rope_config *out)
{
    char fp[API_RC_PTR];
    if (strcmp(out->model_type, "mistral4") != 0 || !out->partial_o.set ||
        strstr(out->head_dim_o.src, "qk_rope_head_dim") == NULL)
        return;
    int64_t nope = 64; /* Mistral4Config's default */
    if (api_get_int(pb, cfg, ptr, "qk_nope_head_dim", 1, INT64_MAX, &nope) < 0)
        return;
    double f = out->partial_rotary_factor;
    int64_t whole = nope > INT64_MAX - out->head_dim ? INT64_MAX : nope + out->head_dim;
    double dd = floor((double)whole * f); /* (past int64: never the slice, a 422 below) */
    int64_t d = dd < 9e18 ? (int64_t)dd : INT64_MAX;
    if (d != out->head_dim) {
        api_problem_field(pb, API_PB_INVALID_FIELD, out->partial_o.ptr,
                          "Mistral 4 rotates floor((qk_nope_head_dim + qk_rope_head_dim) %lld x "
                          "partial_rotary_factor %.17g) = %lld dims, which must be "
                          "qk_rope_head_dim %lld (configuration_mistral4.py)",
                          (long long)whole, f, (long long)d, (long long)out->head_dim);
        return;
    }
    snprintf(fp, sizeof fp, "%s", out->partial_o.ptr);
    out->rotary_dim = d;
    /* fits API_RC_SRC once rebased onto config.text_config. */
    api_rc_origin_set(&out->rotary_dim_o, fp, "%s x (qk_nope_head_dim + qk_rope_head_dim)",
                      out->partial_o.src);
    memset(&out->partial_o, 0, sizeof out->partial_o);
}

void api_model_fraction_rules(api_problem *pb, const json_t *cfg, const char *ptr,
                              api_rope_config *out)
{
    resolve_mistral4_rotary(pb, cfg, ptr, out);
    check_rgemma_rotary(pb, out);
}
