/*
 * api/rope.c -- POST /rope: a RoPE configuration (head_dim, rotary_dim | partial_rotary_factor,
 * base | rope_theta, layout, scaling | rope_scaling, inv_freq, config, or multi-axis `axes`)
 * plus optional inputs (positions | seq_len, q_positions, k_positions, q, k, include, distances)
 * -> the response of api_rope_write (api/rope_req.h lists its members).
 *
 * Three steps, each in its own file: parse (api/rope_parse.c and the files it names), run
 * (api/rope_run.c, numbers from core/ only) and write (api/rope_write.c). /attention's rope
 * method uses the first two (api_rope_eval) without going through JSON.
 *
 * Work bound: the rotations, scores, cos/sin, decay (n per distance) and float32_error (n per
 * position) together must stay within max_work (422 limit-exceeded beyond), as outputs stay
 * within max_output_elements numbers; both are checked by the parse step, before allocating.
 */
#include <string.h>

#include "api/api.h"
#include "api/rope_req.h"

/* Writes layer_kinds: each kind of the config's layers with its full answer ("result"; RoPE
 * kinds) computed as if the request had chosen a layer of that kind. Returns 0 or -1 (pb). */
static int write_kinds(const api_ctx *ctx, const json_t *req, const api_ml_plan *p, wire_jw *out,
                       api_problem *pb)
{
    wire_jw_key(out, "layer_kinds");
    wire_jw_arr_begin(out);
    for (size_t i = 0; i < p->n_kinds; i++) {
        api_rope_write_kind_open(out, p, (int)i);
        if (p->kind[i].rope) {
            api_rope_req r;
            api_rope_res res;
            int rc = api_rope_parse_kind(pb, ctx->lim, req, NULL, (int)i, &r);
            if (rc == 0)
                rc = api_rope_run(ctx->cache, &r, &res, pb);
            else
                memset(&res, 0, sizeof res);
            if (rc == 0 && !api_rope_res_finite(&r, &res)) {
                api_problem_field(pb, API_PB_INVALID_FIELD, "/config",
                                  "layer kind %zu gives non-finite numbers", i);
                rc = -1;
            }
            if (rc == 0) {
                wire_jw_key(out, "result");
                api_rope_write(out, &r, &res);
            }
            api_rope_res_free(&res);
            api_rope_req_free(&r);
            if (rc != 0)
                return -1;
        }
        wire_jw_obj_end(out);
    }
    wire_jw_arr_end(out);
    return 0;
}

int api_rope(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    api_rope_req r;
    api_rope_res res;
    int rc = api_rope_eval(ctx, req, NULL, &r, &res, pb);
    if (rc == 0) {
        api_rope_write_open(out, &r, &res);
        if (r.kinds_listed)
            rc = write_kinds(ctx, req, &r.plan, out, pb);
        wire_jw_obj_end(out);
    }
    api_rope_res_free(&res);
    api_rope_req_free(&r);
    return rc;
}
