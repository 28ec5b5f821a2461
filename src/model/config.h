// Typed, validated access to a config.json object (or a nested one such as text_config). Missing or null
// fields take the default the family's transformers config class uses; present fields of the wrong type or
// out of range are errors naming the file and the field, never silently coerced.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace ma {

class ModelConfig {
 public:
  // Parses a config file's text; the returned config owns its document.
  static ModelConfig parse(std::string text, const std::string& file);

  const std::string& file() const { return *file_; }
  // Dotted path of this object inside the file ("" for the root, "text_config" for a nested one).
  const std::string& path() const { return path_; }

  bool has(std::string_view key) const;  // present and not null
  const json::Value* raw(std::string_view key) const;

  // Integer fields are capped at kMaxValue: larger values are corrupt configs. With the cap, loops over
  // layers or experts stay bounded and products of two dimensions stay far inside 64 bits
  // (build_template checks the products of more).
  static constexpr uint64_t kMaxValue = 1ull << 26;

  // The depth of a stack: an integer in [min, kMaxLayers] when present. The deepest published models have
  // under 200 layers; the cap stops a 700-byte config from making a builder allocate a million layers.
  static constexpr uint64_t kMaxLayers = 1024;
  uint64_t layers_or(std::string_view key, uint64_t dflt, uint64_t min = 1) const;
  // Fails unless a list that defines one entry per layer (layer_types, a hybrid pattern) is within the cap.
  void check_layer_list(std::string_view key, size_t entries) const;

  uint64_t dim(std::string_view key) const;                       // required, integer >= 1
  uint64_t dim_or(std::string_view key, uint64_t dflt) const;     // integer >= 1 when present
  uint64_t count_or(std::string_view key, uint64_t dflt) const;   // integer >= 0 when present
  std::optional<uint64_t> opt_count(std::string_view key) const;  // integer >= 0, nullopt when absent/null
  double number_or(std::string_view key, double dflt) const;
  bool flag_or(std::string_view key, bool dflt) const;
  std::string string_or(std::string_view key, std::string_view dflt) const;
  std::vector<std::string> strings(std::string_view key) const;  // array of strings; empty when absent
  std::vector<int64_t> ints(std::string_view key) const;         // array of integers; empty when absent
  // An array of sizes (strides, kernels, ratios), each in 1..kMaxValue; `dflt` when absent or null.
  std::vector<uint64_t> dims_or(std::string_view key, std::vector<uint64_t> dflt) const;
  std::optional<ModelConfig> sub(std::string_view key) const;  // nested object; nullopt when absent/null
  // The objects a language-model fact is read from, in order: a multimodal config's text_config (when it is
  // an object; Qwen2.5-Omni's thinker_config.text_config), then this config. The one place that knows about
  // the nesting.
  std::vector<ModelConfig> language_first() const;
  // An array of objects (Nemotron-NAS block_configs), each a config at path "key[i]"; empty when absent.
  std::vector<ModelConfig> objects(std::string_view key) const;

  [[noreturn]] void fail(std::string_view key, const std::string& rule) const;

 private:
  [[noreturn]] void too_many_layers(std::string_view key, const std::string& layers) const;
  ModelConfig() = default;
  std::shared_ptr<const json::Document> doc_;
  std::shared_ptr<const std::string> file_;
  const json::Value* obj_ = nullptr;
  std::string path_;
};

}  // namespace ma
