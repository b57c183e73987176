/*
 * api/attention_method.h -- the per-method plug-in interface of POST /attention, and the
 * configuration parsers that /alibi and /t5/buckets share with their /attention methods.
 *
 * POST /attention (docs/api.md#attention) evaluates, for every head h of the method,
 *   scores_h  = scale * scale_mult * q' k'^T + bias_h     (then the causal mask when `causal`)
 *   weights_h = row-wise masked softmax of scores_h
 *   output_h  = weights_h v (+ the method's own output term)
 * where q', k' are q, k after the method's transform (sinusoidal adds its table; RoPE would
 * rotate) and bias_h is the method's additive bias (ALiBi, T5; Shaw / Transformer-XL would put
 * their query-dependent terms there). api/attention.c owns the request fields shared by all
 * methods (q, k, v, causal, scale, method) and the pipeline; a method module (one
 * api/attention_<name>.c each) only parses its object and supplies the hooks below. Adding a
 * method = one new module + one line in the method table of api/attention.c.
 *
 * Source: Vaswani et al., arXiv:1706.03762 §3.2.1 (the pipeline); the methods cite their own.
 */
#ifndef API_ATTENTION_METHOD_H
#define API_ATTENTION_METHOD_H

#include <jansson.h>
#include <stddef.h>

#include "api/api.h"
#include "core/alibi.h"
#include "core/t5.h"

/* What every method sees: the validated request fields shared by all methods (borrowed). */
typedef struct {
    const api_ctx *ctx;
    const json_t *obj;   /* the method's object (e.g. the value of "alibi"), or NULL if absent */
    const char *base;    /* JSON pointer of obj, e.g. "/alibi" */
    size_t t;            /* sequence length T (rows of q, k and v); positions are 0 .. T-1 */
    size_t d;            /* width of q and k rows */
    size_t dv;           /* width of v rows, 0 without v */
    const double *q, *k; /* [t][d] as sent */
    const double *v;     /* [t][dv] or NULL */
    int causal;          /* 1: keys after the query are masked */
    double scale;        /* logit multiplier (default 1/sqrt(d)) */
    int scale_given;     /* 1: the request set `scale` (it wins over a model's) */
} api_att_input;

/* What a method's prepare hook decides; the driver zero-initialises it (n_heads 1, scale_mult 1).
 */
typedef struct {
    size_t n_heads;    /* heads evaluated, >= 1 */
    int head_axis;     /* 1: scores/weights/output carry a leading [n_heads] axis */
    double scale_mult; /* extra logit factor (RoPE's softmax_scale_factor); 1 otherwise */
    /* a pasted model config's own attention (api/model_scale.h), set by prepare: */
    int has_model_scale;   /* 1: model_scale replaces the default scale (no `scale` given) */
    double model_scale;    /* the model's scale (before scale_mult) */
    const char *scale_src; /* where the scale used came from (method-owned; NULL: default) */
    double softcap;        /* > 0: scores = softcap tanh(scores / softcap) before bias and mask */
    const char *caveat;    /* what the answer does not model (method-owned; NULL: none) */
    void *state;           /* method-owned, released by the release hook */
} api_att_plan;

/*
 * One /attention method. Every hook may be NULL (then it does nothing). Hooks returning int give
 * 0 on success and -1 with pb filled (a 422 naming a field under in->base, or a 503). Hooks run
 * in the order prepare, transform_qk, then per head bias and add_output, then resolved, release.
 */
typedef struct {
    const char *name;          /* the `method` value and the key of its object */
    const char *const *fields; /* keys allowed in its object (NULL-terminated); NULL = no object */
    int needs_object;          /* 1: the object is required */
    /* Validates in->obj (unknown keys were already refused) and fills plan. */
    int (*prepare)(const api_att_input *in, api_att_plan *plan, api_problem *pb);
    /* Rewrites q and k ([t][d] copies of the request's) in place before the logits. */
    int (*transform_qk)(const api_att_input *in, const api_att_plan *plan, double *q, double *k,
                        api_problem *pb);
    /* Fills bias [t][t] of head h, added to the scaled logits (PE_MASKED masks an entry). */
    int (*bias)(const api_att_input *in, const api_att_plan *plan, size_t h, double *bias,
                api_problem *pb);
    /* Adds the method's term to out [t][dv] of head h from weights [t][t] (only with v). */
    int (*add_output)(const api_att_input *in, const api_att_plan *plan, size_t h,
                      const double *weights, double *out, api_problem *pb);
    /* Writes the members of the method's resolved object (inside an open JSON object). */
    void (*resolved)(const api_att_input *in, const api_att_plan *plan, wire_jw *out);
    /* Frees plan->state. */
    void (*release)(api_att_plan *plan);
} api_att_method;

/* The implemented methods (api/attention_<name>.c). */
extern const api_att_method api_att_method_alibi;
extern const api_att_method api_att_method_sinusoidal;
extern const api_att_method api_att_method_t5;
extern const api_att_method api_att_method_rope;           /* attention_rope.c */
extern const api_att_method api_att_method_learned;        /* attention_learned.c */
extern const api_att_method api_att_method_shaw;           /* attention_shaw.c */
extern const api_att_method api_att_method_transformer_xl; /* attention_transformer_xl.c */

/*
 * Writes a [rows][cols] row-major matrix whose PE_MASKED entries are written as null (docs/api.md:
 * masked bias/score entries are null). Defined in api/attention.c.
 */
void api_att_write_masked(wire_jw *w, const double *x, size_t rows, size_t cols);

/* ---- ALiBi configuration shared by POST /alibi and /attention method alibi ---------------- */

#define API_ALIBI_RULE_EXPLICIT (-1) /* `slopes` given instead of a rule */

/* The validated ALiBi configuration (docs/api.md#alibi). */
typedef struct {
    size_t num_heads; /* H, 1 .. max_heads */
    int rule;         /* PE_ALIBI_PRESS, PE_ALIBI_MPT or API_ALIBI_RULE_EXPLICIT */
    double bias_max;  /* alibi_bias_max (mpt only; 8 by default) */
    int mode;         /* PE_ALIBI_CAUSAL / PE_ALIBI_SYMMETRIC, or -1 when `mode` was absent */
    double *slopes;   /* [num_heads] slopes actually used (malloc'd; given or from the rule) */
} api_alibi_cfg;

/*
 * Reads num_heads, slopes_rule, alibi_bias_max, slopes and mode from obj (at pointer base; ""
 * for /alibi's top level) and computes the slopes. Rules (each broken one → 422 at its field):
 * num_heads an integer 1 .. max_heads (limit-exceeded above), required unless `slopes` is given
 * (then H = its length); slopes_rule press | mpt; alibi_bias_max a finite number > 0 and only
 * with slopes_rule mpt; slopes an array of num_heads finite numbers >= 0, not together with
 * slopes_rule or alibi_bias_max; mode causal | symmetric. Does not check unknown fields.
 * Returns 0 (cfg filled, free with api_alibi_cfg_free) or -1 (pb filled, cfg->slopes NULL).
 * Source: arXiv:2108.12409; slopes from core/alibi.h.
 */
int api_alibi_cfg_parse(api_problem *pb, const json_t *obj, const char *base, const api_limits *lim,
                        api_alibi_cfg *cfg);
/* Writes num_heads, slopes_rule ("press", "mpt" or "explicit"), alibi_bias_max (mpt only) and
 * mode (mode_used) as members of the open object. */
void api_alibi_cfg_resolved(wire_jw *out, const api_alibi_cfg *cfg, int mode_used);
void api_alibi_cfg_free(api_alibi_cfg *cfg);
/* "causal" / "symmetric". */
const char *api_alibi_mode_name(int mode);

/* ---- T5 bucketing configuration shared by POST /t5/buckets and /attention method t5 ------- */

/*
 * Reads bidirectional (default def_bidirectional), num_buckets (default def_num_buckets) and
 * max_distance (default 128) from obj at pointer base. Rules (422 at the field): bidirectional a
 * boolean; num_buckets an integer >= 4 when bidirectional, >= 2 when causal (so that the exact
 * range E = num_buckets/4 resp. /2 is >= 1), at most max_positions (limit-exceeded); max_distance
 * an integer > E and < max_position. When num_buckets is absent and its default breaks a rule,
 * the error names def_ptr (e.g. "/t5/bias", where the default came from; NULL: the num_buckets
 * pointer). Returns 0 with *p filled (valid for pe_t5_check) or -1 (pb filled).
 * Source: arXiv:1910.10683; HF T5Attention._relative_position_bucket.
 */
int api_t5_cfg_parse(api_problem *pb, const json_t *obj, const char *base, const api_limits *lim,
                     int def_bidirectional, size_t def_num_buckets, const char *def_ptr,
                     pe_t5_params *p);
/* Writes bidirectional, num_buckets, max_distance as members of the open object. */
void api_t5_cfg_resolved(wire_jw *out, const pe_t5_params *p);

#endif
