#include "analysis/ssm_summary.h"

namespace ma {

std::optional<SsmSummary> summarize_ssm(const ArchitectureRecord& arch) {
  const std::vector<LayerSpec>& layers = arch.layers();
  SsmSummary s;
  s.num_layers = layers.size();
  for (uint32_t i = 0; i < layers.size(); ++i) {
    const LayerSpec& l = layers[i];
    if (l.mixer == Mixer::Attention) s.attention_layers.push_back(i);
    // The layer's recurrent mixer: its only one, or the one beside attention (Falcon-H1) or after it
    // (Zamba2).
    const Mixer recurrent = l.mixer == Mixer::Attention ? l.parallel : l.mixer;
    if (recurrent == Mixer::None) continue;
    if (l.mixer == Mixer::Attention)
      (l.mixers_in_sequence ? s.sequential_layers : s.parallel_layers).push_back(i);
    SsmMixer* m = nullptr;
    for (SsmMixer& k : s.mixers)
      if (k.mixer == recurrent) m = &k;
    if (!m) {
      m = &s.mixers.emplace_back();
      m->mixer = recurrent;
      m->shape = l.state;
      if (l.state.inner && arch.hidden_size)
        m->expand = static_cast<double>(l.state.inner) / static_cast<double>(arch.hidden_size);
    }
    m->layers.push_back(i);
  }
  if (s.mixers.empty()) return std::nullopt;
  return s;
}

}  // namespace ma
