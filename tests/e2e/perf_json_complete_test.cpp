// `perf --json` carries every number the Markdown report shows: each table cell of `perf --report` that is a
// number (with its unit: ns/us/ms/s, %, TFLOP/s, GB/s, GB, FLOP/byte) must equal, at the significant digits
// the report shows, some number of the JSON of the same run. Prose and composite cells ("TP 1 x PP 1") are
// not checked; their numbers are the inputs the JSON lists under `inputs` and `knobs`.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

void perf_json_numbers(const json::Value& v, std::vector<double>& out) {
  if (v.is_number()) out.push_back(v.as_double());
  for (const json::Value& item : v.items()) perf_json_numbers(item, out);
  for (const json::Member& m : v.members()) perf_json_numbers(m.value, out);
}

// A cell that is one number and a unit: its value in the unit the JSON uses (seconds, a fraction) and the
// significant digits it shows; nullopt otherwise.
struct ShownCell {
  double value = 0;
  int digits = 0;
};

std::optional<ShownCell> numeric_cell(const std::string& cell) {
  static const std::regex kNumber(
      R"(^\s*([-+]?([0-9]+(?:\.[0-9]+)?)(?:e[-+]?[0-9]+)?)\s*(ns|us|ms|s|%|TFLOP/s|GB/s|GB|FLOP/byte)?\s*$)");
  std::smatch m;
  if (!std::regex_match(cell, m, kNumber)) return std::nullopt;
  ShownCell s{std::stod(m[1].str()), 0};
  bool leading = true;
  for (char c : m[2].str())
    if (c != '.' && !(leading && c == '0')) {
      leading = false;
      ++s.digits;
    }
  const std::string unit = m[3].str();
  if (unit == "ns") s.value *= 1e-9;
  if (unit == "us") s.value *= 1e-6;
  if (unit == "ms") s.value *= 1e-3;
  if (unit == "%") s.value /= 100;
  return s;
}

// Equal once rounded to the digits shown: within half a unit of the last one.
bool same_when_rounded(const ShownCell& shown, double exact) {
  if (shown.value == 0) return exact == 0;
  return std::fabs(shown.value - exact) <= 5.01 * std::pow(10.0, -shown.digits) * std::fabs(shown.value);
}

struct Cell {
  std::string table_header, text;
};

// Every table cell of the report, with its table's header row; the sensitivity grid's row numbers ("#")
// are positions, not figures.
std::vector<Cell> table_cells(const std::string& markdown) {
  std::vector<Cell> cells;
  std::istringstream lines(markdown);
  std::string header;
  std::vector<std::string> columns;
  bool in_table = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("|", 0) != 0) {
      in_table = false;
      continue;
    }
    std::vector<std::string> parts;
    std::string part;
    std::istringstream row(line.substr(1));
    while (std::getline(row, part, '|')) parts.push_back(part);
    if (!in_table) {
      in_table = true;
      header = line;
      columns = parts;
      continue;
    }
    if (line.rfind("|---", 0) == 0) continue;
    for (size_t i = 0; i < parts.size(); ++i)
      if (i >= columns.size() || columns[i] != " # ") cells.push_back({header, parts[i]});
  }
  return cells;
}

void expect_report_numbers_in_json(const fs::path& model, const std::string& flags) {
  TempDir dir;
  const CommandResult report =
      run_cli("perf " + quoted(model) + " " + flags + " --report " + quoted(dir / "perf.md"));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const CommandResult json_run = run_cli("perf " + quoted(model) + " " + flags + " --json");
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  std::vector<double> numbers;
  perf_json_numbers(json::Document::parse(json_run.out, "stdout").root(), numbers);

  size_t checked = 0;
  for (const Cell& c : table_cells(read_file(dir / "perf.md"))) {
    const std::optional<ShownCell> shown = numeric_cell(c.text);
    if (!shown) continue;
    ++checked;
    bool found = false;
    for (double n : numbers) found = found || same_when_rounded(*shown, n);
    EXPECT_TRUE(found) << "'" << c.text << "' of the table " << c.table_header << " is not in perf --json";
  }
  EXPECT_GT(checked, 300u) << "the report's tables were not read";
}

TEST(PerfJson, CarriesEveryNumberOfTheReport) {
  expect_report_numbers_in_json(example_dir(), "");
}

TEST(PerfJson, CarriesEveryNumberOfTheReportForMoeUnderParallelism) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  expect_report_numbers_in_json(*data / "hf-configs" / "deepseek-ai__DeepSeek-V3", "--tp 8 --mode prefill");
}

TEST(PerfJson, HardwareExportListsEveryProfileField) {
  // scalar_tflops is what the report's "Scalar (CUDA core) TFLOP/s" row shows; it was missing from the JSON.
  const CommandResult r = run_cli("perf " + quoted(example_dir()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  const json::Value* hw = d.root().find("hardware");
  ASSERT_TRUE(hw);
  for (const char* field :
       {"name", "description", "source", "peak_tflops", "hbm_gbps", "hbm_gb", "interconnect_gbps", "b_sat",
        "kernel_overhead_s", "graph_kernel_overhead_s", "scalar_tflops"})
    EXPECT_TRUE(hw->find(field)) << field;
}

}  // namespace
}  // namespace ma::test
