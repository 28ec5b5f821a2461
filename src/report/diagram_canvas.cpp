#include "report/diagram_canvas.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace ma::diagram {
namespace {

// Advance widths of the printable ASCII characters (space .. '~') in thousandths of an em, read from the
// hmtx tables of Debian's DejaVuSans.ttf and DejaVuSans-Bold.ttf (fonts-dejavu-core 2.37), which fontconfig
// resolves "sans-serif" to. Other code points are taken as a full em, wider than any we use (×, →, θ, …).
constexpr std::array<uint16_t, 95> kRegular = {
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361,  318, 337, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
    575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635,  611, 732, 684, 989, 685,
    611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352,  635, 634, 278, 278, 579,
    278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,  525, 636, 337, 636, 838};
constexpr std::array<uint16_t, 95> kBold = {
    348, 456,  521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415,  380, 365, 696, 696,  696,
    696, 696,  696, 696, 696, 696,  696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830,  683,
    683, 821,  837, 372, 372, 775,  637, 995, 837, 850, 733, 850, 770, 720,  682, 812, 774, 1103, 771,
    724, 725,  457, 365, 457, 838,  500, 500, 675, 716, 593, 716, 678, 435,  716, 712, 343, 343,  665,
    343, 1042, 712, 687, 716, 716,  493, 595, 478, 712, 652, 924, 645, 652,  582, 712, 365, 712,  838};

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

double char_em(unsigned char c, bool bold) {
  if (c >= 32 && c < 127) return (bold ? kBold : kRegular)[c - 32] / 1000.0;
  return 1.0;
}

std::string_view anchor_name(Anchor a) {
  switch (a) {
    case Anchor::Middle:
      return "middle";
    case Anchor::End:
      return "end";
    case Anchor::Start:
      break;
  }
  return "start";
}

}  // namespace

std::string svg_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n') break;  // not allowed in XML 1.0
        out += ch;
    }
  }
  return out;
}

double text_width(std::string_view text, double size, bool bold) {
  double em = 0;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (!is_continuation(c)) em += char_em(c, bold);
  }
  return em * size;
}

std::string ellipsize(std::string_view text, double size, bool bold, double max_width) {
  if (text_width(text, size, bold) <= max_width) return std::string(text);
  const double budget = max_width - text_width("…", size, bold);
  double used = 0;
  size_t cut = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_continuation(c)) continue;
    used += char_em(c, bold) * size;
    if (used > budget) break;
    // Keep the whole code point that starts at i.
    size_t end = i + 1;
    while (end < text.size() && is_continuation(static_cast<unsigned char>(text[end]))) ++end;
    cut = end;
  }
  return std::string(text.substr(0, cut)) + "…";
}

Svg::Svg(int width, int height, std::string_view title) {
  out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
          std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
          std::to_string(height) + "\" font-family=\"sans-serif\">\n";
  out_ += "<title>" + xml_escape(title) + "</title>\n";
}

void Svg::rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke,
               double radius, double stroke_width) {
  out_ += "<rect x=\"" + svg_num(x) + "\" y=\"" + svg_num(y) + "\" width=\"" + svg_num(std::max(0.0, w)) +
          "\" height=\"" + svg_num(std::max(0.0, h)) + "\"";
  if (radius > 0) out_ += " rx=\"" + svg_num(radius) + "\"";
  out_ += " fill=\"" + std::string(fill) + "\"";
  if (stroke != "none")
    out_ += " stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + svg_num(stroke_width) + "\"";
  out_ += "/>\n";
}

void Svg::circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke,
                 double stroke_width) {
  out_ += "<circle cx=\"" + svg_num(cx) + "\" cy=\"" + svg_num(cy) + "\" r=\"" + svg_num(r) + "\" fill=\"" +
          std::string(fill) + "\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" +
          svg_num(stroke_width) + "\"/>\n";
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
               bool dashed) {
  out_ += "<line x1=\"" + svg_num(x1) + "\" y1=\"" + svg_num(y1) + "\" x2=\"" + svg_num(x2) + "\" y2=\"" +
          svg_num(y2) + "\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + svg_num(width) + "\"";
  if (dashed) out_ += " stroke-dasharray=\"5 4\"";
  out_ += "/>\n";
}

void Svg::arrow(double x1, double y1, double x2, double y2, std::string_view stroke, double width) {
  elbow_arrow({x1, y1, x2, y2}, stroke, width);
}

void Svg::elbow_arrow(std::initializer_list<double> xy, std::string_view stroke, double width) {
  std::string points;
  bool first = true;
  for (double v : xy) {
    points += (points.empty() ? "" : first ? " " : ",") + svg_num(v);
    first = !first;
  }
  // The head is a path of its own (librsvg 2.54 has no context-stroke for a shared marker).
  out_ += "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"" + std::string(stroke) +
          "\" stroke-width=\"" + svg_num(width) + "\" stroke-linejoin=\"round\"/>\n";
  const auto* p = xy.begin();
  const size_t n = xy.size();
  if (n < 4) return;
  const double x2 = p[n - 2], y2 = p[n - 1], x1 = p[n - 4], y1 = p[n - 3];
  const double len = std::hypot(x2 - x1, y2 - y1);
  if (len <= 0) return;
  const double ux = (x2 - x1) / len, uy = (y2 - y1) / len, head = 5 + 2 * width, half = 2.5 + width;
  const double bx = x2 - ux * head, by = y2 - uy * head;
  out_ += "<path d=\"M" + svg_num(x2) + "," + svg_num(y2) + " L" + svg_num(bx - uy * half) + "," +
          svg_num(by + ux * half) + " L" + svg_num(bx + uy * half) + "," + svg_num(by - ux * half) +
          " z\" fill=\"" + std::string(stroke) + "\"/>\n";
}

void Svg::polyline(const std::vector<double>& xy, std::string_view stroke, double width, bool dashed) {
  if (xy.size() < 4) return;
  std::string points;
  for (size_t i = 0; i + 1 < xy.size(); i += 2)
    points += (i ? " " : "") + svg_num(xy[i]) + "," + svg_num(xy[i + 1]);
  out_ += "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"" + std::string(stroke) +
          "\" stroke-width=\"" + svg_num(width) + "\" stroke-linejoin=\"round\"";
  if (dashed) out_ += " stroke-dasharray=\"5 4\"";
  out_ += "/>\n";
}

void Svg::path(std::string_view d, std::string_view fill, std::string_view stroke, double stroke_width) {
  out_ += "<path d=\"" + xml_escape(d) + "\" fill=\"" + std::string(fill) + "\"";
  if (stroke != "none")
    out_ += " stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + svg_num(stroke_width) + "\"";
  out_ += "/>\n";
}

void Svg::begin_group(std::string_view css_class) {
  out_ += "<g class=\"" + xml_escape(css_class) + "\">\n";
}

void Svg::end_group() {
  out_ += "</g>\n";
}

void Svg::text(double x, double y, std::string_view s, const TextStyle& style) {
  out_ += "<text x=\"" + svg_num(x) + "\" y=\"" + svg_num(y) + "\" font-size=\"" + svg_num(style.size) +
          "\" fill=\"" + style.color + "\"";
  if (style.rotate != 0)
    out_ += " transform=\"rotate(" + svg_num(style.rotate) + " " + svg_num(x) + " " + svg_num(y) + ")\"";
  if (style.bold) out_ += " font-weight=\"bold\"";
  if (style.anchor != Anchor::Start)
    out_ += " text-anchor=\"" + std::string(anchor_name(style.anchor)) + "\"";
  out_ += ">" + xml_escape(s) + "</text>\n";
}

double Svg::fit(double x, double y, double max_width, std::string_view s, const TextStyle& style) {
  TextStyle st = style;
  const double floor = style.min_size > 0 ? std::min(style.min_size, style.size) : style.size;
  while (st.size > floor && text_width(s, st.size, st.bold) > max_width)
    st.size = std::max(floor, st.size - 0.5);
  text(x, y, ellipsize(s, st.size, st.bold, max_width), st);
  return st.size;
}

std::string Svg::finish() {
  out_ += "</svg>\n";
  return std::move(out_);
}

}  // namespace ma::diagram
