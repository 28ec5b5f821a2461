// Typed, validated access to a config.json object (or a nested one such as text_config). Missing or null
// fields take the default the family's transformers config class uses; present fields of the wrong type or
// out of range are errors naming the file and the field, never silently coerced. A null depth (a stack's
// layer count) is read as absent too, but with a warning: transformers keeps None there, which most models
// cannot be built with, so the default the figures then rest on is the reader's guess.
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
  // A config built from this one: `text` (this config's values rewritten, as transformers' Auto classes see a
  // nested config, or a class's defaults) parsed as an object of the same file, whose warnings join this
  // one's, so that what it leaves out is reported with the model.
  ModelConfig derived(std::string text) const;

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
  // Lenient reads of what the record only describes (a norm's eps, the activation's name, rotary settings):
  // nullopt when absent or null; a value of another type (or a number that is not finite) is left out with
  // a warning (warn) rather than failing the analysis over a label.
  std::optional<double> described_number(std::string_view key) const;
  std::optional<std::string> described_text(std::string_view key) const;
  std::optional<bool> described_flag(std::string_view key) const;
  std::optional<ModelConfig> described_object(std::string_view key) const;
  // The objects a language-model fact is read from, in order: a multimodal config's text_config (when it is
  // an object; Qwen2.5-Omni's thinker_config.text_config), then this config. The one place that knows about
  // the nesting.
  std::vector<ModelConfig> language_first() const;
  // An array of objects (Nemotron-NAS block_configs), each a config at path "key[i]"; empty when absent.
  std::vector<ModelConfig> objects(std::string_view key) const;

  [[noreturn]] void fail(std::string_view key, const std::string& rule) const;
  // A value read as something else than written (left out, or a default put in its place): one line naming
  // the file and the field ("config.json: rope_theta: ..."), kept once, for the report's warnings.
  void warn(std::string_view key, const std::string& what) const;
  // The warnings of every view of this parsed file (sub-objects share them), in the order they were made.
  const std::vector<std::string>& warnings() const;

  // The cap on a config's JSON values (every object, array, member value and item), checked while parsing:
  // a DOM value costs about 100 bytes, so 8 million one-byte array items, a 16 MiB file under the byte cap,
  // took 860 MB; at the cap a DOM stays near 100 MB (what Python's json.load takes for such a file). Real
  // configs hold a few thousand values (ViT's 1,000-label id2label and label2id: 2,023 in all),
  // ImageNet-21k's 21,843 labels about 44,000.
  static constexpr uint64_t kMaxJsonValues = 1'000'000;

 private:
  [[noreturn]] void too_many_layers(std::string_view key, const std::string& layers) const;
  ModelConfig() = default;
  std::shared_ptr<const json::Document> doc_;
  std::shared_ptr<const std::string> file_;
  std::shared_ptr<std::vector<std::string>> warnings_;
  const json::Value* obj_ = nullptr;
  std::string path_;
};

// How a message names what a JSON value is: "a string", "a number", "a boolean", "an array", "an object",
// "null".
std::string json_kind_text(const json::Value& v);

}  // namespace ma
