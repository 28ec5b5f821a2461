#include "cli_test_support.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace ma::test {

std::filesystem::path example_dir() {
  return MA_EXAMPLE_DIR;
}

std::filesystem::path peer_dir() {
  return std::filesystem::path(MA_SOURCE_DIR) / "tests" / "peer";
}

std::string example() {
  return quoted(example_dir());
}

std::string cli_binary() {
  return quoted(MA_CLI_BINARY);
}

std::string tensors_json_body(const std::string& json) {
  const size_t from = std::min(json.size(), json.find("\"origin\""));
  return json.substr(from, json.find(",\"analysis_timestamp\"") - from);
}

CommandResult run_cli(const std::string& args) {
  return run_cli_env("", args);
}

std::string isolated_hub_env(const std::string& endpoint, const std::filesystem::path& dir) {
  return "-u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HOME -u HF_HUB_OFFLINE -u HF_TOKEN_PATH -u "
         "MODELANALYZER_TRUSTED_ENDPOINT "
         "-u TRANSFORMERS_OFFLINE HOME=" +
         quoted(dir / "home") + " HF_ENDPOINT=" + endpoint + " HF_HUB_CACHE=" + quoted(dir / "hub");
}

CommandResult run_cli_env(const std::string& env, const std::string& args) {
  return run_shell((env.empty() ? std::string() : "env " + env + " ") + cli_binary() + " " + args);
}

CommandResult run_cli_in(const std::filesystem::path& dir, const std::string& args) {
  return run_shell("cd " + quoted(dir) + " && " + cli_binary() + " " + args);
}

CommandResult run_cli_timeout(int seconds, const std::string& args) {
  return run_shell("timeout " + std::to_string(seconds) + " " + cli_binary() + " " + args);
}

pid_t start_cli(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text = {MA_CLI_BINARY};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    execv(MA_CLI_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

Interrupted interrupt_cli(pid_t pid) {
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  Interrupted r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace ma::test
