/* server/service.c -- the service routes: /healthz, /readyz, /limits, /version, /metrics,
 * /openapi.yaml (GET and HEAD; routes.c lists them). */
#include <stdio.h>
#include <stdlib.h>

#include "server/routes.h"

enum MHD_Result srv_get_healthz(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    return srv_send_text(ctx, c, rq, 200, "application/json", "{\"status\":\"ok\"}");
}

enum MHD_Result srv_get_readyz(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (atomic_load(&ctx->draining))
        return srv_send_problem(ctx, c, rq, API_PB_SHUTTING_DOWN, "the server is draining", NULL);
    return srv_send_text(ctx, c, rq, 200, "application/json", "{\"status\":\"ready\"}");
}

enum MHD_Result srv_get_limits(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    const api_limits *l = &ctx->cfg->lim;
    char tmp[640];
    snprintf(tmp, sizeof tmp,
             "{\"max_body_bytes\":%zu,\"max_table_bytes\":%zu,\"max_output_elements\":%zu,"
             "\"max_dim\":%zu,\"max_heads\":%zu,\"max_positions\":%zu,\"max_position\":%lld,"
             "\"max_work\":%zu,\"max_inflight_bytes\":%zu,\"max_parse_bytes\":%zu}",
             l->max_body_bytes, l->max_table_bytes, l->max_output_elements, l->max_dim,
             l->max_heads, l->max_positions, (long long)l->max_position, l->max_work,
             l->max_inflight_bytes, l->max_parse_bytes);
    return srv_send_text(ctx, c, rq, 200, "application/json", tmp);
}

enum MHD_Result srv_get_version(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    char tmp[640];
    snprintf(tmp, sizeof tmp,
             "{\"name\":\"posenc\",\"version\":\"%s\",\"git_revision\":\"%s\","
             "\"build\":{\"compiler\":\"%s\",\"date\":\"%s\"},"
             "\"libraries\":{\"libmicrohttpd\":\"%s\",\"jansson\":\"%s\"}}",
             POSENC_VERSION, POSENC_GIT_REV, __VERSION__, __DATE__, MHD_get_version(),
             jansson_version_str());
    return srv_send_text(ctx, c, rq, 200, "application/json", tmp);
}

enum MHD_Result srv_get_metrics(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    size_t len = 0;
    char *b = srv_metrics_render(ctx->metrics, ctx->api.cache, &ctx->budget, &len);
    if (b == NULL)
        return srv_send_problem(ctx, c, rq, API_PB_UNAVAILABLE, "out of memory", NULL);
    return srv_send_buffer(ctx, c, rq, 200, "text/plain; version=0.0.4; charset=utf-8", b, len);
}

enum MHD_Result srv_get_spec(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (ctx->spec == NULL)
        return srv_send_problem(ctx, c, rq, API_PB_NOT_FOUND, "openapi.yaml is not available",
                                NULL);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(ctx->spec_len, ctx->spec, MHD_RESPMEM_PERSISTENT);
    rq->resp_bytes = ctx->spec_len;
    return srv_send_resp(ctx, c, rq, 200, resp, "application/yaml");
}
