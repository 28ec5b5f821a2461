// A model a composite config nests whole, as transformers builds it with AutoModelForCausalLM.from_config
// (BLIP-2's and InstructBLIP's language model, whatever text_config names): built by its own family's builder
// and placed under a prefix of the composite's names. The composite's record is then the nested model's.
#pragma once
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/family_registry.h"
#include "model/model_template.h"

namespace ma::families {

// The template `build` makes of `sub` (its record's model_type `model_type`), with every name, tie, on-disk
// name, known extra and recorded stack moved under `prefix`.
ModelTemplate nested_model(const ModelConfig& sub, BuildFn build, std::string_view model_type,
                           const std::string& prefix);

// config.`key` as an Auto class sees it: its own fields, with `architectures` naming `cls` (none when cls is
// empty: the builder's base class). AutoModel / AutoModelForCausalLM / AutoModelForTextEncoding.from_config
// pick the class by model_type alone, whatever the sub-config's architectures say. The result keeps the path
// `key`, so errors name decoder.hidden_size. Fails unless config.`key` is an object.
ModelConfig as_auto_class(const ModelConfig& cfg, std::string_view key, std::string_view cls);

// A nested config's model_type, required: a composite config class pops it to pick the sub-config class.
std::string sub_model_type(const ModelConfig& cfg, std::string_view key);

// Appends `inner`'s tensors and known extras to `t`, charged to t's cap on entries.
void append_model(ModelTemplate& t, ModelTemplate&& inner);

}  // namespace ma::families
