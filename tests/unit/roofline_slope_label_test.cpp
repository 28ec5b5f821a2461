// The roofline's bandwidth label ("HBM 4 TB/s" along the slope): memory-bound points sit on the slope by
// construction, so the label must find a stretch of it that no marker covers, rather than a fixed spot.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "report/diagram_canvas.h"
#include "report/roofline_plot.h"
#include "svg_test_support.h"

namespace ma {
namespace {

// A hand-made accelerator: FP8 2000 TFLOP/s, HBM 4000 GB/s: ridge 2000e12 / 4000e9 = 500 FLOP/byte.
Hardware slope_test_chip() {
  Hardware hw;
  hw.name = "slopechip";
  hw.description = "Slope test accelerator";
  hw.peak_tflops[static_cast<int>(ComputeDType::BF16)] = 1000;
  hw.peak_tflops[static_cast<int>(ComputeDType::FP8)] = 2000;
  hw.hbm_gbps = 4000;
  hw.hbm_gb = 80;
  return hw;
}

// Memory-bound ops on the slope itself (TFLOP/s = 4000e9 B/s x AI / 1e12 = 4 x AI), every tenth of a decade
// from AI 0.126 to 5: the lower part of the slope, where a third of the way up falls.
std::vector<RooflinePoint> points_on_the_slope() {
  std::vector<RooflinePoint> pts;
  for (int i = -9; i <= 7; ++i) {
    RooflinePoint p;
    p.ai = std::pow(10.0, i / 10.0);
    p.tflops = 4 * p.ai;
    p.regime = "memory";
    p.flops = 1e9;
    pts.push_back(p);
  }
  return pts;
}

struct SlopeMarker {
  double x, y, half;
};

// The square markers (memory-bound ops) of the panel: centre and half side.
std::vector<SlopeMarker> square_markers(const std::string& points_group) {
  static const std::regex square(R"re(<rect x="([-0-9.]+)" y="([-0-9.]+)" width="([0-9.]+)")re");
  std::vector<SlopeMarker> out;
  for (auto it = std::sregex_iterator(points_group.begin(), points_group.end(), square);
       it != std::sregex_iterator(); ++it) {
    const double half = std::stod((*it)[3]) / 2;
    out.push_back({std::stod((*it)[1]) + half, std::stod((*it)[2]) + half, half});
  }
  return out;
}

// Whether a marker overlaps the text of `width` at `font` drawn at (x, y) and turned `degrees` about it: the
// marker's centre in the text's own frame, against the glyphs' box (0.8 font above the baseline, 0.25 below)
// grown by the marker's half diagonal.
bool marker_under_label(const SlopeMarker& m, double x, double y, double degrees, double width, double font) {
  const double a = degrees * std::numbers::pi / 180, dx = m.x - x, dy = m.y - y;
  const double u = dx * std::cos(a) + dy * std::sin(a), v = -dx * std::sin(a) + dy * std::cos(a);
  const double grow = m.half * std::sqrt(2.0);
  return std::fabs(u) < width / 2 + grow && v > -0.8 * font - grow && v < 0.25 * font + grow;
}

TEST(RooflineSlopeLabel, StaysClearOfThePointsOnTheSlope) {
  const std::string svg =
      render_roofline_svg({{slope_test_chip(), ComputeDType::FP8, points_on_the_slope()}}, "Slope");
  test::expect_well_formed_svg(svg);
  const std::vector<SlopeMarker> markers = square_markers(test::svg_group(svg, "points"));
  ASSERT_EQ(markers.size(), 17u);

  // The slope: the roof polyline's first segment.
  static const std::regex roof(R"re(<polyline points="([-0-9.]+),([-0-9.]+) ([-0-9.]+),([-0-9.]+))re");
  std::smatch s;
  const std::string roof_group = test::svg_group(svg, "roofline");
  ASSERT_TRUE(std::regex_search(roof_group, s, roof));
  const double x1 = std::stod(s[1]), y1 = std::stod(s[2]), x2 = std::stod(s[3]), y2 = std::stod(s[4]);
  const double len = std::hypot(x2 - x1, y2 - y1);
  const double label_w = diagram::text_width("HBM 4 TB/s", 10.5);
  // The scenario: a marker sits where a label a third of the way up the slope would be.
  const double third_x = x1 + (x2 - x1) * 0.3, third_y = y1 + (y2 - y1) * 0.3;
  bool crowded = false;
  for (const SlopeMarker& m : markers)
    crowded = crowded || std::hypot(m.x - third_x, m.y - third_y) < label_w / 2;
  ASSERT_TRUE(crowded) << "no marker a third of the way up a slope of " << len << " px";

  static const std::regex label(
      R"re(<text x="([-0-9.]+)" y="([-0-9.]+)" font-size="10.5"[^>]*rotate\(([-0-9.]+) [^>]*>HBM 4 TB/s</text>)re");
  std::smatch t;
  const std::string labels = test::svg_group(svg, "roof-labels");
  ASSERT_TRUE(std::regex_search(labels, t, label)) << labels;
  const double lx = std::stod(t[1]), ly = std::stod(t[2]), angle = std::stod(t[3]);
  for (const SlopeMarker& m : markers)
    EXPECT_FALSE(marker_under_label(m, lx, ly, angle, label_w, 10.5))
        << "the label at (" << lx << ", " << ly << ") runs under the marker at (" << m.x << ", " << m.y
        << ")";
}

// With no point near it, the label keeps its place a third of the way up the slope.
TEST(RooflineSlopeLabel, KeepsItsPlaceOnAnEmptySlope) {
  RooflinePoint compute;
  compute.ai = 2000;
  compute.tflops = 1500;
  compute.regime = "compute";
  compute.flops = 1e12;
  const std::string svg = render_roofline_svg({{slope_test_chip(), ComputeDType::FP8, {compute}}}, "Empty");
  static const std::regex roof(R"re(<polyline points="([-0-9.]+),([-0-9.]+) ([-0-9.]+),([-0-9.]+))re");
  static const std::regex label(R"re(<text x="([-0-9.]+)" y="([-0-9.]+)"[^>]*>HBM 4 TB/s</text>)re");
  std::smatch s, t;
  const std::string roof_group = test::svg_group(svg, "roofline"),
                    labels = test::svg_group(svg, "roof-labels");
  ASSERT_TRUE(std::regex_search(roof_group, s, roof));
  ASSERT_TRUE(std::regex_search(labels, t, label)) << labels;
  const double x1 = std::stod(s[1]), y1 = std::stod(s[2]), dx = std::stod(s[3]) - x1,
               dy = std::stod(s[4]) - y1;
  const double along = ((std::stod(t[1]) - x1) * dx + (std::stod(t[2]) - y1) * dy) / (dx * dx + dy * dy);
  EXPECT_NEAR(along, 0.3, 0.02);
}

}  // namespace
}  // namespace ma
