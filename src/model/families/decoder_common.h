// Shared pieces of decoder-only language models: the numbers most configs spell the same way, and the
// embedding / final norm / LM head every causal LM ends with.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

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
  // intermediate_size may be a list of one width per layer (Gemma 3n's MatFormer slices), which the family
  // reads itself: a.intermediate_size is left to it.
  bool intermediate_list = false;
};

// Reads the common dimensions into t.arch (vocab, hidden, layers, heads, kv heads, head dim, intermediate,
// max positions, tie) and checks that heads divide evenly. Family-specific fields stay with the family.
void read_decoder_dims(const ModelConfig& cfg, const DecoderDefaults& d, ModelTemplate& t);

// `prefix`.embed_tokens.weight [V, H].
void token_embedding(ModelTemplate& t, const std::string& name, const ArchitectureRecord& a);
// lm_head.weight, tied to `embedding_name` when the architecture ties them.
void lm_head(ModelTemplate& t, const std::string& embedding_name, const ArchitectureRecord& a,
             const std::string& name = "lm_head.weight");

// Attention dims of a standard GQA/MHA layer from t.arch.
blocks::Attention standard_attention(const ArchitectureRecord& a);
// A softmax-attention layer with the record's default heads (MHA / GQA / MQA from their counts), sliding over
// `window` tokens when non-zero, followed by `ffn`. Heads, head dim and FFN widths left at 0 are filled from
// the record's dimensions after the builder runs (complete_layer_shapes, model/layer_shapes.h).
LayerSpec attention_layer(const ArchitectureRecord& a, uint64_t window = 0, Ffn ffn = Ffn::Dense);
// A vision tower in the record: `layers` bidirectional MHA + MLP layers of `heads` x `head_dim`, embedding
// images of `image` pixels a side (0: any size) in `patch`-pixel patches. Its tensors sit under `path`.
void record_vision_tower(ModelTemplate& t, std::string path, uint64_t hidden, uint64_t layers, uint64_t heads,
                         uint64_t head_dim, uint64_t intermediate, uint64_t patch, uint64_t image);
// The projector that maps the tower's features to the language model's width.
void record_projector(ModelTemplate& t, std::string path);

// sliding_window, or `dflt` when absent; 0 when the config gives null (a model without windows).
uint64_t window_or_none(const ModelConfig& cfg, uint64_t dflt);

// Per layer, whether its MLP is the routed mixture: mlp_layer_types ("dense" or "sparse" per layer) when the
// config lists it, else the first `leading_dense` layers dense (DeepSeek-V3.2 / GLM-5: first_k_dense_replace;
// Laguna, GLM-4.7-Flash: one).
std::vector<bool> sparse_from_mlp_layer_types(const ModelConfig& cfg, uint64_t layers,
                                              uint64_t leading_dense);

// Qwen2/Qwen3 windows, as their transformers configs derive layer_types: with use_sliding_window, layers from
// max_window_layers on slide over sliding_window tokens; an explicit layer_types always wins.
std::vector<uint64_t> qwen_windows(const ModelConfig& cfg, uint64_t layers,
                                   uint64_t max_window_layers_default);
// A window of `window` tokens (0: full attention), sliding unless `span` says chunked.
void set_window(AttentionShape& at, uint64_t window, Span span = Span::Sliding);

}  // namespace ma::families
