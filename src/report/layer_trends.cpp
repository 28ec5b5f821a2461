// Per-layer trends of the weight statistics (stats_plots.h): std and abs_max against the layer index, one
// series per module class, outliers within a class ringed and numbered.
#include <algorithm>
#include <cmath>
#include <map>

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

using namespace plot::layer_page;

// One module class's values, layer by layer.
struct Series {
  std::string name;
  plot::SeriesStyle style;
  std::vector<uint32_t> layers;
  std::vector<double> std, abs_max;
};

struct Moments {
  double n = 0, sum = 0, sum_sq = 0, abs_max = 0;
  bool any = false;
};

// Pools the tensors of each (class, layer): the std of all their finite values together, the largest abs_max.
std::vector<Series> collect(const WeightStats& s) {
  std::vector<std::string> order;
  std::map<std::string, std::map<uint32_t, Moments>> pooled;
  for (const TensorStats& t : s.tensors) {
    if (!t.layer) continue;
    const std::string cls(module_class_name(t.module_class));
    if (!pooled.count(cls)) order.push_back(cls);
    Moments& m = pooled[cls][*t.layer];
    const double n = static_cast<double>(t.finite);
    if (n <= 0 || !std::isfinite(t.mean) || !std::isfinite(t.var)) continue;
    m.n += n;
    m.sum += n * t.mean;
    m.sum_sq += n * (t.var + t.mean * t.mean);
    if (std::isfinite(t.abs_max)) m.abs_max = std::max(m.abs_max, t.abs_max);
    m.any = true;
  }
  std::vector<Series> out;
  size_t fallback = 0;
  for (const std::string& cls : order) {
    Series se;
    se.name = cls;
    se.style = plot::class_style(cls, fallback);
    for (const auto& [layer, m] : pooled[cls]) {
      if (!m.any) continue;
      const double mean = m.sum / m.n;
      se.layers.push_back(layer);
      se.std.push_back(std::sqrt(std::max(0.0, m.sum_sq / m.n - mean * mean)));
      se.abs_max.push_back(m.abs_max);
    }
    if (!se.layers.empty()) out.push_back(std::move(se));
  }
  return out;
}

struct Ring {
  double x, y;
  uint32_t layer;
  std::string cls;
};

// A label's box, for the overlap test.
struct Box {
  double x0, y0, x1, y1;
  bool hits(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// Draws one panel (std or abs_max); returns the rings drawn (for the caption).
std::vector<Ring> draw_panel(Svg& svg, Axes& a, const std::vector<Series>& series, bool abs_max,
                             const std::string& heading, bool x_labels, double marker_r,
                             size_t marker_every) {
  svg.begin_group(abs_max ? "panel abs-max" : "panel std");
  svg.text(a.x, a.y - 10, heading, TextStyle{13, plot::kInk, true, Anchor::Start});
  plot::draw_grid(svg, a);
  // Lines, then markers, then rings, so that no line crosses a marker.
  for (const Series& se : series) {
    const std::vector<double>& v = abs_max ? se.abs_max : se.std;
    std::vector<double> xy;
    for (size_t i = 0; i < v.size(); ++i) {
      xy.push_back(a.sx(se.layers[i]));
      xy.push_back(a.sy.clamped(v[i]));
    }
    svg.polyline(xy, se.style.color, 1.5);
  }
  for (const Series& se : series) {
    const std::vector<double>& v = abs_max ? se.abs_max : se.std;
    for (size_t i = 0; i < v.size(); i += 1) {
      if (v.size() > 1 && i % marker_every != 0 && i + 1 != v.size()) continue;
      plot::draw_marker(svg, se.style.marker, a.sx(se.layers[i]), a.sy.clamped(v[i]), marker_r,
                        se.style.color);
    }
  }
  std::vector<Ring> rings;
  for (const Series& se : series) {
    std::vector<double> v = abs_max ? se.abs_max : se.std;
    if (abs_max)
      for (double& x : v) x = x > 0 ? std::log10(x) : NAN;
    plot::OutlierRule rule;
    rule.half_window = std::clamp<size_t>(v.size() / 10, 3, 12);
    // Never an outlier for less than 3% off its trend (std), or 0.03 dex (7%) for abs max.
    rule.rel_floor = abs_max ? 0 : 0.01;
    rule.abs_floor = abs_max ? 0.01 : 0;
    for (size_t i : plot::robust_outliers(v, rule)) {
      const double val = abs_max ? se.abs_max[i] : se.std[i];
      rings.push_back(Ring{a.sx(se.layers[i]), a.sy.clamped(val), se.layers[i], se.name});
    }
  }
  svg.begin_group("outliers");
  for (const Ring& r : rings) svg.circle(r.x, r.y, marker_r + 4, "none", plot::kOutlier, 1.8);
  // One number per outlier layer, above its highest ring (below when there is no room), moved up a line when
  // it would cover another.
  std::map<uint32_t, std::pair<double, double>> by_layer;  // layer -> (x, top y)
  for (const Ring& r : rings) {
    auto [it, fresh] = by_layer.try_emplace(r.layer, r.x, r.y);
    if (!fresh) it->second.second = std::min(it->second.second, r.y);
  }
  std::vector<Box> placed;
  const double f = 10.5;
  for (const auto& [layer, pos] : by_layer) {
    const std::string label = std::to_string(layer);
    const double w = diagram::text_width(label, f, true);
    double y = pos.second - marker_r - 7;
    if (y - f < a.top()) y = pos.second + marker_r + 7 + f;
    for (int tries = 0; tries < 4; ++tries) {
      const Box b{pos.first - w / 2 - 1, y - f, pos.first + w / 2 + 1, y + 2};
      if (std::none_of(placed.begin(), placed.end(), [&](const Box& o) { return o.hits(b); })) {
        placed.push_back(b);
        svg.text(pos.first, y, label, TextStyle{f, plot::kOutlier, true, Anchor::Middle});
        break;
      }
      y -= f + 2;
    }
  }
  svg.end_group();
  plot::draw_axes(svg, a, x_labels);
  svg.end_group();
  return rings;
}

// "layer 17 (q_proj, k_proj); layer 30 (mlp)".
std::string ring_list(const std::vector<Ring>& rings) {
  std::map<uint32_t, std::vector<std::string>> by_layer;
  for (const Ring& r : rings) by_layer[r.layer].push_back(r.cls);
  std::string out;
  for (const auto& [layer, classes] : by_layer) {
    out += (out.empty() ? "" : "; ") + std::to_string(layer) + " (";
    for (size_t i = 0; i < classes.size(); ++i) out += (i ? ", " : "") + classes[i];
    out += ")";
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::string render_layer_trends_svg(const WeightStats& s) {
  const std::vector<Series> series = collect(s);
  const std::string model = s.model_id.empty() ? "model" : display_name_of(s.model_id);
  const double plot_w = kWidth - kLeft - kLegendW - kRightPad - 20;
  const double height = series.empty() ? 200 : kTop + 2 * kPanelH + kPanelGap + 84;
  Svg svg(static_cast<int>(kWidth), static_cast<int>(height), "Per-layer weight statistics of " + model);
  svg.rect(0, 0, kWidth, height, "#ffffff");
  plot::fit_middle(svg, 24, 32, kWidth - 48, "Per-layer weight statistics \u2014 " + model,
                   TextStyle{18, plot::kInk, true, Anchor::Start, 12});
  if (series.empty()) {
    svg.text(24, 56, "No tensors inside the layer stack.", TextStyle{12, plot::kMuted, false, Anchor::Start});
    svg.text(kWidth / 2, 130, "No per-layer tensors to plot.",
             TextStyle{14, plot::kMuted, false, Anchor::Middle});
    return svg.finish();
  }

  uint32_t lo = UINT32_MAX, hi = 0;
  double std_min = INFINITY, std_max = 0, abs_min = INFINITY, abs_max = 0;
  for (const Series& se : series) {
    for (size_t i = 0; i < se.layers.size(); ++i) {
      lo = std::min(lo, se.layers[i]);
      hi = std::max(hi, se.layers[i]);
      std_max = std::max(std_max, se.std[i]);
      if (se.std[i] > 0) std_min = std::min(std_min, se.std[i]);
      abs_max = std::max(abs_max, se.abs_max[i]);
      if (se.abs_max[i] > 0) abs_min = std::min(abs_min, se.abs_max[i]);
    }
  }
  const size_t n_layers = hi - lo + 1;
  svg.text(
      24, 54,
      std::to_string(n_layers) + (n_layers == 1 ? " layer, " : " layers, ") + std::to_string(series.size()) +
          (series.size() == 1 ? " module class" : " module classes") +
          " \u00b7 each point pools a class's tensors in one layer (std of all their values, largest |w|)",
      TextStyle{12, plot::kMuted, false, Anchor::Start});

  Axes top, bottom;
  for (Axes* a : {&top, &bottom}) {
    plot::layer_domain(*a, lo, hi);
    a->tick_font = 11;
    a->title_font = 12;
    a->vertical_grid = false;
  }
  plot::place(top, kLeft, kTop + 26, plot_w, kPanelH - 26);
  plot::place(bottom, kLeft, kTop + kPanelH + kPanelGap, plot_w, kPanelH - 26);
  // std: linear from zero unless the classes sit orders of magnitude apart.
  const bool std_log = std_max > 0 && std_min < INFINITY && std_max / std_min > 30;
  top.sy.log = std_log;
  top.sy.lo = std_log ? std_min : 0;
  top.sy.hi = std_max;
  if (std_log)
    plot::log_domain(top.sy.lo, top.sy.hi);
  else
    plot::nice_domain(top.sy.lo, top.sy.hi, true);
  top.ytitle = std_log ? "std (log scale)" : "std";
  bottom.sy.log = true;
  bottom.sy.lo = abs_min < INFINITY ? abs_min : 1e-3;
  bottom.sy.hi = abs_max > 0 ? abs_max : 1;
  plot::log_domain(bottom.sy.lo, bottom.sy.hi);
  bottom.ytitle = "abs max (log scale)";
  bottom.xtitle = "layer index";
  for (Axes* a : {&top, &bottom}) plot::layer_ticks(*a, lo, hi);

  const double per_layer = plot_w / static_cast<double>(n_layers);
  const double marker_r = std::clamp(per_layer / 3.2, 1.8, 3.8);
  const size_t marker_every = n_layers <= 64 ? 1 : (n_layers + 47) / 48;
  const std::vector<Ring> std_rings =
      draw_panel(svg, top, series, false, "Standard deviation", false, marker_r, marker_every);
  const std::vector<Ring> abs_rings =
      draw_panel(svg, bottom, series, true, "Largest magnitude |w|", true, marker_r, marker_every);

  // Legend in the right-hand column.
  std::vector<plot::LegendEntry> entries;
  for (const Series& se : series)
    entries.push_back({se.name, se.style.color, plot::LegendEntry::Kind::LineMarker, se.style.marker});
  entries.push_back(
      {"outlier (robust z > 3)", plot::kOutlier, plot::LegendEntry::Kind::Ring, plot::Marker::Circle});
  svg.begin_group("legend");
  plot::draw_legend(svg, kLeft + plot_w + 20, top.y, kLegendW, entries, 11, "module class");
  svg.end_group();

  svg.begin_group("caption");
  svg.fit(24, height - 34, kWidth - 48,
          "Red rings: more than 3 robust deviations (1.4826 \u00d7 MAD) from the class's local trend, a "
          "median line "
          "through the neighbouring layers (classes with 5 or more layers; abs max on a log scale).",
          TextStyle{11, plot::kMuted, false, Anchor::Start, 8.5});
  svg.fit(24, height - 16, kWidth - 48,
          "Outlier layers \u2014 std: " + ring_list(std_rings) + "  \u00b7  abs max: " + ring_list(abs_rings),
          TextStyle{11, plot::kMuted, false, Anchor::Start, 8.5});
  svg.end_group();
  return svg.finish();
}

}  // namespace ma
