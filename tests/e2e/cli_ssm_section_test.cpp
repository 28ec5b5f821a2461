// End-to-end: the report's state-space section states each Mamba / Mamba-2 / DeltaNet mixer's shape as the
// config gives it, in console and JSON under the same names.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "core/json.h"

namespace ma {
namespace {

uint64_t uint_at(const json::Value& v, std::string_view key) {
  const json::Value* f = v.find(key);
  return f && f->as_uint() ? *f->as_uint() : 0;
}

// Mamba-1 with time_step_rank "auto": dt rank ceil(hidden / 16), d_inner expand x hidden (MambaConfig).
TEST(CliSsmSection, MambaShapeFollowsTheConfig) {
  test::TempDir tmp;
  test::write_file(tmp / "config.json", R"({"model_type": "mamba", "architectures": ["MambaForCausalLM"],
    "hidden_size": 200, "num_hidden_layers": 3, "vocab_size": 1000, "state_size": 16, "expand": 2,
    "conv_kernel": 4, "time_step_rank": "auto", "torch_dtype": "float32"})");
  auto r = test::run_cli("'" + tmp.path().string() + "' --json --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  const json::Value* ssm = doc.root().find("ssm");
  ASSERT_TRUE(ssm && ssm->is_object()) << r.out.substr(0, 400);
  ASSERT_EQ(ssm->find("mixers")->items().size(), 1u);
  const json::Value& m = ssm->find("mixers")->items()[0];
  EXPECT_EQ(m.find("mixer")->as_string(), "mamba");
  EXPECT_EQ(uint_at(m, "num_layers"), 3u);
  EXPECT_EQ(uint_at(m, "d_state"), 16u);
  EXPECT_EQ(uint_at(m, "d_inner"), 400u);
  EXPECT_EQ(m.find("expand")->as_double(), 2.0);
  EXPECT_EQ(uint_at(m, "conv_kernel"), 4u);
  EXPECT_EQ(uint_at(m, "dt_rank"), 13u);  // ceil(200 / 16)
  EXPECT_TRUE(m.find("chunk_size")->is_null()) << "Mamba-1 has no chunked scan";
  EXPECT_TRUE(ssm->find("attention_layers")->items().empty());
  // LoRA on a model without attention: rank-16 pairs on each mixer's in_proj [800, 200], x_proj [13 + 2 x 16,
  // 400] and out_proj [200, 400]: 16 x (1000 + 445 + 600) = 32,720 per layer, 3 layers.
  EXPECT_EQ(uint_at(*doc.root().find("memory"), "lora_adapter_parameters"), 98160u);
  auto console = test::run_cli("'" + tmp.path().string() + "' --skip-tokenizer");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  for (const char* line : {"Mamba layers              3 of 3: 0-2", "d_state                 16",
                           "d_inner                 400 (2 x hidden)", "dt rank                 13"})
    EXPECT_NE(console.out.find(line), std::string::npos) << line << "\n" << console.out;
  // No attention: said once, no "heads unknown" or kernel lines under it.
  const size_t heading = console.out.find("ATTENTION MECHANISM\n");
  ASSERT_NE(heading, std::string::npos) << console.out;
  const std::string attention = console.out.substr(heading);
  EXPECT_EQ(attention.substr(0, attention.find("\n\n")),
            "ATTENTION MECHANISM\n  type                      none (Mamba state-space layers only)");
}

// A hybrid from the shared configs: every shape figure equals the config's own key, and the Mamba-2 and
// attention layers together are the config's pattern's M and * positions.
TEST(CliSsmSection, NemotronHybridEqualsItsConfig) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const auto dir = *data / "hf-configs" / "nvidia__Nemotron-H-56B-Base-8K";
  json::Limits lenient;
  lenient.allow_nonfinite = true;  // its time_step_limit holds Infinity, as Python's json.dumps writes it
  auto cfg = json::Document::parse(test::read_file(dir / "config.json"), "config.json", lenient);
  auto r = test::run_cli("'" + dir.string() + "' --json --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  const json::Value& m = doc.root().find("ssm")->find("mixers")->items().at(0);
  const json::Value& c = cfg.root();
  EXPECT_EQ(m.find("mixer")->as_string(), "mamba2");
  EXPECT_EQ(uint_at(m, "d_state"), uint_at(c, "ssm_state_size"));
  EXPECT_EQ(uint_at(m, "heads"), uint_at(c, "mamba_num_heads"));
  EXPECT_EQ(uint_at(m, "head_dim"), uint_at(c, "mamba_head_dim"));
  EXPECT_EQ(uint_at(m, "d_inner"), uint_at(c, "mamba_num_heads") * uint_at(c, "mamba_head_dim"));
  EXPECT_EQ(uint_at(m, "groups"), uint_at(c, "n_groups"));
  EXPECT_EQ(uint_at(m, "conv_kernel"), uint_at(c, "conv_kernel"));
  EXPECT_EQ(uint_at(m, "chunk_size"), uint_at(c, "chunk_size"));
  const std::string pattern(c.find("hybrid_override_pattern")->as_string());
  std::vector<uint64_t> mamba, attention;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == 'M') mamba.push_back(i);
    if (pattern[i] == '*') attention.push_back(i);
  }
  std::vector<uint64_t> got_mamba, got_attention;
  for (const json::Value& i : m.find("layers")->items()) got_mamba.push_back(*i.as_uint());
  for (const json::Value& i : doc.root().find("ssm")->find("attention_layers")->items())
    got_attention.push_back(*i.as_uint());
  EXPECT_EQ(got_mamba, mamba);
  EXPECT_EQ(got_attention, attention);
}

// A model without state-space layers has no section: null in JSON, no heading on the console.
TEST(CliSsmSection, AbsentForTransformers) {
  auto r = test::run_cli(test::example() + " --json --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(json::Document::parse(r.out, "stdout").root().find("ssm")->is_null());
  EXPECT_EQ(test::run_cli(test::example() + " --skip-tokenizer").out.find("State-space"), std::string::npos);
}

}  // namespace
}  // namespace ma
