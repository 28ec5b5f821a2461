// The decoders of ggml's grid types — IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M — whose
// elements come 4 or 8 at a time from an index into one of ggml's lookup grids (ggml_iq_grids.h). Internal to
// formats/ggml_dequant.h, which dispatches to them: same contract, bit for bit with ggml's to_float.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/dtype.h"

namespace ma {

// dequantize_blocks (ggml_dequant.h) for the seven grid types; does nothing for any other type.
void dequantize_grid_blocks(DType t, const uint8_t* src, size_t blocks, float* dst);

}  // namespace ma
