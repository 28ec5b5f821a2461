// Plots of what is inside the weights (analysis/weight_stats.h), as standalone SVG documents ready for a
// paper; write_diagram_file() (report/diagram_png.h) turns them into PNG. Colour-blind-safe throughout, with
// a marker shape per series so that they survive greyscale print.
#pragma once
#include <cstddef>
#include <string>

#include "analysis/weight_stats.h"

namespace ma {

// Seed 001's plot_distributions: a grid (4 to 6 columns) of per-tensor histograms of the finite values, one
// panel per tensor, each with its name (cut in the middle when long), dtype and shape, an x axis of 3 to 5
// ticks, a count axis (log scale unless `log_counts` is false; labelled either way) and a box with mean,
// std, min and max (and the NaN/Inf counts when there are any). Constant tensors show one spike at their
// value, tensors without finite values say so. With more tensors than `max_panels`, the largest by element
// count are shown in checkpoint order and a footnote says how many were left out.
std::string render_distribution_grid_svg(const WeightStats& s, size_t max_panels = 36,
                                         bool log_counts = true);

// Per-layer trends: std (top) and abs_max (bottom, log scale) against the layer index, one line with markers
// per module class (the numel-weighted pooled std and the largest abs_max of the class's tensors in each
// layer; tensors outside the layer stack are skipped). Points whose robust z-score within their class
// (|x - median| / (1.4826 MAD), over at least 5 layers; abs_max on a log scale) exceeds 3 get a red ring and
// their layer number.
std::string render_layer_trends_svg(const WeightStats& s);

}  // namespace ma
