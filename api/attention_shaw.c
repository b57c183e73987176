/*
 * api/attention_shaw.c -- /attention method "shaw": relative position representations (Shaw,
 * Uszkoreit, Vaswani, arXiv:1803.02155; tensor2tensor layers/common_attention.py
 * `dot_product_attention_relative` @bafdc1b67730). The object is
 *   {"max_relative_position": K (integer >= 1),
 *    "key_embeddings": [2K+1][d] (required),
 *    "value_embeddings": [2K+1][dv] (optional; needs v)}
 * Row r(i, j) = clip(j - i, -K, K) + K (key minus query); the bias hook adds
 * scale * q_i . aK[r] to the scaled logits (so score = scale (q_i.k_j + q_i.aK)), the output hook
 * adds sum_j w_ij aV[r] to weights . v. Numbers from core/relative.h; the rules are in
 * docs/conventions.md#relative-attention. tensor2tensor itself needs dv = d; this method does not.
 */
#include <stdint.h>
#include <stdlib.h>

#include "api/attention_method.h"
#include "core/relative.h"

static const char *const FIELDS[] = {"max_relative_position", "key_embeddings", "value_embeddings",
                                     NULL};

typedef struct {
    size_t K;
    double *key_emb; /* [2K+1][d] */
    double *val_emb; /* [2K+1][dv] or NULL */
} shaw_state;

static void shaw_release(api_att_plan *plan)
{
    shaw_state *s = plan->state;
    if (s != NULL) {
        free(s->key_emb);
        free(s->val_emb);
        free(s);
    }
    plan->state = NULL;
}

static int shaw_prepare(const api_att_input *in, api_att_plan *plan, api_problem *pb)
{
    const api_limits *lim = in->ctx->lim;
    shaw_state *s = api_alloc(pb, 1, sizeof *s);
    if (s == NULL)
        return -1;
    plan->state = s;
    char kp[160], ep[160], vp[160];
    api_ptr(kp, sizeof kp, in->base, "max_relative_position");
    api_ptr(ep, sizeof ep, in->base, "key_embeddings");
    api_ptr(vp, sizeof vp, in->base, "value_embeddings");

    int64_t K = 0;
    int rc_k =
        api_get_int(pb, in->obj, in->base, "max_relative_position", INT64_MIN, INT64_MAX, &K);
    if (rc_k == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, kp,
                          "max_relative_position (K, an integer >= 1) is required");
        rc_k = -1;
    } else if (rc_k > 0 && K < 1) {
        api_problem_field(pb, API_PB_INVALID_FIELD, kp,
                          "must be >= 1 (the tables have 2K+1 rows), got %lld", (long long)K);
        rc_k = -1;
    } else if (rc_k > 0 && (uint64_t)K > lim->max_positions) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, kp,
                          "max_relative_position %lld exceeds max_positions (%zu)", (long long)K,
                          lim->max_positions);
        rc_k = -1;
    }
    size_t rows = rc_k > 0 ? 2 * (size_t)K + 1 : 0;

    const json_t *ke = json_object_get(in->obj, "key_embeddings");
    if (ke == NULL || json_is_null(ke)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ep,
                          "key_embeddings is required: 2K+1 rows of d = %zu numbers", in->d);
    } else if (rc_k > 0) {
        size_t r = 0, c = 0;
        api_number_matrix(pb, ke, ep, rows, in->d, lim->max_output_elements, 0, &s->key_emb, &r, &c,
                          NULL);
    }

    const json_t *ve = json_object_get(in->obj, "value_embeddings");
    if (ve != NULL && !json_is_null(ve)) {
        if (in->v == NULL) {
            api_problem_field(pb, API_PB_INVALID_FIELD, vp,
                              "value_embeddings are added to v: send v ([T][dv]) as well");
        } else if (rc_k > 0) {
            size_t r = 0, c = 0;
            api_number_matrix(pb, ve, vp, rows, in->dv, lim->max_output_elements, 0, &s->val_emb,
                              &r, &c, NULL);
        }
    }
    if (api_problem_failed(pb))
        return -1;
    s->K = (size_t)K;
    return 0;
}

static int shaw_bias(const api_att_input *in, const api_att_plan *plan, size_t h, double *bias,
                     api_problem *pb)
{
    (void)h;
    const shaw_state *s = plan->state;
    pe_status st = pe_shaw_key_bias(in->q, in->t, in->t, in->d, s->key_emb, s->K, NULL, NULL,
                                    in->scale * plan->scale_mult, bias);
    if (st != PE_OK) {
        api_problem_key(pb, API_PB_INVALID_FIELD, in->base, "key_embeddings",
                        "scale x q.key_embeddings is not finite (%s); use smaller values",
                        pe_status_str(st));
        return -1;
    }
    return 0;
}

static int shaw_add_output(const api_att_input *in, const api_att_plan *plan, size_t h,
                           const double *weights, double *out, api_problem *pb)
{
    (void)h;
    const shaw_state *s = plan->state;
    if (s->val_emb == NULL)
        return 0;
    pe_status st =
        pe_shaw_value_term(weights, in->t, in->t, s->val_emb, s->K, in->dv, NULL, NULL, out);
    if (st != PE_OK) {
        api_problem_key(pb, API_PB_INVALID_FIELD, in->base, "value_embeddings",
                        "the output with value_embeddings is not finite (%s)", pe_status_str(st));
        return -1;
    }
    return 0;
}

static void shaw_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    (void)in;
    const shaw_state *s = plan->state;
    wire_jw_key(out, "max_relative_position");
    wire_jw_int(out, (int64_t)s->K);
    wire_jw_key(out, "table_rows");
    wire_jw_int(out, (int64_t)(2 * s->K + 1));
    wire_jw_key(out, "index");
    wire_jw_str(out, "clip(key - query, -K, K) + K");
    wire_jw_key(out, "value_embeddings");
    wire_jw_bool(out, s->val_emb != NULL);
}

const api_att_method api_att_method_shaw = {
    .name = "shaw",
    .fields = FIELDS,
    .needs_object = 1,
    .prepare = shaw_prepare,
    .transform_qk = NULL,
    .bias = shaw_bias,
    .add_output = shaw_add_output,
    .resolved = shaw_resolved,
    .release = shaw_release,
};
