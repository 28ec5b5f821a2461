// End-to-end: `modelanalyzer serve` on the built-in example: the issue's JSON fields at the top level and in
// every sweep point, the console's figures equal to the JSON's, the Markdown and the picture written, and bad
// settings refused with exit 2 and no file. The estimate itself: unit/serve_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "cli_test_support.h"
#include "core/json.h"

namespace ma::test {
namespace {

TEST(ServeCli, JsonHasTheIssuesFieldsAndEveryOutputIsWritten) {
  TempDir dir;
  CommandResult r =
      run_cli("serve " + example() + " --hw h200 --tp 2 --concurrency 16 --sweep 1,4,16,64 --json" +
              " --markdown " + quoted(dir / "serve.md") + " --plot " + quoted(dir / "serve.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "serve");
  const json::Value& root = d.root();
  const char* keys[] = {"mean_ttft_s",
                        "mean_tpot_s",
                        "mean_itl_s",
                        "mean_e2el_s",
                        "throughput_tokens_per_s_per_gpu",
                        "output_tokens_per_s_per_gpu",
                        "input_tokens_per_s_per_gpu"};
  for (const char* key : keys) EXPECT_GT(root.find(key)->as_double(), 0) << key;
  const auto& sweep = root.find("sweep")->items();
  ASSERT_EQ(sweep.size(), 4u);
  for (const json::Value& p : sweep)
    for (const char* key : keys) EXPECT_GT(p.find(key)->as_double(), 0) << key;
  EXPECT_EQ(*sweep[2].find("concurrency")->as_uint(), 16u);
  // The load point and the sweep's point at the same concurrency are one estimate.
  EXPECT_DOUBLE_EQ(sweep[2].find("mean_tpot_s")->as_double(), root.find("mean_tpot_s")->as_double());
  const std::string md = read_file(dir / "serve.md");
  EXPECT_NE(md.find("## Concurrency sweep"), std::string::npos);
  EXPECT_NE(md.find("mean_tpot_s"), std::string::npos);
  const std::string svg = read_file(dir / "serve.svg");
  EXPECT_NE(svg.find("tokens/s per GPU"), std::string::npos);
  EXPECT_NE(svg.find(">c64<"), std::string::npos);

  // The console shows the JSON's figures, in ms to two decimals.
  CommandResult console =
      run_cli("serve " + example() + " --hw h200 --tp 2 --concurrency 16 --sweep 1,4,16,64");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  char tpot[32];
  std::snprintf(tpot, sizeof tpot, "%.2f ms", root.find("mean_tpot_s")->as_double() * 1e3);
  EXPECT_NE(console.out.find(std::string("mean_tpot_s               ") + tpot), std::string::npos)
      << console.out;
}

TEST(ServeCli, BadSettingsAreRefusedWithExit2AndNoFile) {
  TempDir dir;
  const std::string out = " --export " + quoted(dir / "serve.json");
  std::string too_many = " --sweep 1";  // 65 points: one more than a sweep may have
  for (int i = 0; i < 64; ++i) too_many += ",1";
  for (const std::string& bad :
       {std::string(" --ep 3 --tp 2"), std::string(" --precision fp2"), std::string(" --engine tgi"),
        std::string(" --sweep 4,,8"), std::string(" --isl 0"), std::string(" --hw nosuchchip"), too_many}) {
    CommandResult r = run_cli("serve " + example() + bad + out);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--"), std::string::npos) << bad << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "serve.json")) << bad;
  }
}

}  // namespace
}  // namespace ma::test
