// Lenient reads of the language model's config fields for the facts of the record that only describe (norm,
// activation, rotary embedding): the nested text_config of multimodal models first, then the root. The fields
// the template needs were validated when it was built; these read as unknown (nullopt) when absent or null,
// and when of the wrong type or absurd (non-finite) too, but then with a warning naming the field
// (ModelConfig::described_*), instead of failing the whole analysis over a label.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "model/config.h"

namespace ma {

class LanguageConfig {
 public:
  explicit LanguageConfig(const ModelConfig* root);
  bool present() const { return !objects_.empty(); }
  // The first non-null value of `key`: text_config, then the root.
  const json::Value* find(std::string_view key) const;
  // The object find() takes `key` from (nullptr when none holds it): to name the field in a message, and to
  // read a nested object (rope_parameters) with its path.
  const ModelConfig* owner(std::string_view key) const;
  std::optional<std::string> text(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;  // finite numbers only
  std::optional<bool> flag(std::string_view key) const;
  std::optional<ModelConfig> object(std::string_view key) const;  // an object value, with its path

 private:
  std::vector<ModelConfig> objects_;  // ModelConfig::language_first(); empty without a config
};

}  // namespace ma
