// What a model's config files declare about quantization: config.json quantization_config (or
// compression_config, or text_config.quantization_config of a multimodal model), modelopt's
// hf_quant_config.json, AutoGPTQ's quantize_config.json and AutoAWQ's quant_config.json.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "model/config.h"

namespace ma {

// A number format a quantization scheme names: bits and whether they are a float (E4M3, E2M1) or an integer.
struct QuantizedNumbers {
  uint32_t bits = 0;
  bool is_float = false;
  bool operator==(const QuantizedNumbers&) const = default;
};

// What a declaration says of the GEMMs' inputs. Engines quantize the activations to that format at run time
// and run the GEMM on its tensor cores (W8A8 fp8, W4A4 nvfp4, W8A8 int8); weight-only schemes keep them in
// the model's 16-bit dtype and dequantize the weights inside the GEMM.
enum class ActivationScheme : uint8_t {
  Unsaid,      // the declaration says nothing (GPTQ, AWQ, ...): the method's usual practice applies
  WeightOnly,  // said: activations stay 16-bit (compressed-tensors without input_activations, W4A16_AWQ)
  Quantized,   // said: quantized to `activations`
};

struct DeclaredQuantization {
  std::string key;     // a key of the method table, or the config's own lower-case name when unknown
  std::string source;  // e.g. "config.json quantization_config", "hf_quant_config.json"
  std::optional<uint32_t> bits;
  std::optional<uint64_t> group_size;
  std::vector<uint64_t> block;          // fp8 weight_block_size, e.g. {128, 128}
  bool per_channel = false;             // group_size -1: no groups, so no method default applies either
  std::vector<std::string> qualifiers;  // "act-order (desc_act)", "one scale per 128x128 block", ...
  std::vector<std::string> ignore;      // modules the config keeps unquantized (names or patterns)
  std::optional<DType> weight_dtype;    // when the config decides it (compressed-tensors)
  // The KV cache's dtype when the checkpoint was calibrated for a quantized cache (modelopt
  // kv_cache_quant_algo "FP8", compressed-tensors kv_cache_scheme): engines load it that way by default.
  std::optional<DType> kv_cache_dtype;
  std::string label;  // as the report names it: "bitsandbytes 4-bit (quantization_config)"
  // DeepSeek-V4's top-level expert_dtype "fp4": routed experts stored as MXFP4 (4-bit values and one E8M0
  // scale per 32), the other linears as the method says.
  std::optional<DType> expert_dtype;
  ActivationScheme activation_scheme = ActivationScheme::Unsaid;
  std::optional<QuantizedNumbers> activations;  // set when activation_scheme is Quantized
  std::optional<QuantizedNumbers> weights;      // compressed-tensors' weights type and num_bits
};

// nullopt when nothing declares quantization: config.json, then the side files in `root` (empty: none).
// Wrong types in a declaration are errors (ModelConfig::fail).
std::optional<DeclaredQuantization> read_declared_quantization(const ModelConfig& cfg,
                                                               const std::filesystem::path& root);

// A tensor GPTQ or AWQ stores for a linear layer in place of its weight: its shape and dtype.
struct PackedLinearTensor {
  Shape shape;
  DType dtype = DType::I32;
};

// What the declared method stores under `suffix` for a linear layer whose weight is `logical` [out, in]
// (AutoGPTQ's and AutoAWQ's QuantLinear), with b bits and G groups (in / group size, rounded up; 1 for
// group_size -1). GPTQ packs each 32 codes into b int32s, AWQ 32 / b whole codes into one:
//   GPTQ  qweight I32 [in / 32 x b, out]  qzeros I32 [G, out / 32 x b]  scales F16 [G, out]  g_idx I32 [in]
//   AWQ   qweight I32 [in, out x b / 32]  qzeros I32 [G, out x b / 32]  scales F16 [G, out]
//   both  bias F16 [out] (where a checkpoint stores one for a layer the model builds without: some
//         AutoGPTQ versions kept a bias for every layer)
// nullopt for another method or suffix, bits or a group size the config does not declare, or a width that
// does not pack into whole int32s. What an index alone lets the inventory predict for these tensors.
std::optional<PackedLinearTensor> packed_linear_tensor(const DeclaredQuantization& q, const Shape& logical,
                                                       std::string_view suffix);

// Matches module names against an ignore list as quantizers do: an entry names a module or any dotted run
// of its components ("lm_head", "mlp.gate"), '*' is a wildcard ("model.layers.*.self_attn"), and "re:"
// entries (compressed-tensors) are read when they are simple (".*", anchors, escaped dots).
class ModuleMatcher {
 public:
  explicit ModuleMatcher(const std::vector<std::string>& patterns);
  bool matches(std::string_view module) const;
  // Entries too complex to read (regular expressions beyond the simple forms); they match nothing.
  const std::vector<std::string>& unread() const { return unread_; }

 private:
  // A wildcard entry: the patterns it is tried as (itself, and as a dotted run: "p.*", "*.p", "*.p.*"; a
  // regex only whole), and its longest literal run, which a module must contain to match at all. That check
  // spares the glob matcher for nearly every module (NVIDIA's DeepSeek-V3-0324 lists 245 entries for 46,000
  // tensors).
  struct Glob {
    std::vector<std::string> patterns;
    std::string required;
  };
  std::vector<std::string> exact_;  // sorted
  std::vector<Glob> globs_;
  std::vector<std::string> unread_;
};

}  // namespace ma
