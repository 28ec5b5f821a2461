// A tensor name cut at its dots, and the small tests tensor placement runs on the parts. Internal to
// placement (tensor_placement.cpp and its helpers), hence its own namespace.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

namespace ma::placement {

// The dot-separated components of a name, on the stack: this runs once per tensor of 45,000-tensor
// checkpoints. A name with more than kMaxParts components keeps its last ones together in the final part.
inline constexpr size_t kMaxParts = 32;
struct Parts {
  std::array<std::string_view, kMaxParts> items;
  size_t count = 0;
  size_t first = 0;  // a view of the tail starts here
  const std::string_view* begin() const { return items.data() + first; }
  const std::string_view* end() const { return items.data() + count; }
  size_t size() const { return count - first; }
  std::string_view operator[](size_t i) const { return items[first + i]; }
  std::string_view front() const { return items[first]; }
  std::string_view back() const { return items[count - 1]; }
  Parts tail(size_t from) const {
    Parts t = *this;
    t.first = std::min(count, first + from);
    return t;
  }
};

inline Parts split(std::string_view name) {
  Parts parts;
  size_t start = 0;
  for (;;) {
    size_t dot = parts.count + 1 < kMaxParts ? name.find('.', start) : std::string_view::npos;
    parts.items[parts.count++] =
        name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

inline bool all_digits(std::string_view s) {
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

inline bool contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

template <size_t N>
bool any_part_in(const Parts& parts, const std::array<std::string_view, N>& set) {
  for (std::string_view p : parts)
    for (std::string_view s : set)
      if (p == s) return true;
  return false;
}

template <size_t N>
bool in(std::string_view s, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

}  // namespace ma::placement
