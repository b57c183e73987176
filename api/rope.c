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
#include "api/api.h"
#include "api/rope_req.h"

int api_rope(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    api_rope_req r;
    api_rope_res res;
    int rc = api_rope_eval(ctx, req, NULL, &r, &res, pb);
    if (rc == 0)
        api_rope_write(out, &r, &res);
    api_rope_res_free(&res);
    api_rope_req_free(&r);
    return rc;
}
