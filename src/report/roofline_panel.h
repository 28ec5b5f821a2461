// One accelerator's panel of the roofline plot (roofline_plot.h): the axes domain all panels share, the
// panel's layout and colours, the regime styles the legend repeats, and the drawing of a panel (regions,
// roof, ridge, roof and region labels, points and their labels). Internal to the plot.
#pragma once
#include <string>
#include <vector>

#include "report/diagram_canvas.h"
#include "report/plot_axes.h"
#include "report/roofline_plot.h"

namespace ma::roofline {

inline constexpr double kPanelW = 500, kPanelH = 400;
inline constexpr double kTop = 136;  // the plot areas' top edge

// Region tints (light enough for points and grid lines to stay legible on them) and the ink of their names.
inline const std::string kMemTint = "#fdf0e1", kCompTint = "#e6f0f8", kMemInk = "#8f5500",
                         kCompInk = "#00507f";

struct RegimeStyle {
  std::string color;
  plot::Marker marker;
  std::string legend;
};

RegimeStyle regime_style(const std::string& regime);

// Whether the point can be drawn: positive, finite intensity and throughput.
bool plottable(const RooflinePoint& p);

struct Domain {
  double xlo = 0.1, xhi = 1e5, ylo = 1, yhi = 10;
};

// Shared by all panels so that chips compare at a glance: x covers seed 001's default 0.1 to 1e5 FLOP/B, the
// points and a decade either side of every ridge; y reaches from the roof's left end and the lowest point to
// at least 2x the highest peak (room for the roof's labels), at most 10 decades.
Domain shared_domain(const std::vector<RooflineSeries>& chips);

// One chip's panel with its plot area's left edge at x0. Returns how many labelled points went without their
// label.
// At most `max_labels` points are labelled.
size_t draw_panel(diagram::Svg& svg, const RooflineSeries& s, const Domain& d, double x0, size_t max_labels);

}  // namespace ma::roofline
