// Parameter totals of an inventory: the model as transformers builds it (tied weights once, buffers never),
// embedding vs non-embedding as transformers' num_parameters(exclude_embeddings=True) splits them, the
// parameters a text token runs through, and where the parameters are: by block kind, by layer of the main
// stack (and of the encoder beside a decoder), by stack. Every breakdown sums to the total exactly.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "model/inventory.h"

namespace ma {

struct BlockParameters {
  Block block;
  uint64_t parameters = 0;
};

struct StackParameters {
  StackRole role;
  uint64_t parameters = 0;
};

struct ParameterCounts {
  uint64_t total = 0;      // num_parameters
  uint64_t embedding = 0;  // nn.Embedding weights (token, position, token-type)
  uint64_t non_embedding = 0;
  uint64_t routed_experts = 0;  // all routed-expert weights
  // Vision and audio towers and their projectors, and a speech output (the omni models' talker and vocoder):
  // a text token never runs them.
  uint64_t towers = 0;
  // Per text token: the total less the towers, the multi-token-prediction layers counted in (a GGUF's nextn
  // layers, MiMo's), LoRA adapters kept inline for other modalities (Phi-4-multimodal's) and the routed
  // experts a token does not pick (total - towers - mtp - adapters - routed + routed x top_k / experts,
  // routed outside the MTP layers). Set for MoE, multimodal and MTP-carrying models.
  std::optional<uint64_t> active;
  // active less the text embedding tables (transformers' "non-embedding" convention: nn.Embedding tables
  // left out, an untied LM head, a Linear, counted). The figure vendors quote as "active parameters".
  std::optional<uint64_t> active_non_embedding;
  bool from_template = false;  // false: counted from stored tensors (no config)
  // Set when stored shapes contradict the config: the parameters the checkpoint holds. `total` is then the
  // model as configured, which will not load from these weights: exact for the config, not for the files.
  std::optional<uint64_t> as_stored;

  std::vector<BlockParameters> by_block;  // in Block order, blocks with parameters only
  std::vector<uint64_t> by_layer;         // the main stack's layers
  // The encoder's layers when the main stack is a decoder (T5, BART, Whisper); empty otherwise.
  std::vector<uint64_t> encoder_by_layer;
  // total - sum(by_layer) - sum(encoder_by_layer): embeddings, final norms, head, towers.
  uint64_t outside_layers = 0;
  std::vector<StackParameters> by_stack;  // decoder, encoder, towers (the rest of the model is in no stack)
  // Each recorded stack's (ArchitectureRecord::stacks order): its layers; a tower's tensors, those under
  // its own module when towers share a role (the rest of them count in by_stack's role only).
  std::vector<uint64_t> each_stack;
};

ParameterCounts count_parameters(const Inventory& inv);

}  // namespace ma
