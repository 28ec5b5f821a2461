// The architecture as a user reads it: every field seed 002 shows plus norm type, activation, position
// embedding, rope type/theta/scaling, tied embeddings and bias flags.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/parameter_counts.h"
#include "model/architecture.h"

namespace ma {

// One stack of the model as the report shows it (encoder, decoder, a vision tower, the projector, the MTP
// module), with the parameters it holds (MTP: the stored extras it holds, not in the model's total).
struct StackSummary {
  StackRole role = StackRole::Decoder;
  std::string path;
  uint64_t layers = 0;
  uint64_t hidden = 0;
  uint64_t heads = 0;  // of its first attention layer; 0: none or unknown
  uint64_t patch_size = 0, image_size = 0, mel_bins = 0, positions = 0;
  uint64_t parameters = 0;
  bool shared_weights = false;  // every layer runs the same stored weights (ALBERT)
  // false for an MTP module transformers does not build (DeepSeek's safetensors: checkpoint extras, outside
  // the total); true for every other stack, and for MTP layers the model counts (a GGUF's nextn layers, as
  // llama.cpp counts them; MiMo's). Counted or not, an MTP module is not in the active count.
  bool counted_in_total = true;
  uint64_t stored_bytes = 0;  // MTP: what its tensors take in the checkpoint (0 for the other stacks)
};

// What a checkpoint stores of the MTP module: the parameters of its extras (DeepSeek's layers, which
// transformers does not build) and the bytes of all its tensors.
struct StoredModule {
  uint64_t parameters = 0;
  uint64_t bytes = 0;
};

struct ArchitectureDetails {
  // decoder-only | encoder-only | encoder-decoder | hybrid (attention with SSM or linear-attention layers) |
  // ssm; empty: unknown
  std::string architecture_type;
  uint64_t num_hidden_layers = 0;  // of the language model's main stack
  uint64_t encoder_layers = 0;     // encoder-decoders and encoders; 0: none
  uint64_t decoder_layers = 0;     // 0: none (encoder-only)
  bool hand_derived = false;       // the template was derived by hand from the model's own code
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
  bool use_cache = true;  // config.json use_cache (seed 002's field)
  bool attention_bias = false;
  bool mlp_bias = false;
  std::string torch_dtype;
  std::string stored_dtype;          // of the unquantized float weights ("bf16"); empty: unknown
  std::string stored_dtype_source;   // "config.json torch_dtype", "safetensors headers", "index total_size"
  std::vector<StackSummary> stacks;  // every stack, decoder first
};

// `params`: the counts by stack; `mtp`: what the checkpoint (or the template's prediction of it) stores of
// the MTP module.
ArchitectureDetails describe_architecture(const ArchitectureRecord& arch, const ParameterCounts& params,
                                          const StoredModule& mtp);

}  // namespace ma
