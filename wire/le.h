/*
 * wire/le.h -- little-endian byte order, the one encoder and decoder of the byte formats (.npy
 * data and header lengths, .safetensors lengths, the table files of store/). Every host posenc
 * builds on is little-endian today; a big-endian host swaps here and nowhere else.
 */
#ifndef WIRE_LE_H
#define WIRE_LE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Writes the n bytes of the host value at v (an integer or a float of n bytes, n <= 8) to out in
 * little-endian order. */
static inline void wire_le_put(unsigned char *out, const void *v, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const unsigned char *b = v;
    for (size_t i = 0; i < n; i++)
        out[i] = b[n - 1 - i];
#else
    memcpy(out, v, n);
#endif
}

/* The unsigned integer stored little-endian in the n bytes at p (1 <= n <= 8). */
static inline uint64_t wire_le_get(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, n); /* one load where n is a constant */
#else
    for (size_t i = n; i > 0; i--)
        v = (v << 8) | p[i - 1];
#endif
    return v;
}

#endif
