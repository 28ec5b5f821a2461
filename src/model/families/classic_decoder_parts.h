// The pieces the decoders of the GPT-2 era share (classic_decoders.cpp, early_decoders.cpp): config keys
// spelt each class's own way, Conv1D or Linear projections, fused attention, two-matrix MLPs, biased
// LayerNorms, the decoder stack and a tied or untied head.
#pragma once
#include <array>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/families/decoder_common.h"
#include "model/model_template.h"

namespace ma::families::classic {

// A config field: the name the config class stores, and the alias it also accepts (its attribute_map, or a
// backward-compatibility kwarg). The stored name wins when both are present.
struct Key {
  std::string_view name;
  std::string_view alias = {};
};

struct DimKeys {
  Key hidden{"hidden_size"};
  Key layers{"num_hidden_layers"};
  Key heads{"num_attention_heads"};
  Key positions{"max_position_embeddings"};
};

// GPT-2's spelling, which GPT-J, GPT-BigCode and the first GPT share.
inline constexpr DimKeys kGpt2Keys{{"n_embd", "hidden_size"},
                                   {"n_layer", "num_hidden_layers"},
                                   {"n_head", "num_attention_heads"},
                                   {"n_positions", "max_position_embeddings"}};

std::string_view key_used(const ModelConfig& cfg, Key k);
uint64_t dim_of(const ModelConfig& cfg, Key k, uint64_t dflt);
// Vocabulary, width, depth, heads (all multi-head until the family says otherwise), positions and tying.
void read_dims(const ModelConfig& cfg, const DimKeys& k, const DecoderDefaults& d, ModelTemplate& t);
// An MLP width that defaults to four times the hidden size when the config leaves it out (or null).
uint64_t width_or_4x(const ModelConfig& cfg, std::string_view key, uint64_t hidden);
void check_kv_heads(const ModelConfig& cfg, std::string_view key, const ArchitectureRecord& a);

// nn.Linear stores [out, in]; GPT-2's Conv1D stores the transpose, [in, out].
enum class Weights { Linear, Conv1D };
void proj(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out, bool bias,
          Weights w = Weights::Linear);

using Names = std::array<std::string_view, 2>;  // the two projections of a block

// Up projection, activation, down projection.
void plain_mlp(ModelTemplate& t, const std::string& prefix, const Names& names, uint64_t hidden,
               uint64_t inter, bool bias, Weights w = Weights::Linear);
// One projection producing q, k and v side by side, then the output projection.
void fused_attention(ModelTemplate& t, const std::string& prefix, const Names& names,
                     const ArchitectureRecord& a, bool bias, Weights w = Weights::Linear);
void layer_norm(ModelTemplate& t, const std::string& prefix, uint64_t dim);

// Adds the tensors of every decoder layer through `body(prefix)`, each an attention + dense-MLP layer.
template <class Body>
void decoder_stack(ModelTemplate& t, const std::string& path, Body&& body) {
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, path);
  for (uint64_t i = 0; i < t.arch.num_layers; ++i) {
    body(path + "." + std::to_string(i));
    stack.layers.push_back(attention_layer(t.arch));
  }
}

// GPT2Model's modules under `prefix` ("transformer.", "encoder."): wte, wpe, the blocks (ln_1, attn, ln_2,
// the cross-attention add_cross_attention asks for, mlp) and ln_f, their weights laid out as `w` says.
void gpt2_body(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix, Weights w);

struct Head {
  uint64_t in = 0;  // 0: the hidden size
  bool bias = false;
  std::string disk_name;         // on-disk name of the weight when checkpoints spell it differently
  std::string name = "lm_head";  // the head's module (BioGPT: output_projection, GPT-NeoX: embed_out)
};

// The head, tied to the token embedding when the config ties them. Checkpoints written by older transformers
// store the tied copy anyway: that copy is expected, not an unknown tensor.
void causal_lm_head(ModelTemplate& t, const std::string& embedding, const Head& h = {});

}  // namespace ma::families::classic
