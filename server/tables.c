/*
 * server/tables.c -- the learned-table routes over HTTP: the body streamed in, the answer out. The
 * rules and answers are api/tables.h's; this file only reads headers, feeds the body and keeps the
 * budget (request.h).
 */
#include <stdlib.h>

#include "server/negotiate.h"
#include "server/request.h"

enum MHD_Result srv_tables_list(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    api_response ar;
    api_tables_list(ctx->store, MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit"),
                    MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "after"), rq->request_id,
                    &ar);
    return srv_send_api(ctx, c, rq, &ar);
}

enum MHD_Result srv_table(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    const char *name = rq->path + sizeof "/tables/" - 1;
    api_response ar;
    if (rq->method[0] == 'D') { /* DELETE */
        api_table_delete(ctx->store, name, rq->request_id, &ar);
    } else {
        const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
        api_table_get(ctx->store, name, srv_accept_npy(accept), rq->request_id, &ar);
    }
    return srv_send_api(ctx, c, rq, &ar);
}

/* JSON and .npy bodies are buffered up to max_body_bytes; .safetensors is streamed with no body
 * cap (the kept tensor is bounded by max_table_bytes instead). Both count against the budget: a
 * declared length that does not fit is refused here (srv_req_fits), a buffered body is reserved as
 * it arrives (srv_append_body), the streamed parser reserves its header, then its table. */
enum MHD_Result srv_table_put_headers(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq,
                                      const char *name)
{
    rq->label = "table_put";
    if (atomic_load(&ctx->draining))
        return srv_send_problem(ctx, c, rq, API_PB_SHUTTING_DOWN, "the server is draining", NULL);
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    const char *tensor = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "tensor");
    unsigned long long declared = srv_declared_length(c);
    api_response ar;
    if (api_table_upload_begin(&rq->up, ctx->store, &ctx->cfg->lim, name, srv_table_format(ct),
                               tensor, declared, rq->request_id, &ar) < 0)
        return srv_send_api(ctx, c, rq, &ar);
    if (rq->up.st != NULL) {
        wire_st_set_hold(rq->up.st, srv_st_hold, rq); /* what it keeps counts against the budget */
        return MHD_YES;
    }
    rq->declared = (size_t)declared;
    if (srv_req_fits(ctx, rq, rq->declared) < 0) /* before any of the body is read */
        return srv_send_overloaded(ctx, c, rq);
    return MHD_YES;
}

enum MHD_Result srv_table_put_finish(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (rq->too_big)
        return srv_send_too_big(ctx, c, rq);
    if (rq->overloaded) /* the body was discarded: nothing is parsed or stored */
        return srv_send_overloaded(ctx, c, rq);
    api_response ar;
    int rc = api_table_upload_parse(&rq->up, &ctx->cfg->lim, rq->buf, rq->len, rq->request_id, &ar);
    free(rq->buf);
    rq->buf = NULL;
    if (rq->up.st == NULL || rc < 0) /* the body buffer is gone (a failed stream's too) */
        srv_budget_hold(&ctx->budget, &rq->held, 0, NULL);
    if (rc < 0)
        return srv_send_api(ctx, c, rq, &ar);
    api_table_upload_store(&rq->up, ctx->store, rq->request_id, &ar);
    srv_budget_hold(&ctx->budget, &rq->held, 0, NULL); /* a streamed table: stored or freed now */
    return srv_send_api(ctx, c, rq, &ar);
}
