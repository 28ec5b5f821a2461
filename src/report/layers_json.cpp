#include "report/layers_json.h"

namespace ma {

namespace {

void layer_list(JsonWriter& w, std::string_view key, const std::vector<LayerSpec>& layers) {
  w.key(key).begin_array();
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerSpec& l = layers[i];
    w.begin_object();
    w.key("index").value(static_cast<uint64_t>(i));
    w.key("type").value(l.type());
    w.key("mixer").value(mixer_name(l.mixer));
    w.key("ffn").value(ffn_name(l.ffn.kind));
    if (l.mixer == Mixer::Attention && l.attention.heads)
      w.key("attention").value(attention_kind_name(l.attention.kind));
    else
      w.key("attention").null();
    w.key("window").count_or_null(l.attention.window);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

void write_layers_json(JsonWriter& w, const ArchitectureRecord& a) {
  layer_list(w, "layers", a.layers());
  const StackSpec* encoder = a.stack(StackRole::Encoder);
  if (encoder && a.stack(StackRole::Decoder))
    layer_list(w, "encoder_layer_map", encoder->layers);
  else
    w.key("encoder_layer_map").null();
}

void write_layer_counts_json(JsonWriter& w, const LayerSummary& s) {
  w.key("layer_counts").begin_object();
  for (const auto& [name, groups] : {std::pair{"by_type", &s.by_type}, std::pair{"by_mixer", &s.by_mixer},
                                     std::pair{"by_ffn", &s.by_ffn}}) {
    w.key(name).begin_array();
    for (const LayerGroup& g : *groups) {
      w.begin_object();
      w.key("type").value(g.type);
      w.key("count").value(static_cast<uint64_t>(g.indices.size()));
      w.key("indices").begin_array();
      for (uint32_t i : g.indices) w.value(i);
      w.end_array();
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}

}  // namespace ma
