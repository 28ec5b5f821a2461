// Seed 001's multi-chip roofline: one log-log panel per accelerator (arithmetic intensity in FLOP/byte
// against attained TFLOP/s), the roof min(P_peak, BW_hbm x AI) with its ridge marked and labelled, the
// memory-bound and compute-bound regions shaded, and the model's operations as points coloured by regime.
// A standalone SVG ready for a paper; write_diagram_file() (report/diagram_png.h) turns it into PNG.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/perf/hardware.h"
#include "analysis/perf/perf_model.h"

namespace ma {

struct RooflinePoint {
  std::string label;   // empty: drawn without a label
  double ai = 0;       // FLOP per HBM byte (F_theory / bytes_hbm); <= 0: not drawn (no FLOPs or no bytes)
  double tflops = 0;   // attained: F_theory / T_est / 1e12
  std::string regime;  // compute | memory | network (the colour and marker); anything else is grey
  // Which points get labels when there are more than fit: the whole step first, then the largest `flops`
  // (at most 12 labels in all); with every `flops` 0, the order given.
  double flops = 0;
  bool total = false;  // the whole step: a larger, outlined diamond
};

struct RooflineSeries {
  Hardware hw;
  ComputeDType dtype = ComputeDType::FP8;  // the peak the roof is drawn at
  std::vector<RooflinePoint> points;       // typically roofline_points() of a PerfResult on `hw`
};

// The step's operations aggregated into seed 001's groups: attention (score/softmax/value work), dense GEMMs
// (every projection and the LM head), MoE experts, SSM, elementwise (norms, activations, embedding lookups),
// and the whole step; per group ai = sum F_theory / sum bytes_hbm, tflops = sum F_theory / sum T_est / 1e12
// and the regime of the largest of the summed T_comp, T_hbm, T_net. The whole step takes PerfResult::total
// and tf_est. Groups without FLOPs are left out (network transfers, pure lookups).
std::vector<RooflinePoint> roofline_points(const PerfResult& r);

// Seed 001's roofline controls (roofline_x_limits, roofline_y_limits, roofline_label_mode).
struct RooflineStyle {
  std::optional<std::pair<double, double>> x_limits;  // FLOP/B; unset: fitted to the points and ridges
  std::optional<std::pair<double, double>> y_limits;  // TFLOP/s; unset: fitted
  size_t max_labels = 12;                             // per panel: the whole step first, then by FLOPs
};

// One panel per chip, side by side on shared log axes (x from 0.1 to 1e5 FLOP/B at least, widened to the
// points and ridges, or the style's limits: points outside them are left out and counted in the caption), a
// legend and a caption. An empty `chips` gives a small document saying so.
std::string render_roofline_svg(const std::vector<RooflineSeries>& chips, const std::string& title,
                                const RooflineStyle& style = {});

}  // namespace ma
