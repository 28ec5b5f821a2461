// Ctrl-C and SIGTERM for long commands (download, stats, spectrum): the handler only sets a flag; the work
// polls it (at least once per 256 KB read), removes its temp files and the command exits 130 with nothing
// half-written. A second signal is not caught: it ends the process at once.
#pragma once
#include <atomic>

namespace ma::cli {

// Installs the handlers (once) and returns the flag they set.
const std::atomic<bool>& interrupt_flag();

// For every command until it asks for the flag: Ctrl-C or SIGTERM ends the process at once with exit 130, as
// the exit-code table says (the default action would report 130 for Ctrl-C but 143 for SIGTERM). Outputs are
// renamed into place whole, so none is left half-written, and the handler removes the temp files of those
// not yet renamed (remove_temp_files_at_signal).
void exit_on_interrupt();

inline constexpr int kInterruptedExit = 130;

}  // namespace ma::cli
