#include "report/embedding_plots.h"

#include <algorithm>
#include <cmath>

#include "analysis/identity.h"
#include "core/units.h"
#include "report/diagram_canvas.h"
#include "report/plot_axes.h"

namespace ma {
namespace {

using diagram::Anchor;
using diagram::Svg;
using diagram::TextStyle;
using plot::Axes;

const std::vector<std::string>& palette() {
  static const std::vector<std::string> c = {plot::kBlue,   plot::kOrange, plot::kGreen, plot::kVermillion,
                                             plot::kPurple, plot::kSky,    plot::kBlack, "#8c6d31"};
  return c;
}
constexpr plot::Marker kMarkers[] = {plot::Marker::Circle,       plot::Marker::Square,
                                     plot::Marker::TriangleUp,   plot::Marker::Diamond,
                                     plot::Marker::TriangleDown, plot::Marker::Hexagon};

std::string percent_1dp(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
  return buf;
}

}  // namespace

std::string render_embedding_projection_svg(const EmbeddingAnalysis& a) {
  constexpr double kW = 1000, kH = 720, kLeft = 80, kTop = 80, kLegend = 170;
  const std::string model = display_name_of(a.model_id);
  Svg svg(static_cast<int>(kW), static_cast<int>(kH), "Principal-component projection of " + a.tensor);
  svg.rect(0, 0, kW, kH, "#ffffff");
  plot::fit_middle(svg, 24, 32, kW - 48, "Token embedding by cluster \u2014 " + model,
                   TextStyle{18, plot::kInk, true, Anchor::Start, 12});
  svg.text(24, 54,
           a.tensor + " (" + with_thousands(a.rows) + " x " + with_thousands(a.cols) + ") \u00b7 k = " +
               std::to_string(a.k) + " \u00b7 " + std::to_string(a.projected_rows.size()) + " rows drawn",
           TextStyle{12, plot::kMuted, false, Anchor::Start});
  // The axes span the middle 99% of the points on each component, so that a few outlying rows (the ones
  // the report lists) do not squeeze the rest into a corner; those beyond sit on the frame.
  Axes ax;
  const size_t n = a.projected_rows.size();
  std::vector<double> px, py;
  for (size_t i = 0; i < n; ++i) {
    px.push_back(a.projection[2 * i]);
    py.push_back(a.projection[2 * i + 1]);
  }
  const auto span = [](std::vector<double> v, double& lo, double& hi) {
    if (v.empty()) {
      lo = -1, hi = 1;
      return;
    }
    std::sort(v.begin(), v.end());
    lo = v[static_cast<size_t>(0.005 * static_cast<double>(v.size() - 1))];
    hi = v[static_cast<size_t>(0.995 * static_cast<double>(v.size() - 1))];
  };
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  span(px, x0, x1);
  span(py, y0, y1);
  size_t beyond = 0;
  for (size_t i = 0; i < n; ++i) beyond += px[i] < x0 || px[i] > x1 || py[i] < y0 || py[i] > y1;
  ax.sx.lo = x0;
  ax.sx.hi = x1;
  ax.sy.lo = y0;
  ax.sy.hi = y1;
  plot::nice_domain(ax.sx.lo, ax.sx.hi, false);
  plot::nice_domain(ax.sy.lo, ax.sy.hi, false);
  plot::place(ax, kLeft, kTop, kW - kLeft - kLegend - 50, kH - kTop - 70);
  ax.xtitle = "PC1 (" + percent_1dp(a.explained_variance[0]) + " of the variance)";
  ax.ytitle = "PC2 (" + percent_1dp(a.explained_variance[1]) + ")";
  ax.vertical_grid = true;
  ax.xticks = plot::fitted_ticks(ax.sx, true, ax.tick_font, 8);
  ax.yticks = plot::fitted_ticks(ax.sy, false, ax.tick_font, 8);
  plot::draw_grid(svg, ax);
  svg.begin_group("points");
  const double r = a.projected_rows.size() > 2000 ? 1.6 : 2.4;
  for (size_t i = 0; i < a.projected_rows.size(); ++i) {
    const uint32_t c = a.clustering.labels[a.projected_rows[i]];
    plot::draw_marker(svg, kMarkers[(c / palette().size()) % std::size(kMarkers)],
                      ax.sx.clamped(a.projection[2 * i]), ax.sy.clamped(a.projection[2 * i + 1]), r,
                      palette()[c % palette().size()], "none", 0);
  }
  svg.end_group();
  plot::draw_axes(svg, ax, true);
  svg.text(24, kH - 16,
           std::to_string(beyond) + " of the " + std::to_string(n) +
               " rows lie beyond the axes (the middle 99% of each component) and are drawn on the frame.",
           TextStyle{11, plot::kMuted, false, Anchor::Start});
  std::vector<plot::LegendEntry> entries;
  for (const ClusterSummary& c : a.clusters) {
    std::string label = std::to_string(c.id) + " (" + with_thousands(c.size) + ")";
    entries.push_back({label, palette()[c.id % palette().size()], plot::LegendEntry::Kind::LineMarker,
                       kMarkers[(c.id / palette().size()) % std::size(kMarkers)]});
  }
  svg.begin_group("legend");
  plot::draw_legend(svg, kW - kLegend - 30, kTop, kLegend, entries, 11, "cluster (rows)");
  svg.end_group();
  return svg.finish();
}

std::string render_elbow_svg(const EmbeddingAnalysis& a) {
  constexpr double kW = 900, kH = 480, kLeft = 90, kTop = 80;
  Svg svg(static_cast<int>(kW), static_cast<int>(kH), "Elbow of the k-means inertia of " + a.tensor);
  svg.rect(0, 0, kW, kH, "#ffffff");
  plot::fit_middle(svg, 24, 32, kW - 48, "k-means inertia by k \u2014 " + display_name_of(a.model_id),
                   TextStyle{18, plot::kInk, true, Anchor::Start, 12});
  svg.text(
      24, 54,
      a.elbow ? "ring: the elbow (Kneedle), k = " + std::to_string(*a.elbow) : "one k: no elbow to choose",
      TextStyle{12, plot::kMuted, false, Anchor::Start});
  Axes ax;
  ax.sx.lo = a.elbow_ks.front() - 0.5;
  ax.sx.hi = a.elbow_ks.back() + 0.5;
  const auto [lo, hi] = std::minmax_element(a.elbow_inertias.begin(), a.elbow_inertias.end());
  ax.sy.lo = *lo;
  ax.sy.hi = *hi;
  plot::nice_domain(ax.sy.lo, ax.sy.hi, true);
  plot::place(ax, kLeft, kTop, kW - kLeft - 40, kH - kTop - 70);
  ax.xtitle = "k (clusters)";
  ax.ytitle = "inertia (sum of squared distances)";
  ax.xticks = plot::fitted_ticks(ax.sx, true, ax.tick_font, 16, true);
  ax.yticks = plot::fitted_ticks(ax.sy, false, ax.tick_font, 6);
  plot::draw_grid(svg, ax);
  std::vector<double> xy;
  for (size_t i = 0; i < a.elbow_ks.size(); ++i) {
    xy.push_back(ax.sx(a.elbow_ks[i]));
    xy.push_back(ax.sy.clamped(a.elbow_inertias[i]));
  }
  svg.polyline(xy, plot::kBlue, 1.8);
  for (size_t i = 0; i < a.elbow_ks.size(); ++i) {
    plot::draw_marker(svg, plot::Marker::Circle, xy[2 * i], xy[2 * i + 1], 3.5, plot::kBlue);
    if (a.elbow && a.elbow_ks[i] == *a.elbow)
      svg.circle(xy[2 * i], xy[2 * i + 1], 8, "none", plot::kOutlier, 2);
  }
  plot::draw_axes(svg, ax, true);
  return svg.finish();
}

}  // namespace ma
