/* api/problem.c -- see problem.h. */
#include "api/problem.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *code;
    int status;
    const char *title;
} PB_TABLE[] = {
#define API__PB_ROW(e, code, status, title) {code, status, title},
    API_PROBLEM_MAP(API__PB_ROW)
#undef API__PB_ROW
};

void api_problem_init(api_problem *pb)
{
    memset(pb, 0, sizeof *pb);
}

size_t api_problem_count(const api_problem *pb)
{
    return pb->n_errors + pb->n_dropped;
}

int api_problem_failed(const api_problem *pb)
{
    return pb->code != API_PB_NONE;
}

int api_problem_status(api_problem_code code)
{
    return (unsigned)code < API_PB__COUNT ? PB_TABLE[code].status : 500;
}

const char *api_problem_code_str(api_problem_code code)
{
    return (unsigned)code < API_PB__COUNT ? PB_TABLE[code].code : "internal";
}

const char *api_problem_title(api_problem_code code)
{
    return (unsigned)code < API_PB__COUNT ? PB_TABLE[code].title : "Internal error";
}

void api_problem_set(api_problem *pb, api_problem_code code, const char *fmt, ...)
{
    if (pb->code == API_PB_NONE)
        pb->code = code;
    if (pb->detail[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(pb->detail, sizeof pb->detail, fmt, ap);
        va_end(ap);
    }
}

void api_problem_field(api_problem *pb, api_problem_code code, const char *pointer, const char *fmt,
                       ...)
{
    va_list ap;
    va_start(ap, fmt);
    api_problem_vfield(pb, code, pointer, fmt, ap);
    va_end(ap);
}

void api_problem_vfield(api_problem *pb, api_problem_code code, const char *pointer,
                        const char *fmt, va_list ap)
{
    if (pb->code == API_PB_NONE)
        pb->code = code;
    if (pb->n_errors >= API_PROBLEM_MAX_ERRORS) {
        pb->n_dropped++;
        return;
    }
    api_field_error *fe = &pb->errors[pb->n_errors++];
    snprintf(fe->pointer, sizeof fe->pointer, "%s", pointer ? pointer : "");
    vsnprintf(fe->message, sizeof fe->message, fmt, ap);
    if (pb->detail[0] == '\0')
        snprintf(pb->detail, sizeof pb->detail, "%s: %s", fe->pointer[0] ? fe->pointer : "/",
                 fe->message);
}

void api_problem_from_wire(api_problem *pb, const wire_err *e)
{
    static const api_problem_code CODE[] = {
        [WIRE_OK] = API_PB_NONE,
        [WIRE_EINVALID] = API_PB_INVALID_FIELD,
        [WIRE_ELIMIT] = API_PB_LIMIT_EXCEEDED,
        [WIRE_ENOMEM] = API_PB_UNAVAILABLE,
        [WIRE_EREFUSED] = API_PB_OVERLOADED,
        [WIRE_EINTERNAL] = API_PB_INTERNAL,
    };
    if (e->status == WIRE_OK)
        return;
    api_problem_code code =
        (unsigned)e->status < sizeof CODE / sizeof CODE[0] ? CODE[e->status] : API_PB_INTERNAL;
    if (!e->has_pointer || e->pointer[0] == '\0')
        api_problem_set(pb, code, "%s", e->detail);
    if (e->has_pointer)
        api_problem_field(pb, code, e->pointer, "%s", e->detail);
}

void api_problem_write(const api_problem *pb, const char *instance, wire_jw *w)
{
    char type[96];
    snprintf(type, sizeof type, "urn:posenc:problem:%s", api_problem_code_str(pb->code));
    wire_jw_obj_begin(w);
    wire_jw_key(w, "type");
    wire_jw_str(w, type);
    wire_jw_key(w, "title");
    wire_jw_str(w, api_problem_title(pb->code));
    wire_jw_key(w, "status");
    wire_jw_int(w, api_problem_status(pb->code));
    wire_jw_key(w, "detail");
    wire_jw_str(w, pb->detail[0] ? pb->detail : api_problem_title(pb->code));
    if (instance && instance[0]) {
        char inst[128];
        snprintf(inst, sizeof inst, "urn:posenc:request:%s", instance);
        wire_jw_key(w, "instance");
        wire_jw_str(w, inst);
    }
    if (pb->n_errors > 0) {
        wire_jw_key(w, "errors");
        wire_jw_arr_begin(w);
        for (size_t i = 0; i < pb->n_errors; i++) {
            wire_jw_obj_begin(w);
            if (pb->errors[i].pointer[0] || pb->code >= API_PB_INVALID_FIELD) {
                wire_jw_key(w, "pointer");
                wire_jw_str(w, pb->errors[i].pointer);
            }
            wire_jw_key(w, "message");
            wire_jw_str(w, pb->errors[i].message);
            wire_jw_obj_end(w);
        }
        wire_jw_arr_end(w);
    }
    wire_jw_obj_end(w);
}
