// The weight-statistics plots (report/stats_plots.h, report/drift_plot.h) and their shared axes
// (report/plot_axes.h): well-formed SVG for real-looking and degenerate inputs, one panel per tensor up to
// the limit and a footnote beyond, tick labels, outlier layers ringed and numbered, flagged layers
// highlighted, and PNG output through librsvg.
#include "report/stats_plots.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>
#include <vector>

#include "report/diagram_canvas.h"
#include "report/diagram_png.h"
#include "report/drift_plot.h"
#include "report/plot_axes.h"
#include "svg_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

using test::expect_well_formed_svg;
using test::png_size;

std::string unescape(std::string s) {
  static const std::vector<std::pair<std::string, std::string>> kEntities = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
  for (const auto& [entity, ch] : kEntities)
    for (size_t at = s.find(entity); at != std::string::npos; at = s.find(entity, at + ch.size()))
      s.replace(at, entity.size(), ch);
  return s;
}

struct Text {
  std::string s;
  double size = 0;
  bool bold = false;
};

// Every <text> element: its text (unescaped), font size and weight.
std::vector<Text> text_elements(const std::string& svg) {
  std::vector<Text> out;
  static const std::regex text("<text ([^>]*)>([^<]*)</text>");
  static const std::regex size("font-size=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[1];
    std::smatch m;
    Text t{unescape((*it)[2]), 0, attrs.find("font-weight=\"bold\"") != std::string::npos};
    if (std::regex_search(attrs, m, size)) t.size = std::stod(m[1]);
    out.push_back(t);
  }
  return out;
}

std::vector<std::string> texts(const std::string& svg) {
  std::vector<std::string> out;
  for (const Text& t : text_elements(svg)) out.push_back(t.s);
  return out;
}

bool has_text(const std::string& svg, const std::string& s) {
  for (const std::string& t : texts(svg))
    if (t == s) return true;
  return false;
}

bool text_contains(const std::string& svg, const std::string& s) {
  for (const std::string& t : texts(svg))
    if (t.find(s) != std::string::npos) return true;
  return false;
}

// A tensor with a normal histogram of `bins` bins over mean ± 5 sd.
TensorStats normal_tensor(const std::string& name, std::optional<uint32_t> layer, ModuleClass cls,
                          uint64_t rows, uint64_t cols, double sd, uint32_t bins = 64) {
  TensorStats t;
  t.name = name;
  t.dtype = DType::BF16;
  t.shape = {rows, cols};
  t.numel = rows * cols;
  t.finite = t.numel;
  t.layer = layer;
  t.module_class = cls;
  t.std = sd;
  t.var = sd * sd;
  t.min = -5 * sd;
  t.max = 5 * sd;
  t.abs_max = 5 * sd;
  for (uint32_t i = 0; i <= bins; ++i) t.histogram.edges.push_back(t.min + (t.max - t.min) * i / bins);
  for (uint32_t i = 0; i < bins; ++i) {
    const double a = t.histogram.edges[i] / sd, b = t.histogram.edges[i + 1] / sd;
    const double p = 0.5 * (std::erf(b / std::sqrt(2.0)) - std::erf(a / std::sqrt(2.0)));
    t.histogram.counts.push_back(static_cast<uint64_t>(std::llround(p * static_cast<double>(t.numel))));
  }
  return t;
}

// A Llama-like checkpoint: `layers` layers of q/k/v/o, gate/up/down and two norms; smooth per-layer trends,
// and in `outlier_layer` a q_proj with twice the std (and so twice the abs max).
WeightStats llama_like(uint32_t layers, std::optional<uint32_t> outlier_layer) {
  WeightStats s;
  s.model_id = "test/llama-like";
  s.bins = 64;
  s.tensors.push_back(
      normal_tensor("model.embed_tokens.weight", std::nullopt, ModuleClass::Embedding, 32000, 512, 0.02));
  for (uint32_t l = 0; l < layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const double x = static_cast<double>(l) / std::max<uint32_t>(1, layers - 1);
    const double wiggle = 1 + 0.01 * std::sin(l * 1.7);  // small, deterministic layer-to-layer noise
    const double q = (0.03 - 0.01 * x) * wiggle * (outlier_layer == l ? 2.0 : 1.0);
    s.tensors.push_back(normal_tensor(p + "self_attn.q_proj.weight", l, ModuleClass::QProj, 512, 512, q));
    s.tensors.push_back(
        normal_tensor(p + "self_attn.k_proj.weight", l, ModuleClass::KProj, 128, 512, 0.032 * wiggle));
    s.tensors.push_back(
        normal_tensor(p + "self_attn.v_proj.weight", l, ModuleClass::VProj, 128, 512, 0.01 + 0.005 * x));
    s.tensors.push_back(
        normal_tensor(p + "self_attn.o_proj.weight", l, ModuleClass::OProj, 512, 512, 0.012 * wiggle));
    s.tensors.push_back(
        normal_tensor(p + "mlp.gate_proj.weight", l, ModuleClass::Mlp, 1376, 512, 0.02 * wiggle));
    s.tensors.push_back(
        normal_tensor(p + "mlp.up_proj.weight", l, ModuleClass::Mlp, 1376, 512, 0.018 * wiggle));
    s.tensors.push_back(
        normal_tensor(p + "mlp.down_proj.weight", l, ModuleClass::Mlp, 512, 1376, 0.018 * wiggle));
    TensorStats norm =
        normal_tensor(p + "input_layernorm.weight", l, ModuleClass::Norm, 1, 512, 0.05 + 0.02 * x);
    norm.shape = {512};
    s.tensors.push_back(norm);
  }
  s.tensors.push_back(normal_tensor("lm_head.weight", std::nullopt, ModuleClass::Output, 32000, 512, 0.02));
  return s;
}

// --- the shared axes
// -----------------------------------------------------------------------------------------

TEST(PlotAxesTest, TickLabelsAreCompactAndUseTheTypographicMinus) {
  EXPECT_EQ(plot::tick_label(-0.05, 0.05, 0.1), "\u22120.05");
  EXPECT_EQ(plot::tick_label(0.1, 0.05, 0.1), "0.1");
  EXPECT_EQ(plot::tick_label(1e-18, 0.05, 0.1), "0");
  EXPECT_EQ(plot::tick_label(2e-4, 1e-4, 2e-4), "2e\u22124");
  EXPECT_EQ(plot::tick_label(-2.5e-4, 2.5e-4, 5e-4), "\u22122.5e\u22124");
  EXPECT_EQ(plot::tick_label(1.5e6, 5e5, 2e6), "1.5e6");
  EXPECT_EQ(plot::tick_label(250, 50, 300), "250");
  EXPECT_EQ(plot::compact(0.021345), "0.0213");
  EXPECT_EQ(plot::compact(-1.234e-5), "\u22121.23e\u22125");
  EXPECT_EQ(plot::compact(0), "0");
  EXPECT_EQ(plot::compact(std::nan("")), "NaN");
  EXPECT_EQ(plot::si_count(950), "950");
  EXPECT_EQ(plot::si_count(12000), "12k");
  EXPECT_EQ(plot::si_count(1.3e6), "1.3M");
  EXPECT_EQ(plot::si_count(4.2e18), "4200P");
  EXPECT_EQ(plot::power_of_ten(-4), "10\u207b\u2074");
}

TEST(PlotAxesTest, LinearTicksAreNiceAndWithinTheRange) {
  const std::vector<plot::Tick> t = plot::linear_ticks(-0.31, 0.29, 5);
  ASSERT_GE(t.size(), 3u);
  ASSERT_LE(t.size(), 5u);
  std::vector<std::string> labels;
  for (const plot::Tick& k : t) {
    EXPECT_GE(k.value, -0.31);
    EXPECT_LE(k.value, 0.29);
    labels.push_back(k.label);
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"\u22120.2", "0", "0.2"}));
  // Layer indices: whole steps only, even for a narrow range.
  for (const plot::Tick& k : plot::linear_ticks(0, 3, 12, true)) EXPECT_EQ(k.value, std::round(k.value));
  // Degenerate ranges give one tick, not a crash.
  EXPECT_EQ(plot::linear_ticks(1, 1, 5).size(), 1u);
  EXPECT_TRUE(plot::linear_ticks(0, std::nan(""), 5).empty());
}

TEST(PlotAxesTest, LogTicksLabelDecadesIncludingOne) {
  std::vector<std::string> labels;
  for (const plot::Tick& t : plot::log_ticks(0.5, 3e6, 4))
    if (!t.label.empty()) labels.push_back(t.label);
  // Seven decades: every other one labelled, all in the same form.
  EXPECT_EQ(labels, (std::vector<std::string>{"10\u2070", "10\u00b2", "10\u2074", "10\u2076"}));
  labels.clear();
  for (const plot::Tick& t : plot::log_ticks(0.05, 200, 6))
    if (!t.label.empty()) labels.push_back(t.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"0.1", "1", "10", "100"}));
  // Under two decades: 1-2-5 ticks.
  labels.clear();
  for (const plot::Tick& t : plot::log_ticks(0.1, 1, 6))
    if (!t.label.empty()) labels.push_back(t.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"0.1", "0.2", "0.5", "1"}));
}

TEST(PlotAxesTest, FittedTicksNeverOverlap) {
  plot::Scale s;
  s.lo = -1.234e-4;
  s.hi = 1.234e-4;
  s.p0 = 0;
  s.p1 = 120;  // narrow: long e-notation labels must thin out
  const std::vector<plot::Tick> ticks = plot::fitted_ticks(s, true, 10, 5);
  double prev_right = -1e9;
  size_t labelled = 0;
  for (const plot::Tick& t : ticks) {
    if (t.label.empty()) continue;
    ++labelled;
    const double half = diagram::text_width(t.label, 10) / 2;
    EXPECT_GT(s(t.value) - half, prev_right) << t.label;
    prev_right = s(t.value) + half;
  }
  EXPECT_GE(labelled, 2u);
}

TEST(PlotAxesTest, RobustOutliersFindASpikeOnASlopeButNotTheSlopesEnds) {
  std::vector<double> v;
  for (int i = 0; i < 40; ++i) v.push_back(1.0 + 0.05 * i + 0.002 * std::sin(i * 2.1));
  v[23] += 0.5;
  plot::OutlierRule local;
  local.half_window = 4;
  EXPECT_EQ(plot::robust_outliers(v, local), (std::vector<size_t>{23}));
  // Against the global median a slope's ends stand out and the spike does not.
  const std::vector<size_t> global = plot::robust_outliers(v);
  EXPECT_EQ(std::count(global.begin(), global.end(), size_t{23}), 0);
  // Too few values: nothing; NaN is skipped.
  EXPECT_TRUE(plot::robust_outliers({1, 1, 9}).empty());
  std::vector<double> with_nan = {1, 1.01, 0.99, 1, std::nan(""), 1.02, 5, 1, 0.98};
  EXPECT_EQ(plot::robust_outliers(with_nan), (std::vector<size_t>{6}));
  // A series smooth to rounding error flags nothing when a floor is set.
  std::vector<double> smooth;
  for (int i = 0; i < 30; ++i) smooth.push_back(0.05 + 1e-3 * i + 1e-13 * std::sin(i * 1.3));
  local.rel_floor = 0.01;
  EXPECT_TRUE(plot::robust_outliers(smooth, local).empty());
}

TEST(PlotAxesTest, EllipsizeMiddleKeepsBothEndsAndFits) {
  const std::string name = "model.layers.31.self_attn.some_very_long_module_name.lora_A.default.weight";
  const std::string cut = plot::ellipsize_middle(name, 11, true, 150);
  EXPECT_LE(diagram::text_width(cut, 11, true), 150);
  EXPECT_NE(cut.find("\u2026"), std::string::npos);
  EXPECT_EQ(cut.rfind("model.", 0), 0u);
  EXPECT_EQ(cut.substr(cut.size() - 7), ".weight");
  EXPECT_EQ(plot::ellipsize_middle("short", 11, false, 150), "short");
}

// --- the distribution grid
// -----------------------------------------------------------------------------------

TEST(DistributionGridTest, OnePanelPerTensorWithNamesTicksAndStats) {
  WeightStats s = llama_like(2, std::nullopt);
  s.tensors.resize(10);
  const std::string svg = render_distribution_grid_svg(s);
  expect_well_formed_svg(svg);
  EXPECT_EQ(test::occurrences(svg, "<g class=\"panel\">"), 10u);
  EXPECT_EQ(test::occurrences(svg, "<g class=\"footnote\">"), 0u);
  EXPECT_TRUE(text_contains(svg, "test/llama-like"));
  EXPECT_TRUE(text_contains(svg, "10 tensors"));
  EXPECT_TRUE(text_contains(svg, "log scale"));
  for (const TensorStats& t : s.tensors) EXPECT_TRUE(has_text(svg, t.name)) << t.name;
  // The q_proj of layer 0 spans ±0.15: ticks at −0.1, 0, 0.1 (and maybe ±0.05); counts on decades.
  const std::string q = test::svg_group(svg, "panel", 1);
  ASSERT_TRUE(has_text(q, "model.layers.0.self_attn.q_proj.weight"));
  EXPECT_TRUE(has_text(q, "\u22120.1"));
  EXPECT_TRUE(has_text(q, "0"));
  EXPECT_TRUE(has_text(q, "0.1"));
  EXPECT_TRUE(has_text(q, "1"));
  EXPECT_TRUE(has_text(q, "10k"));
  EXPECT_TRUE(has_text(q, "mean 0"));
  EXPECT_TRUE(has_text(q, "std 0.03"));
  EXPECT_TRUE(has_text(q, "min \u22120.15"));
  EXPECT_TRUE(has_text(q, "max 0.15"));
  // x tick labels: the texts below the plot area, 3 to 5 of them.
  static const std::regex xtick("text-anchor=\"middle\">([^<]*)</text>");
  const auto n_x = std::distance(std::sregex_iterator(q.begin(), q.end(), xtick), std::sregex_iterator());
  EXPECT_GE(n_x, 3);
  EXPECT_LE(n_x, 5);
  // No NaN line for clean tensors.
  EXPECT_FALSE(text_contains(svg, "NaN"));
  // Four columns for ten panels: the grid is 4 × 250 px wide plus margins.
  EXPECT_NE(svg.find("width=\"1056\""), std::string::npos);
}

TEST(DistributionGridTest, ShowsTheLargestTensorsInCheckpointOrderAndSaysHowManyWereLeftOut) {
  WeightStats s;
  s.model_id = "many";
  for (int i = 0; i < 40; ++i)
    s.tensors.push_back(normal_tensor("t" + std::to_string(i), std::nullopt, ModuleClass::Other,
                                      16 + (i * 7) % 40, 64, 0.02));
  const std::string svg = render_distribution_grid_svg(s, 12);
  expect_well_formed_svg(svg);
  EXPECT_EQ(test::occurrences(svg, "<g class=\"panel\">"), 12u);
  EXPECT_TRUE(text_contains(test::svg_group(svg, "footnote"), "12 largest of 40 tensors"));
  EXPECT_TRUE(text_contains(test::svg_group(svg, "footnote"), "28 tensors not shown"));
  // Exactly the 12 largest, in checkpoint order.
  std::vector<size_t> idx(40);
  for (size_t i = 0; i < 40; ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return s.tensors[a].numel > s.tensors[b].numel; });
  std::set<size_t> want(idx.begin(), idx.begin() + 12);
  size_t last_pos = 0;
  for (size_t i = 0; i < 40; ++i) {
    const size_t pos = svg.find(">t" + std::to_string(i) + "</text>");
    EXPECT_EQ(pos != std::string::npos, want.count(i) == 1) << "t" << i;
    if (pos == std::string::npos) continue;
    EXPECT_GT(pos, last_pos);
    last_pos = pos;
  }
  // Six columns from 26 panels on; zero panels is a figure with a footnote only.
  EXPECT_NE(render_distribution_grid_svg(s, 30).find("width=\"1556\""), std::string::npos);
  const std::string none = render_distribution_grid_svg(s, 0);
  expect_well_formed_svg(none);
  EXPECT_EQ(test::occurrences(none, "<g class=\"panel\">"), 0u);
  EXPECT_TRUE(text_contains(none, "40 tensors not shown"));
}

TEST(DistributionGridTest, DegenerateTensorsAreDrawnWithoutCrashing) {
  WeightStats s;
  s.model_id = "edge <&> \"cases\"";
  // Constant: numpy-style edges all equal, every value in the first bin.
  TensorStats c;
  c.name = "constant.weight";
  c.shape = {4096};
  c.numel = c.finite = 4096;
  c.mean = c.min = c.max = c.abs_max = 1;
  c.histogram.edges.assign(65, 1.0);
  c.histogram.counts.assign(64, 0);
  c.histogram.counts[0] = 4096;
  s.tensors.push_back(c);
  // Constant as the scanner bins it (numpy): edges over [v - 0.5, v + 0.5], all in the middle bin.
  TensorStats c2 = c;
  c2.name = "numpy_constant.weight";
  c2.mean = c2.min = c2.max = c2.abs_max = 0.25;
  c2.histogram.edges.clear();
  for (int i = 0; i <= 64; ++i) c2.histogram.edges.push_back(-0.25 + i / 64.0);
  c2.histogram.counts.assign(64, 0);
  c2.histogram.counts[32] = 4096;
  s.tensors.push_back(c2);
  // NaN only: no finite values, all counts zero.
  TensorStats n;
  n.name = "nan.weight";
  n.shape = {64, 64};
  n.numel = 4096;
  n.nan_count = 4000;
  n.inf_count = 96;
  n.histogram.edges.assign(65, 0.0);
  n.histogram.counts.assign(64, 0);
  s.tensors.push_back(n);
  // Tiny values, a very long name, huge counts, no histogram at all, an empty tensor.
  TensorStats tiny =
      normal_tensor(std::string(300, 'x') + ".weight", 0, ModuleClass::QProj, 4096, 4096, 2e-5);
  tiny.nan_count = 3;
  s.tensors.push_back(tiny);
  TensorStats huge =
      normal_tensor("huge.weight", std::nullopt, ModuleClass::Embedding, 1000000, 1000000, 3e4);
  s.tensors.push_back(huge);
  TensorStats bare = normal_tensor("bare.weight", std::nullopt, ModuleClass::Other, 10, 10, 1);
  bare.histogram = {};
  s.tensors.push_back(bare);
  TensorStats empty;
  empty.name = "empty.weight";
  empty.shape = {0};
  s.tensors.push_back(empty);

  const std::string svg = render_distribution_grid_svg(s);
  expect_well_formed_svg(svg);
  EXPECT_EQ(test::occurrences(svg, "<g class=\"panel\">"), 7u);
  EXPECT_TRUE(text_contains(svg, "edge <&> \"cases\""));
  EXPECT_NE(svg.find("edge &lt;&amp;&gt; &quot;cases&quot;"), std::string::npos);
  const std::string constant = test::svg_group(svg, "panel", 0);
  EXPECT_TRUE(has_text(constant, "constant"));
  EXPECT_TRUE(has_text(constant, "1"));  // the tick at the constant
  EXPECT_TRUE(has_text(constant, "std 0"));
  const std::string numpy_constant = test::svg_group(svg, "panel", 1);
  EXPECT_TRUE(has_text(numpy_constant, "constant"));
  EXPECT_TRUE(has_text(numpy_constant, "max 0.25"));
  EXPECT_FALSE(has_text(test::svg_group(svg, "panel", 3), "constant"));
  const std::string nan = test::svg_group(svg, "panel", 2);
  EXPECT_EQ(test::occurrences(nan, "no finite values"), 2u);  // in the plot and in the stats box
  EXPECT_TRUE(has_text(nan, "NaN 4k \u00b7 Inf 96"));
  const std::string small = test::svg_group(svg, "panel", 3);
  EXPECT_TRUE(has_text(small, "1e\u22124") || has_text(small, "5e\u22125")) << small;
  EXPECT_TRUE(has_text(small, "NaN 3"));
  for (const Text& t : text_elements(small))
    EXPECT_LE(diagram::text_width(t.s, t.size, t.bold), 238.0) << t.s;
  const std::string big = test::svg_group(svg, "panel", 4);
  EXPECT_TRUE(text_contains(big, "e5"));
  EXPECT_TRUE(text_contains(big, "G") || text_contains(big, "T")) << "SI count ticks";
  EXPECT_TRUE(has_text(test::svg_group(svg, "panel", 5), "no histogram"));
  // Linear counts are labelled as such.
  const std::string lin = render_distribution_grid_svg(s, 36, false);
  expect_well_formed_svg(lin);
  EXPECT_FALSE(text_contains(lin, "log scale"));
  EXPECT_TRUE(has_text(lin, "count"));

  const std::string none = render_distribution_grid_svg(WeightStats{});
  expect_well_formed_svg(none);
  EXPECT_EQ(test::occurrences(none, "<g class=\"panel\">"), 0u);
  EXPECT_TRUE(has_text(none, "No tensors to plot."));
}

// --- the layer trends
// ------------------------------------------------------------------------------------------

TEST(LayerTrendsTest, OneSeriesPerClassAndTheOutlierLayerRingedAndNumbered) {
  const std::string svg = render_layer_trends_svg(llama_like(32, 17));
  expect_well_formed_svg(svg);
  const std::string legend = test::svg_group(svg, "legend");
  for (const char* cls : {"q_proj", "k_proj", "v_proj", "o_proj", "mlp", "norm"})
    EXPECT_TRUE(has_text(legend, cls));
  // Tensors outside the stack are not plotted.
  EXPECT_FALSE(has_text(legend, "embedding"));
  EXPECT_FALSE(has_text(legend, "output"));
  EXPECT_EQ(test::occurrences(svg, "<polyline "), 12u);  // 6 classes × 2 panels

  const std::string std_panel = test::svg_group(svg, "panel std"),
                    abs_panel = test::svg_group(svg, "panel abs-max");
  for (const std::string* panel : {&std_panel, &abs_panel}) {
    const std::string rings = test::svg_group(*panel, "outliers");
    EXPECT_EQ(test::occurrences(rings, "<circle "), 1u) << rings;
    EXPECT_EQ(test::occurrences(rings, "stroke=\"" + plot::kOutlier + "\""), 1u);
    EXPECT_EQ(texts(rings), std::vector<std::string>{"17"});
  }
  EXPECT_TRUE(text_contains(test::svg_group(svg, "caption"), "std: 17 (q_proj)"));
  // Axes: layer ticks, titles, log scale for abs max.
  EXPECT_TRUE(has_text(abs_panel, "layer index"));
  EXPECT_TRUE(has_text(abs_panel, "30"));
  EXPECT_TRUE(has_text(abs_panel, "abs max (log scale)"));
  EXPECT_TRUE(has_text(std_panel, "std"));

  // Without the outlier nothing is ringed.
  const std::string clean = render_layer_trends_svg(llama_like(32, std::nullopt));
  EXPECT_EQ(test::occurrences(test::svg_group(test::svg_group(clean, "panel std"), "outliers"), "<circle "),
            0u);
  EXPECT_EQ(
      test::occurrences(test::svg_group(test::svg_group(clean, "panel abs-max"), "outliers"), "<circle "),
      0u);
}

TEST(LayerTrendsTest, EdgeCasesStayWellFormed) {
  // One layer: points, no outliers, ticks only at that layer.
  const std::string one = render_layer_trends_svg(llama_like(1, std::nullopt));
  expect_well_formed_svg(one);
  EXPECT_EQ(test::occurrences(test::svg_group(test::svg_group(one, "panel std"), "outliers"), "<circle "),
            0u);
  EXPECT_FALSE(has_text(test::svg_group(one, "panel abs-max"), "\u22121"));
  EXPECT_TRUE(has_text(test::svg_group(one, "panel abs-max"), "0"));
  // 200 layers with an outlier at 120.
  const std::string many = render_layer_trends_svg(llama_like(200, 120));
  expect_well_formed_svg(many);
  EXPECT_TRUE(has_text(test::svg_group(test::svg_group(many, "panel std"), "outliers"), "120"));
  // Nothing in the layer stack.
  const std::string none = render_layer_trends_svg(WeightStats{});
  expect_well_formed_svg(none);
  EXPECT_TRUE(has_text(none, "No per-layer tensors to plot."));
  // A lone class, a NaN-only tensor, and a long model id.
  WeightStats odd = llama_like(6, std::nullopt);
  odd.model_id = std::string(400, 'm');
  odd.tensors[3].module_class = ModuleClass::Vision;  // a class no other tensor of the plot has
  odd.tensors[5].finite = 0;
  odd.tensors[5].mean = std::nan("");
  const std::string o = render_layer_trends_svg(odd);
  expect_well_formed_svg(o);
  EXPECT_TRUE(has_text(test::svg_group(o, "legend"), "vision"));
  for (const std::string& t : texts(o))
    if (t.find("Per-layer weight statistics") == 0) {
      EXPECT_NE(t.find("\u2026"), std::string::npos);
      EXPECT_LE(diagram::text_width(t, 12, true), 1100 - 48);  // fitted at 12 px or more
    }
}

// --- the drift plot
// --------------------------------------------------------------------------------------------

WeightComparison drift(uint32_t layers, const std::vector<std::pair<uint32_t, uint32_t>>& flagged) {
  WeightComparison c;
  c.a = "base/model";
  c.b = "tuned/model";
  c.rel_l2_threshold = 0.05;
  for (uint32_t l = 0; l < layers; ++l) {
    LayerDrift d;
    d.layer = l;
    d.numel = 1000;
    d.rel_l2 = 0.01 + 0.0005 * l;
    for (const auto& [layer, n] : flagged)
      if (layer == l) {
        d.rel_l2 = 0.08;
        d.flagged = n;
      }
    d.cosine = 1 - d.rel_l2 * d.rel_l2 / 2;
    c.layers.push_back(d);
    for (uint32_t k = 0; k < 4; ++k) {
      TensorDrift t;
      t.name = "model.layers." + std::to_string(l) + ".t" + std::to_string(k);
      t.layer = l;
      t.flagged = k < d.flagged;
      c.tensors.push_back(t);
    }
  }
  LayerDrift rest;
  rest.rel_l2 = 0.002;
  rest.cosine = 0.999999;
  c.layers.push_back(rest);
  return c;
}

TEST(DriftPlotTest, FlaggedLayersAreHighlightedInBothPanels) {
  const std::string svg = render_drift_by_layer_svg(drift(12, {{3, 2}, {7, 1}, {9, 4}}));
  expect_well_formed_svg(svg);
  EXPECT_TRUE(has_text(svg, "base/model \u2192 tuned/model"));
  EXPECT_TRUE(text_contains(svg, "48 tensors compared, 7 flagged"));
  EXPECT_EQ(test::occurrences(svg, " flagged\">"), 3u);
  for (const auto& [layer, n] : std::vector<std::pair<uint32_t, uint32_t>>{{3, 2}, {7, 1}, {9, 4}}) {
    const std::string bar = test::svg_group(svg, "bar layer-" + std::to_string(layer) + " flagged");
    ASSERT_FALSE(bar.empty()) << layer;
    EXPECT_NE(bar.find("fill=\"" + plot::kVermillion + "\""), std::string::npos);
    EXPECT_TRUE(has_text(bar, std::to_string(n)));  // its count of flagged tensors
  }
  for (uint32_t layer : {0u, 1u, 2u, 4u, 11u}) {
    const std::string bar = test::svg_group(svg, "bar layer-" + std::to_string(layer));
    ASSERT_FALSE(bar.empty()) << layer;
    EXPECT_NE(bar.find("fill=\"" + plot::kBlue + "\""), std::string::npos);
  }
  EXPECT_FALSE(test::svg_group(svg, "bar layer-other").empty());
  // The 1 − cosine markers of flagged layers are vermillion too: 3 in the cosine panel.
  EXPECT_EQ(test::occurrences(test::svg_group(svg, "panel cosine"), "fill=\"" + plot::kVermillion + "\""),
            3u);
  // Threshold line, legend, axes, caption.
  EXPECT_NE(test::svg_group(svg, "panel rel-l2").find("stroke-dasharray"), std::string::npos);
  EXPECT_TRUE(has_text(test::svg_group(svg, "legend"), "rel. L2 threshold 0.05"));
  EXPECT_TRUE(has_text(test::svg_group(svg, "legend"), "layer with flagged tensors"));
  EXPECT_TRUE(has_text(svg, "other"));
  EXPECT_TRUE(has_text(svg, "10"));
  EXPECT_TRUE(text_contains(svg, "1 \u2212 cosine"));
  EXPECT_TRUE(text_contains(test::svg_group(svg, "caption"),
                            "Flagged layers (flagged tensors): 3 (2), 7 (1), 9 (4)"));

  const std::string clean = render_drift_by_layer_svg(drift(12, {}));
  EXPECT_EQ(test::occurrences(clean, " flagged\">"), 0u);
  EXPECT_FALSE(has_text(test::svg_group(clean, "legend"), "layer with flagged tensors"));
  EXPECT_TRUE(text_contains(clean, "No layer has flagged tensors."));
}

TEST(DriftPlotTest, EdgeCasesStayWellFormed) {
  const std::string none = render_drift_by_layer_svg(WeightComparison{});
  expect_well_formed_svg(none);
  EXPECT_TRUE(has_text(none, "A \u2192 B"));
  EXPECT_TRUE(has_text(none, "No tensors compared."));
  const std::string one = render_drift_by_layer_svg(drift(1, {{0, 1}}));
  expect_well_formed_svg(one);
  EXPECT_EQ(test::occurrences(one, " flagged\">"), 1u);
  const std::string many = render_drift_by_layer_svg(drift(200, {{150, 3}}));
  expect_well_formed_svg(many);
  EXPECT_FALSE(test::svg_group(many, "bar layer-150 flagged").empty());
  EXPECT_FALSE(test::svg_group(many, "bar layer-199").empty());
  // Identical checkpoints (1 − cosine = 0 everywhere), NaN drift, endless names.
  WeightComparison odd = drift(5, {});
  odd.a = std::string(300, 'a') + "<";
  odd.b = std::string(300, 'b') + "&";
  for (LayerDrift& d : odd.layers) d.cosine = 1;
  odd.layers[2].rel_l2 = std::nan("");
  const std::string o = render_drift_by_layer_svg(odd);
  expect_well_formed_svg(o);
  for (const std::string& t : texts(o))
    if (t.find("\u2192") != std::string::npos) {
      EXPECT_EQ(test::occurrences(t, "\u2026"), 2u);
      EXPECT_LE(diagram::text_width(t, 18, true), 1100 - 48);
    }
}

// --- PNG
// -------------------------------------------------------------------------------------------------------

TEST(StatsPlotsPngTest, AllThreePlotsRasterize) {
  const WeightStats s = llama_like(8, 5);
  const std::string grid = render_distribution_grid_svg(s, 12);
  // 12 panels: 4 columns (1056 px) by 3 rows.
  EXPECT_EQ(png_size(render_diagram_png(grid)).first, 1056u);
  EXPECT_EQ(png_size(render_diagram_png(grid, 2112)).first, 2112u);
  EXPECT_EQ(png_size(render_diagram_png(render_layer_trends_svg(s))).first, 1100u);
  EXPECT_EQ(png_size(render_diagram_png(render_drift_by_layer_svg(drift(8, {{2, 1}})))).first, 1100u);
}

}  // namespace
}  // namespace ma
