// The decoder layers and their tallies in JSON, shared by the tensors export and the report export so the
// same facts carry the same names in both.
#pragma once
#include <vector>

#include "analysis/layer_summary.h"
#include "model/model_template.h"
#include "core/json_writer.h"

namespace ma {

// "layers": [{index, type, mixer, ffn, attention, window}], window null for full attention.
void write_layers_json(JsonWriter& w, const std::vector<LayerSpec>& layers);
// "layer_counts": {by_type, by_mixer, by_ffn: [{type, count, indices}]}.
void write_layer_counts_json(JsonWriter& w, const LayerSummary& s);

}  // namespace ma
