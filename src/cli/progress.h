// One progress line on stderr, redrawn in place at most ten times a second, only on a terminal: bytes done of
// the total, percent, rate. Thread-safe (workers report from their threads).
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace ma::cli {

class ProgressLine {
 public:
  ProgressLine(bool enabled, std::string label) : enabled_(enabled), label_(std::move(label)) {}
  // `extra`: appended as is (e.g. "3/12 files").
  void update(uint64_t done, uint64_t total, const std::string& extra = "");
  void finish();  // ends the line, if one was drawn

 private:
  bool enabled_;
  std::string label_;
  std::mutex mutex_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

}  // namespace ma::cli
