// One accelerator's panel of the roofline plot (roofline_panel.h): the shared domain, the regions, the roof
// and its ridge, the roof's and regions' labels, the points coloured by regime and their labels (placed by
// roofline_labels.h).
#include "report/roofline_panel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>
#include <string_view>

#include "report/roofline_labels.h"

namespace ma::roofline {
namespace {

using diagram::Anchor;
using diagram::Svg;
using diagram::TextStyle;
using plot::Axes;

constexpr double kMarkerR = 5, kTotalR = 7;

// Peak and ridge numbers as the panel prints them: whole TFLOP/s from 100 up, else 3 significant digits.
std::string tflops_text(double v) {
  return v >= 100 ? std::to_string(static_cast<long long>(std::llround(v))) : plot::compact(v, 3);
}

std::string dtype_upper(ComputeDType d) {
  std::string s(compute_dtype_name(d));
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// An op's name as a label: without the "model." prefix and the ".weight" suffix every tensor name carries.
std::string short_label(std::string_view name) {
  if (name.rfind("model.", 0) == 0 && name.size() > 6) name.remove_prefix(6);
  if (name.size() > 7 && name.substr(name.size() - 7) == ".weight") name.remove_suffix(7);
  return std::string(name);
}

// Which points get labels: the whole step, then the largest by FLOPs (the order given among equals).
std::vector<size_t> label_order(const std::vector<RooflinePoint>& pts, size_t max_labels) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < pts.size(); ++i)
    if (plottable(pts[i]) && !pts[i].label.empty()) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (pts[a].total != pts[b].total) return pts[a].total;
    return pts[a].flops > pts[b].flops;
  });
  if (idx.size() > max_labels) idx.resize(max_labels);
  return idx;
}

// The chain of small boxes that stands for a text of `width` centred on (cx, cy) along the direction
// (ux, uy), its glyphs on the side the normal (uy, -ux) points to.
std::vector<Box> text_along(double cx, double cy, double ux, double uy, double width, double font) {
  std::vector<Box> chain;
  for (double k = -width / 2; k <= width / 2; k += 6) {
    const double bx = cx + ux * k + uy * font * 0.4, by = cy + uy * k - ux * font * 0.4;
    chain.push_back(Box{bx - 4, by - 5, bx + 4, by + 5});
  }
  return chain;
}

// The bandwidth along the slope: 5 px above it about a third of the way up where that is free, else the
// nearest free stretch above it, else the same below it. Memory-bound points sit on the slope by
// construction, so a fixed spot would run under their markers. Where every stretch is taken, the panel's
// subtitle names the bandwidth alone.
void slope_label(Svg& svg, Obstacles& obs, const Box& area, const Segment& slope, const RooflineSeries& s) {
  const double f = 10.5;
  const double dx = slope.x2 - slope.x1, dy = slope.y2 - slope.y1, len = std::hypot(dx, dy);
  const std::string bw = "HBM " + plot::compact(s.hw.hbm_gbps / 1000, 3) + " TB/s";
  const double w = diagram::text_width(bw, f);
  if (len < w + 40) return;
  const double ux = dx / len, uy = dy / len;
  const double lo = w / 2 + 10, hi = len - w / 2 - 30;
  // Positions along the slope, nearest to a third of the way up first, in steps of a few pixels.
  std::vector<double> along;
  for (double t = lo; t <= hi; t += 4) along.push_back(t);
  const double preferred = std::clamp(0.3 * len, lo, hi);
  std::stable_sort(along.begin(), along.end(),
                   [&](double a, double b) { return std::fabs(a - preferred) < std::fabs(b - preferred); });
  // Above the line the baseline is 5 px off it; below, the glyphs' top is.
  for (double offset : {5.0, -(5.0 + f * 0.8)})
    for (double t : along) {
      const double cx = slope.x1 + ux * t + uy * offset, cy = slope.y1 + uy * t - ux * offset;
      const std::vector<Box> chain = text_along(cx, cy, ux, uy, w, f);
      const bool free = std::all_of(chain.begin(), chain.end(), [&](const Box& b) {
        const Box clear{b.x0 - 3, b.y0 - 3, b.x1 + 3, b.y1 + 3};  // a little air between text and marker
        return b.inside(area) &&
               std::none_of(obs.markers.begin(), obs.markers.end(),
                            [&](const Box& m) { return m.hits(clear); }) &&
               std::none_of(obs.boxes.begin(), obs.boxes.end(), [&](const Box& o) { return o.hits(b); });
      });
      if (!free) continue;
      TextStyle st{f, plot::kInk, false, Anchor::Middle};
      st.rotate = std::atan2(dy, dx) * 180 / std::numbers::pi;
      svg.text(cx, cy, bw, st);
      obs.boxes.insert(obs.boxes.end(), chain.begin(), chain.end());
      return;
    }
}

// Decade ticks as powers of ten on both axes (the x axis gets them anyway past 10^4; the same form on y reads
// as one figure).
void powers_of_ten(std::vector<plot::Tick>& ticks) {
  for (plot::Tick& t : ticks) {
    if (t.label.empty() || !(t.value > 0)) continue;
    const double l = std::log10(t.value);
    if (std::fabs(l - std::round(l)) < 1e-9) t.label = plot::power_of_ten(static_cast<int>(std::lround(l)));
  }
}

}  // namespace

RegimeStyle regime_style(const std::string& regime) {
  if (regime == "compute") return {plot::kBlue, plot::Marker::Circle, "compute-bound op"};
  if (regime == "memory") return {plot::kOrange, plot::Marker::Square, "memory-bound op"};
  if (regime == "network") return {plot::kPurple, plot::Marker::TriangleUp, "network-bound op"};
  return {plot::kFaint, plot::Marker::Circle, "op (regime unknown)"};
}

bool plottable(const RooflinePoint& p) {
  return p.ai > 0 && p.tflops > 0 && std::isfinite(p.ai) && std::isfinite(p.tflops);
}

Domain shared_domain(const std::vector<RooflineSeries>& chips) {
  Domain d;
  double ymax = 0, ymin = INFINITY;
  for (const RooflineSeries& c : chips) {
    const double ridge = c.hw.ridge(c.dtype), peak = c.hw.peak(c.dtype);
    if (ridge > 0 && std::isfinite(ridge)) {
      d.xlo = std::min(d.xlo, ridge / 10);
      d.xhi = std::max(d.xhi, ridge * 10);
    }
    if (peak > 0) ymax = std::max(ymax, peak * 2);
    for (const RooflinePoint& p : c.points) {
      if (!plottable(p)) continue;
      d.xlo = std::min(d.xlo, p.ai);
      d.xhi = std::max(d.xhi, p.ai);
      ymax = std::max(ymax, p.tflops * 2);
      ymin = std::min(ymin, p.tflops);
    }
  }
  plot::log_domain(d.xlo, d.xhi);
  for (const RooflineSeries& c : chips)
    if (c.hw.hbm_gbps > 0) ymin = std::min(ymin, c.hw.hbm_gbps * 1e9 * d.xlo / 1e12);
  d.yhi = ymax > 0 ? ymax : 1e4;
  d.ylo = std::isfinite(ymin) && ymin > 0 ? ymin : d.yhi / 1e5;
  plot::log_domain(d.ylo, d.yhi);
  d.ylo = std::max(d.ylo, d.yhi / 1e10);
  return d;
}

size_t draw_panel(Svg& svg, const RooflineSeries& s, const Domain& d, double x0, size_t max_labels) {
  Axes a;
  a.sx.log = a.sy.log = true;
  a.sx.lo = d.xlo;
  a.sx.hi = d.xhi;
  a.sy.lo = d.ylo;
  a.sy.hi = d.yhi;
  plot::place(a, x0, kTop, kPanelW, kPanelH);
  a.vertical_grid = true;
  a.xticks = plot::fitted_ticks(a.sx, true, a.tick_font, 12);
  a.yticks = plot::fitted_ticks(a.sy, false, a.tick_font, 12);
  powers_of_ten(a.xticks);
  powers_of_ten(a.yticks);
  a.xtitle = "arithmetic intensity AI = F_theory / bytes_hbm (FLOP/byte)";
  a.ytitle = "attained throughput (TFLOP/s)";

  const double peak = s.hw.peak(s.dtype), bw = s.hw.hbm_gbps * 1e9, ridge = s.hw.ridge(s.dtype);
  const bool roof = peak > 0 && bw > 0;
  const std::string name = s.hw.description.empty() ? s.hw.name : s.hw.description;
  svg.begin_group("panel");
  plot::fit_middle(svg, x0, kTop - 32, kPanelW, name + " \u00b7 " + dtype_upper(s.dtype),
                   TextStyle{14, plot::kInk, true, Anchor::Start, 10});
  svg.fit(x0, kTop - 13, kPanelW,
          roof ? "dense peak " + tflops_text(peak) + " TFLOP/s \u00b7 HBM " +
                     plot::compact(s.hw.hbm_gbps / 1000, 3) + " TB/s \u00b7 ridge " +
                     plot::compact(ridge, 3) + " FLOP/byte"
               : "no " + dtype_upper(s.dtype) + " peak or HBM bandwidth for this accelerator: no roof drawn",
          TextStyle{11.5, plot::kMuted, false, Anchor::Start, 9});

  Obstacles obs;
  const Box area{a.left() + 2, a.top() + 2, a.right() - 2, a.bottom() - 2};
  const bool ridge_in = roof && ridge >= d.xlo && ridge <= d.xhi;
  const double rx = roof ? std::clamp(a.sx(ridge), a.left(), a.right()) : a.right();
  const double ry = roof ? a.sy.clamped(peak) : a.top();

  // The markers first, so that no text is placed over a point.
  struct Px {
    double x, y, r;
  };
  std::vector<Px> px(s.points.size(), Px{0, 0, 0});
  for (size_t i = 0; i < s.points.size(); ++i) {
    const RooflinePoint& p = s.points[i];
    if (!plottable(p)) continue;
    px[i] = Px{a.sx.clamped(p.ai), a.sy.clamped(p.tflops), p.total ? kTotalR : kMarkerR};
    obs.markers.push_back(
        Box{px[i].x - px[i].r - 1, px[i].y - px[i].r - 1, px[i].x + px[i].r + 1, px[i].y + px[i].r + 1});
  }

  svg.begin_group("regions");
  svg.rect(a.left(), a.top(), rx - a.left(), a.h, kMemTint);
  if (roof) svg.rect(rx, a.top(), a.right() - rx, a.h, kCompTint);
  svg.end_group();
  plot::draw_grid(svg, a);

  // The roof: the slanted part from where it enters the plot (left edge or bottom) to the ridge, then flat.
  Segment slope{0, 0, 0, 0};
  bool has_slope = false;
  if (roof) {
    svg.begin_group("roofline");
    const double x_enter = std::max(d.xlo, d.ylo * 1e12 / bw);
    const double x_knee = std::min(ridge, d.xhi);
    has_slope = x_enter < x_knee;
    slope = Segment{a.sx(x_enter), a.sy(bw * x_enter / 1e12), a.sx(x_knee), a.sy(bw * x_knee / 1e12)};
    std::vector<double> xy;
    if (has_slope) xy = {slope.x1, slope.y1, slope.x2, slope.y2};
    if (ridge < d.xhi) {
      if (xy.empty()) xy = {a.sx(std::max(ridge, d.xlo)), ry};
      xy.push_back(a.right());
      xy.push_back(ry);
    }
    svg.polyline(xy, plot::kInk, 2.2);
    for (size_t i = 0; i + 3 < xy.size(); i += 2)
      obs.lines.push_back(Segment{xy[i], xy[i + 1], xy[i + 2], xy[i + 3]});
    svg.end_group();
  }

  svg.begin_group("ridge");
  if (ridge_in) {
    svg.line(rx, ry, rx, a.bottom(), plot::kMuted, 1.2, true);
    obs.soft_lines.push_back(Segment{rx, ry, rx, a.bottom()});
    svg.circle(rx, ry, 4.5, "#ffffff", plot::kInk, 1.8);
    obs.boxes.push_back(Box{rx - 6, ry - 6, rx + 6, ry + 6});
    // Left of the knee above the slope (no op beats the roof, so that is empty), else beside the flat part.
    const std::string label =
        "ridge " + plot::compact(ridge, 3) + " FLOP/B, " + tflops_text(peak) + " TFLOP/s";
    if (!place_fixed(svg, obs, area, label, TextStyle{11, plot::kInk, true, Anchor::End},
                     {{rx - 9, ry - 8}, {rx - 9, ry - 22}}))
      place_fixed(svg, obs, area, label, TextStyle{11, plot::kInk, true, Anchor::Start},
                  {{rx + 9, ry + 17}, {rx + 9, ry - 8}, {rx + 9, ry + 31}});
  }
  svg.end_group();

  svg.begin_group("roof-labels");
  if (has_slope) slope_label(svg, obs, area, slope, s);
  if (roof && ridge < d.xhi)
    place_fixed(svg, obs, area, dtype_upper(s.dtype) + " peak " + tflops_text(peak) + " TFLOP/s",
                TextStyle{10.5, plot::kInk, false, Anchor::End},
                {{a.right() - 8, ry - 6}, {a.right() - 8, ry + 15}, {a.right() - 8, ry + 29}});
  svg.end_group();

  // Region names in the top corners, else the bottom ones.
  svg.begin_group("region-names");
  if (rx - a.left() > 90)
    place_fixed(svg, obs, area, "memory-bound", TextStyle{11.5, kMemInk, true},
                {{a.left() + 8, a.top() + 17},
                 {a.left() + 8, a.top() + 36},
                 {a.left() + 8, a.top() + 52},
                 {a.left() + 8, a.bottom() - 8}});
  if (roof && a.right() - rx > 100)
    place_fixed(
        svg, obs, area, "compute-bound", TextStyle{11.5, kCompInk, true, Anchor::End},
        {{a.right() - 8, a.top() + 17}, {a.right() - 8, a.bottom() - 8}, {a.right() - 8, a.top() + 36}});
  svg.end_group();

  std::vector<Placed> placed;
  size_t missed = 0;
  for (size_t i : label_order(s.points, max_labels)) {
    Placed pl{};
    pl.point = i;
    const std::string text = plot::ellipsize_middle(short_label(s.points[i].label), kLabelFont, false, 190);
    if (place_label(text, px[i].x, px[i].y, px[i].r, area, obs, pl))
      placed.push_back(pl);
    else
      ++missed;
  }
  svg.begin_group("points");
  for (const Placed& pl : placed)
    if (pl.leader) svg.line(pl.lx1, pl.ly1, pl.lx2, pl.ly2, plot::kFaint, 0.8);
  // Ops first, the whole step on top; larger ops under smaller ones so that none hides another.
  std::vector<size_t> order;
  for (size_t i = 0; i < s.points.size(); ++i)
    if (plottable(s.points[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    if (s.points[x].total != s.points[y].total) return !s.points[x].total;
    return s.points[x].flops > s.points[y].flops;
  });
  for (size_t i : order) {
    const RegimeStyle st = regime_style(s.points[i].regime);
    if (s.points[i].total)
      plot::draw_marker(svg, plot::Marker::Diamond, px[i].x, px[i].y, px[i].r * 0.85, st.color, plot::kInk,
                        1.4);
    else
      plot::draw_marker(svg, st.marker, px[i].x, px[i].y, px[i].r, st.color, "#ffffff", 0.9);
  }
  svg.end_group();
  svg.begin_group("point-labels");
  for (const Placed& pl : placed)
    svg.text(pl.x, pl.y, pl.text, TextStyle{kLabelFont, plot::kInk, s.points[pl.point].total, pl.anchor});
  svg.end_group();
  plot::draw_axes(svg, a);
  svg.end_group();
  return missed;
}

}  // namespace ma::roofline
