// Golden files for the report: console (--detailed), JSON and Markdown of real configs and checkpoints.
// The files under tests/golden/ were checked by hand once; these tests guard them against regressions.
// After an intended change, regenerate with UPDATE_GOLDEN=1 and read the diff before committing it.
// (The other commands' goldens: golden_*_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "cli_test_support.h"
#include "golden_support.h"

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
  s = test::replace_all(std::move(s), model_path, "MODEL");
  // The JSON's analysis_timestamp and the Markdown's Analysis Date.
  static const std::regex timestamp(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  return std::regex_replace(s, timestamp, "TIMESTAMP-----------");
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, OutputsMatch) {
  const GoldenCase& c =
      *std::find_if(cases().begin(), cases().end(), [&](const auto& g) { return g.name == GetParam(); });
  std::string path;
  if (c.model == "example") {
    path = test::example_dir().string();
  } else {
    auto data = test::shared_data();
    if (!data) GTEST_SKIP() << "../shared/data not present";
    path = (*data / c.model).string();
  }
  for (const auto& [ext, flags] : std::vector<std::pair<std::string, std::string>>{
           {"txt", " --detailed"}, {"json", " --json"}, {"md", " --quiet --export-markdown -"}}) {
    auto r = test::run_cli("'" + path + "'" + c.args + flags);
    ASSERT_EQ(r.exit_code, 0) << c.name << " " << flags << ": " << r.err;
    ASSERT_NO_FATAL_FAILURE(test::expect_golden(normalize(r.out, path), c.name + "." + ext));
  }
}

INSTANTIATE_TEST_SUITE_P(Reports, GoldenTest, ::testing::ValuesIn(case_names()), test::ParamName());

}  // namespace
}  // namespace ma
