/*
 * server/tables.c -- the learned-table routes over HTTP: the body streamed in, the answer out. The
 * rules and answers are api/tables.h's; this file only reads headers, feeds the body and keeps the
 * budget (request.h).
 */
#include <stdlib.h>

#include "server/negotiate.h"
#include "server/pool.h"
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
    if (!srv_body_encoding_ok(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding")))
        return srv_send_problem(ctx, c, rq, API_PB_UNSUPPORTED_MEDIA_TYPE,
                                "Content-Encoding is not supported: send the table uncompressed "
                                "(no Content-Encoding, or identity)",
                                NULL);
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

/* Parses and stores the upload into rq->ar (on a pool thread, or inline) and gives back what it
 * held in the budget. */
static void table_put_work(srv_req *rq)
{
    srv_ctx *ctx = rq->ctx;
    int rc =
        api_table_upload_parse(&rq->up, &ctx->cfg->lim, rq->buf, rq->len, rq->request_id, &rq->ar);
    free(rq->buf);
    rq->buf = NULL;
    if (rq->up.st == NULL || rc < 0) /* the body buffer is gone (a failed stream's too) */
        srv_budget_hold(&ctx->budget, &rq->held, 0, NULL);
    if (rc < 0)
        return;
    api_table_upload_store(&rq->up, ctx->store, rq->request_id, &rq->ar);
    srv_budget_hold(&ctx->budget, &rq->held, 0, NULL); /* a streamed table: stored or freed now */
}

/* The pool job of an upload: parse, store, then resume the connection (MHD calls the access
 * handler again, which sends rq->ar). */
static void table_put_job(void *arg)
{
    srv_req *rq = arg;
    table_put_work(rq);
    MHD_resume_connection(rq->conn);
}

/* Parsing (jansson's tree of a 16 MiB body takes a second) and storing (write and fsync) run on
 * the compute pool with the connection suspended, so that /healthz and the other connections of
 * this HTTP thread are served meanwhile; the compute queue's bound applies. */
enum MHD_Result srv_table_put_finish(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    if (rq->submitted) /* resumed: the job parsed and stored */
        return srv_send_api(ctx, c, rq, &rq->ar);
    if (rq->too_big)
        return srv_send_too_big(ctx, c, rq);
    if (rq->overloaded) /* the body was discarded: nothing is parsed or stored */
        return srv_send_overloaded(ctx, c, rq);
    if (ctx->pool != NULL && srv_pool_reserve(ctx->pool) != 0)
        return srv_send_queue_full(ctx, c, rq);
    rq->conn = c;
    rq->submitted = 1;
    if (ctx->pool != NULL) {
        MHD_suspend_connection(c);
        if (srv_pool_submit(ctx->pool, table_put_job, rq) != 0)
            table_put_job(rq);
        return MHD_YES;
    }
    table_put_work(rq);
    return srv_send_api(ctx, c, rq, &rq->ar);
}
