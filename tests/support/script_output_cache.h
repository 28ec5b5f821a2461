// Files an external script writes for the tests (an oracle's answers, checkpoints torch.save wrote), kept for
// the next test process. ctest runs each test in a process of its own, and importing torch or setting up
// ggml's grids costs seconds a run: without a cache every test paid it again, and the sanitize build's tests
// paid it once more (both presets share MA_TEST_CACHE_DIR: what the scripts write does not depend on how
// the program was built).
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace ma::test {

// FNV-1a, 16 hex digits: a cache key from what the files depend on (the scripts' text, the libraries' sizes
// and times, the arguments).
std::string cache_key(std::string_view material);

// The files of MA_TEST_CACHE_DIR/NAME-KEY, written by `write` when absent: `write` fills the empty
// directory it is given and returns "" or why it failed; that directory is renamed into place whole, so a
// test starting at the same moment never reads a half-written one (the one renamed second is dropped: its
// files are as good). Returns the directory, or the empty path when `write` failed (nothing is kept).
std::filesystem::path cached_script_output(
    std::string_view name, std::string_view key,
    const std::function<std::string(const std::filesystem::path&)>& write, std::string& failure);

}  // namespace ma::test
