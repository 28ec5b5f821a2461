#include "analysis/perf/achievable.h"

#include <cstdio>

namespace ma {
namespace {

// The chip measured on both sides, and its measured profile's name.
constexpr std::string_view kReference = "h200";
constexpr std::string_view kMeasuredSuffix = "-measured";

std::string ratio_text(const char* what, double r) {
  char b[48];
  std::snprintf(b, sizeof b, "%s x %.3f", what, r);
  return b;
}

}  // namespace

AchievableHardware achievable_hardware(const Hardware& datasheet) {
  // A profile with launch overheads is already a measured one (a table row or the user's file).
  if (datasheet.kernel_overhead_s > 0 || datasheet.graph_kernel_overhead_s > 0)
    return {datasheet, "as given (a measured profile)"};
  if (const Hardware* m = find_hardware(datasheet.name + std::string(kMeasuredSuffix)))
    return {*m, "measured profile " + m->name};
  const Hardware* ref = find_hardware(kReference);
  const Hardware* ref_measured = find_hardware(std::string(kReference) + std::string(kMeasuredSuffix));
  if (!ref || !ref_measured) return {datasheet, "datasheet"};
  Hardware h = datasheet;
  const double bw = ref_measured->hbm_gbps / ref->hbm_gbps;
  h.hbm_gbps *= bw;
  std::string how = "datasheet derated by " + std::string(kReference) +
                    "'s measured / datasheet ratios: " + ratio_text("bandwidth", bw);
  // Formats the reference lacks (fp4) take the ratio of the narrowest one it has (fp8).
  const double fp8 = ref_measured->peak(ComputeDType::FP8) / ref->peak(ComputeDType::FP8);
  for (int d = 0; d < kComputeDTypeCount; ++d) {
    const auto dtype = static_cast<ComputeDType>(d);
    const double r = ref->peak(dtype) > 0 ? ref_measured->peak(dtype) / ref->peak(dtype) : fp8;
    h.peak_tflops[d] *= r;
    if (h.peak_tflops[d] > 0) how += ", " + ratio_text(std::string(compute_dtype_name(dtype)).c_str(), r);
  }
  h.scalar_tflops *= ref_measured->scalar_tflops / ref->scalar_tflops;
  h.kernel_overhead_s = ref_measured->kernel_overhead_s;
  h.graph_kernel_overhead_s = ref_measured->graph_kernel_overhead_s;
  how += "; launch overheads " + ref_measured->name + "'s";
  return {h, how};
}

}  // namespace ma
