// Completes what a family builder leaves implicit in the record: a layer whose heads, head dim or FFN widths
// are 0 takes the record's dimensions (a layer that differs, such as Gemma-4's global layers, set its own).
#pragma once
#include "model/architecture.h"

namespace ma {

void complete_layer_shapes(ArchitectureRecord& a);

}  // namespace ma
