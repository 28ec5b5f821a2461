// End-to-end: a simulator config as our own estimates read it (seed 003's human checkpoints): build-config's
// config read back by `perf --config` and `serve --config` gives the figures of the model it was built
// from; a hand edit (fewer KV heads) moves them as the edit says; and MODEL with --config, or a config whose
// layers cannot be rebuilt, is refused. The rebuilding itself: unit/simulator_config_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_test_support.h"
#include "core/json.h"

namespace ma::test {
namespace {

json::Document json_of(const CommandResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::Document::parse(r.out, "stdout");
}

std::filesystem::path built_config(const std::string& name, const TempDir& dir) {
  auto data = shared_data();
  const std::filesystem::path out = dir / (name + ".json");
  const CommandResult r = run_cli("build-config " + quoted(*data / "hf-configs" / name) + " --out " +
                                  quoted(out) + " --gaps " + quoted(dir / "gaps") + " -q");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 11) << r.err;  // 11: a published claim disagrees
  return out;
}

// Dense, windowed, MoE and gpt-oss's sinks with alternating windows: the rebuilt model is the model, so
// every figure of the step is the same (weights in bf16: a config carries no storage dtype).
TEST(SimulatorConfigCli, PerfAndServeOnABuiltConfigEqualTheModel) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  TempDir dir;
  for (const char* name : {"meta-llama__Meta-Llama-3.1-8B", "HuggingFaceH4__zephyr-7b-beta",
                           "mistralai__Mixtral-8x7B-Instruct-v0.1", "openai__gpt-oss-120b"}) {
    const std::filesystem::path config = built_config(name, dir);
    const std::string model = quoted(*data / "hf-configs" / name);
    const std::string step = " --hw h200 --batch 16 --kv-len 6000 --tp 2 --dtype bf16 --json";
    const json::Document a = json_of(run_cli("perf --config " + quoted(config) + step));
    const json::Document b = json_of(run_cli("perf " + model + step));
    for (const char* key : {"t_est_s", "bytes_weights", "bytes_kv", "flops_theory", "bytes_net"})
      EXPECT_DOUBLE_EQ(a.root().find(key)->as_double(), b.root().find(key)->as_double())
          << name << " " << key;
    const std::string load = " --hw h200 --tp 2 --precision bf16 --concurrency 32 --sweep 32 --json";
    const json::Document s = json_of(run_cli("serve --config " + quoted(config) + load));
    const json::Document t = json_of(run_cli("serve " + model + load));
    for (const char* key :
         {"mean_tpot_s", "mean_ttft_s", "throughput_tokens_per_s_per_gpu", "kv_cache_tokens"})
      EXPECT_DOUBLE_EQ(s.root().find(key)->as_double(), t.root().find(key)->as_double())
          << name << " " << key;
  }
}

// Halving the KV heads by hand halves the cache a decode step reads.
TEST(SimulatorConfigCli, AHandEditMovesTheEstimate) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  TempDir dir;
  const std::filesystem::path config = built_config("meta-llama__Meta-Llama-3.1-8B", dir);
  std::string text = read_file(config);
  const size_t at = text.find("\"num_kv_heads\": 8");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 17, "\"num_kv_heads\": 4");
  const std::filesystem::path edited = dir / "edited.json";
  std::ofstream(edited) << text;
  const std::string step = " --batch 8 --kv-len 4000 --json";
  const double before =
      json_of(run_cli("perf --config " + quoted(config) + step)).root().find("bytes_kv")->as_double();
  const double after =
      json_of(run_cli("perf --config " + quoted(edited) + step)).root().find("bytes_kv")->as_double();
  EXPECT_DOUBLE_EQ(after, before / 2);
}

TEST(SimulatorConfigCli, ModelWithConfigOrAnUnrebuildableConfigIsRefused) {
  TempDir dir;
  const std::filesystem::path mla = dir / "mla.json";
  std::ofstream(mla)
      << R"({"hidden_size":64,"num_layers":1,"vocab_size":10,"layer_types":[)"
      << R"({"name":"mla","class":"MLAAttentionLayer","count":1,"supported":false,"specs":{}}]})";
  CommandResult both = run_cli("perf " + example() + " --config " + quoted(mla));
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_NE(both.err.find("--config"), std::string::npos) << both.err;
  CommandResult refused = run_cli("serve --config " + quoted(mla));
  EXPECT_EQ(refused.exit_code, 10) << refused.err;
  EXPECT_NE(refused.err.find("layer_types[0]"), std::string::npos) << refused.err;
  CommandResult missing = run_cli("perf");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

}  // namespace
}  // namespace ma::test
