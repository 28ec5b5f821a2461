#include "analysis/perf/stored_precision.h"

namespace ma {
namespace {

bool stores(const QuantizationInfo& q, const char* dtype) {
  return q.elements_by_stored_dtype.count(dtype) > 0;
}

// The compute precision of the quantized GEMMs: weights' width, and activations quantized too where the
// declaration or the format says so and the device has the tensor cores.
struct GemmPrecision {
  ComputeDType weights = ComputeDType::BF16, activations = ComputeDType::BF16;
  std::string scheme;
};

// The tensor-core format a quantized activation runs in: BF16 for one none models (4-bit integers).
ComputeDType activation_compute(const QuantizedNumbers& a) {
  if (a.is_float)
    return a.bits <= 4 ? ComputeDType::FP4 : a.bits <= 8 ? ComputeDType::FP8 : ComputeDType::BF16;
  return a.bits > 4 && a.bits <= 8 ? ComputeDType::INT8 : ComputeDType::BF16;
}

GemmPrecision precision_of(const QuantizationInfo& q, const Hardware& hw) {
  const bool float8 = stores(q, "f8_e4m3") || stores(q, "f8_e5m2");
  const bool fp4 = q.method == "nvfp4" || q.method == "mxfp4" ||
                   (q.weight_numbers && q.weight_numbers->is_float && q.weight_numbers->bits == 4);
  // The weights' width, as the GEMM streams them (a 4-bit integer is timed at fp4's half byte).
  ComputeDType weights = ComputeDType::BF16;
  if (float8 && q.bits == 8u)
    weights = ComputeDType::FP8;
  else if (fp4 || (q.bits && *q.bits <= 4))
    weights = ComputeDType::FP4;
  else if (q.bits == 8u)
    weights = ComputeDType::INT8;
  if (weights == ComputeDType::BF16) return {};
  const std::string w = weights == ComputeDType::FP4 ? "W4" : "W8";

  if (q.activation_scheme == ActivationScheme::Quantized && q.activations) {
    const ComputeDType a = activation_compute(*q.activations);
    const std::string name = a != ComputeDType::BF16 ? std::string(compute_dtype_name(a))
                                                     : "int" + std::to_string(q.activations->bits);
    const std::string scheme = w + "A" + std::to_string(q.activations->bits);
    if (a != ComputeDType::BF16 && hw.peak(a) > 0) return {weights, a, scheme + " " + name};
    return {weights, ComputeDType::BF16,
            w + "A16 (" + scheme + " declared; no " + name + " tensor cores: weights dequantized)"};
  }
  if (q.activation_scheme == ActivationScheme::WeightOnly) return {weights, ComputeDType::BF16, w + "A16"};
  // Nothing declared: each format's usual practice.
  if (weights == ComputeDType::FP8) {
    if (hw.peak(ComputeDType::FP8) > 0) return {weights, ComputeDType::FP8, "W8A8 fp8"};
    return {weights, ComputeDType::BF16, "W8A16 (no fp8 tensor cores: weights dequantized)"};
  }
  if (fp4) {
    if (hw.peak(ComputeDType::FP4) > 0) return {weights, ComputeDType::FP4, "W4A4 fp4"};
    return {weights, ComputeDType::BF16, "W4A16 (no fp4 tensor cores: weights dequantized)"};
  }
  return {weights, ComputeDType::BF16, w + "A16"};
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
                    (p.scheme.empty() ? "16-bit compute" : p.scheme);
  if (!kv_given && declared_kv && dtype_bits(*declared_kv) == 8 && dtype_info(*declared_kv).is_float)
    in.kv_dtype = ComputeDType::FP8;
}

}  // namespace ma
