/*
 * api/sinusoidal.c -- POST /sinusoidal (docs/api.md#sinusoidal): d_model, positions | seq_len
 * [+offset], base, convention, layout → {shape, positions, matrix, resolved}. Numbers from
 * core/sinusoidal.
 */
#include <math.h>
#include <stdlib.h>

#include "api/api.h"
#include "core/sinusoidal.h"

/* The matrix as a row source (wire/jw.h): row i is computed when it is sent, so a streamed
 * response holds O(d_model) numbers, never the table or its text. */
typedef struct {
    pe_sinusoidal_params p;
    double *omega;
    int64_t *pos;
} sin_rows;

static const double *sin_row(void *self, size_t r, double *scratch)
{
    const sin_rows *s = self;
    pe_sinusoidal_row(&s->p, s->omega, s->pos[r], scratch);
    return scratch;
}

static void sin_release(void *self)
{
    sin_rows *s = self;
    free(s->omega);
    free(s->pos);
    free(s);
}

static const char *const FIELDS[] = {"d_model", "positions",  "seq_len", "offset",
                                     "base",    "convention", "layout",  NULL};
static const char *const CONVENTIONS[] = {"vaswani", "tensor2tensor", "fairseq", NULL};
static const char *const LAYOUTS[] = {"interleaved", "concat", NULL};

int api_sinusoidal(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    const api_limits *lim = ctx->lim;
    api_check_fields(pb, req, "", FIELDS);
    pe_sinusoidal_params p;
    pe_sinusoidal_params_init(&p);
    int64_t d = 0;
    int rc = api_get_int(pb, req, "", "d_model", 1, INT64_MAX, &d);
    if (rc == 0)
        api_problem_field(pb, API_PB_INVALID_FIELD, "/d_model", "d_model is required");
    else if (rc > 0 && (uint64_t)d > lim->max_dim)
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/d_model",
                          "d_model %lld exceeds max_dim (%zu)", (long long)d, lim->max_dim);
    api_get_number(pb, req, "", "base", 1.0, HUGE_VAL, API_NUM_MIN_EXCL, &p.base);
    int conv = 0, layout = -1;
    api_get_enum(pb, req, "", "convention", CONVENTIONS, &conv);
    api_get_enum(pb, req, "", "layout", LAYOUTS, &layout);
    int64_t *pos = NULL;
    size_t n_pos = 0;
    api_get_positions(pb, req, "", lim, 1, &pos, &n_pos);
    if (api_problem_failed(pb)) {
        free(pos);
        return -1;
    }
    p.d_model = (size_t)d;
    p.convention = (pe_sinusoidal_convention)conv;
    p.layout = layout < 0 ? PE_SINUSOIDAL_LAYOUT_DEFAULT
                          : (layout == 0 ? PE_SINUSOIDAL_INTERLEAVED : PE_SINUSOIDAL_CONCAT);
    if (p.convention == PE_SINUSOIDAL_FAIRSEQ && (p.d_model == 2 || p.d_model == 3)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/d_model",
                          "fairseq divides by d_model/2 - 1, so d_model 2 and 3 are undefined");
        free(pos);
        return -1;
    }
    size_t n_out; /* the matrix: a 4096 x 1024 table is exactly the default limit, so the echoed
                   * positions (n_pos more) are not counted */
    if (!pe_mul_ok(n_pos, p.d_model, &n_out) ||
        api_check_output(pb, lim, n_out, n_pos ? "/d_model" : "/seq_len", "this table") < 0) {
        if (!api_problem_failed(pb))
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/d_model", "table size overflows");
        free(pos);
        return -1;
    }
    size_t work = 0; /* one sin or cos per number */
    if (api_check_work(pb, lim, &work, n_pos, p.d_model, API_WORK_TRIG,
                       n_pos ? "/d_model" : "/seq_len", "this table") < 0) {
        free(pos);
        return -1;
    }
    double *omega = api_alloc(pb, p.d_model, sizeof *omega);
    sin_rows *src = api_alloc(pb, 1, sizeof *src);
    if (omega == NULL || src == NULL || pe_sinusoidal_freqs(&p, omega) != PE_OK) {
        if (!api_problem_failed(pb))
            api_problem_field(pb, API_PB_INVALID_FIELD, "", "invalid sinusoidal configuration");
        free(omega);
        free(src);
        free(pos);
        return -1;
    }
    pe_sinusoidal_layout lay = pe_sinusoidal_resolved_layout(&p);

    wire_jw_obj_begin(out);
    wire_jw_key(out, "shape");
    wire_jw_arr_begin(out);
    wire_jw_int(out, (int64_t)n_pos);
    wire_jw_int(out, (int64_t)p.d_model);
    wire_jw_arr_end(out);
    wire_jw_key(out, "positions");
    wire_jw_ints(out, pos, n_pos);
    /* rows are computed one at a time, when written (streamed: when sent); sines are finite */
    wire_jw_key(out, "matrix");
    src->p = p;
    src->omega = omega;
    src->pos = pos;
    wire_rows rows = {.rows = n_pos,
                      .cols = p.d_model,
                      .row = sin_row,
                      .release = sin_release,
                      .self = src,
                      .masked = 0,
                      .max_abs = 1.0};
    wire_jw_rows(out, &rows); /* takes omega and pos: not used below */
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    wire_jw_key(out, "d_model");
    wire_jw_int(out, (int64_t)p.d_model);
    wire_jw_key(out, "base");
    wire_jw_double(out, p.base);
    wire_jw_key(out, "convention");
    wire_jw_str(out, CONVENTIONS[conv]);
    wire_jw_key(out, "layout");
    wire_jw_str(out, lay == PE_SINUSOIDAL_CONCAT ? "concat" : "interleaved");
    wire_jw_key(out, "n_positions");
    wire_jw_int(out, (int64_t)n_pos);
    wire_jw_obj_end(out);
    wire_jw_obj_end(out);
    return 0;
}
