#include "model/expert_patterns.h"

#include <charconv>

namespace ma {

ExpertPatterns::ExpertPatterns(const ModelTemplate& t) : by_key_(0, nullptr, nullptr) {
  for (uint32_t i = 0; i < t.tensors.size(); ++i) {
    const TemplateTensor& tt = t.tensors[i];
    if (!tt.per_expert || !tt.stored) continue;
    const PerExpertPieces& pe = *tt.per_expert;
    auto entry = static_cast<uint32_t>(entries_.size());
    entries_.push_back({i, pe.experts, static_cast<uint32_t>(pe.parts.size()), slots_});
    slots_ += pe.pieces();
    for (uint32_t p = 0; p < pe.parts.size(); ++p)
      keys_.push_back({pe.prefix + "." + pe.parts[p].suffix, entry, p});
  }
  // A key stated twice keeps its first piece, as the map this replaced did.
  by_key_ = NameIndex(
      static_cast<uint32_t>(keys_.size()),
      [](const void* c, uint32_t i) { return std::string_view(static_cast<const Key*>(c)[i].text); },
      keys_.data());
}

std::optional<ExpertPatterns::Hit> ExpertPatterns::match(std::string_view name) const {
  if (keys_.empty()) return std::nullopt;
  thread_local std::string scratch_;
  // Try removing each ".<digits>" component in turn; the one that leaves a known key is the expert index.
  // Last first: the expert index comes after the layer index ("model.layers.10.mlp.experts.37.w1"), so
  // DeepSeek-V3's 44,544 expert names take one lookup each instead of two.
  for (size_t dot = name.rfind('.'); dot != std::string_view::npos && dot > 0;
       dot = name.rfind('.', dot - 1)) {
    size_t end = dot + 1;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    if (end == dot + 1 || end >= name.size() || name[end] != '.' || end - dot > 10) continue;
    scratch_.assign(name.substr(0, dot));
    scratch_.append(name.substr(end));
    const std::optional<uint32_t> key = by_key_.find(scratch_);
    if (!key) continue;
    uint32_t expert = 0;
    std::from_chars(name.data() + dot + 1, name.data() + end, expert);
    const Entry& e = entries_[keys_[*key].entry];
    if (expert >= e.experts) return std::nullopt;
    const uint32_t part = keys_[*key].part;
    return Hit{e.tensor_index, expert, part, e.first_slot + uint64_t{expert} * e.parts + part};
  }
  return std::nullopt;
}

}  // namespace ma
