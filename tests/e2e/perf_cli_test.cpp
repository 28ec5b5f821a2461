// End-to-end: `modelanalyzer perf` on the built-in example writes the issue's JSON fields, the Markdown
// study and the roofline plot, and names the known chips when --hw is wrong. The model itself:
// unit/perf_model_test.cpp.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "core/json.h"

namespace ma::test {
namespace {

TEST(PerfCli, JsonCarriesTheIssuesFieldsAndReportAndPlotAreWritten) {
  TempDir dir;
  CommandResult r = run_cli("perf " + example() + " --hw h200 --batch 16 --json --report " +
                            quoted(dir / "perf.md") + " --plot " + quoted(dir / "roofline.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "perf");
  for (const char* key :
       {"t_est_s", "t_comp_s", "t_hbm_s", "t_net_s", "regime", "flops_theory", "flops_realizable",
        "bytes_hbm", "ai_hbm", "mfu_est", "tokens_per_s", "inputs", "knobs", "hardware", "ops", "capacity"})
    EXPECT_NE(d.root().find(key), nullptr) << key;
  EXPECT_TRUE(d.root().find("capacity")->find("fits")->as_bool());
  const json::Value& op = d.root().find("ops")->items().at(0);
  for (const char* key : {"t_est_s", "t_comp_s", "t_hbm_s", "t_net_s", "regime", "flops_theory",
                          "flops_realizable", "bytes_hbm", "ai_hbm", "m_eff", "eta_tc"})
    EXPECT_NE(op.find(key), nullptr) << key;
  EXPECT_EQ(d.root().find("inputs")->find("batch")->as_uint(), 16u);
  const std::string md = read_file(dir / "perf.md");
  for (const char* section : {"## 1. Architecture Overview", "## 2. Analytical Model", "## 3. Roofline",
                              "## 4. Sensitivity", "## 5. Architectural Limits"})
    EXPECT_NE(md.find(section), std::string::npos) << section;
  EXPECT_NE(read_file(dir / "roofline.svg").find("<svg"), std::string::npos);
  CommandResult bad = run_cli("perf " + example() + " --hw no-such-chip");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("h200-measured"), std::string::npos) << "the error lists the known chips";
}

// Seed 001's report controls: the roofline draws the step the tables show (its chip and dtype) unless asked
// for others, its axes and labels obey --roofline-x/-y/-labels, --b-sat sets the tensor-core saturation the
// model uses, and --sensitivity sizes the knob grid; the console's MFU names the peak it divides by.
TEST(PerfCli, ReportControlsOfSeedOne) {
  TempDir dir;
  const std::string perf = "perf " + example() + " --hw h200";
  ASSERT_EQ(run_cli(perf + " --plot " + quoted(dir / "r.svg")).exit_code, 0);
  const std::string svg = read_file(dir / "r.svg");
  EXPECT_NE(svg.find("H200 SXM 141 GB \u00b7 BF16"), std::string::npos) << "the example computes in bf16";
  EXPECT_EQ(svg.find("FP8"), std::string::npos);
  EXPECT_EQ(svg.find("B200"), std::string::npos) << "one panel: the --hw chip";
  ASSERT_EQ(
      run_cli(perf + " --roofline-labels none --roofline-x 1,10 --plot " + quoted(dir / "n.svg")).exit_code,
      0);
  const std::string none = read_file(dir / "n.svg");
  EXPECT_NE(none.find("at most 0 per panel"), std::string::npos);
  EXPECT_NE(none.find("outside the axis limits not drawn"), std::string::npos)
      << "elementwise ops sit below AI 1";
  auto json = [&](const std::string& extra) {
    CommandResult r = run_cli(perf + " --json " + extra);
    EXPECT_EQ(r.exit_code, 0) << extra << ": " << r.err;
    return json::Document::parse(r.out, extra);
  };
  EXPECT_DOUBLE_EQ(json("--b-sat 128").root().find("hardware")->find("b_sat")->as_double(), 128.0);
  EXPECT_EQ(json("--sensitivity small").root().find("study")->find("sensitivity")->items().size(), 4u);
  EXPECT_EQ(json("--sensitivity large").root().find("study")->find("sensitivity")->items().size(), 72u);
  EXPECT_NE(run_cli(perf).out.find("of P_peak 989.4 TFLOP/s (bf16, h200)"), std::string::npos);
  EXPECT_EQ(run_cli(perf + " --roofline-x 5,1").exit_code, 2);
  EXPECT_EQ(run_cli(perf + " --sensitivity huge").exit_code, 2);
}

// A chip --plot-hw does not know is named as --plot-hw's (it was blamed on --hw, which was right).
TEST(PerfCli, AnUnknownPlotChipNamesPlotHw) {
  TempDir dir;
  const CommandResult r =
      run_cli("perf " + example() + " --hw h200 --plot-hw no-such-chip --plot " + quoted(dir / "r.svg"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--plot-hw: unknown hardware 'no-such-chip'"), std::string::npos) << r.err;
}

// ChatGLM names its decoder layers "transformer.encoder.layers": a decode step streams them all. It was timed
// as the LM head alone (533 MB: 6,113 tokens/s for a 6.2B model on one H100, 14 times what HBM allows).
TEST(PerfCli, ADecoderStackNamedEncoderIsStreamedEveryToken) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const CommandResult r =
      run_cli("perf " + quoted(*data / "hf-configs" / "THUDM__chatglm2-6b") + " --hw h100-sxm --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "perf");
  // Its config: 28 layers of hidden 4096, QKV 4096 x (4096 + 2 x 2 groups x 128), dense 4096 x 4096, a gated
  // MLP 4096 x 2 x 13,696 and 13,696 x 4096: 203.9M weights a layer, 11.4 GB in bf16 over the 28.
  const double layer_weight_bytes =
      28.0 * 2 * (4096.0 * 4608 + 4096.0 * 4096 + 4096.0 * 2 * 13696 + 13696.0 * 4096);
  EXPECT_GT(d.root().find("bytes_weights")->as_double(), layer_weight_bytes);
  const double hbm_bytes_per_s = d.root().find("hardware")->find("hbm_gbps")->as_double() * 1e9;
  EXPECT_LT(d.root().find("tokens_per_s")->as_double(), hbm_bytes_per_s / layer_weight_bytes);
}

}  // namespace
}  // namespace ma::test
