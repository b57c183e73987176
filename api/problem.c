/* api/problem.c -- see problem.h. */
#include "problem.h"

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
    if (pb->code == API_PB_NONE)
        pb->code = code;
    if (pb->n_errors >= API_PROBLEM_MAX_ERRORS) {
        pb->n_dropped++;
        return;
    }
    api_field_error *fe = &pb->errors[pb->n_errors++];
    snprintf(fe->pointer, sizeof fe->pointer, "%s", pointer ? pointer : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fe->message, sizeof fe->message, fmt, ap);
    va_end(ap);
    if (pb->detail[0] == '\0')
        snprintf(pb->detail, sizeof pb->detail, "%s: %s", fe->pointer[0] ? fe->pointer : "/",
                 fe->message);
}

void api_problem_write(const api_problem *pb, const char *instance, api_jw *w)
{
    char type[96];
    snprintf(type, sizeof type, "urn:posenc:problem:%s", api_problem_code_str(pb->code));
    api_jw_obj_begin(w);
    api_jw_key(w, "type");
    api_jw_str(w, type);
    api_jw_key(w, "title");
    api_jw_str(w, api_problem_title(pb->code));
    api_jw_key(w, "status");
    api_jw_int(w, api_problem_status(pb->code));
    api_jw_key(w, "detail");
    api_jw_str(w, pb->detail[0] ? pb->detail : api_problem_title(pb->code));
    if (instance && instance[0]) {
        char inst[128];
        snprintf(inst, sizeof inst, "urn:posenc:request:%s", instance);
        api_jw_key(w, "instance");
        api_jw_str(w, inst);
    }
    if (pb->n_errors > 0) {
        api_jw_key(w, "errors");
        api_jw_arr_begin(w);
        for (size_t i = 0; i < pb->n_errors; i++) {
            api_jw_obj_begin(w);
            if (pb->errors[i].pointer[0] || pb->code >= API_PB_INVALID_FIELD) {
                api_jw_key(w, "pointer");
                api_jw_str(w, pb->errors[i].pointer);
            }
            api_jw_key(w, "message");
            api_jw_str(w, pb->errors[i].message);
            api_jw_obj_end(w);
        }
        api_jw_arr_end(w);
    }
    api_jw_obj_end(w);
}
