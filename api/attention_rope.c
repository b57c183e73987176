/*
 * api/attention_rope.c -- /attention method "rope": q and k rotated by RoPE at positions
 * offset .. offset+T-1 (rotated part × attention_factor, as Hugging Face does), logits also
 * multiplied by softmax_scale_factor (DeepSeek-style yarn; 1 otherwise), then plain attention.
 * Object: the /rope configuration fields (head_dim defaults to d and must equal it; rotary_dim,
 * partial_rotary_factor, base / rope_theta, layout, scaling / rope_scaling, inv_freq, config,
 * seq_len) plus `offset`.
 *
 * The object goes through /rope's own parse and run steps (api_rope_eval, api/rope_req.h) with
 * the positions and q / k given as numbers, so both routes validate and compute a configuration
 * identically — one set of rules, one cache — and the rotated rows are used as computed. Errors
 * are re-rooted under the method's object ("/rope/scaling/factor"), as /rope names them.
 * Source: RoFormer arXiv:2104.09864; HF LlamaAttention (rotate, then q·kᵀ·scale).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/attention_method.h"
#include "api/rope_req.h"

static const char *const FIELDS[] = {"head_dim", "rotary_dim",   "partial_rotary_factor",
                                     "base",     "rope_theta",   "layout",
                                     "scaling",  "rope_scaling", "inv_freq",
                                     "config",   "seq_len",      "offset",
                                     "layer",    "layer_type",   NULL};

/* The method's state: the parsed configuration and its numbers (q_rot, k_rot [t][d]). */
typedef struct {
    api_rope_req r;
    api_rope_res res;
    int64_t *positions; /* [t]: offset .. offset+t-1 */
    int64_t offset;
} rope_state;

static void rope_release(api_att_plan *plan)
{
    rope_state *s = plan->state;
    if (s) {
        api_rope_res_free(&s->res);
        api_rope_req_free(&s->r);
        free(s->positions);
        free(s);
    }
    plan->state = NULL;
}

/* Copies sub's errors into pb with their pointers re-rooted under base; the members the method
 * gives /rope map back to what the client sent: /positions → <base>/offset, /q → /q, /k → /k. */
static void reroot_errors(const api_problem *sub, const char *base, api_problem *pb)
{
    if (sub->n_errors == 0) {
        api_problem_set(pb, sub->code, "%s", sub->detail);
        return;
    }
    for (size_t i = 0; i < sub->n_errors; i++) {
        const char *p = sub->errors[i].pointer;
        char ptr[160];
        if (strncmp(p, "/positions", 10) == 0)
            api_ptr(ptr, sizeof ptr, base, "offset");
        else if (strncmp(p, "/q", 2) == 0 || strncmp(p, "/k", 2) == 0)
            snprintf(ptr, sizeof ptr, "%.150s", p);
        else
            snprintf(ptr, sizeof ptr, "%.40s%.110s", base, p);
        api_problem_field(pb, sub->code, ptr, "%s", sub->errors[i].message);
    }
}

static int rope_prepare(const api_att_input *in, api_att_plan *plan, api_problem *pb)
{
    const api_limits *lim = in->ctx->lim;
    rope_state *s = api_alloc(pb, 1, sizeof *s);
    if (s == NULL)
        return -1;
    plan->state = s;
    char ptr[160];
    int64_t hd = 0;
    int rc = api_get_int(pb, in->obj, in->base, "head_dim", 1, INT64_MAX, &hd);
    if (rc > 0 && (uint64_t)hd != in->d) {
        api_ptr(ptr, sizeof ptr, in->base, "head_dim");
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "must equal the width of the q and k rows (%zu), got %lld", in->d,
                          (long long)hd);
        return -1;
    }
    if (rc < 0)
        return -1;
    rc = api_get_int(pb, in->obj, in->base, "offset", 0, lim->max_position - 1, &s->offset);
    if (rc < 0)
        return -1;
    if (s->offset > lim->max_position - (int64_t)in->t) {
        api_ptr(ptr, sizeof ptr, in->base, "offset");
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr,
                          "offset + T must not exceed max_position (%lld)",
                          (long long)lim->max_position);
        return -1;
    }
    s->positions = api_alloc(pb, in->t + 1, sizeof *s->positions);
    if (s->positions == NULL)
        return -1;
    for (size_t i = 0; i < in->t; i++)
        s->positions[i] = s->offset + (int64_t)i;
    /* /rope's rules for the object (its `offset` is ours: api_rope_check_fields knows it not,
     * but the object's fields were checked against FIELDS already and /rope reads no offset) */
    api_rope_direct dir = {.positions = s->positions,
                           .n_pos = in->t,
                           .q = in->q,
                           .k = in->k,
                           .rows = in->t,
                           .cols = in->d,
                           .head_dim = (int64_t)in->d};
    api_problem sp;
    api_problem_init(&sp);
    rc = api_rope_eval(in->ctx, in->obj, &dir, &s->r, &s->res, &sp);
    if (rc != 0 || api_problem_failed(&sp) || !api_rope_res_finite(&s->r, &s->res)) {
        if (api_problem_failed(&sp))
            reroot_errors(&sp, in->base, pb);
        else
            api_problem_field(pb, API_PB_INVALID_FIELD, in->base,
                              "the rotation overflows; use smaller q and k");
        return -1;
    }
    /* the rotation needs the whole head: a pasted config must resolve to head_dim = d */
    if ((uint64_t)s->r.head_dim != in->d) {
        api_ptr(ptr, sizeof ptr, in->base, "config");
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "resolves to head_dim %lld, but q and k rows have %zu numbers",
                          (long long)s->r.head_dim, in->d);
        return -1;
    }
    plan->scale_mult = s->res.softmax_scale_factor;
    return 0;
}

static int rope_transform(const api_att_input *in, const api_att_plan *plan, double *q, double *k,
                          api_problem *pb)
{
    (void)pb;
    const rope_state *s = plan->state;
    memcpy(q, s->res.q_rot, in->t * in->d * sizeof *q);
    memcpy(k, s->res.k_rot, in->t * in->d * sizeof *k);
    return 0;
}

/* /rope's resolved members, then the factors and the offset. */
static void rope_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    (void)in;
    const rope_state *s = plan->state;
    api_rope_write_resolved(out, &s->r, &s->res);
    wire_jw_key(out, "attention_factor");
    wire_jw_double(out, s->res.attention_factor);
    wire_jw_key(out, "softmax_scale_factor");
    wire_jw_double(out, s->res.softmax_scale_factor);
    wire_jw_key(out, "offset");
    wire_jw_int(out, s->offset);
}

const api_att_method api_att_method_rope = {
    .name = "rope",
    .fields = FIELDS,
    .needs_object = 0,
    .prepare = rope_prepare,
    .transform_qk = rope_transform,
    .bias = NULL,
    .add_output = NULL,
    .resolved = rope_resolved,
    .release = rope_release,
};
