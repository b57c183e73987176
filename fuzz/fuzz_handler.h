/*
 * fuzz/fuzz_handler.h -- the body of a handler harness: request bytes → the route's handler,
 * answered as one buffer, streamed and as .npy (fz_check_route in fuzz_check.h); any broken rule
 * aborts (libFuzzer then saves the input). A harness file defines FZ_ROUTE (e.g. api_route_rope)
 * and includes this header. Build and run: make fuzz (fuzz/run.sh).
 */
#ifndef FUZZ_HANDLER_H
#define FUZZ_HANDLER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cache.h"
#include "fuzz/fuzz_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static api_limits fz_lim;
static api_ctx fz_ctx;
static const api_route *fz_route;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_limits(&fz_lim);
    fz_tables_init();
    fz_ctx.lim = &fz_lim;
    /* small enough that eviction happens during a run */
    fz_ctx.cache = pe_cache_create((size_t)1 << 20, 4096);
    fz_ctx.tables = &fz_table_source;
    fz_route = &FZ_ROUTE;
    if (fz_ctx.cache == NULL || fz_route == NULL)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[512];
    if (fz_check_route(&fz_ctx, fz_route, (const char *)data, size, why, sizeof why, NULL) != 0) {
        fprintf(stderr, "fuzz check failed: %s\n", why);
        abort();
    }
    return 0;
}

#endif
