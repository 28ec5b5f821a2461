// The dtype a checkpoint stores its unquantized floating-point weights in: the model's dtype, which memory,
// activations and the KV cache follow. config.json declares it as torch_dtype (or dtype); older configs
// (BLOOM, gpt-oss, granite) do not, and transformers' float32 default would then be wrong for the bytes the
// checkpoint holds. The checkpoint itself tells: its headers name every dtype, and an index's total_size
// settles the width of the weights the template predicts.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace ma {

struct InventoryTensor;
class ModelConfig;

struct StoredDtype {
  DType dtype = DType::F32;
  std::string source;  // "config.json torch_dtype", "safetensors headers", "index total_size"
};

// The model's dtype where neither the config nor the checkpoint tells it: 16 bits, what inference runs in
// (not transformers' float32 build default), as bfloat16: what recent checkpoints store, and the name an
// index's total_size gives 16-bit weights (dtype_from_total_size), so gpt-oss-20b (an index) and -120b (a
// config alone) read alike. Memory and the cache assume it, and so do the unquantized tensors of a quantized
// checkpoint predicted from its config (gpt-oss stores them in bf16).
inline constexpr DType kAssumedModelDtype = DType::BF16;

// The declared torch_dtype when it names a float dtype of 16 bits or more.
std::optional<DType> declared_float_dtype(const std::string& torch_dtype);

// Fails (exit 3, naming the file and field) when the config declares its dtype (torch_dtype or dtype, at the
// top level or in a text_config) by a name that is no dtype ("float128") or by something else than a name:
// transformers looks the name up in torch (getattr(torch, name)) and cannot load such a config, and the
// figures would otherwise rest on a guessed width (float32 for the compute dtype: twice the memory of a
// 16-bit model). "auto" and null declare nothing.
void check_declared_dtype_names(const ModelConfig& cfg);

// From headers: the float dtype of 16 bits or more holding the most parameter elements (quantized weights
// in 8 or 4 bits are the quantization's, not the model's dtype).
std::optional<DType> dtype_in_headers(const std::vector<InventoryTensor>& rows);

// The same in parts, for rows counted where they are built: stored parameter elements per dtype (indexed by
// the dtype's value), then the dtype that answer names.
using ElementsByDtype = std::array<uint64_t, 256>;
void count_elements(const InventoryTensor& row, ElementsByDtype& elements);
std::optional<DType> dominant_float_dtype(const ElementsByDtype& elements);

// From an index alone: the width w (float32 or 16-bit) at which fixed_bytes + float_elements x w comes
// within 1% of total_size (tensors the template cannot shape, such as rotary inv_freq buffers, account for
// the rest). 16 bits is reported as bf16: an index cannot tell bf16 from fp16, and the bytes are the same.
std::optional<DType> dtype_from_total_size(uint64_t total_size, uint64_t fixed_bytes,
                                           uint64_t float_elements);

}  // namespace ma
