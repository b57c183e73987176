/*
 * api/attention_transformer_xl.c -- /attention method "transformer_xl": relative positional
 * attention of Transformer-XL (Dai et al., arXiv:1901.02860; kimiyoung/transformer-xl
 * pytorch/mem_transformer.py `RelPartialLearnableMultiHeadAttn` @44781ed21dba), single head with
 * q and k already projected. The object (optional; every member optional) is
 *   {"u": [d] (r_w_bias, default 0), "v": [d] (r_r_bias, default 0),
 *    "w_r": [d][d_r] (r_net, default the identity with d_r = d; d_r even),
 *    "base": > 1 (default 10000), "clamp_len": integer >= 1}
 * score_ij = scale ((q_i + u) . k_j + (q_i + v) . W_R R(i - j)), R = [sin || cos]; u is added to
 * q by the transform hook, the position term is the bias hook. With causal false the keys after
 * the query use negative distances, as XLNet's bidirectional attention (HF modeling_xlnet.py
 * `rel_attn_core` @02fb0d2b4ec1) -- not Transformer-XL's `_rel_shift`, which is only right under
 * its causal mask. Numbers from core/relative.h; rules in docs/conventions.md#relative-attention.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/attention_method.h"
#include "core/relative.h"

static const char *const FIELDS[] = {"u", "v", "w_r", "base", "clamp_len", NULL};

typedef struct {
    double *u, *vb; /* [d] or NULL */
    double *w_r;    /* [d][d_r] or NULL (identity) */
    size_t d_r;
    double base;
    int64_t clamp_len; /* 0: none */
    int64_t lo;        /* distances lo .. lo + n_delta - 1 */
    size_t n_delta;
    double *rel; /* [n_delta][d]: W_R R(delta) */
} txl_state;

static void txl_release(api_att_plan *plan)
{
    txl_state *s = plan->state;
    if (s != NULL) {
        free(s->u);
        free(s->vb);
        free(s->w_r);
        free(s->rel);
        free(s);
    }
    plan->state = NULL;
}

/* u or v: d numbers (0 when absent). */
static void get_bias_vector(api_problem *pb, const api_att_input *in, const char *key, double **out)
{
    size_t n = 0;
    api_get_numbers(pb, in->obj, in->base, key, in->d, in->ctx->lim->max_dim, "max_dim", out, &n);
}

static int txl_prepare(const api_att_input *in, api_att_plan *plan, api_problem *pb)
{
    const api_limits *lim = in->ctx->lim;
    txl_state *s = api_alloc(pb, 1, sizeof *s);
    if (s == NULL)
        return -1;
    plan->state = s;
    char ptr[160];

    get_bias_vector(pb, in, "u", &s->u);
    get_bias_vector(pb, in, "v", &s->vb);
    s->base = 10000.0;
    api_get_number(pb, in->obj, in->base, "base", 1.0, HUGE_VAL, API_NUM_MIN_EXCL, &s->base);
    api_get_int(pb, in->obj, in->base, "clamp_len", 1, INT64_MAX, &s->clamp_len);

    const json_t *wv = json_object_get(in->obj, "w_r");
    api_ptr(ptr, sizeof ptr, in->base, "w_r");
    if (wv != NULL && !json_is_null(wv)) {
        size_t rows = 0, cols = 0;
        if (api_number_matrix(pb, wv, ptr, in->d, 0, lim->max_output_elements, 0, &s->w_r, &rows,
                              &cols, NULL) > 0) {
            char rp[160];
            api_ptr_idx(rp, sizeof rp, ptr, 0);
            if (cols % 2 != 0)
                api_problem_field(pb, API_PB_INVALID_FIELD, rp,
                                  "rows must have an even number d_r of entries (the sinusoid "
                                  "is [sin || cos] of d_r/2 frequencies), got %zu",
                                  cols);
            else if (cols > lim->max_dim)
                api_problem_field(pb, API_PB_LIMIT_EXCEEDED, rp, "d_r %zu exceeds max_dim (%zu)",
                                  cols, lim->max_dim);
            s->d_r = cols;
        }
    } else {
        s->d_r = in->d;
        if (in->d % 2 != 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, in->base,
                              "without w_r the sinusoid is d = %zu wide, so d must be even; send "
                              "w_r (d rows of an even d_r)",
                              in->d);
    }
    if (api_problem_failed(pb))
        return -1;

    if (pe_txl_delta_range(in->t, in->t, NULL, NULL, s->clamp_len, &s->lo, &s->n_delta) != PE_OK) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/q", "the distances do not fit");
        return -1;
    }
    size_t cells;
    if (!pe_mul_ok(s->n_delta, in->d, &cells)) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/q", "the position table size overflows");
        return -1;
    }
    s->rel = api_alloc(pb, cells, sizeof *s->rel);
    double *work = api_alloc(pb, s->d_r, sizeof *work);
    if (s->rel == NULL || work == NULL) {
        free(work);
        return -1;
    }
    pe_status st =
        pe_txl_rel_table(s->lo, s->n_delta, s->base, s->d_r, s->w_r, in->d, work, s->rel);
    free(work);
    if (st != PE_OK) {
        api_problem_field(pb, API_PB_INVALID_FIELD, s->w_r ? ptr : in->base,
                          "W_R R(delta) is not finite (%s); use smaller w_r values",
                          pe_status_str(st));
        return -1;
    }
    return 0;
}

static int txl_transform_qk(const api_att_input *in, const api_att_plan *plan, double *q, double *k,
                            api_problem *pb)
{
    (void)k;
    const txl_state *s = plan->state;
    if (s->u == NULL)
        return 0;
    if (pe_txl_shift_queries(q, in->t, in->d, s->u) != PE_OK) {
        api_problem_key(pb, API_PB_INVALID_FIELD, in->base, "u", "q + u is not finite (overflow)");
        return -1;
    }
    return 0;
}

static int txl_bias(const api_att_input *in, const api_att_plan *plan, size_t h, double *bias,
                    api_problem *pb)
{
    (void)h;
    const txl_state *s = plan->state;
    pe_status st =
        pe_txl_position_bias(in->q, in->t, in->t, in->d, s->vb, s->rel, s->lo, s->n_delta, NULL,
                             NULL, s->clamp_len, in->scale * plan->scale_mult, bias);
    if (st != PE_OK) {
        char ptr[160];
        api_ptr(ptr, sizeof ptr, in->base, s->vb ? "v" : "w_r");
        api_problem_field(pb, API_PB_INVALID_FIELD, s->vb || s->w_r ? ptr : "/q",
                          "scale x (q + v) . W_R R(delta) is not finite (%s)", pe_status_str(st));
        return -1;
    }
    return 0;
}

static void txl_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    const txl_state *s = plan->state;
    wire_jw_key(out, "base");
    wire_jw_double(out, s->base);
    wire_jw_key(out, "d_r");
    wire_jw_int(out, (int64_t)s->d_r);
    wire_jw_key(out, "w_r");
    wire_jw_str(out, s->w_r ? "request" : "identity");
    wire_jw_key(out, "u");
    wire_jw_str(out, s->u ? "request" : "zero");
    wire_jw_key(out, "v");
    wire_jw_str(out, s->vb ? "request" : "zero");
    wire_jw_key(out, "clamp_len");
    if (s->clamp_len > 0)
        wire_jw_int(out, s->clamp_len);
    else
        wire_jw_null(out);
    wire_jw_key(out, "distance");
    wire_jw_str(out, "query - key");
    wire_jw_key(out, "negative_distances");
    wire_jw_bool(out, !in->causal); /* XLNet's bidirectional form */
}

const api_att_method api_att_method_transformer_xl = {
    .name = "transformer_xl",
    .fields = FIELDS,
    .needs_object = 0,
    .prepare = txl_prepare,
    .transform_qk = txl_transform_qk,
    .bias = txl_bias,
    .add_output = NULL,
    .resolved = txl_resolved,
    .release = txl_release,
};
