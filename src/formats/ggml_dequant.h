// Dequantization of ggml's block types (GGUF tensors): the floats llama.cpp's own `to_float` functions
// (ggml-quants.c, dequantize_row_*) produce, bit for bit — the same operations on the same float32 values in
// the same order — so that statistics over a GGUF file are those of the model llama.cpp runs.
// tests/unit/ggml_dequant_test.cpp checks every decoded type against llama.cpp's library itself.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/dtype.h"

namespace ma {

// Whether dequantize_blocks decodes this dtype: every ggml block type (element types are not block types;
// see core/dtype.h). The IQ1/IQ2/IQ3 types, whose values come from ggml's lookup grids, are decoded in
// ggml_dequant_iq.cpp.
bool can_dequantize(DType t);

// Decodes `blocks` whole blocks of block type `t` starting at `src` (blocks * dtype_info(t).block_bytes
// bytes) into blocks * dtype_info(t).block_elements floats at `dst`, as ggml's to_float does. Precondition:
// can_dequantize(t). `src` needs no alignment; `dst` must not overlap it.
void dequantize_blocks(DType t, const uint8_t* src, size_t blocks, float* dst);

}  // namespace ma
