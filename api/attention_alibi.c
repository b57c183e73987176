/*
 * api/attention_alibi.c -- ALiBi (Press, Smith, Lewis, arXiv:2108.12409): the configuration
 * parser shared with POST /alibi, and /attention method "alibi" (one head per slope, bias
 * -m (i - j) causal / -m |i - j| symmetric added after the scaling; positions 0 .. T-1).
 * Slopes and biases come from core/alibi.h; definitions in
 * docs/conventions.md#alibi.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/attention_method.h"

static const char *const RULES[] = {"press", "mpt", NULL};
static const char *const MODES[] = {"causal", "symmetric", NULL};

const char *api_alibi_mode_name(int mode)
{
    return mode == PE_ALIBI_SYMMETRIC ? "symmetric" : "causal";
}

void api_alibi_cfg_free(api_alibi_cfg *cfg)
{
    free(cfg->slopes);
    cfg->slopes = NULL;
}

static int has_member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return v != NULL && !json_is_null(v);
}

int api_alibi_cfg_parse(api_problem *pb, const json_t *obj, const char *base, const api_limits *lim,
                        api_alibi_cfg *cfg)
{
    cfg->num_heads = 0;
    cfg->rule = PE_ALIBI_PRESS;
    cfg->bias_max = 8.0;
    cfg->mode = -1;
    cfg->slopes = NULL;
    int bad = 0;
    char ptr[160];

    int64_t h = 0;
    int rc_h = api_get_int(pb, obj, base, "num_heads", INT64_MIN, INT64_MAX, &h);
    api_ptr(ptr, sizeof ptr, base, "num_heads");
    if (rc_h > 0 && h < 1) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "must be >= 1 (one slope per head), got %lld", (long long)h);
        rc_h = -1;
    } else if (rc_h > 0 && (uint64_t)h > lim->max_heads) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr, "num_heads %lld exceeds max_heads (%zu)",
                          (long long)h, lim->max_heads);
        rc_h = -1;
    }
    bad |= rc_h < 0;
    int rule = 0;
    int rc_rule = api_get_enum(pb, obj, base, "slopes_rule", RULES, &rule);
    bad |= rc_rule < 0;
    double bmax = 8.0;
    int rc_b =
        api_get_number(pb, obj, base, "alibi_bias_max", 0.0, HUGE_VAL, API_NUM_MIN_EXCL, &bmax);
    bad |= rc_b < 0;
    int mode = 0;
    int rc_m = api_get_enum(pb, obj, base, "mode", MODES, &mode);
    bad |= rc_m < 0;
    if (rc_m > 0)
        cfg->mode = mode == 0 ? PE_ALIBI_CAUSAL : PE_ALIBI_SYMMETRIC;

    if (has_member(obj, "slopes")) {
        api_ptr(ptr, sizeof ptr, base, "slopes");
        if (rc_rule != 0) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                              "give either slopes or slopes_rule, not both");
            bad = 1;
        }
        if (rc_b != 0) {
            api_problem_key(pb, API_PB_INVALID_FIELD, base, "alibi_bias_max",
                            "alibi_bias_max goes with slopes_rule \"mpt\", not with explicit "
                            "slopes");
            bad = 1;
        }
        if (rc_h >= 0) { /* the length can only be judged against a valid num_heads */
            double *s = NULL;
            size_t n = 0;
            int rc =
                api_number_array(pb, json_object_get(obj, "slopes"), ptr, rc_h > 0 ? (size_t)h : 0,
                                 lim->max_heads, "max_heads", &s, &n);
            if (rc > 0 && n == 0) {
                api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                                  "must hold one slope per head, got an empty array");
                rc = -1;
            }
            for (size_t i = 0; rc > 0 && i < n; i++) {
                if (s[i] < 0.0) {
                    api_problem_idx(pb, API_PB_INVALID_FIELD, ptr, i, "must be >= 0, got %.17g",
                                    s[i]);
                    rc = -1;
                }
            }
            if (rc > 0) {
                cfg->slopes = s;
                cfg->num_heads = n;
                cfg->rule = API_ALIBI_RULE_EXPLICIT;
            } else {
                free(s);
                bad = 1;
            }
        }
    } else {
        if (rc_h == 0) {
            api_problem_key(pb, API_PB_INVALID_FIELD, base, "num_heads",
                            "num_heads is required (or give explicit slopes)");
            bad = 1;
        }
        if (rc_b > 0 && !(rc_rule > 0 && rule == 1)) {
            api_problem_key(pb, API_PB_INVALID_FIELD, base, "alibi_bias_max",
                            "alibi_bias_max applies to slopes_rule \"mpt\" only (the press rule "
                            "has none); add \"slopes_rule\": \"mpt\"");
            bad = 1;
        }
        if (rc_rule > 0)
            cfg->rule = rule == 1 ? PE_ALIBI_MPT : PE_ALIBI_PRESS;
        cfg->bias_max = bmax;
        cfg->num_heads = rc_h > 0 ? (size_t)h : 0;
    }
    if (bad) {
        api_alibi_cfg_free(cfg);
        return -1;
    }
    if (cfg->rule != API_ALIBI_RULE_EXPLICIT) {
        cfg->slopes = api_alloc(pb, cfg->num_heads, sizeof *cfg->slopes);
        if (cfg->slopes == NULL)
            return -1;
        if (pe_alibi_slopes((pe_alibi_rule)cfg->rule, cfg->num_heads, cfg->bias_max, cfg->slopes) !=
            PE_OK) {
            api_problem_key(pb, API_PB_INVALID_FIELD, base, "slopes_rule",
                            "invalid ALiBi slope configuration");
            api_alibi_cfg_free(cfg);
            return -1;
        }
    }
    return 0;
}

void api_alibi_cfg_resolved(wire_jw *out, const api_alibi_cfg *cfg, int mode_used)
{
    wire_jw_key(out, "num_heads");
    wire_jw_int(out, (int64_t)cfg->num_heads);
    wire_jw_key(out, "slopes_rule");
    wire_jw_str(out, cfg->rule == API_ALIBI_RULE_EXPLICIT ? "explicit"
                     : cfg->rule == PE_ALIBI_MPT          ? "mpt"
                                                          : "press");
    if (cfg->rule == PE_ALIBI_MPT) {
        wire_jw_key(out, "alibi_bias_max");
        wire_jw_double(out, cfg->bias_max);
    }
    wire_jw_key(out, "mode");
    wire_jw_str(out, api_alibi_mode_name(mode_used));
}

/* ---- /attention method "alibi" ------------------------------------------------------------ */

static const char *const FIELDS[] = {"num_heads", "slopes_rule", "alibi_bias_max",
                                     "slopes",    "mode",        NULL};

typedef struct {
    api_alibi_cfg cfg;
    int mode;           /* resolved pe_alibi_mode */
    int64_t *positions; /* 0 .. T-1 */
} alibi_state;

static void alibi_release(api_att_plan *plan)
{
    alibi_state *s = plan->state;
    if (s != NULL) {
        api_alibi_cfg_free(&s->cfg);
        free(s->positions);
        free(s);
    }
    plan->state = NULL;
}

static int alibi_prepare(const api_att_input *in, api_att_plan *plan, api_problem *pb)
{
    alibi_state *s = api_alloc(pb, 1, sizeof *s);
    if (s == NULL)
        return -1;
    plan->state = s;
    if (api_alibi_cfg_parse(pb, in->obj, in->base, in->ctx->lim, &s->cfg) < 0)
        return -1;
    /* mode follows `causal`; a mode that says otherwise is a contradiction, not an override. */
    int want = in->causal ? PE_ALIBI_CAUSAL : PE_ALIBI_SYMMETRIC;
    if (s->cfg.mode >= 0 && s->cfg.mode != want) {
        api_problem_key(pb, API_PB_INVALID_FIELD, in->base, "mode",
                        "mode \"%s\" contradicts \"causal\": %s (mode is \"causal\" exactly when "
                        "causal is true; omit mode to follow causal)",
                        api_alibi_mode_name(s->cfg.mode), in->causal ? "true" : "false");
        return -1;
    }
    s->mode = want;
    s->positions = api_alloc(pb, in->t, sizeof *s->positions);
    if (s->positions == NULL)
        return -1;
    for (size_t i = 0; i < in->t; i++)
        s->positions[i] = (int64_t)i;
    plan->n_heads = s->cfg.num_heads;
    plan->head_axis = 1;
    return 0;
}

static int alibi_bias(const api_att_input *in, const api_att_plan *plan, size_t h, double *bias,
                      api_problem *pb)
{
    const alibi_state *s = plan->state;
    pe_status st = pe_alibi_bias(s->cfg.slopes[h], (pe_alibi_mode)s->mode, s->positions, in->t,
                                 s->positions, in->t, bias);
    if (st != PE_OK) {
        char sp[160];
        api_ptr(sp, sizeof sp, in->base, "slopes");
        api_problem_idx(pb, API_PB_INVALID_FIELD, sp, h,
                        "slope x distance is not finite (%s); use a smaller slope",
                        pe_status_str(st));
        return -1;
    }
    return 0;
}

static void alibi_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    (void)in;
    const alibi_state *s = plan->state;
    api_alibi_cfg_resolved(out, &s->cfg, s->mode);
    wire_jw_key(out, "slopes");
    wire_jw_doubles(out, s->cfg.slopes, s->cfg.num_heads);
}

const api_att_method api_att_method_alibi = {
    .name = "alibi",
    .fields = FIELDS,
    .needs_object = 1,
    .prepare = alibi_prepare,
    .transform_qk = NULL,
    .bias = alibi_bias,
    .add_output = NULL,
    .resolved = alibi_resolved,
    .release = alibi_release,
};
