#include "model/inferred_record.h"

#include <algorithm>
#include <map>
#include <string>

namespace ma {
namespace {

LayerSpec nothing_yet() {
  LayerSpec l;
  l.mixer = Mixer::None;
  l.ffn.kind = Ffn::None;
  return l;
}

// A layer holding both attention and state-space tensors runs the two side by side (Falcon-H1): attention
// is its mixer, the other its parallel one, whichever tensor comes first.
void add_evidence(LayerSpec& l, Block block) {
  if (block == Block::Attention) {
    if (l.mixer == Mixer::Mamba || l.mixer == Mixer::LinearAttention) l.parallel = l.mixer;
    l.mixer = Mixer::Attention;
  } else if (block == Block::Mamba || block == Block::LinearAttention || block == Block::ShortConv ||
             block == Block::RgLru || block == Block::Rwkv || block == Block::Mlstm) {
    const Mixer recurrent = block == Block::Mamba             ? Mixer::Mamba
                            : block == Block::LinearAttention ? Mixer::LinearAttention
                            : block == Block::ShortConv       ? Mixer::ShortConv
                            : block == Block::Rwkv            ? Mixer::Rwkv
                            : block == Block::Mlstm           ? Mixer::Mlstm
                                                              : Mixer::RgLru;
    if (l.mixer == Mixer::None)
      l.mixer = recurrent;
    else if (l.mixer == Mixer::Attention)
      l.parallel = recurrent;
  } else if (block == Block::MoeExpert || block == Block::MoeRouter) {
    l.ffn.kind = Ffn::Moe;
  } else if (block == Block::Mlp && l.ffn.kind == Ffn::None) {
    l.ffn.kind = Ffn::Dense;
  }
}

}  // namespace

ArchitectureRecord infer_record(const std::vector<InventoryTensor>& tensors) {
  ArchitectureRecord a;
  std::map<std::string, size_t> per_stack;
  for (const auto& t : tensors)
    if (t.placement.layer) ++per_stack[std::string(t.stack())];
  if (per_stack.empty()) return a;
  const std::string stack = std::max_element(per_stack.begin(), per_stack.end(), [](auto& x, auto& y) {
                              return x.second < y.second;
                            })->first;
  std::map<uint32_t, LayerSpec> layers;
  for (const auto& t : tensors) {
    if (!t.placement.layer || t.stack() != stack) continue;
    add_evidence(layers.try_emplace(*t.placement.layer, nothing_yet()).first->second, t.placement.block);
  }
  if (layers.empty() || layers.rbegin()->first > kMaxInferredLayers) return a;
  // BERT's "bert.encoder.layer" is an encoder stack; everything else runs per generated token.
  const bool encoder = stack.find("encoder") != std::string::npos;
  StackSpec& s = a.add_stack(encoder ? StackRole::Encoder : StackRole::Decoder, stack);
  s.layers.resize(layers.rbegin()->first + 1, nothing_yet());
  for (auto& [i, l] : layers) s.layers[i] = l;
  a.num_layers = s.layers.size();
  return a;
}

}  // namespace ma
