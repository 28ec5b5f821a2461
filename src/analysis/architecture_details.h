// The architecture as a user reads it: every field seed 002 shows plus norm type, activation, position
// embedding, rope type/theta/scaling, tied embeddings and bias flags.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/architecture.h"

namespace ma {

struct ArchitectureDetails {
  // decoder-only | encoder-only | encoder-decoder | hybrid (attention with SSM or linear-attention layers) |
  // ssm; empty: unknown
  std::string architecture_type;
  uint64_t num_hidden_layers = 0;
  uint64_t hidden_size = 0;
  uint64_t intermediate_size = 0;
  uint64_t num_attention_heads = 0;
  uint64_t num_key_value_heads = 0;
  uint64_t head_dim = 0;
  uint64_t vocab_size = 0;
  uint64_t max_position_embeddings = 0;
  std::string norm_type;  // rmsnorm | layernorm; empty: unknown
  std::optional<double> norm_eps;
  std::string activation;          // silu, gelu, gelu_pytorch_tanh, relu, ...; empty: not in the config
  std::string mlp_type;            // gated (SwiGLU/GeGLU) | plain | none (no MLP: Mamba)
  std::string position_embedding;  // rope | learned | alibi | relative (T5) | none; empty: unknown
  std::optional<RopeSpec> rope;
  bool tie_word_embeddings = false;
  bool attention_bias = false;
  bool mlp_bias = false;
  std::string torch_dtype;
};

ArchitectureDetails describe_architecture(const ArchitectureRecord& arch);

}  // namespace ma
