/*
 * fuzz/fuzz_rope_config.c -- libFuzzer harness for the config-paste resolver
 * (api_rope_config_resolve, api/rope_config.h) and the scaling-object parser
 * (api_rope_scaling_parse): bytes → JSON → resolver, with every skip mask derived from the input
 * length. Checks: the return value agrees with the problem; a success leaves the values it says it
 * set in their domains (integers >= 1, finite numbers, known enums, NUL-terminated texts); every
 * error's pointer lies inside the object parsed ("/config..."); the problem and the warnings
 * render as valid problem+json / JSON (UTF-8 intact after truncation).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/rope_config.h"
#include "fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static api_limits fz_lim;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz check failed: %s %s\n", what, detail ? detail : "");
    abort();
}

/* NUL within n bytes. */
static int terminated(const char *s, size_t n)
{
    return memchr(s, '\0', n) != NULL;
}

static void check_origin(const api_rc_origin *o, const char *ptr_prefix)
{
    if (!terminated(o->ptr, sizeof o->ptr) || !terminated(o->src, sizeof o->src))
        die("origin text not terminated", NULL);
    if (o->set && o->ptr[0] != '\0' && strncmp(o->ptr, ptr_prefix, strlen(ptr_prefix)) != 0)
        die("origin pointer outside the object:", o->ptr);
}

/* The problem renders as a valid problem+json; every pointer starts with prefix. */
static void check_problem(const api_problem *pb, const char *prefix)
{
    for (size_t i = 0; i < pb->n_errors; i++) {
        const char *p = pb->errors[i].pointer;
        if (!terminated(p, sizeof pb->errors[i].pointer))
            die("pointer not terminated", NULL);
        if (strncmp(p, prefix, strlen(prefix)) != 0)
            die("error pointer outside the object:", p);
    }
    api_response r;
    api_problem_response(pb, "fuzz", &r);
    char why[512];
    if (fz_check_response(&r, &fz_lim, why, sizeof why) != 0)
        die("problem response:", why);
    api_response_free(&r);
}

static void check_warnings(const api_rc_warnings *w)
{
    if (w->n > API_RC_MAX_WARNINGS)
        die("warning count", NULL);
    wire_jw jw;
    wire_jw_init(&jw, 1u << 20);
    wire_jw_arr_begin(&jw);
    for (size_t i = 0; i < w->n; i++) {
        if (!terminated(w->text[i], sizeof w->text[i]))
            die("warning not terminated", NULL);
        wire_jw_str(&jw, w->text[i]);
    }
    wire_jw_arr_end(&jw);
    size_t len = 0;
    char *s = wire_jw_take(&jw, &len);
    if (s == NULL)
        die("warnings did not render", NULL);
    json_error_t err;
    json_t *j = json_loadb(s, len, 0, &err);
    if (j == NULL)
        die("warnings are not valid JSON:", err.text);
    json_decref(j);
    free(s);
}

static void check_scaling(const api_rope_scaling *s, const char *prefix)
{
    if (!terminated(s->type_given, sizeof s->type_given) || !terminated(s->ptr, sizeof s->ptr))
        die("scaling text not terminated", NULL);
    check_origin(&s->type_origin, prefix);
    if (!s->present)
        return;
    if ((int)s->type < PE_ROPE_DEFAULT || (int)s->type > PE_ROPE_NTK)
        die("scaling type out of range", NULL);
    for (int f = 0; f < API_RS__COUNT; f++) {
        check_origin(&s->origin[f], prefix);
        if (s->origin[f].set && f != API_RS_SHORT_FACTOR && f != API_RS_LONG_FACTOR &&
            !isfinite(s->num[f]))
            die("scaling number not finite:", api_rs_field_name((api_rs_field)f));
    }
    for (int k = 0; k < 2; k++) {
        if (s->list[k] != NULL && !json_is_array(s->list[k]))
            die("scaling list not an array", NULL);
    }
}

static void run_resolver(const json_t *cfg, unsigned skip)
{
    api_problem pb;
    api_problem_init(&pb);
    api_rc_warnings w;
    memset(&w, 0, sizeof w);
    api_rope_config out;
    int rc = api_rope_config_resolve(&pb, cfg, "/config", skip, &out, &w);
    if ((rc == 0) == (api_problem_failed(&pb) != 0))
        die("return value disagrees with the problem", pb.detail);
    check_warnings(&w);
    if (rc < 0) {
        check_problem(&pb, "/config");
        return;
    }
    check_origin(&out.head_dim_o, "/config");
    check_origin(&out.rotary_dim_o, "/config");
    check_origin(&out.partial_o, "/config");
    check_origin(&out.base_o, "/config");
    check_origin(&out.layout_o, "/config");
    if (!out.layout_o.set)
        die("layout origin not set", NULL);
    if (out.head_dim_o.set && out.head_dim < 1)
        die("head_dim < 1", NULL);
    if (out.rotary_dim_o.set && out.rotary_dim < 1)
        die("rotary_dim < 1", NULL);
    if (out.partial_o.set && !isfinite(out.partial_rotary_factor))
        die("partial_rotary_factor not finite", NULL);
    if (out.base_o.set && !isfinite(out.base))
        die("base not finite", NULL);
    if (out.layout != PE_ROPE_HALF && out.layout != PE_ROPE_INTERLEAVED)
        die("layout out of range", NULL);
    if (out.max_position_embeddings < 0)
        die("max_position_embeddings < 0", NULL);
    if (!terminated(out.model_type, sizeof out.model_type))
        die("model_type not terminated", NULL);
    if ((skip & API_RC_SKIP_HEAD_DIM) && out.head_dim_o.set)
        die("head_dim read although skipped", NULL);
    if ((skip & API_RC_SKIP_BASE) && out.base_o.set)
        die("base read although skipped", NULL);
    if ((skip & API_RC_SKIP_SCALING) && out.scaling.present)
        die("scaling read although skipped", NULL);
    check_scaling(&out.scaling, "/config");
}

static void run_scaling(const json_t *obj, api_rs_mode mode, int phi3)
{
    api_problem pb;
    api_problem_init(&pb);
    api_rc_warnings w;
    memset(&w, 0, sizeof w);
    api_rope_scaling s;
    const char *prefix = mode == API_RS_STRICT ? "/scaling" : "/config/rope_scaling";
    int rc = api_rope_scaling_parse(&pb, obj, prefix,
                                    mode == API_RS_STRICT ? "request" : "config.rope_scaling", mode,
                                    phi3, NULL, &s, &w);
    if ((rc == 0) == (api_problem_failed(&pb) != 0))
        die("scaling: return value disagrees with the problem", pb.detail);
    check_warnings(&w);
    if (rc < 0)
        check_problem(&pb, prefix);
    else
        check_scaling(&s, prefix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fz_lim.max_dim == 0)
        fz_limits(&fz_lim);
    json_error_t err;
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &err);
    if (j == NULL)
        return 0;
    if (json_is_object(j)) {
        /* a whole request {"config": {...}} or a bare config */
        const json_t *cfg = json_object_get(j, "config");
        if (!json_is_object(cfg))
            cfg = j;
        run_resolver(cfg, 0);
        run_resolver(cfg, (unsigned)(size % 32));
        const json_t *rs = json_object_get(cfg, "rope_scaling");
        if (!json_is_object(rs))
            rs = json_object_get(j, "scaling");
        if (!json_is_object(rs))
            rs = j;
        run_scaling(rs, API_RS_STRICT, 0);
        run_scaling(rs, API_RS_LENIENT, (int)(size & 1));
    }
    json_decref(j);
    return 0;
}
