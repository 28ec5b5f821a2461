// The report command on configs and command lines that were taken silently: a second --export (the first file
// was dropped), a torch_dtype that names no dtype (memory at float32), a null depth (the default assumed
// without a word), warnings of several models that did not say which model, and a config of a million tiny
// values (860 MB of DOM for 16 MB of text).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

// test_support's tiny Llama (2 layers) with `extra` members (",\"key\": value") added.
std::string tiny_llama_with(const std::string& extra) {
  std::string c = tiny_llama_config("2");
  c.pop_back();
  return c + extra + "}";
}

std::vector<std::string> stderr_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

TEST(CliConfigValues, ASecondExportIsAUsageErrorAndWritesNothing) {
  TempDir dir;
  const CommandResult r = run_cli(example() + " --skip-tokenizer -q --export " + quoted(dir / "first.json") +
                                  " --export " + quoted(dir / "second.json"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--export: given twice"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "first.json"));
  EXPECT_FALSE(fs::exists(dir / "second.json"));
  const CommandResult md = run_cli(example() + " --skip-tokenizer -q --markdown " + quoted(dir / "a.md") +
                                   " --export-markdown " + quoted(dir / "b.md"));
  EXPECT_EQ(md.exit_code, 2) << md.err;
  EXPECT_NE(md.err.find("--export-markdown: given twice (first as --markdown)"), std::string::npos) << md.err;
}

TEST(CliConfigValues, ATorchDtypeThatNamesNoDtypeIsOneErrorLine) {
  TempDir dir;
  write_file(dir / "config.json", tiny_llama_with(R"(,"torch_dtype": "float128")"));
  const CommandResult r = run_cli(quoted(dir.path()) + " --skip-tokenizer");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const std::vector<std::string> lines = stderr_lines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("modelanalyzer: error: " + (dir / "config.json").string() +
                               ": torch_dtype: 'float128' is no dtype",
                           0),
            0u)
      << lines[0];
  EXPECT_TRUE(r.out.empty()) << "no report on figures computed at a guessed width";
}

TEST(CliConfigValues, ANullDepthIsAWarningInTheReportAndOnStderr) {
  TempDir dir;
  write_file(dir / "config.json", tiny_llama_config("null"));
  const CommandResult r = run_cli(quoted(dir.path()) + " --skip-tokenizer --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: config.json: num_hidden_layers: is null"), std::string::npos) << r.err;
  const json::Document doc = json::Document::parse(r.out, "stdout");
  bool found = false;
  for (const json::Value& w : doc.root().find("warnings")->items())
    found = found || w.as_string().starts_with("config.json: num_hidden_layers: is null");
  EXPECT_TRUE(found) << r.out.substr(0, 400);
  // LlamaConfig's default depth, 32, is what the figures rest on.
  EXPECT_EQ(doc.root().find("architecture")->find("num_hidden_layers")->as_uint(), 32u);
}

// With several models, each warning and note line says which model it is about; with one, nothing changes.
TEST(CliConfigValues, WarningsOfSeveralModelsNameTheirModel) {
  TempDir dir;
  for (const char* name : {"alpha", "beta"}) {
    fs::create_directories(dir / name);
    write_file(dir / name / "config.json", tiny_llama_with(R"(,"rope_theta": -1)"));
  }
  const std::string warning = "warning: config.json: rope_theta: must be above 0, found -1";
  const CommandResult two =
      run_cli(quoted(dir / "alpha") + " " + quoted(dir / "beta") + " --skip-tokenizer --json");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  for (const std::string& line : stderr_lines(two.err))
    EXPECT_TRUE(line.starts_with("alpha: ") || line.starts_with("beta: ")) << line;
  EXPECT_NE(two.err.find("alpha: " + warning), std::string::npos) << two.err;
  EXPECT_NE(two.err.find("beta: " + warning), std::string::npos) << two.err;

  const CommandResult one = run_cli(quoted(dir / "alpha") + " --skip-tokenizer --json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  bool bare = false;
  for (const std::string& line : stderr_lines(one.err)) {
    EXPECT_FALSE(line.starts_with("alpha: ")) << line;
    bare = bare || line.starts_with(warning);
  }
  EXPECT_TRUE(bare) << one.err;

  // Two models of one name: the name would not tell them apart, the argument as given does.
  for (const char* parent : {"a", "b"}) {
    fs::create_directories(dir / parent / "model");
    write_file(dir / parent / "model" / "config.json", tiny_llama_with(R"(,"rope_theta": -1)"));
  }
  const CommandResult same =
      run_cli(quoted(dir / "a" / "model") + " " + quoted(dir / "b" / "model") + " --skip-tokenizer --json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.err.find((dir / "a" / "model").string() + ": " + warning), std::string::npos) << same.err;
  EXPECT_NE(same.err.find((dir / "b" / "model").string() + ": " + warning), std::string::npos) << same.err;
}

// The config DOM holds at most a million values (ModelConfig::kMaxJsonValues): a 2 MB array of a million
// zeros is a resource limit (exit 5) naming the file and the cap, while a config with ImageNet-21k's 21,843
// labels (id2label and label2id: about 44,000 values) is read as before.
TEST(CliConfigValues, AMillionValueConfigIsALimitAndRealLabelMapsAreNot) {
  TempDir dir;
  std::string zeros = "0";
  zeros.reserve(2'000'001);
  for (int i = 1; i < 1'000'000; ++i) zeros += ",0";
  write_file(dir / "config.json", tiny_llama_with(R"(,"junk": [)" + zeros + "]"));
  const CommandResult r = run_cli(quoted(dir.path()) + " --skip-tokenizer -q");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find((dir / "config.json").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cap of 1000000"), std::string::npos) << r.err;

  std::string id2label, label2id;
  for (int i = 0; i < 21'843; ++i) {
    const std::string label = "\"class " + std::to_string(i) + "\"";
    id2label += (i ? ",\"" : "\"") + std::to_string(i) + "\":" + label;
    label2id += (i ? "," : "") + label + ":" + std::to_string(i);
  }
  write_file(dir / "config.json",
             tiny_llama_with(R"(,"id2label": {)" + id2label + R"(}, "label2id": {)" + label2id + "}"));
  const CommandResult labels = run_cli(quoted(dir.path()) + " --skip-tokenizer -q --json");
  EXPECT_EQ(labels.exit_code, 0) << labels.err;
}

// Every command that reads a model says what its config reader left out, not the report alone: plan, perf and
// serve sized a model whose rms_norm_eps of -1 was dropped without a word, and the tensors listing's JSON
// held the inventory's warnings but not the config's.
TEST(CliConfigValues, EveryModelCommandSaysWhatTheConfigLeftOut) {
  TempDir dir;
  write_file(dir / "config.json", tiny_llama_with(R"(,"rms_norm_eps": -1)"));
  const std::string warning =
      "warning: config.json: rms_norm_eps: must be at least 0, found -1: left out of the report";
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"plan", " --gpu 24GB"},
      {"perf", ""},
      {"serve", ""},
      {"tensors", ""},
      {"build-config", " --out " + quoted(dir / "sim.json") + " --gaps " + quoted(dir / "gaps")}};
  for (const auto& [command, extra] : commands) {
    const CommandResult r = run_cli(command + " " + quoted(dir.path()) + extra);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    const std::vector<std::string> lines = stderr_lines(r.err);
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [&](const std::string& l) { return l.find(warning) != std::string::npos; }),
              1)
        << command << ": " << r.err;
  }
  const CommandResult tensors = run_cli("tensors " + quoted(dir.path()) + " --json --quiet");
  ASSERT_EQ(tensors.exit_code, 0) << tensors.err;
  EXPECT_TRUE(tensors.err.empty()) << tensors.err;
  const json::Document doc = json::Document::parse(tensors.out, "stdout");
  bool found = false;
  for (const json::Value& w : doc.root().find("warnings")->items())
    found = found || w.as_string().starts_with("config.json: rms_norm_eps: must be at least 0");
  EXPECT_TRUE(found) << tensors.out.substr(0, 400);
}

}  // namespace
}  // namespace ma::test
