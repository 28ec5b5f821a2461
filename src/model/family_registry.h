// model_type -> template builder. Each group file in model/families/ contributes its own table; this registry
// concatenates them, so adding a family touches its group file only.
#pragma once
#include <span>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma {

using BuildFn = void (*)(const ModelConfig& cfg, ModelTemplate& out);

struct FamilyBuilder {
  std::string_view model_type;
  BuildFn build;
};

// Every supported model_type, across all groups.
std::span<const FamilyBuilder> all_family_builders();
const FamilyBuilder* find_family_builder(std::string_view model_type);

// Builds the template for `cfg` by its model_type. Throws Error(Unsupported, "unsupported architecture: X")
// for a model_type no builder covers, and Error(Malformed) for configs that break the family's rules.
ModelTemplate build_template(const ModelConfig& cfg);

}  // namespace ma
