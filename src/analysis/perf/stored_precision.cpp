#include "analysis/perf/stored_precision.h"

namespace ma {
namespace {

bool stores(const QuantizationInfo& q, const char* dtype) {
  return q.elements_by_stored_dtype.count(dtype) > 0;
}

// The compute precision of the quantized GEMMs: weights' width, and activations quantized too where the
// format and the device allow it.
struct GemmPrecision {
  ComputeDType weights = ComputeDType::BF16, activations = ComputeDType::BF16;
  const char* scheme = "";
};

GemmPrecision precision_of(const QuantizationInfo& q, const Hardware& hw) {
  const bool float8 = stores(q, "f8_e4m3") || stores(q, "f8_e5m2");
  const bool fp4 = q.method == "nvfp4" || q.method == "mxfp4";
  if (float8 && q.bits == 8u) {
    if (hw.peak(ComputeDType::FP8) > 0) return {ComputeDType::FP8, ComputeDType::FP8, "W8A8 fp8"};
    return {ComputeDType::FP8, ComputeDType::BF16, "W8A16 (no fp8 tensor cores: weights dequantized)"};
  }
  if (fp4) {
    if (hw.peak(ComputeDType::FP4) > 0) return {ComputeDType::FP4, ComputeDType::FP4, "W4A4 fp4"};
    return {ComputeDType::FP4, ComputeDType::BF16, "W4A16 (no fp4 tensor cores: weights dequantized)"};
  }
  if (q.bits == 8u) return {ComputeDType::INT8, ComputeDType::BF16, "W8A16"};
  if (q.bits && *q.bits <= 4) return {ComputeDType::FP4, ComputeDType::BF16, "W4A16"};
  return {};
}

}  // namespace

void use_stored_weights(PerfInputs& in, const QuantizationInfo& q, std::optional<DType> declared_kv,
                        bool kv_given, const Hardware& hw) {
  if (!q.quantized || q.tensor_bytes.empty()) return;
  const GemmPrecision p = precision_of(q, hw);
  in.weight_dtype = p.weights;
  in.act_dtype = p.activations;
  in.stored_bytes = q.tensor_bytes;
  std::string what;
  for (const auto& [dtype, elements] : q.elements_by_stored_dtype)
    what += (what.empty() ? "" : " + ") + dtype;
  in.stored_label = "as stored (" + q.method + ": " + what + ", scales included), " +
                    (*p.scheme ? std::string(p.scheme) : "16-bit compute");
  if (!kv_given && declared_kv && dtype_bits(*declared_kv) == 8 && dtype_info(*declared_kv).is_float)
    in.kv_dtype = ComputeDType::FP8;
}

}  // namespace ma
