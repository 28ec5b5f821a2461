// The decoder layers and their tallies in JSON, shared by the tensors export and the report export so the
// same facts carry the same names in both.
#pragma once
#include <vector>

#include "analysis/layer_summary.h"
#include "core/json_writer.h"
#include "model/model_template.h"

namespace ma {

// "layers": [{index, type, mixer, ffn, attention, window}] of the main stack (the decoder; an encoder-only
// model's encoder), window null for full attention; "encoder_layer_map": the same for the encoder of an
// encoder-decoder, null for every other model.
void write_layers_json(JsonWriter& w, const ArchitectureRecord& a);
// "layer_counts": {by_type, by_mixer, by_ffn: [{type, count, indices}]}.
void write_layer_counts_json(JsonWriter& w, const LayerSummary& s);

}  // namespace ma
