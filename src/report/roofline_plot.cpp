// The multi-chip roofline (roofline_plot.h): shared log-log axes, one panel per accelerator, the roof and its
// ridge, regime shading, the operations as points whose labels are placed where they cover nothing else.
#include "report/roofline_plot.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

#include "report/diagram_canvas.h"
#include "report/plot_axes.h"

namespace ma {
namespace {

using diagram::Anchor;
using diagram::Svg;
using diagram::TextStyle;
using plot::Axes;

constexpr double kLeft = 84, kPanelW = 500, kPanelH = 400, kPanelGap = 100, kLegendW = 200, kRightPad = 24;
constexpr double kTop = 136;  // the plot areas' top edge
constexpr double kLabelFont = 10.5, kMarkerR = 5, kTotalR = 7;
constexpr size_t kMaxLabels = 12;

// Region tints (light enough for points and grid lines to stay legible on them) and the ink of their names.
const std::string kMemTint = "#fdf0e1", kCompTint = "#e6f0f8", kMemInk = "#8f5500", kCompInk = "#00507f";

struct Box {
  double x0, y0, x1, y1;
  bool hits(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const Box& o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
};

struct Segment {
  double x1, y1, x2, y2;
};

// Whether the segment crosses the box (Liang-Barsky clipping).
bool crosses(const Box& b, const Segment& s) {
  double t0 = 0, t1 = 1;
  const double dx = s.x2 - s.x1, dy = s.y2 - s.y1;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {s.x1 - b.x0, b.x1 - s.x1, s.y1 - b.y0, b.y1 - s.y1};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0)
      t0 = std::max(t0, t);
    else
      t1 = std::min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

// Whether two segments cross (touching end points count).
bool intersect(const Segment& a, const Segment& b) {
  const auto orient = [](double ax, double ay, double bx, double by, double cx, double cy) {
    const double v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    return v > 1e-9 ? 1 : v < -1e-9 ? -1 : 0;
  };
  const int o1 = orient(a.x1, a.y1, a.x2, a.y2, b.x1, b.y1), o2 = orient(a.x1, a.y1, a.x2, a.y2, b.x2, b.y2);
  const int o3 = orient(b.x1, b.y1, b.x2, b.y2, a.x1, a.y1), o4 = orient(b.x1, b.y1, b.x2, b.y2, a.x2, a.y2);
  if (o1 != o2 && o3 != o4) return true;
  // Collinear overlaps: the bounding boxes meet.
  return o1 == 0 && o2 == 0 && std::max(a.x1, a.x2) >= std::min(b.x1, b.x2) &&
         std::max(b.x1, b.x2) >= std::min(a.x1, a.x2) && std::max(a.y1, a.y2) >= std::min(b.y1, b.y2) &&
         std::max(b.y1, b.y2) >= std::min(a.y1, a.y2);
}

// What a label must not cover: other labels and fixed texts, every marker, the roof. A leader line may cross
// markers (inside a cluster it has to) but no text and no line. The ridge's dashed line is a soft obstacle:
// avoided while another place is free, crossed when none is.
struct Obstacles {
  std::vector<Box> boxes, markers;
  std::vector<Segment> lines, soft_lines;
  bool free(const Box& b, bool strict) const {
    const Box clear{b.x0 - 3, b.y0 - 3, b.x1 + 3, b.y1 + 3};  // text keeps clear of lines
    const auto hit = [&](const Box& o) { return o.hits(b); };
    const auto cross = [&](const Segment& s) { return crosses(clear, s); };
    return std::none_of(boxes.begin(), boxes.end(), hit) &&
           std::none_of(markers.begin(), markers.end(), hit) &&
           std::none_of(lines.begin(), lines.end(), cross) &&
           (!strict || std::none_of(soft_lines.begin(), soft_lines.end(), cross));
  }
  bool free(const Segment& s, bool strict) const {
    const auto cross = [&](const Segment& o) { return intersect(o, s); };
    return std::none_of(boxes.begin(), boxes.end(), [&](const Box& o) { return crosses(o, s); }) &&
           std::none_of(lines.begin(), lines.end(), cross) &&
           (!strict || std::none_of(soft_lines.begin(), soft_lines.end(), cross));
  }
};

struct RegimeStyle {
  std::string color;
  plot::Marker marker;
  std::string legend;
};

RegimeStyle regime_style(const std::string& regime) {
  if (regime == "compute") return {plot::kBlue, plot::Marker::Circle, "compute-bound op"};
  if (regime == "memory") return {plot::kOrange, plot::Marker::Square, "memory-bound op"};
  if (regime == "network") return {plot::kPurple, plot::Marker::TriangleUp, "network-bound op"};
  return {plot::kFaint, plot::Marker::Circle, "op (regime unknown)"};
}

// Peak and ridge numbers as the panel prints them: whole TFLOP/s from 100 up, else 3 significant digits.
std::string tflops_text(double v) {
  return v >= 100 ? std::to_string(static_cast<long long>(std::llround(v))) : plot::compact(v, 3);
}

std::string dtype_upper(ComputeDType d) {
  std::string s(compute_dtype_name(d));
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool plottable(const RooflinePoint& p) {
  return p.ai > 0 && p.tflops > 0 && std::isfinite(p.ai) && std::isfinite(p.tflops);
}

struct Domain {
  double xlo = 0.1, xhi = 1e5, ylo = 1, yhi = 10;
};

// Shared by all panels so that chips compare at a glance: x covers seed 001's default 0.1 to 1e5 FLOP/B, the
// points and a decade either side of every ridge; y reaches from the roof's left end and the lowest point to
// at least 2x the highest peak (room for the roof's labels), at most 10 decades.
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

// A text's box with its anchor at x and baseline at y.
Box text_box(double x, double y, double width, double font, Anchor anchor) {
  const double x0 = anchor == Anchor::Start ? x : anchor == Anchor::End ? x - width : x - width / 2;
  return Box{x0 - 2, y - font * 0.8 - 1, x0 + width + 2, y + font * 0.25 + 1};
}

struct Placed {
  size_t point;
  std::string text;
  double x, y;  // anchor and baseline
  Anchor anchor;
  bool leader;
  double lx1, ly1, lx2, ly2;
};

// Tries positions around the marker at growing distances (right, left, the diagonals, above, below), the
// first one that covers nothing wins; beyond the first ring a thin leader line joins label and marker.
bool place_label(const std::string& text, double px, double py, double r, const Box& area, Obstacles& obs,
                 Placed& out) {
  const double w = diagram::text_width(text, kLabelFont);
  // Right, left, the diagonals, below, above first; then the directions between them.
  static constexpr double kAngles[] = {0,     180,  -45,    45,    -135,  135,  90,     -90,
                                       -22.5, 22.5, -157.5, 157.5, -67.5, 67.5, -112.5, 112.5};
  for (bool strict : {true, false}) {
    for (double dist : {r + 3, r + 14, r + 26, r + 40, r + 56, r + 74, r + 94, r + 116}) {
      for (double deg : kAngles) {
        const double c = std::cos(deg * std::numbers::pi / 180), sn = std::sin(deg * std::numbers::pi / 180);
        if (dist == r + 3 && std::fabs(c) > 0.2 && std::fabs(sn) > 0.2 &&
            std::fabs(std::fabs(c) - 0.71) > 0.05)
          continue;  // next to the marker only the 8 main directions
        const double ax = px + c * dist, ay = py + sn * dist;
        const Anchor anchor = c > 0.3 ? Anchor::Start : c < -0.3 ? Anchor::End : Anchor::Middle;
        const double base = sn < -0.3 ? ay - 2 : sn > 0.3 ? ay + kLabelFont * 0.8 : ay + kLabelFont * 0.35;
        const Box b = text_box(ax, base, w, kLabelFont, anchor);
        if (!b.inside(area) || !obs.free(b, strict)) continue;
        // The leader runs from the marker's edge to the box's nearest point.
        const bool leader = dist > r + 3;
        const double nx = std::clamp(px, b.x0, b.x1), ny = std::clamp(py, b.y0, b.y1);
        const double len = std::hypot(nx - px, ny - py);
        const double lx1 = len > 0 ? px + (nx - px) / len * (r + 1) : px;
        const double ly1 = len > 0 ? py + (ny - py) / len * (r + 1) : py;
        if (leader && len > r + 3) {
          // Checked from just outside its own marker's box to the label (not yet an obstacle itself).
          const double ux = (nx - px) / len, uy = (ny - py) / len;
          const Segment probe{px + ux * (r + 2.5), py + uy * (r + 2.5), nx, ny};
          if (!obs.free(probe, strict)) continue;
        }
        out.text = text;
        out.x = ax;
        out.y = base;
        out.anchor = anchor;
        out.leader = leader;
        out.lx1 = lx1;
        out.ly1 = ly1;
        out.lx2 = nx;
        out.ly2 = ny;
        obs.boxes.push_back(b);
        if (out.leader) obs.lines.push_back(Segment{out.lx1, out.ly1, out.lx2, out.ly2});
        return true;
      }
    }
  }
  return false;
}

// An op's name as a label: without the "model." prefix and the ".weight" suffix every tensor name carries.
std::string short_label(std::string_view name) {
  if (name.rfind("model.", 0) == 0 && name.size() > 6) name.remove_prefix(6);
  if (name.size() > 7 && name.substr(name.size() - 7) == ".weight") name.remove_suffix(7);
  return std::string(name);
}

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

// Which points get labels: the whole step, then the largest by FLOPs (the order given among equals).
std::vector<size_t> label_order(const std::vector<RooflinePoint>& pts) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < pts.size(); ++i)
    if (plottable(pts[i]) && !pts[i].label.empty()) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (pts[a].total != pts[b].total) return pts[a].total;
    return pts[a].flops > pts[b].flops;
  });
  if (idx.size() > kMaxLabels) idx.resize(kMaxLabels);
  return idx;
}

// Draws a fixed text at the first of `spots` (anchor x, baseline y) where it covers nothing and stays inside
// `area`; returns false (drawing nothing) when there is none.
bool place_fixed(Svg& svg, Obstacles& obs, const Box& area, const std::string& text, TextStyle st,
                 const std::vector<std::pair<double, double>>& spots) {
  const double w = diagram::text_width(text, st.size, st.bold);
  for (const auto& [x, y] : spots) {
    const Box b = text_box(x, y, w, st.size, st.anchor);
    if (!b.inside(area) || !obs.free(b, true)) continue;
    svg.text(x, y, text, st);
    obs.boxes.push_back(b);
    return true;
  }
  return false;
}

// The bandwidth along the slope, 5 px above it, about a third of the way up.
void slope_label(Svg& svg, Obstacles& obs, const Segment& slope, const RooflineSeries& s) {
  const double f = 10.5;
  const double dx = slope.x2 - slope.x1, dy = slope.y2 - slope.y1, len = std::hypot(dx, dy);
  const std::string bw = "HBM " + plot::compact(s.hw.hbm_gbps / 1000, 3) + " TB/s";
  const double w = diagram::text_width(bw, f);
  if (len < w + 40) return;
  const double ux = dx / len, uy = dy / len;
  const double t = std::clamp(0.3 * len, w / 2 + 10, len - w / 2 - 30);
  const double cx = slope.x1 + ux * t + uy * 5, cy = slope.y1 + uy * t - ux * 5;
  TextStyle st{f, plot::kInk, false, Anchor::Middle};
  st.rotate = std::atan2(dy, dx) * 180 / std::numbers::pi;
  svg.text(cx, cy, bw, st);
  // A chain of small boxes along the rotated text stands for it.
  for (double k = -w / 2; k <= w / 2; k += 6) {
    const double bx = cx + ux * k + uy * f * 0.4, by = cy + uy * k - ux * f * 0.4;
    obs.boxes.push_back(Box{bx - 4, by - 5, bx + 4, by + 5});
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

// One chip's panel. Returns how many labelled points went without their label.
size_t draw_panel(Svg& svg, const RooflineSeries& s, const Domain& d, double x0) {
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
  if (has_slope) slope_label(svg, obs, slope, s);
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
  for (size_t i : label_order(s.points)) {
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

// The caption under the panels; `missed` labels left out, `hidden` points not drawn.
std::string caption_text(size_t missed, size_t hidden) {
  std::string note =
      "Points: attained TF_est = F_theory / T_est (the full time model, so they sit on or below the roof) "
      "against AI = F_theory / bytes_hbm; the whole step is the outlined diamond, coloured by its regime. "
      "Left "
      "of the ridge an op at the roof is limited by HBM bandwidth, right of it by peak compute. Labelled: "
      "the "
      "step and the largest ops by FLOPs (at most 12 per panel)";
  if (missed > 0) note += "; " + std::to_string(missed) + " label(s) left out for want of room";
  if (hidden > 0) note += "; " + std::to_string(hidden) + " point(s) without FLOPs or bytes not drawn";
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

std::string render_roofline_svg(const std::vector<RooflineSeries>& chips, const std::string& title) {
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
  const size_t caption_lines = wrap(caption_text(all_points, hidden), kCaptionFont, width - 48).size();
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

  const Domain d = shared_domain(chips);
  size_t missed = 0;
  bool any[4] = {false, false, false, false}, any_total = false;
  for (size_t c = 0; c < chips.size(); ++c) {
    missed += draw_panel(svg, chips[c], d, kLeft + static_cast<double>(c) * (kPanelW + kPanelGap));
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
  for (const std::string& line : wrap(caption_text(missed, hidden), kCaptionFont, width - 48)) {
    svg.text(24, y, line, TextStyle{kCaptionFont, plot::kMuted, false, Anchor::Start});
    y += kCaptionLine;
  }
  svg.end_group();
  return svg.finish();
}

}  // namespace ma
