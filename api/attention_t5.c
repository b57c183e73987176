/*
 * api/attention_t5.c -- T5 relative position buckets (Raffel et al., arXiv:1910.10683; HF
 * `T5Attention._relative_position_bucket` / `compute_bias`): the bucketing configuration parser
 * shared with POST /t5/buckets, and /attention method "t5": a learned bias table
 * bias [num_buckets] (one head) or [H][num_buckets] read at bucket(key - query) and added to the
 * scaled logits. T5 itself uses scale 1 (send "scale": 1); the default is the request's 1/sqrt(d).
 * Buckets from core/t5.h; definitions in docs/conventions.md#t5-buckets.
 */
#include <stdint.h>
#include <stdlib.h>

#include "api/attention_method.h"

int api_t5_cfg_parse(api_problem *pb, const json_t *obj, const char *base, const api_limits *lim,
                     int def_bidirectional, size_t def_num_buckets, const char *def_ptr,
                     pe_t5_params *p)
{
    pe_t5_params_init(p);
    p->bidirectional = def_bidirectional;
    p->num_buckets = def_num_buckets;
    char ptr[160];
    int bad = api_get_bool(pb, obj, base, "bidirectional", &p->bidirectional) < 0;
    int64_t nb = 0, md = 0;
    int rc_nb = api_get_int(pb, obj, base, "num_buckets", INT64_MIN, INT64_MAX, &nb);
    bad |= rc_nb < 0;
    int rc_md = api_get_int(pb, obj, base, "max_distance", INT64_MIN, INT64_MAX, &md);
    bad |= rc_md < 0;
    if (bad)
        return -1;
    char nbp[160];
    api_ptr(nbp, sizeof nbp, base, "num_buckets");
    const char *nb_ptr = (rc_nb == 0 && def_ptr != NULL) ? def_ptr : nbp;
    int64_t min_nb = p->bidirectional ? 4 : 2;
    if (rc_nb > 0) {
        if (nb < min_nb) {
            api_problem_field(pb, API_PB_INVALID_FIELD, nb_ptr,
                              "must be >= %lld when bidirectional is %s (the first %s of the "
                              "buckets are exact distances, and that must be at least 1), got %lld",
                              (long long)min_nb, p->bidirectional ? "true" : "false",
                              p->bidirectional ? "num_buckets/4" : "num_buckets/2", (long long)nb);
            return -1;
        }
        if ((uint64_t)nb > lim->max_positions) {
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, nb_ptr,
                              "num_buckets %lld exceeds max_positions (%zu)", (long long)nb,
                              lim->max_positions);
            return -1;
        }
        p->num_buckets = (size_t)nb;
    } else if (p->num_buckets < (size_t)min_nb) {
        api_problem_field(pb, API_PB_INVALID_FIELD, nb_ptr,
                          "has %zu buckets; bucketing with bidirectional %s needs at least %lld",
                          p->num_buckets, p->bidirectional ? "true" : "false", (long long)min_nb);
        return -1;
    }
    size_t e = (p->bidirectional ? p->num_buckets / 2 : p->num_buckets) / 2;
    if (rc_md > 0) {
        api_ptr(ptr, sizeof ptr, base, "max_distance");
        if (md <= (int64_t)e) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                              "must be > %zu (the number of exact buckets, %s; the log scale "
                              "divides by ln(max_distance/%zu)), got %lld",
                              e, p->bidirectional ? "num_buckets/4" : "num_buckets/2", e,
                              (long long)md);
            return -1;
        }
        if (md >= lim->max_position) {
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr,
                              "must be < max_position (%lld), got %lld",
                              (long long)lim->max_position, (long long)md);
            return -1;
        }
        p->max_distance = (size_t)md;
    } else if (p->max_distance <= e) {
        api_problem_key(pb, API_PB_INVALID_FIELD, base, "max_distance",
                        "the default max_distance %zu must be > num_buckets' exact range %zu; "
                        "give a larger max_distance",
                        p->max_distance, e);
        return -1;
    }
    if (pe_t5_check(p) != PE_OK) {
        api_problem_field(pb, API_PB_INVALID_FIELD, nb_ptr, "invalid T5 bucketing configuration");
        return -1;
    }
    return 0;
}

void api_t5_cfg_resolved(wire_jw *out, const pe_t5_params *p)
{
    wire_jw_key(out, "bidirectional");
    wire_jw_bool(out, p->bidirectional);
    wire_jw_key(out, "num_buckets");
    wire_jw_int(out, (int64_t)p->num_buckets);
    wire_jw_key(out, "max_distance");
    wire_jw_int(out, (int64_t)p->max_distance);
}

/* ---- /attention method "t5" --------------------------------------------------------------- */

static const char *const FIELDS[] = {"bias", "num_buckets", "max_distance", "bidirectional", NULL};

typedef struct {
    pe_t5_params p;
    double *table; /* [heads][num_buckets] */
    size_t heads;
    size_t *buckets; /* [2T-1]: bucket of r = key - query at index r + T - 1 */
} t5_state;

static void t5_release(api_att_plan *plan)
{
    t5_state *s = plan->state;
    if (s != NULL) {
        free(s->table);
        free(s->buckets);
        free(s);
    }
    plan->state = NULL;
}

static int t5_prepare(const api_att_input *in, api_att_plan *plan, api_problem *pb)
{
    const api_limits *lim = in->ctx->lim;
    t5_state *s = api_alloc(pb, 1, sizeof *s);
    if (s == NULL)
        return -1;
    plan->state = s;
    char ptr[160];
    api_ptr(ptr, sizeof ptr, in->base, "bias");
    const json_t *bv = json_object_get(in->obj, "bias");
    if (bv == NULL || json_is_null(bv)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "bias is required: [num_buckets] or [H][num_buckets] learned values");
        return -1;
    }
    size_t rows = 0, cols = 0;
    int was_vector = 0;
    if (api_number_matrix(pb, bv, ptr, 0, 0, lim->max_output_elements, 1, &s->table, &rows, &cols,
                          &was_vector) < 0)
        return -1;
    if (rows > lim->max_heads) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr, "has %zu heads; max_heads is %zu", rows,
                          lim->max_heads);
        return -1;
    }
    s->heads = rows;
    char def_ptr[160];
    if (was_vector)
        api_ptr(def_ptr, sizeof def_ptr, in->base, "bias");
    else
        api_ptr_idx(def_ptr, sizeof def_ptr, ptr, 0);
    if (api_t5_cfg_parse(pb, in->obj, in->base, lim, !in->causal, cols, def_ptr, &s->p) < 0)
        return -1;
    if (s->p.num_buckets != cols) {
        api_problem_field(pb, API_PB_INVALID_FIELD, def_ptr,
                          "must have num_buckets (%zu) values per head, got %zu", s->p.num_buckets,
                          cols);
        return -1;
    }
    size_t nr = 2 * in->t - 1; /* t <= max_positions: no overflow */
    s->buckets = api_alloc(pb, nr, sizeof *s->buckets);
    if (s->buckets == NULL)
        return -1;
    for (size_t x = 0; x < nr; x++)
        s->buckets[x] = pe_t5_bucket(&s->p, (int64_t)x - (int64_t)(in->t - 1));
    plan->n_heads = rows;
    plan->head_axis = !was_vector;
    return 0;
}

static int t5_bias(const api_att_input *in, const api_att_plan *plan, size_t h, double *bias,
                   api_problem *pb)
{
    (void)pb;
    const t5_state *s = plan->state;
    const double *row = s->table + h * s->p.num_buckets;
    size_t t = in->t;
    for (size_t i = 0; i < t; i++) {
        /* r = j - i, index r + t - 1 = j + (t - 1 - i) */
        const size_t *bk = s->buckets + (t - 1 - i);
        for (size_t j = 0; j < t; j++)
            bias[i * t + j] = row[bk[j]];
    }
    return 0;
}

static void t5_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    (void)in;
    const t5_state *s = plan->state;
    api_t5_cfg_resolved(out, &s->p);
    wire_jw_key(out, "num_heads");
    wire_jw_int(out, (int64_t)s->heads);
}

const api_att_method api_att_method_t5 = {
    .name = "t5",
    .fields = FIELDS,
    .needs_object = 1,
    .prepare = t5_prepare,
    .transform_qk = NULL,
    .bias = t5_bias,
    .add_output = NULL,
    .resolved = t5_resolved,
    .release = t5_release,
};
