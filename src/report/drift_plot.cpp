#include "report/drift_plot.h"

#include <algorithm>
#include <cmath>

#include "report/compare_report.h"
#include "report/diagram_canvas.h"
#include "report/plot_axes.h"

namespace ma {
namespace {

using diagram::Anchor;
using diagram::Svg;
using diagram::TextStyle;
using plot::Axes;

constexpr double kWidth = 1100, kLeft = 86, kLegendW = 190, kRightPad = 24, kTop = 80;
constexpr double kPanelH = 240, kPanelGap = 58;
const std::string kBand = "#fbe3d4";  // behind a flagged layer, across both panels

// A bar of the plot: a layer, or the tensors outside the stack ("other").
struct Row {
  const LayerDrift* d = nullptr;
  double x = 0;
  std::string label;
};

// A layer whose figure is undefined (NaN: an element became or stopped being NaN/Inf, or no pair is finite)
// is not drawn at 0, which reads as "unchanged": a dashed outline spans the panel at its place, labelled
// "n/a" where there is room, vermillion when the layer is flagged.
void draw_undefined_layer(Svg& svg, const Axes& a, double x, double width, bool flagged, bool label) {
  const std::string& color = flagged ? plot::kVermillion : plot::kMuted;
  const double l = x - width / 2, r = x + width / 2;
  svg.polyline({l, a.bottom(), l, a.top(), r, a.top(), r, a.bottom()}, color, 1.2, true);
  if (label) svg.text(x, a.top() + 12, "n/a", TextStyle{9.5, color, true, Anchor::Middle});
}

// "A → B" in `max_width`, each name cut in its middle when both do not fit.
void draw_title(Svg& svg, const WeightComparison& c, double x, double y, double max_width) {
  const double size = 18;
  const std::string a = c.a.empty() ? "A" : c.a, b = c.b.empty() ? "B" : c.b;
  const std::string arrow = " \u2192 ";
  const double aw = diagram::text_width(a, size, true), bw = diagram::text_width(b, size, true);
  const double room = max_width - diagram::text_width(arrow, size, true);
  std::string fa = a, fb = b;
  if (aw + bw > room) {
    const double half = room / 2;
    if (aw <= half)
      fb = plot::ellipsize_middle(b, size, true, room - aw);
    else if (bw <= half)
      fa = plot::ellipsize_middle(a, size, true, room - bw);
    else {
      fa = plot::ellipsize_middle(a, size, true, half);
      fb = plot::ellipsize_middle(b, size, true, half);
    }
  }
  svg.text(x, y, fa + arrow + fb, TextStyle{size, plot::kInk, true, Anchor::Start});
}

}  // namespace

std::string render_drift_by_layer_svg(const WeightComparison& c) {
  std::vector<Row> rows;
  const LayerDrift* rest = nullptr;
  for (const LayerDrift& d : c.layers) {
    if (d.layer)
      rows.push_back(Row{&d, static_cast<double>(*d.layer), std::to_string(*d.layer)});
    else if (!rest)
      rest = &d;
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.x < b.x; });
  const bool have_layers = !rows.empty();
  const double lo = have_layers ? rows.front().x : 0, hi = have_layers ? rows.back().x : 0;
  double rest_x = hi;
  if (rest) {
    rest_x = have_layers ? hi + std::max(2.0, std::round((hi - lo + 1) * 0.05)) : 0;
    rows.push_back(Row{rest, rest_x, "other"});
  }

  const double plot_w = kWidth - kLeft - kLegendW - kRightPad - 20;
  const double height = rows.empty() ? 200 : kTop + 2 * kPanelH + kPanelGap + 84;
  Svg svg(static_cast<int>(kWidth), static_cast<int>(height),
          "Weight drift " + (c.a.empty() ? std::string("A") : c.a) + " \u2192 " +
              (c.b.empty() ? std::string("B") : c.b));
  svg.rect(0, 0, kWidth, height, "#ffffff");
  draw_title(svg, c, 24, 32, kWidth - 48);

  // The subtitle counts what the plot highlights: the bars drawn red, "other" included.
  size_t flagged_tensors = 0, flagged_layers = 0;
  bool flagged_other = false;
  for (const TensorDrift& t : c.tensors) flagged_tensors += t.flagged;
  for (const LayerDrift& d : c.layers) {
    flagged_layers += (d.layer && d.flagged > 0);
    flagged_other |= (!d.layer && d.flagged > 0);
  }
  std::string sub = "Weight drift by layer \u00b7 " + std::to_string(c.tensors.size()) +
                    " tensors compared, " + std::to_string(flagged_tensors) + " flagged (" +
                    flag_rules_text(c) + ") in " + std::to_string(flagged_layers) +
                    (flagged_layers == 1 ? " layer" : " layers") + (flagged_other ? " and outside them" : "");
  if (!c.not_compared.empty()) sub += " \u00b7 " + std::to_string(c.not_compared.size()) + " not compared";
  if (!c.missing_in_b.empty()) sub += " \u00b7 " + std::to_string(c.missing_in_b.size()) + " only in A";
  if (!c.extra_in_b.empty()) sub += " \u00b7 " + std::to_string(c.extra_in_b.size()) + " only in B";
  if (!c.shape_mismatch.empty())
    sub += " \u00b7 " + std::to_string(c.shape_mismatch.size()) + " shape mismatches";
  svg.fit(24, 54, kWidth - 48, sub, TextStyle{12, plot::kMuted, false, Anchor::Start, 9});
  if (rows.empty()) {
    svg.text(kWidth / 2, 130, "No tensors compared.", TextStyle{14, plot::kMuted, false, Anchor::Middle});
    return svg.finish();
  }

  Axes top, bottom;
  for (Axes* a : {&top, &bottom}) {
    a->sx.lo = rows.front().x - (rows.size() == 1 ? 1.0 : 0.7);
    a->sx.hi = rows.back().x + (rows.size() == 1 ? 1.0 : 0.7);
    a->tick_font = 11;
    a->title_font = 12;
  }
  plot::place(top, kLeft, kTop + 26, plot_w, kPanelH - 26);
  plot::place(bottom, kLeft, kTop + kPanelH + kPanelGap, plot_w, kPanelH - 26);

  double rel_max = c.rel_l2_threshold > 0 ? c.rel_l2_threshold : 0;
  double dcos_max = 0, dcos_min = INFINITY;
  for (const Row& r : rows) {
    if (std::isfinite(r.d->rel_l2)) rel_max = std::max(rel_max, r.d->rel_l2);
    const double dc = 1 - r.d->cosine;
    if (std::isfinite(dc) && dc > 0) {
      dcos_max = std::max(dcos_max, dc);
      dcos_min = std::min(dcos_min, dc);
    }
  }
  top.sy.lo = 0;
  top.sy.hi = rel_max * 1.1;  // room for the flagged counts above the bars
  plot::nice_domain(top.sy.lo, top.sy.hi, true);
  top.ytitle = "\u2016B \u2212 A\u2016 / \u2016A\u2016";
  const bool dcos_log = dcos_max > 0 && dcos_max / dcos_min > 30;
  bottom.sy.log = dcos_log;
  bottom.sy.lo = dcos_log ? dcos_min : 0;
  bottom.sy.hi = dcos_max;
  if (dcos_log)
    plot::log_domain(bottom.sy.lo, bottom.sy.hi);
  else
    plot::nice_domain(bottom.sy.lo, bottom.sy.hi, true);
  bottom.ytitle = dcos_log ? "1 \u2212 cosine (log scale)" : "1 \u2212 cosine";
  bottom.xtitle = rest ? "layer index (other: tensors outside the layer stack)" : "layer index";

  // x ticks: whole layers, and "other" for the last bar, keeping clear of its label.
  std::vector<plot::Tick> xt;
  if (have_layers) {
    plot::Scale layers = top.sx;
    layers.lo = lo - 0.5;
    layers.hi = hi + 0.5;
    layers.p0 = top.sx(layers.lo);
    layers.p1 = top.sx(layers.hi);
    xt = plot::fitted_ticks(layers, true, top.tick_font, 12, true);
    std::erase_if(xt, [&](const plot::Tick& t) { return t.value < lo - 1e-9 || t.value > hi + 1e-9; });
  }
  if (rest) {
    const double half = diagram::text_width("other", top.tick_font) / 2 + top.tick_font;
    std::erase_if(xt, [&](const plot::Tick& t) {
      return std::fabs(top.sx(t.value) - top.sx(rest_x)) <
             half + diagram::text_width(t.label, top.tick_font) / 2;
    });
    xt.push_back(plot::Tick{rest_x, "other"});
  }
  top.xticks = bottom.xticks = xt;
  top.yticks = plot::fitted_ticks(top.sy, false, top.tick_font, 6);
  bottom.yticks = plot::fitted_ticks(bottom.sy, false, bottom.tick_font, 6);

  const double unit = std::fabs(top.sx(1) - top.sx(0));
  const double bar_w = std::clamp(unit * 0.72, 1.0, 36.0);
  // Bands behind the flagged layers, through both panels.
  for (const Row& r : rows)
    if (r.d->flagged > 0) {
      const double w = std::max(unit, bar_w + 4);
      svg.rect(top.sx(r.x) - w / 2, top.top(), w, bottom.bottom() - top.top(), kBand, "none");
    }
  if (rest && have_layers) {
    const double px = top.sx((hi + rest_x) / 2);
    svg.line(px, top.top(), px, top.bottom(), plot::kFaint, 1, true);
    svg.line(px, bottom.top(), px, bottom.bottom(), plot::kFaint, 1, true);
  }

  // Top: rel. L2 bars.
  svg.begin_group("panel rel-l2");
  svg.text(top.x, top.y - 10, "Relative change of the weights",
           TextStyle{13, plot::kInk, true, Anchor::Start});
  plot::draw_grid(svg, top);
  for (const Row& r : rows) {
    const bool flagged = r.d->flagged > 0;
    const std::string name = r.d->layer ? std::to_string(*r.d->layer) : "other";
    if (std::isnan(r.d->rel_l2)) {
      svg.begin_group("bar layer-" + name + " undefined" + (flagged ? " flagged" : ""));
      draw_undefined_layer(svg, top, top.sx(r.x), bar_w, flagged, unit >= 14);
      svg.end_group();
      continue;
    }
    // An infinite ratio (B against an all-zero A) reaches the top of the panel.
    const double y = std::isinf(r.d->rel_l2) ? top.top() : top.sy.clamped(r.d->rel_l2);
    svg.begin_group("bar layer-" + name + (flagged ? " flagged" : ""));
    svg.rect(top.sx(r.x) - bar_w / 2, y, bar_w, top.bottom() - y, flagged ? plot::kVermillion : plot::kBlue);
    if (flagged && unit >= 14 && std::isfinite(r.d->rel_l2))
      svg.text(top.sx(r.x), y - 4, std::to_string(r.d->flagged),
               TextStyle{9.5, plot::kVermillion, true, Anchor::Middle});
    svg.end_group();
  }
  if (c.rel_l2_threshold > 0) {
    const double y = top.sy(c.rel_l2_threshold);
    svg.line(top.left(), y, top.right(), y, plot::kInk, 1.2, true);
  }
  plot::draw_axes(svg, top, false);
  svg.end_group();

  // Bottom: 1 - cosine.
  svg.begin_group("panel cosine");
  svg.text(bottom.x, bottom.y - 10, "Change of direction", TextStyle{13, plot::kInk, true, Anchor::Start});
  plot::draw_grid(svg, bottom);
  const double r_mark = std::clamp(unit / 3.2, 1.8, 3.8);
  // The line through the layers breaks at an undefined cosine.
  std::vector<double> xy;
  for (const Row& r : rows) {
    if (!r.d->layer) continue;
    if (std::isnan(r.d->cosine)) {
      svg.polyline(xy, plot::kGreen, 1.5);
      xy.clear();
      continue;
    }
    xy.push_back(bottom.sx(r.x));
    xy.push_back(bottom.sy.clamped(std::max(0.0, 1 - r.d->cosine)));
  }
  svg.polyline(xy, plot::kGreen, 1.5);
  const double cosine_mark = 1 - c.cosine_threshold;  // the threshold on the panel's 1 - cosine axis
  const bool cosine_line =
      c.cosine_threshold > -1 && cosine_mark >= bottom.sy.lo && cosine_mark <= bottom.sy.hi;
  if (cosine_line) {
    const double y = bottom.sy(cosine_mark);
    svg.line(bottom.left(), y, bottom.right(), y, plot::kInk, 1.2, true);
  }
  const size_t every = rows.size() <= 64 ? 1 : (rows.size() + 47) / 48;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double px = bottom.sx(r.x);
    if (std::isnan(r.d->cosine)) {
      svg.begin_group("marker layer-" + (r.d->layer ? std::to_string(*r.d->layer) : std::string("other")) +
                      " undefined");
      draw_undefined_layer(svg, bottom, px, bar_w, r.d->flagged > 0, unit >= 14);
      svg.end_group();
      continue;
    }
    const double py = bottom.sy.clamped(std::max(0.0, 1 - r.d->cosine));
    if (r.d->flagged > 0)
      plot::draw_marker(svg, plot::Marker::Circle, px, py, r_mark + 1, plot::kVermillion);
    else if (i % every == 0 || !r.d->layer || i + 1 == rows.size())
      plot::draw_marker(svg, plot::Marker::Circle, px, py, r_mark, plot::kGreen);
  }
  plot::draw_axes(svg, bottom, true);
  svg.end_group();

  std::vector<plot::LegendEntry> entries = {
      {"rel. L2 per layer", plot::kBlue, plot::LegendEntry::Kind::Bar, plot::Marker::Circle}};
  if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.d->flagged > 0; }))
    entries.push_back({"layer with flagged tensors", plot::kVermillion, plot::LegendEntry::Kind::Bar,
                       plot::Marker::Circle});
  if (c.rel_l2_threshold > 0)
    entries.push_back({"rel. L2 threshold " + plot::compact(c.rel_l2_threshold), plot::kInk,
                       plot::LegendEntry::Kind::DashedLine, plot::Marker::Circle});
  entries.push_back(
      {"1 \u2212 cosine per layer", plot::kGreen, plot::LegendEntry::Kind::LineMarker, plot::Marker::Circle});
  if (cosine_line)
    entries.push_back({"cosine threshold " + plot::compact(c.cosine_threshold), plot::kInk,
                       plot::LegendEntry::Kind::DashedLine, plot::Marker::Circle});
  // Layers without a defined figure, and why.
  std::string undefined;
  bool undefined_flagged = false;
  for (const Row& r : rows)
    if (std::isnan(r.d->rel_l2) || std::isnan(r.d->cosine)) {
      undefined += (undefined.empty() ? "" : ", ") + r.label;
      undefined_flagged |= r.d->flagged > 0;
    }
  if (!undefined.empty())
    entries.push_back({"n/a: undefined (NaN/Inf)", undefined_flagged ? plot::kVermillion : plot::kMuted,
                       plot::LegendEntry::Kind::DashedLine, plot::Marker::Circle});
  svg.begin_group("legend");
  plot::draw_legend(svg, kLeft + plot_w + 20, top.y, kLegendW, entries, 11);
  svg.end_group();

  std::string list;
  for (const Row& r : rows)
    if (r.d->flagged > 0)
      list += (list.empty() ? "" : ", ") + r.label + " (" + std::to_string(r.d->flagged) + ")";
  svg.begin_group("caption");
  svg.fit(24, height - 34, kWidth - 48,
          "rel. L2 = \u2016B \u2212 A\u2016 / \u2016A\u2016 and cosine = \u27e8A, B\u27e9 / (\u2016A\u2016 "
          "\u2016B\u2016) "
          "over all the tensors of a layer; a tensor is flagged when " +
              flag_rules_text(c) + ".",
          TextStyle{11, plot::kMuted, false, Anchor::Start, 8.5});
  svg.fit(24, height - 16, kWidth - 48,
          (list.empty() ? "No layer has flagged tensors." : "Flagged layers (flagged tensors): " + list) +
              (undefined.empty() ? std::string()
                                 : " \u00b7 Undefined drift (n/a: an element became or stopped being NaN or "
                                   "Inf, or no pair is finite on both sides): " +
                                       undefined),
          TextStyle{11, plot::kMuted, false, Anchor::Start, 8.5});
  svg.end_group();
  return svg.finish();
}

}  // namespace ma
