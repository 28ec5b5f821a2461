// The value an element's bits stand for, exactly, as a double (every dtype of at most 32 bits, and 64-bit
// floats, convert without rounding; 64-bit integers beyond 2^53 round as numpy's float64 does). F4 is
// float4_e2m1fn_x2: two elements per byte, the first in the low nibble. F6 and complex types have no
// element-wise meaning here, nor do ggml's block types (their values need the block's scales,
// formats/ggml_dequant.h): `has_element_values` is false for them.
#pragma once
#include <cstdint>

#include "core/dtype.h"

namespace ma {

bool has_element_values(DType t);

// `bits` holds the element's bit pattern in its low bits (for F4: one nibble).
double element_value(DType t, uint64_t bits);

// Bit patterns a counting pass tallies per element: 2^bits for types of at most 16 bits (F4: 16 values,
// counted per byte, i.e. per pair); 0 for wider types.
uint32_t counted_patterns(DType t);

}  // namespace ma
