// Facts of the record that every config spells the same way, read once for all families (and for configs
// without a template, whose identity still matters): identity (model_type, architectures, a vision tower),
// the context lengths declared, and the caches' dtypes. What a family spells its own way is read by its
// builder.
#pragma once
#include "model/architecture.h"
#include "model/config.h"

namespace ma {

// `cfg` is the whole config; a nested text_config is looked at first where the language model's facts are.
void read_config_facts(const ModelConfig& cfg, ArchitectureRecord& a);

// The record of a config whose architecture has no template: its facts and the dimensions it states under
// the common spellings (hidden_size / n_embd / d_model, num_hidden_layers / n_layer / num_layers, ...), with
// no stacks (nothing is known layer by layer).
ArchitectureRecord record_without_template(const ModelConfig& cfg);

}  // namespace ma
