// ggml's lookup grids for its IQ1/IQ2/IQ3 block types, as observed from llama.cpp's own library: the data is
// generated (ggml_iq_grids.cpp, by tests/oracle/ggml_iq_grids.py). An entry holds the values of 8 (uint64_t)
// or 4 (uint32_t) consecutive elements, one byte each, element j in byte j counting from the least
// significant; a block stores an index into the grid in place of the elements.
#pragma once
#include <cstdint>

namespace ma {

extern const uint64_t kIq2xxsGrid[256];  // IQ2_XXS: magnitudes 8, 25, 43
extern const uint64_t kIq2xsGrid[512];   // IQ2_XS: the same magnitudes
extern const uint64_t kIq2sGrid[1024];   // IQ2_S: the same magnitudes
extern const uint32_t kIq3xxsGrid[256];  // IQ3_XXS: magnitudes 4, 12, ..., 52 (steps of 8) and 62
extern const uint32_t kIq3sGrid[512];    // IQ3_S: odd magnitudes 1..15
extern const uint64_t kIq1sGrid[2048];   // IQ1_S and IQ1_M: int8 values -1, 0, 1

}  // namespace ma
