#include "formats/gguf_split.h"

#include <cstdio>

namespace ma {

std::optional<GgufSplitName> gguf_split_name(std::string_view name) {
  // "-00001-of-00003.gguf" is 20 characters.
  if (name.size() < 20 || name.substr(name.size() - 5) != ".gguf") return std::nullopt;
  const std::string_view tail = name.substr(name.size() - 20);
  auto digits = [&](size_t at) {
    unsigned v = 0;
    for (size_t k = at; k < at + 5; ++k) {
      if (tail[k] < '0' || tail[k] > '9') return 0u;
      v = v * 10 + static_cast<unsigned>(tail[k] - '0');
    }
    return v;
  };
  if (tail[0] != '-' || tail.substr(6, 4) != "-of-") return std::nullopt;
  const unsigned part = digits(1), count = digits(10);
  if (part == 0 || count == 0 || part > count) return std::nullopt;
  return GgufSplitName{std::string(name.substr(0, name.size() - 19)), part, count};
}

std::string gguf_part_name(const std::string& prefix, unsigned part, unsigned count) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "%05u-of-%05u.gguf", part, count);
  return prefix + suffix;
}

bool is_gguf_model_entry(std::string_view name) {
  if (name.substr(0, 6) == "mmproj") return false;
  const std::optional<GgufSplitName> split = gguf_split_name(name);
  return !split || split->part == 1;
}

}  // namespace ma
