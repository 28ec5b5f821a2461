#include "report/csv_cells.h"

#include <cmath>
#include <cstdio>

namespace ma {

std::string csv_text(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// An undefined number (NaN) is an empty cell; an infinite one is inf or -inf, which pandas and Python's
// float() read back as infinity.
std::string csv_number(double v) {
  if (std::isnan(v)) return {};
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace ma
