/* fuzz/fuzz_learned.c -- libFuzzer harness: POST /learned body bytes → its handler, answered as
 * JSON, streamed JSON and .npy (fuzz_handler.h, fz_check_route). */
#define FZ_PATH "/learned"
#include "fuzz/fuzz_handler.h"
