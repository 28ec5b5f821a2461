// The number and text formatting shared by the efficiency study's sections (perf_report_parts.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "report/perf_report_parts.h"

namespace ma::perf_md {
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
