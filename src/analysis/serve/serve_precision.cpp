#include "analysis/serve/serve_precision.h"

namespace ma {

std::optional<WeightPrecision> serve_precision(std::string_view name, const QuantizationInfo& stored) {
  const uint32_t bits = stored.quantized ? stored.bits.value_or(16) : 16;
  if (name == "bf16") return bits == 16 ? WeightPrecision::Stored : WeightPrecision::BF16;
  if (name == "fp8") return bits == 8 ? WeightPrecision::Stored : WeightPrecision::FP8;
  if (name == "fp4") return bits == 4 ? WeightPrecision::Stored : WeightPrecision::INT4;
  return std::nullopt;
}

}  // namespace ma
