// Seed 000's conversion planning: which of the model's layer features each deployment target (ONNX Runtime
// GenAI, llama.cpp / GGUF, TensorRT-LLM, vLLM) runs with its standard operators, with a target-specific
// operator, or not without a custom kernel; and which linear layers are worth quantizing, with the bytes an
// fp8 or int4 conversion saves. The support levels are one catalogue (conversion.cpp) with the date it
// describes: targets add kernels with every release.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/quantization.h"
#include "analysis/weight_stats.h"
#include "model/inventory.h"

namespace ma {

enum class ConversionTarget { OrtGenai, LlamaCpp, TensorRtLlm, Vllm };
inline constexpr size_t kConversionTargets = 4;
std::string_view conversion_target_name(
    ConversionTarget t);  // onnxruntime-genai, llama.cpp, tensorrt-llm, vllm

// native: the target's standard operators or kernels; contrib: an operator of the target's own domain
// (ONNX Runtime's com.microsoft MoE); custom: no kernel in the target as of the catalogue's date.
enum class Support { Native, Contrib, Custom };
std::string_view support_name(Support s);  // native, contrib, custom

// A weight that quantization recipes convert: the linear weights of attention, MLP, experts (fused 3-D expert
// tensors included), Mamba and linear attention, in the model or in a stored extra (an MTP layer).
// Embeddings, norms, routers and the head stay 16-bit in every recipe (llm-compressor, ModelOpt, AutoGPTQ,
// vLLM's fp8), so `plan --dtype` and the conversion advice agree.
bool is_quantizable_linear(const InventoryTensor& t);
inline constexpr std::string_view kUnconvertedWeights = "embeddings, norms, routers and the head stay 16-bit";

struct FeatureSupport {
  std::string feature;  // "grouped-query attention", "Mamba-2 (SSD scan)", ...
  uint32_t layers = 0;  // of the language stack
  std::array<Support, kConversionTargets> support{};
  std::string note;
};

// Linear weights of one block kind a conversion could quantize.
struct QuantizationCandidate {
  std::string block;  // attention, mlp, moe-expert, shared-expert, mamba, linear-attention
  uint64_t parameters = 0;
  uint64_t bytes_now = 0;  // as stored
  uint64_t bytes_fp8 = 0, bytes_int4 = 0;
  // With the weights read (plan --weights): the most outlier-prone tensor of the block, a hint of how much
  // round-to-nearest quantization would hurt it. Unset without the scan.
  std::optional<double> max_kurtosis;       // excess kurtosis; a Gaussian's is 0
  std::optional<double> max_outlier_ratio;  // abs_max / std
  std::string most_outlying;                // the tensor with the largest outlier ratio
  bool sensitive = false;                   // past either threshold below
};

// Past these a block's largest weights sit far in the tail: an int4 grid sized by abs_max spends most of its
// levels on a few values. Rules of thumb (LLM.int8(), SmoothQuant): keep such blocks 8-bit, or use a method
// that protects outliers (AWQ, GPTQ with act-order).
inline constexpr double kSensitiveKurtosis = 10;
inline constexpr double kSensitiveOutlierRatio = 20;

struct ConversionPlan {
  std::string catalogue_date;
  std::vector<FeatureSupport> features;
  std::vector<QuantizationCandidate> quantizable;
  uint64_t saved_fp8 = 0, saved_int4 = 0;  // over every candidate, against the bytes as stored
};

// `tensor_bytes`: index-aligned with inv.tensors (the stored bytes). Parameters are the weights each tensor
// encodes (logical_parameters: a packed MXFP4 or int4 byte holds two), as the plan's precisions count them.
ConversionPlan plan_conversion(const Inventory& inv, const QuantizationInfo& quantization,
                               const std::vector<uint64_t>& tensor_bytes);

// Adds the weights' outlier figures (`stats`' per-tensor kurtosis and abs_max / std) to each candidate block.
void add_sensitivity(ConversionPlan& plan, const WeightStats& stats);

}  // namespace ma
