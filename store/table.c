/*
 * store/table.c -- table names (table.h).
 */
#include "store/table.h"

int store_name_valid(const char *name)
{
    if (name == NULL)
        return 0;
    size_t n = 0;
    for (const char *p = name; *p; p++, n++) {
        char c = *p;
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (n >= STORE_NAME_MAX || !(alnum || (n > 0 && (c == '.' || c == '_' || c == '-'))))
            return 0;
    }
    return n > 0;
}
