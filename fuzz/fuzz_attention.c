/* fuzz/fuzz_attention.c -- libFuzzer harness: POST /attention body bytes → its handler, answered as
 * JSON, streamed JSON and .npy (fuzz_handler.h, fz_check_route). */
#define FZ_ROUTE api_route_attention /* POST /attention */
#include "fuzz/fuzz_handler.h"
