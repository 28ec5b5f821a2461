#include "core/nearest_name.h"

#include <algorithm>

namespace ma {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: the swap looks two characters back.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::optional<std::string_view> nearest_name(std::string_view typed,
                                             const std::vector<std::string_view>& names) {
  const size_t allowed = typed.size() / 3;
  std::optional<std::string_view> best;
  size_t best_distance = allowed + 1;
  for (std::string_view name : names) {
    const size_t d = edit_distance(typed, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::optional<std::string_view> name) {
  return name ? " (did you mean " + std::string(*name) + "?)" : "";
}

}  // namespace ma
