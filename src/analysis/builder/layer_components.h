// The model cut into the pieces a layer-by-layer simulator instantiates: every attention, MLP, MoE, norm,
// embedding, head, recurrent mixer and tower of the template, one instance each, with the tensors it owns
// and the facts its constructor needs. Every parameter transformers counts lands in exactly one instance, so
// the instances' parameters sum to the model's total.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "model/architecture.h"
#include "model/inventory.h"

namespace ma {

// One name table (layer_components.cpp).
enum class ComponentKind : uint8_t {
  Attention,  // MHA / GQA / MQA softmax attention, full, sliding or chunked
  Mla,
  Mamba,
  Mamba2,
  LinearAttention,
  CrossAttention,
  DenseMlp,
  Moe,
  Norm,
  Embedding,
  LmHead,
  Mtp,
  VisionTower,
  AudioTower,
  Projector,
  Other,
};
// Each kind's names, one table (layer_components.cpp): the config entry it becomes and the simulator class it
// maps to (Mantile's where it has one; otherwise the name a simulator would give the missing class, which a
// catalogue file may add). Attention and MLPs refine the class by their facts (simulator_config.cpp).
struct ComponentKindInfo {
  ComponentKind kind;
  std::string_view entry;            // "mla_attention"
  std::string_view simulator_class;  // "MLAAttentionLayer"
};
const ComponentKindInfo& component_kind_info(ComponentKind k);

// A constructor argument's value: unknown (null), a count, or a flag.
using FactValue = std::variant<std::monostate, uint64_t, bool>;
using Facts = std::vector<std::pair<std::string, FactValue>>;  // in a stable order
const FactValue* find_fact(const Facts& facts, std::string_view name);

struct ComponentTensor {
  std::string name;  // in-memory name, as transformers' state_dict() has it
  Shape shape;
  bool routed_expert = false;
  bool shared_expert = false;  // a shared expert's weight: an MoE's shared-expert arguments count these
  bool lookup = false;         // an embedding table read by index: multiplied by nothing
};

struct ComponentInstance {
  ComponentKind kind = ComponentKind::Other;
  StackRole stack = StackRole::Decoder;  // of the layer it sits in; Decoder for what is outside the stacks
  bool main_stack = true;                // in the language model's stack or outside every stack
  std::optional<uint64_t> layer;         // index inside its stack
  std::string variant;  // tells apart instances of one kind: the embedding's role, the norm's module
  Facts facts;          // hidden_size, num_heads, ... (no layer_idx, no parameter_count)
  uint64_t parameters = 0;
  std::vector<ComponentTensor> tensors;
  // Copies of another instance's parameter that this one multiplies by (BERT's MLM decoder, tied to the word
  // embeddings): they say its shape, and their parameters are counted where they are stored.
  std::vector<ComponentTensor> tied;
  // False for what checkpoints store but transformers does not build (DeepSeek's and GLM's multi-token-
  // prediction layers): listed, with its parameters, outside the model's total.
  bool in_total_params = true;
};

// The instances of every parameter transformers counts, then those of the multi-token-prediction layers the
// template keeps as extras (in_total_params false). Throws Error(Unsupported) when the inventory has no
// template (bare weights: no config to build from).
std::vector<ComponentInstance> split_into_components(const Inventory& inv);

}  // namespace ma
