// Downloads that lose their connection mid-file (anchors-reliability N8, N9), against
// tests/hub/cut_server.py: the first GET is cut after 40% of the body; the client must resume with a Range
// request (or restart when the server ignores it) and still verify size and SHA-256 before the file appears.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "cli_test_support.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

constexpr int kSize = 3'000'000, kCut = 1'200'000;

class CutServer {
 public:
  CutServer(const fs::path& dir, const std::string& mode) : port_file_(dir / "port") {
    pid_ = fork();
    if (pid_ == 0) {
      const std::string script = std::string(MA_SOURCE_DIR) + "/tests/hub/cut_server.py";
      execlp("python3", "python3", script.c_str(), port_file_.c_str(), mode.c_str(),
             std::to_string(kSize).c_str(), std::to_string(kCut).c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    // Up once it has written its port file, or never when it exits first (no python3, a broken script). How
    // long python takes to start is the machine's load, not the server's health: only a hung start is
    // bounded.
    for (const auto hung = std::chrono::steady_clock::now() + std::chrono::seconds(60);
         !fs::exists(port_file_) && std::chrono::steady_clock::now() < hung;) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;  // reaped: nothing to kill, and its pid may be another process's by now
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  ~CutServer() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  bool up() const { return fs::exists(port_file_); }
  std::string endpoint() const { return "http://127.0.0.1:" + read_file(port_file_); }
  std::string log() const { return read_file(port_file_.string() + ".log"); }

 private:
  fs::path port_file_;
  pid_t pid_;
};

CommandResult download(const CutServer& server, const fs::path& cache) {
  return run_cli_env("-u HF_TOKEN HF_ENDPOINT=" + server.endpoint() + " HF_HUB_CACHE=" + quoted(cache),
                     "download cut/model");
}

// A download that gives an attempt up after one second under 1 KiB/s, and how long it took in all.
struct TimedDownload {
  CommandResult result;
  double seconds = 0;
};
TimedDownload download_with_one_second_timeout(const CutServer& server, const fs::path& cache) {
  const auto start = std::chrono::steady_clock::now();
  CommandResult r = run_cli_env("-u HF_TOKEN HF_HUB_DOWNLOAD_TIMEOUT=1 HF_ENDPOINT=" + server.endpoint() +
                                    " HF_HUB_CACHE=" + quoted(cache),
                                "download cut/model");
  return {std::move(r), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

// The cut server in `mode`, as `server`; the test is skipped, visibly, when python3 cannot start it.
#define START_CUT_SERVER_OR_SKIP(server, mode) \
  CutServer server(dir_.path(), mode);         \
  if (!server.up()) GTEST_SKIP() << "python3 could not start tests/hub/cut_server.py"

// Each test's server writes its port and log under dir_; its downloads go to dir_/cache.
class HubResume : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(HubResume, LostConnectionResumesWithRange) {
  START_CUT_SERVER_OR_SKIP(server, "resume");
  CommandResult r = download(server, dir_ / "cache");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 resumed after a lost connection"), std::string::npos) << r.err;
  EXPECT_NE(server.log().find("range=bytes=" + std::to_string(kCut) + "-"), std::string::npos)
      << server.log();
  fs::path file = fs::path(r.out.substr(0, r.out.find('\n'))) / "weights.bin";
  EXPECT_EQ(fs::file_size(file), static_cast<uintmax_t>(kSize));  // and its SHA-256 matched, or no file
}

// --verbose lists the transfer that broke too (status 0 and the bytes that came before it broke), not only
// the Range request that resumed it: the exchange a user turns --verbose on to see.
TEST_F(HubResume, VerboseListsTheBrokenTransferAResumeContinues) {
  START_CUT_SERVER_OR_SKIP(server, "resume");
  CommandResult r =
      run_cli_env("-u HF_TOKEN HF_ENDPOINT=" + server.endpoint() + " HF_HUB_CACHE=" + quoted(dir_ / "cache"),
                  "download cut/model -v");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("/weights.bin -> 0, " + std::to_string(kCut) + " bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/weights.bin bytes=" + std::to_string(kCut) + "- -> 206, "), std::string::npos)
      << r.err;
}

TEST_F(HubResume, ServerIgnoringRangeOnResumeRestartsTheFile) {
  START_CUT_SERVER_OR_SKIP(server, "ignore-range");
  CommandResult r = download(server, dir_ / "cache");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path file = fs::path(r.out.substr(0, r.out.find('\n'))) / "weights.bin";
  EXPECT_EQ(fs::file_size(file), static_cast<uintmax_t>(kSize));
  // The cut GET, then the Range request answered with the whole file (200), which is the file: the part
  // already here is dropped before its first byte is written.
  const std::string log = server.log();
  const size_t gets = occurrences(log, "GET /cut/model/resolve/");
  EXPECT_EQ(gets, 2u) << log;
}

// The same, and the whole file sent again is cut too: its bytes are the file's from byte 0 (not appended
// after the first part), so the next Range asks for what this answer left.
TEST_F(HubResume, ServerIgnoringRangeAndCutAgainResumesFromWhatItSent) {
  START_CUT_SERVER_OR_SKIP(server, "ignore-range-and-cut");
  CommandResult r = download(server, dir_ / "cache");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path file = fs::path(r.out.substr(0, r.out.find('\n'))) / "weights.bin";
  EXPECT_EQ(fs::file_size(file), static_cast<uintmax_t>(kSize));  // and its SHA-256 matched
  const std::string log = server.log();
  EXPECT_EQ(occurrences(log, "range=bytes=" + std::to_string(kCut) + "-"), 2u) << log;
  EXPECT_EQ(occurrences(log, "GET /cut/model/resolve/"), 3u) << log;
}

// Ctrl-C while a transfer waits for bytes that do not come stops it within about a second (curl's progress
// callback sees the flag; the body callback, which checked it before, never runs), exit 130, no file kept.
TEST_F(HubResume, CtrlCStopsAStalledTransferPromptly) {
  START_CUT_SERVER_OR_SKIP(server, "stall");
  ::unsetenv("HF_TOKEN");
  ::setenv("HF_ENDPOINT", server.endpoint().c_str(), 1);
  ::setenv("HF_HUB_CACHE", (dir_ / "cache").c_str(), 1);
  const pid_t pid = start_cli({"download", "cut/model", "--quiet"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const Interrupted ended = interrupt_cli(pid);
  EXPECT_EQ(ended.exit_code, 130);
  EXPECT_LT(ended.seconds, 5.0) << "the stalled transfer went on after Ctrl-C";
  EXPECT_EQ(occurrences(server.log(), "GET /cut/model/resolve/"), 1u) << "Ctrl-C is not retried\n"
                                                                      << server.log();
  size_t partial = 0;
  if (fs::exists(dir_ / "cache"))
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "cache"))
      partial += e.path().extension() == ".incomplete";
  EXPECT_EQ(partial, 0u);
}

// A file asked for as its bytes (Accept-Encoding: identity) that comes with a Content-Encoding is not its
// bytes: a network fault (exit 6) naming the encoding, not a malformed file, and nothing kept.
TEST_F(HubResume, ACompressedAnswerToABytesRequestIsANetworkFault) {
  START_CUT_SERVER_OR_SKIP(server, "compressed");
  CommandResult r = download(server, dir_ / "cache");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("Content-Encoding: the server compressed (gzip)"), std::string::npos) << r.err;
  // Another try would get the same answer: neither retried nor resumed.
  EXPECT_EQ(occurrences(server.log(), "GET /cut/model/resolve/"), 1u) << server.log();
}

// A response header over libcurl's 100 KB limit is named as such (libcurl reports it as "out of memory"),
// exit 6, and not asked for again: another try would meet it too.
TEST_F(HubResume, AHeaderOverLibcurlsLimitIsNamedAndNotRetried) {
  START_CUT_SERVER_OR_SKIP(server, "huge-header");
  CommandResult r = download(server, dir_ / "cache");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("a response header over libcurl's 100 KB limit"), std::string::npos) << r.err;
  EXPECT_EQ(occurrences(server.log(), "GET /cut/model/resolve/"), 1u) << server.log();
}

TEST_F(HubResume, SilentServerTimesOutAndFailsAfterRetries) {
  START_CUT_SERVER_OR_SKIP(server, "stall");
  const auto [r, seconds] = download_with_one_second_timeout(server, dir_ / "cache");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("timed out"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 20) << "a silent server must not hang the client";
  const std::string log = server.log();
  const size_t gets = occurrences(log, "GET /cut/model/resolve/");
  EXPECT_EQ(gets, 3u) << "one attempt and two retries\n" << log;
}

// A server that keeps sending, a few bytes a second, is as stuck as a silent one: under 1 KiB a second for
// HF_HUB_DOWNLOAD_TIMEOUT seconds the transfer is given up (it was held open while a byte a second came).
TEST_F(HubResume, DrippingServerTimesOutAndFailsAfterRetries) {
  START_CUT_SERVER_OR_SKIP(server, "drip");
  const auto [r, seconds] = download_with_one_second_timeout(server, dir_ / "cache");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("timed out"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 20) << "a dripping server must not hold the client";
}

}  // namespace
}  // namespace ma::test
