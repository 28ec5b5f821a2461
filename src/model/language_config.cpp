#include "model/language_config.h"

#include <cmath>

namespace ma {

LanguageConfig::LanguageConfig(const ModelConfig* root) {
  if (root) objects_ = root->language_first();
}

const json::Value* LanguageConfig::find(std::string_view key) const {
  for (const ModelConfig& o : objects_)
    if (const json::Value* v = o.raw(key); v && !v->is_null()) return v;
  return nullptr;
}

std::optional<std::string> LanguageConfig::text(std::string_view key) const {
  const json::Value* v = find(key);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

std::optional<double> LanguageConfig::number(std::string_view key) const {
  const json::Value* v = find(key);
  if (!v || !v->is_number() || !std::isfinite(v->as_double())) return std::nullopt;
  return v->as_double();
}

std::optional<bool> LanguageConfig::flag(std::string_view key) const {
  const json::Value* v = find(key);
  if (!v || !v->is_bool()) return std::nullopt;
  return v->as_bool();
}

const json::Value* LanguageConfig::object(std::string_view key) const {
  const json::Value* v = find(key);
  return v && v->is_object() ? v : nullptr;
}

const json::Value* json_member(const json::Value* obj, std::string_view key) {
  const json::Value* v = obj ? obj->find(key) : nullptr;
  return v && !v->is_null() ? v : nullptr;
}

std::optional<std::string> json_text(const json::Value* obj, std::string_view key) {
  const json::Value* v = json_member(obj, key);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

std::optional<double> json_number(const json::Value* obj, std::string_view key) {
  const json::Value* v = json_member(obj, key);
  if (!v || !v->is_number() || !std::isfinite(v->as_double())) return std::nullopt;
  return v->as_double();
}

std::optional<bool> json_flag(const json::Value* obj, std::string_view key) {
  const json::Value* v = json_member(obj, key);
  if (!v || !v->is_bool()) return std::nullopt;
  return v->as_bool();
}

}  // namespace ma
