// Building repos for the fake Hub (tests/hub) in a line: the fake Hub's own tests, unit and end to end; and
// the base of a suite whose tests share one fake Hub.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "fake_hub.h"
#include "test_support.h"

namespace ma::test {

inline FakeFile fake_file(const std::string& path, std::string content, bool lfs = false) {
  FakeFile f;
  f.path = path;
  f.content = std::move(content);
  f.lfs = lfs;
  return f;
}

inline FakeRepo fake_repo(const std::string& id, const std::string& mode, std::vector<FakeFile> files) {
  FakeRepo r;
  r.id = id;
  r.mode = mode;
  r.files = std::move(files);
  return r;
}

// A suite whose tests share one fake Hub (nginx takes a while to start): the suite's SetUpTestSuite creates
// it with create_shared_hub, adds its repositories and starts it; it stops when the suite ends. Where nginx
// is not installed there is none, and every test skips, saying so. Each test starts with an empty log.
class SharedFakeHubTest : public ::testing::Test {
 protected:
  // A hub that expects `token` ("" for none), or nullptr without nginx.
  static FakeHub* create_shared_hub(const std::string& token) {
    if (!FakeHub::available()) return nullptr;
    work_ = new TempDir();
    hub_ = new FakeHub(work_->path() / "hub", token);
    return hub_;
  }
  static void TearDownTestSuite() {
    delete hub_;
    delete work_;
    hub_ = nullptr;
    work_ = nullptr;
  }
  void SetUp() override {
    if (!hub_) GTEST_SKIP() << "nginx not installed: the Hub client's end-to-end tests need it";
    hub_->clear_log();
  }

  // The requests the CDN (LFS files) answered since the test began.
  static std::vector<LogEntry> cdn_log() {
    std::vector<LogEntry> out;
    for (const LogEntry& e : hub_->log())
      if (e.server == "cdn") out.push_back(e);
    return out;
  }

  static inline FakeHub* hub_ = nullptr;
  static inline TempDir* work_ = nullptr;
};

}  // namespace ma::test
