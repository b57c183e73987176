/*
 * wire/err.c -- wire_err (err.h).
 */
#include "wire/err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wire_err_init(wire_err *e)
{
    memset(e, 0, sizeof *e);
}

int wire_err_failed(const wire_err *e)
{
    return e->status != WIRE_OK;
}

static void err_vset(wire_err *e, wire_status status, int has_pointer, const char *pointer,
                     const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void err_vset(wire_err *e, wire_status status, int has_pointer, const char *pointer,
                     const char *fmt, va_list ap)
{
    if (e->status != WIRE_OK)
        return;
    e->status = status;
    e->has_pointer = has_pointer;
    snprintf(e->pointer, sizeof e->pointer, "%s", pointer ? pointer : "");
    vsnprintf(e->detail, sizeof e->detail, fmt, ap);
}

void wire_err_set(wire_err *e, wire_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, status, 0, "", fmt, ap);
    va_end(ap);
}

void wire_err_at(wire_err *e, wire_status status, const char *pointer, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, status, 1, pointer, fmt, ap);
    va_end(ap);
}

void *wire_alloc(wire_err *e, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        wire_err_at(e, WIRE_ELIMIT, "", "the requested size overflows");
        return NULL;
    }
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p == NULL)
        wire_err_set(e, WIRE_ENOMEM, "out of memory for %zu bytes", count * size);
    return p;
}
