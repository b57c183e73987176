/* fuzz/fuzz_sinusoidal.c -- libFuzzer harness: POST /sinusoidal body bytes → its handler, answered
 * as JSON, streamed JSON and .npy (fuzz_handler.h, fz_check_route). */
#define FZ_ROUTE api_route_sinusoidal /* POST /sinusoidal */
#include "fuzz/fuzz_handler.h"
