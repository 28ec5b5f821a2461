// The normalized architecture: the numbers every later analysis (memory, KV cache, FLOPs) needs, whatever
// the family spelled them as in its config.
#pragma once
#include <cstdint>
#include <string>

namespace ma {

struct ArchSpec {
  std::string model_type;    // config.json model_type (of the language model for multimodal configs)
  std::string architecture;  // the transformers class the template mirrors, e.g. "LlamaForCausalLM"
  uint64_t hidden_size = 0;
  uint64_t num_layers = 0;
  uint64_t vocab_size = 0;
  uint64_t num_attention_heads = 0;
  uint64_t num_key_value_heads = 0;
  uint64_t head_dim = 0;
  uint64_t intermediate_size = 0;
  uint64_t max_position_embeddings = 0;
  // Mixture of experts (0 when dense).
  uint64_t num_experts = 0;
  uint64_t experts_per_token = 0;
  uint64_t num_shared_experts = 0;
  uint64_t moe_intermediate_size = 0;
  bool tie_word_embeddings = false;
  std::string torch_dtype;  // as declared in config.json ("bfloat16"), empty if absent
};

}  // namespace ma
