/* tests/lib/api_util.c -- see api_util.h. */
#include "tests/lib/api_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache.h"
#include "server/routes.h"

api_limits au_lim;
api_ctx au_ctx;

/* ---- fixture ------------------------------------------------------------------------------- */

void au_open(size_t cache_bytes, size_t cache_rows)
{
    api_limits_default(&au_lim);
    memset(&au_ctx, 0, sizeof au_ctx);
    au_ctx.lim = &au_lim;
    au_ctx.cache = pe_cache_create(cache_bytes, cache_rows);
    ck_assert_ptr_nonnull(au_ctx.cache);
}

void au_setup(void)
{
    au_open((size_t)1 << 24, 4096);
}

void au_teardown(void)
{
    pe_cache_destroy(au_ctx.cache);
    au_ctx.cache = NULL;
}

/* ---- requests ------------------------------------------------------------------------------ */

char *au_dq(const char *body_sq)
{
    char *r = strdup(body_sq);
    ck_assert_ptr_nonnull(r);
    for (char *p = r; *p; p++)
        if (*p == '\'')
            *p = '"';
    return r;
}

char *au_send(api_handler h, const char *json, int *status)
{
    api_response r;
    memset(&r, 0, sizeof r);
    api_handle(&au_ctx, h, json, strlen(json), "t", &r);
    ck_assert_msg(r.body != NULL, "status %d without a body for %s", r.status, json);
    char *text = malloc(r.len + 1);
    ck_assert_ptr_nonnull(text);
    memcpy(text, r.body, r.len);
    text[r.len] = '\0';
    *status = r.status;
    api_response_free(&r);
    return text;
}

json_t *au_parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    ck_assert_msg(j != NULL, "response is not JSON: %s", text);
    return j;
}

json_t *au_call(api_handler h, const char *body_sq, int *status)
{
    char *body = au_dq(body_sq);
    char *text = au_send(h, body, status);
    json_t *j = au_parse(text);
    free(text);
    free(body);
    return j;
}

json_t *au_ok(api_handler h, const char *body_sq)
{
    int st = 0;
    json_t *j = au_call(h, body_sq, &st);
    if (st != 200) {
        char *s = json_dumps(j, 0);
        ck_abort_msg("status %d for %s: %s", st, body_sq, s);
    }
    return j;
}

/* The checks of au_expect_422 (code) and au_expect_422_msg (needle); either may be NULL. */
static void expect_problem(api_handler h, const char *body_sq, const char *ptr, const char *code,
                           const char *needle)
{
    int st = 0;
    json_t *j = au_call(h, body_sq, &st);
    char *s = json_dumps(j, 0);
    ck_assert_msg(st == 422, "status %d, want 422, for %s: %s", st, body_sq, s);
    json_t *e0 = json_array_get(json_object_get(j, "errors"), 0);
    const char *got = json_string_value(json_object_get(e0, "pointer"));
    ck_assert_msg(got && strcmp(got, ptr) == 0, "pointer %s, want %s, for %s: %s",
                  got ? got : "(none)", ptr, body_sq, s);
    const char *msg = json_string_value(json_object_get(e0, "message"));
    ck_assert_msg(msg != NULL && msg[0] != '\0', "no message for %s: %s", body_sq, s);
    if (code) {
        char want[96];
        snprintf(want, sizeof want, "urn:posenc:problem:%s", code);
        const char *type = json_string_value(json_object_get(j, "type"));
        ck_assert_msg(type && strcmp(type, want) == 0, "type %s, want %s, for %s: %s",
                      type ? type : "(none)", want, body_sq, s);
    }
    if (needle)
        ck_assert_msg(strstr(msg, needle) != NULL, "message lacks \"%s\" for %s: %s", needle,
                      body_sq, s);
    free(s);
    json_decref(j);
}

void au_expect_422(api_handler h, const char *body_sq, const char *ptr, const char *code)
{
    expect_problem(h, body_sq, ptr, code, NULL);
}

void au_expect_422_msg(api_handler h, const char *body_sq, const char *ptr, const char *needle)
{
    expect_problem(h, body_sq, ptr, NULL, needle);
}

/* ---- reading responses --------------------------------------------------------------------- */

double au_number(const json_t *v)
{
    ck_assert_msg(json_is_number(v), "not a number");
    return json_number_value(v);
}

json_t *au_at(const json_t *j, const char *key, int i0, int i1, int i2)
{
    json_t *v = json_object_get(j, key);
    const int idx[3] = {i0, i1, i2};
    for (int a = 0; a < 3 && idx[a] >= 0; a++)
        v = json_array_get(v, (size_t)idx[a]);
    ck_assert_msg(v != NULL, "%s[%d][%d][%d] missing", key, i0, i1, i2);
    return v;
}

double au_num(const json_t *j, const char *key, int i0, int i1, int i2)
{
    json_t *v = au_at(j, key, i0, i1, i2);
    ck_assert_msg(json_is_number(v), "%s[%d][%d][%d] is not a number", key, i0, i1, i2);
    return json_number_value(v);
}

void au_same(const json_t *a, const json_t *b, const char *key)
{
    ck_assert_msg(json_equal(json_object_get(a, key), json_object_get(b, key)), "%s differs", key);
}

int au_warned(const json_t *j, const char *needle)
{
    const json_t *w = json_object_get(j, "warnings");
    for (size_t i = 0; i < json_array_size(w); i++)
        if (strstr(json_string_value(json_array_get(w, i)), needle) != NULL)
            return 1;
    return 0;
}

const json_t *au_layer_kind(const json_t *j, size_t l)
{
    size_t k = (size_t)json_integer_value(json_array_get(json_object_get(j, "layers"), l));
    return json_array_get(json_object_get(j, "kinds"), k);
}

const char *au_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* ---- tolerances and golden cases ----------------------------------------------------------- */

int au_close(double got, double want, double abs_tol, double rel_tol)
{
    return fabs(got - want) <= abs_tol + rel_tol * fabs(want);
}

void au_compare(json_t *exp, json_t *act, double abs_tol, double rel_tol, const char *path)
{
    if (json_is_null(exp)) {
        ck_assert_msg(json_is_null(act), "%s: expected null", path);
    } else if (json_is_number(exp)) {
        ck_assert_msg(json_is_number(act), "%s: expected a number", path);
        double e = json_number_value(exp), a = json_number_value(act);
        ck_assert_msg(au_close(a, e, abs_tol, rel_tol), "%s: expected %.17g, got %.17g", path, e,
                      a);
    } else if (json_is_array(exp)) {
        ck_assert_msg(json_is_array(act) && json_array_size(act) == json_array_size(exp),
                      "%s: shape differs", path);
        for (size_t i = 0; i < json_array_size(exp); i++) {
            char p[256];
            snprintf(p, sizeof p, "%s[%zu]", path, i);
            au_compare(json_array_get(exp, i), json_array_get(act, i), abs_tol, rel_tol, p);
        }
    } else if (json_is_object(exp)) {
        const char *k;
        json_t *v;
        json_object_foreach(exp, k, v)
        {
            char p[256];
            snprintf(p, sizeof p, "%s.%s", path, k);
            ck_assert_msg(json_object_get(act, k) != NULL, "%s missing", p);
            au_compare(v, json_object_get(act, k), abs_tol, rel_tol, p);
        }
    } else {
        ck_assert_msg(json_equal(exp, act), "%s differs", path);
    }
}

json_t *au_load_case(const char *file, const char *id)
{
    json_error_t e;
    json_t *cases = json_load_file(file, 0, &e);
    ck_assert_msg(cases != NULL, "cannot read %s: %s", file, e.text);
    json_t *c = NULL, *it;
    size_t i;
    json_array_foreach(cases, i, it)
    {
        if (strcmp(json_string_value(json_object_get(it, "id")), id) == 0)
            c = it;
    }
    ck_assert_msg(c != NULL, "case %s not in %s", id, file);
    json_incref(c);
    json_decref(cases);
    return c;
}

json_t *au_run_case(api_handler h, const json_t *c, int *status)
{
    char *body = json_dumps(json_object_get(c, "request"), JSON_COMPACT);
    ck_assert_ptr_nonnull(body);
    char *text = au_send(h, body, status);
    json_t *act = au_parse(text);
    free(text);
    free(body);
    return act;
}

/* 1 when key is one of the strings of the array exact (NULL: none). */
static int listed(json_t *exact, const char *key)
{
    json_t *x;
    size_t i;
    int found = 0;
    json_array_foreach(exact, i, x)
    {
        found |= strcmp(json_string_value(x), key) == 0;
    }
    return found;
}

void au_oracle_case(api_handler h, const char *file, const char *id)
{
    json_t *c = au_load_case(file, id);
    int status = 0;
    json_t *act = au_run_case(h, c, &status);
    json_t *want_status = json_object_get(c, "status");
    if (status != (want_status ? json_integer_value(want_status) : 200)) {
        char *s = json_dumps(act, 0);
        ck_abort_msg("%s: status %d: %s", id, status, s);
    }
    if (status == 200) {
        json_t *tol = json_object_get(c, "tolerance");
        json_t *exact = json_object_get(tol, "exact");
        double abs_tol = json_number_value(json_object_get(tol, "abs"));
        double rel_tol = json_number_value(json_object_get(tol, "rel"));
        json_t *exp = json_object_get(c, "expected");
        if (json_is_object(exp)) {
            const char *k;
            json_t *v;
            json_object_foreach(exp, k, v)
            {
                int at0 = listed(exact, k);
                char p[256];
                snprintf(p, sizeof p, "%s.%s", id, k);
                ck_assert_msg(json_object_get(act, k) != NULL, "%s missing", p);
                au_compare(v, json_object_get(act, k), at0 ? 0.0 : abs_tol, at0 ? 0.0 : rel_tol, p);
            }
        } else {
            au_compare(exp, act, abs_tol, rel_tol, id);
        }
    }
    json_decref(act);
    json_decref(c);
}

const api_route *au_route(const char *path)
{
    const srv_route *r = srv_route_find(path, "POST");
    ck_assert_msg(r->kind == SRV_COMPUTE, "%s is not a compute route", path);
    return r->compute;
}
