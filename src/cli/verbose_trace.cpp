#include "cli/verbose_trace.h"

#include <chrono>
#include <cstdio>
#include <string>

#include "core/text.h"

namespace ma::cli {
namespace {

bool& enabled() {
  static bool on = false;
  return on;
}

// Time since the first trace call of the process (static initialisation of the clock is the start).
double elapsed_ms() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void line(std::string_view text) {
  // One fprintf per line: lines of concurrent requests never interleave within a line.
  std::fprintf(stderr, "modelanalyzer: [%9.1f ms] %s\n", elapsed_ms(), terminal_safe(text).c_str());
}

}  // namespace

void enable_trace(bool on) {
  enabled() = on;
  if (on) elapsed_ms();  // starts the clock
}

bool trace_enabled() {
  return enabled();
}

void trace(std::string_view stage) {
  if (enabled()) line(stage);
}

void trace_http(HubSettings& settings) {
  if (!enabled()) return;
  settings.observe = [](const HttpExchange& e) {
    std::string text = e.method + " " + e.url;
    if (e.range)
      text += " bytes=" + std::to_string(e.range->first) + "-" +
              (e.range->last == kOpenEnded ? std::string() : std::to_string(e.range->last));
    char tail[96];
    std::snprintf(tail, sizeof tail, " -> %d, %llu bytes, %.1f ms", e.status,
                  static_cast<unsigned long long>(e.body_bytes), e.seconds * 1e3);
    line(text + tail + (e.failure.empty() ? std::string() : " (failed: " + e.failure + ")"));
  };
}

}  // namespace ma::cli
