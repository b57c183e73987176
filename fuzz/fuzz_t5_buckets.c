/* fuzz/fuzz_t5_buckets.c -- libFuzzer harness: POST /t5/buckets body bytes → its handler, answered
 * as JSON, streamed JSON and .npy (fuzz_handler.h, fz_check_route). */
#define FZ_ROUTE api_route_t5_buckets /* POST /t5/buckets */
#include "fuzz/fuzz_handler.h"
