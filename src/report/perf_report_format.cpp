// The number and text formatting shared by the efficiency study's sections (perf_report_parts.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "report/perf_report_parts.h"

namespace ma::perf_md {
namespace {

void strip_zeros(std::string& s) {
  if (s.find('.') == std::string::npos) return;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
}

}  // namespace

std::string num(double v) {
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

std::string dur(double s) {
  if (!std::isfinite(s)) return num(s);
  if (s == 0) return "0 s";
  const double a = std::fabs(s);
  if (a >= 1) return num(s) + " s";
  if (a >= 1e-3) return num(s * 1e3) + " ms";
  if (a >= 1e-6) return num(s * 1e6) + " us";
  return num(s * 1e9) + " ns";
}

std::string pct(double f) {
  return std::isfinite(f) ? num(f * 100) + "%" : num(f);
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string mode_name(const PerfResult& r) {
  return std::string(perf_mode_name(r.inputs.mode));
}

std::string shape_text(const PerfResult& r) {
  const std::string b = "B=" + std::to_string(r.inputs.batch);
  return r.inputs.mode == PerfMode::Decode ? b + ", L=" + std::to_string(r.inputs.kv_len)
                                           : b + ", S=" + std::to_string(r.inputs.seq);
}

}  // namespace ma::perf_md
