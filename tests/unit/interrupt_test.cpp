// Ctrl-C handling of the command line (cli/interrupt.h), in a forked child of the test: the first SIGINT only
// sets the flag the long scans poll, the second ends the process; elsewhere the first ends it with exit 130,
// removing the temp files of the outputs not yet in place.
#include "cli/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "test_support.h"

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

// Killed while its outputs are being written (a 6 MB CSV staged beside its place): the handler's _exit runs
// no destructor, and the temp files stayed behind, full-size. The handler removes those of the outputs not
// yet renamed into place, written or sealed, in any state; an output already in place stays.
TEST(HostileInput, AnInterruptRemovesTheTempFilesOfOutputsNotYetInPlace) {
  for (int sig : {SIGINT, SIGTERM}) {
    TempDir dir;
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        cli::exit_on_interrupt();
        AtomicFile done(dir / "done.csv");
        done.write("done");
        done.commit();
        AtomicFile writing(dir / "writing.csv");
        writing.write("half");
        AtomicFile sealed(dir / "sealed.csv");
        sealed.write("whole");
        sealed.seal();
        raise(sig);
      } catch (...) {
        _exit(4);
      }
      _exit(3);  // not reached
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "signal " << sig;
    EXPECT_EQ(WEXITSTATUS(status), cli::kInterruptedExit) << "signal " << sig;
    std::vector<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) left.push_back(e.path().filename());
    EXPECT_EQ(left, std::vector<std::string>{"done.csv"}) << "signal " << sig;
    EXPECT_EQ(read_file(dir / "done.csv"), "done");
  }
}

}  // namespace
}  // namespace ma::test
