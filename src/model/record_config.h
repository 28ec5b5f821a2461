// Facts of the record that every family's config spells the same way, read once for all families after the
// builder ran: the dtypes of the caches. (What a family spells its own way is read by its builder.)
#pragma once
#include "model/architecture.h"
#include "model/config.h"

namespace ma {

// `cfg` is the whole config; a nested text_config is looked at first.
void read_common_facts(const ModelConfig& cfg, ArchitectureRecord& a);

}  // namespace ma
