// Family templates built from config.json text a test writes, and their tensors by in-memory name.
#pragma once
#include <string>

#include "model/family_registry.h"

namespace ma::test {

inline ModelTemplate template_of(const std::string& config_json) {
  return build_template(ModelConfig::parse(config_json, "config.json"));
}

// The tensor named `name` in memory; null when the template has none.
inline const TemplateTensor* find_tensor(const ModelTemplate& t, const std::string& name) {
  for (const TemplateTensor& x : t.tensors)
    if (x.name == name) return &x;
  return nullptr;
}

}  // namespace ma::test
