#include "cli/interrupt.h"

#include <csignal>

namespace ma::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

}  // namespace

const std::atomic<bool>& interrupt_flag() {
  static const bool installed = [] {
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    return true;
  }();
  (void)installed;
  return g_interrupted;
}

}  // namespace ma::cli
