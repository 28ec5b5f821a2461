#include "analysis/builder/layer_catalogue.h"

#include <algorithm>

#include "core/error.h"
#include "core/json.h"
#include "io/file_source.h"

namespace ma {
namespace {

constexpr uint64_t kMaxCatalogueBytes = 1 << 20;  // a list of class names: a megabyte is already absurd

Error malformed(const std::string& path, const std::string& field, const std::string& rule) {
  return Error(ErrorKind::Malformed, path, field, rule);
}

std::string text_of(const json::Value& v, const std::string& path, const std::string& field) {
  if (!v.is_string() || v.as_string().empty()) throw malformed(path, field, "must be a non-empty string");
  return std::string(v.as_string());
}

TargetClass class_of(const json::Value& v, const std::string& path, const std::string& field) {
  if (!v.is_object()) throw malformed(path, field, "must be an object with \"name\" and \"arguments\"");
  for (const json::Member& m : v.members())
    if (m.key != "name" && m.key != "arguments")
      throw malformed(path, field + "." + std::string(m.key), "unknown key (allowed: name, arguments)");
  const json::Value* name = v.find("name");
  const json::Value* args = v.find("arguments");
  if (!name) throw malformed(path, field + ".name", "is missing");
  if (!args || !args->is_array()) throw malformed(path, field + ".arguments", "must be a list of strings");
  TargetClass c{text_of(*name, path, field + ".name"), {}};
  for (size_t i = 0; i < args->items().size(); ++i) {
    const std::string f = field + ".arguments[" + std::to_string(i) + "]";
    c.arguments.push_back(text_of(args->items()[i], path, f));
    if (std::count(c.arguments.begin(), c.arguments.end(), c.arguments.back()) > 1)
      throw malformed(path, f, "names '" + printable(c.arguments.back()) + "' twice");
  }
  return c;
}

}  // namespace

const TargetClass* LayerCatalogue::find(std::string_view name) const {
  for (const TargetClass& c : classes)
    if (c.name == name) return &c;
  return nullptr;
}

LayerCatalogue default_layer_catalogue() {
  // Mantile's backend/layers/ (reference/mantile.md): attention.py, swa.py, mlp.py, moe.py, norm.py,
  // embedding.py.
  return {"mantile (built-in)",
          {
              {"AttentionLayer", {"layer_idx", "hidden_size", "num_heads", "head_dim"}},
              {"GroupedQueryAttentionLayer",
               {"layer_idx", "hidden_size", "num_heads", "num_kv_heads", "head_dim"}},
              {"SlidingWindowAttentionLayer",
               {"layer_idx", "hidden_size", "num_query_heads", "num_kv_heads", "head_dim", "sliding_window",
                "num_sinks", "has_bias"}},
              {"MLPLayer", {"layer_idx", "hidden_size", "intermediate_size", "num_projections"}},
              {"GatedMLPLayer", {"layer_idx", "hidden_size", "intermediate_size"}},
              {"MoELayer",
               {"layer_idx", "hidden_size", "intermediate_size", "num_experts", "top_k", "num_shared_experts",
                "num_projections", "has_bias"}},
              {"NormLayer", {"layer_idx", "hidden_size", "has_bias"}},
              {"EmbeddingLayer", {"vocab_size", "hidden_size"}},
          }};
}

LayerCatalogue load_layer_catalogue(const std::string& path) {
  const json::Document doc = json::Document::parse(read_small_file(path, kMaxCatalogueBytes), path);
  const json::Value& root = doc.root();
  if (!root.is_object()) throw malformed(path, "(root)", "must be an object with a \"classes\" list");
  for (const json::Member& m : root.members())
    if (m.key != "classes") throw malformed(path, std::string(m.key), "unknown key (allowed: classes)");
  const json::Value* classes = root.find("classes");
  if (!classes || !classes->is_array()) throw malformed(path, "classes", "must be a list of classes");
  LayerCatalogue cat{path, {}};
  for (size_t i = 0; i < classes->items().size(); ++i) {
    const std::string field = "classes[" + std::to_string(i) + "]";
    TargetClass c = class_of(classes->items()[i], path, field);
    if (cat.find(c.name))
      throw malformed(path, field + ".name", "class '" + printable(c.name) + "' listed twice");
    cat.classes.push_back(std::move(c));
  }
  return cat;
}

}  // namespace ma
