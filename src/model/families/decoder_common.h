// Shared pieces of decoder-only language models: the numbers most configs spell the same way, and the
// embedding / final norm / LM head every causal LM ends with.
#pragma once
#include <cstdint>
#include <string>

#include "model/blocks.h"
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// Defaults of the family's transformers config class, used when config.json omits a field.
struct DecoderDefaults {
  uint64_t vocab_size = 32000;
  uint64_t hidden_size = 4096;
  uint64_t intermediate_size = 11008;
  uint64_t num_hidden_layers = 32;
  uint64_t num_attention_heads = 32;
  uint64_t num_key_value_heads = 0;  // 0: same as num_attention_heads
  uint64_t head_dim = 0;             // 0: hidden_size / num_attention_heads
  bool tie_word_embeddings = false;
  uint64_t max_position_embeddings = 2048;
};

// Reads the common dimensions into t.arch (vocab, hidden, layers, heads, kv heads, head dim, intermediate,
// max positions, tie) and checks that heads divide evenly. Family-specific fields stay with the family.
void read_decoder_dims(const ModelConfig& cfg, const DecoderDefaults& d, ModelTemplate& t);

// `prefix`.embed_tokens.weight [V, H].
void token_embedding(ModelTemplate& t, const std::string& name, const ArchSpec& a);
// lm_head.weight, tied to `embedding_name` when the architecture ties them.
void lm_head(ModelTemplate& t, const std::string& embedding_name, const ArchSpec& a,
             const std::string& name = "lm_head.weight");

// Attention dims of a standard GQA/MHA layer from t.arch.
blocks::Attention standard_attention(const ArchSpec& a);
// "mha" / "gqa" / "mqa" from head counts.
std::string attention_kind(uint64_t heads, uint64_t kv_heads);

}  // namespace ma::families
