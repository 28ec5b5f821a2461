#include "cli/interrupt.h"

#include <unistd.h>

#include <csignal>

#include "io/atomic_file.h"

namespace ma::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) {
  g_interrupted.store(true);
}

extern "C" void exit_interrupted(int) {
  // _exit runs no destructor: the temp files of outputs being written are removed here, or a kill during
  // the writing would leave them beside the outputs.
  remove_temp_files_at_signal();
  _exit(kInterruptedExit);  // async-signal-safe, unlike exit()
}

}  // namespace

const std::atomic<bool>& interrupt_flag() {
  static const bool installed = [] {
    // SA_RESETHAND: the first Ctrl-C asks the work to stop and clean up; the handler is then back to the
    // default, so a second Ctrl-C ends the process at once if the clean stop takes too long.
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (int sig : {SIGINT, SIGTERM}) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // ignored stays so
      sigaction(sig, &sa, nullptr);
    }
    return true;
  }();
  (void)installed;
  return g_interrupted;
}

void exit_on_interrupt() {
  struct sigaction sa {};
  sa.sa_handler = exit_interrupted;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM}) {
    // A signal the caller ignores stays ignored (a non-interactive shell's background job keeps SIGINT off).
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace ma::cli
