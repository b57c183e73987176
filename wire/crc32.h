/*
 * wire/crc32.h -- CRC-32 as ZIP (PKWARE APPNOTE.TXT 4.4.7) and gzip use it: the reflected
 * polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF (ISO 3309 / ITU-T V.42). The
 * CRC-32 of the nine bytes "123456789" is 0xCBF43926.
 *
 * Computed by libdeflate's libdeflate_crc32 (carry-less multiplication, PCLMULQDQ, where the CPU
 * has it: about 17 GB/s on the machine of docs/performance.md against zlib's 2.3 GB/s).
 */
#ifndef WIRE_CRC32_H
#define WIRE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of the bytes already summed into crc (0 for none) followed by p[0..n): running it
 * over pieces in order gives the CRC-32 of their concatenation. p may be NULL when n is 0. */
uint32_t wire_crc32(uint32_t crc, const void *p, size_t n);

#endif
