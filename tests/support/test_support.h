// Helpers shared by the unit and the end-to-end tests: where the reference data is, temp directories, files,
// shell commands, and the small pieces several test files need (a float32 tensor's bytes, a tensor of a JSON
// export by name, a tiny config). Running the built binary is the end-to-end tests' alone:
// cli_test_support.h.
#pragma once
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/json.h"

namespace ma::test {

// ../shared/data when present (CI and developer machines), nullopt in a user's fresh clone. The environment
// variable MA_TEST_SHARED_DATA names another directory instead: MA_TEST_SHARED_DATA=/nonexistent ctest runs
// the suite as a fresh clone without ../shared would (every test that needs the data skips, and says so).
std::optional<std::filesystem::path> shared_data();

// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& p);
// The regular files under `dir`, by their paths relative to it, sorted; none when it does not exist.
std::vector<std::string> files_under(const std::filesystem::path& dir);
// files_under a `download --out` directory, less the marker naming the repository it holds
// (.modelanalyzer/repository): the repository's files it wrote.
std::vector<std::string> downloaded_files(const std::filesystem::path& dir);
void write_file(const std::filesystem::path& p, const std::string& content);
json::Document parse_json_file(const std::filesystem::path& p);

// The kind of the Error `f` throws; Internal when it throws none, which no expectation of an error accepts.
inline ErrorKind error_kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return ErrorKind::Internal;
}

// `p` in single quotes, for a shell command line.
std::string quoted(const std::filesystem::path& p);

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs a shell command line (its own redirections and pipes included) with stdin from /dev/null, capturing
// stdout and stderr.
CommandResult run_shell(const std::string& command_line);
// Whether `name` is a program on PATH.
bool have_tool(const std::string& name);

// Debian's python3, where the oracles' numpy, scipy, sklearn, onnx and torch are installed (the python3 first
// on PATH may be another interpreter without them).
inline constexpr const char* kPython = "/usr/bin/python3";
// Whether kPython imports `module` (asked once per module).
bool python_imports(const std::string& module);

// `n` as 8 little-endian bytes (a safetensors header's length prefix).
std::string le64(uint64_t n);

// Whether `part` occurs in `text`.
inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}
// How many times `part` occurs in `text`, not overlapping.
size_t occurrences(std::string_view text, std::string_view part);
// `s` with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string s, const std::string& from, const std::string& to);

// Normal samples from a fixed-seed splitmix64 with Box-Muller (not <random>'s distributions, whose output
// differs between standard libraries): generated test data is the same file on every machine.
class NormalRng {
 public:
  explicit NormalRng(uint64_t seed) : state_(seed) {}
  double operator()();

 private:
  double uniform();  // [0, 1)
  uint64_t state_;
};

// The bytes of a float32 tensor holding `values`.
std::string f32(std::initializer_list<float> values);
// The bytes of a float32 / bfloat16 tensor of `values` rounded to the dtype (bfloat16 to nearest even, as
// torch converts).
std::string f32_bytes(const std::vector<double>& values);
std::string bf16_bytes(const std::vector<double>& values);

// The object of the tensor named `name` in a JSON export's "tensors" array (stats, compare); a test that asks
// for a missing one fails, and gets an object reading {"trainable": false, "flagged": false}.
const json::Value& tensor(const json::Document& d, std::string_view name);

// A minimal Llama config.json: hidden 64, 4 heads, MLP 128, vocabulary 100 and `num_hidden_layers` layers
// (text, so that a test can ask for an implausible number).
std::string tiny_llama_config(const std::string& num_hidden_layers);

// Names parameterized tests after their parameter (a model directory name), in gtest's allowed alphabet.
struct ParamName {
  template <typename Info>
  std::string operator()(const Info& info) const {
    std::string n = info.param;
    for (char& ch : n)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
  }
};

}  // namespace ma::test
