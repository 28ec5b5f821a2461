// End-to-end: `modelanalyzer serve` on the built-in example: the issue's JSON fields at the top level and in
// every sweep point, the console's figures equal to the JSON's, the CSV's equal to the JSON's, the Markdown
// and the picture written, and bad settings refused with exit 2 and no file. The estimate itself:
// unit/serve_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "core/units.h"

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
  EXPECT_NE(console.out.find(std::string("mean_tpot_s                      ") + tpot), std::string::npos)
      << console.out;
  // Under the JSON's names: the requests at once are max_running, not a note on kv_cache_tokens; counts with
  // thousands separators; every value in one column, the longest name's included.
  EXPECT_NE(console.out.find("max_running                      " +
                             with_thousands(*root.find("max_running")->as_uint()) + " requests"),
            std::string::npos)
      << console.out;
  EXPECT_NE(console.out.find("throughput_tokens_per_s_per_gpu  " +
                             with_thousands(static_cast<uint64_t>(
                                 std::llround(root.find("throughput_tokens_per_s_per_gpu")->as_double())))),
            std::string::npos)
      << console.out;
}

// The CSV: a header of the JSON's point fields after `point`, then the load point and every sweep point,
// each cell the JSON's value (numbers round-trip: the same shortest form).
TEST(ServeCli, CsvHasTheJsonsFieldsAndValues) {
  TempDir dir;
  const std::string args = "serve " + example() + " --hw h200 --concurrency 16 --sweep 1,64";
  CommandResult r = run_cli(args + " --json --csv " + quoted(dir / "serve.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "serve");
  std::vector<const json::Value*> points{d.root().find("point")};
  for (const json::Value& p : d.root().find("sweep")->items()) points.push_back(&p);
  const std::string csv = read_file(dir / "serve.csv");
  std::vector<std::vector<std::string>> rows;
  for (size_t at = 0; at < csv.size();) {
    const size_t end = csv.find('\n', at);
    std::vector<std::string> cells;
    for (size_t c = at; c <= end;) {
      const size_t comma = std::min(csv.find(',', c), end);
      cells.push_back(csv.substr(c, comma - c));
      c = comma + 1;
    }
    rows.push_back(cells);
    at = end + 1;
  }
  ASSERT_EQ(rows.size(), 4u) << csv;  // header, load, 2 sweep points
  const auto& members = points[0]->members();
  ASSERT_EQ(rows[0].size(), members.size() + 1);
  EXPECT_EQ(rows[0][0], "point");
  for (size_t i = 0; i < members.size(); ++i) EXPECT_EQ(rows[0][i + 1], members[i].key);
  for (size_t row = 1; row < rows.size(); ++row) {
    EXPECT_EQ(rows[row][0], row == 1 ? "load" : "sweep");
    const auto& values = points[row - 1]->members();
    for (size_t i = 0; i < values.size(); ++i) {
      const json::Value& v = values[i].value;
      if (v.is_string())
        EXPECT_EQ(rows[row][i + 1], v.as_string()) << values[i].key;
      else if (v.is_null())  // a figure that is none (no decode at osl 1, no first round): an empty cell
        EXPECT_EQ(rows[row][i + 1], "") << values[i].key;
      else
        EXPECT_EQ(std::stod(rows[row][i + 1]), v.as_double()) << values[i].key;
    }
  }
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
  // A split the model cannot take names its flag once (the example has 4 heads).
  CommandResult r = run_cli("serve " + example() + " --tp 3" + out);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("error: --tp: 3 cannot split this model"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "serve.json"));
  // An --ep equal to --tp that the experts do not divide says so, as perf does (it said --ep must be 1 or
  // the tensor-parallel size, which it was). The tiny Mixtral has 4 experts and 4 heads.
  TempDir m;
  write_file(
      m / "config.json",
      R"({"model_type":"mixtral","architectures":["MixtralForCausalLM"],"hidden_size":64,)"
      R"("intermediate_size":64,"num_hidden_layers":1,"num_attention_heads":8,"num_key_value_heads":8,)"
      R"("num_local_experts":4,"num_experts_per_tok":2,"vocab_size":100,"torch_dtype":"bfloat16"})");
  // An encoder-only model: one line naming it, before any warning about the request's length.
  TempDir bert;
  write_file(
      bert / "config.json",
      R"({"model_type":"bert","architectures":["BertForMaskedLM"],"hidden_size":64,"num_hidden_layers":2,)"
      R"("num_attention_heads":4,"intermediate_size":128,"vocab_size":1000,"max_position_embeddings":128})");
  CommandResult encoder = run_cli("serve " + quoted(bert.path()) + out);
  EXPECT_EQ(encoder.exit_code, 2) << encoder.err;
  EXPECT_EQ(encoder.err, "modelanalyzer: error: " + bert.path().string() +
                             ": an encoder-only model generates no tokens to serve\n");
  CommandResult ep = run_cli("serve " + quoted(m.path()) + " --tp 8 --ep 8" + out);
  EXPECT_EQ(ep.exit_code, 2) << ep.err;
  EXPECT_NE(ep.err.find("--ep: 8 cannot split this model: 4 routed experts do not split evenly"),
            std::string::npos)
      << ep.err;
}

// A pure state-space model caches no token, only a state a request: its pool holds requests, and serve runs
// (it said "no room for a KV cache" on an H200 holding 180 KiB of weights).
TEST(ServeCli, APureStateSpaceModelIsServedFromItsStatePool) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const CommandResult r = run_cli("serve " + quoted(*data / "fixtures" / "tiny-mamba") + " --hw h200 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "serve");
  EXPECT_GT(d.root().find("max_running")->as_uint(), 0u);
}

}  // namespace
}  // namespace ma::test
