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

/* The uint32_t stored little-endian at p: wire_le_get(p, 4) as one 32-bit load, which GCC's
 * vectorizer can follow (a 4-byte copy into a 64-bit value is "a complicated access pattern"). */
static inline uint32_t wire_le_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* Writes v to out little-endian as one 32-bit store (the vectorizable wire_le_put(out, &v, 4)). */
static inline void wire_le_put_u32(unsigned char *out, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    memcpy(out, &v, 4);
}

#endif
