// The exact tensor inventory of a local model: the checkpoint's own tensors when headers are at hand, the
// architecture template's otherwise (a dry run), each placed in its layer/block/role and labelled
// parameter / buffer / extra / quantization-scale; plus every difference between the two as a warning.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "formats/checkpoint.h"
#include "formats/model_files.h"
#include "formats/tokenizer.h"
#include "model/config.h"
#include "model/model_template.h"
#include "model/tensor_placement.h"

namespace ma {

// Fields ordered widest first, so that a row takes 152 bytes, not 168: DeepSeek-V3 has 46,183 of them.
struct InventoryTensor {
  std::string name;  // on-disk name (Hub checkpoint convention)
  Shape shape;
  uint64_t parameters = 0;  // elements; 0 for tied copies (counted at the tensor they share)
  uint64_t bytes = 0;       // stored bytes; 0 for tied copies
  TensorPlacement placement;
  std::string_view tied_to;  // a name the inventory owns (template, tie_targets); empty if not tied
  // A quantized packing of a matrix the model builds (GPTQ/AWQ qweight, compressed-tensors weight_packed,
  // NVFP4's two codes a byte): that matrix's shape, the template's, which the inventory owns; null otherwise.
  // `shape` stays the stored one.
  const Shape* logical_shape = nullptr;
  std::optional<uint32_t> file_index;
  std::optional<DType> dtype;  // stored dtype, or the config's torch_dtype in a dry run
  TensorKind kind = TensorKind::Parameter;
  bool shape_known = true;  // false for index names the template does not predict
  bool routed_expert = false;
  bool embedding = false;
  bool stored = true;  // present in the checkpoint (or would be, in a dry run)
  // Without headers: the template says how this tensor is stored (a DiskPiece's dtype: gpt-oss's MXFP4
  // blocks, DeepSeek-V4's FP8, FP4 and float32 tensors), so `dtype` is a fact, not the config's dtype.
  bool template_dtype = false;

  // The module-list prefix the layer index belongs to ("model.layers"); empty outside stacks.
  std::string_view stack() const { return std::string_view(name).substr(0, placement.stack_length); }
};

// Where the tensor list came from.
enum class InventoryOrigin { Headers, Template, IndexAndTemplate };
std::string_view origin_name(InventoryOrigin o);

struct CheckpointTotals {
  uint64_t files = 0;
  uint64_t tensors = 0;
  uint64_t parameters = 0;  // elements of stored parameter tensors
  uint64_t buffers = 0;     // count of stored buffer tensors
  uint64_t buffer_elements = 0;
  uint64_t extras = 0;  // count of stored tensors the model does not build
  uint64_t extra_elements = 0;
  uint64_t quantization_scales = 0;  // count
  uint64_t quantization_scale_elements = 0;
  uint64_t bytes = 0;       // tensor data bytes (exact with headers; predicted from an index)
  uint64_t file_bytes = 0;  // sum of file sizes including headers (headers only)
  bool headers_read = false;
  std::string format = "safetensors";        // of the files read: "pytorch zip", "pytorch legacy"
  std::optional<uint64_t> index_total_size;  // metadata.total_size of the index
};

// Move-only: tensors' tied_to views point into `model` or `tie_targets`.
struct Inventory {
  Inventory() = default;
  Inventory(Inventory&&) = default;
  Inventory& operator=(Inventory&&) = default;
  Inventory(const Inventory&) = delete;
  Inventory& operator=(const Inventory&) = delete;

  std::string source;
  InventoryOrigin origin = InventoryOrigin::Template;
  std::optional<ModelConfig> config;   // the parsed config.json, when there is one
  std::optional<ModelTemplate> model;  // absent when there is no config (bare weights)
  std::vector<InventoryTensor> tensors;
  // The names PyTorch ties repeat (their rows' tied_to views them): filled once, so never reallocated.
  std::vector<std::string> tie_targets;
  // What the model is (model/architecture.h): the template's record, or without a config what the tensor
  // names tell (stacks and layer kinds, no dimensions). Analyses read this, never the config.
  ArchitectureRecord arch;
  std::optional<CheckpointTotals> checkpoint;
  // Stored tensors whose shape contradicts the config (transformers would refuse to load them); 0: none.
  size_t shape_contradictions = 0;
  std::vector<std::string> warnings;  // template vs checkpoint differences, index size disagreements
  std::vector<std::string> notes;     // what the user should know about the mode (an index without shards)
  // A tokenizer stored inside the weights file (GGUF's tokenizer.ggml.*), preferred to files beside it.
  std::optional<TokenizerInfo> embedded_tokenizer;
};

// Reads what is there (config, index, safetensors headers) and assembles the inventory.
Inventory build_inventory(const LocalModelFiles& files);

// The same, except that a config whose architecture has no template gives the inventory of what the config
// states (identity, context, dimensions; no tensors, no layers) with a warning saying so, instead of
// Error(Unsupported): naming a model and its context needs no template.
Inventory build_inventory_or_identity(const LocalModelFiles& files);
// The inventory a config alone implies, from its text (a config rebuilt from a simulator config, not a
// file): the template's tensors at the config's dtype. `source`: what the user named.
Inventory inventory_from_config_text(const std::string& config_json, const std::string& source);

// That inventory for a config alone (`source`: what the user named).
Inventory identity_only_inventory(ModelConfig cfg, std::string source, const std::string& why);

}  // namespace ma
