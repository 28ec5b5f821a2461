#include "model/architecture.h"

#include <array>

namespace ma {
namespace {

// One name table per category, indexed by the enum's value.
constexpr std::array<std::string_view, 6> kStackRoles{"decoder", "encoder",   "vision",
                                                      "audio",   "projector", "mtp"};
constexpr std::array<std::string_view, 9> kMixers{
    "attention", "mamba", "mamba2", "linear-attention", "short-conv", "rg-lru", "rwkv", "mlstm", "none"};
constexpr std::array<std::string_view, 9> kMixerTitles{
    "Attention",        "Mamba", "Mamba-2", "Linear attention", "Short convolution", "RG-LRU",
    "RWKV time mixing", "mLSTM", "No mixer"};
constexpr std::array<std::string_view, 4> kAttentionKinds{"mha", "gqa", "mqa", "mla"};
constexpr std::array<std::string_view, 3> kSpans{"full", "sliding", "chunked"};
constexpr std::array<std::string_view, 3> kFfns{"dense", "moe", "none"};
constexpr std::array<std::string_view, 3> kNorms{"", "rmsnorm", "layernorm"};
constexpr std::array<std::string_view, 7> kPositions{"",         "rope", "learned",   "alibi",
                                                     "relative", "none", "sinusoidal"};

const std::vector<LayerSpec>& no_layers() {
  static const std::vector<LayerSpec> none;
  return none;
}

}  // namespace

std::string_view stack_role_name(StackRole r) {
  return kStackRoles[static_cast<size_t>(r)];
}
std::string_view mixer_name(Mixer m) {
  return kMixers[static_cast<size_t>(m)];
}
std::string_view mixer_title(Mixer m) {
  return kMixerTitles[static_cast<size_t>(m)];
}
std::string_view attention_kind_name(AttentionKind k) {
  return kAttentionKinds[static_cast<size_t>(k)];
}
std::string_view span_name(Span s) {
  return kSpans[static_cast<size_t>(s)];
}
std::string_view ffn_name(Ffn f) {
  return kFfns[static_cast<size_t>(f)];
}
std::string_view norm_kind_name(NormKind n) {
  return kNorms[static_cast<size_t>(n)];
}
std::string_view position_kind_name(PositionKind p) {
  return kPositions[static_cast<size_t>(p)];
}

AttentionKind attention_kind_of(uint64_t heads, uint64_t kv_heads) {
  if (kv_heads == 0 || kv_heads == heads) return AttentionKind::Mha;
  return kv_heads == 1 ? AttentionKind::Mqa : AttentionKind::Gqa;
}

std::string LayerSpec::type() const {
  std::string t;
  if (mixer != Mixer::None) t = mixer_name(mixer);
  if (parallel != Mixer::None) t += (t.empty() ? "" : "+") + std::string(mixer_name(parallel));
  if (cross_attention) t += (t.empty() ? "" : "+") + std::string("cross-attention");
  if (ffn.kind != Ffn::None) t += (t.empty() ? "" : "+") + std::string(ffn_name(ffn.kind));
  return t.empty() ? "none" : t;
}

StackSpec& ArchitectureRecord::add_stack(StackRole role, std::string path, uint64_t hidden) {
  StackSpec& s = stacks.emplace_back();
  s.role = role;
  s.path = std::move(path);
  s.hidden = hidden;
  return s;
}

const StackSpec* ArchitectureRecord::stack(StackRole role) const {
  for (const StackSpec& s : stacks)
    if (s.role == role) return &s;
  return nullptr;
}

StackSpec* ArchitectureRecord::stack(StackRole role) {
  return const_cast<StackSpec*>(static_cast<const ArchitectureRecord*>(this)->stack(role));
}

const StackSpec* ArchitectureRecord::main_stack() const {
  if (const StackSpec* d = stack(StackRole::Decoder)) return d;
  return stack(StackRole::Encoder);
}

StackSpec* ArchitectureRecord::main_stack() {
  return const_cast<StackSpec*>(static_cast<const ArchitectureRecord*>(this)->main_stack());
}

const std::vector<LayerSpec>& ArchitectureRecord::layers() const {
  const StackSpec* s = main_stack();
  return s ? s->layers : no_layers();
}

}  // namespace ma
