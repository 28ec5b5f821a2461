// The exact tensor inventory an architecture implies: what `transformers` builds in memory (names, shapes,
// ties, buffers) and, for each tensor, how Hub checkpoints store it on disk when that differs (experts stored
// one tensor per expert, renamed prefixes). Family builders (model/families/) produce it from a config.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "model/architecture.h"
#include "model/tensor_placement.h"

namespace ma {

enum class TensorKind : uint8_t {
  Parameter,  // a learned weight of the model
  Buffer,     // state saved with the model but not learned (rotary inv_freq, causal-mask bias, position ids)
  Extra,      // stored but not part of the model transformers builds (MTP layers): not loaded for inference
  QuantizationScale,  // scales, zero points and group indices of quantized weights
};
std::string_view tensor_kind_name(TensorKind k);

struct DiskPiece {
  std::string name;
  Shape shape;
  // Stored dtype and kind when they differ from the model's (gpt-oss's MXFP4 expert blocks are U8, their
  // scales are quantization scales); unset: the checkpoint's dtype, the tensor's kind.
  std::optional<DType> dtype = std::nullopt;
  std::optional<TensorKind> kind = std::nullopt;
};

// The on-disk form of a fused routed-experts tensor in checkpoints that store one tensor per expert:
// `prefix`.{e}.`part.suffix` for each expert e, parts in order. Kept as a pattern because spelling the names
// out would make a DeepSeek-V3 template hold 45,000 strings (fresh memory dominates inventory time).
struct PerExpertPieces {
  struct Part {
    std::string suffix;  // e.g. "gate_proj.weight"
    Shape shape;         // of one expert's tensor
    // As DiskPiece's: DeepSeek-V4's FP4 experts store packed I8 weights and F8_E8M0 scales.
    std::optional<DType> dtype = std::nullopt;
    std::optional<TensorKind> kind = std::nullopt;
  };
  std::string prefix;  // e.g. "model.layers.3.mlp.experts"
  uint32_t experts = 0;
  std::vector<Part> parts;
  // The index on disk of expert 0: two banks may share one prefix, numbered one after the other
  // (ERNIE-4.5-VL stores its vision experts after its text ones).
  uint32_t first = 0;

  std::string name(uint32_t expert, size_t part) const;
  uint64_t pieces() const { return uint64_t{experts} * parts.size(); }
};

struct TemplateTensor {
  std::string name;  // in-memory name, as transformers' state_dict() has it
  Shape shape;
  TensorKind kind = TensorKind::Parameter;
  std::string tied_to;         // in-memory name of the parameter whose storage this one shares
  bool embedding = false;      // an nn.Embedding weight: transformers' exclude_embeddings drops it
  bool routed_expert = false;  // weights of routed experts: only top-k of them are active per token
  bool stored = true;          // false for tied copies: checkpoints store the storage once
  // A fixed table transformers computes when it loads the model (Pegasus' sinusoidal positions): a parameter
  // it counts, that checkpoints may leave out without anything missing.
  bool rebuilt_on_load = false;
  // Stored inside another tensor's disk piece, which holds it with others (Kimi-K2.5's vision tower stores
  // q_proj, k_proj and v_proj as one wqkv, the disk piece of q_proj): no disk form of its own.
  bool fused_on_disk = false;
  std::vector<DiskPiece> disk;                // on-disk form when it differs from {name, shape}
  std::optional<PerExpertPieces> per_expert;  // on-disk form as one tensor per expert (then `disk` is empty)
  // place_tensor(name), set by build_template once the builder has settled every name: the analyses that
  // walk the template (parameter counts, adapters, simulator components) read it instead of placing every
  // name again on their own thread (count_parameters took ~1 ms of DeepSeek-V3's inventory, all serial).
  TensorPlacement placement;
};

struct ModelTemplate {
  ArchitectureRecord arch;  // what the model is: stacks, layers, shapes (model/architecture.h)
  std::vector<TemplateTensor> tensors;
  // On-disk name prefixes that checkpoints of this architecture carry but transformers does not build
  // (DeepSeek-V3's multi-token-prediction layer): labelled as extras with this reason, without a warning.
  struct KnownExtra {
    std::string prefix;
    std::string reason;
  };
  std::vector<KnownExtra> known_extras;

  // Every tensor and on-disk piece a builder creates is charged here; a config implying more than
  // kMaxTemplateEntries (a corrupt or hostile num_hidden_layers x num_experts) fails with Error(Limit) before
  // memory is exhausted. The largest real checkpoints store under 100,000 tensors (DeepSeek-V3: 45,395;
  // Qwen3-Next-80B: about 74,000); a million entries costs about 0.4 GB and half a second at most.
  static constexpr uint64_t kMaxTemplateEntries = 1'000'000;
  uint64_t entries = 0;
  void charge(uint64_t n);

  // Appends a parameter; returns it for further flags.
  TemplateTensor& add(std::string name, Shape shape);
  // Declares `name` as a tied copy of `target` (stored once, counted once).
  TemplateTensor& tie(std::string name, const std::string& target);
  // Applies a prefix rename to the on-disk names of all tensors (e.g. "model." -> "backbone.").
  void rename_on_disk(std::string_view memory_prefix, std::string_view disk_prefix);
  // Moves a module to another name in memory and on disk alike: names, ties, disk pieces, extras' prefixes
  // and stack paths (a question-answering class that holds the base model as `transformer`, not `model`;
  // with `from` empty, a nested model put under its composite's prefix).
  void rename_module(std::string_view from, std::string_view to);
  // Puts the tensors under `module_prefixes` in that order, within the places they already take (the others
  // stay where they are): a builder that must build a module after another it reads its width from can
  // still list tensors in the order transformers registers the modules (Gemma 3's projector, built after
  // the language model, registered before it).
  void order_modules(std::initializer_list<std::string_view> module_prefixes);
};

// The stored form of a template: every on-disk tensor name with its shape, in template order.
struct DiskTensor {
  std::string name;
  Shape shape;
  size_t template_index;  // which TemplateTensor it belongs to
};
std::vector<DiskTensor> disk_form(const ModelTemplate& t);

}  // namespace ma
