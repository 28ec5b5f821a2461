// The Hub client end to end: the CLI against a real nginx on loopback serving a mock Hub (tests/hub), with
// the fault modes of anchors-reliability §8.7–8.9. Every run gets a fresh cache and a sentinel token, and
// the sentinel is looked for in every output, export, log and cache file afterwards.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "cli_test_support.h"
#include "core/json.h"
#include "core/units.h"
#include "fake_hub.h"
#include "fake_hub_hash.h"
#include "fake_hub_test_support.h"

namespace fs = std::filesystem;
using ma::test::FakeFile;
using ma::test::FakeHub;
using ma::test::FakeRepo;

namespace ma::test {
namespace {

constexpr const char* kSentinelToken = "hf_SENTINELabc123tokenvalue";

// A safetensors file holding one F32 tensor of `elements` zeros, written sparse by the fake hub: the header
// is real, the data a hole, so a 512 MB file costs nothing.
FakeFile sparse_safetensors(const std::string& path, uint64_t elements) {
  std::string header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(elements) +
                       "],\"data_offsets\":[0," + std::to_string(elements * 4) + "]}}";
  while (header.size() % 8) header += ' ';
  std::string prefix(8, '\0');
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  FakeFile f;
  f.path = path;
  f.content = prefix + header;
  f.sparse_size = f.content.size() + elements * 4;
  f.lfs = true;
  f.etag = std::string(64, 'a');  // never hashed: the tests using it read headers only
  return f;
}

FakeRepo example_repo(const std::string& id, const std::string& mode) {
  FakeRepo r = repo_from_directory(id, example_dir());
  r.mode = mode;
  for (FakeFile& f : r.files)
    if (f.path.size() > 12 && f.path.substr(f.path.size() - 12) == ".safetensors") f.lfs = true;
  return r;
}

// The same bytes with one digit changed: what a tampering mirror or a flipped bit leaves, and what a size
// check alone cannot see.
std::string same_size_tamper(std::string content) {
  const size_t digit = content.find_last_of("0123456789");
  content[digit] = content[digit] == '9' ? '8' : static_cast<char>(content[digit] + 1);
  return content;
}

// A repo whose config.json is served tampered, while the listing and the ETag name the original's hash.
FakeRepo tampered_repo() {
  FakeRepo r = example_repo("ex/tampered", "normal");
  for (FakeFile& f : r.files)
    if (f.path == "config.json") {
      f.etag = detail::git_blob_sha1(f.content, f.content.size());
      f.content = same_size_tamper(f.content);
    }
  return r;
}

// The example under a listing that names its files only (no sizes, no LFS hashes), as a mirror or an API
// answer without blobs=true gives them.
FakeRepo unhashed_listing_repo() {
  FakeRepo r = example_repo("ex/unhashed", "normal");
  std::string siblings;
  for (const FakeFile& f : r.files)
    siblings += (siblings.empty() ? "" : ",") + ("{\"rfilename\":\"" + f.path + "\"}");
  r.info_json_fields = "\"siblings\":[" + siblings + "]";
  return r;
}

// `tensors --json` from the parameter count to the run info: what two runs of one model share (their
// timestamps may fall in different seconds).
std::string inventory_of(const std::string& json) {
  const size_t from = json.find("\"num_parameters\""), to = json.find("\"analysis_timestamp\"");
  return from == std::string::npos || to == std::string::npos ? json : json.substr(from, to - from);
}

// The example as transformers shards it (an index naming model-00001-of-00001.safetensors), beside copies of
// the weights in other forms that are not the model read: Mistral's consolidated.safetensors (512 MB,
// sparse), the Trainer's training_args.bin and an ONNX export's data in a folder.
FakeRepo sharded_with_copies_repo() {
  FakeRepo r = example_repo("ex/sharded-with-copies", "normal");
  std::string weight_map;
  for (FakeFile& f : r.files) {
    if (f.path != "model.safetensors") continue;
    f.path = "model-00001-of-00001.safetensors";
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = n << 8 | static_cast<uint8_t>(f.content[static_cast<size_t>(i)]);
    json::Document header = json::Document::parse(f.content.substr(8, n), "header");
    for (const json::Member& m : header.root().members())
      if (m.key != "__metadata__")
        weight_map += (weight_map.empty() ? "\"" : ",\"") + std::string(m.key) + "\":\"" + f.path + "\"";
  }
  r.files.push_back(fake_file("model.safetensors.index.json", "{\"weight_map\":{" + weight_map + "}}"));
  r.files.push_back(sparse_safetensors("consolidated.safetensors", 128u << 20));
  r.files.push_back(fake_file("training_args.bin", std::string(5112, 't'), true));
  r.files.push_back(fake_file("onnx/model.onnx_data.bin", std::string(4096, 'd'), true));
  return r;
}

// A rate-limited repo holding only the config, whose 429 answers carry `header`.
FakeRepo limited_repo(const std::string& id, std::pair<std::string, std::string> header) {
  FakeRepo r = example_repo(id, "rate_limited");
  std::erase_if(r.files, [](const FakeFile& f) { return f.path != "config.json"; });
  r.limit_headers = {std::move(header)};
  return r;
}

class HubCli : public SharedFakeHubTest {
 protected:
  static void SetUpTestSuite() {
    if (!create_shared_hub(kSentinelToken)) return;
    FakeRepo main = example_repo("ex/tiny-llama", "normal");
    main.info_json_fields =
        "\"author\":\"ex\",\"downloads\":1234567,\"likes\":89,\"cardData\":{\"license\":\"apache-2.0\"}";
    hub_->add_repo(main);
    for (const char* mode :
         {"gated", "private", "rate_limited", "flaky", "truncated", "corrupt", "redirect_loop"})
      hub_->add_repo(example_repo(std::string("ex/") + mode, mode));
    FakeRepo bad_info = example_repo("ex/bad_info", "normal");
    bad_info.info_json_fields = "\"downloads\":";  // the server answers invalid JSON
    hub_->add_repo(bad_info);
    hub_->add_repo(tampered_repo());
    hub_->add_repo(unhashed_listing_repo());
    hub_->add_repo(sharded_with_copies_repo());
    hub_->add_repo(limited_repo("ex/limited-inf", {"Retry-After", "inf"}));
    hub_->add_repo(limited_repo("ex/limited-nan", {"RateLimit", "\"api\";r=0;t=nan"}));
    FakeRepo norange;
    norange.id = "ex/ignore_range";
    norange.mode = "ignore_range";
    norange.files.push_back(sparse_safetensors("model.safetensors", 128u << 20));  // 512 MB
    hub_->add_repo(norange);
    FakeRepo slow = example_repo("ex/slow", "slow");
    FakeFile big;
    big.path = "big.bin";
    big.content = std::string(768 << 10, 'x');
    big.lfs = true;
    slow.files.push_back(big);
    hub_->add_repo(slow);
    if (auto data = shared_data())
      for (const auto& e : fs::directory_iterator(*data / "fixtures"))
        if (e.is_directory() && has_safetensors(e.path()))
          hub_->add_repo(repo_from_directory("fx/" + e.path().filename().string(), e.path()));
    hub_->start();
  }
  static bool has_safetensors(const fs::path& dir) {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".safetensors") return true;
    return false;
  }

  void TearDown() override {
    if (!hub_) return;
    // T1–T3: the sentinel token appears in no output, no cache file and never on the CDN.
    for (const std::string& s : outputs_)
      EXPECT_EQ(s.find(kSentinelToken), std::string::npos) << "token leaked in output";
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(cache_.path(), ec);
         it != fs::recursive_directory_iterator(); ++it)
      if (it->is_regular_file()) {
        EXPECT_EQ(read_file(it->path()).find(kSentinelToken), std::string::npos) << it->path();
      }
    for (const LogEntry& e : hub_->log())
      if (e.server == "cdn") {
        EXPECT_EQ(e.authorization, "") << "Authorization sent to the CDN: " << e.uri;
      }
  }

  // The CLI with the Hub environment: endpoint, a fresh cache, the sentinel token in HF_TOKEN (sent only
  // with --trust-endpoint, loopback not being a Hugging Face host).
  CommandResult run(const std::string& args, const std::string& env = "") {
    CommandResult r = run_cli_env(
        isolated_hub_env(hub_->endpoint(), cache_.path()) + " HF_TOKEN=" + kSentinelToken + " " + env, args);
    outputs_.push_back(r.out);
    outputs_.push_back(r.err);
    return r;
  }

  // The CLI on a limited repo right after one request has used up its limiter, so that the CLI's first
  // request is refused; with the seconds the run took.
  std::pair<CommandResult, double> run_limited(const std::string& repo, const std::string& args) {
    std::system(
        ("curl -s -o /dev/null '" + hub_->endpoint() + "/" + repo + "/resolve/main/config.json'").c_str());
    auto start = std::chrono::steady_clock::now();
    CommandResult r = run(repo + " " + args);
    return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
  }

  size_t count(const std::string& server, const std::string& uri_part) {
    size_t n = 0;
    for (const LogEntry& e : hub_->log())
      if (e.server == server && e.uri.find(uri_part) != std::string::npos) ++n;
    return n;
  }

  std::vector<fs::path> files_named(const std::string& suffix) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(cache_.path(), ec);
         it != fs::recursive_directory_iterator(); ++it) {
      std::string n = it->path().filename().string();
      if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        out.push_back(it->path());
    }
    return out;
  }

  TempDir cache_;
  std::vector<std::string> outputs_;
};

TEST_F(HubCli, ReportFromHubEqualsLocalAndReadsOnlyHeaders) {
  CommandResult local = run_cli(example() + " --json");
  const fs::path exported = cache_ / "report.json";
  CommandResult remote = run("ex/tiny-llama --json --trust-endpoint --export '" + exported.string() + "'");
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  json::Document l = json::Document::parse(local.out, "local");
  json::Document r = json::Document::parse(remote.out, "remote");
  EXPECT_EQ(r.root().find("num_parameters")->as_uint(), l.root().find("num_parameters")->as_uint());
  EXPECT_EQ(r.root().find("num_parameters")->as_uint(), 151872u);
  const json::Value* md = r.root().find("metadata");
  ASSERT_TRUE(md && md->is_object());
  EXPECT_EQ(md->find("author")->as_string(), "ex");
  EXPECT_EQ(md->find("downloads")->as_uint(), 1234567u);
  EXPECT_EQ(md->find("likes")->as_uint(), 89u);
  EXPECT_EQ(md->find("license")->as_string(), "apache-2.0");
  EXPECT_EQ(md->find("commit")->as_string(), hub_->commit_of("ex/tiny-llama"));
  EXPECT_TRUE(l.root().find("metadata")->is_null());
  EXPECT_EQ(read_file(exported), remote.out);  // scanned for the token by TearDown with the cache

  // One range request for the weight file's header, redirected once to the CDN; the token went to the hub.
  auto log = hub_->wait_for_log(4);
  size_t cdn = 0;
  for (const LogEntry& e : log) {
    if (e.server == "cdn") {
      ++cdn;
      EXPECT_EQ(e.range.rfind("bytes=0-", 0), 0u) << e.range;
      EXPECT_EQ(e.status, 206);
    } else {
      EXPECT_EQ(e.authorization, std::string("Bearer ") + kSentinelToken) << e.uri;
    }
  }
  EXPECT_EQ(cdn, 1u);
  EXPECT_EQ(count("hub", "/resolve/"), 2u) << "config.json and the header read";
  // The weights themselves are never downloaded: only the small file lands in blobs/.
  EXPECT_TRUE(files_named(".safetensors").empty());
}

// The model's size is the bytes of the files read, the index's shards: not the repository's every
// .safetensors and .bin file (the copies beside them would double it).
TEST_F(HubCli, ModelSizeCountsTheShardsReadNotTheCopiesBeside) {
  CommandResult r = run("ex/sharded-with-copies --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), 151872u);
  EXPECT_EQ(d.root().find("metadata")->find("weight_files_bytes")->as_uint(),
            fs::file_size(example_dir() / "model.safetensors"));
  CommandResult console = run("ex/sharded-with-copies");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(
      console.out.find(human_bytes(fs::file_size(example_dir() / "model.safetensors")) + " of weight files"),
      std::string::npos)
      << console.out;
}

// `download --needed` takes what the analysis reads, not the copies beside it; a command that reads the
// weights names that download, and reads the snapshot it leaves as the local model.
TEST_F(HubCli, DownloadNeededTakesWhatTheAnalysisReadsNotTheCopies) {
  CommandResult before = run("stats ex/sharded-with-copies");
  EXPECT_EQ(before.exit_code, 8) << before.err;
  EXPECT_NE(before.err.find("run `modelanalyzer download ex/sharded-with-copies --needed` first"),
            std::string::npos)
      << before.err;

  const fs::path out = cache_ / "needed";
  hub_->clear_log();
  CommandResult r = run("download ex/sharded-with-copies --needed --out '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(downloaded_files(out),
            (std::vector<std::string>{"config.json", "model-00001-of-00001.safetensors",
                                      "model.safetensors.index.json"}));
  // The files are chosen from one answer of the Hub, which the analysis and the download take too.
  hub_->wait_for_log(4);  // the model info and the three files at least
  EXPECT_EQ(count("hub", "/api/models/"), 1u);
  EXPECT_EQ(read_file(out / "model-00001-of-00001.safetensors"),
            read_file(example_dir() / "model.safetensors"));

  CommandResult cached = run("download ex/sharded-with-copies --needed --quiet");
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  CommandResult stats = run("stats ex/sharded-with-copies --json");
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  CommandResult local = run_cli("stats " + example() + " --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  const json::Document remote_stats = json::Document::parse(stats.out, "remote");
  const json::Document local_stats = json::Document::parse(local.out, "local");
  const std::vector<json::Value>& remote_t = remote_stats.root().find("tensors")->items();
  const std::vector<json::Value>& local_t = local_stats.root().find("tensors")->items();
  ASSERT_EQ(remote_t.size(), local_t.size());
  for (size_t i = 0; i < local_t.size(); ++i) {
    EXPECT_EQ(remote_t[i].find("name")->as_string(), local_t[i].find("name")->as_string());
    EXPECT_EQ(remote_t[i].find("mean")->as_double(), local_t[i].find("mean")->as_double());
  }
}

TEST_F(HubCli, SecondRunMakesNoHeaderRequestAndOfflineRunMakesNone) {
  ASSERT_EQ(run("ex/tiny-llama --json").exit_code, 0);
  hub_->clear_log();
  CommandResult warm = run("tensors ex/tiny-llama --json");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  hub_->wait_for_log(1);
  EXPECT_EQ(count("hub", "/resolve/"), 0u);
  EXPECT_EQ(count("cdn", "/lfs/"), 0u);
  EXPECT_EQ(count("hub", "/api/models/"), 1u);

  // N20(a): offline with the endpoint at a closed port still answers, from the cache alone.
  CommandResult offline =
      run("tensors ex/tiny-llama --json", "HF_HUB_OFFLINE=1 HF_ENDPOINT=http://127.0.0.1:9");
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(inventory_of(offline.out), inventory_of(warm.out));
}

// A listing without hashes names no key for the header cache: the etag and size the read found are kept per
// commit and path, so the offline run finds the header again.
TEST_F(HubCli, OfflineWorksFromAListingWithoutHashes) {
  CommandResult online = run("tensors ex/unhashed --json");
  ASSERT_EQ(online.exit_code, 0) << online.err;
  CommandResult offline =
      run("tensors ex/unhashed --json", "HF_HUB_OFFLINE=1 HF_ENDPOINT=http://127.0.0.1:9");
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(inventory_of(offline.out), inventory_of(online.out));
}

TEST_F(HubCli, ACorruptCachedHeaderIsFetchedAgain) {
  ASSERT_EQ(run("tensors ex/tiny-llama --json").exit_code, 0);
  const fs::path cached = cache_ / "hub" / "models--ex--tiny-llama" / "modelanalyzer" / "headers" /
                          hub_->etag_of("ex/tiny-llama", "model.safetensors");
  ASSERT_TRUE(fs::exists(cached));
  const std::string whole = read_file(cached);
  write_file(cached, whole.substr(0, whole.size() / 2));  // cut short, as a crash might leave it
  hub_->clear_log();
  CommandResult r = run("tensors ex/tiny-llama --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  hub_->wait_for_log(2);
  EXPECT_EQ(count("cdn", "/lfs/"), 1u) << "the header is read again";
  EXPECT_EQ(read_file(cached), whole);
}

TEST_F(HubCli, OfflineWithoutCacheNamesWhatIsMissing) {
  CommandResult r = run("ex/tiny-llama", "HF_HUB_OFFLINE=1");
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("not in the cache"), std::string::npos) << r.err;
  EXPECT_TRUE(hub_->log().empty());
}

TEST_F(HubCli, UnreachableHubFallsBackToTheCachedSnapshot) {
  ASSERT_EQ(run("ex/tiny-llama").exit_code, 0);
  CommandResult r = run("ex/tiny-llama --json", "HF_ENDPOINT=http://127.0.0.1:9");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("using the cached snapshot"), std::string::npos) << r.err;
}

TEST_F(HubCli, GatedRepoSaysWhereToAcceptTheLicense) {
  CommandResult r = run("ex/gated");
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("gated repo: request access at " + hub_->endpoint() + "/ex/gated"), std::string::npos)
      << r.err;
  EXPECT_EQ(occurrences(r.err, "modelanalyzer: error:"), 1u) << "one error line:\n" << r.err;
  EXPECT_NE(r.err.find("withheld from this endpoint"), std::string::npos) << r.err;
  CommandResult with_token = run("ex/gated --trust-endpoint");  // a token without access: 403
  EXPECT_EQ(with_token.exit_code, 7) << with_token.err;
  EXPECT_NE(with_token.err.find("HTTP 403: gated repo"), std::string::npos) << with_token.err;
  EXPECT_NE(with_token.err.find("sent: the token from HF_TOKEN"), std::string::npos) << with_token.err;
}

TEST_F(HubCli, InvalidJsonFromTheServerIsOneLine) {
  CommandResult r = run("ex/bad_info");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("model info of ex/bad_info"), std::string::npos) << r.err;
  EXPECT_EQ(occurrences(r.err, "modelanalyzer: error:"), 1u) << r.err;
}

TEST_F(HubCli, PrivateRepoNeedsTheRightToken) {
  CommandResult none = run("ex/private");
  EXPECT_EQ(none.exit_code, 7);
  EXPECT_NE(none.err.find("requires authentication"), std::string::npos) << none.err;
  CommandResult wrong =
      run("ex/private --trust-endpoint", "HF_TOKEN=hf_wrong");  // env's last assignment wins
  EXPECT_EQ(wrong.exit_code, 7) << wrong.err;
  EXPECT_NE(wrong.err.find("token rejected"), std::string::npos) << wrong.err;
  EXPECT_NE(wrong.err.find("from HF_TOKEN"), std::string::npos) << wrong.err;
  CommandResult right = run("ex/private --trust-endpoint");
  EXPECT_EQ(right.exit_code, 0) << right.err;
}

TEST_F(HubCli, NotFoundKindsAreTold) {
  CommandResult repo = run("ex/does-not-exist");
  EXPECT_EQ(repo.exit_code, 8);
  EXPECT_NE(repo.err.find("repository 'ex/does-not-exist' not found"), std::string::npos) << repo.err;
  CommandResult rev = run("ex/tiny-llama@v9.9");
  EXPECT_EQ(rev.exit_code, 8);
  EXPECT_NE(rev.err.find("revision 'v9.9' not found"), std::string::npos) << rev.err;
}

TEST_F(HubCli, RateLimitHonoursRetryAfter) {
  run_cli("--version");  // keep the prime as close to the run as possible
  auto [r, s] = run_limited("ex/rate_limited", "--json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  size_t limited = 0;
  for (const LogEntry& e : hub_->wait_for_log(3))
    if (e.status == 429) ++limited;
  EXPECT_GE(limited, 1u);
  EXPECT_GE(s, 2.0) << "Retry-After: 2 (+1 s) was not waited for";
}

TEST_F(HubCli, ServerErrorThenSuccessIsRetried) {
  CommandResult r = run_limited("ex/flaky", "--json").first;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  size_t failed = 0;
  for (const LogEntry& e : hub_->wait_for_log(3))
    if (e.status == 503) ++failed;
  EXPECT_GE(failed, 1u);
}

TEST_F(HubCli, ServerIgnoringRangeCannotMakeUsDownloadTheBody) {
  auto start = std::chrono::steady_clock::now();
  CommandResult r = run("tensors ex/ignore_range --json");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"shape\":[134217728]"), std::string::npos);
  // The model info, the resolve and the CDN transfer the client cut short: nginx logs that one once it finds
  // the connection gone, which may be after the client has exited.
  uint64_t sent = 0;
  size_t cdn = 0;
  for (const LogEntry& e : hub_->wait_for_log(3, std::chrono::seconds(10)))
    if (e.server == "cdn") {
      EXPECT_EQ(e.status, 200) << "the server was to ignore Range";
      sent += e.bytes_sent;
      ++cdn;
    }
  EXPECT_EQ(cdn, 1u);
  EXPECT_LT(sent, 64u << 20) << "the client read far more than the header of a 512 MB file";
  EXPECT_LT(s, 5.0);
}

TEST_F(HubCli, RedirectLoopStops) {
  CommandResult r = run("ex/redirect_loop");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("too many redirects"), std::string::npos) << r.err;
}

TEST_F(HubCli, DownloadVerifiesSizeAndHashIntoTheCacheLayout) {
  CommandResult r = run("download ex/tiny-llama --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path snapshot =
      cache_ / "hub" / "models--ex--tiny-llama" / "snapshots" / hub_->commit_of("ex/tiny-llama");
  EXPECT_EQ(r.out, snapshot.string() + "\n");
  ASSERT_TRUE(fs::is_symlink(snapshot / "model.safetensors"));
  EXPECT_EQ(fs::read_symlink(snapshot / "model.safetensors"),
            fs::path("../../blobs") / hub_->etag_of("ex/tiny-llama", "model.safetensors"));
  EXPECT_EQ(read_file(snapshot / "model.safetensors"), read_file(example_dir() / "model.safetensors"));
  EXPECT_EQ(read_file(cache_ / "hub" / "models--ex--tiny-llama" / "refs" / "main"),
            hub_->commit_of("ex/tiny-llama"));
  EXPECT_TRUE(files_named(".incomplete").empty());
  // The downloaded snapshot is a local model like any other.
  CommandResult local = run_cli("tensors '" + snapshot.string() + "' --json");
  EXPECT_EQ(local.exit_code, 0);
  CommandResult again = run("download ex/tiny-llama");
  EXPECT_NE(again.err.find("0 file(s) downloaded"), std::string::npos) << again.err;
  // Offline, the complete snapshot answers from the cache (the endpoint a closed port); a repository the
  // cache lacks is not found (8), not a network failure.
  CommandResult offline = run("download ex/tiny-llama", "HF_HUB_OFFLINE=1 HF_ENDPOINT=http://127.0.0.1:9");
  EXPECT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(offline.out, snapshot.string() + "\n");
  CommandResult absent = run("download ex/other", "HF_HUB_OFFLINE=1 HF_ENDPOINT=http://127.0.0.1:9");
  EXPECT_EQ(absent.exit_code, 8) << absent.err;
  EXPECT_NE(absent.err.find("offline (HF_HUB_OFFLINE)"), std::string::npos) << absent.err;
  // A file of the listing removed from the snapshot is named.
  fs::remove(snapshot / "config.json");
  CommandResult partial = run("download ex/tiny-llama", "HF_HUB_OFFLINE=1 HF_ENDPOINT=http://127.0.0.1:9");
  EXPECT_EQ(partial.exit_code, 8) << partial.err;
  EXPECT_NE(partial.err.find("not in the cache: config.json"), std::string::npos) << partial.err;
}

TEST_F(HubCli, DownloadIntoADirectoryWithIncludeGlob) {
  CommandResult r =
      run("download ex/tiny-llama --include '*.json' --out '" + (cache_ / "out").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(cache_ / "out" / "config.json"));
  EXPECT_FALSE(fs::exists(cache_ / "out" / "model.safetensors"));
}

TEST_F(HubCli, TruncatedOrCorruptDownloadLeavesNothing) {
  CommandResult t = run("download ex/truncated");
  EXPECT_EQ(t.exit_code, 6) << t.err;
  EXPECT_NE(t.err.find("consistency check failed"), std::string::npos) << t.err;
  CommandResult c = run("download ex/corrupt --include model.safetensors");
  EXPECT_EQ(c.exit_code, 6) << c.err;
  EXPECT_NE(c.err.find("not its etag"), std::string::npos) << c.err;
  EXPECT_TRUE(files_named(".safetensors").empty());
  for (const char* repo : {"models--ex--truncated", "models--ex--corrupt"})
    EXPECT_FALSE(fs::exists(cache_ / "hub" / repo / "blobs" /
                            hub_->etag_of(std::string("ex/") + (repo + 12), "model.safetensors")));
  EXPECT_TRUE(files_named(".incomplete").empty());
}

TEST_F(HubCli, KilledDownloadLeavesAValidCache) {
  const std::string cmd = "env -u HF_TOKEN HF_ENDPOINT=" + hub_->endpoint() + " HF_HUB_CACHE='" +
                          (cache_ / "hub").string() + "' " + cli_binary() +
                          " download ex/slow --include big.bin --quiet";
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd + " >/dev/null 2>&1").c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Killed mid-transfer: once its temp blob holds some bytes (768 KiB at 256 KiB/s take 3 s), however long
  // the run took to get there on a busy machine.
  bool mid_transfer = false, exited = false;
  for (const auto hung = std::chrono::steady_clock::now() + std::chrono::seconds(60);
       !mid_transfer && !exited && std::chrono::steady_clock::now() < hung;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (const fs::path& p : files_named(".incomplete")) {
      std::error_code ec;
      mid_transfer = mid_transfer || fs::file_size(p, ec) > 0;
    }
    exited = !mid_transfer && waitpid(pid, nullptr, WNOHANG) == pid;
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  ASSERT_TRUE(mid_transfer) << "the download ended or never began before it could be killed";
  const fs::path snapshot = cache_ / "hub" / "models--ex--slow" / "snapshots" / hub_->commit_of("ex/slow");
  EXPECT_FALSE(fs::exists(snapshot / "big.bin")) << "a killed download must not look complete";
  EXPECT_FALSE(
      fs::exists(cache_ / "hub" / "models--ex--slow" / "blobs" / hub_->etag_of("ex/slow", "big.bin")));
  CommandResult again = run("download ex/slow --include big.bin --quiet");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(fs::file_size(snapshot / "big.bin"), 768u << 10);
  EXPECT_TRUE(files_named(".incomplete").empty()) << "the killed run's temp blob was swept";
}

TEST_F(HubCli, TwoConcurrentRunsShareOneCache) {
  const std::string cmd = "env -u HF_TOKEN HF_ENDPOINT=" + hub_->endpoint() + " HF_HUB_CACHE='" +
                          (cache_ / "hub").string() + "' " + cli_binary() + " ";
  int a = std::system((cmd + "download ex/tiny-llama --quiet >/dev/null 2>&1 & " + cmd +
                       "download ex/tiny-llama --quiet >/dev/null 2>&1 & " + cmd +
                       "tensors ex/tiny-llama >/dev/null 2>&1 & wait")
                          .c_str());
  EXPECT_EQ(a, 0);
  CommandResult r = run("tensors ex/tiny-llama --json", "HF_HUB_OFFLINE=1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(files_named(".incomplete").empty());
  EXPECT_TRUE(files_named(".link").empty());
  const fs::path snapshot =
      cache_ / "hub" / "models--ex--tiny-llama" / "snapshots" / hub_->commit_of("ex/tiny-llama");
  EXPECT_EQ(read_file(snapshot / "model.safetensors"), read_file(example_dir() / "model.safetensors"));
}

TEST_F(HubCli, TokenIsNeverSentToAnEndpointThatIsNotHuggingFaceUnlessTrusted) {
  CommandResult r = run("ex/tiny-llama");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is not sent to"), std::string::npos) << r.err;
  for (const LogEntry& e : hub_->wait_for_log(3)) EXPECT_EQ(e.authorization, "") << e.uri;
  CommandResult bad = run("ex/tiny-llama", "HF_TOKEN='hf_a\tb'");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("invalid token characters"), std::string::npos);
}

// Every safetensors fixture served by the Hub gives the same inventory as the same directory read locally.
TEST_F(HubCli, EveryFixtureAnalysesAsItDoesLocally) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  size_t compared = 0;
  for (const auto& e : fs::directory_iterator(*data / "fixtures")) {
    if (!e.is_directory() || !has_safetensors(e.path())) continue;
    const std::string name = e.path().filename().string();
    CommandResult local = run_cli("tensors '" + e.path().string() + "' --json");
    CommandResult remote = run("tensors fx/" + name + " --json");
    ASSERT_EQ(local.exit_code, remote.exit_code) << name << ": " << remote.err;
    EXPECT_EQ(tensors_json_body(remote.out), tensors_json_body(local.out)) << name;
    ++compared;
  }
  EXPECT_GE(compared, 20u);
}

// A config.json served with other bytes of the same size than the listing's blobId and the ETag name: refused
// with exit 6, and neither blobs/ nor snapshots/ of the shared cache get anything for it.
TEST_F(HubCli, TamperedSmallFileIsRefusedAndNeverCached) {
  CommandResult r = run("ex/tampered --json");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("ex/tampered/config.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("content hash mismatch"), std::string::npos) << r.err;
  EXPECT_EQ(occurrences(r.err, "modelanalyzer: error:"), 1u) << r.err;
  const fs::path repo = cache_ / "hub" / "models--ex--tampered";
  std::error_code ec;
  EXPECT_FALSE(fs::exists(repo / "snapshots" / hub_->commit_of("ex/tampered") / "config.json", ec));
  const std::string served = same_size_tamper(read_file(example_dir() / "config.json"));
  for (auto it = fs::recursive_directory_iterator(repo / "blobs", ec);
       it != fs::recursive_directory_iterator(); ++it) {
    EXPECT_NE(it->path().filename(), hub_->etag_of("ex/tampered", "config.json")) << it->path();
    EXPECT_NE(read_file(it->path()), served) << it->path();
  }
}

// `Retry-After: inf` is a wait beyond any cap: one 429, then exit 6 at once with a sane number of seconds.
TEST_F(HubCli, RetryAfterInfinityFailsAtOnceSayingItExceedsTheCap) {
  auto [r, s] = run_limited("ex/limited-inf", "--json");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("exceeds the 60 s cap"), std::string::npos) << r.err;
  const size_t at = r.err.find("asks to wait ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string seconds = r.err.substr(at + 13, r.err.find(' ', at + 13) - at - 13);
  const bool sane =
      !seconds.empty() && seconds.size() < 12 && seconds.find_first_not_of("0123456789") == std::string::npos;
  EXPECT_TRUE(sane) << "not a plain number of seconds: " << r.err;
  if (sane) {
    EXPECT_GT(std::stoll(seconds), 60) << r.err;
  }
  EXPECT_LT(s, 2.0) << "no wait, no retry";
  EXPECT_EQ(count("hub", "/ex/limited-inf/resolve/"), 2u) << "the priming request and one 429";
}

// `RateLimit: "api";r=0;t=nan` says nothing usable: the normal backoff (1 s, 2 s) applies, not six requests
// in a burst.
TEST_F(HubCli, RateLimitWithANaNResetFallsBackToTheBackoff) {
  auto [r, s] = run_limited("ex/limited-nan", "--json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(s, 1.0) << "no backoff between the attempts";
  size_t limited = 0;
  for (const LogEntry& e : hub_->wait_for_log(3))
    if (e.status == 429) ++limited;
  EXPECT_GE(limited, 1u);
  EXPECT_LE(limited, 2u);
}

// A file already in --out with the right size but other bytes is hashed, found wrong and downloaded again.
TEST_F(HubCli, DownloadReplacesATamperedFileInTheOutputDirectory) {
  const fs::path out = cache_ / "out";
  const std::string args = "download ex/tiny-llama --include config.json --out '" + out.string() + "'";
  ASSERT_EQ(run(args).exit_code, 0);
  const std::string original = read_file(example_dir() / "config.json");
  write_file(out / "config.json", same_size_tamper(original));
  CommandResult r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 file(s) downloaded"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(out / "config.json"), original);
  CommandResult again = run(args);
  EXPECT_NE(again.err.find("0 file(s) downloaded"), std::string::npos) << again.err;
}

// Seed 004's users download several models under one folder: a second repository into a --out that holds
// another's would overwrite its config.json and mix their weights. The directory names the repository it
// holds (.modelanalyzer/repository), and another is refused before anything is fetched, with a directory of
// its own suggested; the same repository again, or another in that directory, is downloaded.
TEST_F(HubCli, DownloadRefusesASecondRepositoryInOneOutputDirectory) {
  const fs::path out = cache_ / "models";
  const std::string into = " --include config.json --quiet --out '" + out.string() + "'";
  ASSERT_EQ(run("download ex/tiny-llama" + into).exit_code, 0);
  EXPECT_EQ(read_file(out / ".modelanalyzer" / "repository"), "ex/tiny-llama\n");
  ASSERT_EQ(run("download ex/tiny-llama" + into).exit_code, 0);
  hub_->clear_log();
  CommandResult r = run("download ex/sharded-with-copies" + into);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--out: holds ex/tiny-llama, downloaded there; ex/sharded-with-copies's files would "
                       "overwrite its config.json"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(such as " + (out / "ex/sharded-with-copies").string() + ")"), std::string::npos)
      << r.err;
  EXPECT_EQ(count("hub", "/api/models/ex/sharded-with-copies"), 0u) << "refused before any request";
  const fs::path own = out / "ex" / "sharded-with-copies";
  ASSERT_EQ(run("download ex/sharded-with-copies --include config.json --quiet --out '" + own.string() + "'")
                .exit_code,
            0);
  EXPECT_EQ(read_file(own / ".modelanalyzer" / "repository"), "ex/sharded-with-copies\n");
  // The marker is no weight: the directory still reads as the model downloaded there.
  CommandResult report = run("'" + out.string() + "' --json --quiet");
  EXPECT_EQ(report.exit_code, 0) << report.err;
}

// The same for a blob in the cache: a blob rewritten with other bytes since it was verified is hashed again.
TEST_F(HubCli, DownloadReplacesATamperedBlobInTheCache) {
  ASSERT_EQ(run("download ex/tiny-llama --include config.json --quiet").exit_code, 0);
  const std::string original = read_file(example_dir() / "config.json");
  const fs::path blob =
      cache_ / "hub" / "models--ex--tiny-llama" / "blobs" / hub_->etag_of("ex/tiny-llama", "config.json");
  ASSERT_EQ(read_file(blob), original);
  write_file(blob, same_size_tamper(original));
  CommandResult r = run("download ex/tiny-llama --include config.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 file(s) downloaded"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(blob), original);
}

// An analysis finds a cached small file whose bytes are no longer those its listed hash names (a crash cut it
// short, another tool rewrote it): it fetches the file again and replaces it, as download does, where it
// read the damaged bytes.
TEST_F(HubCli, AnalysisReplacesADamagedSmallFileInTheCache) {
  ASSERT_EQ(run("ex/tiny-llama --json --quiet").exit_code, 0);
  const std::string original = read_file(example_dir() / "config.json");
  const fs::path blob =
      cache_ / "hub" / "models--ex--tiny-llama" / "blobs" / hub_->etag_of("ex/tiny-llama", "config.json");
  ASSERT_EQ(read_file(blob), original);
  for (const std::string& damaged : {same_size_tamper(original), original.substr(0, original.size() / 2)}) {
    write_file(blob, damaged);
    hub_->clear_log();
    CommandResult r = run("ex/tiny-llama --json --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    hub_->wait_for_log(1);
    EXPECT_EQ(count("hub", "/resolve/" + hub_->commit_of("ex/tiny-llama") + "/config.json"), 1u)
        << "the damaged config.json is fetched again";
    EXPECT_EQ(read_file(blob), original);
  }
  hub_->clear_log();
  ASSERT_EQ(run("ex/tiny-llama --json --quiet").exit_code, 0);
  hub_->wait_for_log(1);  // the listing, asked for on every online run
  EXPECT_EQ(count("hub", "/config.json"), 0u) << "an intact file is read from the cache";
}

// Temp files of a download killed with SIGKILL carry its pid: a later download sweeps those of dead
// processes, in the cache's blobs/ and in --out, and leaves a live process's (this test's) alone.
TEST_F(HubCli, DownloadSweepsTempFilesOfDeadProcessesOnly) {
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const std::string etag = hub_->etag_of("ex/tiny-llama", "config.json");
  const fs::path blobs = cache_ / "hub" / "models--ex--tiny-llama" / "blobs", out = cache_ / "out";
  fs::create_directories(blobs);
  fs::create_directories(out);
  std::map<fs::path, bool> temps;  // path -> swept
  for (pid_t pid : {dead, getpid()}) {
    temps[blobs / (etag + "." + std::to_string(pid) + "-0.incomplete")] = pid == dead;
    temps[out / ("config.json." + std::to_string(pid) + ".incomplete")] = pid == dead;
  }
  for (const auto& [path, swept] : temps) write_file(path, "partial");
  ASSERT_EQ(run("download ex/tiny-llama --include config.json --quiet").exit_code, 0);
  ASSERT_EQ(
      run("download ex/tiny-llama --include config.json --quiet --out '" + out.string() + "'").exit_code, 0);
  for (const auto& [path, swept] : temps) EXPECT_EQ(fs::exists(path), !swept) << path;
}

// A token that goes to a plain-http endpoint is said to, once per run.
TEST_F(HubCli, TokenOverPlainHttpIsWarnedOnce) {
  CommandResult r = run("ex/tiny-llama --trust-endpoint");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "over plain HTTP"), 1u) << r.err;
  CommandResult withheld = run("ex/tiny-llama");  // not sent: nothing to warn about
  EXPECT_EQ(withheld.err.find("over plain HTTP"), std::string::npos) << withheld.err;
}

// Warnings about the settings reach stderr when the command then fails, and once however many models.
TEST_F(HubCli, SettingsWarningsSurviveAFailureOnce) {
  const std::string token = std::string(" --token ") + kSentinelToken;
  for (const std::string command : {"", "tensors ", "download "}) {
    CommandResult r = run(command + "ex/does-not-exist" + token);
    EXPECT_EQ(r.exit_code, 8) << command << r.err;
    EXPECT_EQ(occurrences(r.err, "visible to other users"), 1u) << command << r.err;
  }
  CommandResult two = run("ex/tiny-llama ex/tiny-llama" + token);
  EXPECT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(occurrences(two.err, "visible to other users"), 1u) << two.err;
}

// --quiet: nothing but the error, whether the command fails or not.
TEST_F(HubCli, SettingsWarningsNeverUnderQuiet) {
  const std::string args = std::string(" --quiet --token ") + kSentinelToken;
  for (const std::string command : {"", "tensors ", "download "}) {
    CommandResult failed = run(command + "ex/does-not-exist" + args);
    EXPECT_EQ(failed.exit_code, 8) << command << failed.err;
    EXPECT_EQ(failed.err.find("warning"), std::string::npos) << command << failed.err;
    CommandResult ok = run(command + "ex/tiny-llama" + args);
    EXPECT_EQ(ok.exit_code, 0) << command << ok.err;
    EXPECT_EQ(ok.err, "") << command;
  }
}

// --verbose says what the program does: its stages, and one line per HTTP exchange — as many as the server
// answered, each with its status — without the token (the fixture checks every output for it).
TEST_F(HubCli, VerboseTracesStagesAndEveryRequest) {
  CommandResult r = run("ex/tiny-llama --verbose --trust-endpoint");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("] resolving ex/tiny-llama@main on " + hub_->endpoint()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("] building the report"), std::string::npos) << r.err;
  const std::vector<LogEntry> served = hub_->log();
  ASSERT_FALSE(served.empty());
  size_t traced = 0;
  for (size_t at = r.err.find("] GET "); at != std::string::npos; at = r.err.find("] GET ", at + 1)) ++traced;
  for (size_t at = r.err.find("] HEAD "); at != std::string::npos; at = r.err.find("] HEAD ", at + 1))
    ++traced;
  EXPECT_EQ(traced, served.size()) << r.err;
  EXPECT_NE(r.err.find("GET " + hub_->endpoint() + "/api/models/ex/tiny-llama"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" -> 200, "), std::string::npos) << r.err;
  // Without --verbose, none of it.
  EXPECT_EQ(run("ex/tiny-llama --trust-endpoint").err.find("] GET "), std::string::npos);
}

}  // namespace
}  // namespace ma::test
