#include "model/stored_dtype.h"

#include <array>
#include <map>

#include "model/inventory.h"

namespace ma {

std::optional<DType> declared_float_dtype(const std::string& torch_dtype) {
  if (torch_dtype.empty()) return std::nullopt;
  std::optional<DType> d = dtype_from_any_name(torch_dtype);
  if (!d || !dtype_info(*d).is_float || dtype_bits(*d) < 16) return std::nullopt;
  return d;
}

std::optional<DType> dtype_in_headers(const std::vector<InventoryTensor>& rows) {
  std::map<DType, uint64_t> elements;
  for (const InventoryTensor& t : rows)
    if (t.kind == TensorKind::Parameter && t.stored && t.dtype && dtype_info(*t.dtype).is_float &&
        dtype_bits(*t.dtype) >= 16)
      elements[*t.dtype] += t.parameters;
  std::optional<DType> best;
  uint64_t most = 0;
  for (const auto& [d, n] : elements)
    if (n > most) {
      most = n;
      best = d;
    }
  return best;
}

std::optional<DType> dtype_from_total_size(uint64_t total_size, uint64_t fixed_bytes,
                                           uint64_t float_elements) {
  if (total_size == 0 || float_elements == 0) return std::nullopt;
  for (DType d : std::array{DType::F32, DType::BF16}) {
    const uint64_t predicted = fixed_bytes + float_elements * (dtype_bits(d) / 8);
    const uint64_t gap = predicted > total_size ? predicted - total_size : total_size - predicted;
    if (gap * 100 <= total_size) return d;
  }
  return std::nullopt;
}

}  // namespace ma
