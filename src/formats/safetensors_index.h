// The sharded-checkpoint index (`model.safetensors.index.json`, `pytorch_model.bin.index.json`):
// tensor name -> shard file. Shard names are untrusted paths and must stay inside the model directory.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/name_index.h"
#include "io/file_source.h"

namespace ma {

inline constexpr size_t kMaxShards = 10'000;
inline constexpr uint64_t kMaxIndexBytes = 64ull << 20;

struct SafetensorsIndex {
  // Tensor name -> index into `shards`, in file order. Names are views into the index's own text.
  std::vector<std::pair<std::string_view, uint32_t>> weight_map;
  std::vector<std::string> shards;     // unique, in order of first appearance
  std::optional<uint64_t> total_size;  // metadata.total_size, when present

  // Position of `tensor` in weight_map.
  std::optional<uint32_t> find(std::string_view tensor) const {
    return lookup_ ? lookup_->find(tensor) : std::nullopt;
  }

  // Drops the names (weight_map, their text and the lookup), keeping shards and total_size: once every
  // shard's header has been checked against the index, nothing reads them again. DeepSeek-V3's are about
  // 5 MB that the inventory's later allocations reuse (median peak RSS of 12 runs 33.8 -> 31.8 MB). find()
  // then finds nothing.
  void forget_names() {
    decltype(weight_map)().swap(weight_map);  // clear() would keep its memory
    lookup_.reset();
    names_.reset();
    text_.reset();
  }

 private:
  friend SafetensorsIndex parse_index_text(std::shared_ptr<const void> owner, std::string_view text,
                                           std::string_view source);
  std::shared_ptr<const void> text_;                      // owns what weight_map's names point into
  std::shared_ptr<const std::deque<std::string>> names_;  // names that had JSON escapes, unescaped
  std::shared_ptr<const NameIndex> lookup_;
};

SafetensorsIndex parse_safetensors_index(std::string json_text, std::string_view source);
SafetensorsIndex parse_safetensors_index(FileBytes json_text, std::string_view source);

// True when `name` is a plain relative file name that cannot leave its directory on POSIX or Windows:
// no absolute path, drive letter, UNC prefix, backslash, '..' component, empty component or NUL.
bool is_contained_relative_path(std::string_view name);

}  // namespace ma
