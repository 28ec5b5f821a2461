// Ctrl-C handling of the command line (cli/interrupt.h), in a forked child of the test: the first SIGINT only
// sets the flag the long scans poll, the second ends the process; elsewhere the first ends it with exit 130.
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

// A command that does not poll the flag (the report, tensors, compare) ends at once with the documented 130,
// for SIGTERM as for Ctrl-C (the default action would give 143 for SIGTERM).
TEST(HostileInput, AnInterruptOfACommandThatDoesNotPollExits130) {
  for (int sig : {SIGINT, SIGTERM}) {
    const pid_t pid = fork();
    if (pid == 0) {
      cli::exit_on_interrupt();
      raise(sig);
      _exit(3);  // not reached
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "signal " << sig;
    EXPECT_EQ(WEXITSTATUS(status), cli::kInterruptedExit) << "signal " << sig;
  }
}

// A signal the caller ignores stays ignored (a background job of a non-interactive script): neither handler
// takes SIGINT back.
TEST(HostileInput, AnIgnoredInterruptStaysIgnored) {
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGINT, SIG_IGN);
    cli::exit_on_interrupt();
    (void)cli::interrupt_flag();
    raise(SIGINT);
    _exit(7);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

}  // namespace
}  // namespace ma::test
