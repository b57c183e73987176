#ifndef POSENC_API_WARN_HEADER_H
#define POSENC_API_WARN_HEADER_H
/* api/warn_header.h -- a binary answer's warnings as one HTTP header value (X-Posenc-Warnings). */
#include <stddef.h>

/*
 * The X-Posenc-Warnings header value of a binary answer: the n warnings s[] as an ASCII JSON array
 * (wire_json_ascii_strings) of at most API_WARNINGS_HEADER_MAX bytes, so that it passes proxies'
 * default response-header buffers (nginx: 4 KiB). When they do not all fit, the first ones that do
 * and a last string "(K more warnings: the JSON answer lists them all)". malloc'd; NULL when out of
 * memory (n = 0 gives "[]": callers send no header then).
 */
#define API_WARNINGS_HEADER_MAX 3072
char *api_warnings_header(const char *const *s, size_t n);

#endif
