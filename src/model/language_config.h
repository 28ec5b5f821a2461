// Lenient reads of the language model's config fields for the facts of the record that only describe (norm,
// activation, rotary embedding): the nested text_config of multimodal models first, then the root. The fields
// the template needs were validated when it was built; these read as unknown (nullopt) when absent, null, of
// the wrong type or absurd (non-finite), instead of failing the whole analysis over a label.
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
  std::optional<std::string> text(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;  // finite numbers only
  std::optional<bool> flag(std::string_view key) const;
  const json::Value* object(std::string_view key) const;  // an object value, else nullptr

 private:
  std::vector<ModelConfig> objects_;  // ModelConfig::language_first(); empty without a config
};

// The same lenient reads on a member of an object value (rope_scaling, attn_config); `obj` may be null.
const json::Value* json_member(const json::Value* obj, std::string_view key);
std::optional<std::string> json_text(const json::Value* obj, std::string_view key);
std::optional<double> json_number(const json::Value* obj, std::string_view key);
std::optional<bool> json_flag(const json::Value* obj, std::string_view key);

}  // namespace ma
