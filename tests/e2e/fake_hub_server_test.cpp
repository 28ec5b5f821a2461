// The fake Hub (tests/hub) itself: one nginx with a repo per fault mode, driven with the curl command-line
// tool so that what is checked is the wire protocol the Hub client will see, not our own reading of it. (What
// it refuses to serve, without starting nginx: unit/fake_hub_input_test.cpp.)
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "fake_hub.h"
#include "fake_hub_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "hf_fake_token_123";
constexpr uint64_t kFiveGB = 5'000'000'000ull;
const std::string kBigEtag(64, 'b');

// Deterministic, non-repeating-looking bytes.
std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 251 + 7) & 0xff);
  return s;
}

struct Response {
  int exit_code = -1;  // curl's
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased; the last response's
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  bool has(const std::string& name) const { return headers.count(name) > 0; }
};

void parse_headers(const std::string& text, Response& r) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("HTTP/", 0) == 0) {  // a new response starts (after a followed redirect)
      r.headers.clear();
      r.status = std::atoi(line.substr(line.find(' ') + 1).c_str());
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
  }
}

// Runs `curl -sS <args>` (args shell-quoted by the caller); headers and body are kept apart through files.
Response curl(const std::string& args) {
  TempDir tmp;
  const fs::path hdr = tmp.path() / "headers", body = tmp.path() / "body";
  const std::string cmd =
      "curl -sS --max-time 30 -D '" + hdr.string() + "' -o '" + body.string() + "' " + args + " 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  Response r;
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  parse_headers(read_file(hdr), r);
  r.body = read_file(body);
  return r;
}

std::string q(const std::string& s) {
  return "'" + s + "'";
}
std::string bearer(const std::string& token) {
  return "-H " + q("Authorization: Bearer " + token) + " ";
}

std::string sha256_of(const std::string& bytes) {
  TempDir tmp;
  const fs::path p = tmp.path() / "f";
  std::ofstream(p, std::ios::binary) << bytes;
  FILE* pipe = ::popen(("sha256sum '" + p.string() + "'").c_str(), "r");
  char buf[65] = {};
  const size_t n = pipe ? std::fread(buf, 1, 64, pipe) : 0;
  if (pipe) ::pclose(pipe);
  return std::string(buf, n);
}

FakeRepo gpt2_repo() {
  FakeFile big = fake_file("big.safetensors", "HEADER", true);
  big.sparse_size = kFiveGB;
  big.etag = kBigEtag;
  FakeRepo r =
      fake_repo("gpt2", "normal",
                {fake_file("config.json", "{\"model_type\":\"gpt2\"}"), fake_file("hello.txt", "hello\n"),
                 fake_file("model.safetensors", pattern(4096), true), std::move(big)});
  r.info_json_fields = "\"downloads\":12,\"likes\":3";
  return r;
}

class FakeHubTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!FakeHub::available() || !have_tool("curl")) return;
    dir_ = std::make_unique<TempDir>();
    hub_ = std::make_unique<FakeHub>(dir_->path() / "hub", kToken);
    hub_->add_repo(gpt2_repo());
    const FakeFile config = fake_file("config.json", "{}");
    const FakeFile model = fake_file("model.safetensors", pattern(4096), true);
    hub_->add_repo(fake_repo("org/gated", "gated", {config, model}));
    hub_->add_repo(fake_repo("org/private", "private", {config, model}));
    hub_->add_repo(fake_repo("org/limited", "rate_limited", {config, model}));
    FakeRepo hostile = fake_repo("org/limited-hostile", "rate_limited", {config});
    hostile.limit_headers = {{"Retry-After", "inf"}, {"RateLimit", "\"api\";r=0;t=nan"}};
    hub_->add_repo(hostile);
    hub_->add_repo(fake_repo("org/flaky", "flaky", {config, model}));
    hub_->add_repo(fake_repo("org/norange", "ignore_range", {model}));
    hub_->add_repo(fake_repo("org/truncated", "truncated", {model}));
    hub_->add_repo(fake_repo("org/corrupt", "corrupt", {model}));
    hub_->add_repo(fake_repo("org/slow", "slow", {fake_file("model.safetensors", pattern(384 << 10), true)}));
    hub_->add_repo(fake_repo("org/loop", "redirect_loop", {config}));
    hub_->start();
  }
  static void TearDownTestSuite() {
    hub_.reset();
    dir_.reset();
  }
  void SetUp() override {
    if (!FakeHub::available()) GTEST_SKIP() << "nginx not installed";
    if (!hub_) GTEST_SKIP() << "curl not installed";
  }

  static std::string hub(const std::string& path) { return q(hub_->endpoint() + path); }
  static std::string resolve(const std::string& id, const std::string& path,
                             const std::string& rev = "main") {
    return hub("/" + id + "/resolve/" + rev + "/" + path);
  }
  // The CDN URL a resolve redirects to, followed by hand (without the token).
  static Response cdn_get(const std::string& id, const std::string& path, const std::string& extra = "") {
    const Response redirect = curl(resolve(id, path));
    EXPECT_EQ(redirect.status, 302);
    return curl(extra + q(redirect.header("location")));
  }

  static inline std::unique_ptr<TempDir> dir_;
  static inline std::unique_ptr<FakeHub> hub_;
};

TEST_F(FakeHubTest, ModelInfoJson) {
  const std::string commit = hub_->commit_of("gpt2");
  for (const std::string& path :
       {std::string("/api/models/gpt2"), std::string("/api/models/gpt2/revision/main"),
        "/api/models/gpt2/revision/" + commit + "?blobs=true"}) {
    const Response r = curl(hub(path));
    ASSERT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.header("content-type"), "application/json");
    EXPECT_NE(
        r.body.find("\"id\":\"gpt2\",\"modelId\":\"gpt2\",\"author\":\"gpt2\",\"sha\":\"" + commit + "\""),
        std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find("\"private\":false,\"gated\":false"), std::string::npos);
    // info_json_fields replaces the defaults it names.
    EXPECT_NE(r.body.find("\"downloads\":12,\"likes\":3"), std::string::npos);
    EXPECT_EQ(r.body.find("\"downloads\":0"), std::string::npos);
    EXPECT_NE(r.body.find("{\"rfilename\":\"hello.txt\",\"size\":6,"
                          "\"blobId\":\"ce013625030ba8dba906f756967f9e9ca394464a\"}"),
              std::string::npos);
    EXPECT_NE(r.body.find("{\"rfilename\":\"model.safetensors\",\"size\":4096,\"blobId\":\""),
              std::string::npos);
    EXPECT_NE(r.body.find("\"lfs\":{\"sha256\":\"" + hub_->etag_of("gpt2", "model.safetensors") +
                          "\",\"size\":4096,\"pointerSize\":129}"),
              std::string::npos);
    EXPECT_NE(
        r.body.find("\"lfs\":{\"sha256\":\"" + kBigEtag + "\",\"size\":5000000000,\"pointerSize\":135}"),
        std::string::npos);
  }
  if (have_tool("python3")) {
    const std::string json_path = (dir_->path() / "info.json").string();
    std::ofstream(json_path) << curl(hub("/api/models/gpt2")).body;
    EXPECT_EQ(
        std::system(("python3 -c 'import json,sys; json.load(open(sys.argv[1]))' " + json_path).c_str()), 0);
  }
  const Response bad_rev = curl(hub("/api/models/gpt2/revision/v9"));
  EXPECT_EQ(bad_rev.status, 404);
  EXPECT_EQ(bad_rev.header("x-error-code"), "RevisionNotFound");
}

TEST_F(FakeHubTest, NonLfsFileWithGitBlobEtag) {
  const std::string commit = hub_->commit_of("gpt2");
  for (const std::string& rev : {std::string("main"), commit}) {
    const Response r = curl(resolve("gpt2", "hello.txt", rev));
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "hello\n");
    EXPECT_EQ(r.header("x-repo-commit"), commit);
    EXPECT_EQ(r.header("etag"), "\"ce013625030ba8dba906f756967f9e9ca394464a\"");  // git hash-object
    EXPECT_EQ(r.header("content-length"), "6");
  }
  EXPECT_EQ(hub_->etag_of("gpt2", "hello.txt"), "ce013625030ba8dba906f756967f9e9ca394464a");
  const Response head = curl("-I " + resolve("gpt2", "config.json"));
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("content-length"), "21");
  EXPECT_EQ(head.header("content-type"), "application/json");
  const Response part = curl("-r 1-3 " + resolve("gpt2", "hello.txt"));
  EXPECT_EQ(part.status, 206);
  EXPECT_EQ(part.body, "ell");
}

TEST_F(FakeHubTest, LfsFileRedirectsToCdnWithLinkedHeaders) {
  const std::string sha = hub_->etag_of("gpt2", "model.safetensors");
  const std::string location = hub_->cdn_origin() + "/lfs/" + sha + "?X-Amz-Signature=SECRETSIG&Expires=1";
  for (const std::string& flag : {std::string(), std::string("-I ")}) {
    const Response r = curl(flag + resolve("gpt2", "model.safetensors"));
    ASSERT_EQ(r.status, 302) << flag;
    EXPECT_EQ(r.header("location"), location);
    EXPECT_EQ(r.header("x-repo-commit"), hub_->commit_of("gpt2"));
    EXPECT_EQ(r.header("x-linked-etag"), "\"" + sha + "\"");
    EXPECT_EQ(r.header("x-linked-size"), "4096");
    EXPECT_EQ(r.header("etag"), "\"" + sha + "\"");
  }
  const Response blob = curl(q(location));
  ASSERT_EQ(blob.status, 200);
  EXPECT_EQ(blob.body, pattern(4096));
  EXPECT_EQ(sha256_of(blob.body), sha);
  EXPECT_EQ(blob.header("etag"), "\"" + sha + "\"");
}

TEST_F(FakeHubTest, CdnHonoursRangeAndIfRange) {
  const std::string sha = hub_->etag_of("gpt2", "model.safetensors");
  const std::string url = q(hub_->cdn_origin() + "/lfs/" + sha);
  const Response part = curl("-r 100-199 " + url);
  ASSERT_EQ(part.status, 206);
  EXPECT_EQ(part.header("content-range"), "bytes 100-199/4096");
  EXPECT_EQ(part.body, pattern(4096).substr(100, 100));
  // A resume with If-Range: our etag keeps the range, a stale one gets the whole file.
  EXPECT_EQ(curl("-r 100-199 -H " + q("If-Range: \"" + sha + "\"") + " " + url).status, 206);
  EXPECT_EQ(curl("-r 100-199 -H " + q("If-Range: \"stale\"") + " " + url).status, 200);
}

TEST_F(FakeHubTest, SparseFiveGigabyteShard) {
  const Response head = curl("-I " + resolve("gpt2", "big.safetensors"));
  ASSERT_EQ(head.status, 302);
  EXPECT_EQ(head.header("x-linked-size"), "5000000000");
  EXPECT_EQ(head.header("x-linked-etag"), "\"" + kBigEtag + "\"");
  const std::string url = q(head.header("location"));
  EXPECT_EQ(curl("-r 0-5 " + url).body, "HEADER");
  const Response tail = curl("-r 4999999990-4999999999 " + url);
  EXPECT_EQ(tail.status, 206);
  EXPECT_EQ(tail.body, std::string(10, '\0'));
  struct stat st {};
  ASSERT_EQ(::stat((dir_->path() / "hub/www/cdn/models--gpt2" / kBigEtag).c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), kFiveGB);
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, 1u << 20);  // sparse: no 5 GB on disk
}

TEST_F(FakeHubTest, NotFoundCodes) {
  const Response entry = curl(resolve("gpt2", "missing.bin"));
  EXPECT_EQ(entry.status, 404);
  EXPECT_EQ(entry.header("x-error-code"), "EntryNotFound");
  EXPECT_EQ(entry.header("x-error-message"), "Entry not found");
  EXPECT_EQ(entry.header("x-repo-commit"), hub_->commit_of("gpt2"));
  EXPECT_EQ(entry.body, "{\"error\":\"Entry not found\"}");
  EXPECT_EQ(curl(resolve("gpt2", "missing.bin", hub_->commit_of("gpt2"))).header("x-error-code"),
            "EntryNotFound");
  for (const char* rev : {"v9", "refs%2Fpr%2F1", "0123456789012345678901234567890123456789"}) {
    const Response r = curl(resolve("gpt2", "config.json", rev));
    EXPECT_EQ(r.status, 404) << rev;
    EXPECT_EQ(r.header("x-error-code"), "RevisionNotFound") << rev;
  }
  for (const std::string& path :
       {std::string("/nobody/resolve/main/config.json"), std::string("/api/models/nobody"),
        std::string("/org/none/resolve/main/config.json")}) {
    const Response r = curl(hub(path));
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.header("x-error-code"), "RepoNotFound") << path;
    EXPECT_EQ(r.header("x-error-message"), "Repository not found") << path;
  }
}

TEST_F(FakeHubTest, GatedRepo) {
  const Response info = curl(hub("/api/models/org/gated"));
  EXPECT_EQ(info.status, 200);
  EXPECT_NE(info.body.find("\"gated\":\"manual\""), std::string::npos);
  const Response anonymous = curl(resolve("org/gated", "config.json"));
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.header("x-error-code"), "GatedRepo");
  EXPECT_EQ(anonymous.header("x-error-message").rfind("Access to model org/gated is restricted", 0), 0u);
  const Response with_token = curl(bearer(kToken) + resolve("org/gated", "model.safetensors"));
  EXPECT_EQ(with_token.status, 403);
  EXPECT_EQ(with_token.header("x-error-code"), "GatedRepo");
  EXPECT_EQ(with_token.header("x-error-message").rfind("Access to model org/gated is restricted", 0), 0u);
}

TEST_F(FakeHubTest, PrivateRepo) {
  for (const std::string& url :
       {hub("/api/models/org/private"), resolve("org/private", "config.json"),
        resolve("org/private", "model.safetensors"), resolve("org/private", "nope")}) {
    const Response anonymous = curl(url);
    EXPECT_EQ(anonymous.status, 401) << url;
    EXPECT_EQ(anonymous.header("x-error-code"), "RepoNotFound") << url;
    EXPECT_EQ(anonymous.header("x-error-message"), "Repository not found") << url;
    for (const std::string& wrong : {std::string("wrong"), std::string("HF_FAKE_TOKEN_123")}) {
      const Response bad = curl(bearer(wrong) + url);
      EXPECT_EQ(bad.status, 401) << url;
      EXPECT_FALSE(bad.has("x-error-code")) << url;
      EXPECT_EQ(bad.header("x-error-message"), "Invalid credentials in Authorization header") << url;
    }
  }
  const Response info = curl(bearer(kToken) + hub("/api/models/org/private"));
  EXPECT_EQ(info.status, 200);
  EXPECT_NE(info.body.find("\"private\":true"), std::string::npos);
  const Response config = curl(bearer(kToken) + resolve("org/private", "config.json"));
  EXPECT_EQ(config.status, 200);
  EXPECT_EQ(config.body, "{}");
  EXPECT_EQ(curl(bearer(kToken) + resolve("org/private", "model.safetensors")).status, 302);
  EXPECT_EQ(curl(bearer(kToken) + resolve("org/private", "nope")).header("x-error-code"), "EntryNotFound");
}

// A test primes the limiter with one request, so that the client's first request is rejected.
TEST_F(FakeHubTest, RateLimitedAnswers429WithRetryAfter) {
  EXPECT_EQ(curl(resolve("org/limited", "config.json")).status, 200);  // prime
  for (const char* path : {"config.json", "model.safetensors", "missing"}) {
    const Response r = curl(resolve("org/limited", path));
    EXPECT_EQ(r.status, 429) << path;
    EXPECT_EQ(r.header("retry-after"), "2") << path;
  }
  EXPECT_EQ(curl(hub("/api/models/org/limited")).status, 200);  // the API is not limited
}

TEST_F(FakeHubTest, RateLimitedRepoSendsItsOwnLimitHeaders) {
  curl(resolve("org/limited-hostile", "config.json"));  // prime
  const Response r = curl(resolve("org/limited-hostile", "config.json"));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.header("retry-after"), "inf");
  EXPECT_EQ(r.header("ratelimit"), "\"api\";r=0;t=nan");
}

TEST_F(FakeHubTest, FlakyFailsOnceThenRecovers) {
  EXPECT_EQ(curl(resolve("org/flaky", "model.safetensors")).status, 302);  // prime
  const Response failed = curl(resolve("org/flaky", "model.safetensors"));
  EXPECT_EQ(failed.status, 503);
  EXPECT_FALSE(failed.has("retry-after"));
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_EQ(curl(resolve("org/flaky", "model.safetensors")).status, 302);
}

TEST_F(FakeHubTest, IgnoreRangeServesWholeBlob) {
  const Response r = cdn_get("org/norange", "model.safetensors", "-r 0-99 ");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.size(), 4096u);
}

TEST_F(FakeHubTest, TruncatedBlobLacksLast64Bytes) {
  const Response head = curl("-I " + resolve("org/truncated", "model.safetensors"));
  EXPECT_EQ(head.header("x-linked-size"), "4096");
  EXPECT_EQ(hub_->etag_of("org/truncated", "model.safetensors"), sha256_of(pattern(4096)));
  const Response r = cdn_get("org/truncated", "model.safetensors");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, pattern(4096 - 64));
}

TEST_F(FakeHubTest, CorruptBlobHasOneFlippedByte) {
  const Response r = cdn_get("org/corrupt", "model.safetensors");
  ASSERT_EQ(r.status, 200);
  ASSERT_EQ(r.body.size(), 4096u);
  const std::string good = pattern(4096);
  for (size_t i = 0; i < good.size(); ++i) {
    if (i == 2048) continue;
    ASSERT_EQ(r.body[i], good[i]) << i;
  }
  EXPECT_EQ(r.body[2048], static_cast<char>(~good[2048]));
  EXPECT_NE(sha256_of(r.body), hub_->etag_of("org/corrupt", "model.safetensors"));
}

TEST_F(FakeHubTest, SlowCdnIsRateLimited) {
  const auto t0 = std::chrono::steady_clock::now();
  const Response r = cdn_get("org/slow", "model.safetensors");
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.body.size(), 384u << 10);
  EXPECT_GT(seconds, 0.7);  // 384 KiB at 256 KiB/s
}

TEST_F(FakeHubTest, RedirectLoopPointsAtItself) {
  const std::string url = hub_->endpoint() + "/org/loop/resolve/main/config.json?x=1";
  const Response r = curl(q(url));
  EXPECT_EQ(r.status, 302);
  EXPECT_EQ(r.header("location"), url);
  EXPECT_NE(curl("-L --max-redirs 5 " + q(url)).exit_code, 0);  // curl gives up: too many redirects
}

TEST_F(FakeHubTest, LogShowsTokenOnHubNeverOnCdn) {
  hub_->clear_log();
  EXPECT_TRUE(hub_->log().empty());
  const Response redirect = curl(bearer(kToken) + resolve("gpt2", "model.safetensors"));
  ASSERT_EQ(redirect.status, 302);
  curl("-r 0-9 " + q(redirect.header("location")));
  const std::vector<LogEntry> log = hub_->wait_for_log(2);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].server, "hub");
  EXPECT_EQ(log[0].method, "GET");
  EXPECT_EQ(log[0].uri, "/gpt2/resolve/main/model.safetensors");
  EXPECT_EQ(log[0].status, 302);
  EXPECT_EQ(log[0].authorization, std::string("Bearer ") + kToken);
  EXPECT_EQ(log[0].range, "");
  EXPECT_GT(log[0].bytes_sent, 0u);
  EXPECT_EQ(log[1].server, "cdn");
  EXPECT_EQ(log[1].uri,
            "/lfs/" + hub_->etag_of("gpt2", "model.safetensors") + "?X-Amz-Signature=SECRETSIG&Expires=1");
  EXPECT_EQ(log[1].status, 206);
  EXPECT_EQ(log[1].range, "bytes=0-9");
  EXPECT_EQ(log[1].authorization, "");
  hub_->clear_log();
  EXPECT_TRUE(hub_->log().empty());
  curl("-I " + hub("/api/models/gpt2"));
  const std::vector<LogEntry> after = hub_->wait_for_log(1);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].method, "HEAD");
}

// A DeepSeek-V3-shaped repo: 163 sparse 5 GB shards and more, every one an exact nginx location.
TEST(FakeHubStartup, TwoHundredShardsStartFast) {
  if (!FakeHub::available()) GTEST_SKIP() << "nginx not installed";
  TempDir dir;
  FakeRepo r = fake_repo("deepseek-ai/DeepSeek-V3", "normal", {fake_file("config.json", "{}")});
  for (int i = 1; i <= 200; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-00200.safetensors", i);
    FakeFile shard = fake_file(name, "x", true);
    shard.sparse_size = kFiveGB;
    shard.etag = std::string(58, 'a') + std::string(name).substr(6, 5) + "0";
    r.files.push_back(std::move(shard));
  }
  FakeHub hub(dir.path() / "hub", kToken);
  hub.add_repo(std::move(r));
  const auto t0 = std::chrono::steady_clock::now();
  hub.start();
  const double started = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ fake hub ] nginx with 200 LFS files started in " << started * 1000 << " ms\n";
  EXPECT_LT(started, 3.0);
  if (have_tool("curl")) {
    const Response r200 = curl(
        "-I " + q(hub.endpoint() + "/deepseek-ai/DeepSeek-V3/resolve/main/model-00200-of-00200.safetensors"));
    EXPECT_EQ(r200.status, 302);
    EXPECT_EQ(r200.header("x-linked-size"), "5000000000");
  }
  const std::string endpoint = hub.endpoint();
  hub.stop();
  if (have_tool("curl")) {
    EXPECT_NE(curl(q(endpoint + "/api/models/x")).exit_code, 0);  // nothing listens now
  }
}

}  // namespace
}  // namespace ma::test
