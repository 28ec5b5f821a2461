#include "model/expert_patterns.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <unordered_map>

namespace ma {

namespace {
std::atomic<uint64_t> last_id{0};
}  // namespace

ExpertPatterns::ExpertPatterns(const ModelTemplate& t) : by_key_(0, nullptr, nullptr), id_(++last_id) {
  for (uint32_t i = 0; i < t.tensors.size(); ++i) {
    const TemplateTensor& tt = t.tensors[i];
    if (!tt.per_expert || !tt.stored) continue;
    const PerExpertPieces& pe = *tt.per_expert;
    auto entry = static_cast<uint32_t>(entries_.size());
    entries_.push_back({i, pe.first, pe.experts, static_cast<uint32_t>(pe.parts.size()), slots_});
    slots_ += pe.pieces();
    for (uint32_t p = 0; p < pe.parts.size(); ++p)
      keys_.push_back({pe.prefix + "." + pe.parts[p].suffix, entry, p});
  }
  // Keys of one text are chained from the first, which the index finds; each holds its own range of
  // expert indices.
  std::unordered_map<std::string_view, uint32_t> last_of;
  for (uint32_t k = 0; k < keys_.size(); ++k) {
    auto [it, first] = last_of.try_emplace(keys_[k].text, k);
    if (!first) {
      keys_[it->second].next = k;
      it->second = k;
    }
  }
  by_key_ = NameIndex(
      static_cast<uint32_t>(keys_.size()),
      [](const void* c, uint32_t i) { return std::string_view(static_cast<const Key*>(c)[i].text); },
      keys_.data());
}

namespace {

// The keys this thread matched last, most recent first: one expert's tensors come together ("experts.7.down",
// "experts.7.gate", "experts.7.up", then expert 8), so the key of the next name is nearly always here, and
// comparing the name's two parts with it spares copying them out and hashing them.
struct RecentKeys {
  uint64_t patterns = 0;  // the id of the ExpertPatterns whose keys these are
  std::array<uint32_t, 4> keys{};
  size_t count = 0;
};
thread_local RecentKeys recent;

}  // namespace

std::optional<uint32_t> ExpertPatterns::recent_key(std::string_view name, size_t dot, size_t end) const {
  if (recent.patterns != id_) return std::nullopt;
  const std::string_view before = name.substr(0, dot), after = name.substr(end);
  for (size_t i = 0; i < recent.count; ++i) {
    const std::string_view key = keys_[recent.keys[i]].text;
    if (key.size() == before.size() + after.size() && key.starts_with(before) && key.ends_with(after))
      return recent.keys[i];
  }
  return std::nullopt;
}

void ExpertPatterns::remember_key(uint32_t key) const {
  if (recent.patterns != id_) recent = RecentKeys{id_, {}, 0};
  std::copy_backward(recent.keys.begin(), recent.keys.end() - 1, recent.keys.end());
  recent.keys[0] = key;
  recent.count = std::min(recent.count + 1, recent.keys.size());
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
    std::optional<uint32_t> key = recent_key(name, dot, end);
    if (!key) {
      scratch_.assign(name.substr(0, dot));
      scratch_.append(name.substr(end));
      if (!(key = by_key_.find(scratch_))) continue;
      remember_key(*key);
    }
    uint32_t index = 0;
    std::from_chars(name.data() + dot + 1, name.data() + end, index);
    for (uint32_t k = *key; k != kNoKey; k = keys_[k].next) {
      const Entry& e = entries_[keys_[k].entry];
      if (index < e.first || index - e.first >= e.experts) continue;
      const uint32_t expert = index - e.first, part = keys_[k].part;
      return Hit{e.tensor_index, expert, part, e.first_slot + uint64_t{expert} * e.parts + part};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ma
