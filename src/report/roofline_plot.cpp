// The multi-chip roofline (roofline_plot.h): shared log-log axes, one panel per accelerator, the roof and its
// ridge, regime shading, the operations as points whose labels are placed where they cover nothing else.
// The label placement is in roofline_labels.cpp, one panel's drawing in roofline_panel.cpp; this file
// aggregates a step into points and lays out the document: the title, the panels, the legend, the caption.
#include "report/roofline_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

#include "report/diagram_canvas.h"
#include "report/plot_axes.h"
#include "report/roofline_panel.h"

namespace ma {
namespace {

using diagram::Anchor;
using diagram::Svg;
using diagram::TextStyle;
using roofline::Domain;
using roofline::kCompTint;
using roofline::kMemTint;
using roofline::kPanelH;
using roofline::kPanelW;
using roofline::kTop;
using roofline::plottable;
using roofline::regime_style;
using roofline::RegimeStyle;

constexpr double kLeft = 84, kPanelGap = 100, kLegendW = 200, kRightPad = 24;

// Words of `text` in lines at most `width` wide at `font`.
std::vector<std::string> wrap(const std::string& text, double font, double width) {
  std::vector<std::string> lines;
  std::string line;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    const std::string joined = line.empty() ? word : line + " " + word;
    if (!line.empty() && diagram::text_width(joined, font) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = joined;
    }
    at = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

struct Swatch {
  enum class Kind { Marker, Line, Dashed, Fill } kind;
  std::string label, color, stroke;
  plot::Marker marker = plot::Marker::Circle;
};

// A framed legend of scatter markers (no line through them), lines and region fills.
void draw_legend(Svg& svg, double x, double y, const std::vector<Swatch>& rows) {
  const double font = 11, row = 19, pad = 9, sw = 24;
  const double h = pad * 2 + row * static_cast<double>(rows.size() + 1) - 4;
  svg.begin_group("legend");
  svg.rect(x, y, kLegendW, h, "#ffffff", "#cccccc", 3, 0.8);
  double cy = y + pad + 7;
  svg.text(x + pad, cy + 4, "legend", TextStyle{font, plot::kInk, true});
  cy += row;
  for (const Swatch& r : rows) {
    const double sx = x + pad, mid = sx + sw / 2;
    switch (r.kind) {
      case Swatch::Kind::Marker:
        plot::draw_marker(svg, r.marker, mid, cy, r.stroke == plot::kInk ? 5 : 4.5, r.color,
                          r.stroke.empty() ? "#ffffff" : r.stroke, r.stroke == plot::kInk ? 1.3 : 0.9);
        break;
      case Swatch::Kind::Line:
        svg.line(sx, cy, sx + sw, cy, r.color, 2.2);
        break;
      case Swatch::Kind::Dashed:
        svg.line(sx, cy, sx + sw, cy, r.color, 1.2, true);
        svg.circle(mid, cy, 3.5, "#ffffff", plot::kInk, 1.5);
        break;
      case Swatch::Kind::Fill:
        svg.rect(sx + 2, cy - 6, sw - 4, 12, r.color, r.stroke, 0, 0.8);
        break;
    }
    svg.fit(sx + sw + 7, cy + 4, kLegendW - 2 * pad - sw - 7, r.label,
            TextStyle{font, plot::kInk, false, Anchor::Start, 8.5});
    cy += row;
  }
  svg.end_group();
}

// Which points the caption says are labelled, for `max_labels` per panel (--roofline-labels: none 0, all
// SIZE_MAX, minimal and normal a count): none, every one (all: a limit no panel reaches, never printed as a
// number), or the step and the largest ops up to the count.
std::string labelled_text(const std::vector<RooflineSeries>& chips, size_t max_labels) {
  bool any_named = false, all_named = true;  // a drawn point has a name; every drawn point has one
  for (const RooflineSeries& c : chips)
    for (const RooflinePoint& p : c.points) {
      if (!plottable(p)) continue;
      if (p.label.empty())
        all_named = false;
      else
        any_named = true;
    }
  if (max_labels == 0 || !any_named) return "No point is labelled";
  if (max_labels == SIZE_MAX) return all_named ? "Labelled: every point" : "Labelled: every named point";
  return "Labelled: the step and the largest ops by FLOPs (at most " + std::to_string(max_labels) +
         " per panel)";
}

// The caption under the panels; `labelled` says which points are named (labelled_text), `missed` labels left
// out, `hidden` points not drawn.
std::string caption_text(const std::string& labelled, size_t missed, size_t hidden, size_t outside) {
  std::string note =
      "Points: attained TF_est = F_theory / T_est (the full time model, so they sit on or below the roof) "
      "against AI = F_theory / bytes_hbm; the whole step is the outlined diamond, coloured by its regime. "
      "Left of the ridge an op at the roof is limited by HBM bandwidth, right of it by peak compute. " +
      labelled;
  if (missed > 0) note += "; " + std::to_string(missed) + " label(s) left out for want of room";
  if (hidden > 0) note += "; " + std::to_string(hidden) + " point(s) without FLOPs or bytes not drawn";
  if (outside > 0) note += "; " + std::to_string(outside) + " point(s) outside the axis limits not drawn";
  return note + ".";
}

}  // namespace

std::vector<RooflinePoint> roofline_points(const PerfResult& r) {
  struct Group {
    const char* label;
    std::vector<std::string_view> kinds;
    double flops = 0, bytes = 0, t_est = 0, t_comp = 0, t_hbm = 0, t_net = 0;
  };
  std::vector<Group> groups = {{"attention", {"attention"}},
                               {"dense GEMMs", {"gemm"}},
                               {"MoE experts", {"moe"}},
                               {"SSM", {"ssm"}},
                               {"elementwise", {"elementwise", "embedding"}}};
  for (const OpCost& op : r.ops) {
    for (Group& g : groups) {
      if (std::find(g.kinds.begin(), g.kinds.end(), op.kind) == g.kinds.end()) continue;
      g.flops += op.flops_theory;
      g.bytes += op.bytes_hbm();
      g.t_est += op.t_est;
      g.t_comp += op.t_comp;
      g.t_hbm += op.t_hbm;
      g.t_net += op.t_net;
    }
  }
  std::vector<RooflinePoint> out;
  for (const Group& g : groups) {
    if (!(g.flops > 0) || !(g.bytes > 0) || !(g.t_est > 0)) continue;
    const std::string regime = g.t_comp >= g.t_hbm && g.t_comp >= g.t_net ? "compute"
                               : g.t_hbm >= g.t_net                       ? "memory"
                                                                          : "network";
    out.push_back(
        RooflinePoint{g.label, g.flops / g.bytes, g.flops / g.t_est / 1e12, regime, g.flops, false});
  }
  const double step_tf = r.tf_est > 0        ? r.tf_est
                         : r.total.t_est > 0 ? r.total.flops_theory / r.total.t_est / 1e12
                                             : 0;
  if (r.total.flops_theory > 0 && r.total.bytes_hbm() > 0 && step_tf > 0)
    out.push_back(
        RooflinePoint{"whole step", r.total.ai_hbm(), step_tf, r.total.regime, r.total.flops_theory, true});
  return out;
}

std::string render_roofline_svg(const std::vector<RooflineSeries>& given, const std::string& title,
                                const RooflineStyle& style) {
  Domain d = roofline::shared_domain(given);
  if (style.x_limits) std::tie(d.xlo, d.xhi) = *style.x_limits;
  if (style.y_limits) std::tie(d.ylo, d.yhi) = *style.y_limits;
  std::vector<RooflineSeries> chips = given;
  size_t outside = 0;
  for (RooflineSeries& c : chips)
    outside += std::erase_if(c.points, [&](const RooflinePoint& p) {
      return plottable(p) && (p.ai < d.xlo || p.ai > d.xhi || p.tflops < d.ylo || p.tflops > d.yhi);
    });
  const double n = static_cast<double>(std::max<size_t>(chips.size(), 1));
  const double width = kLeft + n * kPanelW + (n - 1) * kPanelGap + 28 + kLegendW + kRightPad;
  size_t hidden = 0;
  for (const RooflineSeries& c : chips)
    hidden += static_cast<size_t>(std::count_if(c.points.begin(), c.points.end(),
                                                [](const RooflinePoint& p) { return !plottable(p); }));
  // Room for the longest caption (as many missed labels as there are points).
  constexpr double kCaptionFont = 11, kCaptionLine = 16;
  size_t all_points = 0;
  for (const RooflineSeries& c : chips) all_points += c.points.size();
  const std::string labelled = labelled_text(chips, style.max_labels);
  const size_t caption_lines =
      wrap(caption_text(labelled, all_points, hidden, outside), kCaptionFont, width - 48).size();
  const double height = chips.empty()
                            ? kTop + 120
                            : kTop + kPanelH + 74 + kCaptionLine * static_cast<double>(caption_lines) + 14;
  Svg svg(static_cast<int>(width), static_cast<int>(height), title.empty() ? "Roofline" : title);
  svg.rect(0, 0, width, height, "#ffffff");
  plot::fit_middle(svg, 24, 34, width - 48, title.empty() ? "Roofline" : title,
                   TextStyle{18, plot::kInk, true, Anchor::Start, 12});
  svg.fit(24, 56, width - 48,
          "Attained throughput against arithmetic intensity (log\u2013log); roof = min(P_peak, BW_hbm \u00d7 "
          "AI); "
          "one panel per accelerator, shared axes",
          TextStyle{12, plot::kMuted, false, Anchor::Start, 9});
  if (chips.empty()) {
    svg.text(width / 2, kTop + 20, "No accelerator to draw a roofline for.",
             TextStyle{14, plot::kMuted, false, Anchor::Middle});
    return svg.finish();
  }

  size_t missed = 0;
  bool any[4] = {false, false, false, false}, any_total = false;
  for (size_t c = 0; c < chips.size(); ++c) {
    missed += roofline::draw_panel(svg, chips[c], d, kLeft + static_cast<double>(c) * (kPanelW + kPanelGap),
                                   style.max_labels);
    for (const RooflinePoint& p : chips[c].points) {
      if (!plottable(p)) continue;
      if (p.total) {
        any_total = true;
        continue;
      }
      const int k = p.regime == "compute" ? 0 : p.regime == "memory" ? 1 : p.regime == "network" ? 2 : 3;
      any[k] = true;
    }
  }

  std::vector<Swatch> rows;
  const char* regimes[] = {"compute", "memory", "network", ""};
  for (int k = 0; k < 4; ++k) {
    if (!any[k]) continue;
    const RegimeStyle st = regime_style(regimes[k]);
    rows.push_back({Swatch::Kind::Marker, st.legend, st.color, "", st.marker});
  }
  if (any_total)
    rows.push_back({Swatch::Kind::Marker, "whole step", plot::kFaint, plot::kInk, plot::Marker::Diamond});
  rows.push_back({Swatch::Kind::Line, "roofline min(P, BW\u00b7AI)", plot::kInk, ""});
  rows.push_back({Swatch::Kind::Dashed, "ridge AI = P / BW", plot::kMuted, ""});
  rows.push_back({Swatch::Kind::Fill, "memory-bound region", kMemTint, "#e3c8a4"});
  rows.push_back({Swatch::Kind::Fill, "compute-bound region", kCompTint, "#a9c6dd"});
  draw_legend(svg, width - kRightPad - kLegendW, kTop, rows);

  svg.begin_group("caption");
  double y = kTop + kPanelH + 74;
  for (const std::string& line :
       wrap(caption_text(labelled, missed, hidden, outside), kCaptionFont, width - 48)) {
    svg.text(24, y, line, TextStyle{kCaptionFont, plot::kMuted, false, Anchor::Start});
    y += kCaptionLine;
  }
  svg.end_group();
  return svg.finish();
}

}  // namespace ma
