/*
 * api/attention_rope.c -- /attention method "rope": q and k rotated by RoPE at positions
 * offset .. offset+T-1 (rotated part × attention_factor, as Hugging Face does), logits also
 * multiplied by softmax_scale_factor (DeepSeek-style yarn; 1 otherwise), then plain attention.
 * Object: the /rope configuration fields (head_dim defaults to d and must equal it; rotary_dim,
 * partial_rotary_factor, base / rope_theta, layout, scaling / rope_scaling, inv_freq, config,
 * seq_len) plus `offset`.
 *
 * The rotation is delegated to the /rope handler itself (api_rope), so both routes validate and
 * compute a configuration identically — one set of rules, one cache. The method builds the /rope
 * request {config fields…, positions, q, k}, runs it, and re-roots the pointers of any error under
 * the method's object ("/rope/scaling/factor"). The numbers cross as shortest round-trip decimal
 * text, which parses back to the same doubles.
 * Source: RoFormer arXiv:2104.09864; HF LlamaAttention (rotate, then q·kᵀ·scale).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/attention_method.h"

static const char *const FIELDS[] = {"head_dim", "rotary_dim",   "partial_rotary_factor",
                                     "base",     "rope_theta",   "layout",
                                     "scaling",  "rope_scaling", "inv_freq",
                                     "config",   "seq_len",      "offset",
                                     NULL};

typedef struct {
    double *q_rot, *k_rot; /* [t][d] */
    json_t *resolved;      /* /rope's resolved object, plus the factors */
    int64_t offset;
} rope_state;

static void rope_release(api_att_plan *plan)
{
    rope_state *s = plan->state;
    if (s) {
        free(s->q_rot);
        free(s->k_rot);
        json_decref(s->resolved);
        free(s);
    }
    plan->state = NULL;
}

static json_t *matrix_json(const double *x, size_t rows, size_t cols)
{
    json_t *m = json_array();
    for (size_t i = 0; m && i < rows; i++) {
        json_t *row = json_array();
        for (size_t c = 0; row && c < cols; c++)
            json_array_append_new(row, json_real(x[i * cols + c]));
        if (row == NULL || json_array_append_new(m, row) != 0) {
            json_decref(m);
            return NULL;
        }
    }
    return m;
}

/* Copies sub's errors into pb with their pointers re-rooted under base; the generated members
 * map back to what the client sent: /positions → <base>/offset, /q → /q, /k → /k. */
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

/* Copies a [t][d] matrix member of the /rope response into a new buffer. */
static double *take_matrix(const json_t *resp, const char *key, size_t t, size_t d)
{
    const json_t *m = json_object_get(resp, key);
    if (!json_is_array(m) || json_array_size(m) != t)
        return NULL;
    double *x = malloc(t * d * sizeof *x);
    for (size_t i = 0; x && i < t; i++) {
        const json_t *row = json_array_get(m, i);
        if (!json_is_array(row) || json_array_size(row) != d) {
            free(x);
            return NULL;
        }
        for (size_t c = 0; c < d; c++)
            x[i * d + c] = json_number_value(json_array_get(row, c));
    }
    return x;
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
    /* the /rope request: the object's configuration fields + positions + q + k */
    json_t *sub = in->obj ? json_deep_copy(in->obj) : json_object();
    json_t *pos = json_array();
    if (sub == NULL || pos == NULL) {
        json_decref(sub);
        json_decref(pos);
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory");
        return -1;
    }
    json_object_del(sub, "offset");
    if (json_object_get(sub, "head_dim") == NULL && json_object_get(sub, "config") == NULL)
        json_object_set_new(sub, "head_dim", json_integer((json_int_t)in->d));
    for (size_t i = 0; i < in->t; i++)
        json_array_append_new(pos, json_integer((json_int_t)(s->offset + (int64_t)i)));
    json_object_set_new(sub, "positions", pos);
    json_object_set_new(sub, "q", matrix_json(in->q, in->t, in->d));
    json_object_set_new(sub, "k", matrix_json(in->k, in->t, in->d));

    api_problem sp;
    api_problem_init(&sp);
    wire_jw w;
    wire_jw_init(&w, api_max_response_bytes(lim));
    rc = api_rope(in->ctx, sub, &w, &sp);
    json_decref(sub);
    if (rc != 0 || api_problem_failed(&sp) || !wire_jw_ok(&w) || w.nonfinite) {
        wire_jw_free(&w);
        if (api_problem_failed(&sp))
            reroot_errors(&sp, in->base, pb);
        else
            api_problem_field(pb, API_PB_INVALID_FIELD, in->base,
                              "the rotation overflows; use smaller q and k");
        return -1;
    }
    size_t len = 0;
    char *text = wire_jw_take(&w, &len);
    json_t *resp = text ? json_loadb(text, len, 0, NULL) : NULL;
    int had_text = text != NULL;
    free(text);
    if (resp == NULL) {
        /* no text: out of memory; text that does not parse back: values beyond what the rotation
         * can carry (the writer's output is otherwise always valid JSON) */
        if (!had_text)
            api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory");
        else
            api_problem_field(pb, API_PB_INVALID_FIELD, "/q",
                              "the rotated q and k cannot be represented; use smaller values");
        return -1;
    }
    /* the rotation needs the whole head: a pasted config must resolve to head_dim = d */
    const json_t *res = json_object_get(resp, "resolved");
    json_int_t got_hd = json_integer_value(json_object_get(res, "head_dim"));
    if ((uint64_t)got_hd != in->d) {
        api_ptr(ptr, sizeof ptr, in->base, "config");
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "resolves to head_dim %lld, but q and k rows have %zu numbers",
                          (long long)got_hd, in->d);
        json_decref(resp);
        return -1;
    }
    s->q_rot = take_matrix(resp, "q_rotated", in->t, in->d);
    s->k_rot = take_matrix(resp, "k_rotated", in->t, in->d);
    plan->scale_mult = json_number_value(json_object_get(resp, "softmax_scale_factor"));
    s->resolved = json_deep_copy(res);
    if (s->resolved) {
        json_object_set(s->resolved, "attention_factor", json_object_get(resp, "attention_factor"));
        json_object_set(s->resolved, "softmax_scale_factor",
                        json_object_get(resp, "softmax_scale_factor"));
        json_object_set_new(s->resolved, "offset", json_integer((json_int_t)s->offset));
    }
    json_decref(resp);
    if (s->q_rot == NULL || s->k_rot == NULL || s->resolved == NULL || !(plan->scale_mult > 0)) {
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory");
        return -1;
    }
    return 0;
}

static int rope_transform(const api_att_input *in, const api_att_plan *plan, double *q, double *k,
                          api_problem *pb)
{
    (void)pb;
    const rope_state *s = plan->state;
    memcpy(q, s->q_rot, in->t * in->d * sizeof *q);
    memcpy(k, s->k_rot, in->t * in->d * sizeof *k);
    return 0;
}

static void rope_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    (void)in;
    const rope_state *s = plan->state;
    const char *key;
    json_t *val;
    json_object_foreach(s->resolved, key, val)
    {
        wire_jw_key(out, key);
        wire_jw_json(out, val);
    }
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
