#include "cli/stdout_status.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.h"

namespace ma::cli {
namespace {

int g_first_errno = 0;

}  // namespace

void note_stdout_error() {
  if (!g_first_errno) g_first_errno = errno ? errno : EIO;
}

int finish_stdout(int exit_code) {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) note_stdout_error();
  if (!g_first_errno) return exit_code;
  if (g_first_errno != EPIPE)
    std::fprintf(stderr, "modelanalyzer: error: standard output: write failed: %s\n",
                 std::strerror(g_first_errno));
  return static_cast<int>(ErrorKind::LocalIO);
}

}  // namespace ma::cli
