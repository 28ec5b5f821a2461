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
        "bytes_hbm", "ai_hbm", "mfu_est", "tokens_per_s", "inputs", "knobs", "hardware", "ops"})
    EXPECT_NE(d.root().find(key), nullptr) << key;
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

}  // namespace
}  // namespace ma::test
