#include "model/record_config.h"

namespace ma {
namespace {

// A floating-point dtype named at `key`, "auto" (the model's own) or absent: unset.
std::optional<DType> cache_dtype(const ModelConfig& cfg, std::string_view key) {
  if (!cfg.has(key)) return std::nullopt;
  const std::string name = cfg.string_or(key, "auto");
  if (name == "auto") return std::nullopt;
  const std::optional<DType> d = dtype_from_any_name(name);
  if (!d || !dtype_info(*d).is_float) cfg.fail(key, "is not a floating-point dtype name");
  return d;
}

}  // namespace

void read_common_facts(const ModelConfig& cfg, ArchitectureRecord& a) {
  std::vector<ModelConfig> objects;
  if (auto text = cfg.sub("text_config")) objects.push_back(*text);
  objects.push_back(cfg);
  for (const ModelConfig& o : objects)
    for (std::string_view key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"})
      if (!a.ssm_cache_dtype) a.ssm_cache_dtype = cache_dtype(o, key);
}

}  // namespace ma
