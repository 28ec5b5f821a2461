// Golden files for the report: console (--detailed), JSON and Markdown of real configs and checkpoints.
// The files under tests/golden/ were checked by hand once; these tests guard them against regressions.
// After an intended change, regenerate with UPDATE_GOLDEN=1 and read the diff before committing it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

struct GoldenCase {
  std::string name;
  std::string model;  // "example", or a path under ../shared/data
  std::string args;
};

const std::vector<GoldenCase>& cases() {
  static const std::vector<GoldenCase> all = {
      {"example", "example", ""},
      {"tiny-llama", "fixtures/tiny-llama", ""},
      {"tiny-qwen3-fp8", "fixtures/tiny-qwen3-fp8", ""},
      {"llama-3.1-8b", "hf-configs/meta-llama__Meta-Llama-3.1-8B", ""},
      {"deepseek-v3", "hf-configs/deepseek-ai__DeepSeek-V3", ""},
      {"nemotron-3-nano", "hf-configs/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
       " --batch 4 --context 8192"},
      {"gemma-3-12b", "synthetic-configs/gemma-3-12b-text-shape", " --context 32768"},
      {"llama-2-13b-gptq", "hf-configs/TheBloke__Llama-2-13B-chat-GPTQ", ""},
      {"bert-base-uncased", "hf-configs/google-bert__bert-base-uncased", ""},
  };
  return all;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : cases()) names.push_back(c.name);
  return names;
}

// Paths and the timestamp differ between machines and runs.
std::string normalize(std::string s, const std::string& model_path) {
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  };
  replace_all(model_path, "MODEL");
  const std::string key = "\"analysis_timestamp\":\"";
  if (size_t at = s.find(key); at != std::string::npos)
    s.replace(at + key.size(), 20, "TIMESTAMP-----------");
  return s;
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, OutputsMatch) {
  const GoldenCase& c =
      *std::find_if(cases().begin(), cases().end(), [&](const auto& g) { return g.name == GetParam(); });
  std::string path;
  if (c.model == "example") {
    path = MA_EXAMPLE_DIR;
  } else {
    auto data = test::shared_data();
    if (!data) GTEST_SKIP() << "../shared/data not present";
    path = (*data / c.model).string();
  }
  const fs::path dir = fs::path(MA_SOURCE_DIR) / "tests" / "golden";
  const bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  for (const auto& [ext, flags] : std::vector<std::pair<std::string, std::string>>{
           {"txt", " --detailed"}, {"json", " --json"}, {"md", " --quiet --export-markdown -"}}) {
    auto r = test::run_cli("'" + path + "'" + c.args + flags);
    ASSERT_EQ(r.exit_code, 0) << c.name << " " << flags << ": " << r.err;
    std::string got = normalize(r.out, path);
    fs::path golden = dir / (c.name + "." + ext);
    if (update) {
      test::write_file(golden, got);
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " missing: run with UPDATE_GOLDEN=1, then check it by hand";
    EXPECT_EQ(got, test::read_file(golden)) << "output differs from " << golden;
  }
}

INSTANTIATE_TEST_SUITE_P(Reports, GoldenTest, ::testing::ValuesIn(case_names()), test::ParamName());

}  // namespace
}  // namespace ma
