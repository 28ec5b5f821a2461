// A small SVG writer for the architecture diagrams: rectangles, lines, arrows and text whose width is
// estimated from DejaVu Sans advances (the "sans-serif" font install-deps.sh provides), so that labels can be
// fitted into their boxes — shrunk, then cut with an ellipsis — instead of overlapping their neighbours.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ma::diagram {

// Escapes the five XML special characters; drops bytes XML 1.0 forbids (control characters other than tab
// and newline) so that untrusted model ids always yield a well-formed document.
std::string xml_escape(std::string_view s);

// Estimated advance width of `text` (UTF-8) at `size` px in DejaVu Sans, regular or bold; errs on the wide
// side.
double text_width(std::string_view text, double size, bool bold = false);

// `text` cut at a code-point boundary and ended with "…" so that it fits `max_width` at `size`.
std::string ellipsize(std::string_view text, double size, bool bold, double max_width);

// A coordinate as the writer prints it: one decimal, no trailing ".0".
std::string svg_num(double v);

enum class Anchor { Start, Middle, End };

struct TextStyle {
  double size = 14;
  std::string color = "#0f172a";
  bool bold = false;
  Anchor anchor = Anchor::Start;
  double min_size = 0;  // fit(): smallest size to shrink to before cutting; 0 = size (never shrink)
  double rotate = 0;    // degrees, clockwise, about (x, y): -90 reads bottom to top (a y axis title)
};

class Svg {
 public:
  Svg(int width, int height, std::string_view title);

  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke = "none",
            double radius = 0, double stroke_width = 1);
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke,
              double stroke_width = 1);
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1.5,
            bool dashed = false);
  // A straight arrow from (x1,y1) to (x2,y2), head at the end.
  void arrow(double x1, double y1, double x2, double y2, std::string_view stroke = "#64748b",
             double width = 2);
  // An orthogonal path through the given points (x0 y0 x1 y1 ...), with an arrow head at the last point.
  void elbow_arrow(std::initializer_list<double> xy, std::string_view stroke = "#94a3b8", double width = 1.5);
  // An open line through the points (x0 y0 x1 y1 ...), no arrow head; fewer than two points draw nothing.
  void polyline(const std::vector<double>& xy, std::string_view stroke, double width = 1.5,
                bool dashed = false);
  // A path from its SVG path data `d` (the caller writes the numbers; see svg_num()).
  void path(std::string_view d, std::string_view fill, std::string_view stroke = "none",
            double stroke_width = 1);
  // <g class="..."> ... </g>: groups what is drawn between them, so that a plot's parts can be found (and
  // styled) by class.
  void begin_group(std::string_view css_class);
  void end_group();

  // Text as given (escaped); the caller knows it fits.
  void text(double x, double y, std::string_view s, const TextStyle& style);
  // Text fitted into `max_width`: the font shrinks down to style.min_size, then the text is ellipsized.
  // Returns the size used.
  double fit(double x, double y, double max_width, std::string_view s, const TextStyle& style);

  std::string finish();  // closes the document

 private:
  std::string out_;
};

}  // namespace ma::diagram
