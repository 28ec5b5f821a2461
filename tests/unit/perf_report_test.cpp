// The efficiency study's renderers (report/roofline_plot.h, report/perf_report.h) on hand-built PerfResults
// (a two-op model on a hand-made accelerator, values derived by hand below): the roofline SVG is well formed,
// marks and labels the ridge, shades both regions, draws every point and places labels without overlaps;
// roofline_points aggregates by group; the Markdown has every section, the worked example's formulas with
// the right numbers, the sweep rows, the sensitivity grid and the limits.
#include "report/perf_report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "report/diagram_canvas.h"
#include "report/diagram_png.h"
#include "report/roofline_plot.h"
#include "svg_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

// A hand-made accelerator: BF16 1000 TFLOP/s, FP8 2000, HBM 4000 GB/s. Ridges: BF16 1000e12 / 4000e9 = 250,
// FP8 2000e12 / 4000e9 = 500 FLOP/byte.
Hardware test_chip() {
  Hardware hw;
  hw.name = "testchip";
  hw.description = "Test accelerator 80 GB";
  hw.peak_tflops[static_cast<int>(ComputeDType::FP32)] = 50;
  hw.peak_tflops[static_cast<int>(ComputeDType::BF16)] = 1000;
  hw.peak_tflops[static_cast<int>(ComputeDType::FP8)] = 2000;
  hw.hbm_gbps = 4000;
  hw.hbm_gb = 80;
  hw.interconnect_gbps = 500;
  hw.b_sat = 64;
  hw.source = "hand-made for the test";
  return hw;
}

// A second chip for the side-by-side plot: FP8 4000 TFLOP/s, HBM 8000 GB/s, ridge 500 as well.
Hardware big_chip() {
  Hardware hw = test_chip();
  hw.name = "bigchip";
  hw.description = "Bigger test accelerator";
  hw.peak_tflops[static_cast<int>(ComputeDType::BF16)] = 2000;
  hw.peak_tflops[static_cast<int>(ComputeDType::FP8)] = 4000;
  hw.hbm_gbps = 8000;
  return hw;
}

// Times and totals the way seed 001 defines them (P_peak = BF16 1000 TFLOP/s, as the inputs are BF16).
void finish(PerfResult& r) {
  const double peak = 1000e12, bw = 4000e9, net = 500e9;
  OpCost& t = r.total;
  t = OpCost{};
  t.name = "step";
  t.kind = "total";
  double sum = 0;
  for (OpCost& o : r.ops) {
    o.t_comp = o.flops_realizable / peak;
    o.t_hbm = o.bytes_hbm() / bw;
    o.t_net = o.bytes_net / net;
    o.t_est = std::max({o.t_comp, o.t_hbm, o.t_net});
    o.regime = o.t_est == o.t_comp ? "compute" : o.t_est == o.t_hbm ? "memory" : "network";
    sum += o.t_est;
    t.flops_theory += o.flops_theory;
    t.flops_tensorcore += o.flops_tensorcore;
    t.flops_realizable += o.flops_realizable;
    t.bytes_weights += o.bytes_weights;
    t.bytes_activations += o.bytes_activations;
    t.bytes_kv += o.bytes_kv;
    t.bytes_temporary += o.bytes_temporary;
    t.bytes_net += o.bytes_net;
    t.kernels += o.kernels;
    t.t_comp += o.t_comp;
    t.t_hbm += o.t_hbm;
    t.t_net += o.t_net;
  }
  r.overhead_s = t.kernels * r.hardware.kernel_overhead_s;
  t.t_est = sum + r.overhead_s;
  t.regime = t.t_comp >= t.t_hbm && t.t_comp >= t.t_net ? "compute"
             : t.t_hbm >= t.t_net                       ? "memory"
                                                        : "network";
  r.tokens = static_cast<double>(r.inputs.batch);
  r.tf_est = t.flops_theory / t.t_est / 1e12;
  r.tf_roofline_hbm = std::min(peak, bw * t.ai_hbm()) / 1e12;
  r.p_effective = peak * t.flops_theory / t.flops_realizable / 1e12;
  r.mfu_est = t.flops_theory / (peak * t.t_est);
  r.tokens_per_s = r.tokens / t.t_est;
}

OpCost gemm(uint32_t layer, double scale) {
  OpCost o;
  o.name = "layers." + std::to_string(layer) + ".mlp.up_proj";
  o.kind = "gemm";
  o.layer = layer;
  o.m_eff = 128;
  o.eta_tc = 1;
  o.flops_theory = o.flops_tensorcore = o.flops_realizable = 4e12 * scale;
  o.bytes_weights = 8e9;
  o.bytes_activations = 1e9 * scale;
  o.kernels = 1;
  return o;
}

OpCost attention(uint32_t layer, double scale) {
  OpCost o;
  o.name = "layers." + std::to_string(layer) + ".attention";
  o.kind = "attention";
  o.layer = layer;
  o.m_eff = 1;
  o.eta_tc = 1.0 / 64;
  o.flops_theory = 1e11 * scale;
  o.flops_tensorcore = 0.8e11 * scale;
  o.flops_realizable = 5.32e12 * scale;  // 0.8e11 * 64 + 0.2e11 / 0.1 (eta_scalar)
  o.bytes_activations = 1e9 * scale;
  o.bytes_kv = 3e10 * scale;
  o.bytes_temporary = 1e9 * scale;
  o.kernels = 1;
  return o;
}

// Decode, B = 128 (scale 1), L = 255, BF16. By hand:
//   up_proj:   F 4e12, bytes 8e9 + 1e9 = 9e9; T_comp 4e12/1e15 = 4 ms, T_hbm 9e9/4e12 = 2.25 ms -> compute
//   attention: F 1e11, bytes 1e9 + 3e10 + 1e9 = 3.2e10; T_comp 5.32 ms, T_hbm 8 ms -> memory
//   step: F 4.1e12, bytes_hbm 4.1e10, AI_hbm 100; T_comp 9.32 ms, T_hbm 10.25 ms (memory);
//   T_est = 4 + 8 = 12 ms; TF_est = 4.1e12 / 0.012 / 1e12 = 341.7; TF_roofline_hbm = min(1000, 400) = 400;
//   P_effective = 1000 * 4.1e12 / 9.32e12 = 439.9; MFU = 4.1e12 / (1e15 * 0.012) = 34.17%;
//   tokens/s = 128 / 0.012 = 10667.
PerfResult decode(uint64_t batch = 128, const std::string& profile = "naive", uint32_t layers = 1) {
  PerfResult r;
  r.inputs.mode = PerfMode::Decode;
  r.inputs.batch = batch;
  r.inputs.kv_len = 255;
  r.inputs.knobs.profile = profile;
  if (profile == "efficient") {
    r.inputs.knobs.wrf_attention = 4;
    r.inputs.knobs.wrf_dense = 4;
    r.inputs.knobs.wrf_moe = 2;
    r.inputs.knobs.act_fusion = 0.5;
    r.inputs.knobs.elementwise = 0.7;
    r.inputs.knobs.flash_attention = true;
  }
  r.hardware = test_chip();
  const double scale = static_cast<double>(batch) / 128;
  for (uint32_t l = 0; l < layers; ++l) {
    r.ops.push_back(gemm(l, scale));
    r.ops.push_back(attention(l, scale));
  }
  r.assumptions = {"hand-made test model"};
  finish(r);
  return r;
}

using test::contains;
using test::expect_well_formed_svg;

struct TextBox {
  std::string text;
  double x0, y0, x1, y1;
};

// The boxes of the <text> elements in `part` (estimated widths, as the renderer estimates them).
std::vector<TextBox> text_boxes(const std::string& part) {
  std::vector<TextBox> out;
  static const std::regex text(
      "<text x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" "
      "font-size=\"([0-9.]+)\"[^>]*?(text-anchor=\"(\\w+)\")?>([^<]*)</text>");
  for (auto it = std::sregex_iterator(part.begin(), part.end(), text); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]), f = std::stod((*it)[3]);
    const std::string anchor = (*it)[5], s = (*it)[6];
    const double w = diagram::text_width(s, f);
    const double x0 = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
    out.push_back({s, x0, y - f * 0.8, x0 + w, y + f * 0.25});
  }
  return out;
}

TEST(RooflinePointsTest, AggregatesOpsIntoGroupsAndTheStep) {
  const std::vector<RooflinePoint> pts = roofline_points(decode());
  ASSERT_EQ(pts.size(), 3u);
  // attention: 1e11 / 3.2e10 = 3.125 FLOP/B, 1e11 / 8 ms = 12.5 TFLOP/s, memory-bound.
  EXPECT_EQ(pts[0].label, "attention");
  EXPECT_DOUBLE_EQ(pts[0].ai, 3.125);
  EXPECT_DOUBLE_EQ(pts[0].tflops, 12.5);
  EXPECT_EQ(pts[0].regime, "memory");
  // dense GEMMs: 4e12 / 9e9 = 444.4 FLOP/B, 4e12 / 4 ms = 1000 TFLOP/s, compute-bound.
  EXPECT_EQ(pts[1].label, "dense GEMMs");
  EXPECT_NEAR(pts[1].ai, 444.444, 1e-3);
  EXPECT_NEAR(pts[1].tflops, 1000, 1e-9);
  EXPECT_EQ(pts[1].regime, "compute");
  // The step: AI 100, TF_est 341.67, memory.
  EXPECT_EQ(pts[2].label, "whole step");
  EXPECT_TRUE(pts[2].total);
  EXPECT_NEAR(pts[2].ai, 100, 1e-9);
  EXPECT_NEAR(pts[2].tflops, 341.667, 1e-3);
  EXPECT_EQ(pts[2].regime, "memory");
}

TEST(RooflinePlotTest, TwoChipsWithRidgeShadingPointsAndLegend) {
  const PerfResult base = decode();
  const std::vector<RooflineSeries> chips = {{test_chip(), ComputeDType::FP8, roofline_points(base)},
                                             {big_chip(), ComputeDType::FP8, roofline_points(base)}};
  const std::string svg = render_roofline_svg(chips, "Roofline \u2014 test model <decode>");
  expect_well_formed_svg(svg);
  EXPECT_TRUE(contains(svg, "Roofline \u2014 test model &lt;decode&gt;"));
  EXPECT_EQ(test::occurrences(svg, "<g class=\"panel\">"), 2u);
  // Ridges: 2000e12 / 4000e9 = 500 FLOP/B at 2000 TFLOP/s; 4000e12 / 8000e9 = 500 at 4000.
  EXPECT_TRUE(contains(svg, ">ridge 500 FLOP/B, 2000 TFLOP/s</text>"));
  EXPECT_TRUE(contains(svg, ">ridge 500 FLOP/B, 4000 TFLOP/s</text>"));
  EXPECT_TRUE(contains(svg, ">FP8 peak 2000 TFLOP/s</text>"));
  EXPECT_TRUE(contains(svg, ">HBM 4 TB/s</text>"));
  // Both regions shaded in each panel, and named.
  for (size_t p = 0; p < 2; ++p) {
    const std::string regions = test::svg_group(svg, "regions", p);
    EXPECT_EQ(test::occurrences(regions, "<rect "), 2u);
    EXPECT_TRUE(contains(regions, "fill=\"#fdf0e1\""));
    EXPECT_TRUE(contains(regions, "fill=\"#e6f0f8\""));
    const std::string names = test::svg_group(svg, "region-names", p);
    EXPECT_TRUE(contains(names, ">memory-bound<"));
    EXPECT_TRUE(contains(names, ">compute-bound<"));
    // Three points: two ops (a circle for compute, a square for memory) and the step (a diamond path).
    const std::string points = test::svg_group(svg, "points", p);
    EXPECT_EQ(test::occurrences(points, "<circle "), 1u);
    EXPECT_EQ(test::occurrences(points, "<rect "), 1u);
    EXPECT_EQ(test::occurrences(points, "<path "), 1u);
    const std::string labels = test::svg_group(svg, "point-labels", p);
    EXPECT_TRUE(contains(labels, ">attention<"));
    EXPECT_TRUE(contains(labels, ">dense GEMMs<"));
    EXPECT_TRUE(contains(labels, ">whole step<"));
  }
  // Decade ticks: 10^-1 .. 10^5 on x (powers of ten beyond the plain range).
  EXPECT_TRUE(contains(svg, ">10\u2075</text>"));
  EXPECT_TRUE(contains(svg, ">10\u207b\u00b9</text>"));
  const std::string legend = test::svg_group(svg, "legend");
  EXPECT_TRUE(contains(legend, "compute-bound op"));
  EXPECT_TRUE(contains(legend, "memory-bound op"));
  EXPECT_TRUE(contains(legend, "whole step"));
  EXPECT_TRUE(contains(legend, "memory-bound region"));
  EXPECT_FALSE(contains(legend, "network-bound op"));  // no such point
}

TEST(RooflinePlotTest, ManyClusteredPointsGetAtMostTwelveLabelsThatDoNotOverlap) {
  std::vector<RooflinePoint> pts;
  for (int i = 0; i < 40; ++i) {
    RooflinePoint p;
    p.label = "layers." + std::to_string(i) + ".mlp.down_proj";
    p.ai = 20 + i * 0.7;  // a tight cluster on the memory side
    p.tflops = 30 + i * 0.5;
    p.regime = i % 3 ? "memory" : "compute";
    p.flops = 1e9 * (i + 1);  // the last ones are the largest
    pts.push_back(p);
  }
  pts.push_back({"zero FLOPs", 0, 0, "memory", 0, false});
  const std::string svg = render_roofline_svg({{test_chip(), ComputeDType::FP8, pts}}, "Crowded");
  expect_well_formed_svg(svg);
  const std::vector<TextBox> boxes = text_boxes(test::svg_group(svg, "point-labels"));
  EXPECT_GE(boxes.size(), 4u);
  EXPECT_LE(boxes.size(), 12u);
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const bool overlap = boxes[i].x0 < boxes[j].x1 && boxes[j].x0 < boxes[i].x1 &&
                           boxes[i].y0 < boxes[j].y1 && boxes[j].y0 < boxes[i].y1;
      EXPECT_FALSE(overlap) << boxes[i].text << " overlaps " << boxes[j].text;
    }
  // The largest op by FLOPs is labelled; the smallest is not.
  EXPECT_TRUE(contains(svg, ">layers.39.mlp.down_proj<"));
  EXPECT_FALSE(contains(svg, ">layers.0.mlp.down_proj<"));
  // 40 markers drawn, the zero-FLOP point left out and said so.
  const std::string points = test::svg_group(svg, "points");
  EXPECT_EQ(test::occurrences(points, "<circle ") + test::occurrences(points, "<rect "), 40u);
  std::string caption;
  for (const TextBox& line : text_boxes(test::svg_group(svg, "caption"))) caption += line.text + " ";
  EXPECT_TRUE(contains(caption, "1 point(s) without FLOPs or bytes not drawn")) << caption;
}

TEST(RooflinePlotTest, EmptyInputAndPng) {
  const std::string empty = render_roofline_svg({}, "");
  expect_well_formed_svg(empty);
  EXPECT_TRUE(contains(empty, "No accelerator to draw a roofline for."));
  const std::string svg =
      render_roofline_svg({{test_chip(), ComputeDType::FP8, roofline_points(decode())}}, "PNG check");
  const std::string png = render_diagram_png(svg, 1200);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

PerfSweeps sweeps() {
  PerfSweeps s;
  s.model_id = "test/two-op";
  s.roofline_plot = "two-op-roofline.png";
  for (const char* profile : {"naive", "efficient"})
    for (uint64_t b : {1, 128}) s.decode_batch_sweep.push_back(decode(b, profile));
  s.worked_example = decode(128);
  for (double wrf : {1.0, 4.0})
    for (bool flash : {false, true}) {
      PerfResult r = decode(128);
      r.inputs.knobs.wrf_dense = wrf;
      r.inputs.knobs.flash_attention = flash;
      r.ops[0].bytes_weights /= wrf;
      if (flash) r.ops[1].bytes_temporary = 0;
      finish(r);
      if (wrf > 1) r.assumptions.push_back("weight residency bounded by on-chip memory: the test's bound");
      s.sensitivity.push_back(r);
    }
  PerfResult train = decode(8);
  train.inputs.mode = PerfMode::Train;
  train.inputs.seq = 4096;
  PerfResult prefill = decode(4);
  prefill.inputs.mode = PerfMode::Prefill;
  prefill.inputs.seq = 2048;
  s.limits = {train, prefill, decode(128)};
  return s;
}

TEST(PerfReportTest, HasEverySectionInOrder) {
  const std::string md = render_perf_markdown(decode(), sweeps());
  const std::vector<std::string> headings = {"# Performance analysis: test/two-op",
                                             "## 1. Architecture Overview",
                                             "## 2. Analytical Model (FLOPs, Bytes, Time)",
                                             "## 3. Roofline Analysis",
                                             "### 3.1 Decode batch sweep",
                                             "### 3.2 Worked example (decode, B=128, L=255, naive)",
                                             "## 4. Sensitivity Analysis",
                                             "## 5. Architectural Limits",
                                             "## 6. Execution / Kernel Assumptions",
                                             "## Appendix A: Detailed Derivations"};
  EXPECT_EQ(md.rfind(headings[0] + "\n", 0), 0u);
  size_t at = 0;
  for (size_t i = 1; i < headings.size(); ++i) {
    const std::string& h = headings[i];
    const size_t found = md.find("\n" + h + "\n", at);
    ASSERT_NE(found, std::string::npos) << h;
    at = found + 1;
  }
  EXPECT_TRUE(contains(md, "| Source | hand-made for the test |"));
  EXPECT_TRUE(contains(md, "| P_peak (BF16) | 1000 TFLOP/s |"));
  EXPECT_TRUE(contains(md, "| Ridge OI_knee = P_peak / BW_hbm | 250 FLOP/byte |"));
  EXPECT_TRUE(
      contains(md,
               "![Roofline: attained TFLOP/s against arithmetic intensity, one panel per accelerator; "
               "roof = min(P_peak, BW_hbm x AI), ridge marked, regions shaded](<two-op-roofline.png>)"));
  EXPECT_TRUE(contains(md, "Figure: `two-op-roofline.png`"));
  EXPECT_TRUE(contains(md, "- hand-made test model"));
  // Appendix derivations as formulas: the causal half and the network terms.
  EXPECT_TRUE(contains(md, "S(S+1)/2"));
  EXPECT_TRUE(contains(md, "F_MoE = B * S * top_k * 6 * H * d_moe"));
  EXPECT_TRUE(contains(md, "2 * (tp - 1) / tp"));
  EXPECT_TRUE(contains(md, "EP all-to-all"));
  EXPECT_TRUE(contains(md, "PP point-to-point"));
}

TEST(PerfReportTest, StepTotalsAndPerOpRows) {
  const std::string md = render_perf_markdown(decode(), sweeps());
  // The per-op row of up_proj: M_eff 128, eta 1, F 4e12 x3, bytes 8e9 / 1e9 / 0 / 0 / 0, AI_w 4e12/8e9 = 500,
  // AI_hbm = AI_total = 4e12/9e9 = 444.4, T_comp 4 ms, T_hbm 2.25 ms.
  EXPECT_TRUE(
      contains(md,
               "| layers.0.mlp.up_proj | gemm | 128 | 1 | 4e12 | 4e12 | 4e12 | 8e9 | 1e9 | 0 | 0 | 0 | "
               "500 | 444.4 | 444.4 | 4 ms | 2.25 ms | 0 s | 4 ms | compute |"));
  EXPECT_TRUE(contains(md, "| step total | total | - | - | 4.1e12 | 4.08e12 | 9.32e12 |"));
  EXPECT_TRUE(contains(md, "| TF_est = F_theory / T_est | 341.7 TFLOP/s |"));
  EXPECT_TRUE(contains(md, "| TF_roofline_hbm = min(P_peak, BW_hbm x AI_hbm) | 400 TFLOP/s |"));
  EXPECT_TRUE(contains(md, "| MFU_est = F_theory / (P_peak x T_est) | 34.17% |"));
  EXPECT_TRUE(contains(md, "| Tokens/s | 10667 |"));
  EXPECT_TRUE(contains(md, "| P_effective = P_peak x F_theory / F_realizable | 439.9 TFLOP/s"));
}

TEST(PerfReportTest, RepeatedLayersShowOnceWithTotalsPerKind) {
  const std::string md = render_perf_markdown(decode(128, "naive", 6), PerfSweeps{});
  EXPECT_TRUE(contains(md, "layer 0 stands for layers 0-5"));
  EXPECT_TRUE(contains(md, "| layers.0.attention |"));
  EXPECT_FALSE(contains(md, "| layers.3.attention |"));
  // 6 layers: F_theory of all GEMMs 6 x 4e12 = 2.4e13.
  EXPECT_TRUE(contains(md, "| all gemm (6 ops) | gemm | - | - | 2.4e13 |"));
  EXPECT_TRUE(contains(md, "| all attention (6 ops) | attention |"));
  EXPECT_TRUE(contains(md, "No decode batch sweep was computed."));
  EXPECT_TRUE(contains(md, "No sensitivity grid was computed."));
}

TEST(PerfReportTest, WorkedExampleShowsFormulasWithSubstitutedValues) {
  const std::string md = render_perf_markdown(decode(), sweeps());
  EXPECT_TRUE(contains(md, "AI_hbm = F_theory / bytes_hbm = 4.1e12 / 4.1e10 = 100 FLOP/B\n"));
  EXPECT_TRUE(contains(md,
                       "bytes_hbm = bytes_weights + bytes_activations + bytes_kv + bytes_temporary = "
                       "8e9 + 2e9 + 3e10 + 1e9 = 4.1e10 B\n"));
  EXPECT_TRUE(contains(md,
                       "OI_knee = P_peak * 1e12 / (BW_hbm * 1e9) = 1000e12 / 4000e9 = 250 FLOP/B  ->  "
                       "AI_hbm < OI_knee: memory side of the roofline\n"));
  EXPECT_TRUE(
      contains(md, "T_comp = F_realizable / (P_peak * 1e12) = 9.32e12 / (1000 * 1e12) = 0.00932 s\n"));
  EXPECT_TRUE(contains(md, "T_hbm = bytes_hbm / (BW_hbm * 1e9) = 4.1e10 / (4000 * 1e9) = 0.01025 s\n"));
  // The step is the sum of the ops' times (4 ms + 8 ms), no overhead on this chip.
  EXPECT_TRUE(
      contains(md, "T_est = sum_i max(T_comp,i, T_hbm,i, T_net,i) + T_overhead = 0.012 + 0 = 0.012 s"));
  EXPECT_TRUE(contains(md, "regime = argmax{T_comp, T_hbm, T_net} = argmax{0.00932, 0.01025, 0} = memory\n"));
  EXPECT_TRUE(contains(md, "TF_est = F_theory / T_est / 1e12 = 4.1e12 / 0.012 / 1e12 = 341.7 TFLOP/s\n"));
  EXPECT_TRUE(contains(md,
                       "TF_roofline_hbm = min(P_peak, BW_hbm * 1e9 * AI_hbm / 1e12) = "
                       "min(1000, 4000 * 1e9 * 100 / 1e12) = 400 TFLOP/s\n"));
  EXPECT_TRUE(contains(md,
                       "MFU_est = F_theory / (P_peak * 1e12 * T_est) = 4.1e12 / (1000 * 1e12 * 0.012) = "
                       "34.17%\n"));
  EXPECT_TRUE(contains(md, "tokens/s = tokens / T_est = 128 / 0.012 = 10667"));
}

TEST(PerfReportTest, SweepSensitivityAndLimitsRows) {
  const std::string md = render_perf_markdown(decode(), sweeps());
  // B = 1 scales FLOPs and activation/KV bytes by 1/128 (weights stay): F 3.203e10; bytes 8e9 + 2.5e8/...
  // The B=128 row is the base case by hand (see decode()).
  EXPECT_TRUE(
      contains(md, "| naive | 128 | 255 | 4.1e12 | 4.1e10 | 100 | 341.7 | 400 | 12 ms | memory | 10667 |"));
  EXPECT_TRUE(contains(md, "| efficient | 128 | 255 | 4.1e12 |"));
  EXPECT_TRUE(contains(md, "| naive | 1 | 255 | 3.2e10 |"));  // 4.1e12 / 128 = 3.203e10
  // naive rows come before efficient ones, B ascending within each.
  EXPECT_LT(md.find("| naive | 1 | 255 |"), md.find("| naive | 128 | 255 |"));
  EXPECT_LT(md.find("| naive | 128 | 255 |"), md.find("| efficient | 1 | 255 |"));
  // Sensitivity: 4 rows; WRF dense 4 with flash: weights 2e9, temporaries 0: T_hbm(up) 0.75 ms < T_comp 4 ms,
  // attention 3.1e10 / 4e12 = 7.75 ms; T_est 11.75 ms; step T_hbm 3.5e10 / 4e12 = 8.75 ms < T_comp 9.32 ms.
  EXPECT_TRUE(contains(md, "| 4 | decode B=128, L=255 | 1 | 4 | 1 | 1 | 1 | flash | 11.75 ms | compute |"));
  // Rows 2 and 4 tie (the GEMM stays compute-bound whatever its WRF): the first is named.
  EXPECT_TRUE(contains(md, "Fastest: row 2 (T_est 11.75 ms, memory-bound); slowest: row 1 (T_est 12 ms"));
  // The rows whose WRF the on-chip bound overruled are named with the bound (seed 001's W / WRF holds only
  // for what fits on chip).
  EXPECT_TRUE(contains(md,
                       "Rows 3, 4 stream more weight bytes than W / WRF: weight residency bounded by "
                       "on-chip memory: the test's bound (row 3's figures)."));
  // Limits: one row per mode with its binding resource.
  EXPECT_TRUE(contains(md, "| train | B=8, S=4096 |"));
  EXPECT_TRUE(contains(md, "| prefill | B=4, S=2048 |"));
  EXPECT_TRUE(contains(md,
                       "| decode | B=128, L=255 | 100 | 250 | 9.32 ms | 10.25 ms | 0 s | 12 ms | memory | "
                       "HBM bandwidth |"));
  // Execution assumptions table: the seed's knobs with this run's and both profiles' values.
  EXPECT_TRUE(contains(md, "| WRF attn/dense/moe | 1/1/1 | 1/1/1 | 4/4/2 |"));
  EXPECT_TRUE(contains(md, "| act fusion | 1 | 1 | 0.5 |"));
  EXPECT_TRUE(contains(md, "| attention bytes | naive | naive | flash |"));
}

TEST(RooflinePlotTest, ChipWithoutThePeakDrawsNoRoof) {
  // The test chip has no FP4 peak: the panel says so, shades nothing as compute-bound and draws no ridge.
  const std::string svg =
      render_roofline_svg({{test_chip(), ComputeDType::FP4, roofline_points(decode())}}, "FP4");
  expect_well_formed_svg(svg);
  EXPECT_TRUE(contains(svg, "no FP4 peak or HBM bandwidth for this accelerator: no roof drawn"));
  EXPECT_EQ(test::occurrences(test::svg_group(svg, "regions"), "<rect "), 1u);
  EXPECT_EQ(test::svg_group(svg, "roofline"), "");
  EXPECT_FALSE(contains(test::svg_group(svg, "ridge"), "<text"));
}

TEST(PerfReportTest, EmptyResultRendersWithoutNumbersInvented) {
  PerfResult r;
  r.hardware = test_chip();
  const std::string md = render_perf_markdown(r, PerfSweeps{});
  EXPECT_TRUE(contains(md, "# Performance analysis: model\n"));
  EXPECT_TRUE(contains(md, "| step total |  | - | - | 0 |"));
  EXPECT_TRUE(contains(md, "No worked example was computed"));
  EXPECT_TRUE(contains(md, "No training / prefill / decode limits were computed."));
  EXPECT_FALSE(contains(md, "nan"));
}

}  // namespace
}  // namespace ma
