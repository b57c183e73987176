/*
 * api/attention_sinusoidal.c -- /attention method "sinusoidal": the fixed table of Vaswani et al.
 * (arXiv:1706.03762 §3.5; tensor2tensor / fairseq conventions as in POST /sinusoidal) added to q
 * and k (not v) at positions offset .. offset+T-1, then plain attention. Object (all optional):
 * {d_model (defaults to d, must equal d), base (> 1, default 10000), convention, layout, offset}.
 * Table rows from core/sinusoidal.h; definitions in docs/conventions.md#sinusoidal.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/attention_method.h"
#include "core/sinusoidal.h"

static const char *const FIELDS[] = {"d_model", "base", "convention", "layout", "offset", NULL};
static const char *const CONVENTIONS[] = {"vaswani", "tensor2tensor", "fairseq", NULL};
static const char *const LAYOUTS[] = {"interleaved", "concat", NULL};

typedef struct {
    pe_sinusoidal_params p;
    int conv;       /* index into CONVENTIONS */
    int64_t offset; /* position of row 0 */
} sin_state;

static void sin_release(api_att_plan *plan)
{
    free(plan->state);
    plan->state = NULL;
}

static int sin_prepare(const api_att_input *in, api_att_plan *plan, api_problem *pb)
{
    const api_limits *lim = in->ctx->lim;
    sin_state *s = api_alloc(pb, 1, sizeof *s);
    if (s == NULL)
        return -1;
    plan->state = s;
    pe_sinusoidal_params_init(&s->p);
    s->p.d_model = in->d;
    int bad = 0;
    int64_t dm = 0;
    int rc = api_get_int(pb, in->obj, in->base, "d_model", 1, INT64_MAX, &dm);
    if (rc > 0 && (uint64_t)dm != in->d) {
        api_problem_key(pb, API_PB_INVALID_FIELD, in->base, "d_model",
                        "must equal the width of the q and k rows (%zu), got %lld", in->d,
                        (long long)dm);
        rc = -1;
    }
    bad |= rc < 0;
    bad |= api_get_number(pb, in->obj, in->base, "base", 1.0, HUGE_VAL, API_NUM_MIN_EXCL,
                          &s->p.base) < 0;
    int layout = -1;
    bad |= api_get_enum(pb, in->obj, in->base, "convention", CONVENTIONS, &s->conv) < 0;
    bad |= api_get_enum(pb, in->obj, in->base, "layout", LAYOUTS, &layout) < 0;
    s->offset = 0;
    rc = api_get_int(pb, in->obj, in->base, "offset", 0, lim->max_position - 1, &s->offset);
    if (rc > 0 && s->offset > lim->max_position - (int64_t)in->t) {
        api_problem_key(pb, API_PB_LIMIT_EXCEEDED, in->base, "offset",
                        "offset + T must not exceed max_position (%lld)",
                        (long long)lim->max_position);
        rc = -1;
    }
    bad |= rc < 0;
    if (bad)
        return -1;
    s->p.convention = (pe_sinusoidal_convention)s->conv;
    s->p.layout = layout < 0 ? PE_SINUSOIDAL_LAYOUT_DEFAULT
                             : (layout == 0 ? PE_SINUSOIDAL_INTERLEAVED : PE_SINUSOIDAL_CONCAT);
    if (pe_sinusoidal_check(&s->p) != PE_OK) {
        api_problem_key(pb, API_PB_INVALID_FIELD, in->base,
                        s->p.convention == PE_SINUSOIDAL_FAIRSEQ ? "convention" : "d_model",
                        s->p.convention == PE_SINUSOIDAL_FAIRSEQ
                            ? "fairseq divides by d_model/2 - 1, so d (= d_model) 2 and 3 are "
                              "undefined"
                            : "invalid sinusoidal configuration");
        return -1;
    }
    return 0;
}

static int sin_transform(const api_att_input *in, const api_att_plan *plan, double *q, double *k,
                         api_problem *pb)
{
    const sin_state *s = plan->state;
    size_t d = in->d;
    double *omega = api_alloc(pb, d, sizeof *omega);
    double *row = api_alloc(pb, d, sizeof *row);
    if (omega == NULL || row == NULL || pe_sinusoidal_freqs(&s->p, omega) != PE_OK) {
        if (!api_problem_failed(pb))
            api_problem_field(pb, API_PB_INVALID_FIELD, in->base,
                              "invalid sinusoidal configuration");
        free(omega);
        free(row);
        return -1;
    }
    for (size_t i = 0; i < in->t; i++) {
        pe_sinusoidal_row(&s->p, omega, s->offset + (int64_t)i, row);
        for (size_t c = 0; c < d; c++) {
            q[i * d + c] += row[c];
            k[i * d + c] += row[c];
        }
    }
    free(omega);
    free(row);
    return 0;
}

static void sin_resolved(const api_att_input *in, const api_att_plan *plan, wire_jw *out)
{
    (void)in;
    const sin_state *s = plan->state;
    wire_jw_key(out, "d_model");
    wire_jw_int(out, (int64_t)s->p.d_model);
    wire_jw_key(out, "base");
    wire_jw_double(out, s->p.base);
    wire_jw_key(out, "convention");
    wire_jw_str(out, CONVENTIONS[s->conv]);
    wire_jw_key(out, "layout");
    wire_jw_str(out, pe_sinusoidal_resolved_layout(&s->p) == PE_SINUSOIDAL_CONCAT ? "concat"
                                                                                  : "interleaved");
    wire_jw_key(out, "offset");
    wire_jw_int(out, s->offset);
}

const api_att_method api_att_method_sinusoidal = {
    .name = "sinusoidal",
    .fields = FIELDS,
    .needs_object = 0,
    .prepare = sin_prepare,
    .transform_qk = sin_transform,
    .bias = NULL,
    .add_output = NULL,
    .resolved = sin_resolved,
    .release = sin_release,
};
