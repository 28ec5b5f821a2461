// What the composites of group nested_composites share (nested_composites_common.h).
#include "model/families/nested_composites_common.h"

#include <string>
#include <utility>

#include "core/error.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/family_registry.h"

namespace ma::families {

void adopt_record(ModelTemplate& t, ArchitectureRecord&& inner, const std::string& cls) {
  std::string dtype = std::move(t.arch.torch_dtype);
  t.arch = std::move(inner);
  t.arch.torch_dtype = std::move(dtype);
  t.arch.architecture = cls;
}

ModelTemplate nested_family_model(const ModelConfig& cfg, const ModelConfig& sub, const std::string& type,
                                  const std::string& role, const std::string& prefix) {
  const FamilyBuilder* f = find_family_builder(type);
  if (!f) unsupported(cfg, cfg.string_or("model_type", "") + " with a " + printable(type) + " " + role);
  return nested_model(sub, f->build, type, prefix);
}

}  // namespace ma::families
