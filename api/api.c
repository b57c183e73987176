/* api/api.c -- routing table and the request → response driver. See api.h. */
#include "api.h"

#include <stdlib.h>
#include <string.h>

static const api_route ROUTES[] = {
    {"/sinusoidal", "sinusoidal", api_sinusoidal},
    {"/rope", "rope", api_rope},
    {"/alibi", "alibi", api_alibi},
    {"/attention", "attention", api_attention},
    {"/t5/buckets", "t5_buckets", api_t5_buckets},
    {"/learned", "learned", api_learned},
    {NULL, NULL, NULL},
};

const api_route *api_routes(void)
{
    return ROUTES;
}

const api_route *api_route_find(const char *path)
{
    for (const api_route *r = ROUTES; r->path; r++) {
        if (strcmp(r->path, path) == 0)
            return r;
    }
    return NULL;
}

size_t api_max_response_bytes(const api_limits *lim)
{
    size_t n = lim->max_output_elements;
    if (n > ((size_t)-1 - (1u << 20)) / 32)
        return (size_t)-1;
    return n * 32 + (1u << 20);
}

void api_response_free(api_response *r)
{
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

static const char OOM_BODY[] =
    "{\"type\":\"urn:posenc:problem:unavailable\",\"title\":\"Service unavailable\","
    "\"status\":503,\"detail\":\"out of memory\"}";

void api_problem_response(const api_problem *pb, const char *request_id, api_response *out)
{
    api_jw w;
    api_jw_init(&w, 1u << 16);
    api_problem_write(pb, request_id, &w);
    out->status = api_problem_status(pb->code);
    out->content_type = "application/problem+json";
    out->body = api_jw_take(&w, &out->len);
    if (out->body == NULL) {
        out->status = 503;
        out->body = malloc(sizeof OOM_BODY);
        if (out->body) {
            memcpy(out->body, OOM_BODY, sizeof OOM_BODY);
            out->len = sizeof OOM_BODY - 1;
        }
    }
}

void api_simple_problem(api_problem_code code, const char *detail, const char *request_id,
                        api_response *out)
{
    api_problem pb;
    api_problem_init(&pb);
    api_problem_set(&pb, code, "%s", detail);
    api_problem_response(&pb, request_id, out);
}

void api_handle(const api_ctx *ctx, api_handler h, const char *body, size_t len,
                const char *request_id, api_response *out)
{
    api_problem pb;
    api_problem_init(&pb);
    json_error_t err;
    json_t *req = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES, &err);
    if (req == NULL) {
        api_problem_set(&pb, API_PB_MALFORMED_JSON, "malformed JSON at line %d, column %d: %s",
                        err.line, err.column, err.text);
        api_problem_response(&pb, request_id, out);
        return;
    }
    if (!json_is_object(req)) {
        api_problem_field(&pb, API_PB_INVALID_FIELD, "", "the request body must be a JSON object");
        json_decref(req);
        api_problem_response(&pb, request_id, out);
        return;
    }
    api_jw w;
    api_jw_init(&w, api_max_response_bytes(ctx->lim));
    int rc = h(ctx, req, &w, &pb);
    json_decref(req);
    if (rc == 0 && !api_problem_failed(&pb) && api_jw_ok(&w) && !w.nonfinite) {
        out->status = 200;
        out->content_type = "application/json";
        out->body = api_jw_take(&w, &out->len);
        if (out->body != NULL)
            return;
        api_problem_set(&pb, API_PB_UNAVAILABLE, "out of memory while writing the response");
    } else if (!api_problem_failed(&pb)) {
        if (w.nonfinite)
            api_problem_field(&pb, API_PB_INVALID_FIELD, "",
                              "the inputs produce a non-finite result (overflow); use smaller values");
        else
            api_problem_set(&pb, API_PB_LIMIT_EXCEEDED,
                            "the response would exceed its size limit (max_output_elements)");
    }
    api_jw_free(&w);
    api_problem_response(&pb, request_id, out);
}
