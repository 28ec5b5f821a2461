// Label placement for the roofline plot (roofline_plot.h): the obstacles a text must not cover (texts,
// markers, the roof, the ridge line) and the search for a free spot, for point labels (with a leader line
// when they sit away from their marker) and for fixed texts with a few candidate spots. Internal to the plot.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "report/diagram_canvas.h"

namespace ma::roofline {

inline constexpr double kLabelFont = 10.5;

struct Box {
  double x0, y0, x1, y1;
  bool hits(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const Box& o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
};

struct Segment {
  double x1, y1, x2, y2;
};

// Whether the segment crosses the box (Liang-Barsky clipping).
bool crosses(const Box& b, const Segment& s);
// Whether two segments cross (touching end points count).
bool intersect(const Segment& a, const Segment& b);

// What a label must not cover: other labels and fixed texts, every marker, the roof. A leader line may cross
// markers (inside a cluster it has to) but no text and no line. The ridge's dashed line is a soft obstacle:
// avoided while another place is free, crossed when none is.
struct Obstacles {
  std::vector<Box> boxes, markers;
  std::vector<Segment> lines, soft_lines;
  bool free(const Box& b, bool strict) const;
  bool free(const Segment& s, bool strict) const;
};

// A text's box with its anchor at x and baseline at y.
Box text_box(double x, double y, double width, double font, diagram::Anchor anchor);

struct Placed {
  size_t point;
  std::string text;
  double x, y;  // anchor and baseline
  diagram::Anchor anchor;
  bool leader;
  double lx1, ly1, lx2, ly2;
};

// Tries positions around the marker at growing distances (right, left, the diagonals, above, below), the
// first one that covers nothing wins; beyond the first ring a thin leader line joins label and marker. The
// label's box and leader join `obs`.
bool place_label(const std::string& text, double px, double py, double r, const Box& area, Obstacles& obs,
                 Placed& out);

// Draws a fixed text at the first of `spots` (anchor x, baseline y) where it covers nothing and stays inside
// `area`; returns false (drawing nothing) when there is none.
bool place_fixed(diagram::Svg& svg, Obstacles& obs, const Box& area, const std::string& text,
                 diagram::TextStyle st, const std::vector<std::pair<double, double>>& spots);

}  // namespace ma::roofline
