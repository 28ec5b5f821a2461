// What the tests that ask llama.cpp itself (tests/oracle/*.py through ctypes) need: where the pinned
// node-llama-cpp build keeps its libraries, and why such a test must skip on this machine.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "test_support.h"

namespace ma::test {

inline constexpr const char* kOraclePython = "/usr/bin/python3";
inline constexpr int kLlamaCouldNotLoad = 3;  // an oracle script's exit status when llama.cpp will not start

inline std::filesystem::path llama_lib_dir() {
  return std::filesystem::path(MA_SOURCE_DIR) /
         "tests/peer/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64";
}

inline bool has_library(const std::filesystem::path& dir, std::string_view prefix) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) return true;
  return false;
}

// Empty when Debian's python3 with numpy and llama.cpp's libraries are here; else why not.
inline std::string llama_oracle_unavailable() {
  if (!std::filesystem::exists(kOraclePython)) return std::string(kOraclePython) + " is not installed";
  const std::filesystem::path libs = llama_lib_dir();
  if (!has_library(libs, "libllama") || !has_library(libs, "libggml-base") ||
      !has_library(libs, "libggml-cpu"))
    return "llama.cpp's libraries are not installed (scripts/install-peer.sh): " + libs.string();
  if (run_shell(std::string(kOraclePython) + " -c 'import numpy'").exit_code != 0)
    return std::string(kOraclePython) + " has no numpy";
  return "";
}

}  // namespace ma::test
