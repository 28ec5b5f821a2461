// Label placement for the roofline plot (roofline_labels.h): segment and box tests, the obstacle checks and
// the search for a free spot around a marker or among fixed candidates.
#include "report/roofline_labels.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ma::roofline {

using diagram::Anchor;
using diagram::Svg;
using diagram::TextStyle;

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

bool Obstacles::free(const Box& b, bool strict) const {
  const Box clear{b.x0 - 3, b.y0 - 3, b.x1 + 3, b.y1 + 3};  // text keeps clear of lines
  const auto hit = [&](const Box& o) { return o.hits(b); };
  const auto cross = [&](const Segment& s) { return crosses(clear, s); };
  return std::none_of(boxes.begin(), boxes.end(), hit) && std::none_of(markers.begin(), markers.end(), hit) &&
         std::none_of(lines.begin(), lines.end(), cross) &&
         (!strict || std::none_of(soft_lines.begin(), soft_lines.end(), cross));
}

bool Obstacles::free(const Segment& s, bool strict) const {
  const auto cross = [&](const Segment& o) { return intersect(o, s); };
  return std::none_of(boxes.begin(), boxes.end(), [&](const Box& o) { return crosses(o, s); }) &&
         std::none_of(lines.begin(), lines.end(), cross) &&
         (!strict || std::none_of(soft_lines.begin(), soft_lines.end(), cross));
}

Box text_box(double x, double y, double width, double font, Anchor anchor) {
  const double x0 = anchor == Anchor::Start ? x : anchor == Anchor::End ? x - width : x - width / 2;
  return Box{x0 - 2, y - font * 0.8 - 1, x0 + width + 2, y + font * 0.25 + 1};
}

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

}  // namespace ma::roofline
