// Every number a command prints is in its JSON export: each number of the console output and of the Markdown
// export, with its unit (K/M/B/T counts, KB..TB and KiB..TiB, FLOP, ns..s, %), must equal, at the significant
// digits shown, a number of the JSON the same run writes (`--export`), or of the JSON of a second run for the
// commands without `--export` (their outputs do not depend on timing). Numbers inside JSON strings count too:
// the console's prose (assumptions, notes, formulas) is exported as the same text. `perf` has its own check
// (perf_json_complete_test.cpp), of its Markdown tables.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"
#include "gguf_test_models.h"
#include "test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

struct Shown {
  std::string text;  // as printed, for the message
  double raw = 0;    // as printed, without its unit
  double scale = 1;  // of the unit, to the JSON's (bytes, seconds, a fraction, a count)
  int digits = 0;    // significant digits printed
  int decimals = 0;  // digits after the point
};

double unit_scale(const std::string& unit) {
  static const std::pair<const char*, double> kUnits[] = {
      {"K", 1e3},      {"k", 1e3},      {"M", 1e6},      {"B", 1e9},     {"T", 1e12},    {"KiB", 1024.0},
      {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40}, {"kB", 1e3},    {"KB", 1e3},    {"MB", 1e6},
      {"GB", 1e9},     {"TB", 1e12},    {"kFLOP", 1e3},  {"MFLOP", 1e6}, {"GFLOP", 1e9}, {"TFLOP", 1e12},
      {"PFLOP", 1e15}, {"ns", 1e-9},    {"us", 1e-6},    {"ms", 1e-3},   {"%", 1e-2}};
  for (const auto& [name, scale] : kUnits)
    if (unit == name) return scale;
  return 1;
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The numbers of a text: a run of digits not glued to a word or a decimal point ("fp16", "v0.3" are not
// numbers), with its decimals, exponent and unit. "1,234,567" is one number; "7,18,29" (a list of layers) is
// three.
std::vector<Shown> numbers_in(const std::string& text) {
  std::vector<Shown> out;
  size_t i = 0;
  while (i < text.size()) {
    const char prev = i ? text[i - 1] : ' ';
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || word_char(prev) || prev == '.') {
      ++i;
      continue;
    }
    const bool negative = prev == '-' && (i < 2 || !word_char(text[i - 2]));
    size_t end = i;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) ||
                                 (text[end] == ',' && end + 1 < text.size() &&
                                  std::isdigit(static_cast<unsigned char>(text[end + 1])))))
      ++end;
    std::vector<std::string> groups;
    std::string group;
    for (size_t k = i; k < end; ++k) {
      if (text[k] == ',') {
        groups.push_back(group);
        group.clear();
      } else {
        group += text[k];
      }
    }
    groups.push_back(group);
    bool thousands = groups.front().size() <= 3;
    for (size_t g = 1; g < groups.size(); ++g) thousands = thousands && groups[g].size() == 3;
    if (groups.size() > 1 && !thousands) {
      for (const std::string& g : groups) out.push_back({g, std::stod(g), 1, static_cast<int>(g.size()), 0});
      i = end;
      continue;
    }
    std::string digits;
    for (const std::string& g : groups) digits += g;
    std::string number = digits;
    int decimals = 0;
    if (end + 1 < text.size() && text[end] == '.' &&
        std::isdigit(static_cast<unsigned char>(text[end + 1]))) {
      size_t d = end + 1;
      while (d < text.size() && std::isdigit(static_cast<unsigned char>(text[d]))) ++d;
      number += text.substr(end, d - end);
      digits += text.substr(end + 1, d - end - 1);
      decimals = static_cast<int>(d - end - 1);
      end = d;
    }
    if (end + 1 < text.size() && text[end] == 'e' &&
        (std::isdigit(static_cast<unsigned char>(text[end + 1])) || text[end + 1] == '-' ||
         text[end + 1] == '+')) {
      size_t d = end + 2;
      while (d < text.size() && std::isdigit(static_cast<unsigned char>(text[d]))) ++d;
      number += text.substr(end, d - end);
      end = d;
    }
    // The unit: a word right after the number or one space on ("512 MiB", "3.5%").
    size_t u = end < text.size() && text[end] == ' ' ? end + 1 : end;
    size_t w = u;
    while (w < text.size() && (std::isalpha(static_cast<unsigned char>(text[w])) || text[w] == '%')) ++w;
    const std::string unit = text.substr(u, w - u);
    const double scale = unit_scale(unit);
    const bool has_unit = scale != 1 || unit == "s" || unit == "FLOP";
    size_t significant = digits.find_first_not_of('0');
    Shown s;
    s.text = text.substr(negative ? i - 1 : i, (has_unit ? w : end) - i + (negative ? 1 : 0));
    s.raw = (negative ? -1 : 1) * std::stod(number);
    s.scale = scale;
    s.decimals = decimals;
    s.digits = significant == std::string::npos ? 1 : static_cast<int>(digits.size() - significant);
    // "106 more": a count of the items the console leaves out, which the JSON lists in full.
    if (text.compare(end, 5, " more") != 0) out.push_back(s);
    i = has_unit ? w : end;
  }
  return out;
}

void collect_numbers(const json::Value& v, std::vector<double>& out) {
  if (v.is_number()) out.push_back(v.as_double());
  if (v.is_string())
    for (const Shown& s : numbers_in(std::string(v.as_string()))) out.push_back(s.raw * s.scale);
  for (const json::Value& item : v.items()) collect_numbers(item, out);
  for (const json::Member& m : v.members()) collect_numbers(m.value, out);
}

// Equal once rounded to the digits shown: within half a unit of the last one ("0.00%" is any fraction below
// 0.00005), in the unit printed or without it ("256 B" is 256 bytes, not 256 billion).
bool same_when_rounded(const Shown& shown, double exact) {
  for (const double scale : {shown.scale, 1.0}) {
    const double v = shown.raw * scale;
    const double tolerance = v == 0 ? 0.501 * std::pow(10.0, -shown.decimals) * scale
                                    : 5.01 * std::pow(10.0, -shown.digits) * std::fabs(v);
    if (std::fabs(v - exact) <= tolerance) return true;
  }
  return false;
}

void expect_console_numbers_in_json(const std::string& console, const std::string& json_text,
                                    const std::string& what) {
  std::vector<double> numbers;
  collect_numbers(json::Document::parse(json_text, what).root(), numbers);
  std::istringstream lines(console);
  size_t checked = 0;
  for (std::string line; std::getline(lines, line);) {
    for (const Shown& s : numbers_in(line)) {
      ++checked;
      bool found = false;
      for (double n : numbers) found = found || same_when_rounded(s, n);
      EXPECT_TRUE(found) << what << ": '" << s.text << "' of the line \"" << line << "\" is not in the JSON";
    }
  }
  EXPECT_GT(checked, 5u) << what << ": the console output was not read";
}

// A command with --export: the console and the JSON of one run.
void expect_exported(const std::string& args) {
  TempDir dir;
  const CommandResult r = run_cli(args + " --export " + quoted(dir / "out.json"));
  ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  expect_console_numbers_in_json(r.out, read_file(dir / "out.json"), args);
}

// The Markdown export of the same run (its tables and prose, --markdown) against its JSON.
void expect_markdown_exported(const std::string& args) {
  TempDir dir;
  const CommandResult r =
      run_cli(args + " --markdown " + quoted(dir / "out.md") + " --export " + quoted(dir / "out.json"));
  ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  expect_console_numbers_in_json(read_file(dir / "out.md"), read_file(dir / "out.json"),
                                 args + " --markdown");
}

// A command without --export: its console output and its --json output, two runs.
void expect_in_json_run(const std::string& args) {
  const CommandResult console = run_cli(args);
  ASSERT_EQ(console.exit_code, 0) << args << "\n" << console.err;
  const CommandResult json_run = run_cli(args + " --json");
  ASSERT_EQ(json_run.exit_code, 0) << args << "\n" << json_run.err;
  expect_console_numbers_in_json(console.out, json_run.out, args);
}

TEST(ConsoleNumbers, ReaderSeesNumbersAsPrinted) {
  std::vector<Shown> n =
      numbers_in("layers 7,18,29 of 1,234,567 (2.5 GiB, -5.8e-05, 3.5%); fp16 v0.3, 106 more");
  ASSERT_EQ(n.size(), 7u);
  EXPECT_EQ(n[0].raw, 7);
  EXPECT_EQ(n[2].raw, 29);
  EXPECT_EQ(n[3].raw, 1234567);
  EXPECT_EQ(n[3].digits, 7);
  EXPECT_EQ(n[4].raw * n[4].scale, 2.5 * 0x1p30);
  EXPECT_EQ(n[4].text, "2.5 GiB");
  EXPECT_EQ(n[5].raw, -5.8e-05);
  EXPECT_EQ(n[5].digits, 2);
  EXPECT_DOUBLE_EQ(n[6].raw * n[6].scale, 0.035);
}

TEST(ConsoleNumbers, OfTheReportAreInItsJson) {
  expect_exported(quoted(example_dir()));
  expect_exported(quoted(example_dir()) + " --detailed --batch 4 --context 128");
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present: only the built-in example was checked";
  // --detailed: every section in full, the per-layer tables and formulas included.
  for (const char* config :
       {"deepseek-ai__DeepSeek-V3", "nvidia__Nemotron-H-56B-Base-8K", "openai__whisper-base",
        "google__gemma-4-26B-A4B", "Qwen__Qwen3-Next-80B-A3B-Thinking", "TheBloke__Genz-70b-GPTQ",
        "openai__gpt-oss-120b"})
    expect_exported(quoted(*data / "hf-configs" / config) + " --detailed");
  for (const char* fixture : {"tiny-gemma2", "tiny-llama-training-ckpt", "tiny-qwen3-fp8", "tiny-gpt2-onnx"})
    expect_exported(quoted(*data / "fixtures" / fixture) + " --detailed");
}

TEST(ConsoleNumbers, OfTheWeightAnalysesAreInTheirJson) {
  expect_exported("stats " + quoted(example_dir()));
  expect_exported("spectrum " + quoted(example_dir()));
  expect_exported("embeddings " + quoted(example_dir()));
  expect_in_json_run("tensors " + quoted(example_dir()));
  // Two checkpoints that differ in values, names and shapes.
  TempDir dir;
  write_safetensors(dir / "a.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, f32({1, 2, 3, 4})},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {2}, f32({1, 1})},
                     {"model.norm.weight", DType::F32, {2}, f32({1, 2})},
                     {"only_a", DType::F32, {1}, f32({1})}});
  write_safetensors(dir / "b.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, f32({2, 4, 6, 7})},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {2}, f32({1, 1.5})},
                     {"model.norm.weight", DType::F32, {3}, f32({1, 2, 3})},
                     {"only_b", DType::F32, {1}, f32({1})}});
  expect_exported("compare " + quoted(dir / "a.safetensors") + " " + quoted(dir / "b.safetensors"));
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present: the ONNX graph and the fixtures were not checked";
  expect_in_json_run("graph " + quoted(*data / "fixtures" / "tiny-gpt2-onnx"));
  expect_exported("stats " + quoted(*data / "fixtures" / "tiny-qwen3-moe"));
  expect_exported("embeddings " + quoted(*data / "fixtures" / "tiny-qwen2"));
}

TEST(ConsoleNumbers, OfAQuantizedGgufAreInItsJson) {
  TempDir dir;
  const fs::path gguf = dir / "tiny-q4_k.gguf";
  TinyGguf m;
  m.hidden = 256;  // a row of Q4_K blocks of 256
  m.ffn = 512;
  m.matrix_type = DType::Q4_K;
  write_tiny_gguf(gguf, m);
  expect_exported(quoted(gguf) + " --detailed");
  expect_exported("stats " + quoted(gguf));
  expect_exported("plan " + quoted(gguf) + " --gpu rtx4060");
  expect_in_json_run("tensors " + quoted(gguf));
}

TEST(ConsoleNumbers, OfTheMarkdownExportsAreInTheirJson) {
  expect_markdown_exported(quoted(example_dir()) + " --detailed");
  expect_markdown_exported("stats " + quoted(example_dir()));
  expect_markdown_exported("spectrum " + quoted(example_dir()));
  expect_markdown_exported("embeddings " + quoted(example_dir()));
  expect_markdown_exported("plan " + quoted(example_dir()) + " --gpu rtx4090");
  expect_markdown_exported("serve " + quoted(example_dir()) + " --hw h100-sxm");
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present: only the built-in example was checked";
  for (const char* config :
       {"deepseek-ai__DeepSeek-V3", "openai__gpt-oss-120b", "nvidia__Nemotron-H-56B-Base-8K"})
    expect_markdown_exported(quoted(*data / "hf-configs" / config) + " --detailed");
  expect_markdown_exported("plan " + quoted(*data / "hf-configs" / "meta-llama__Meta-Llama-3.1-70B") +
                           " --gpu 4xh100-sxm");
}

TEST(ConsoleNumbers, OfPlanAndServeAreInTheirJson) {
  expect_exported("plan " + quoted(example_dir()) + " --gpu rtx4090");
  expect_exported("serve " + quoted(example_dir()) + " --hw h100-sxm");
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present: only the built-in example was checked";
  const fs::path configs = *data / "hf-configs";
  expect_exported("plan " + quoted(configs / "meta-llama__Meta-Llama-3.1-70B") + " --gpu 4xh100-sxm");
  expect_exported("plan " + quoted(configs / "Qwen__Qwen3-30B-A3B-FP8") + " --gpu rtx4090");
  expect_exported("serve " + quoted(configs / "openai__gpt-oss-120b") + " --hw h200 --tp 2");
}

}  // namespace
}  // namespace ma::test
