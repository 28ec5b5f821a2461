#include "report/plot_axes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <utility>

namespace ma::plot {
namespace {

using diagram::Anchor;
using diagram::svg_num;
using diagram::TextStyle;

constexpr std::string_view kMinus = "\u2212";

// '-' -> U+2212 (the typographic minus DejaVu Sans draws as wide as a digit).
std::string with_minus(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '-')
      out += kMinus;
    else
      out += c;
  }
  return out;
}

void strip_trailing_zeros(std::string& s) {
  if (s.find('.') == std::string::npos) return;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
}

// "%.*e" as "1.5e−4" / "3e6": the mantissa without trailing zeros, the exponent without sign padding.
std::string e_notation(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*e", std::clamp(decimals, 0, 12), v);
  std::string s = buf;
  const size_t e = s.find('e');
  if (e == std::string::npos) return with_minus(s);
  std::string mant = s.substr(0, e);
  strip_trailing_zeros(mant);
  const int exp = std::atoi(s.c_str() + e + 1);
  return with_minus(mant + "e" + std::to_string(exp));
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 12), v);
  std::string s = buf;
  strip_trailing_zeros(s);
  if (s == "-0") s = "0";
  return with_minus(s);
}

int floor_log10(double v) {
  return static_cast<int>(std::floor(std::log10(std::fabs(v)) + 1e-9));
}

// The decimals a step's mantissa needs: 1 for 2.5 × 10^k, else 0.
int mantissa_decimals(double step) {
  const double m = step / std::pow(10.0, floor_log10(step));
  return std::fabs(m - std::round(m)) > 1e-6 ? 1 : 0;
}

// Steps 1, 2, 2.5, 5 × 10^e, the finest giving at most max_ticks ticks in [lo, hi].
double nice_step(double lo, double hi, int max_ticks, bool integers) {
  const double span = hi - lo;
  const int start = floor_log10(span / std::max(1, max_ticks)) - 1;
  for (int e = start; e < start + 40; ++e) {
    for (double m : {1.0, 2.0, 2.5, 5.0}) {
      const double step = m * std::pow(10.0, e);
      if (integers && (step < 1 || std::fabs(step - std::round(step)) > 1e-9)) continue;
      const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
      if (last - first + 1 <= max_ticks) return step;
    }
  }
  return span;
}

bool labels_fit(const std::vector<Tick>& ticks, const Scale& s, bool horizontal, double font) {
  double prev_end = -1e300;
  std::vector<std::pair<double, double>> spans;  // pixel extents, in pixel order
  for (const Tick& t : ticks) {
    if (t.label.empty()) continue;
    const double p = s(t.value);
    const double half = horizontal ? diagram::text_width(t.label, font) / 2 : font * 0.65;
    spans.emplace_back(p - half, p + half);
  }
  std::sort(spans.begin(), spans.end());
  const double gap = horizontal ? font * 0.9 : font * 0.35;
  for (const auto& [a, b] : spans) {
    if (a < prev_end + gap) return false;
    prev_end = b;
  }
  return true;
}

struct ClassEntry {
  std::string_view name;
  std::string_view color;
  Marker marker;
};
// Okabe & Ito first; wine, teal and olive from Paul Tol's muted scheme (also colour-blind safe) for the rarer
// classes.
constexpr std::array<ClassEntry, 15> kClasses = {{
    {"q_proj", "#0072B2", Marker::Circle},
    {"k_proj", "#56B4E9", Marker::Square},
    {"v_proj", "#009E73", Marker::TriangleUp},
    {"o_proj", "#CC79A7", Marker::Diamond},
    {"qkv_proj", "#0072B2", Marker::Hexagon},
    {"attention", "#0072B2", Marker::Hexagon},
    {"mlp", "#E69F00", Marker::TriangleDown},
    {"moe", "#000000", Marker::Hexagon},
    {"norm", "#7F7F7F", Marker::Circle},
    {"embedding", "#B08D00", Marker::Square},
    {"output", "#8C510A", Marker::Diamond},
    {"mamba", "#882255", Marker::Hexagon},
    {"linear_attention", "#44AA99", Marker::Diamond},
    {"vision", "#999933", Marker::Square},
    {"other", "#4D4D4D", Marker::TriangleUp},
}};
constexpr std::array<ClassEntry, 6> kFallback = {{
    {"", "#B08D00", Marker::TriangleDown},
    {"", "#8C510A", Marker::Square},
    {"", "#4D4D4D", Marker::Diamond},
    {"", "#56B4E9", Marker::Hexagon},
    {"", "#009E73", Marker::Circle},
    {"", "#CC79A7", Marker::TriangleUp},
}};

}  // namespace

double Scale::operator()(double v) const {
  double t = 0;
  if (log) {
    const double l = lo > 0 ? std::log10(lo) : 0, h = hi > 0 ? std::log10(hi) : 1;
    const double lv = v > 0 ? std::log10(v) : l;
    t = (lv - l) / (h - l);
  } else {
    t = (v - lo) / (hi - lo);
  }
  if (!std::isfinite(t)) t = 0;
  return p0 + t * (p1 - p0);
}

double Scale::clamped(double v) const {
  const double p = (*this)(v);
  return std::clamp(p, std::min(p0, p1), std::max(p0, p1));
}

std::string tick_label(double v, double step, double mag) {
  if (!(step > 0) || std::fabs(v) < step * 1e-6) return "0";
  const int se = floor_log10(step), extra = mantissa_decimals(step);
  if (mag < 1e-3 || mag >= 1e5) return e_notation(v, floor_log10(v) - se + extra);
  return fixed(v, std::max(0, -se + extra));
}

std::string compact(double v, int sig) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "\u221e" : std::string(kMinus) + "\u221e";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a < 1e-3 || a >= 1e5) return e_notation(v, sig - 1);
  return fixed(v, std::max(0, sig - 1 - floor_log10(a)));
}

std::string si_count(double n) {
  static constexpr std::array<std::pair<double, const char*>, 5> kUnits = {
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  const double a = std::fabs(n);
  for (const auto& [unit, suffix] : kUnits) {
    if (a >= unit * 0.9995) {
      const double x = n / unit;
      return fixed(x, std::fabs(x) < 9.95 ? 1 : 0) + suffix;
    }
  }
  return fixed(n, a < 1 && a > 0 ? 1 : 0);
}

std::string power_of_ten(int k) {
  static constexpr std::array<std::string_view, 10> kSup = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                                            "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  std::string out = "10";
  if (k < 0) out += "\u207b";
  for (char c : std::to_string(k < 0 ? -k : k)) out += kSup[static_cast<size_t>(c - '0')];
  return out;
}

std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks, bool integers) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (!(hi > lo)) return {Tick{lo, compact(lo)}};
  const double step = nice_step(lo, hi, std::max(2, max_ticks), integers);
  const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
  const double mag = std::max(std::fabs(first * step), std::fabs(last * step));
  std::vector<Tick> ticks;
  for (double k = first; k <= last + 0.5; k += 1) {
    const double v = k * step;
    ticks.push_back(Tick{v, tick_label(v, step, mag)});
  }
  return ticks;
}

std::vector<Tick> log_ticks(double lo, double hi, int max_ticks) {
  std::vector<Tick> ticks;
  if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) return ticks;
  const int dmin = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int dmax = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  const auto inside = [&](double v) { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); };
  const bool plain = dmin >= -2 && dmax <= 4;
  if (std::log10(hi / lo) < 2.0 - 1e-9) {
    // Under two decades: 1, 2, 5 per decade, labelled (dropping the 2s, then the 5s, when too many).
    for (const std::vector<double>& ms : {std::vector<double>{1, 2, 5}, {1, 5}, {1}}) {
      ticks.clear();
      for (int d = dmin; d <= dmax; ++d)
        for (double m : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}) {
          const double v = m * std::pow(10.0, d);
          if (!inside(v)) continue;
          const bool labelled = std::find(ms.begin(), ms.end(), m) != ms.end();
          ticks.push_back(Tick{v, labelled ? compact(v, 1) : ""});
        }
      const auto labelled =
          std::count_if(ticks.begin(), ticks.end(), [](const Tick& t) { return !t.label.empty(); });
      if (labelled <= max_ticks) break;
    }
    return ticks;
  }
  // Labelled decades are the multiples of the stride (so 10⁰ = 1 is one of them when in range).
  const int first = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
  const int last = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  int stride = 1;
  const auto labelled_count = [&](int st) {
    int k = 0;
    for (int d = first; d <= last; ++d) k += (d % st == 0);
    return k;
  };
  while (stride < 100 && labelled_count(stride) > std::max(1, max_ticks)) ++stride;
  const int decades = dmax - dmin + 1;
  for (int d = dmin; d <= dmax; ++d) {
    const double v = std::pow(10.0, d);
    if (inside(v)) {
      const bool labelled = d % stride == 0;
      ticks.push_back(Tick{v, !labelled ? "" : plain ? compact(v, 1) : power_of_ten(d)});
    }
    if (decades <= 8)
      for (int m = 2; m <= 9; ++m)
        if (inside(m * v)) ticks.push_back(Tick{m * v, ""});
  }
  return ticks;
}

void label_as_counts(std::vector<Tick>& ticks) {
  for (Tick& t : ticks)
    if (!t.label.empty()) t.label = si_count(t.value);
}

std::vector<Tick> fitted_ticks(const Scale& scale, bool horizontal, double font, int max_ticks, bool integers,
                               bool counts) {
  std::vector<Tick> ticks;
  for (int m = std::max(2, max_ticks); m >= 2; --m) {
    ticks = scale.log ? log_ticks(scale.lo, scale.hi, m) : linear_ticks(scale.lo, scale.hi, m, integers);
    if (counts) label_as_counts(ticks);
    if (labels_fit(ticks, scale, horizontal, font)) return ticks;
  }
  // Still too tight: keep every other label.
  bool keep = true;
  for (Tick& t : ticks) {
    if (t.label.empty()) continue;
    if (!keep) t.label.clear();
    keep = !keep;
  }
  return ticks;
}

void nice_domain(double& lo, double& hi, bool from_zero) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = 0;
    hi = 1;
    return;
  }
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    const double d = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= d;
    hi += d;
    if (from_zero && lo < 0 && lo + d >= 0) lo = 0;
  }
  if (from_zero && lo >= 0) lo = 0;
  const double step = nice_step(lo, hi, 5, false);
  lo = std::floor(lo / step + 1e-9) * step;
  hi = std::ceil(hi / step - 1e-9) * step;
  if (!(hi > lo)) hi = lo + step;
}

void log_domain(double& lo, double& hi) {
  if (!std::isfinite(hi) || hi <= 0) hi = 1;
  if (!std::isfinite(lo) || lo <= 0 || lo > hi) lo = hi / 1000;
  lo = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
  hi = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
  if (!(hi > lo)) hi = lo * 10;
}

void place(Axes& a, double x, double y, double w, double h) {
  a.x = x;
  a.y = y;
  a.w = w;
  a.h = h;
  a.sx.p0 = x;
  a.sx.p1 = x + w;
  a.sy.p0 = y + h;
  a.sy.p1 = y;
}

void layer_domain(Axes& a, uint32_t lo, uint32_t hi) {
  const double pad = hi == lo ? 1.0 : 0.6;
  a.sx.lo = lo - pad;
  a.sx.hi = hi + pad;
}

void layer_ticks(Axes& a, uint32_t lo, uint32_t hi, int y_ticks) {
  a.xticks = fitted_ticks(a.sx, true, a.tick_font, 12, true);
  std::erase_if(a.xticks, [&](const Tick& t) { return t.value < lo - 1e-9 || t.value > hi + 1e-9; });
  a.yticks = fitted_ticks(a.sy, false, a.tick_font, y_ticks);
}

void draw_grid(diagram::Svg& svg, const Axes& a) {
  for (const Tick& t : a.yticks) {
    if (t.label.empty()) continue;
    const double py = a.sy(t.value);
    if (py < a.top() - 0.5 || py > a.bottom() + 0.5) continue;
    svg.line(a.left(), py, a.right(), py, kGrid, 1);
  }
  if (!a.vertical_grid) return;
  for (const Tick& t : a.xticks) {
    if (t.label.empty()) continue;
    const double px = a.sx(t.value);
    if (px < a.left() - 0.5 || px > a.right() + 0.5) continue;
    svg.line(px, a.top(), px, a.bottom(), kGrid, 1);
  }
}

void draw_axes(diagram::Svg& svg, const Axes& a, bool x_labels) {
  const double major = 5, minor = 3, f = a.tick_font;
  svg.line(a.left(), a.top(), a.left(), a.bottom(), kAxis, 1);
  svg.line(a.left(), a.bottom(), a.right(), a.bottom(), kAxis, 1);
  double widest = 0;
  for (const Tick& t : a.yticks) {
    const double py = a.sy(t.value);
    if (py < a.top() - 0.5 || py > a.bottom() + 0.5) continue;
    const double len = t.label.empty() ? minor : major;
    svg.line(a.left() - len, py, a.left(), py, kAxis, 1);
    if (t.label.empty()) continue;
    svg.text(a.left() - major - 3, py + f * 0.36, t.label, TextStyle{f, kInk, false, Anchor::End});
    widest = std::max(widest, diagram::text_width(t.label, f));
  }
  for (const Tick& t : a.xticks) {
    const double px = a.sx(t.value);
    if (px < a.left() - 0.5 || px > a.right() + 0.5) continue;
    const double len = t.label.empty() ? minor : major;
    svg.line(px, a.bottom(), px, a.bottom() + len, kAxis, 1);
    if (t.label.empty() || !x_labels) continue;
    svg.text(px, a.bottom() + major + f + 1, t.label, TextStyle{f, kInk, false, Anchor::Middle});
  }
  if (!a.xtitle.empty() && x_labels)
    svg.fit(a.x + a.w / 2, a.bottom() + major + f + a.title_font + 8, a.w, a.xtitle,
            TextStyle{a.title_font, kInk, false, Anchor::Middle, a.title_font * 0.75});
  if (!a.ytitle.empty()) {
    TextStyle st{a.title_font, kInk, false, Anchor::Middle, a.title_font * 0.75};
    st.rotate = -90;
    svg.fit(a.left() - major - 3 - widest - 8, a.y + a.h / 2, a.h, a.ytitle, st);
  }
}

void draw_marker(diagram::Svg& svg, Marker m, double x, double y, double r, std::string_view fill,
                 std::string_view stroke, double stroke_width) {
  const auto pt = [](double px, double py) { return svg_num(px) + "," + svg_num(py); };
  switch (m) {
    case Marker::Circle:
      svg.circle(x, y, r, fill, stroke, stroke_width);
      return;
    case Marker::Square: {
      const double s = r * 0.9;
      svg.rect(x - s, y - s, 2 * s, 2 * s, fill, stroke, 0, stroke_width);
      return;
    }
    case Marker::TriangleUp:
      svg.path("M" + pt(x, y - 1.3 * r) + " L" + pt(x + 1.15 * r, y + 0.75 * r) + " L" +
                   pt(x - 1.15 * r, y + 0.75 * r) + " Z",
               fill, stroke, stroke_width);
      return;
    case Marker::TriangleDown:
      svg.path("M" + pt(x, y + 1.3 * r) + " L" + pt(x + 1.15 * r, y - 0.75 * r) + " L" +
                   pt(x - 1.15 * r, y - 0.75 * r) + " Z",
               fill, stroke, stroke_width);
      return;
    case Marker::Diamond: {
      const double s = r * 1.25;
      svg.path("M" + pt(x, y - s) + " L" + pt(x + s, y) + " L" + pt(x, y + s) + " L" + pt(x - s, y) + " Z",
               fill, stroke, stroke_width);
      return;
    }
    case Marker::Hexagon: {
      std::string d;
      for (int i = 0; i < 6; ++i) {
        const double ang = (60.0 * i - 90) * std::numbers::pi / 180;
        d += (i ? " L" : "M") + pt(x + 1.1 * r * std::cos(ang), y + 1.1 * r * std::sin(ang));
      }
      svg.path(d + " Z", fill, stroke, stroke_width);
      return;
    }
  }
}

SeriesStyle class_style(std::string_view module_class, size_t& fallbacks_used) {
  for (const ClassEntry& c : kClasses)
    if (c.name == module_class) return {std::string(c.color), c.marker};
  const ClassEntry& c = kFallback[fallbacks_used++ % kFallback.size()];
  return {std::string(c.color), c.marker};
}

double draw_legend(diagram::Svg& svg, double x, double y, double width,
                   const std::vector<LegendEntry>& entries, double font, std::string_view heading) {
  if (entries.empty()) return 0;
  const double row = font * 1.65, pad = 8, swatch = 24;
  const double head = heading.empty() ? 0 : row;
  const double h = pad * 2 + head + row * static_cast<double>(entries.size()) - (row - font * 1.2);
  svg.rect(x, y, width, h, "#ffffff", "#cccccc", 3, 0.8);
  double cy = y + pad + font * 0.6;
  if (!heading.empty()) {
    svg.fit(x + pad, cy + font * 0.36, width - 2 * pad, heading, TextStyle{font, kInk, true});
    cy += row;
  }
  for (const LegendEntry& e : entries) {
    const double sx = x + pad, mid = sx + swatch / 2;
    switch (e.kind) {
      case LegendEntry::Kind::LineMarker:
        svg.line(sx, cy, sx + swatch, cy, e.color, 1.6);
        draw_marker(svg, e.marker, mid, cy, font * 0.32, e.color);
        break;
      case LegendEntry::Kind::Bar:
        svg.rect(sx + 4, cy - font * 0.45, swatch - 8, font * 0.9, e.color, "none");
        break;
      case LegendEntry::Kind::Ring:
        svg.circle(mid, cy, font * 0.45, "none", e.color, 1.6);
        break;
      case LegendEntry::Kind::DashedLine:
        svg.line(sx, cy, sx + swatch, cy, e.color, 1.4, true);
        break;
    }
    svg.fit(sx + swatch + 6, cy + font * 0.36, width - 2 * pad - swatch - 6, e.label,
            TextStyle{font, kInk, false, Anchor::Start, font * 0.8});
    cy += row;
  }
  return h;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

double median_abs_deviation(const std::vector<double>& v, double med) {
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - med));
  return median(std::move(dev));
}

std::vector<size_t> robust_outliers(const std::vector<double>& v, const OutlierRule& rule) {
  std::vector<size_t> idx;  // the finite values
  for (size_t i = 0; i < v.size(); ++i)
    if (std::isfinite(v[i])) idx.push_back(i);
  std::vector<size_t> out;
  const size_t n = idx.size();
  if (n < std::max<size_t>(rule.min_count, 1)) return out;
  std::vector<double> y;
  for (size_t i : idx) y.push_back(v[i]);
  const double global = median(y);
  std::vector<double> base(n, global), resid(n);
  for (size_t k = 0; k < n; ++k) {
    if (rule.half_window > 0) {
      // The window keeps its width at the ends (shifted inwards), so that an end point has as many
      // neighbours.
      const size_t width = std::min(n, 2 * rule.half_window + 1);
      const size_t a = std::min(k >= rule.half_window ? k - rule.half_window : 0, n - width);
      const size_t b = a + width;
      std::vector<size_t> nb;
      for (size_t j = a; j < b; ++j)
        if (j != k) nb.push_back(j);
      std::vector<double> slopes;
      for (size_t p = 0; p < nb.size(); ++p)
        for (size_t q = p + 1; q < nb.size(); ++q)
          slopes.push_back((y[nb[q]] - y[nb[p]]) / static_cast<double>(nb[q] - nb[p]));
      const double slope = slopes.empty() ? 0 : median(std::move(slopes));
      std::vector<double> at_k;  // each neighbour carried along the line to k
      for (size_t j : nb) at_k.push_back(y[j] + slope * (static_cast<double>(k) - static_cast<double>(j)));
      base[k] = at_k.empty() ? y[k] : median(std::move(at_k));
    }
    resid[k] = y[k] - base[k];
  }
  const double centre = median(resid);
  const double spread = 1.4826 * median_abs_deviation(resid, centre);
  for (size_t k = 0; k < n; ++k) {
    const double floor = rule.rel_floor * std::fabs(base[k]) + rule.abs_floor;
    const double s = std::max(spread, floor);
    const double dev = std::fabs(resid[k] - centre);
    if (s > 0 ? dev > rule.z * s : dev > 1e-9 * std::max(std::fabs(base[k]), 1e-30)) out.push_back(idx[k]);
  }
  return out;
}

std::string ellipsize_middle(std::string_view text, double size, bool bold, double max_width) {
  if (diagram::text_width(text, size, bold) <= max_width) return std::string(text);
  const double budget = max_width - diagram::text_width("\u2026", size, bold);
  if (budget <= 0) return "\u2026";
  // Code points as [begin, end) byte ranges.
  std::vector<std::pair<size_t, size_t>> cps;
  for (size_t i = 0; i < text.size();) {
    size_t end = i + 1;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    cps.emplace_back(i, end);
    i = end;
  }
  const auto width_of = [&](const std::pair<size_t, size_t>& cp) {
    return diagram::text_width(text.substr(cp.first, cp.second - cp.first), size, bold);
  };
  double used = 0;
  size_t head = 0;
  while (head < cps.size() && used + width_of(cps[head]) <= budget * 0.4) used += width_of(cps[head++]);
  size_t tail = cps.size();
  while (tail > head && used + width_of(cps[tail - 1]) <= budget) used += width_of(cps[--tail]);
  const size_t head_bytes = head ? cps[head - 1].second : 0;
  const size_t tail_byte = tail < cps.size() ? cps[tail].first : text.size();
  return std::string(text.substr(0, head_bytes)) + "\u2026" + std::string(text.substr(tail_byte));
}

void fit_middle(diagram::Svg& svg, double x, double y, double max_width, std::string_view text,
                const diagram::TextStyle& style) {
  TextStyle st = style;
  const double floor = style.min_size > 0 ? std::min(style.min_size, style.size) : style.size;
  while (st.size > floor && diagram::text_width(text, st.size, st.bold) > max_width)
    st.size = std::max(floor, st.size - 0.5);
  svg.text(x, y, ellipsize_middle(text, st.size, st.bold, max_width), st);
}

}  // namespace ma::plot
