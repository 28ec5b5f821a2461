#include "core/units.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ma {

std::string with_thousands(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (count && count % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++count;
  }
  return out;
}

std::string rounded_with_thousands(double v) {
  if (!(v > 0)) return "0";
  if (v >= 1.8e19) return short_number(v);  // past uint64_t
  return with_thousands(static_cast<uint64_t>(std::llround(v)));
}

std::string human_count(uint64_t n) {
  static constexpr struct {
    double scale;
    const char* suffix;
  } kUnits[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
  for (const auto& u : kUnits) {
    if (static_cast<double>(n) >= u.scale) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f%s", static_cast<double>(n) / u.scale, u.suffix);
      return buf;
    }
  }
  return std::to_string(n);
}

std::string human_bytes(uint64_t n) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, kUnits[u]);
  return buf;
}

std::string exact_number(double v) {
  if (!std::isfinite(v)) return "unknown";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("unknown");
}

std::string plain_number(double v) {
  if (v >= 1 && v < 1e15 && std::floor(v) == v) return with_thousands(static_cast<uint64_t>(v));
  return exact_number(v);
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string bytes_exactly(uint64_t n) {
  if (n < 1024) return human_bytes(n);  // "641 B" is exact already
  return human_bytes(n) + " (" + with_thousands(n) + " bytes)";
}

std::string index_ranges(const std::vector<uint32_t>& idx) {
  std::string out;
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(idx[i]);
    if (j > i) out += "-" + std::to_string(idx[j]);
    i = j + 1;
  }
  return out;
}

namespace {

void strip_zeros(std::string& s) {
  if (s.find('.') == std::string::npos) return;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
}

}  // namespace

std::string brief_number(double v) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  char buf[48];
  const double a = std::fabs(v);
  if (a >= 1e5 || a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.2e", v);
    std::string s = buf;
    const size_t e = s.find('e');
    std::string mant = s.substr(0, e);
    strip_zeros(mant);
    return mant + "e" + std::to_string(std::atoi(s.c_str() + e + 1));
  }
  const int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(a))));
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  strip_zeros(s);
  return s;
}

std::string duration_text(double s) {
  if (!std::isfinite(s)) return brief_number(s);
  if (s == 0) return "0 s";
  const double a = std::fabs(s);
  if (a >= 1) return brief_number(s) + " s";
  if (a >= 1e-3) return brief_number(s * 1e3) + " ms";
  if (a >= 1e-6) return brief_number(s * 1e6) + " us";
  return brief_number(s * 1e9) + " ns";
}

std::string fixed_decimals(double v, int decimals) {
  char buf[400];  // %.*f of 1e300 is 301 digits
  std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 30), v);
  return buf;
}

std::string percent_text(double f) {
  return std::isfinite(f) ? brief_number(f * 100) + "%" : brief_number(f);
}

std::string si_quantity(double v, std::string_view unit) {
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 6) {
    v /= 1000;
    ++i;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g %s", v, kPrefixes[i]);
  return buf + std::string(unit);
}

}  // namespace ma
