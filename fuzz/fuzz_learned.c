/* fuzz/fuzz_learned.c -- libFuzzer harness: POST /learned body bytes → its handler, answered as
 * JSON, streamed JSON and .npy (fuzz_handler.h, fz_check_route). */
#define FZ_ROUTE api_route_learned /* POST /learned */
#include "fuzz/fuzz_handler.h"
