#include "analysis/element_decoder.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype_values.h"
#include "formats/ggml_dequant.h"

namespace ma {

template <typename T>
void ElementDecoder::decode_into(DType t, const char* raw, size_t n, T* out) {
  const uint32_t bits = dtype_bits(t);
  if (is_block_type(t)) {
    if constexpr (std::is_same_v<T, float>) {
      dequantize_blocks(t, reinterpret_cast<const uint8_t*>(raw), n / dtype_info(t).block_elements, out);
    } else {
      floats_.resize(n);
      dequantize_blocks(t, reinterpret_cast<const uint8_t*>(raw), n / dtype_info(t).block_elements,
                        floats_.data());
      for (size_t i = 0; i < n; ++i) out[i] = floats_[i];
    }
  } else if (t == DType::F32 && std::is_same_v<T, float>) {
    std::memcpy(out, raw, n * sizeof(float));
  } else if (bits != 4 && bits <= 16) {
    const std::vector<double>& table = table_for(t);
    for (size_t i = 0; i < n; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, raw + i * (bits / 8), bits / 8);
      out[i] = static_cast<T>(table[v]);
    }
  } else if (bits == 4) {  // two per byte, low nibble first
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<T>(element_value(t, (static_cast<uint8_t>(raw[i / 2]) >> (4 * (i % 2))) & 15));
  } else {
    for (size_t i = 0; i < n; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, raw + i * (bits / 8), bits / 8);
      out[i] = static_cast<T>(element_value(t, v));
    }
  }
}

void ElementDecoder::decode(DType t, const char* raw, size_t n, double* out) {
  decode_into(t, raw, n, out);
}

void ElementDecoder::decode(DType t, const char* raw, size_t n, float* out) {
  decode_into(t, raw, n, out);
}

const std::vector<double>& ElementDecoder::table_for(DType t) {
  std::vector<double>& table = tables_[t];
  if (table.empty()) {
    table.resize(size_t{1} << dtype_bits(t));
    for (size_t v = 0; v < table.size(); ++v) table[v] = element_value(t, v);
  }
  return table;
}

}  // namespace ma
