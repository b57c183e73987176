/*
 * api/attention.c -- POST /attention (docs/api.md#attention): q [T][d], k [T][d], optional v
 * [T][dv], causal (default false), scale (default 1/sqrt(d); a method may set the pasted
 * model's own, api_att_plan.has_model_scale: rope with `config`, api/model_scale.h), method
 * (default "none") and the method's object under the key of the same name → {scores, weights,
 * output?, resolved}.
 *
 * This file owns the fields shared by every method and the pipeline (see attention_method.h):
 * per head, scores = scale * q'.k'^T + bias (null where masked), weights = masked softmax,
 * output = weights.v. Methods live in api/attention_<name>.c and are listed in METHODS below;
 * names known to the contract but not implemented yet get a clear 422 at /method.
 * Source: arXiv:1706.03762 §3.2.1; numbers via core/attention.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/attention_method.h"
#include "core/attention.h"

/* method "none": plain scaled dot-product attention, no object, no hooks. */
static const api_att_method METHOD_NONE = {.name = "none"};

/* Every method name of the contract, in docs/api.md's order; impl NULL = not available yet. */
static const struct {
    const char *name;
    const api_att_method *impl;
} METHODS[] = {
    {"none", &METHOD_NONE},
    {"sinusoidal", &api_att_method_sinusoidal},
    {"learned", &api_att_method_learned},
    {"rope", &api_att_method_rope},
    {"alibi", &api_att_method_alibi},
    {"t5", &api_att_method_t5},
    {"shaw", &api_att_method_shaw},
    {"transformer_xl", &api_att_method_transformer_xl},
};
#define N_METHODS (sizeof METHODS / sizeof METHODS[0])

/* Top-level fields: the shared ones, then one object key per method name (checked separately). */
static const char *const SHARED_FIELDS[] = {"q", "k", "v", "causal", "scale", "method"};
#define N_SHARED (sizeof SHARED_FIELDS / sizeof SHARED_FIELDS[0])

void api_att_write_masked(wire_jw *w, const double *x, size_t rows, size_t cols)
{
    wire_jw_arr_begin(w);
    for (size_t i = 0; i < rows && wire_jw_ok(w); i++) {
        const double *r = x + i * cols;
        size_t j = 0;
        while (j < cols && !pe_attention_is_masked(r[j]))
            j++;
        if (j == cols) { /* no masked entry: the fast path */
            wire_jw_doubles(w, r, cols);
            continue;
        }
        wire_jw_arr_begin(w);
        for (j = 0; j < cols; j++) {
            if (pe_attention_is_masked(r[j]))
                wire_jw_null(w);
            else
                wire_jw_double(w, r[j]);
        }
        wire_jw_arr_end(w);
    }
    wire_jw_arr_end(w);
}

static void check_top_fields(api_problem *pb, const json_t *req)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)req, key, val)
    {
        int known = 0;
        for (size_t i = 0; i < N_SHARED && !known; i++)
            known = strcmp(key, SHARED_FIELDS[i]) == 0;
        for (size_t i = 0; i < N_METHODS && !known; i++)
            known = strcmp(key, METHODS[i].name) == 0 && strcmp(key, "none") != 0;
        if (!known) {
            api_problem_key(pb, API_PB_UNKNOWN_FIELD, "", key, "unknown field \"%.80s\"", key);
        }
    }
}

/* Resolves `method` (default "none"): returns the implementation, or NULL with pb filled. */
static const api_att_method *get_method(api_problem *pb, const json_t *req)
{
    const json_t *m = json_object_get(req, "method");
    if (m == NULL || json_is_null(m))
        return &METHOD_NONE;
    char known[256] = "", avail[160] = "";
    size_t lk = 0, la = 0;
    for (size_t i = 0; i < N_METHODS; i++) {
        if (lk < sizeof known)
            lk += (size_t)snprintf(known + lk, sizeof known - lk, "%s\"%s\"", i ? ", " : "",
                                   METHODS[i].name);
        if (METHODS[i].impl && la < sizeof avail)
            la += (size_t)snprintf(avail + la, sizeof avail - la, "%s\"%s\"", la ? ", " : "",
                                   METHODS[i].name);
    }
    if (json_is_string(m)) {
        const char *s = json_string_value(m);
        for (size_t i = 0; i < N_METHODS; i++) {
            if (strcmp(s, METHODS[i].name) != 0)
                continue;
            if (METHODS[i].impl)
                return METHODS[i].impl;
            api_problem_field(pb, API_PB_INVALID_FIELD, "/method",
                              "method \"%s\" is not available in this version; available: %s", s,
                              avail);
            return NULL;
        }
    }
    api_problem_field(pb, API_PB_INVALID_FIELD, "/method", "must be one of %s (available: %s)",
                      known, avail);
    return NULL;
}

/* An object for a method other than the selected one is a mistake, never ignored. */
static void check_foreign_objects(api_problem *pb, const json_t *req, const api_att_method *mth)
{
    for (size_t i = 0; i < N_METHODS; i++) {
        const char *name = METHODS[i].name;
        if (strcmp(name, "none") == 0 || strcmp(name, mth->name) == 0)
            continue;
        const json_t *v = json_object_get(req, name);
        if (v == NULL)
            continue;
        api_problem_key(pb, API_PB_INVALID_FIELD, "", name,
                        "the \"%s\" object configures method \"%s\", but method is \"%s\"", name,
                        name, mth->name);
    }
}

/* Everything a request owns; freed by release_all. */
typedef struct {
    double *q, *k, *v;
    double *qw, *kw; /* q, k after the method's transform */
    double *logits;  /* [t][t] scale * qw kw^T */
    double *scores;  /* [H][t][t] */
    double *weights; /* [H][t][t] */
    double *bias;    /* [t][t] */
    double *out;     /* [H][t][dv] */
    api_att_plan plan;
    const api_att_method *mth;
} att_bufs;

static void release_all(att_bufs *b)
{
    if (b->mth && b->mth->release)
        b->mth->release(&b->plan);
    free(b->q);
    free(b->k);
    free(b->v);
    free(b->qw);
    free(b->kw);
    free(b->logits);
    free(b->scores);
    free(b->weights);
    free(b->bias);
    free(b->out);
}

/* Runs the pipeline for every head; 0 or -1 with pb filled. */
static int evaluate(const api_att_input *in, att_bufs *b, api_problem *pb)
{
    const api_att_method *m = b->mth;
    size_t t = in->t, n = t * t; /* n fits: checked against max_output_elements */
    size_t H = b->plan.n_heads;
    memcpy(b->qw, in->q, t * in->d * sizeof *b->qw);
    memcpy(b->kw, in->k, t * in->d * sizeof *b->kw);
    if (m->transform_qk && m->transform_qk(in, &b->plan, b->qw, b->kw, pb) < 0)
        return -1;
    double scale = in->scale * b->plan.scale_mult;
    if (pe_attention_logits(b->qw, b->kw, t, t, in->d, scale, b->logits) != PE_OK) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/q",
                          "scale x q.k^T is not finite (overflow); use smaller q, k or scale");
        return -1;
    }
    if (b->plan.softcap > 0.0) /* the model's soft-capping (Gemma 2), before bias and mask */
        pe_attention_softcap(b->logits, n, b->plan.softcap);
    char mptr[160];
    api_ptr(mptr, sizeof mptr, "", m->name);
    for (size_t h = 0; h < H; h++) {
        double *sc = b->scores + h * n;
        double *w = b->weights + h * n;
        memcpy(sc, b->logits, n * sizeof *sc);
        if (m->bias) {
            if (m->bias(in, &b->plan, h, b->bias, pb) < 0)
                return -1;
            if (pe_attention_add_bias(sc, b->bias, n) != PE_OK) {
                api_problem_field(pb, API_PB_INVALID_FIELD, mptr,
                                  "scores + the %s bias are not finite (overflow)", m->name);
                return -1;
            }
        }
        if (in->causal)
            pe_attention_causal_mask(sc, t, t, NULL, NULL);
        size_t bad = 0;
        pe_status st = pe_attention_softmax_rows(sc, t, t, w, &bad);
        if (st == PE_ERR_EMPTY_ROW) {
            api_problem_field(pb, API_PB_INVALID_FIELD, mptr,
                              "query row %zu has no visible key (every score is masked)", bad);
            return -1;
        }
        if (st != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/q", "a score of row %zu is not finite",
                              bad);
            return -1;
        }
        if (in->v) {
            double *o = b->out + h * t * in->dv;
            if (pe_attention_apply(w, in->v, t, t, in->dv, o) != PE_OK) {
                api_problem_field(pb, API_PB_INVALID_FIELD, "/v",
                                  "weights x v is not finite (overflow); use smaller v");
                return -1;
            }
            if (m->add_output && m->add_output(in, &b->plan, h, w, o, pb) < 0)
                return -1;
        }
    }
    return 0;
}

/* Writes [H][rows][cols] (or [rows][cols] without a head axis). */
static void write_heads(wire_jw *out, const double *x, size_t H, int head_axis, size_t rows,
                        size_t cols, int masked)
{
    if (head_axis)
        wire_jw_arr_begin(out);
    for (size_t h = 0; h < H && wire_jw_ok(out); h++) {
        const double *xh = x + h * rows * cols;
        if (masked)
            api_att_write_masked(out, xh, rows, cols);
        else
            wire_jw_matrix(out, xh, NULL, rows, cols);
    }
    if (head_axis)
        wire_jw_arr_end(out);
}

int api_attention(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    const api_limits *lim = ctx->lim;
    att_bufs b;
    memset(&b, 0, sizeof b);
    check_top_fields(pb, req);
    const api_att_method *mth = get_method(pb, req);
    if (mth)
        check_foreign_objects(pb, req, mth);

    size_t t = 0, d = 0, kt = 0, kd = 0, vt = 0, dv = 0;
    int rc_q = api_get_matrix(pb, req, "", "q", 0, 0, lim->max_output_elements, &b.q, &t, &d);
    if (rc_q == 0)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/q", "q is required ([T][d] query rows)");
    if (rc_q > 0 && t > lim->max_positions) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/q", "q has %zu rows; max_positions is %zu",
                          t, lim->max_positions);
        rc_q = -1;
    }
    if (rc_q > 0 && d > lim->max_dim) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/q/0", "row width %zu exceeds max_dim (%zu)",
                          d, lim->max_dim);
        rc_q = -1;
    }
    int rc_k = api_get_matrix(pb, req, "", "k", rc_q > 0 ? t : 0, rc_q > 0 ? d : 0,
                              lim->max_output_elements, &b.k, &kt, &kd);
    if (rc_k == 0)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/k", "k is required ([T][d] key rows)");
    int rc_v = api_get_matrix(pb, req, "", "v", rc_q > 0 ? t : 0, 0, lim->max_output_elements, &b.v,
                              &vt, &dv);
    if (rc_v > 0 && dv > lim->max_dim) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/v/0", "row width %zu exceeds max_dim (%zu)",
                          dv, lim->max_dim);
    }
    int causal = 0;
    api_get_bool(pb, req, "", "causal", &causal);
    double scale = 0.0;
    int rc_s = api_get_number(pb, req, "", "scale", 0.0, HUGE_VAL, 0, &scale);
    if (rc_s == 0 && d > 0)
        scale = 1.0 / sqrt((double)d);

    const json_t *obj = NULL;
    char base[160] = "";
    if (mth && mth->fields) {
        api_ptr(base, sizeof base, "", mth->name);
        int rc_o = api_get_object(pb, req, "", mth->name, &obj);
        if (rc_o > 0)
            api_check_fields_config(pb, obj, base, mth->fields);
        else if (rc_o == 0 && mth->needs_object)
            api_problem_field(pb, API_PB_INVALID_FIELD, base,
                              "method \"%s\" needs its configuration object \"%s\"", mth->name,
                              mth->name);
    }
    if (api_problem_failed(pb)) {
        release_all(&b);
        return -1;
    }

    api_att_input in = {.ctx = ctx,
                        .obj = obj,
                        .base = base,
                        .t = t,
                        .d = d,
                        .dv = b.v ? dv : 0,
                        .q = b.q,
                        .k = b.k,
                        .v = b.v,
                        .causal = causal,
                        .scale = scale,
                        .scale_given = rc_s > 0};
    b.mth = mth;
    b.plan.n_heads = 1;
    b.plan.head_axis = 0;
    b.plan.scale_mult = 1.0;
    b.plan.state = NULL;
    if (mth->prepare && mth->prepare(&in, &b.plan, pb) < 0) {
        release_all(&b);
        return -1;
    }
    if (b.plan.has_model_scale && !in.scale_given) /* a pasted config's own attention scale */
        in.scale = scale = b.plan.model_scale;

    /* scores + weights [H][t][t], output [H][t][dv]: checked before allocating them. */
    size_t H = b.plan.n_heads, n, hn, total, o = 0;
    int ok = pe_mul_ok(t, t, &n) && pe_mul_ok(H, n, &hn) && pe_mul_ok(hn, 2, &total) &&
             (!b.v || (pe_mul_ok(H * t, in.dv, &o) && total + o >= total));
    if (!ok || api_check_output(pb, lim, total + o, "/q",
                                "this attention (scores, weights, output)") < 0) {
        if (!api_problem_failed(pb))
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/q", "the response size overflows");
        release_all(&b);
        return -1;
    }
    /* compute budget per head: logits, a position term as large again (Shaw, Transformer-XL),
     * the softmax's exp and weights·v */
    size_t work = 0;
    if (api_check_work(pb, lim, &work, hn, 2 * d + in.dv + API_WORK_TRIG, 1, "/q",
                       "this attention") < 0) {
        release_all(&b);
        return -1;
    }
    b.qw = api_alloc(pb, t * d, sizeof *b.qw);
    b.kw = api_alloc(pb, t * d, sizeof *b.kw);
    b.logits = api_alloc(pb, n, sizeof *b.logits);
    b.scores = api_alloc(pb, hn, sizeof *b.scores);
    b.weights = api_alloc(pb, hn, sizeof *b.weights);
    b.bias = mth->bias ? api_alloc(pb, n, sizeof *b.bias) : NULL;
    b.out = b.v ? api_alloc(pb, o, sizeof *b.out) : NULL;
    if (api_problem_failed(pb) || evaluate(&in, &b, pb) < 0) {
        release_all(&b);
        return -1;
    }

    wire_jw_obj_begin(out);
    wire_jw_key(out, "scores");
    write_heads(out, b.scores, H, b.plan.head_axis, t, t, 1);
    wire_jw_key(out, "weights");
    write_heads(out, b.weights, H, b.plan.head_axis, t, t, 0);
    if (b.v) {
        wire_jw_key(out, "output");
        write_heads(out, b.out, H, b.plan.head_axis, t, in.dv, 0);
    }
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    wire_jw_key(out, "method");
    wire_jw_str(out, mth->name);
    wire_jw_key(out, "causal");
    wire_jw_bool(out, causal);
    wire_jw_key(out, "scale");
    wire_jw_double(out, scale);     /* before the method's scale_mult (softmax_scale_factor) */
    if (b.plan.scale_src != NULL) { /* a pasted config: where the scale came from */
        wire_jw_key(out, "scale_source");
        wire_jw_str(out, b.plan.scale_src);
    }
    if (b.plan.softcap > 0.0) {
        wire_jw_key(out, "attn_logit_softcapping");
        wire_jw_double(out, b.plan.softcap);
    }
    if (b.plan.caveat != NULL) {
        wire_jw_key(out, "caveats");
        wire_jw_arr_begin(out);
        wire_jw_str(out, b.plan.caveat);
        wire_jw_arr_end(out);
    }
    wire_jw_key(out, "seq_len");
    wire_jw_int(out, (int64_t)t);
    wire_jw_key(out, "d");
    wire_jw_int(out, (int64_t)d);
    if (b.v) {
        wire_jw_key(out, "dv");
        wire_jw_int(out, (int64_t)in.dv);
    }
    wire_jw_key(out, "num_heads");
    wire_jw_int(out, (int64_t)H);
    if (mth->resolved) {
        wire_jw_key(out, mth->name);
        wire_jw_obj_begin(out);
        mth->resolved(&in, &b.plan, out);
        wire_jw_obj_end(out);
    }
    wire_jw_obj_end(out);
    wire_jw_obj_end(out);
    release_all(&b);
    return 0;
}
