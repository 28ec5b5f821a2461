// Stored tensor bytes to numbers, for every dtype with values: a table for element types of at most 16 bits
// (the hot case, BF16: one load per element), ggml's to_float for block types (formats/ggml_dequant.h),
// element_value (core/dtype_values.h) otherwise. `compare` decodes to double, `spectrum` to float.
#pragma once
#include <cstddef>
#include <map>
#include <vector>

#include "core/dtype.h"

namespace ma {

class ElementDecoder {
 public:
  // `raw` holds `n` elements of `t` (block types: whole blocks; 4-bit types: two per byte, low nibble first).
  void decode(DType t, const char* raw, size_t n, double* out);
  void decode(DType t, const char* raw, size_t n, float* out);

 private:
  template <typename T>
  void decode_into(DType t, const char* raw, size_t n, T* out);
  const std::vector<double>& table_for(DType t);
  std::map<DType, std::vector<double>> tables_;
  std::vector<float> floats_;
};

}  // namespace ma
