#include "report/spectrum_plots.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/identity.h"
#include "report/diagram_canvas.h"
#include "report/plot_axes.h"

namespace ma {
namespace {

using diagram::Anchor;
using diagram::Svg;
using diagram::TextStyle;
using plot::Axes;

using namespace plot::layer_page;
constexpr size_t kMaxCurves = 12;

struct Series {
  std::string name;
  plot::SeriesStyle style;
  std::vector<uint32_t> layers;
  std::vector<double> rank_ratio, energy_ratio, alpha;  // NaN where unknown
};

double mean_or_nan(const std::vector<double>& v) {
  double sum = 0;
  size_t n = 0;
  for (double x : v)
    if (std::isfinite(x)) {
      sum += x;
      ++n;
    }
  return n ? sum / static_cast<double>(n) : NAN;
}

std::vector<Series> collect(const ModelSpectrum& s) {
  std::vector<std::string> order;
  struct Values {
    std::vector<double> rank, energy, alpha;
  };
  std::map<std::string, std::map<uint32_t, Values>> by_class;
  for (const MatrixSpectrum& m : s.matrices) {
    if (!m.layer) continue;
    const std::string cls(module_class_name(m.module_class));
    if (!by_class.count(cls)) order.push_back(cls);
    Values& v = by_class[cls][*m.layer];
    const double design = static_cast<double>(m.metrics.design_rank);
    v.rank.push_back(m.metrics.actual_rank ? static_cast<double>(*m.metrics.actual_rank) / design : NAN);
    v.energy.push_back(m.metrics.rank_90 ? static_cast<double>(*m.metrics.rank_90) / design : NAN);
    v.alpha.push_back(m.metrics.alpha ? m.metrics.alpha->alpha : NAN);
  }
  std::vector<Series> out;
  size_t fallback = 0;
  for (const std::string& cls : order) {
    Series se;
    se.name = cls;
    se.style = plot::class_style(cls, fallback);
    for (const auto& [layer, v] : by_class[cls]) {
      se.layers.push_back(layer);
      se.rank_ratio.push_back(mean_or_nan(v.rank));
      se.energy_ratio.push_back(mean_or_nan(v.energy));
      se.alpha.push_back(mean_or_nan(v.alpha));
    }
    out.push_back(std::move(se));
  }
  return out;
}

// One series as a line through its finite points (a gap where a value is unknown), with markers.
void draw_series(Svg& svg, const Axes& a, const std::vector<uint32_t>& layers, const std::vector<double>& v,
                 const plot::SeriesStyle& style, bool dashed, bool markers, double r) {
  std::vector<double> xy;
  const auto flush = [&] {
    svg.polyline(xy, style.color, dashed ? 1.2 : 1.5, dashed);
    xy.clear();
  };
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      flush();
      continue;
    }
    xy.push_back(a.sx(layers[i]));
    xy.push_back(a.sy.clamped(v[i]));
  }
  flush();
  if (!markers) return;
  for (size_t i = 0; i < v.size(); ++i)
    if (std::isfinite(v[i]))
      plot::draw_marker(svg, style.marker, a.sx(layers[i]), a.sy.clamped(v[i]), r, style.color);
}

void title(Svg& svg, const std::string& text, double width) {
  plot::fit_middle(svg, 24, 32, width - 48, text, TextStyle{18, plot::kInk, true, Anchor::Start, 12});
}

}  // namespace

std::string render_spectrum_trends_svg(const ModelSpectrum& s) {
  const std::vector<Series> series = collect(s);
  const std::string model = s.model_id.empty() ? "model" : display_name_of(s.model_id);
  const double plot_w = kWidth - kLeft - kLegendW - kRightPad - 20;
  const double height = series.empty() ? 200 : kTop + 2 * kPanelH + kPanelGap + 60;
  Svg svg(static_cast<int>(kWidth), static_cast<int>(height),
          "Rank and heavy-tail alpha by layer of " + model);
  svg.rect(0, 0, kWidth, height, "#ffffff");
  title(svg, "Rank and spectral tail by layer \u2014 " + model, kWidth);
  if (series.empty()) {
    svg.text(kWidth / 2, 130, "No matrices inside the layer stack.",
             TextStyle{14, plot::kMuted, false, Anchor::Middle});
    return svg.finish();
  }
  uint32_t lo = UINT32_MAX, hi = 0;
  double alpha_lo = INFINITY, alpha_hi = -INFINITY;
  for (const Series& se : series)
    for (size_t i = 0; i < se.layers.size(); ++i) {
      lo = std::min(lo, se.layers[i]);
      hi = std::max(hi, se.layers[i]);
      if (std::isfinite(se.alpha[i])) {
        alpha_lo = std::min(alpha_lo, se.alpha[i]);
        alpha_hi = std::max(alpha_hi, se.alpha[i]);
      }
    }
  const size_t n_layers = hi - lo + 1;
  svg.text(24, 54,
           std::to_string(s.matrices.size()) + " matrices, " + std::to_string(n_layers) +
               " layers \u00b7 a class " + "with several matrices in a layer (experts) shows their mean",
           TextStyle{12, plot::kMuted, false, Anchor::Start});
  Axes top, bottom;
  for (Axes* a : {&top, &bottom}) plot::layer_domain(*a, lo, hi);
  plot::place(top, kLeft, kTop + 26, plot_w, kPanelH - 26);
  plot::place(bottom, kLeft, kTop + kPanelH + kPanelGap, plot_w, kPanelH - 26);
  top.sy.lo = 0;
  top.sy.hi = 1;
  top.ytitle = "rank / design rank";
  if (!std::isfinite(alpha_lo)) alpha_lo = 0, alpha_hi = 1;
  bottom.sy.lo = alpha_lo;
  bottom.sy.hi = alpha_hi;
  plot::nice_domain(bottom.sy.lo, bottom.sy.hi, false);
  bottom.ytitle = "alpha (ESD power law)";
  bottom.xtitle = "layer index";
  for (Axes* a : {&top, &bottom}) plot::layer_ticks(*a, lo, hi);
  const double r = std::clamp(plot_w / static_cast<double>(n_layers) / 3.2, 1.8, 3.8);
  svg.begin_group("panel rank");
  svg.text(top.x, top.y - 10,
           "Numerical rank (solid) and 90% energy rank (dashed), as a fraction of min(m, n)",
           TextStyle{13, plot::kInk, true, Anchor::Start});
  plot::draw_grid(svg, top);
  for (const Series& se : series) draw_series(svg, top, se.layers, se.energy_ratio, se.style, true, false, r);
  for (const Series& se : series) draw_series(svg, top, se.layers, se.rank_ratio, se.style, false, true, r);
  plot::draw_axes(svg, top, false);
  svg.end_group();
  svg.begin_group("panel alpha");
  svg.text(bottom.x, bottom.y - 10,
           "Power-law exponent alpha of the eigenvalues of W\u1d40W (lower: heavier tail)",
           TextStyle{13, plot::kInk, true, Anchor::Start});
  plot::draw_grid(svg, bottom);
  for (const Series& se : series) draw_series(svg, bottom, se.layers, se.alpha, se.style, false, true, r);
  plot::draw_axes(svg, bottom, true);
  svg.end_group();
  std::vector<plot::LegendEntry> entries;
  for (const Series& se : series)
    entries.push_back({se.name, se.style.color, plot::LegendEntry::Kind::LineMarker, se.style.marker});
  entries.push_back(
      {"90% energy rank", plot::kMuted, plot::LegendEntry::Kind::DashedLine, plot::Marker::Circle});
  svg.begin_group("legend");
  plot::draw_legend(svg, kLeft + plot_w + 20, top.y, kLegendW, entries, 11, "module class");
  svg.end_group();
  svg.fit(
      24, height - 16, kWidth - 48,
      "Rank: singular values above the tolerance in the JSON's rank_tolerance. alpha: continuous power-law "
      "fit of the eigenvalue tail, xmin by the smallest Kolmogorov-Smirnov distance (WeightWatcher).",
      TextStyle{11, plot::kMuted, false, Anchor::Start, 8.5});
  return svg.finish();
}

std::string render_singular_values_svg(const ModelSpectrum& s,
                                       const std::vector<const MatrixSpectrum*>& shown) {
  const std::string model = s.model_id.empty() ? "model" : display_name_of(s.model_id);
  const size_t drawn = std::min(shown.size(), kMaxCurves);
  const double plot_w = kWidth - kLeft - 320 - kRightPad - 20, height = 520;
  Svg svg(static_cast<int>(kWidth), static_cast<int>(height), "Singular values of " + model);
  svg.rect(0, 0, kWidth, height, "#ffffff");
  title(svg, "Singular values \u2014 " + model, kWidth);
  double lo = INFINITY;
  for (size_t c = 0; c < drawn; ++c) {
    const std::vector<double>& v = shown[c]->singular_values.values;
    if (v.empty() || !(v.front() > 0)) continue;
    for (double x : v)
      if (x > 0) lo = std::min(lo, x / v.front());
  }
  if (!std::isfinite(lo)) lo = 1e-3;
  Axes a;
  a.sx.lo = 0;
  a.sx.hi = 1;
  a.sy.log = true;
  a.sy.lo = std::max(lo, 1e-8);
  a.sy.hi = 1;
  plot::log_domain(a.sy.lo, a.sy.hi);
  plot::place(a, kLeft, kTop + 10, plot_w, height - kTop - 90);
  a.xtitle = "index / min(m, n)";
  a.ytitle = "\u03c3 / \u03c3_max (log scale)";
  a.xticks = plot::fitted_ticks(a.sx, true, a.tick_font, 10);
  a.yticks = plot::fitted_ticks(a.sy, false, a.tick_font, 8);
  svg.text(24, 54,
           std::to_string(drawn) + " of the " + std::to_string(shown.size()) +
               " matrices chosen \u00b7 ring: the 90% energy rank",
           TextStyle{12, plot::kMuted, false, Anchor::Start});
  plot::draw_grid(svg, a);
  // Okabe & Ito without yellow (too faint on white); the next six curves repeat them dashed.
  const std::vector<std::string> colors = {plot::kBlue,       plot::kOrange, plot::kGreen,
                                           plot::kVermillion, plot::kPurple, plot::kSky};
  std::vector<plot::LegendEntry> entries;
  for (size_t c = 0; c < drawn; ++c) {
    const MatrixSpectrum& m = *shown[c];
    const std::vector<double>& v = m.singular_values.values;
    const std::string& color = colors[c % colors.size()];
    const bool dashed = c >= colors.size();
    if (v.empty() || !(v.front() > 0)) continue;
    const double n = static_cast<double>(m.metrics.design_rank);
    std::vector<double> xy;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!(v[i] > 0)) break;
      xy.push_back(a.sx((static_cast<double>(i) + 0.5) / n));
      xy.push_back(a.sy.clamped(v[i] / v.front()));
    }
    svg.polyline(xy, color, 1.6, dashed);
    if (m.metrics.rank_90 && *m.metrics.rank_90 <= v.size()) {
      const size_t i = *m.metrics.rank_90 - 1;
      svg.circle(a.sx((static_cast<double>(i) + 0.5) / n), a.sy.clamped(v[i] / v.front()), 4.5, "none", color,
                 1.6);
    }
    entries.push_back({plot::ellipsize_middle(m.name, 11, false, 290), color,
                       dashed ? plot::LegendEntry::Kind::DashedLine : plot::LegendEntry::Kind::LineMarker,
                       plot::Marker::Circle});
  }
  plot::draw_axes(svg, a, true);
  svg.begin_group("legend");
  plot::draw_legend(svg, kLeft + plot_w + 20, a.y, 320, entries, 11, "matrix");
  svg.end_group();
  return svg.finish();
}

}  // namespace ma
