/* wire/crc32.c -- CRC-32 (wire/crc32.h) by libdeflate. */
#include "wire/crc32.h"

#include <libdeflate.h>

uint32_t wire_crc32(uint32_t crc, const void *p, size_t n)
{
    return n == 0 ? crc : libdeflate_crc32(crc, p, n);
}
