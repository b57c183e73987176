/* fuzz/fuzz_rope.c -- libFuzzer harness: POST /rope body bytes → its handler, answered as JSON,
 * streamed JSON and .npy (fuzz_handler.h, fz_check_route). */
#define FZ_ROUTE api_route_rope /* POST /rope */
#include "fuzz/fuzz_handler.h"
