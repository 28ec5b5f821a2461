// The sharded-checkpoint index (`model.safetensors.index.json`, `pytorch_model.bin.index.json`):
// tensor name -> shard file. Shard names are untrusted paths and must stay inside the model directory.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ma {

inline constexpr size_t kMaxShards = 10'000;
inline constexpr uint64_t kMaxIndexBytes = 64ull << 20;

struct SafetensorsIndex {
  std::vector<std::pair<std::string, uint32_t>> weight_map;  // tensor name -> index into `shards`, file order
  std::vector<std::string> shards;                            // unique, in order of first appearance
  std::optional<uint64_t> total_size;                         // metadata.total_size, when present
};

SafetensorsIndex parse_safetensors_index(std::string_view json_text, std::string_view source);

// True when `name` is a plain relative file name that cannot leave its directory on POSIX or Windows:
// no absolute path, drive letter, UNC prefix, backslash, '..' component, empty component or NUL.
bool is_contained_relative_path(std::string_view name);

}  // namespace ma
