// What the statistics plots (stats_plots.h, drift_plot.h) share: scales from data to pixels (linear or log),
// "nice" ticks with compact labels that are checked not to collide, axes with gridlines and titles, the
// colour-blind-safe palette (Okabe & Ito) with a marker shape per series so that the plots survive greyscale
// print, a legend, and the robust statistics (median, MAD) the outlier marks use. Internal to the report
// layer.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/diagram_canvas.h"

namespace ma::plot {

// Ink and structure.
inline const std::string kInk = "#1a1a1a", kMuted = "#555555", kFaint = "#8a8a8a", kGrid = "#e6e6e6",
                         kAxis = "#3a3a3a", kPanel = "#fafafa";
// Okabe & Ito (2008), the colour-universal-design palette. Vermillion is kept for flags and outliers.
inline const std::string kBlue = "#0072B2", kSky = "#56B4E9", kGreen = "#009E73", kPurple = "#CC79A7",
                         kOrange = "#E69F00", kVermillion = "#D55E00", kYellow = "#F0E442",
                         kBlack = "#000000";
// The ring around an outlier point (a red that stays apart from the orange series).
inline const std::string kOutlier = "#C8102E";
// Histogram bars: a light fill with a darker top edge.
inline const std::string kBarFill = "#9ecae9", kBarEdge = "#2b6a99";

// Maps data values to pixels: lo -> p0, hi -> p1 (p1 < p0 for a y axis). A log scale maps log10(v);
// values at or below zero there land on p0.
struct Scale {
  double lo = 0, hi = 1;
  double p0 = 0, p1 = 1;
  bool log = false;
  double operator()(double v) const;
  // The pixel clamped into [p0, p1] (points beyond the domain stay on the frame).
  double clamped(double v) const;
};

struct Tick {
  double value = 0;
  std::string label;  // empty: a minor tick, drawn without a label
};

// The number forms used on ticks and in captions. U+2212 for minus signs; "-0" never appears.
// A tick label for `v` on an axis whose ticks are `step` apart: as few decimals as the step needs, and the
// e-notation ("2e−4", "1.5e6") when the axis' largest magnitude `mag` is under 1e−3 or at least 1e5.
std::string tick_label(double v, double step, double mag);
// `v` to `sig` significant digits, e-notation outside [1e−3, 1e5): "0.0213", "−1.2e−4", "3.4e6".
std::string compact(double v, int sig = 3);
// A count with an SI suffix: 950, "12k", "1.3M", "4.2G".
std::string si_count(double n);
// 10 to the k with superscript digits: "10³", "10⁻⁴".
std::string power_of_ten(int k);

// Ticks at nice steps (1, 2, 2.5 or 5 × 10^k) inside [lo, hi], the finest such step giving at most
// `max_ticks` ticks. `integers` keeps the step a whole number (layer indices).
std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks, bool integers = false);
// Ticks on decades inside [lo, hi] (every 2nd, 3rd, ... decade when there are more than `max_ticks`), with
// labelled 2× and 5× ticks when the domain spans under two decades and unlabelled minor ticks otherwise.
std::vector<Tick> log_ticks(double lo, double hi, int max_ticks);
// Labels as counts (si_count) instead of tick_label's numbers.
void label_as_counts(std::vector<Tick>& ticks);

// Ticks for an axis of `scale`, as many as fit (at most `max_ticks`) without their labels touching: along x
// each label is centred on its tick, along y they are `font` tall.
std::vector<Tick> fitted_ticks(const Scale& scale, bool horizontal, double font, int max_ticks,
                               bool integers = false, bool counts = false);

// A domain padded to nice bounds: [lo, hi] widened to the enclosing multiples of a nice step (starting at 0
// when `from_zero` and lo >= 0); a degenerate or empty range becomes a small one around it.
void nice_domain(double& lo, double& hi, bool from_zero);
// A log domain [10^floor(log10 lo), 10^ceil(log10 hi)] over the positive values; lo <= 0 or hi <= lo are
// mended.
void log_domain(double& lo, double& hi);

// A plot area and its scales. Draw the grid first, then the data, then the axes on top.
struct Axes {
  double x = 0, y = 0, w = 0, h = 0;
  Scale sx, sy;
  std::vector<Tick> xticks, yticks;
  std::string xtitle, ytitle;
  double tick_font = 11, title_font = 12;
  bool vertical_grid = false;
  double left() const { return x; }
  double right() const { return x + w; }
  double top() const { return y; }
  double bottom() const { return y + h; }
};
// Sets the pixel ranges of the scales from the area.
void place(Axes& a, double x, double y, double w, double h);
// A layer-index x axis over layers [lo, hi]: the domain padded by 0.6 of a layer (1 for a single layer), so
// the end markers clear the frame; after place(), `layer_ticks` puts integer ticks inside [lo, hi] and the
// y ticks (at most `y_ticks`).
void layer_domain(Axes& a, uint32_t lo, uint32_t hi);
void layer_ticks(Axes& a, uint32_t lo, uint32_t hi, int y_ticks = 6);
void draw_grid(diagram::Svg& svg, const Axes& a);
// The left and bottom axis lines, outward tick marks, tick labels and the axis titles (y rotated). With
// `x_labels` false the bottom axis gets tick marks only (a panel stacked above another).
void draw_axes(diagram::Svg& svg, const Axes& a, bool x_labels = true);

enum class Marker { Circle, Square, TriangleUp, Diamond, TriangleDown, Hexagon };
void draw_marker(diagram::Svg& svg, Marker m, double x, double y, double r, std::string_view fill,
                 std::string_view stroke = "#ffffff", double stroke_width = 0.8);

struct SeriesStyle {
  std::string color;
  Marker marker = Marker::Circle;
};
// A fixed colour and marker per module class (q_proj blue circles, ..., so that two plots agree); a class
// outside the table takes the next of the remaining pairs, counted by `fallbacks_used`.
SeriesStyle class_style(std::string_view module_class, size_t& fallbacks_used);

struct LegendEntry {
  std::string label;
  std::string color;
  enum class Kind { LineMarker, Bar, Ring, DashedLine } kind = Kind::LineMarker;
  Marker marker = Marker::Circle;
};
// A vertical legend from (x, y) (the top-left corner) in a framed box; returns its height.
double draw_legend(diagram::Svg& svg, double x, double y, double width,
                   const std::vector<LegendEntry>& entries, double font = 11, std::string_view heading = "");

// Median and median absolute deviation of the values (copies; empty -> 0).
double median(std::vector<double> v);
double median_abs_deviation(const std::vector<double>& v, double med);
// How robust_outliers() judges a series. The baseline of a point is the median of the series, or with
// `half_window` > 0 a local trend: the Theil-Sen line (median of pairwise slopes) through its neighbours
// within `half_window` places (a window of the same width, shifted inwards, at the ends), the point itself
// left out, evaluated at the point; so a spike stands out of a slope and the ends of a slope are not
// outliers. The spread is the residuals' MAD × 1.4826 (a normal's MAD to its standard deviation), at least
// `rel_floor` × |baseline| + `abs_floor`, so that a series smooth to rounding error does not flag its
// rounding.
struct OutlierRule {
  double z = 3;
  size_t min_count = 5;  // fewer finite values flag nothing
  size_t half_window = 0;
  double rel_floor = 0, abs_floor = 0;
};
// Indices of the values more than rule.z spreads from their baseline; non-finite values are skipped.
std::vector<size_t> robust_outliers(const std::vector<double>& v, const OutlierRule& rule = {});

// `text` shortened to fit `max_width` at `size` by cutting its middle
// ("model.layers.3…mlp.down_proj.weight"): tensor names say most at their two ends.
std::string ellipsize_middle(std::string_view text, double size, bool bold, double max_width);
// Draws `text` fitted into `max_width`: shrunk down to style.min_size, then cut in the middle.
void fit_middle(diagram::Svg& svg, double x, double y, double max_width, std::string_view text,
                const diagram::TextStyle& style);

// The page of the per-layer panels (stats' layer trends, spectrum's per-layer figures), one look for both:
// its width, the left margin for the y labels, the legend column and the right pad, the title's height, each
// panel's height and the gap below it.
namespace layer_page {
inline constexpr double kWidth = 1100, kLeft = 86, kLegendW = 172, kRightPad = 24, kTop = 78;
inline constexpr double kPanelH = 250, kPanelGap = 58;
}  // namespace layer_page

}  // namespace ma::plot
