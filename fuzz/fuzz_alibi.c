/* fuzz/fuzz_alibi.c -- libFuzzer harness: POST /alibi body bytes → its handler, answered as JSON,
 * streamed JSON and .npy (fuzz_handler.h, fz_check_route). */
#define FZ_ROUTE api_route_alibi /* POST /alibi */
#include "fuzz/fuzz_handler.h"
