#include "model/context_declaration.h"

#include "model/family_table.h"

namespace ma {
namespace {

// Where configs keep their context length when the family table names none, in order of precedence.
constexpr std::string_view kGenericContextKeys =
    "max_position_embeddings n_positions max_sequence_length seq_length max_seq_len model_max_length";

// A positive integer length, or nullopt with a note when the value is unusable (configs are untrusted; a
// tokenizer-style 1e30 "infinite" sentinel or a string is not a context length).
std::optional<uint64_t> length_field(const json::Value* v, const std::string& where,
                                     std::vector<std::string>& unusable) {
  if (!v || v->is_null()) return std::nullopt;
  auto n = v->as_uint();
  if (n && *n >= 1 && *n <= ModelConfig::kMaxValue) return n;
  unusable.push_back(where + " is not a usable length (" +
                     std::string(v->is_number() ? v->raw() : "not a number") + "): ignored");
  return std::nullopt;
}

std::string where(const ModelConfig& c, std::string_view key) {
  return c.path().empty() ? std::string(key) : c.path() + "." + std::string(key);
}

std::optional<DeclaredLength> length_at(const ModelConfig& c, std::string_view key, ContextDeclaration& d) {
  const std::string at = where(c, key);
  if (auto n = length_field(c.raw(key), at, d.unusable)) return DeclaredLength{*n, at};
  return std::nullopt;
}

// rope_scaling, or transformers 5's rope_parameters (per layer type for Gemma-4 / Laguna: the full-attention
// layers' entry is the one that sets the reach).
void read_rope(const std::vector<ModelConfig>& objs, ContextDeclaration& d) {
  for (const ModelConfig& c : objs) {
    const json::Value* rope = c.raw("rope_scaling");
    std::string key = "rope_scaling";
    if (!rope || !rope->is_object()) rope = c.raw("rope_parameters"), key = "rope_parameters";
    if (!rope || !rope->is_object()) continue;
    if (const json::Value* full = rope->find("full_attention"); full && full->is_object()) {
      rope = full;
      key += ".full_attention";
    }
    for (std::string_view k : {"rope_type", "type"})
      if (const json::Value* t = rope->find(k); t && t->is_string() && d.rope_type.empty())
        d.rope_type = t->as_string();
    if (const json::Value* f = rope->find("factor"); f && f->is_number() && f->as_double() > 0)
      d.rope_factor = f->as_double();
    const std::string okey = where(c, key + ".original_max_position_embeddings");
    if (auto n = length_field(rope->find("original_max_position_embeddings"), okey, d.unusable))
      d.rope_original = DeclaredLength{*n, okey};
    break;
  }
  for (const ModelConfig& c : objs) {
    if (d.rope_original) break;
    d.rope_original = length_at(c, "original_max_position_embeddings", d);
  }
  if (d.rope_type == "default") d.rope_type.clear();  // "default" is plain RoPE: no scaling
}

}  // namespace

ContextDeclaration read_context_declaration(const ModelConfig& cfg, std::string_view context_keys) {
  ContextDeclaration d;
  const std::vector<ModelConfig> objs = cfg.language_first();
  for (std::string_view key : list_items(context_keys.empty() ? kGenericContextKeys : context_keys)) {
    for (const ModelConfig& o : objs)
      if ((d.declared = length_at(o, key, d))) break;
    if (d.declared) break;
  }
  read_rope(objs, d);
  d.relative_buckets = cfg.has("relative_attention_num_buckets");
  if (auto src = length_field(cfg.raw("max_source_positions"), "max_source_positions", d.unusable))
    d.encoder_frames = src;
  return d;
}

}  // namespace ma
