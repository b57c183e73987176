/* api/req.c -- see req.h. */
#include "api/req.h"

#include "api/arena.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void api_limits_default(api_limits *lim)
{
    lim->max_body_bytes = (size_t)16 << 20;
    lim->max_table_bytes = (size_t)256 << 20;
    lim->max_output_elements = 4194304;
    lim->max_dim = 65536;
    lim->max_heads = 1024;
    lim->max_positions = 1000000;
    lim->max_position = 2147483647;
    lim->max_work = (size_t)1 << 30;
    lim->max_inflight_bytes = (size_t)256 << 20;
    lim->max_parse_bytes = (size_t)128 << 20;
    lim->max_tensor_bytes = (size_t)2 << 30;
    lim->max_tables = 100000;
    lim->max_store_bytes = (size_t)16 << 30;
}

const json_t *api_member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return (v == NULL || json_is_null(v)) ? NULL : v;
}

void api_body_parse_failed(api_problem *pb, const struct api_arena *arena, const json_error_t *err,
                           size_t len, const api_limits *lim)
{
    switch (api_arena_failure_of(arena)) {
    case API_ARENA_OVER_CAP:
        api_problem_set(pb, API_PB_TOO_LARGE,
                        "the JSON of this request (its %zu-byte body as parsed, and what is built "
                        "from it) would need more than max_parse_bytes (%zu bytes); send fewer "
                        "or larger-grained values",
                        len, lim->max_parse_bytes);
        break;
    case API_ARENA_REFUSED:
        api_problem_set(pb, API_PB_OVERLOADED,
                        "parsing this %zu-byte JSON body would pass max_inflight_bytes (%zu) with "
                        "what other requests hold now; retry later",
                        len, lim->max_inflight_bytes);
        break;
    case API_ARENA_NO_MEMORY:
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while parsing the body");
        break;
    case API_ARENA_OK:
        if (json_error_code(err) == json_error_out_of_memory)
            api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while parsing the body");
        else
            api_problem_set(pb, API_PB_MALFORMED_JSON, "malformed JSON at line %d, column %d: %s",
                            err->line, err->column, err->text);
        break;
    }
}

void api_ptr(char *out, size_t n, const char *base, const char *key)
{
    size_t len = (size_t)snprintf(out, n, "%s/", base ? base : "");
    for (const char *k = key; *k && len + 3 < n; k++) {
        if (*k == '~') {
            out[len++] = '~';
            out[len++] = '0';
        } else if (*k == '/') {
            out[len++] = '~';
            out[len++] = '1';
        } else {
            out[len++] = *k;
        }
    }
    if (len < n)
        out[len] = '\0';
}

void api_ptr_idx(char *out, size_t n, const char *base, size_t idx)
{
    int r = snprintf(out, n, "%s/%zu", base ? base : "", idx);
    if (r < 0 && n > 0)
        out[0] = '\0';
}

/* api_problem_vfield at "<base>/<key>", or at "<base>/<idx>" when key is NULL. */
static void vfield_at(api_problem *pb, api_problem_code code, const char *base, const char *key,
                      size_t idx, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
static void vfield_at(api_problem *pb, api_problem_code code, const char *base, const char *key,
                      size_t idx, const char *fmt, va_list ap)
{
    char ptr[sizeof pb->errors[0].pointer];
    if (key != NULL)
        api_ptr(ptr, sizeof ptr, base, key);
    else
        api_ptr_idx(ptr, sizeof ptr, base, idx);
    api_problem_vfield(pb, code, ptr, fmt, ap);
}

void api_problem_key(api_problem *pb, api_problem_code code, const char *base, const char *key,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfield_at(pb, code, base, key, 0, fmt, ap);
    va_end(ap);
}

void api_problem_idx(api_problem *pb, api_problem_code code, const char *base, size_t idx,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfield_at(pb, code, base, NULL, idx, fmt, ap);
    va_end(ap);
}

int api_check_fields(api_problem *pb, const json_t *obj, const char *base,
                     const char *const *allowed)
{
    const char *k;
    json_t *v;
    int rc = 0;
    json_object_foreach((json_t *)obj, k, v)
    {
        int known = 0;
        for (const char *const *a = allowed; *a; a++) {
            if (strcmp(*a, k) == 0) {
                known = 1;
                break;
            }
        }
        if (!known) {
            api_problem_key(pb, API_PB_UNKNOWN_FIELD, base, k, "unknown field \"%.80s\"", k);
            rc = -1;
        }
    }
    return rc;
}

int api_check_fields_config(api_problem *pb, const json_t *obj, const char *base,
                            const char *const *allowed)
{
    size_t before = api_problem_count(pb);
    if (api_check_fields(pb, obj, base, allowed) == 0)
        return 0;
    size_t unknown = api_problem_count(pb) - before;
    int takes_config = 0;
    for (const char *const *a = allowed; *a && !takes_config; a++)
        takes_config = strcmp(*a, "config") == 0;
    static const char *const MARKS[] = {"model_type", "architectures", "hidden_size"};
    const char *mark = NULL;
    for (size_t i = 0; i < sizeof MARKS / sizeof MARKS[0] && mark == NULL; i++) {
        if (json_object_get(obj, MARKS[i]) != NULL)
            mark = MARKS[i];
    }
    if (takes_config && mark != NULL && unknown >= API_CONFIG_HINT_UNKNOWN)
        snprintf(pb->detail, sizeof pb->detail,
                 "%s%s looks like a model's config.json (it has \"%s\" and %zu unknown fields): "
                 "send it wrapped as {\"config\": <config.json>}",
                 base[0] ? "the object at " : "the body", base, mark, unknown);
    return -1;
}

/* JSON equality where numbers compare by value (4 equals 4.0, as integer fields accept both). */
static int same_value(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++) {
            if (!same_value(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        }
        return 1;
    }
    if (json_is_object(a) && json_is_object(b)) {
        if (json_object_size(a) != json_object_size(b))
            return 0;
        const char *k;
        json_t *va;
        json_object_foreach((json_t *)a, k, va)
        {
            const json_t *vb = json_object_get(b, k);
            if (vb == NULL || !same_value(va, vb))
                return 0;
        }
        return 1;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

const json_t *api_get_alias(api_problem *pb, const json_t *obj, const char *base, const char *key,
                            const char *alias, const char **used)
{
    const json_t *a = api_member(obj, key);
    const json_t *b = api_member(obj, alias);
    if (used)
        *used = a ? key : (b ? alias : NULL);
    if (a && b && !same_value(a, b)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, base, alias,
                        "\"%s\" and its alias \"%s\" are both given with different values", key,
                        alias);
        return NULL;
    }
    return a ? a : b;
}

int api_int_in_range(api_problem *pb, const char *ptr, int64_t x, int64_t min, int64_t max)
{
    if (x < min || x > max) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be between %lld and %lld, got %lld",
                          (long long)min, (long long)max, (long long)x);
        return -1;
    }
    return 0;
}

int api_int_value(api_problem *pb, const json_t *v, const char *ptr, int64_t min, int64_t max,
                  int64_t *out)
{
    int64_t x;
    if (json_is_integer(v)) {
        x = (int64_t)json_integer_value(v);
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d != floor(d) || d < -9.2e18 || d > 9.2e18) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be an integer, got %.17g", d);
            return -1;
        }
        x = (int64_t)d;
    } else {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be an integer");
        return -1;
    }
    if (api_int_in_range(pb, ptr, x, min, max) < 0)
        return -1;
    *out = x;
    return 1;
}

int api_get_int(api_problem *pb, const json_t *obj, const char *base, const char *key, int64_t min,
                int64_t max, int64_t *out)
{
    const json_t *v = api_member(obj, key);
    if (v == NULL)
        return 0;
    char ptr[160];
    api_ptr(ptr, sizeof ptr, base, key);
    return api_int_value(pb, v, ptr, min, max, out);
}

int api_number_value(api_problem *pb, const json_t *v, const char *ptr, double min, double max,
                     unsigned flags, double *out)
{
    if (!json_is_number(v)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be a number");
        return -1;
    }
    double x = json_number_value(v);
    if (!isfinite(x)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be finite");
        return -1;
    }
    int lo_bad = (flags & API_NUM_MIN_EXCL) ? !(x > min) : !(x >= min);
    int hi_bad = (flags & API_NUM_MAX_EXCL) ? !(x < max) : !(x <= max);
    if (lo_bad) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be %s %.17g, got %.17g",
                          (flags & API_NUM_MIN_EXCL) ? ">" : ">=", min, x);
        return -1;
    }
    if (hi_bad) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be %s %.17g, got %.17g",
                          (flags & API_NUM_MAX_EXCL) ? "<" : "<=", max, x);
        return -1;
    }
    *out = x;
    return 1;
}

int api_get_number(api_problem *pb, const json_t *obj, const char *base, const char *key,
                   double min, double max, unsigned flags, double *out)
{
    const json_t *v = api_member(obj, key);
    if (v == NULL)
        return 0;
    char ptr[160];
    api_ptr(ptr, sizeof ptr, base, key);
    return api_number_value(pb, v, ptr, min, max, flags, out);
}

int api_get_bool(api_problem *pb, const json_t *obj, const char *base, const char *key, int *out)
{
    const json_t *v = api_member(obj, key);
    if (v == NULL)
        return 0;
    if (!json_is_boolean(v)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, base, key, "must be true or false");
        return -1;
    }
    *out = json_is_true(v);
    return 1;
}

int api_enum_value(api_problem *pb, const json_t *v, const char *ptr, const char *const *names,
                   int *out)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        for (int i = 0; names[i]; i++) {
            if (strcmp(names[i], s) == 0) {
                *out = i;
                return 1;
            }
        }
    }
    char list[200];
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; names[i] && len + 1 < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s\"%s\"", i ? ", " : "", names[i]);
    api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be one of %s", list);
    return -1;
}

int api_get_enum(api_problem *pb, const json_t *obj, const char *base, const char *key,
                 const char *const *names, int *out)
{
    const json_t *v = api_member(obj, key);
    if (v == NULL)
        return 0;
    char ptr[160];
    api_ptr(ptr, sizeof ptr, base, key);
    return api_enum_value(pb, v, ptr, names, out);
}

int api_get_object(api_problem *pb, const json_t *obj, const char *base, const char *key,
                   const json_t **out)
{
    const json_t *v = api_member(obj, key);
    if (v == NULL)
        return 0;
    if (!json_is_object(v)) {
        api_problem_key(pb, API_PB_INVALID_FIELD, base, key, "must be an object");
        return -1;
    }
    *out = v;
    return 1;
}

void *api_alloc(api_problem *pb, size_t count, size_t size)
{
    size_t bytes;
    if (!pe_mul_ok(count, size, &bytes)) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "", "the requested size overflows");
        return NULL;
    }
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p == NULL)
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory for %zu bytes", bytes);
    return p;
}

int api_number_array(api_problem *pb, const json_t *v, const char *ptr, size_t expect_n,
                     size_t max_n, const char *limit_name, double **out, size_t *n)
{
    *out = NULL;
    if (!json_is_array(v)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be an array of numbers");
        return -1;
    }
    size_t len = json_array_size(v);
    if (len > max_n) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr, "has %zu numbers; %s is %zu", len,
                          limit_name, max_n);
        return -1;
    }
    if (expect_n > 0 && len != expect_n) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must have %zu numbers, got %zu", expect_n,
                          len);
        return -1;
    }
    double *x = len ? api_alloc(pb, len, sizeof *x) : NULL;
    if (len && x == NULL)
        return -1;
    for (size_t i = 0; i < len; i++) {
        const json_t *e = json_array_get(v, i);
        if (json_is_number(e) && isfinite(x[i] = json_number_value(e)))
            continue; /* the common case: no pointer text is built (issue 8: speed) */
        char ip[160];
        api_ptr_idx(ip, sizeof ip, ptr, i);
        if (api_number_value(pb, e, ip, -HUGE_VAL, HUGE_VAL, 0, &x[i]) < 0) {
            free(x);
            return -1;
        }
    }
    *out = x;
    *n = len;
    return 1;
}

int api_get_numbers(api_problem *pb, const json_t *obj, const char *base, const char *key,
                    size_t expect_n, size_t max_n, const char *limit_name, double **out, size_t *n)
{
    *out = NULL;
    const json_t *v = api_member(obj, key);
    if (v == NULL)
        return 0;
    char ptr[160];
    api_ptr(ptr, sizeof ptr, base, key);
    return api_number_array(pb, v, ptr, expect_n, max_n, limit_name, out, n);
}

int api_matrix_shape(api_problem *pb, const char *ptr, size_t rows, size_t cols, size_t expect_rows,
                     size_t expect_cols, size_t max_elems, size_t *total)
{
    if (expect_rows > 0 && rows != expect_rows) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must have %zu rows, got %zu", expect_rows,
                          rows);
        return -1;
    }
    if (cols == 0 || (expect_cols > 0 && cols != expect_cols)) {
        char rp[160];
        api_ptr_idx(rp, sizeof rp, ptr, 0);
        if (cols == 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, rp, "rows must not be empty");
        else
            api_problem_field(pb, API_PB_INVALID_FIELD, rp, "must have %zu numbers, got %zu",
                              expect_cols, cols);
        return -1;
    }
    if (!pe_mul_ok(rows, cols, total) || *total > max_elems) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr,
                          "has %zu x %zu numbers, over the limit %zu", rows, cols, max_elems);
        return -1;
    }
    return 0;
}

int api_number_matrix(api_problem *pb, const json_t *v, const char *ptr, size_t expect_rows,
                      size_t expect_cols, size_t max_elems, int allow_vector, double **out,
                      size_t *rows, size_t *cols, int *was_vector)
{
    *out = NULL;
    if (was_vector)
        *was_vector = 0;
    if (!json_is_array(v) || json_array_size(v) == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr, "must be a non-empty array of rows");
        return -1;
    }
    if (!json_is_array(json_array_get(v, 0))) {
        if (!allow_vector) {
            api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                              "must be a matrix (an array of arrays of numbers)");
            return -1;
        }
        size_t n = 0;
        if (api_number_array(pb, v, ptr, expect_cols, max_elems, "max_output_elements", out, &n) <
            0)
            return -1;
        *rows = 1;
        *cols = n;
        if (was_vector)
            *was_vector = 1;
        return 1;
    }
    size_t r = json_array_size(v);
    size_t c = json_array_size(json_array_get(v, 0));
    size_t total;
    if (api_matrix_shape(pb, ptr, r, c, expect_rows, expect_cols, max_elems, &total) < 0)
        return -1;
    double *x = api_alloc(pb, total, sizeof *x);
    if (x == NULL)
        return -1;
    for (size_t i = 0; i < r; i++) {
        const json_t *row = json_array_get(v, i);
        char rp[160];
        api_ptr_idx(rp, sizeof rp, ptr, i);
        if (!json_is_array(row) || json_array_size(row) != c) {
            api_problem_field(pb, API_PB_INVALID_FIELD, rp,
                              "must be an array of %zu numbers (rows must have equal length)", c);
            free(x);
            return -1;
        }
        for (size_t j = 0; j < c; j++) {
            const json_t *e = json_array_get(row, j);
            if (json_is_number(e) && isfinite(x[i * c + j] = json_number_value(e)))
                continue; /* the common case: no pointer text is built (issue 8: speed) */
            char ep[160];
            api_ptr_idx(ep, sizeof ep, rp, j);
            if (api_number_value(pb, e, ep, -HUGE_VAL, HUGE_VAL, 0, &x[i * c + j]) < 0) {
                free(x);
                return -1;
            }
        }
    }
    *out = x;
    *rows = r;
    *cols = c;
    return 1;
}

int api_get_matrix(api_problem *pb, const json_t *obj, const char *base, const char *key,
                   size_t expect_rows, size_t expect_cols, size_t max_elems, double **out,
                   size_t *rows, size_t *cols)
{
    *out = NULL;
    const json_t *v = api_member(obj, key);
    if (v == NULL)
        return 0;
    char ptr[160];
    api_ptr(ptr, sizeof ptr, base, key);
    return api_number_matrix(pb, v, ptr, expect_rows, expect_cols, max_elems, 0, out, rows, cols,
                             NULL);
}

int api_check_output(api_problem *pb, const api_limits *lim, size_t n_elements, const char *ptr,
                     const char *what)
{
    if (n_elements > lim->max_output_elements) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr,
                          "%s would return %zu numbers; max_output_elements is %zu", what,
                          n_elements, lim->max_output_elements);
        return -1;
    }
    return 0;
}

int api_check_work(api_problem *pb, const api_limits *lim, size_t *acc, size_t a, size_t b,
                   size_t c, const char *ptr, const char *what)
{
    size_t ab, abc;
    if (!pe_mul_ok(a, b, &ab) || !pe_mul_ok(ab, c, &abc) || abc > lim->max_work ||
        *acc > lim->max_work - abc) {
        pb->over_work = 1;
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, ptr,
                          "%s would take too long to compute: over max_work (%zu work units); use "
                          "fewer positions or smaller dimensions",
                          what, lim->max_work);
        return -1;
    }
    *acc += abc;
    return 0;
}

/* The nesting depth of v (a scalar is 0), counted no further than limit + 1. */
int api_json_depth(const json_t *v, int limit)
{
    if (limit < 0 || !(json_is_object(v) || json_is_array(v)))
        return 0;
    int d = 0;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v) && d <= limit; i++) {
            int c = api_json_depth(json_array_get(v, i), limit - 1);
            d = c > d ? c : d;
        }
    } else {
        const char *k;
        const json_t *m;
        json_object_foreach((json_t *)v, k, m)
        {
            int c = api_json_depth(m, limit - 1);
            d = c > d ? c : d;
            if (d > limit)
                break;
        }
    }
    return d + 1;
}

int api_str_in_list(const char *const *list, const char *s)
{
    for (const char *const *p = list; p != NULL && s != NULL && *p != NULL; p++)
        if (strcmp(*p, s) == 0)
            return 1;
    return 0;
}
