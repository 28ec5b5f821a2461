// The grid of per-tensor histograms (stats_plots.h): panel layout, the choice of tensors when there are more
// than panels, and the degenerate tensors (constant, no finite values, no histogram).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "analysis/identity.h"
#include "report/diagram_canvas.h"
#include "report/plot_axes.h"
#include "report/stats_plots.h"

namespace ma {
namespace {

using diagram::Anchor;
using diagram::Svg;
using diagram::TextStyle;
using plot::Axes;

constexpr double kPanelW = 250, kPanelH = 226, kLeft = 40, kRight = 16, kTop = 74, kFoot = 40;
constexpr double kTickFont = 9.5, kStatFont = 9.5;

std::string parameters_label(uint64_t n) {
  const double v = static_cast<double>(n);
  char buf[32];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2fB", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fK", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string shape_text(const TensorStats& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "]";
}

// The tensors shown: all, or the `max_panels` largest by element count (ties: the earlier), in checkpoint
// order.
std::vector<size_t> chosen_tensors(const WeightStats& s, size_t max_panels) {
  std::vector<size_t> idx(s.tensors.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  if (idx.size() <= max_panels) return idx;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return s.tensors[a].numel > s.tensors[b].numel; });
  idx.resize(max_panels);
  std::sort(idx.begin(), idx.end());
  return idx;
}

// What the histogram panel draws: bins over [lo, hi] or one spike (a constant tensor).
struct Bars {
  std::vector<double> edges;
  std::vector<uint64_t> counts;
  bool constant = false;
  double value = 0;  // the constant
  uint64_t total = 0;
};

Bars bars_of(const TensorStats& t) {
  Bars b;
  const Histogram& h = t.histogram;
  for (uint64_t c : h.counts) b.total += c;
  bool edges_ok = !h.counts.empty() && h.edges.size() == h.counts.size() + 1;
  for (double e : h.edges) edges_ok = edges_ok && std::isfinite(e);
  edges_ok = edges_ok && std::is_sorted(h.edges.begin(), h.edges.end());
  if (edges_ok && h.edges.back() > h.edges.front()) {
    b.edges = h.edges;
    b.counts = h.counts;
    return b;
  }
  if (!edges_ok && !h.counts.empty() && b.total > 0 && std::isfinite(t.min) && std::isfinite(t.max) &&
      t.max > t.min) {
    // Edges missing or unusable: numpy's linspace from the min to the max.
    const size_t n = h.counts.size();
    for (size_t i = 0; i <= n; ++i)
      b.edges.push_back(t.min + (t.max - t.min) * static_cast<double>(i) / static_cast<double>(n));
    b.counts = h.counts;
    return b;
  }
  // Degenerate edges (min == max): every finite value is the one constant.
  if (b.total == 0 && t.finite > 0 && h.counts.empty()) return b;  // no histogram at all
  b.constant = b.total > 0 || t.finite > 0;
  b.value = edges_ok ? h.edges.front() : t.min;
  if (!std::isfinite(b.value)) b.value = t.mean;
  if (b.total == 0) b.total = t.finite;
  return b;
}

void draw_stats_box(Svg& svg, const TensorStats& t, double x, double y, double w) {
  std::vector<std::pair<std::string, std::string>> rows;
  if (t.finite > 0 || t.numel == 0) {
    rows.emplace_back("mean " + plot::compact(t.mean), "std " + plot::compact(t.std));
    rows.emplace_back("min " + plot::compact(t.min), "max " + plot::compact(t.max));
  } else {
    rows.emplace_back("no finite values", "");
  }
  std::string bad;
  if (t.nan_count) bad += "NaN " + plot::si_count(static_cast<double>(t.nan_count));
  if (t.inf_count)
    bad += std::string(bad.empty() ? "" : " \u00b7 ") + "Inf " +
           plot::si_count(static_cast<double>(t.inf_count));
  const double line = kStatFont * 1.38;
  const double h = 6 + line * static_cast<double>(rows.size() + (bad.empty() ? 0 : 1));
  svg.rect(x, y, w, h, "#f4f4f4", "#dddddd", 2, 0.6);
  double ty = y + 3 + kStatFont;
  const TextStyle st{kStatFont, plot::kInk, false, Anchor::Start, kStatFont * 0.8};
  for (const auto& [left, right] : rows) {
    if (right.empty()) {
      svg.fit(x + 6, ty, w - 12, left, st);
    } else {
      svg.fit(x + 6, ty, w / 2 - 8, left, st);
      svg.fit(x + w / 2 + 2, ty, w / 2 - 8, right, st);
    }
    ty += line;
  }
  if (!bad.empty())
    svg.fit(x + 6, ty, w - 12, bad, TextStyle{kStatFont, plot::kVermillion, true, Anchor::Start, 7});
}

void draw_panel(Svg& svg, const TensorStats& t, double px, double py, bool first_column, bool log_counts) {
  svg.begin_group("panel");
  plot::fit_middle(svg, px + 6, py + 13, kPanelW - 12, t.name,
                   TextStyle{11, plot::kInk, true, Anchor::Start, 8.5});
  std::string meta = std::string(dtype_info(t.dtype).name) + "  " + shape_text(t) + "  " +
                     plot::si_count(static_cast<double>(t.numel)) + " elements";
  svg.fit(px + 6, py + 26, kPanelW - 12, meta, TextStyle{9, plot::kMuted, false, Anchor::Start, 7.5});

  Axes a;
  a.tick_font = kTickFont;
  a.title_font = 10.5;
  plot::place(a, px + 46, py + 36, kPanelW - 46 - 14, 104);
  const Bars b = bars_of(t);
  const bool empty = b.total == 0;

  // x: the histogram's range padded by 2%, or a window around the constant.
  double lo = 0, hi = 1;
  if (!b.edges.empty()) {
    lo = b.edges.front();
    hi = b.edges.back();
  } else if (b.constant) {
    const double d = b.value == 0 ? 0.5 : std::fabs(b.value) * 0.5;
    lo = b.value - d;
    hi = b.value + d;
  }
  const double pad = (hi - lo) * 0.02;
  a.sx.lo = lo - pad;
  a.sx.hi = hi + pad;

  uint64_t peak = 0;
  for (uint64_t c : b.counts) peak = std::max(peak, c);
  if (b.constant) peak = b.total;
  a.sy.log = log_counts;
  if (log_counts) {
    a.sy.lo = 0.5;
    a.sy.hi = std::max(2.0, static_cast<double>(peak) * 2.5);
  } else {
    a.sy.lo = 0;
    a.sy.hi = std::max(1.0, static_cast<double>(peak) * 1.05);
    plot::nice_domain(a.sy.lo, a.sy.hi, true);
  }
  if (first_column) a.ytitle = log_counts ? "count (log scale)" : "count";

  if (!empty) {
    a.xticks = plot::fitted_ticks(a.sx, true, kTickFont, 5);
    a.yticks = plot::fitted_ticks(a.sy, false, kTickFont, 4, true, true);
  }
  plot::draw_grid(svg, a);
  if (empty) {
    svg.rect(a.x, a.y, a.w, a.h, plot::kPanel, "none");
    svg.text(a.x + a.w / 2, a.y + a.h / 2 + 4,
             t.finite == 0 && t.numel > 0 ? "no finite values" : "no histogram",
             TextStyle{10.5, plot::kMuted, false, Anchor::Middle});
  } else if (b.constant) {
    const double cx = a.sx(b.value), top = a.sy.clamped(static_cast<double>(b.total));
    svg.rect(cx - 2, top, 4, a.bottom() - top, plot::kBarFill, plot::kBarEdge, 0, 1);
  } else {
    // The histogram as one filled step outline.
    std::string d = "M" + diagram::svg_num(a.sx(b.edges.front())) + "," + diagram::svg_num(a.bottom());
    for (size_t i = 0; i < b.counts.size(); ++i) {
      const double top = b.counts[i] == 0 ? a.bottom() : a.sy.clamped(static_cast<double>(b.counts[i]));
      d += " L" + diagram::svg_num(a.sx(b.edges[i])) + "," + diagram::svg_num(top) + " L" +
           diagram::svg_num(a.sx(b.edges[i + 1])) + "," + diagram::svg_num(top);
    }
    d += " L" + diagram::svg_num(a.sx(b.edges.back())) + "," + diagram::svg_num(a.bottom()) + " Z";
    svg.path(d, plot::kBarFill, plot::kBarEdge, 0.9);
  }
  // Constant either way: degenerate edges, or numpy's [v - 0.5, v + 0.5] with one full bin.
  if (!empty && (b.constant || (t.finite > 0 && t.min == t.max)))
    svg.text(a.x + 4, a.y + 11, "constant", TextStyle{9, plot::kMuted, false, Anchor::Start});
  plot::draw_axes(svg, a);
  draw_stats_box(svg, t, px + 6, py + 162, kPanelW - 20);
  svg.end_group();
}

}  // namespace

std::string render_distribution_grid_svg(const WeightStats& s, size_t max_panels, bool log_counts) {
  const std::vector<size_t> shown = chosen_tensors(s, max_panels);
  const size_t n = shown.size();
  const size_t cols = n <= 4 ? std::max<size_t>(n, 1) : n <= 16 ? 4 : n <= 25 ? 5 : 6;
  const size_t rows = (n + cols - 1) / cols;
  const double grid_w = static_cast<double>(cols) * kPanelW;
  const double width = std::max(640.0, kLeft + grid_w + kRight);
  const double body = n == 0 ? 90 : static_cast<double>(rows) * kPanelH;
  const bool footnote = n < s.tensors.size();
  const double height = kTop + body + (footnote ? kFoot : 12);
  const std::string model = s.model_id.empty() ? "model" : display_name_of(s.model_id);
  Svg svg(static_cast<int>(std::ceil(width)), static_cast<int>(std::ceil(height)),
          "Weight distributions of " + model);
  svg.rect(0, 0, width, height, "#ffffff");

  plot::fit_middle(svg, kLeft, 32, width - kLeft - kRight, "Weight distributions \u2014 " + model,
                   TextStyle{18, plot::kInk, true, Anchor::Start, 12});
  uint64_t params = s.summary.total_parameters;
  if (params == 0)
    for (const TensorStats& t : s.tensors) params += t.numel;
  std::string sub = std::to_string(s.tensors.size()) + (s.tensors.size() == 1 ? " tensor" : " tensors") +
                    ", " + parameters_label(params) + " parameters";
  const uint32_t bins =
      s.bins ? s.bins : (s.tensors.empty() ? 0 : static_cast<uint32_t>(s.tensors[0].histogram.counts.size()));
  sub += " \u00b7 histograms of the finite values" +
         (bins ? " (" + std::to_string(bins) + " bins)" : std::string());
  sub += std::string(" \u00b7 x: weight value, y: elements per bin") + (log_counts ? " (log scale)" : "");
  svg.fit(kLeft, 54, width - kLeft - kRight, sub, TextStyle{12, plot::kMuted, false, Anchor::Start, 9});

  if (n == 0) {
    svg.text(width / 2, kTop + 45, s.tensors.empty() ? "No tensors to plot." : "No panels requested.",
             TextStyle{14, plot::kMuted, false, Anchor::Middle});
  }
  for (size_t k = 0; k < n; ++k) {
    const size_t r = k / cols, c = k % cols;
    draw_panel(svg, s.tensors[shown[k]], kLeft + static_cast<double>(c) * kPanelW,
               kTop + static_cast<double>(r) * kPanelH, c == 0, log_counts);
  }
  if (footnote) {
    const size_t left_out = s.tensors.size() - n;
    const std::string note = "Showing the " + std::to_string(n) + " largest of " +
                             std::to_string(s.tensors.size()) +
                             " tensors by element count, in checkpoint order; " + std::to_string(left_out) +
                             (left_out == 1 ? " tensor" : " tensors") + " not shown.";
    svg.begin_group("footnote");
    svg.fit(kLeft, height - 16, width - kLeft - kRight, note,
            TextStyle{11, plot::kMuted, false, Anchor::Start, 8});
    svg.end_group();
  }
  return svg.finish();
}

}  // namespace ma
