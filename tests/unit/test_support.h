// Helpers shared by the tests: where the reference data is, temp directories, running the CLI.
#pragma once
#include <cctype>
#include <filesystem>
#include <optional>
#include <string>

#include "core/json.h"

namespace ma::test {

// ../shared/data when present (CI and developer machines), nullopt in a user's fresh clone.
std::optional<std::filesystem::path> shared_data();

// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::string& content);
json::Document parse_json_file(const std::filesystem::path& p);

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
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

// Runs the built modelanalyzer binary with `args` (shell-quoted by the caller when needed).
CommandResult run_cli(const std::string& args);
// The same under `env ENV` (assignments and -u NAME options, shell-quoted by the caller).
CommandResult run_cli_env(const std::string& env, const std::string& args);
// The same under `timeout SECONDS`: a hang ends with exit code 124 instead of a stuck test run.
CommandResult run_cli_timeout(int seconds, const std::string& args);

}  // namespace ma::test
