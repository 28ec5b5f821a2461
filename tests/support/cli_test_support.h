// Running the built modelanalyzer binary: the end-to-end tests' helpers (linked into ma_e2e_tests only, so a
// unit test cannot start the binary by accident).
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"

namespace ma::test {

// The built-in example model (a tiny Llama checkpoint written at build time) and its path quoted for a
// command line.
std::filesystem::path example_dir();
std::string example();
// The built binary, quoted for a command line.
std::string cli_binary();
// tests/peer: the npm peers (@huggingface/gguf, @huggingface/hub) and the scripts that run them.
std::filesystem::path peer_dir();

// `tensors --json` from "origin" to the run info, which names the command (a path in one run, a Hub id in
// another): what one model read from two places must give alike.
std::string tensors_json_body(const std::string& json);

// Runs the built modelanalyzer binary with `args` (shell-quoted by the caller when needed).
CommandResult run_cli(const std::string& args);
// The same under `env ENV` (assignments and -u NAME options, shell-quoted by the caller).
CommandResult run_cli_env(const std::string& env, const std::string& args);
// The environment of a run against a test Hub at `endpoint` that nothing of the user's leaks into: no token,
// HF_HOME, offline switch or token path of the user's; HOME and the Hub cache under `dir` (home/, hub/).
std::string isolated_hub_env(const std::string& endpoint, const std::filesystem::path& dir);
// The same in working directory `dir`, so that relative names given in `args` (and the model ids the outputs
// print) do not depend on where the build or the temp directory is.
CommandResult run_cli_in(const std::filesystem::path& dir, const std::string& args);
// The same under `timeout SECONDS`: a hang ends with exit code 124 instead of a stuck test run.
CommandResult run_cli_timeout(int seconds, const std::string& args);
// Starts the binary with `args` (no shell) in a child process sharing the test's stdout and stderr, for a
// test that signals it; the caller waits for it.
pid_t start_cli(const std::vector<std::string>& args);

// Sends SIGINT to a child start_cli began and waits for it: its exit code (-1 when a signal ended it) and
// the seconds from the signal to its end.
struct Interrupted {
  int exit_code = -1;
  double seconds = 0;
};
Interrupted interrupt_cli(pid_t pid);

}  // namespace ma::test
