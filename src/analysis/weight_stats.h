// What is inside the weights: per-tensor statistics computed by streaming the tensor data (analysis/
// weight_scan.h), and the checkpoint-level summary of seed 001's dump_model_info. Exact: every type of at
// most 16 bits is counted value by value (a BF16 tensor has at most 65,536 distinct values), so moments,
// percentiles and histograms follow exactly from the counts; 32/64-bit tensors are scanned twice (moments,
// then the histogram and the order statistics the percentiles need). Statistics are over the finite values;
// NaN and ±Inf are counted apart.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/module_class.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace ma {

// numpy.histogram semantics: `edges` has bins + 1 entries from min to max (numpy.linspace), every bin is
// [edge_i, edge_i+1) except the last, which includes max.
struct Histogram {
  std::vector<double> edges;
  std::vector<uint64_t> counts;
};

// The percentiles reported, in percent; numpy.percentile's default "linear" interpolation between order
// statistics.
inline constexpr std::array<double, 5> kPercentiles = {0.1, 1, 50, 99, 99.9};

struct TensorStats {
  std::string name;
  DType dtype = DType::F32;
  std::string scaled_by;  // a float8 weight's scale tensor, whose scales its values include; empty: none
  Shape shape;
  uint64_t numel = 0;
  uint64_t bytes = 0;
  uint64_t finite = 0;  // elements the moments are over (numel - NaN - Inf)
  double mean = 0;
  double var = 0;  // population variance (numpy's default ddof=0)
  double std = 0;
  double min = 0, max = 0, abs_max = 0;
  double l2_norm = 0;             // sqrt of the sum of squares of the finite values
  double kurtosis = 0;            // excess (Fisher) kurtosis m4 / m2^2 - 3; NaN for a constant tensor
  double zeros_fraction = 0;      // exact zeros (+0 and -0) / numel
  double near_zero_fraction = 0;  // |x| <= eps / numel (seed 004's "sparsity")
  uint64_t nan_count = 0, inf_count = 0;
  std::array<double, kPercentiles.size()> percentiles{};
  Histogram histogram;
  // Where it sits (the inventory's layer map) and seed 004's module class.
  std::optional<uint32_t> layer;
  std::string block, role;
  ModuleClass module_class = ModuleClass::Other;
  bool trainable = true;  // false for a PEFT adapter's frozen base tensors
  // 2-D tensors (matrices): rows, cols and the design rank min(rows, cols).
  std::optional<uint64_t> rows, cols, design_rank;
};

struct StatsSummary {
  uint64_t total_parameters = 0;
  uint64_t trainable_parameters = 0;
  uint64_t non_trainable_parameters = 0;
  uint64_t bytes = 0;
  uint64_t tensors = 0;
  double seconds = 0;  // wall time of the scan
  // The scan's rate in decimal GB/s, as disks and buses are rated; none for a scan too short to time.
  std::optional<double> gb_per_s() const {
    return seconds > 0 ? std::optional(static_cast<double>(bytes) / 1e9 / seconds) : std::nullopt;
  }
};

struct WeightStats {
  std::string model_id;
  StatsSummary summary;
  std::vector<TensorStats> tensors;  // checkpoint order
  double eps = 0;
  uint32_t bins = 0;
};

}  // namespace ma
