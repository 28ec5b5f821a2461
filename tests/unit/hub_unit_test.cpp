// The Hub client's rules one by one (repo ids, revisions and file names: hub_repo_ref_test.cpp): the token
// lookup order and its checks (T6, T7, N21), server-supplied names (N14), cache refs and links (C7, C9),
// globs, the header guess, the content hashes, the stamps of verified blobs and the sweep of stale temp
// files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/glob.h"
#include "hub/content_hash.h"
#include "hub/hub_cache.h"
#include "hub/hub_errors.h"
#include "hub/hub_settings.h"
#include "hub/remote_header.h"
#include "hub/stale_temp.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

// The server's own message is shown cut to 200 characters, and without the token: a token across the cut
// was cut in two before it was looked for, and its first characters were printed.
TEST(HubErrors, TheTokenIsTakenOutBeforeTheMessageIsCut) {
  const std::string token = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
  HubSettings settings;
  settings.token = HubToken{token, "--token"};
  for (size_t pad : {0u, 150u, 185u, 199u, 300u}) {
    HubResult r;
    r.response.status = 403;
    r.response.headers = {{"x-error-message", std::string(pad, 'a') + token + " is not allowed"}};
    try {
      throw_hub_error(r, {"org/model", "", ""}, settings, 1);
    } catch (const Error& e) {
      const std::string m = e.message();
      EXPECT_EQ(m.find("hf_abc"), std::string::npos) << pad << ": " << m;
      EXPECT_EQ(m.find(token.substr(3, 12)), std::string::npos) << pad << ": " << m;
    }
  }
}

// Rate limited: a token raises the limits, so it is advised only when none was sent.
TEST(HubErrors, RateLimitsAdviseATokenOnlyWithoutOne) {
  HubResult r;
  r.response.status = 429;
  auto message = [&](const HubSettings& settings) {
    try {
      throw_hub_error(r, {"org/model", "", ""}, settings, 6);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Network);
      return e.message();
    }
    return std::string();
  };
  EXPECT_NE(message(HubSettings{}).find("or pass a token for higher limits"), std::string::npos);
  HubSettings with;
  with.token = HubToken{"hf_secret", "--token"};
  with.send_token = true;
  const std::string m = message(with);
  EXPECT_EQ(m.find("pass a token"), std::string::npos) << m;
  EXPECT_NE(m.find("sent: the token from --token"), std::string::npos) << m;
  EXPECT_EQ(m.find("hf_secret"), std::string::npos) << m;
}

HubSettings settings_with(std::map<std::string, std::string> env, HubFlags flags = {}) {
  return hub_settings(flags, [env](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST(HubSettingsTest, TokenLookupOrder) {  // T6
  TempDir home;
  fs::create_directories(home / "hf");
  write_file(home / "hf" / "token", "  hf_file\n");
  std::map<std::string, std::string> env = {
      {"HF_HOME", (home / "hf").string()}, {"HUGGING_FACE_HUB_TOKEN", "hf_legacy"}, {"HF_TOKEN", "hf_env"}};
  HubFlags cli;
  cli.token = "hf_cli";
  EXPECT_EQ(settings_with(env, cli).token->source, "--token");
  EXPECT_EQ(settings_with(env).token->value, "hf_env");
  env.erase("HF_TOKEN");
  EXPECT_EQ(settings_with(env).token->source, "HUGGING_FACE_HUB_TOKEN");
  env.erase("HUGGING_FACE_HUB_TOKEN");
  HubSettings from_file = settings_with(env);
  EXPECT_EQ(from_file.token->value, "hf_file");  // whitespace and newline stripped
  EXPECT_EQ(from_file.token->source, (home / "hf" / "token").string());
  cli.token = "";  // --token "" disables the implicit token
  EXPECT_FALSE(settings_with(env, cli).token);
  EXPECT_EQ(settings_with(env).cache_root, home / "hf" / "hub");
  env["HF_HUB_CACHE"] = "/elsewhere";
  EXPECT_EQ(settings_with(env).cache_root, "/elsewhere");
}

// --token-file reads what the user names: a file, or a pipe (`--token-file <(pass hf)`), the way to keep a
// token out of ps and off the disk. A missing one is not found (8); a directory is refused.
TEST(HubSettingsTest, TokenFileMayBeAPipe) {
  TempDir dir;
  const fs::path fifo = dir / "token.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { write_file(fifo, "hf_piped\n"); });
  HubFlags flags;
  flags.token_file = fifo.string();
  const HubSettings s = settings_with({{"HOME", "/h"}}, flags);
  writer.join();
  ASSERT_TRUE(s.token);
  EXPECT_EQ(s.token->value, "hf_piped");
  flags.token_file = (dir / "absent").string();
  try {
    settings_with({{"HOME", "/h"}}, flags);
    ADD_FAILURE() << "a missing token file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  }
  flags.token_file = dir.path().string();
  EXPECT_THROW(settings_with({{"HOME", "/h"}}, flags), Error);
}

TEST(HubSettingsTest, TokenGoesOnlyToHuggingFaceUnlessTrusted) {  // N21
  EXPECT_TRUE(settings_with({{"HF_TOKEN", "hf_x"}, {"HOME", "/h"}}).send_token);
  HubSettings mirror =
      settings_with({{"HF_TOKEN", "hf_x"}, {"HOME", "/h"}, {"HF_ENDPOINT", "https://mirror.example"}});
  EXPECT_FALSE(mirror.send_token);
  ASSERT_EQ(mirror.warnings.size(), 1u);
  EXPECT_EQ(mirror.warnings[0].find("hf_x"), std::string::npos);
  HubFlags trust;
  trust.trust_endpoint = true;
  EXPECT_TRUE(
      settings_with({{"HF_TOKEN", "hf_x"}, {"HOME", "/h"}, {"HF_ENDPOINT", "https://mirror.example"}}, trust)
          .send_token);
  // The environment trusts an endpoint by naming it; naming another one trusts nothing.
  EXPECT_TRUE(settings_with({{"HF_TOKEN", "hf_x"},
                             {"HOME", "/h"},
                             {"HF_ENDPOINT", "https://mirror.example"},
                             {"MODELANALYZER_TRUSTED_ENDPOINT", "https://mirror.example/"}})
                  .send_token);
  EXPECT_FALSE(settings_with({{"HF_TOKEN", "hf_x"},
                              {"HOME", "/h"},
                              {"HF_ENDPOINT", "https://evil.example"},
                              {"MODELANALYZER_TRUSTED_ENDPOINT", "https://mirror.example"}})
                   .send_token);
  EXPECT_TRUE(is_hugging_face_host("https://cdn.huggingface.co"));
  EXPECT_FALSE(is_hugging_face_host("https://huggingface.co.evil.example"));
  EXPECT_FALSE(is_hugging_face_host("http://huggingface.co"));
  // curl connects to the host before a '#' (a fragment) or a backslash: those are no Hugging Face hosts.
  EXPECT_FALSE(is_hugging_face_host("https://evil.example#.huggingface.co"));
  EXPECT_FALSE(is_hugging_face_host("https://evil.example\\.hf.co"));
  EXPECT_FALSE(is_hugging_face_host("https://evil.example?.hf.co"));
  EXPECT_TRUE(is_hugging_face_host("https://HuggingFace.co"));  // host names ignore case
  // An endpoint with a fragment is refused outright, as one with credentials or a query is.
  EXPECT_THROW(
      settings_with({{"HF_TOKEN", "hf_x"}, {"HOME", "/h"}, {"HF_ENDPOINT", "https://evil.example#.hf.co"}}),
      Error);
}

TEST(HubSettingsTest, ATokenSentOverPlainHttpIsWarnedAbout) {
  auto plain_http_warnings = [](const HubSettings& s) {
    return std::count_if(s.warnings.begin(), s.warnings.end(),
                         [](const std::string& w) { return w.find("over plain HTTP") != std::string::npos; });
  };
  HubFlags trust;
  trust.trust_endpoint = true;
  const std::map<std::string, std::string> plain = {
      {"HF_TOKEN", "hf_x"}, {"HOME", "/h"}, {"HF_ENDPOINT", "http://mirror.local"}};
  HubSettings trusted = settings_with(plain, trust);
  ASSERT_TRUE(trusted.send_token);
  EXPECT_EQ(plain_http_warnings(trusted), 1);
  for (const std::string& w : trusted.warnings) EXPECT_EQ(w.find("hf_x"), std::string::npos) << w;
  HubFlags explicit_token;
  explicit_token.token = "hf_cli";
  EXPECT_EQ(plain_http_warnings(settings_with(plain, explicit_token)), 1);
  EXPECT_EQ(plain_http_warnings(settings_with(plain)), 0);  // withheld: nothing goes over the wire
  EXPECT_EQ(plain_http_warnings(settings_with(
                {{"HF_TOKEN", "hf_x"}, {"HOME", "/h"}, {"HF_ENDPOINT", "https://mirror.local"}}, trust)),
            0);
  EXPECT_EQ(
      plain_http_warnings(settings_with({{"HOME", "/h"}, {"HF_ENDPOINT", "http://mirror.local"}}, trust)), 0);
}

TEST(HubSettingsTest, RejectsTokensThatCouldInjectHeaders) {  // T7
  for (const char* bad : {"hf_a\r\nX-Evil: 1", "hf_a b", "hf_\x01", "hf_\xc3\xa9"})
    EXPECT_EQ(error_kind_of([&] {
                settings_with({{"HF_TOKEN", bad}, {"HOME", "/h"}});
              }),
              ErrorKind::Usage)
        << bad;
  EXPECT_EQ(error_kind_of([&] {
              settings_with({{"HF_ENDPOINT", "ftp://x"}, {"HOME", "/h"}});
            }),
            ErrorKind::Usage);
  EXPECT_TRUE(settings_with({{"HF_HUB_OFFLINE", "1"}, {"HOME", "/h"}}).offline);
}

TEST(HubCacheTest, ServerNamesMustBeHex) {  // N14
  EXPECT_EQ(checked_etag("\"" + std::string(64, 'a') + "\"", "x"), std::string(64, 'a'));
  EXPECT_EQ(checked_etag("W/\"" + std::string(40, 'b') + "\"", "x"), std::string(40, 'b'));
  for (const char* bad : {"\"../../../.bashrc\"", "abc", "\"ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ\""})
    EXPECT_EQ(error_kind_of([&] { checked_etag(bad, "x"); }), ErrorKind::Network) << bad;
  EXPECT_EQ(error_kind_of([&] { checked_commit("../../x", "x"); }), ErrorKind::Network);
}

// A listing's hash names the stamp file that records a blob as hashed: one that is not hex names none, so it
// can neither read a stamp outside the cache nor write one there.
TEST(HubCacheTest, AListedHashThatIsNotHexNamesNoStamp) {
  TempDir root;
  HubCache cache(root.path(), "org/name");
  const std::string commit(40, 'c'), etag(64, 'e');
  const fs::path link = cache.store_blob("{}", etag, commit, "config.json");
  const std::string escape = "../../../outside";
  cache.mark_verified(escape, link);
  EXPECT_FALSE(fs::exists(root / "outside"));
  EXPECT_FALSE(cache.intact(escape, link, 2));
}

TEST(HubCacheTest, CorruptRefsAreRefused) {  // C9
  TempDir root;
  HubCache cache(root.path(), "org/name");
  EXPECT_FALSE(cache.read_ref("main"));
  const std::string commit(40, 'c');
  cache.write_ref("main", commit);
  EXPECT_EQ(read_file(root / "models--org--name" / "refs" / "main"), commit);
  EXPECT_EQ(cache.read_ref("main"), commit);
  write_file(root / "models--org--name" / "refs" / "main", "../x");
  EXPECT_EQ(error_kind_of([&] { cache.read_ref("main"); }), ErrorKind::LocalIO);
  write_file(root / "models--org--name" / "refs" / "main", std::string(1000, 'a'));
  EXPECT_EQ(error_kind_of([&] { cache.read_ref("main"); }), ErrorKind::LocalIO);
}

TEST(HubCacheTest, SnapshotLinksMustLandInBlobs) {  // C7, C8
  TempDir root;
  HubCache cache(root.path(), "org/name");
  const std::string commit(40, 'c'), etag(64, 'e');
  fs::path link = cache.store_blob("{}", etag, commit, "config.json");
  EXPECT_EQ(fs::read_symlink(link), fs::path("../../blobs") / etag);
  EXPECT_EQ(cache.snapshot_file(commit, "config.json"), link);
  write_file(root / "secret", "x");
  fs::create_symlink(root / "secret", cache.snapshot_dir(commit) / "tokenizer.json");
  EXPECT_EQ(error_kind_of([&] { cache.snapshot_file(commit, "tokenizer.json"); }), ErrorKind::Unsafe);
  fs::remove(root / "models--org--name" / "blobs" / etag);
  EXPECT_FALSE(cache.snapshot_file(commit, "config.json"));  // dangling: fetched again
  EXPECT_FALSE(cache.snapshot_file(commit, "absent.json"));
}

TEST(HubCacheTest, AVerifiedBlobIsTrustedUntilItIsRewritten) {
  TempDir root;
  HubCache cache(root.path(), "org/name");
  const std::string commit(40, 'c'), etag(40, 'e');
  const fs::path link = cache.store_blob("{\"a\": 1}", etag, commit, "config.json");
  EXPECT_FALSE(cache.verified(etag, link));
  cache.mark_verified(etag, link);
  EXPECT_TRUE(cache.verified(etag, link));
  EXPECT_FALSE(cache.verified(std::string(40, 'f'), link)) << "the stamp belongs to one etag";
  const fs::path blob = root / "models--org--name" / "blobs" / etag;
  const fs::path other = root / "other";
  write_file(other, "{\"a\": 2}");  // the same size, other bytes, another inode
  fs::rename(other, blob);
  EXPECT_FALSE(cache.verified(etag, link));
}

TEST(StaleTemp, OurTempNamesCarryThePid) {
  auto owner = [](const char* name) { return parse_incomplete_name(name); };
  ASSERT_TRUE(owner("config.json.4242.incomplete"));
  EXPECT_EQ(owner("config.json.4242.incomplete")->pid, 4242);
  EXPECT_EQ(owner("config.json.4242.incomplete")->stem, "config.json");
  ASSERT_TRUE(owner("abc.77-3.incomplete"));
  EXPECT_EQ(owner("abc.77-3.incomplete")->pid, 77);
  EXPECT_EQ(owner("abc.77-3.incomplete")->stem, "abc");
  for (const char* other :
       {"abc.incomplete", "config.json.incomplete", "a.0.incomplete", "a.-1.incomplete", "a.12x.incomplete",
        "a.99999999999999999999.incomplete", "a.12-.incomplete", "a.12-x.incomplete", ".12.incomplete",
        "a.12.incomplete.txt", "a.12", ".incomplete"})
    EXPECT_FALSE(owner(other)) << other;
}

TEST(StaleTemp, OnlyTheTempFilesOfDeadProcessesAreSwept) {
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  TempDir dir;
  const std::string d = std::to_string(dead), live = std::to_string(getpid());
  for (const std::string& name :
       std::vector<std::string>{"a." + d + ".incomplete", "a." + live + ".incomplete",
                                "b." + d + ".incomplete", "a.incomplete", "a." + d})
    write_file(dir / name, "x");
  fs::create_directories(dir / "sub");
  write_file(dir / "sub" / ("a." + d + ".incomplete"), "x");
  sweep_stale_incomplete(dir.path(), [](std::string_view stem) { return stem == "a"; });
  EXPECT_FALSE(fs::exists(dir / ("a." + d + ".incomplete")));
  EXPECT_TRUE(fs::exists(dir / ("a." + live + ".incomplete"))) << "a live process's";
  EXPECT_TRUE(fs::exists(dir / ("b." + d + ".incomplete"))) << "not one of ours";
  EXPECT_TRUE(fs::exists(dir / "a.incomplete"));
  EXPECT_TRUE(fs::exists(dir / ("a." + d)));
  EXPECT_TRUE(fs::exists(dir / "sub" / ("a." + d + ".incomplete"))) << "only the directory itself";
  sweep_stale_incomplete(dir / "absent",
                         [](std::string_view) { return true; });  // no directory: nothing to do
}

TEST(Glob, StarCrossesSlashesQuestionMarkIsOneCharacter) {
  EXPECT_TRUE(glob_match("*.safetensors", "sub/model.safetensors"));
  EXPECT_TRUE(glob_match("model-0000?-of-*.safetensors", "model-00001-of-00002.safetensors"));
  EXPECT_FALSE(glob_match("*.json", "model.safetensors"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_FALSE(glob_match(std::string(50, '*') + "b", std::string(10000, 'a')));  // linear, no blow-up
}

TEST(RemoteHeaderGuess, CoversRealShardHeaders) {
  // The fixtures' sharded checkpoint: every shard's header within one guess, and not grossly over it.
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  fs::path dir = *data / "fixtures" / "tiny-llama-sharded";
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".safetensors") continue;
    std::string bytes = read_file(e.path());
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    std::string header = bytes.substr(8, n);
    uint64_t tensors = 0, names = 0;
    for (size_t at = 0; (at = header.find("\"dtype\"", at)) != std::string::npos; ++at) ++tensors;
    for (size_t at = 0; (at = header.find("\":{\"dtype\"", at)) != std::string::npos; ++at) {
      size_t start = header.rfind('"', at - 1);
      names += at - start - 1;
    }
    uint64_t guess = header_guess(tensors, names);
    EXPECT_GE(guess, 8 + n) << e.path();
    EXPECT_LE(guess, 8 + n + 256 + 80 * tensors) << e.path();
  }
}

TEST(ContentHashTest, GitBlobAndSha256) {
  ContentHash git(std::string(40, '0'), 5);
  git.update("hello");
  EXPECT_EQ(git.hex_digest(), "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0");  // git hash-object of "hello"
  ContentHash sha(std::string(64, '0'), 5);
  sha.update("he");
  sha.update("llo");
  EXPECT_EQ(sha.hex_digest(), "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
}

TEST(ContentHashTest, WholeBodiesAndFilesAreCheckedAgainstTheirName) {
  const std::string git_hello = "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0";  // git hash-object of "hello"
  EXPECT_EQ(content_hash_of("hello", git_hello), git_hello);
  TempDir dir;
  write_file(dir / "f", "hello");
  EXPECT_EQ(file_content_hash(dir / "f", git_hello), git_hello);
  EXPECT_EQ(file_content_hash(dir / "f", std::string(64, '0')),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  EXPECT_FALSE(file_content_hash(dir / "absent", git_hello));
  EXPECT_EQ(error_kind_of([&] {
              require_content_hash("org/m/config.json", git_hello, content_hash_of("hellp", git_hello));
            }),
            ErrorKind::Network);
  try {
    require_content_hash("org/m/config.json", git_hello, std::string(40, '1'));
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("org/m/config.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("content hash mismatch"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ma::test
