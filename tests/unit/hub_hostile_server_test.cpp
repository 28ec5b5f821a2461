// The Hub client against the faults a review reproduced, one test (or two) per fault, each failing without
// its fix: a live download's temp file swept from another PID namespace, a mirror's own ETag refused, Ctrl-C
// not heard during a Retry-After wait, the token echoed in a header or a redirect URL, a small file read for
// 64 MiB, a bare 404 of a file called a missing repository, a listing naming a file twice, GGUF headers
// without an overall budget, and a header larger than the first read from a server that ignores Range.
// In-process, against a scripted server on 127.0.0.1 (canned_http_server.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "canned_http_server.h"
#include "core/error.h"
#include "hub/content_hash.h"
#include "hub/download.h"
#include "hub/hub_cache.h"
#include "hub/hub_errors.h"
#include "hub/hub_http.h"
#include "hub/model_info.h"
#include "hub/remote_header.h"
#include "hub/remote_model.h"
#include "hub/repo_ref.h"
#include "hub/stale_temp.h"
#include "test_support.h"
#include "torch_zip_writer.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

const std::string kCommit(40, 'a');
const std::string kToken = "hf_reviewTOKENabcdefghijklmnopqrstuvwx";

std::string git_sha1(std::string_view b) {
  return content_hash_of(b, std::string(40, '0'));
}
std::string sha256(std::string_view b) {
  return content_hash_of(b, std::string(64, '0'));
}

struct Listed {
  Listed(std::string p, std::string c, bool l = false, std::optional<uint64_t> n = std::nullopt)
      : path(std::move(p)), content(std::move(c)), lfs(l), size(n) {}
  std::string path, content;
  bool lfs;
  std::optional<uint64_t> size;  // else content's
};

std::string listing(const std::vector<Listed>& files) {
  std::string s = "{\"id\":\"org/m\",\"sha\":\"" + kCommit + "\",\"siblings\":[";
  for (size_t i = 0; i < files.size(); ++i) {
    const Listed& f = files[i];
    const uint64_t size = f.size.value_or(f.content.size());
    s += (i ? "," : "") + std::string("{\"rfilename\":\"") + f.path + "\",\"size\":" + std::to_string(size) +
         ",\"blobId\":\"" + git_sha1(f.content) + "\"";
    if (f.lfs)
      s += ",\"lfs\":{\"sha256\":\"" + sha256(f.content) + "\",\"size\":" + std::to_string(size) + "}";
    s += "}";
  }
  return s + "]}";
}

// The file a /resolve/ URL names, or "" for another request.
std::string resolved(const CannedRequest& r) {
  const size_t at = r.path.find("/resolve/");
  if (at == std::string::npos) return {};
  return r.path.substr(r.path.find('/', at + 9) + 1);
}

HubSettings settings_for(const CannedServer& server, const TempDir& dir) {
  HubSettings s;
  s.endpoint = server.endpoint();
  s.cache_root = dir / "hub";
  s.backoff_base_s = 0.01;
  s.max_transport_retries = 0;
  return s;
}

RepoRef org_m() {
  return *parse_repo_ref("org/m");
}

std::string message_of(const std::function<void()>& f, ErrorKind* kind = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (kind) *kind = e.kind();
    return e.message();
  }
  return "(nothing thrown)";
}

const std::string kConfig = "{\"model_type\":\"llama\"}";
const std::string kBig = std::string(300000, 'w');

// Defect 1: a temp file whose pid means nothing here (its writer is in another PID namespace) but whose
// writer holds its lock is live, and stays.
TEST(HubHostileServer, ALockedTempFileIsNotSweptThoughItsPidSeemsGone) {
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  TempDir dir;
  const fs::path live = dir / ("a." + std::to_string(dead) + ".incomplete");
  const fs::path stale = dir / ("b." + std::to_string(dead) + ".incomplete");
  write_file(live, "x");
  write_file(stale, "x");
  const int fd = ::open(live.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);  // the writer of another namespace
  sweep_stale_incomplete(dir.path(), [](std::string_view) { return true; });
  EXPECT_TRUE(fs::exists(live)) << "a locked temp file is a live download's";
  EXPECT_FALSE(fs::exists(stale));
  ::close(fd);
  sweep_stale_incomplete(dir.path(), [](std::string_view) { return true; });
  EXPECT_FALSE(fs::exists(live)) << "unlocked, and its pid gone: stale";
}

// Defect 1: download holds the lock on its temp file while it writes it.
TEST(HubHostileServer, DownloadLocksItsTempFileWhileWritingIt) {
  std::atomic<bool> release{false};
  CannedServer server([&](const CannedRequest& r, int fd) {
    if (r.path.rfind("/api/models/", 0) == 0)
      return CannedServer::send(fd, 200, {}, listing({{"big.bin", kBig, true}}));
    // Half the file, then the rest once the test has looked at the temp file.
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(kBig.size()) + "\r\n\r\n";
    if (!CannedServer::write_all(fd, head + kBig.substr(0, kBig.size() / 2))) return false;
    for (int i = 0; i < 1000 && !release; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return CannedServer::write_all(fd, kBig.substr(kBig.size() / 2));
  });
  TempDir dir;
  const HubSettings settings = settings_for(server, dir);
  DownloadOptions options;
  std::string failure;
  std::thread run([&] { failure = message_of([&] { download_repo(org_m(), settings, options); }); });
  const fs::path blobs = dir / "hub" / "models--org--m" / "blobs";
  fs::path temp;
  for (int i = 0; i < 1000 && temp.empty(); ++i) {
    std::error_code ec;
    for (fs::directory_iterator it(blobs, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".incomplete" && fs::file_size(it->path(), ec) > 0) temp = it->path();
    if (temp.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(temp.empty()) << "no temp file appeared";
  const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_NE(::flock(fd, LOCK_EX | LOCK_NB), 0) << "the writer holds no lock on " << temp;
  EXPECT_EQ(errno, EWOULDBLOCK);
  ::close(fd);
  release = true;
  run.join();
  EXPECT_EQ(failure, "(nothing thrown)");
  EXPECT_EQ(read_file(blobs / sha256(kBig)), kBig);
}

// Defect 1: the error of a failed move into the cache tells why it failed, not the cleanup's "Success".
TEST(HubHostileServer, AFailedMoveIntoTheCacheKeepsItsReason) {
  TempDir dir;
  HubCache cache(dir / "hub", "org/m");
  const std::string etag = sha256("x");
  const fs::path temp = cache.temp_blob(etag);
  write_file(temp, "x");
  fs::create_directories(dir / "hub" / "models--org--m" / "blobs" / etag / "full");  // rename: EISDIR
  const std::string m = message_of([&] { cache.commit_blob(temp, etag, kCommit, "x.bin"); });
  EXPECT_TRUE(contains(m, "cannot move the download into the cache")) << m;
  EXPECT_FALSE(contains(m, "Success")) << m;
}

// Defect 2: a mirror's ETag that is not a content hash (nginx's "5f2b1c-49e20") is no reason to refuse a file
// whose bytes hash to the listing's hash; a content hash that differs still is.
TEST(HubHostileServer, AMirrorsOwnEtagIsIgnoredTheListingsHashDecides) {
  std::string etag = "\"5f2b1c-49e20\"";
  CannedServer server([&](const CannedRequest& r, int fd) {
    if (r.path.rfind("/api/models/", 0) == 0)
      return CannedServer::send(fd, 200, {}, listing({{"config.json", kConfig}, {"big.bin", kBig, true}}));
    const std::string name = resolved(r);
    return CannedServer::send_file(fd, r, name == "big.bin" ? kBig : kConfig, {{"ETag", etag}});
  });
  TempDir dir;
  const HubSettings settings = settings_for(server, dir);
  DownloadOptions options;
  DownloadResult result;
  EXPECT_EQ(message_of([&] { result = download_repo(org_m(), settings, options); }), "(nothing thrown)");
  EXPECT_EQ(result.files_downloaded, 2u);

  TempDir other;
  etag = "\"" + std::string(64, 'e') + "\"";  // a well-formed SHA-256 of other bytes: changed on the server
  const HubSettings settings2 = settings_for(server, other);
  options.include = {"big.bin"};
  ErrorKind kind{};
  const std::string m = message_of([&] { download_repo(org_m(), settings2, options); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Network) << m;
  EXPECT_TRUE(contains(m, "changed on the server")) << m;
}

// Defect 3: Ctrl-C during a 429's Retry-After wait, or a 503's backoff, stops the download within a moment.
TEST(HubHostileServer, CtrlCEndsAWaitBetweenRetries) {
  for (int status : {429, 503}) {
    CannedServer server([&](const CannedRequest& r, int fd) {
      if (r.path.rfind("/api/models/", 0) == 0)
        return CannedServer::send(fd, 200, {}, listing({{"config.json", kConfig}}));
      return CannedServer::send(fd, status, {{"Retry-After", "30"}});
    });
    TempDir dir;
    HubSettings settings = settings_for(server, dir);
    settings.backoff_base_s = 30;  // 503: waits of 8 s, the cap
    std::atomic<bool> cancel{false};
    DownloadOptions options;
    options.cancel = &cancel;
    std::thread ctrl_c([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      cancel = true;
    });
    const auto start = std::chrono::steady_clock::now();
    ErrorKind kind{};
    const std::string m = message_of([&] { download_repo(org_m(), settings, options); }, &kind);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ctrl_c.join();
    EXPECT_LT(seconds, 3.0) << status;
    EXPECT_EQ(kind, ErrorKind::LocalIO) << status << ": " << m;
    EXPECT_TRUE(contains(m, "interrupted")) << status << ": " << m;
  }
}

// Defect 4: a server that echoes the token, in a header it is quoted from or in the URL it redirects to, does
// not get it printed.
TEST(HubHostileServer, TheTokenAServerEchoesStaysOutOfErrors) {
  CannedServer server([&](const CannedRequest& r, int fd) {
    if (r.path.rfind("/api/models/", 0) == 0)
      return CannedServer::send(fd, 200, {}, listing({{"config.json", kConfig}, {"big.bin", kBig, true}}));
    const auto auth = r.headers.find("authorization");
    const std::string echoed = auth == r.headers.end() ? "none" : auth->second.substr(7);  // "Bearer "
    if (resolved(r) == "config.json")
      return CannedServer::send(fd, 200, {{"Content-Encoding", echoed}}, kConfig);
    // Port 1: nothing listens, so the next hop fails naming its URL.
    return CannedServer::send(fd, 302, {{"Location", "http://127.0.0.1:1/" + echoed + "/big.bin"}});
  });
  TempDir dir;
  HubSettings settings = settings_for(server, dir);
  settings.token = HubToken{kToken, "--token"};
  settings.send_token = true;
  for (const char* file : {"config.json", "big.bin"}) {
    DownloadOptions options;
    options.include = {file};
    ErrorKind kind{};
    const std::string m = message_of([&] { download_repo(org_m(), settings, options); }, &kind);
    EXPECT_EQ(kind, ErrorKind::Network) << file << ": " << m;
    EXPECT_TRUE(contains(m, "<token>")) << file << ": " << m;
    EXPECT_FALSE(contains(m, kToken.substr(3, 12))) << file << ": " << m;
  }
}

// Defect 5: the report reads a small file up to its listed size and one byte, not 64 MiB: more is a
// consistency failure of the server (exit 6), as in download.
TEST(HubHostileServer, ASmallFileLongerThanListedIsNotReadFor64MiB) {
  CannedServer server([&](const CannedRequest& r, int fd) {
    if (r.path.rfind("/api/models/", 0) == 0)
      return CannedServer::send(fd, 200, {}, listing({{"config.json", kConfig, false, 234}}));
    const uint64_t total = 80ull << 20;  // past the 64 MiB cap of a small file
    if (!CannedServer::write_all(fd,
                                 "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(total) + "\r\n\r\n"))
      return false;
    const std::string chunk(1 << 20, ' ');
    for (uint64_t sent = 0; sent < total; sent += chunk.size())
      if (!CannedServer::write_all(fd, chunk)) return false;
    return true;
  });
  TempDir dir;
  const HubSettings settings = settings_for(server, dir);
  ErrorKind kind{};
  const std::string m = message_of([&] { open_remote_model(org_m(), settings); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Network) << m;
  EXPECT_TRUE(contains(m, "consistency check failed")) << m;
}

// Defect 6: a 404 without X-Error-Code (a CDN's, a mirror's) for a file names the file, not the repository.
TEST(HubHostileServer, ABare404ForAFileNamesTheFile) {
  HubSettings settings;
  HubResult r;
  r.response.status = 404;
  ErrorKind kind{};
  std::string m = message_of(
      [&] {
        throw_hub_error(r, {"org/m", kCommit, "config.json"}, settings, 1);
      },
      &kind);
  EXPECT_EQ(kind, ErrorKind::NotFound);
  EXPECT_TRUE(contains(m, "file 'config.json' not found in org/m@" + kCommit)) << m;
  EXPECT_FALSE(contains(m, "repository 'org/m' not found")) << m;
  m = message_of([&] { throw_hub_error(r, {"org/m", "main", ""}, settings, 1); }, &kind);
  EXPECT_EQ(kind, ErrorKind::NotFound);
  EXPECT_TRUE(contains(m, "repository 'org/m' not found")) << m;
}

// Defect 7: a file listed twice is one file; listed twice differently, the listing is refused (exit 6).
TEST(HubHostileServer, AFileListedTwiceIsOneFileOrARefusedListing) {
  const HubModelInfo twice = parse_model_info(
      listing({{"config.json", kConfig}, {"big.bin", kBig, true}, {"big.bin", kBig, true}}), "model info");
  ASSERT_EQ(twice.files.size(), 2u);
  EXPECT_EQ(twice.files[1].path, "big.bin");
  ErrorKind kind{};
  const std::string m = message_of(
      [&] {
        parse_model_info(listing({{"big.bin", kBig, true}, {"big.bin", "other", true}}), "model info");
      },
      &kind);
  EXPECT_EQ(kind, ErrorKind::Network) << m;
  EXPECT_TRUE(contains(m, "big.bin")) << m;
}

// Defect 7: a download file that cannot be created says why.
TEST(HubHostileServer, ADownloadFileThatCannotBeCreatedSaysWhy) {
  CannedServer server([&](const CannedRequest& r, int fd) {
    if (r.path.rfind("/api/models/", 0) == 0)
      return CannedServer::send(fd, 200, {}, listing({{"config.json", kConfig}}));
    return CannedServer::send_file(fd, r, kConfig);
  });
  TempDir dir;
  const HubSettings settings = settings_for(server, dir);
  DownloadOptions options;
  options.out_dir = dir / "out";
  // Where this process's temp file goes, a directory: the create fails with EEXIST (the sweep takes files
  // only).
  fs::create_directories(dir / "out" / ("config.json." + std::to_string(getpid()) + ".incomplete"));
  ErrorKind kind{};
  const std::string m = message_of([&] { download_repo(org_m(), settings, options); }, &kind);
  EXPECT_EQ(kind, ErrorKind::LocalIO) << m;
  EXPECT_TRUE(contains(m, std::strerror(EEXIST))) << m;
}

// Defect 8: the header bytes of one listing have a budget; what is over it is refused before it is asked for.
TEST(HubHostileServer, HeaderBudgetRefusesPastItsCapAndStaysRefused) {
  HeaderBudget budget(100);
  budget.take(60, "a");
  EXPECT_FALSE(budget.refusal());
  ErrorKind kind{};
  const std::string m = message_of([&] { budget.take(50, "org/m/b.gguf"); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Limit) << m;
  EXPECT_TRUE(contains(m, "org/m/b.gguf")) << m;
  EXPECT_TRUE(budget.refusal());
  EXPECT_EQ(message_of([&] { budget.take(1, "c"); }, &kind), m) << "refused once, refused after";
  HeaderBudget reused(100);
  reused.take(100, "a");
  reused.give_back(70);  // read past a header, not kept
  reused.take(70, "b");
  EXPECT_FALSE(reused.refusal());
}

TEST(HubHostileServer, AGgufHeaderIsFetchedWithinTheBudget) {
  // A GGUF v3 header whose one string claims 20 MiB: the parser asks for that much after the first 2 MiB.
  auto le = [](uint64_t v, int bytes) {
    std::string s;
    for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
  };
  std::string file = "GGUF" + le(3, 4) + le(0, 8) + le(1, 8) + le(1, 8) + "k" + le(8, 4) + le(20u << 20, 8);
  file.resize(24u << 20, 'a');
  CannedServer server([&](const CannedRequest& r, int fd) { return CannedServer::send_file(fd, r, file); });
  TempDir dir;
  const HubSettings settings = settings_for(server, dir);
  HubHttp http(settings);
  HeaderBudget budget(4u << 20);
  ErrorKind kind{};
  const std::string m = message_of(
      [&] {
        fetch_gguf_header(http, server.endpoint() + "/org/m/resolve/" + kCommit + "/m.gguf", file.size(),
                          {"org/m", kCommit, "m.gguf"}, &budget);
      },
      &kind);
  EXPECT_EQ(kind, ErrorKind::Limit) << m;
  EXPECT_EQ(server.log().size(), 1u) << "only the first read fits the budget";

  // A header that fits: what was read past it is given back.
  std::string small = "GGUF" + le(3, 4) + le(0, 8) + le(1, 8) + le(1, 8) + "k" + le(8, 4) + le(1, 8) + "v";
  small.resize(4u << 20, 'a');
  file = small;
  HeaderBudget enough(3u << 20);
  const RemoteHeader h = fetch_gguf_header(http, server.endpoint() + "/org/m/resolve/" + kCommit + "/s.gguf",
                                           file.size(), {"org/m", kCommit, "s.gguf"}, &enough);
  EXPECT_LT(h.prefix.size(), 100u);
  EXPECT_EQ(message_of([&] { enough.take((3u << 20) - h.prefix.size(), "x"); }), "(nothing thrown)");
}

// The same budget bounds a PyTorch file's two ends: a read it cannot pay for is never asked for.
TEST(HubHostileServer, TorchEndsAreFetchedWithinTheBudget) {
  const std::string file = test::float_torch_zip({{"w", 1 << 20}});  // 4 MiB of storage between the ends
  CannedServer server([&](const CannedRequest& r, int fd) { return CannedServer::send_file(fd, r, file); });
  TempDir dir;
  const HubSettings settings = settings_for(server, dir);
  HubHttp http(settings);
  const std::string url = server.endpoint() + "/org/m/resolve/" + kCommit + "/pytorch_model.bin";
  const HubTarget target{"org/m", kCommit, "pytorch_model.bin"};
  const TorchEndsGuess guess = torch_ends_guess(1, 1);  // the head ~4 KiB, the tail ~68 KiB
  for (const uint64_t cap : {uint64_t{1024}, guess.head + 1024}) {
    HeaderBudget budget(cap, "PyTorch checkpoint layout");
    ErrorKind kind{};
    const size_t before = server.log().size();
    const std::string m =
        message_of([&] { fetch_torch_ends(http, url, guess, file.size(), target, &budget); }, &kind);
    EXPECT_EQ(kind, ErrorKind::Limit) << m;
    EXPECT_TRUE(contains(m, "PyTorch checkpoint layout")) << m;
    EXPECT_EQ(server.log().size() - before, cap < guess.head ? 0u : 1u)
        << "the head is read only if paid for";
  }
  HeaderBudget enough(guess.head + guess.tail);
  const RemoteHeader h = fetch_torch_ends(http, url, guess, file.size(), target, &enough);
  EXPECT_EQ(h.file_size, file.size());
  EXPECT_EQ(h.prefix.size(), guess.head + guess.tail + 16) << "both ends, packed";
}

// And a listing's safetensors headers: each may declare up to 100 MB, and a repository of many shards would
// have them all fetched and held. The follow-up a header asks for is refused past the budget; a header that
// fits gives back what its first read took past it.
TEST(HubHostileServer, SafetensorsHeadersAreFetchedWithinTheBudget) {
  const std::string json = "{\"__metadata__\":{\"pad\":\"" + std::string(3u << 20, 'p') + "\"}}";
  const std::string header = le64(json.size()) + json, file = header + std::string(1u << 20, '\0');
  CannedServer server([&](const CannedRequest& r, int fd) { return CannedServer::send_file(fd, r, file); });
  TempDir dir;
  const HubSettings settings = settings_for(server, dir);
  HubHttp http(settings);
  const std::string url = server.endpoint() + "/org/m/resolve/" + kCommit + "/m.safetensors";
  const HubTarget target{"org/m", kCommit, "m.safetensors"};
  HeaderBudget budget(1u << 20, "safetensors header");
  ErrorKind kind{};
  const std::string m =
      message_of([&] { fetch_safetensors_header(http, url, 100'000, file.size(), target, &budget); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Limit) << m;
  EXPECT_TRUE(contains(m, "safetensors header")) << m;
  EXPECT_EQ(server.log().size(), 1u) << "the 3 MB follow-up is not asked for";

  HeaderBudget enough(5u << 20, "safetensors header");
  const RemoteHeader h = fetch_safetensors_header(http, url, 5u << 20, file.size(), target, &enough);
  EXPECT_EQ(h.prefix, header);
  EXPECT_EQ(message_of([&] { enough.take((5u << 20) - header.size(), "x"); }), "(nothing thrown)")
      << "the first read's bytes past the header are given back";
}

// Defect 9 (README, "Hub models"): a server that ignores Range is read up to the bytes asked for; a header
// larger than that first read fails (exit 6), saying so.
TEST(HubHostileServer, AHeaderLargerThanTheFirstReadFailsWhereRangeIsIgnored) {
  const std::string json = "{\"__metadata__\":{\"pad\":\"" + std::string(1000, 'p') + "\"}}";
  const std::string file = le64(json.size()) + json;
  CannedServer server([&](const CannedRequest&, int fd) { return CannedServer::send(fd, 200, {}, file); });
  TempDir dir;
  const HubSettings settings = settings_for(server, dir);
  HubHttp http(settings);
  ErrorKind kind{};
  const std::string m = message_of(
      [&] {
        fetch_safetensors_header(http, server.endpoint() + "/org/m/resolve/" + kCommit + "/m.safetensors",
                                 100, file.size(), {"org/m", kCommit, "m.safetensors"});
      },
      &kind);
  EXPECT_EQ(kind, ErrorKind::Network) << m;
  EXPECT_TRUE(contains(m, "ignores Range")) << m;
}

}  // namespace
}  // namespace ma::test
