// Matches checkpoint names like "model.layers.3.mlp.experts.17.up_proj.weight" against the per-expert
// patterns of a template (PerExpertPieces) without spelling out every expert's name.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/name_index.h"
#include "model/model_template.h"

namespace ma {

class ExpertPatterns {
 public:
  struct Hit {
    uint32_t tensor_index;  // into ModelTemplate::tensors
    uint32_t expert;
    uint32_t part;
    uint64_t slot;  // unique among all pieces of all patterns: for "seen" bookkeeping
  };

  explicit ExpertPatterns(const ModelTemplate& t);
  // by_key_ points into keys_: a copy would look up in the original's keys.
  ExpertPatterns(const ExpertPatterns&) = delete;
  ExpertPatterns& operator=(const ExpertPatterns&) = delete;
  bool empty() const { return keys_.empty(); }
  uint64_t slots() const { return slots_; }
  // Thread-safe (const; candidate keys go to a per-thread buffer).
  std::optional<Hit> match(std::string_view name) const;
  // Every piece, in template order: f(tensor_index, expert, part, slot).
  template <typename F>
  void for_each_piece(F&& f) const {
    for (const Entry& e : entries_)
      for (uint32_t x = 0; x < e.experts; ++x)
        for (uint32_t p = 0; p < e.parts; ++p)
          f(e.tensor_index, x, p, e.first_slot + uint64_t{x} * e.parts + p);
  }

 private:
  struct Entry {
    uint32_t tensor_index;
    uint32_t first;  // disk index of its expert 0
    uint32_t experts;
    uint32_t parts;
    uint64_t first_slot;
  };
  // A key this thread found recently that the name with [dot, end) cut out spells, if any.
  std::optional<uint32_t> recent_key(std::string_view name, size_t dot, size_t end) const;
  void remember_key(uint32_t key) const;

  static constexpr uint32_t kNoKey = UINT32_MAX;
  struct Key {
    std::string text;  // prefix + "." + suffix: the name without its expert index
    uint32_t entry;
    uint32_t part;
    // The next key of the same text, for banks sharing a prefix in ranges of expert indices of their own
    // (ERNIE-4.5-VL's text and vision experts); the index finds the first.
    uint32_t next = kNoKey;
  };
  std::vector<Entry> entries_;
  std::vector<Key> keys_;
  NameIndex by_key_;  // over keys_: one probe of a flat table, not std::hash and a node per key
  uint64_t id_;       // unique to this object: a thread's recent keys are this object's only if they say so
  uint64_t slots_ = 0;
};

}  // namespace ma
