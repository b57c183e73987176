/*
 * core/pe.h -- status codes shared by every core module.
 *
 * core/ is the numeric library of posenc: no I/O, no JSON, no globals, caller-owned buffers.
 * Every fallible core function returns a pe_status; PE_OK is 0.
 */
#ifndef PE_H
#define PE_H

#include <stddef.h>

/* One table generates the enum and its strings (docs/style.md#s5). Numbers are never reused. */
#define PE_STATUS_MAP(X)                                                                           \
    X(PE_OK, 0, "success")                                                                         \
    X(PE_ERR_ARG, 1, "invalid argument")                                                           \
    X(PE_ERR_RANGE, 2, "value outside limits")                                                     \
    X(PE_ERR_OVERFLOW, 3, "size would overflow")                                                   \
    X(PE_ERR_NOMEM, 4, "out of memory")                                                            \
    X(PE_ERR_NONFINITE, 5, "result is not finite")                                                 \
    X(PE_ERR_EMPTY_ROW, 6, "a query row has no visible key")

typedef enum {
#define PE__STATUS_ENUM(name, num, text) name = num,
    PE_STATUS_MAP(PE__STATUS_ENUM)
#undef PE__STATUS_ENUM
} pe_status;

/* Returns a static, never-NULL description of st ("unknown status" for values not in the map). */
const char *pe_status_str(pe_status st);

/* Returns 1 when a * b fits in size_t (and stores it in *out), else 0 and leaves *out untouched. */
static inline int pe_mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > (size_t)-1 / a)
        return 0;
    *out = a * b;
    return 1;
}

#endif
