#include "model/language_config.h"

namespace ma {

LanguageConfig::LanguageConfig(const ModelConfig* root) {
  if (root) objects_ = root->language_first();
}

const json::Value* LanguageConfig::find(std::string_view key) const {
  const ModelConfig* o = owner(key);
  return o ? o->raw(key) : nullptr;
}

const ModelConfig* LanguageConfig::owner(std::string_view key) const {
  for (const ModelConfig& o : objects_)
    if (const json::Value* v = o.raw(key); v && !v->is_null()) return &o;
  return nullptr;
}

std::optional<std::string> LanguageConfig::text(std::string_view key) const {
  const ModelConfig* o = owner(key);
  return o ? o->described_text(key) : std::nullopt;
}

std::optional<double> LanguageConfig::number(std::string_view key) const {
  const ModelConfig* o = owner(key);
  return o ? o->described_number(key) : std::nullopt;
}

std::optional<bool> LanguageConfig::flag(std::string_view key) const {
  const ModelConfig* o = owner(key);
  return o ? o->described_flag(key) : std::nullopt;
}

std::optional<ModelConfig> LanguageConfig::object(std::string_view key) const {
  const ModelConfig* o = owner(key);
  return o ? o->described_object(key) : std::nullopt;
}

}  // namespace ma
