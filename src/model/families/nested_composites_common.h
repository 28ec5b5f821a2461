// What the composites of group nested_composites share.
#pragma once
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// Makes `inner` (a nested model's record, model_type included: a multimodal record names its language
// model's) `t`'s record under class `cls`, keeping the composite config's torch_dtype.
void adopt_record(ModelTemplate& t, ArchitectureRecord&& inner, const std::string& cls);

// The whole model its family's builder makes of `sub` (model_type `type`) under `prefix`; refused as
// "<composite> with a <type> <role>" when no family builds `type`.
ModelTemplate nested_family_model(const ModelConfig& cfg, const ModelConfig& sub, const std::string& type,
                                  const std::string& role, const std::string& prefix);

}  // namespace ma::families
