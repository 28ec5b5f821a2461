// What a config declares about the sequence length: the context length under the family's key (or the
// generic ones), rope scaling's original length, type and factor, T5-style relative buckets, and a speech
// encoder's frame count. Lengths come with the key they were read from, so the report can say where each
// figure comes from; values that are not usable lengths are listed, not guessed from.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"

namespace ma {

struct DeclaredLength {
  uint64_t value = 0;
  std::string key;  // where it was read, e.g. "text_config.max_position_embeddings"
};

struct ContextDeclaration {
  std::optional<DeclaredLength> declared;       // the context length the config states
  std::optional<DeclaredLength> rope_original;  // rope scaling's original_max_position_embeddings
  std::string rope_type;                        // "" for plain RoPE (or none)
  std::optional<double> rope_factor;
  bool relative_buckets = false;           // relative_attention_num_buckets: trained length, no hard limit
  std::optional<uint64_t> encoder_frames;  // max_source_positions (speech encoders)
  std::vector<std::string> unusable;       // "KEY is not a usable length (VALUE): ignored"
};

// `context_keys`: the family's keys for the length, space-separated, in order (empty: the generic ones).
ContextDeclaration read_context_declaration(const ModelConfig& cfg, std::string_view context_keys);

}  // namespace ma
