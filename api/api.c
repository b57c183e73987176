/* api/api.c -- the compute operations and the request → response driver. See api.h. */
#include "api/api.h"
#include "api/warn_header.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wire/npz.h"
/* The main array of each route for `Accept: application/x-npy` (api.h api_route.npy): the first
 * key present in the response wins. Masked cells: -inf in biases and scores, 0 in weights. */
static const wire_npy_key NPY_MATRIX[] = {{"matrix", 0.0}, {NULL, 0.0}};
static const wire_npy_key NPY_ROPE[] = {
    {"scores", -INFINITY},
    {"q_rotated", 0.0},
    {"k_rotated", 0.0},
    {"cos", 0.0},
    {"inv_freq", 0.0},
    {"sin", 0.0},
    {"cos_hf", 0.0},
    {"sin_hf", 0.0},
    {"positions", 0.0},
    {"q_positions", 0.0},
    {"k_positions", 0.0},
    {"axis_freqs", 0.0},
    {NULL, 0.0}}; /* axis_freqs: every multi-axis answer has it (mixed has no inv_freq) */
static const wire_npy_key NPY_ALIBI[] = {
    {"output", 0.0}, {"weights", 0.0}, {"bias", -INFINITY}, {"slopes", 0.0}, {NULL, 0.0}};
static const wire_npy_key NPY_ATTENTION[] = {{"output", 0.0}, {"weights", 0.0}, {NULL, 0.0}};
static const wire_npy_key NPY_T5[] = {{"buckets", 0.0}, {NULL, 0.0}};

/* counts_work: /sinusoidal, /rope and /alibi check all their work with api_check_work; /attention
 * (its learned method reads stored tables), /t5/buckets, /learned and /model/method do not */
const api_route api_route_sinusoidal = {api_sinusoidal, NPY_MATRIX, 1};
const api_route api_route_rope = {api_rope, NPY_ROPE, 1};
const api_route api_route_alibi = {api_alibi, NPY_ALIBI, 1};
const api_route api_route_attention = {api_attention, NPY_ATTENTION, 0};
const api_route api_route_t5_buckets = {api_t5_buckets, NPY_T5, 0};
const api_route api_route_learned = {api_learned, NPY_MATRIX, 0};
const api_route api_route_model_method = {api_model_method, NULL, 0};

static const struct {
    const char *path;
    const api_route *route;
} BY_PATH[] = {
    {"/sinusoidal", &api_route_sinusoidal},
    {"/rope", &api_route_rope},
    {"/alibi", &api_route_alibi},
    {"/attention", &api_route_attention},
    {"/t5/buckets", &api_route_t5_buckets},
    {"/learned", &api_route_learned},
    {"/model/method", &api_route_model_method},
};

const char *api_route_path(size_t i)
{
    return i < sizeof BY_PATH / sizeof BY_PATH[0] ? BY_PATH[i].path : NULL;
}

const api_route *api_route_named(const char *path)
{
    for (size_t i = 0; path && i < sizeof BY_PATH / sizeof BY_PATH[0]; i++) {
        if (strcmp(BY_PATH[i].path, path) == 0)
            return BY_PATH[i].route;
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
    wire_stream_free(r->stream);
    r->stream = NULL;
    free(r->warnings);
    r->warnings = NULL;
}

size_t api_response_held(const api_response *r)
{
    if (r->stream == NULL)
        return r->body ? r->len : 0;
    uint64_t held = wire_stream_held(r->stream);
    return held > SIZE_MAX ? SIZE_MAX : (size_t)held;
}

static const char OOM_BODY[] =
    "{\"type\":\"urn:posenc:problem:unavailable\",\"title\":\"Service unavailable\","
    "\"status\":503,\"detail\":\"out of memory\"}";

void api_problem_response(const api_problem *pb, const char *request_id, api_response *out)
{
    wire_jw w;
    wire_jw_init(&w, 1u << 16);
    api_problem_write(pb, request_id, &w);
    out->stream = NULL;
    out->npy_array = NULL;
    out->warnings = NULL;
    out->n_headers = 0;
    if (pb->code == API_PB_OVERLOADED) { /* a retry soon is expected to work */
        out->headers[0].name = "Retry-After";
        snprintf(out->headers[0].value, sizeof out->headers[0].value, "1");
        out->n_headers = 1;
    }
    out->status = api_problem_status(pb->code);
    out->content_type = "application/problem+json";
    out->body = wire_jw_take(&w, &out->len);
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

/* Takes "dtype" out of req: 1 = float32, 0 = float64 (or absent), -1 = invalid (pb filled). */
static int take_dtype(json_t *req, int npy, api_problem *pb)
{
    const json_t *v = json_object_get(req, "dtype");
    if (v == NULL || json_is_null(v)) {
        json_object_del(req, "dtype");
        return 0;
    }
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    int f32 = s && strcmp(s, "float32") == 0;
    if (s == NULL || (!f32 && strcmp(s, "float64") != 0)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/dtype",
                          "dtype must be \"float64\" or \"float32\"");
        return -1;
    }
    if (f32 && !npy) {
        api_problem_field(
            pb, API_PB_INVALID_FIELD, "/dtype",
            "dtype \"float32\" applies to .npy responses (Accept: application/x-npy); "
            "JSON numbers are always float64"); /* and to .npz: wording kept (replay) */
        return -1;
    }
    json_object_del(req, "dtype");
    return f32;
}

/* The arrays a binary answer may hold, named by the `array` query parameter. */
#define API_MAX_ARRAYS 16
/* The most warnings a binary answer's X-Posenc-Warnings carries (resolving keeps 8, plus one "(N
 * more warnings omitted)", plus what the route adds). */
#define API_MAX_NOTES 32

/*
 * Fills sel (NULL-key ended) with the keys of route list `keys` that opts->array names
 * (comma-separated), in the route's order; without opts->array sel is not touched and 0 is
 * returned. -1 with pb filled: a name the route does not have, several names for .npy, an empty
 * choice, or a choice for a JSON answer (never ignored).
 */
static int select_arrays(const wire_npy_key *keys, const api_opts *opts, int bin, wire_npy_key *sel,
                         api_problem *pb)
{
    const char *a = opts->array;
    if (a == NULL)
        return 0;
    if (keys == NULL || !bin) {
        api_problem_set(pb, API_PB_INVALID_FIELD,
                        "query parameter array: a choice of arrays applies to binary answers "
                        "(Accept: application/x-npy or application/x-npz)%s",
                        keys == NULL ? ", which this route does not give" : "");
        return -1;
    }
    int want[API_MAX_ARRAYS] = {0};
    size_t n_keys = 0, n_want = 0;
    while (keys[n_keys].key && n_keys < API_MAX_ARRAYS)
        n_keys++;
    for (const char *p = a;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t i = 0;
        while (i < n_keys && !(strlen(keys[i].key) == len && strncmp(keys[i].key, p, len) == 0))
            i++;
        if (i == n_keys) {
            char names[256] = "";
            for (size_t j = 0; j < n_keys; j++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "",
                         keys[j].key);
            api_problem_set(pb, API_PB_INVALID_FIELD,
                            "query parameter array: \"%.*s\" is not an array of this route "
                            "(one of: %s)",
                            (int)(len > 64 ? 64 : len), p, names);
            return -1;
        }
        n_want += !want[i];
        want[i] = 1;
        if (end == NULL)
            break;
        p = end + 1;
    }
    if (!opts->npz && n_want > 1) {
        api_problem_set(pb, API_PB_INVALID_FIELD,
                        "query parameter array: application/x-npy holds one array; ask for "
                        "application/x-npz to get several");
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n_keys; i++) {
        if (want[i])
            sel[k++] = keys[i];
    }
    sel[k] = (wire_npy_key){NULL, 0.0};
    return 1;
}

/* 1 when every chosen array is in the answer; else 0 with pb filled. */
static int selection_present(const wire_jw *w, const wire_npy_key *sel, api_problem *pb)
{
    for (size_t i = 0; sel[i].key; i++) {
        if (!wire_jw_npy_has(w, sel[i].key)) {
            api_problem_set(pb, API_PB_INVALID_FIELD,
                            "query parameter array: the answer to this request has no array "
                            "\"%s\" (see docs/api.md#binary-answers for what asks for it)",
                            sel[i].key);
            return 0;
        }
    }
    return 1;
}

/* Bodies up to this size are sent from one buffer even when streaming is allowed. */
#define STREAM_MIN_BYTES 65536u

/* Answers a body that jansson could not parse (api_body_parse_failed). */
static void parse_failed(const api_ctx *ctx, const api_arena *arena, const json_error_t *err,
                         size_t len, const char *request_id, api_response *out)
{
    api_problem pb;
    api_problem_init(&pb);
    api_body_parse_failed(&pb, arena, err, len, ctx->lim);
    api_problem_response(&pb, request_id, out);
}

static void handle_parsed(const api_ctx *ctx, api_handler h, const wire_npy_key *keys, json_t *req,
                          const char *request_id, const api_opts *opts, int defer,
                          api_response *out);

/* Parses the body into an arena of its own (api/arena.h) and runs the handler; every jansson
 * allocation of this request is released when it returns. counts_work: the route's (api_route);
 * with opts->defer_work below max_work the handler runs under that bound instead, and a request
 * over it comes back deferred (api_opts). */
static void handle(const api_ctx *ctx, api_handler h, const wire_npy_key *keys, int counts_work,
                   const char *body, size_t len, const char *request_id, const api_opts *opts,
                   api_response *out)
{
    api_opts none = {0};
    if (opts == NULL)
        opts = &none;
    memset(out, 0, sizeof *out);
    api_limits lowered;
    api_ctx lowered_ctx;
    int defer = counts_work && opts->defer_work != 0 && opts->defer_work < ctx->lim->max_work;
    if (defer) {
        lowered = *ctx->lim;
        lowered.max_work = opts->defer_work;
        lowered_ctx = *ctx;
        lowered_ctx.lim = &lowered;
        ctx = &lowered_ctx;
    }
    api_arena arena;
    api_arena_begin(&arena, ctx->lim->max_parse_bytes, opts->hold, opts->hold_cls);
    json_error_t err;
    memset(&err, 0, sizeof err);
    json_t *req = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (req == NULL)
        parse_failed(ctx, &arena, &err, len, request_id, out);
    else
        handle_parsed(ctx, h, keys, req, request_id, opts, defer, out);
    /* req is not released value by value (json_decref walks the whole tree and frees each value
     * and array): the tree lives in the arena, which api_arena_end frees at once */
    if (!out->deferred && out->status != 200 && api_arena_failure_of(&arena) != API_ARENA_OK) {
        /* the handler ran out of JSON memory (an answer built with jansson): say so, not what the
         * handler made of a failed allocation */
        api_response_free(out);
        parse_failed(ctx, &arena, &err, len, request_id, out);
    }
    api_arena_end(&arena);
}

static void handle_parsed(const api_ctx *ctx, api_handler h, const wire_npy_key *keys, json_t *req,
                          const char *request_id, const api_opts *opts, int defer,
                          api_response *out)
{
    int npz = opts->npz && keys != NULL;
    int npy = (opts->npy || npz) && keys != NULL; /* a binary answer */
    api_problem pb;
    api_problem_init(&pb);
    if (keys == NULL && opts->json_refused) { /* a JSON-only route (/model/method) */
        api_problem_set(&pb, API_PB_NOT_ACCEPTABLE,
                        "this route answers application/json only, which Accept does not allow "
                        "(it has no array for application/x-npy or application/x-npz)");
        json_decref(req);
        api_problem_response(&pb, request_id, out);
        return;
    }
    wire_npy_key sel[API_MAX_ARRAYS + 1];
    int chosen = select_arrays(keys, opts, opts->npy || opts->npz, sel, &pb);
    if (chosen < 0) {
        api_problem_response(&pb, request_id, out);
        return;
    }
    if (chosen)
        keys = sel;
    if (!json_is_object(req)) {
        api_problem_field(&pb, API_PB_INVALID_FIELD, "", "the request body must be a JSON object");
        api_problem_response(&pb, request_id, out);
        return;
    }
    /* a route without an array body (/model/method) has no dtype: a pasted config's own
     * "dtype": "bfloat16" is its data */
    int f32 = keys != NULL ? take_dtype(req, npy, &pb) : 0;
    if (f32 < 0) {
        api_problem_response(&pb, request_id, out);
        return;
    }
    wire_jw w;
    wire_jw_mode mode = npy ? WIRE_JW_NPY : opts->stream ? WIRE_JW_STREAM : WIRE_JW_BUFFER;
    size_t max = api_max_response_bytes(ctx->lim);
    wire_jw_init_mode(&w, max, mode, keys);
    if (npz && wire_jw_npy_multi(&w) < 0)
        api_problem_set(&pb, API_PB_UNAVAILABLE, "out of memory");
    int rc = api_problem_failed(&pb) ? -1 : h(ctx, req, &w, &pb);
    if (defer && pb.over_work) { /* over the caller's lower bound: not answered here */
        wire_jw_free(&w);
        out->deferred = 1;
        return;
    }
    if (rc == 0 && !api_problem_failed(&pb) && wire_jw_ok(&w) && !w.nonfinite &&
        (!chosen || selection_present(&w, keys, &pb))) {
        wire_stream *s = NULL;
        if (npy) {
            /* the answer's warnings, which no .npy holds, go out in a header */
            const char *notes[API_MAX_NOTES];
            size_t nn = wire_jw_npy_notes(&w, notes, API_MAX_NOTES);
            if (nn > 0 && (out->warnings = api_warnings_header(notes, nn)) == NULL) {
                wire_jw_free(&w);
                api_simple_problem(API_PB_UNAVAILABLE, "out of memory", request_id, out);
                return;
            }
            wire_err we;
            wire_err_init(&we);
            s = npz ? wire_stream_npz(&w, f32, &we) : wire_stream_npy(&w, f32, &we);
            api_problem_from_wire(&pb, &we);
        } else if (wire_jw_deferred(&w))
            s = wire_stream_json(&w);
        else
            out->body = wire_jw_take(&w, &out->len);
        if (s != NULL) {
            out->npy_array = wire_stream_array(s);
            if (opts->stream && wire_stream_size(s) > STREAM_MIN_BYTES)
                out->stream = s;
            else
                out->body = wire_stream_drain(s, api_max_response_bytes(ctx->lim), &out->len);
        }
        if (out->body != NULL || out->stream != NULL) {
            out->status = 200;
            out->content_type = npz   ? "application/x-npz"
                                : npy ? "application/x-npy"
                                      : "application/json";
            return;
        }
        free(out->warnings); /* no answer to carry them */
        out->warnings = NULL;
        if (!api_problem_failed(&pb))
            api_problem_set(&pb, API_PB_UNAVAILABLE, "out of memory while writing the response");
    } else if (!api_problem_failed(&pb)) {
        if (w.nonfinite)
            api_problem_field(
                &pb, API_PB_INVALID_FIELD, "",
                "the inputs produce a non-finite result (overflow); use smaller values");
        else
            api_problem_field(&pb, API_PB_LIMIT_EXCEEDED, "",
                              "the response would exceed its size limit (max_output_elements %zu)",
                              ctx->lim->max_output_elements);
    }
    wire_jw_free(&w);
    api_problem_response(&pb, request_id, out);
}

void api_handle(const api_ctx *ctx, api_handler h, const char *body, size_t len,
                const char *request_id, api_response *out)
{
    handle(ctx, h, NULL, 0, body, len, request_id, NULL, out);
}

void api_handle_route(const api_ctx *ctx, const api_route *route, const char *body, size_t len,
                      const char *request_id, const api_opts *opts, api_response *out)
{
    handle(ctx, route->handler, route->npy, route->counts_work, body, len, request_id, opts, out);
}
