#include "test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace ma::test {

std::optional<std::filesystem::path> shared_data() {
  std::filesystem::path p(MA_SHARED_DATA);
  if (std::filesystem::is_directory(p / "oracle")) return p;
  return std::nullopt;
}

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("ma-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::filesystem::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary);
  out << content;
}

json::Document parse_json_file(const std::filesystem::path& p) {
  json::Limits limits;
  limits.max_bytes = 1ull << 30;
  return json::Document::parse(read_file(p), p.string(), limits);
}

CommandResult run_cli(const std::string& args) { return run_cli_env("", args); }

namespace {

CommandResult run_prefixed(const std::string& prefix, const std::string& args) {
  TempDir tmp;
  std::string cmd = prefix + "'" + MA_CLI_BINARY + "' " + args + " >'" +
                    (tmp / "out").string() +
                    "' 2>'" + (tmp / "err").string() + "' </dev/null";
  int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(tmp / "out");
  r.err = read_file(tmp / "err");
  return r;
}

}  // namespace

CommandResult run_cli_env(const std::string& env, const std::string& args) {
  return run_prefixed(env.empty() ? std::string() : "env " + env + " ", args);
}

CommandResult run_cli_timeout(int seconds, const std::string& args) {
  return run_prefixed("timeout " + std::to_string(seconds) + " ", args);
}

}  // namespace ma::test
