#include "model/stored_dtype.h"

#include <array>

#include "core/error.h"
#include "model/config.h"
#include "model/inventory.h"

namespace ma {

std::optional<DType> declared_float_dtype(const std::string& torch_dtype) {
  if (torch_dtype.empty()) return std::nullopt;
  std::optional<DType> d = dtype_from_any_name(torch_dtype);
  if (!d || !dtype_info(*d).is_float || dtype_bits(*d) < 16) return std::nullopt;
  return d;
}

void check_declared_dtype_names(const ModelConfig& cfg) {
  for (const ModelConfig& o : cfg.language_first())
    for (std::string_view key : {"torch_dtype", "dtype"}) {
      const json::Value* v = o.raw(key);
      if (!v || v->is_null()) continue;
      if (!v->is_string())
        o.fail(key, "must be a dtype name such as \"bfloat16\", found " + json_kind_text(*v));
      const std::string_view name = v->as_string();
      if (name != "auto" && !dtype_from_any_name(name))
        o.fail(key, "'" + printable(name) +
                        "' is no dtype (torch's are float32, bfloat16, float16, float64, int8, ...), so "
                        "transformers cannot load this config");
    }
}

void count_elements(const InventoryTensor& row, ElementsByDtype& elements) {
  if (row.kind == TensorKind::Parameter && row.stored && row.dtype)
    elements[static_cast<uint8_t>(*row.dtype)] += row.parameters;
}

std::optional<DType> dominant_float_dtype(const ElementsByDtype& elements) {
  std::optional<DType> best;
  uint64_t most = 0;
  for (size_t v = 0; v < elements.size(); ++v) {
    const auto d = static_cast<DType>(v);
    // Tested first, a count above zero means some row holds the value: only real dtypes are looked up.
    if (elements[v] > most && dtype_info(d).is_float && dtype_bits(d) >= 16) {
      most = elements[v];
      best = d;
    }
  }
  return best;
}

std::optional<DType> dtype_in_headers(const std::vector<InventoryTensor>& rows) {
  ElementsByDtype elements{};
  for (const InventoryTensor& t : rows) count_elements(t, elements);
  return dominant_float_dtype(elements);
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
