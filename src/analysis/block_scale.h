// Float8 weights stored beside their scales: block FP8 as DeepSeek-V3 and Qwen3-FP8 write it (W.weight and
// W.weight_scale_inv, [ceil(rows / 128), ceil(cols / 128)] float32), and per-channel ([rows, 1]) or
// per-tensor (a scalar) scales as compressed-tensors and FBGEMM write them (W.weight_scale). The weight's
// values are its codes times the scale of their block, in float32, as the reference dequantization computes
// them (DeepSeek's weight_dequant, transformers' FP8 loader): the statistics and spectra of W, not of its
// codes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.h"

namespace ma {

struct BlockScale {
  std::string tensor;         // the scale tensor's name
  std::vector<float> scales;  // grid_rows x grid_cols, row-major
  uint64_t cols = 1;          // of the weight (a 1-D weight: its length)
  uint64_t block_rows = 1, block_cols = 1, grid_cols = 1;

  // Multiplies `n` float32 values, elements first .. first + n - 1 of the weight in row-major order, by
  // their scales.
  void apply(uint64_t first, float* values, size_t n) const;
};

// The block a scale of shape `scale` gives each of its entries over a weight of shape `weight` ({rows,
// cols}): for each axis the smallest power of two b with ceil(n / b) = the scale's extent (128 for block FP8,
// 1 for a per-row scale, the whole axis for an extent of 1); a scalar scale is one block. nullopt when the
// shapes fit no such grid (the scale is then not applied).
struct ScaleGrid {
  uint64_t block_rows = 1, block_cols = 1, grid_rows = 1, grid_cols = 1;
};
std::optional<ScaleGrid> scale_grid(const Shape& weight, const Shape& scale);

// The names a float8 weight's scale may have: "W.weight_scale_inv", then "W.weight_scale".
std::vector<std::string> scale_names_for(const std::string& weight);

}  // namespace ma
