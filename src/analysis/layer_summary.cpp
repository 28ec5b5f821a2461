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
    if (!l.mixer.empty() && l.mixer != "none") {
      std::string m = l.mixer;
      if (!l.attention.empty()) m += " (" + l.attention + ")";
      if (l.sliding_window) m += " sliding(" + std::to_string(l.sliding_window) + ")";
      add(s.by_mixer, m, i);
    }
    if (!l.ffn.empty() && l.ffn != "none") add(s.by_ffn, l.ffn, i);
  }
  return s;
}

std::string compact_ranges(const std::vector<uint32_t>& idx) {
  std::string out;
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(idx[i]);
    if (j > i) out += "-" + std::to_string(idx[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace ma
