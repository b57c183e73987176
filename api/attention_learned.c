/*
 * api/attention_learned.c -- /attention method "learned": a stored learned absolute position table
 * (GPT-2's wpe; Radford et al. 2019) added to q and k (not v) at positions offset .. offset+T-1,
 * then plain attention. Object: {table (required), extend?, offset?, target_length?} with the
 * meaning of POST /learned (api/learned.c): the table's rows must have d columns (the width of q
 * and k); a position past what extend allows → 422 naming the position and the row count, at
 * /learned/offset when offset alone is past it, else at /q (its row count T sets the positions).
 * Rows from core/learned.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/attention_method.h"
#include "api/learned_cfg.h"

static const char *const FIELDS[] = {"table", "extend", "offset", "target_length", NULL};

typedef struct {
    api_learned_cfg cfg;
    pe_learned_params p;
    const store_table *table; /* acquired; released by lrn_release */
    const store_source *src;
    int64_t offset; /* position of row 0 */
} lrn_state;

static void lrn_release(api_att_plan *plan)
{
    lrn_state *s = plan->state;
    if (s && s->table)
        s->src->release(s->src->self, s->table);
    free(s);
    plan->state = NULL;
}

static int lrn_prepare(const api_att_input *in, api_att_plan *plan, api_problem *pb)
{
    const api_limits *lim = in->ctx->lim;
    lrn_state *s = api_alloc(pb, 1, sizeof *s);
    if (s == NULL)
        return -1;
    plan->state = s;
    s->src = in->ctx->tables;
    char ptr[160];
    api_learned_cfg_parse(pb, in->obj, in->base, lim, &s->cfg);
    int rc = api_get_int(pb, in->obj, in->base, "offset", 0, lim->max_position - 1, &s->offset);
    if (rc > 0 && s->offset > lim->max_position - (int64_t)in->t) {
        api_problem_key(pb, API_PB_LIMIT_EXCEEDED, in->base, "offset",
                        "offset + T must not exceed max_position (%lld)",
                        (long long)lim->max_position);
    }
    if (api_problem_failed(pb))
        return -1;
    api_ptr(ptr, sizeof ptr, in->base, "table");
    s->table = api_learned_acquire(pb, in->ctx, ptr, &s->cfg, &s->p);
    if (s->table == NULL)
        return -1;
    if (s->p.cols != in->d) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "table \"%s\" has %zu columns, but the q and k rows have d = %zu",
                          s->cfg.table, s->p.cols, in->d);
        return -1;
    }
    uint64_t limit = pe_learned_limit(&s->p);
    uint64_t last = (uint64_t)s->offset + in->t - 1; /* t >= 1 (q is non-empty) */
    if (last >= limit) {
        uint64_t first_bad = (uint64_t)s->offset >= limit ? (uint64_t)s->offset : limit;
        if ((uint64_t)s->offset >= limit)
            api_ptr(ptr, sizeof ptr, in->base, "offset");
        else
            snprintf(ptr, sizeof ptr, "/q");
        api_learned_range_error(pb, ptr, &s->cfg, &s->p, (int64_t)first_bad);
        return -1;
    }
    return 0;
}

static int lrn_transform(const api_att_input *in, const api_att_plan *plan, double *q, double *k,
                         api_problem *pb)
{
    const lrn_state *s = plan->state;
    size_t d = in->d;
    double *row = api_alloc(pb, d, sizeof *row);
    if (row == NULL)
        return -1;
    for (size_t i = 0; i < in->t; i++) {
        if (pe_learned_row(&s->p, s->offset + (int64_t)i, row) != PE_OK) {
            api_problem_key(pb, API_PB_INVALID_FIELD, in->base, "table",
                            "interpolating this table overflows (entries near the float64 "
                            "maximum)");
            free(row);
            return -1;
        }
        for (size_t c = 0; c < d; c++) {
            q[i * d + c] += row[c];
            k[i * d + c] += row[c];
        }
    }
    free(row);
    return 0;
}

static void lrn_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    (void)in;
    const lrn_state *s = plan->state;
    api_learned_resolved(out, &s->cfg, &s->p);
    wire_jw_key(out, "offset");
    wire_jw_int(out, s->offset);
}

const api_att_method api_att_method_learned = {
    .name = "learned",
    .fields = FIELDS,
    .needs_object = 1,
    .prepare = lrn_prepare,
    .transform_qk = lrn_transform,
    .bias = NULL,
    .add_output = NULL,
    .resolved = lrn_resolved,
    .release = lrn_release,
};
