/*
 * wire/numfmt.h -- shortest round-trip decimal of a double, from Debian's libdragonbox-dev 1.1.3
 * (Junekey Jeon's Dragonbox, https://github.com/jk-jeon/dragonbox; header-only part used) behind
 * a C interface. wire/numfmt.cc is the project's only C++ file (g++ -std=c++17, no exceptions, no
 * RTTI, no libstdc++ symbols needed at link time).
 */
#ifndef WIRE_NUMFMT_H
#define WIRE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * For a finite, non-zero x: |x| = *significand * 10^*exponent with the fewest decimal digits
 * that still read back (round to nearest even) to x exactly; among equally short candidates the
 * one closest to x (ties to even). *significand has no trailing zeros and at most 17 digits.
 * Returns 1 when x is negative, 0 otherwise. Behaviour for 0, infinities and NaN is undefined
 * (callers handle them first). Pure; thread-safe. Source: Dragonbox `to_decimal` with the
 * default policies (nearest-to-even, trailing zeros removed, full cache).
 */
int wire_numfmt_decimal(double x, uint64_t *significand, int *exponent);

/*
 * wire_numfmt_decimal for x[0..n): significand[i] and exponent[i] as above, the sign left to the
 * caller (signbit(x[i])); for a zero, an infinity or a NaN significand[i] = 0 (which no other
 * double gives) and exponent[i] = 0. One call per row of numbers keeps Dragonbox's loop apart
 * from the layout's, which lets the processor overlap the numbers' independent work (measured
 * about 10 % faster than one call per number). Pure; thread-safe.
 */
void wire_numfmt_decimals(const double *x, size_t n, uint64_t *significand, int *exponent);

#ifdef __cplusplus
}
#endif

#endif
