// model.safetensors.index.json text: shard paths must never escape, counts stay capped.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"
#include "formats/safetensors_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ma::SafetensorsIndex idx = ma::parse_safetensors_index(std::string(text), "fuzz.index.json");
    for (const auto& s : idx.shards)
      if (!ma::is_contained_relative_path(s)) __builtin_trap();
  } catch (const ma::Error&) {
  }
  return 0;
}
