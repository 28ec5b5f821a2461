#include "analysis/layer_summary.h"

namespace ma {
namespace {

void add(std::vector<LayerGroup>& groups, const std::string& type, uint32_t index) {
  for (LayerGroup& g : groups) {
    if (g.type == type) {
      g.indices.push_back(index);
      return;
    }
  }
  groups.push_back({type, {index}});
}

}  // namespace

LayerSummary summarize_layers(const std::vector<LayerSpec>& layers) {
  LayerSummary s;
  for (uint32_t i = 0; i < layers.size(); ++i) {
    const LayerSpec& l = layers[i];
    add(s.by_type, l.type(), i);
    if (l.mixer != Mixer::None) {
      std::string m(mixer_name(l.mixer));
      // The attention kind is known once the record has dimensions (a config); bare weights give none.
      if (l.mixer == Mixer::Attention && l.attention.heads)
        m += " (" + std::string(attention_kind_name(l.attention.kind)) + ")";
      if (l.mixer == Mixer::Attention && l.attention.window)
        m += " " + std::string(span_name(l.attention.span)) + "(" + std::to_string(l.attention.window) + ")";
      if (l.parallel != Mixer::None) m += " + " + std::string(mixer_name(l.parallel));  // Falcon-H1
      add(s.by_mixer, m, i);
    }
    if (l.ffn.kind != Ffn::None) add(s.by_ffn, std::string(ffn_name(l.ffn.kind)), i);
  }
  return s;
}

}  // namespace ma
