// Ctrl-C handling of the command line (cli/interrupt.h), in a forked child of the test: the first SIGINT only
// sets the flag the long scans poll, the second ends the process.
#include "cli/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

namespace ma::test {
namespace {

TEST(HostileInput, ASecondInterruptIsNotCaught) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::atomic<bool>& flag = cli::interrupt_flag();
    raise(SIGINT);
    if (!flag.load()) _exit(2);  // the first one must only set the flag
    raise(SIGINT);
    _exit(3);  // not reached: the second one terminates the process
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

}  // namespace
}  // namespace ma::test
