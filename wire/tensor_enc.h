/*
 * wire/tensor_enc.h -- float64 values written back in a tensor's own element type (the binary
 * answers of /rope: q_rotated and k_rotated in the dtype q and k came in). Little-endian, C order.
 * Rounding is to nearest, ties to even, from the float64 value in one step (never through float32
 * first for float16 / bfloat16), as IEEE 754 conversion and NumPy's astype do.
 */
#ifndef WIRE_TENSOR_ENC_H
#define WIRE_TENSOR_ENC_H

#include <stddef.h>
#include <stdint.h>

#include "wire/tensor_io.h"

/*
 * Encodes x[0..n) as dt into out (n x wire_dtype_size(dt) bytes; may not overlap x unless dt is
 * WIRE_DT_F64, where out may equal x). Returns n when every value is finite in dt, else the index
 * of the first value that overflows it (out is then partly written).
 */
size_t wire_encode_le(wire_dtype dt, const double *x, size_t n, unsigned char *out);

/* x rounded to float16 / bfloat16 (to nearest, ties to even) as its bit pattern; an overflow gives
 * the infinity of x's sign. */
uint16_t wire_double_to_f16(double x);
uint16_t wire_double_to_bf16(double x);

#endif
