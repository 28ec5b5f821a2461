// Ctrl-C and SIGTERM for long commands (download, stats): the handler only sets a flag; the work polls it (at
// least once per 256 KB read), removes its temp files and the command exits 130 with nothing half-written. A
// second signal is not caught: it ends the process at once.
#pragma once
#include <atomic>

namespace ma::cli {

// Installs the handlers (once) and returns the flag they set.
const std::atomic<bool>& interrupt_flag();

inline constexpr int kInterruptedExit = 130;

}  // namespace ma::cli
