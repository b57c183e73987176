/* api/warn_header.c -- the X-Posenc-Warnings header value (see warn_header.h). */
#include "api/warn_header.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/jw.h"

char *api_warnings_header(const char *const *s, size_t n)
{
    const char *kept[API_WARNINGS_HEADER_MAX / 8 + 1];
    if (n > sizeof kept / sizeof kept[0] - 1)
        n = sizeof kept / sizeof kept[0] - 1;
    char more[96];
    for (size_t k = n + 1; k-- > 0;) { /* all of them, else fewer and a count of the rest */
        memcpy(kept, s, k * sizeof *s);
        size_t m = k;
        if (k < n) {
            snprintf(more, sizeof more, "(%zu more warnings: the JSON answer lists them all)",
                     n - k);
            kept[m++] = more;
        }
        char *h = wire_json_ascii_strings(kept, m);
        if (h == NULL || strlen(h) <= API_WARNINGS_HEADER_MAX)
            return h;
        free(h);
    }
    return NULL; /* not reached: the count alone fits */
}
