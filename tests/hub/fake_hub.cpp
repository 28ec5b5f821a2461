// The fake Hub: plans each repo (commit, etags, sizes), writes the served tree and an nginx.conf with one exact
// `location =` per served URL (fast to start even with hundreds of shards), runs nginx and reads its logs back.
//
// Served layout under work_dir:
//   www/api/{key}.json          model info of a repo ({key} = "models--org--name")
//   www/hub/{key}/{path}        non-LFS files, aliased by /{id}/resolve/{main|commit}/{path}
//   www/cdn/{key}/{sha256}      LFS blobs, served at /lfs/{sha256}, or at /lfs/{key}/{sha256} for the modes that
//                               change what the CDN serves (ignore_range, truncated, corrupt, slow)
//   hub_access.log, cdn_access.log, error.log, nginx.conf, nginx.pid, nginx.stdout, nginx.stderr, tmp/
//
// Fault modes in nginx terms:
//   gated         one prefix location per repo: 401 without Authorization, else 403 (X-Error-Code: GatedRepo).
//   private       every location of the repo starts with `if` guards on $ma_auth (a case-sensitive map of the
//                 Authorization header) that rewrite to internal 401 locations.
//   rate_limited  `limit_req` (30r/m, burst 0) in every resolve location; 429 goes to @ma_429 (Retry-After: 2).
//   flaky         the same limiter with 503 (@ma_503, no Retry-After). limit_req runs after the rewrite phase,
//                 where `return` would already have answered, so these repos' returns (302s, 404s) are moved
//                 into named locations reached by try_files, which runs after the limiter.
//   ignore_range  `max_ranges 0` on the repo's CDN locations.   slow: `limit_rate 256k` there.
//   truncated     the blob on disk lacks its last 64 bytes.     corrupt: its middle byte is inverted.
//   redirect_loop one prefix location per repo answering 302 to {endpoint}$request_uri.
#include "fake_hub.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

namespace ma::test {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Constants of the protocol and of the fault modes.

constexpr uint64_t kMaxHashedSparseBytes = 64ull << 20;  // hashing the zeros of a "5 GB shard" would take seconds
constexpr uint64_t kTruncatedBytes = 64;
constexpr uint64_t kLfsThresholdBytes = 1ull << 20;    // repo_from_directory: bigger files are LFS, as on the Hub
constexpr const char* kCdnQuery = "?X-Amz-Signature=SECRETSIG&Expires=1";
constexpr const char* kLastModified = "2026-01-01T00:00:00.000Z";
constexpr auto kStartTimeout = std::chrono::seconds(10);
constexpr auto kGracefulStopTimeout = std::chrono::seconds(5);
constexpr auto kReopenTimeout = std::chrono::seconds(5);
constexpr auto kPollInterval = std::chrono::milliseconds(5);

enum class Mode { Normal, Gated, Private, RateLimited, Flaky, IgnoreRange, Truncated, Corrupt, Slow, RedirectLoop };

Mode parse_mode(const std::string& name) {
  static const std::pair<const char*, Mode> kModes[] = {
      {"normal", Mode::Normal},           {"gated", Mode::Gated},         {"private", Mode::Private},
      {"rate_limited", Mode::RateLimited}, {"flaky", Mode::Flaky},         {"ignore_range", Mode::IgnoreRange},
      {"truncated", Mode::Truncated},     {"corrupt", Mode::Corrupt},     {"slow", Mode::Slow},
      {"redirect_loop", Mode::RedirectLoop}};
  for (const auto& [n, m] : kModes)
    if (name == n) return m;
  throw std::invalid_argument("FakeHub: unknown repo mode '" + name + "'");
}

bool is_limited(Mode m) { return m == Mode::RateLimited || m == Mode::Flaky; }
// These modes alter what the CDN serves, so the repo's blobs get their own URL prefix (and nginx locations).
bool has_own_cdn_prefix(Mode m) {
  return m == Mode::IgnoreRange || m == Mode::Truncated || m == Mode::Corrupt || m == Mode::Slow;
}

// ---------------------------------------------------------------------------------------------------------------
// Text helpers.

std::string to_hex(const unsigned char* data, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 0xf]);
  }
  return out;
}

bool is_lower_hex(std::string_view s, size_t len) {
  return s.size() == len &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

// An nginx config string: double-quoted, with the parser's two escapes. `$` is left alone on purpose (variables);
// inputs are validated so that none of theirs reaches the config.
std::string nginx_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(sep) : std::string()) + parts[i];
  return out;
}

std::string read_whole_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_whole_file(const fs::path& p, std::string_view content) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("FakeHub: cannot write " + p.string());
}

std::string tail_of_file(const fs::path& p, size_t max_bytes = 4000) {
  std::string s = read_whole_file(p);
  return s.size() > max_bytes ? s.substr(s.size() - max_bytes) : s;
}

// ---------------------------------------------------------------------------------------------------------------
// Validation: ids, paths and the token end up inside nginx.conf, so anything nginx would interpret is refused.

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

void validate_repo_id(const std::string& id) {
  const size_t slash = id.find('/');
  const bool ok = !id.empty() && id.find('/', slash == std::string::npos ? 0 : slash + 1) == std::string::npos &&
                  slash != 0 && slash + 1 != id.size() &&
                  std::all_of(id.begin(), id.end(), [](char c) { return c == '/' || is_name_char(c); });
  if (!ok) throw std::invalid_argument("FakeHub: bad repo id '" + id + "'");
}

void validate_file_path(const std::string& path) {
  bool ok = !path.empty() && path.front() != '/' && path.back() != '/';
  for (char c : path)
    ok = ok && static_cast<unsigned char>(c) >= 0x20 && c != 0x7f && c != '"' && c != '\\' && c != '$';
  std::istringstream segments(path);
  for (std::string seg; ok && std::getline(segments, seg, '/');) ok = !seg.empty() && seg != "." && seg != "..";
  if (!ok) throw std::invalid_argument("FakeHub: unsupported file path '" + path + "'");
}

void validate_token(const std::string& token) {
  bool ok = token.find("\\E") == std::string::npos;
  for (char c : token) ok = ok && c > 0x20 && c != 0x7f && c != '"' && c != '\\';
  if (!ok) throw std::invalid_argument("FakeHub: the token must be printable ASCII without quotes or backslashes");
}

void validate_config_path(const fs::path& p) {
  const std::string s = p.string();
  if (s.find('$') != std::string::npos || s.find('"') != std::string::npos)
    throw std::invalid_argument("FakeHub: work_dir must not contain '$' or '\"': " + s);
}

// ---------------------------------------------------------------------------------------------------------------
// Hashing (OpenSSL EVP: the low-level SHA256_* calls are deprecated in OpenSSL 3).

// The digest of `prefix`, then `content`, then zeros up to `total` content bytes: a sparse file's logical bytes.
std::string digest_hex(const EVP_MD* md, std::string_view prefix, std::string_view content, uint64_t total) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1) throw std::runtime_error("FakeHub: EVP init failed");
  EVP_DigestUpdate(ctx.get(), prefix.data(), prefix.size());
  EVP_DigestUpdate(ctx.get(), content.data(), content.size());
  static const std::array<char, 1 << 16> kZeros{};
  for (uint64_t left = total - content.size(); left > 0;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kZeros.size()));
    EVP_DigestUpdate(ctx.get(), kZeros.data(), n);
    left -= n;
  }
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), out, &len);
  return to_hex(out, len);
}

// What git (and the Hub's blobId) calls a blob's id: sha1("blob <size>\0" + bytes).
std::string git_blob_sha1(std::string_view content, uint64_t size) {
  std::string header = "blob " + std::to_string(size);
  header.push_back('\0');
  return digest_hex(EVP_sha1(), header, content, size);
}

std::string lfs_pointer(const std::string& sha256, uint64_t size) {
  return "version https://git-lfs.github.com/spec/v1\noid sha256:" + sha256 + "\nsize " + std::to_string(size) +
         "\n";
}

// ---------------------------------------------------------------------------------------------------------------
// Planning: everything the server will say about a repo, computed once in add_repo.

struct FilePlan {
  FakeFile file;
  uint64_t size = 0;          // logical size, as the API and X-Linked-Size report it
  std::string etag;           // bare hex: sha256 (LFS) or git blob sha1
  std::string blob_id;        // git blob sha1 of the file, or of its LFS pointer
  uint64_t pointer_size = 0;  // LFS only
};

struct RepoPlan {
  std::string id, commit, info_json_fields, key;
  Mode mode = Mode::Normal;
  size_t index = 0;  // names this repo's nginx zones
  std::vector<FilePlan> files;
};

uint64_t logical_size(const FakeFile& f) { return std::max<uint64_t>(f.content.size(), f.sparse_size); }

std::string planned_etag(const FakeFile& f, uint64_t size) {
  const size_t hex_len = f.lfs ? 64 : 40;
  if (!f.etag.empty()) {
    if (!is_lower_hex(f.etag, hex_len))
      throw std::invalid_argument("FakeHub: etag of " + f.path + " must be " + std::to_string(hex_len) +
                                  " lowercase hex");
    return f.etag;
  }
  if (size > f.content.size() && size > kMaxHashedSparseBytes)
    throw std::runtime_error("FakeHub: " + f.path + " is a sparse file over 64 MiB: give it an etag override");
  return f.lfs ? digest_hex(EVP_sha256(), {}, f.content, size) : git_blob_sha1(f.content, size);
}

FilePlan plan_file(FakeFile f) {
  validate_file_path(f.path);
  FilePlan p;
  p.size = logical_size(f);
  p.etag = planned_etag(f, p.size);
  if (f.lfs) {
    const std::string pointer = lfs_pointer(p.etag, p.size);
    p.pointer_size = pointer.size();
    p.blob_id = git_blob_sha1(pointer, pointer.size());
  } else {
    p.blob_id = p.etag;
  }
  p.file = std::move(f);
  return p;
}

std::string derived_commit(const std::string& id) {
  const std::string seed = "ma-fake-hub commit of " + id;
  return digest_hex(EVP_sha1(), {}, seed, seed.size());
}

std::string repo_key(const std::string& id) {
  std::string key = "models--" + id;
  if (size_t slash = key.find('/'); slash != std::string::npos) key.replace(slash, 1, "--");
  return key;
}

RepoPlan plan_repo(FakeRepo repo, size_t index) {
  validate_repo_id(repo.id);
  if (!repo.commit.empty() && !is_lower_hex(repo.commit, 40))
    throw std::invalid_argument("FakeHub: commit of " + repo.id + " must be 40 lowercase hex");
  RepoPlan p;
  p.mode = parse_mode(repo.mode);
  p.commit = repo.commit.empty() ? derived_commit(repo.id) : repo.commit;
  p.key = repo_key(repo.id);
  p.index = index;
  std::set<std::string> seen;
  for (FakeFile& f : repo.files) {
    if (!seen.insert(f.path).second) throw std::invalid_argument("FakeHub: duplicate file " + f.path);
    p.files.push_back(plan_file(std::move(f)));
  }
  p.id = std::move(repo.id);
  p.info_json_fields = std::move(repo.info_json_fields);
  return p;
}

// ---------------------------------------------------------------------------------------------------------------
// Model info JSON.

size_t closing_quote(std::string_view s, size_t open) {
  size_t i = open + 1;
  while (i < s.size() && s[i] != '"') i += (s[i] == '\\') ? 2 : 1;
  return std::min(i, s.size());
}

// The member names at the top level of a JSON fragment like "\"downloads\":12,\"cardData\":{\"x\":1}".
std::set<std::string> top_level_keys(std::string_view s) {
  std::set<std::string> keys;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') {
      const size_t end = closing_quote(s, i);
      const size_t next = s.find_first_not_of(" \t\r\n", end + 1);
      if (depth == 0 && next != std::string_view::npos && s[next] == ':')
        keys.insert(std::string(s.substr(i + 1, end - i - 1)));
      i = end;
    } else if (s[i] == '{' || s[i] == '[') {
      ++depth;
    } else if (s[i] == '}' || s[i] == ']') {
      --depth;
    }
  }
  return keys;
}

std::string sibling_json(const FilePlan& f) {
  std::string s = "{\"rfilename\":" + json_string(f.file.path) + ",\"size\":" + std::to_string(f.size) +
                  ",\"blobId\":\"" + f.blob_id + "\"";
  if (f.file.lfs)
    s += ",\"lfs\":{\"sha256\":\"" + f.etag + "\",\"size\":" + std::to_string(f.size) +
         ",\"pointerSize\":" + std::to_string(f.pointer_size) + "}";
  return s + "}";
}

std::vector<std::pair<std::string, std::string>> default_info_members(const RepoPlan& r) {
  const std::string author = r.id.substr(0, r.id.find('/'));
  return {{"_id", json_string(r.commit.substr(0, 24))},
          {"id", json_string(r.id)},
          {"modelId", json_string(r.id)},
          {"author", json_string(author)},
          {"sha", json_string(r.commit)},
          {"private", r.mode == Mode::Private ? "true" : "false"},
          {"gated", r.mode == Mode::Gated ? "\"manual\"" : "false"},
          {"disabled", "false"},
          {"downloads", "0"},
          {"likes", "0"},
          {"tags", "[]"},
          {"lastModified", json_string(kLastModified)}};
}

// Defaults, then info_json_fields, then siblings; a default named in info_json_fields is left out.
std::string model_info_json(const RepoPlan& r) {
  const std::set<std::string> overridden = top_level_keys(r.info_json_fields);
  std::vector<std::string> members;
  for (const auto& [name, value] : default_info_members(r))
    if (!overridden.count(name)) members.push_back(json_string(name) + ":" + value);
  if (!r.info_json_fields.empty()) members.push_back(r.info_json_fields);
  if (!overridden.count("siblings")) {
    std::vector<std::string> siblings;
    for (const FilePlan& f : r.files) siblings.push_back(sibling_json(f));
    members.push_back("\"siblings\":[" + join(siblings, ",") + "]");
  }
  return "{" + join(members, ",") + "}";
}

// ---------------------------------------------------------------------------------------------------------------
// Where things live under work_dir.

struct Layout {
  fs::path work;
  fs::path www() const { return work / "www"; }
  fs::path empty_root() const { return www() / "empty"; }
  fs::path api_json(const RepoPlan& r) const { return www() / "api" / (r.key + ".json"); }
  fs::path hub_file(const RepoPlan& r, const FilePlan& f) const { return www() / "hub" / r.key / f.file.path; }
  fs::path blob(const RepoPlan& r, const FilePlan& f) const { return www() / "cdn" / r.key / f.etag; }
  fs::path conf() const { return work / "nginx.conf"; }
  fs::path pid_file() const { return work / "nginx.pid"; }
  fs::path error_log() const { return work / "error.log"; }
  fs::path hub_log() const { return work / "hub_access.log"; }
  fs::path cdn_log() const { return work / "cdn_access.log"; }
  fs::path tmp() const { return work / "tmp"; }
};

std::string cdn_uri(const RepoPlan& r, const FilePlan& f) {
  return has_own_cdn_prefix(r.mode) ? "/lfs/" + r.key + "/" + f.etag : "/lfs/" + f.etag;
}

// ---------------------------------------------------------------------------------------------------------------
// The served tree.

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

void write_all(int fd, const char* data, size_t n, const fs::path& p) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error("FakeHub: write failed on " + p.string());
    data += w;
    n -= static_cast<size_t>(w);
  }
}

// `content` then zeros up to `size`; the zeros are a hole (ftruncate), so a 5 GB shard costs no disk.
void write_sparse_file(const fs::path& p, std::string_view content, uint64_t size) {
  fs::create_directories(p.parent_path());
  Fd fd(::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw std::runtime_error("FakeHub: cannot create " + p.string());
  write_all(fd.get(), content.data(), static_cast<size_t>(std::min<uint64_t>(content.size(), size)), p);
  if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0)
    throw std::runtime_error("FakeHub: ftruncate failed on " + p.string());
}

void invert_byte(const fs::path& p, uint64_t offset, std::string_view content) {
  const unsigned char original = offset < content.size() ? static_cast<unsigned char>(content[offset]) : 0;
  const char flipped = static_cast<char>(~original);
  Fd fd(::open(p.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0 || ::pwrite(fd.get(), &flipped, 1, static_cast<off_t>(offset)) != 1)
    throw std::runtime_error("FakeHub: cannot corrupt " + p.string());
}

void write_blob(const Layout& lay, const RepoPlan& r, const FilePlan& f) {
  const fs::path p = lay.blob(r, f);
  uint64_t served = f.size;
  if (r.mode == Mode::Truncated) served = f.size > kTruncatedBytes ? f.size - kTruncatedBytes : 0;
  write_sparse_file(p, f.file.content, served);
  if (r.mode == Mode::Corrupt && f.size > 0) invert_byte(p, f.size / 2, f.file.content);
}

void write_repo_tree(const Layout& lay, const RepoPlan& r) {
  write_whole_file(lay.api_json(r), model_info_json(r));
  for (const FilePlan& f : r.files) {
    if (f.file.lfs)
      write_blob(lay, r, f);
    else
      write_sparse_file(lay.hub_file(r, f), f.file.content, f.size);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// nginx.conf.

using Header = std::pair<std::string, std::string>;

std::string add_header(const std::string& name, const std::string& value) {
  return "add_header " + name + " " + nginx_quote(value) + " always;";
}

std::string quoted_etag(const std::string& hex) { return "\"" + hex + "\""; }

std::string error_body(const std::string& message) { return "{\"error\":" + json_string(message) + "}"; }

// A `return`: a redirect (3xx; `text` is the Location) or a status with a JSON body, plus its headers.
struct Reply {
  int status = 0;
  std::string text;
  std::vector<Header> headers;
};

std::string reply_statements(const Reply& r) {
  std::string s;
  for (const auto& [name, value] : r.headers) s += add_header(name, value) + " ";
  return s + "return " + std::to_string(r.status) + " " + nginx_quote(r.text) + ";";
}

std::string location(const std::string& match, const std::vector<std::string>& statements) {
  return "    location " + match + " {\n      " + join(statements, "\n      ") + "\n    }\n";
}

std::string exact(const std::string& uri) { return "= " + nginx_quote(uri); }
std::string prefix(const std::string& uri) { return "^~ " + nginx_quote(uri); }

// What a repo's locations run before their own work: the private-repo auth guards (rewrite phase) and, for the
// limited modes, the limiter (preaccess phase).
struct Guard {
  std::vector<std::string> statements;
  bool limited = false;
};

Guard auth_guard(const RepoPlan& r) {
  Guard g;
  if (r.mode == Mode::Private)
    g.statements = {"if ($ma_auth = none) { rewrite ^ /__ma/unauthorized/anonymous last; }",
                    "if ($ma_auth = invalid) { rewrite ^ /__ma/unauthorized/invalid last; }"};
  return g;
}

Guard resolve_guard(const RepoPlan& r) {
  Guard g = auth_guard(r);
  if (!is_limited(r.mode)) return g;
  const bool too_many = r.mode == Mode::RateLimited;
  g.limited = true;
  g.statements.push_back("limit_req zone=ma_limit_" + std::to_string(r.index) + ";");
  g.statements.push_back(std::string("limit_req_status ") + (too_many ? "429" : "503") + ";");
  g.statements.push_back(std::string("error_page ") + (too_many ? "429 @ma_429;" : "503 @ma_503;"));
  return g;
}

class HubServerWriter {
 public:
  HubServerWriter(const Layout& lay, std::string endpoint, std::string cdn_origin)
      : lay_(lay), endpoint_(std::move(endpoint)), cdn_origin_(std::move(cdn_origin)) {}

  std::string server(const std::vector<RepoPlan>& repos, uint16_t port) {
    for (const RepoPlan& r : repos) repo_locations(r);
    return "  server {\n    listen 127.0.0.1:" + std::to_string(port) + ";\n    server_name hub;\n    root " +
           nginx_quote(lay_.empty_root().string()) + ";\n    default_type application/json;\n    access_log " +
           nginx_quote(lay_.hub_log().string()) + " ma_hub;\n" + shared_locations() + locations_ + "  }\n";
  }

 private:
  void repo_locations(const RepoPlan& r) {
    api_locations(r);
    if (r.mode == Mode::Gated)
      gated_location(r);
    else if (r.mode == Mode::RedirectLoop)
      redirect_loop_location(r);
    else
      resolve_locations(r);
  }

  void api_locations(const RepoPlan& r) {
    const std::string base = "/api/models/" + r.id;
    const Guard g = auth_guard(r);
    for (const std::string& uri : {base, base + "/revision/main", base + "/revision/" + r.commit})
      file_location(exact(uri), g, lay_.api_json(r), "application/json", {});
    reply_location(prefix(base + "/revision/"), g, revision_not_found());
  }

  void resolve_locations(const RepoPlan& r) {
    const Guard g = resolve_guard(r);
    for (const std::string& rev : {std::string("main"), r.commit}) {
      const std::string base = "/" + r.id + "/resolve/" + rev + "/";
      for (const FilePlan& f : r.files) file_at_revision(r, f, exact(base + f.file.path), g);
      reply_location(prefix(base), g, entry_not_found(r));
      // /raw/ serves a file as git stores it: an LFS file's pointer text. (The JS client HEADs it to learn
      // whether a file exists.)
      const std::string raw = "/" + r.id + "/raw/" + rev + "/";
      for (const FilePlan& f : r.files) {
        if (!f.file.lfs) {
          file_at_revision(r, f, exact(raw + f.file.path), g);
          continue;
        }
        reply_location(exact(raw + f.file.path), g, {200, lfs_pointer(f.etag, f.size), {{"X-Repo-Commit", r.commit}}});
      }
      reply_location(prefix(raw), g, entry_not_found(r));
    }
    reply_location(prefix("/" + r.id + "/resolve/"), g, revision_not_found());
  }

  void file_at_revision(const RepoPlan& r, const FilePlan& f, const std::string& match, const Guard& g) {
    if (f.file.lfs) {
      reply_location(match, g, lfs_redirect(r, f));
      return;
    }
    const std::vector<Header> headers = {{"X-Repo-Commit", r.commit}, {"ETag", quoted_etag(f.etag)}};
    file_location(match, g, lay_.hub_file(r, f), content_type(f.file.path), headers);
  }

  // 401 without a token, 403 with one (a token without access), never the file.
  void gated_location(const RepoPlan& r) {
    const std::string restricted = "Access to model " + r.id + " is restricted";
    const std::string anonymous =
        restricted + ". You must have access to it and be authenticated to access it. Please log in.";
    const std::string denied = restricted + " and you are not in the authorized list. Visit https://huggingface.co/" +
                               r.id + " to ask for access.";
    const auto headers = [&](const std::string& message) {
      return std::vector<Header>{
          {"X-Repo-Commit", r.commit}, {"X-Error-Code", "GatedRepo"}, {"X-Error-Message", message}};
    };
    locations_ += location(prefix("/" + r.id + "/resolve/"),
                           {"if ($http_authorization = \"\") { " +
                                reply_statements({401, error_body(anonymous), headers(anonymous)}) + " }",
                            reply_statements({403, error_body(denied), headers(denied)})});
  }

  void redirect_loop_location(const RepoPlan& r) {
    const Reply loop{302, endpoint_ + "$request_uri", {{"X-Repo-Commit", r.commit}}};
    locations_ += location(prefix("/" + r.id + "/resolve/"), {reply_statements(loop)});
  }

  Reply lfs_redirect(const RepoPlan& r, const FilePlan& f) const {
    return {302,
            cdn_origin_ + cdn_uri(r, f) + kCdnQuery,
            {{"X-Repo-Commit", r.commit},
             {"X-Linked-Etag", quoted_etag(f.etag)},
             {"X-Linked-Size", std::to_string(f.size)},
             {"ETag", quoted_etag(f.etag)}}};
  }

  static Reply entry_not_found(const RepoPlan& r) {
    return {404,
            error_body("Entry not found"),
            {{"X-Error-Code", "EntryNotFound"}, {"X-Error-Message", "Entry not found"}, {"X-Repo-Commit", r.commit}}};
  }

  static Reply revision_not_found() {
    return {404, error_body("Invalid rev id"),
            {{"X-Error-Code", "RevisionNotFound"}, {"X-Error-Message", "Invalid rev id"}}};
  }

  static std::string content_type(const std::string& path) {
    return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0 ? "application/json"
                                                                                : "application/octet-stream";
  }

  // A static file: nginx's own ETag (mtime-size) is replaced by ours; add_header sets the response's etag, so
  // If-Range with it still works.
  void file_location(const std::string& match, const Guard& g, const fs::path& file, const std::string& type,
                     const std::vector<Header>& headers) {
    std::vector<std::string> st = g.statements;
    st.push_back("default_type " + type + ";");
    st.push_back("etag off;");
    for (const auto& [name, value] : headers) st.push_back(add_header(name, value));
    st.push_back("alias " + nginx_quote(file.string()) + ";");
    locations_ += location(match, st);
  }

  // A `return` runs in the rewrite phase, before limit_req: behind a limiter it moves into a named location
  // that try_files (which runs after the limiter) falls back to.
  void reply_location(const std::string& match, const Guard& g, const Reply& reply) {
    std::vector<std::string> st = g.statements;
    if (!g.limited) {
      st.push_back(reply_statements(reply));
      locations_ += location(match, st);
      return;
    }
    const std::string name = "@ma_reply_" + std::to_string(named_count_++);
    st.push_back("try_files /.ma-never " + name + ";");
    locations_ += location(match, st) + location(name, {reply_statements(reply)});
  }

  std::string shared_locations() const {
    const std::string not_found = "Repository not found";
    const std::string invalid = "Invalid credentials in Authorization header";
    return location(exact("/__ma/unauthorized/anonymous"),
                    {"internal;", reply_statements({401, error_body(not_found),
                                                    {{"X-Error-Code", "RepoNotFound"},
                                                     {"X-Error-Message", not_found}}})}) +
           location(exact("/__ma/unauthorized/invalid"),
                    {"internal;", reply_statements({401, error_body(invalid), {{"X-Error-Message", invalid}}})}) +
           location("@ma_429", {reply_statements({429, error_body("Too many requests"), {{"Retry-After", "2"}}})}) +
           location("@ma_503", {reply_statements({503, error_body("Service temporarily unavailable"), {}})}) +
           location("/", {reply_statements({404, error_body(not_found),
                                            {{"X-Error-Code", "RepoNotFound"}, {"X-Error-Message", not_found}}})});
  }

  const Layout& lay_;
  std::string endpoint_, cdn_origin_;
  std::string locations_;
  int named_count_ = 0;
};

std::vector<std::string> cdn_mode_statements(Mode m) {
  if (m == Mode::IgnoreRange) return {"max_ranges 0;"};
  if (m == Mode::Slow) return {"limit_rate 256k;"};
  return {};
}

std::string cdn_server(const Layout& lay, const std::vector<RepoPlan>& repos, uint16_t port) {
  std::string locations;
  std::set<std::string> served;  // identical blobs of normal repos share one URL
  for (const RepoPlan& r : repos)
    for (const FilePlan& f : r.files) {
      if (!f.file.lfs || !served.insert(cdn_uri(r, f)).second) continue;
      std::vector<std::string> st = cdn_mode_statements(r.mode);
      st.push_back(add_header("ETag", quoted_etag(f.etag)));
      st.push_back("alias " + nginx_quote(lay.blob(r, f).string()) + ";");
      locations += location(exact(cdn_uri(r, f)), st);
    }
  return "  server {\n    listen 127.0.0.1:" + std::to_string(port) + ";\n    server_name cdn;\n    root " +
         nginx_quote(lay.empty_root().string()) + ";\n    etag off;\n    access_log " +
         nginx_quote(lay.cdn_log().string()) + " ma_cdn;\n" + locations + location("/", {"return 404;"}) + "  }\n";
}

std::string log_format(const std::string& name, const std::string& server) {
  return "  log_format " + name + " escape=default \"" + server +
         "\\t$request_method\\t$request_uri\\t$status\\t$http_range\\t$http_authorization\\t$bytes_sent\";\n";
}

std::string temp_paths(const Layout& lay) {
  std::string s;
  for (const char* kind : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    s += std::string("  ") + kind + "_temp_path " + nginx_quote((lay.tmp() / kind).string()) + ";\n";
  return s;
}

// $ma_auth: none / valid / invalid. A regex, because map's plain strings compare case-insensitively.
std::string auth_map(const std::string& token) {
  return "  map $http_authorization $ma_auth {\n    \"\" none;\n    " +
         nginx_quote("~^Bearer \\Q" + token + "\\E$") + " valid;\n    default invalid;\n  }\n";
}

std::string limit_zones(const std::vector<RepoPlan>& repos) {
  std::string s;
  for (const RepoPlan& r : repos)
    if (is_limited(r.mode))
      s += "  limit_req_zone $binary_remote_addr zone=ma_limit_" + std::to_string(r.index) + ":1m rate=30r/m;\n";
  return s;
}

std::string main_section(const Layout& lay) {
  std::string s = "daemon off;\nmaster_process on;\nworker_processes 1;\n";
  // As root, workers would otherwise run as nobody and could not read a 0700 temp dir.
  if (::geteuid() == 0) s += "user root;\n";
  // Graceful stop closes even active (slow) transfers after 1 s rather than waiting for them.
  s += "worker_shutdown_timeout 1s;\n";
  s += "pid " + nginx_quote(lay.pid_file().string()) + ";\n";
  s += "error_log " + nginx_quote(lay.error_log().string()) + " notice;\n";
  return s + "events {\n  worker_connections 1024;\n}\n";
}

std::string http_common(const Layout& lay) {
  return "  types {}\n  default_type application/octet-stream;\n  server_tokens off;\n  sendfile on;\n"
         "  tcp_nopush on;\n  tcp_nodelay on;\n  keepalive_timeout 60s;\n  keepalive_requests 100000;\n"
         // Like the Hub's CDN, JSON goes out gzip-compressed to clients that accept it (never a range answer).
         "  gzip on;\n  gzip_types application/json;\n  gzip_min_length 1024;\n" +
         temp_paths(lay) + log_format("ma_hub", "hub") + log_format("ma_cdn", "cdn") + "  access_log off;\n";
}

struct ConfigInputs {
  const Layout& lay;
  const std::vector<RepoPlan>& repos;
  const std::string& token;
  uint16_t hub_port, cdn_port;
};

std::string origin(uint16_t port) { return "http://127.0.0.1:" + std::to_string(port); }

std::string render_config(const ConfigInputs& in) {
  HubServerWriter hub(in.lay, origin(in.hub_port), origin(in.cdn_port));
  return main_section(in.lay) + "http {\n" + http_common(in.lay) + auth_map(in.token) + limit_zones(in.repos) +
         hub.server(in.repos, in.hub_port) + cdn_server(in.lay, in.repos, in.cdn_port) + "}\n";
}

// ---------------------------------------------------------------------------------------------------------------
// The nginx process.

std::string find_nginx() {
  if (::access("/usr/sbin/nginx", X_OK) == 0) return "/usr/sbin/nginx";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "nginx";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

uint16_t bound_port(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("FakeHub: getsockname failed");
  return ntohs(addr.sin_port);
}

sockaddr_in loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  return addr;
}

// Ports the kernel hands out for 127.0.0.1:0; the sockets stay open until all are chosen, so they differ.
std::vector<uint16_t> pick_free_ports(size_t n) {
  std::vector<std::unique_ptr<Fd>> held;
  std::vector<uint16_t> ports;
  for (size_t i = 0; i < n; ++i) {
    held.push_back(std::make_unique<Fd>(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)));
    const sockaddr_in addr = loopback(0);
    if (held.back()->get() < 0 || ::bind(held.back()->get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr))
      throw std::runtime_error("FakeHub: cannot bind a free port");
    ports.push_back(bound_port(held.back()->get()));
  }
  return ports;
}

bool port_accepts(uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const sockaddr_in addr = loopback(port);
  return fd.get() >= 0 && ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
}

// fork + exec in its own process group (so a forced stop reaches the workers too), output to files.
pid_t spawn_nginx(const std::string& binary, const Layout& lay) {
  const std::string prefix_dir = lay.work.string() + "/", conf = lay.conf().string(), err = lay.error_log().string();
  const std::string out_file = (lay.work / "nginx.stdout").string(), err_file = (lay.work / "nginx.stderr").string();
  std::vector<const char*> argv = {binary.c_str(), "-p", prefix_dir.c_str(), "-c", conf.c_str(),
                                   "-e", err.c_str(), nullptr};
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("FakeHub: fork failed");
  if (pid == 0) {  // only async-signal-safe calls from here on
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int errfd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(errfd, 2);
    for (int fd : {in, out, errfd})
      if (fd > 2) ::close(fd);
    ::execv(binary.c_str(), const_cast<char* const*>(argv.data()));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so a stop right after fork finds the group
  return pid;
}

bool has_exited(pid_t pid) {
  int status = 0;
  const pid_t r = ::waitpid(pid, &status, WNOHANG);
  return r == pid || (r < 0 && errno == ECHILD);
}

bool wait_exit(pid_t pid, Clock::duration timeout) {
  for (const auto deadline = Clock::now() + timeout; Clock::now() < deadline;) {
    if (has_exited(pid)) return true;
    std::this_thread::sleep_for(kPollInterval);
  }
  return has_exited(pid);
}

// The master writes its pid file only after binding the listen sockets: with it in place, an accepting port is
// ours and not some other process's that took the port in between.
bool nginx_ready(const Layout& lay, pid_t pid, uint16_t hub_port, uint16_t cdn_port) {
  const std::string pid_text = read_whole_file(lay.pid_file());
  return std::atol(pid_text.c_str()) == pid && port_accepts(hub_port) && port_accepts(cdn_port);
}

// Master and worker each log "reopening logs" once they have reopened (notice level).
size_t reopen_notices(const Layout& lay) {
  std::istringstream lines(read_whole_file(lay.error_log()));
  size_t n = 0;
  const std::string_view suffix = ": reopening logs";
  for (std::string line; std::getline(lines, line);)
    n += line.size() >= suffix.size() && line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0;
  return n;
}

// ---------------------------------------------------------------------------------------------------------------
// Access logs.

// nginx's escape=default writes '"', '\' and bytes outside 0x20..0x7e as \xHH.
std::string unescape_log_field(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && std::isxdigit(static_cast<unsigned char>(s[i + 2])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 3]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// nginx logs an absent header as "-".
std::string header_field(const std::string& s) { return s == "-" ? std::string() : unescape_log_field(s); }

std::vector<LogEntry> parse_access_log(const fs::path& p) {
  std::vector<LogEntry> entries;
  std::istringstream lines(read_whole_file(p));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() != 7) continue;  // a line being written right now
    LogEntry e;
    e.server = f[0];
    e.method = f[1];
    e.uri = unescape_log_field(f[2]);
    e.status = std::atoi(f[3].c_str());
    e.range = header_field(f[4]);
    e.authorization = header_field(f[5]);
    e.bytes_sent = std::strtoull(f[6].c_str(), nullptr, 10);
    entries.push_back(std::move(e));
  }
  return entries;
}

bool has_suffix(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_lfs_by_name(const std::string& name) {
  for (const char* ext : {".safetensors", ".bin", ".pt", ".gguf", ".onnx"})
    if (has_suffix(name, ext)) return true;
  return false;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// FakeHub.

struct FakeHub::Impl {
  Layout lay;
  std::string token;
  std::vector<RepoPlan> repos;
  uint16_t hub_port = 0, cdn_port = 0;
  pid_t pid = -1;

  const RepoPlan& repo(const std::string& id) const {
    for (const RepoPlan& r : repos)
      if (r.id == id) return r;
    throw std::out_of_range("FakeHub: no repo " + id);
  }

  void prepare_tree() const {
    fs::remove_all(lay.www());
    fs::create_directories(lay.empty_root());
    fs::create_directories(lay.tmp());
    for (const RepoPlan& r : repos) write_repo_tree(lay, r);
    for (const fs::path& p : {lay.pid_file(), lay.hub_log(), lay.cdn_log()}) fs::remove(p);
  }

  [[noreturn]] void fail_start(const std::string& why) {
    const std::string tail = tail_of_file(lay.error_log());
    if (pid > 0) {
      ::kill(-pid, SIGKILL);
      wait_exit(pid, std::chrono::seconds(2));
      pid = -1;
    }
    throw std::runtime_error("FakeHub: nginx " + why + "; error.log ends with:\n" + tail);
  }

  void wait_until_ready() {
    for (const auto deadline = Clock::now() + kStartTimeout; Clock::now() < deadline;) {
      if (has_exited(pid)) {
        ::kill(-std::exchange(pid, -1), SIGKILL);  // a worker it may have left behind
        fail_start("exited during startup");
      }
      if (nginx_ready(lay, pid, hub_port, cdn_port)) return;
      std::this_thread::sleep_for(kPollInterval);
    }
    fail_start("did not accept on both ports within 10 s");
  }
};

bool FakeHub::available() { return !find_nginx().empty(); }

FakeHub::FakeHub(std::filesystem::path work_dir, std::string valid_token) : impl_(std::make_unique<Impl>()) {
  fs::create_directories(work_dir);
  impl_->lay.work = fs::absolute(work_dir).lexically_normal();
  validate_config_path(impl_->lay.work);
  validate_token(valid_token);
  impl_->token = std::move(valid_token);
}

FakeHub::~FakeHub() {
  try {
    stop();
  } catch (...) {  // a destructor must not throw; nginx is killed by its group at worst
  }
}

void FakeHub::add_repo(FakeRepo repo) {
  if (impl_->pid > 0) throw std::logic_error("FakeHub: add_repo after start()");
  RepoPlan plan = plan_repo(std::move(repo), impl_->repos.size());
  for (const RepoPlan& r : impl_->repos)
    if (r.key == plan.key) throw std::invalid_argument("FakeHub: repo " + plan.id + " clashes with " + r.id);
  impl_->repos.push_back(std::move(plan));
}

void FakeHub::start() {
  if (impl_->pid > 0) throw std::logic_error("FakeHub: already started");
  const std::string binary = find_nginx();
  if (binary.empty()) throw std::runtime_error("FakeHub: nginx not found");
  impl_->prepare_tree();
  const std::vector<uint16_t> ports = pick_free_ports(2);
  impl_->hub_port = ports[0];
  impl_->cdn_port = ports[1];
  write_whole_file(impl_->lay.conf(),
                   render_config({impl_->lay, impl_->repos, impl_->token, impl_->hub_port, impl_->cdn_port}));
  impl_->pid = spawn_nginx(binary, impl_->lay);
  impl_->wait_until_ready();
}

void FakeHub::stop() {
  if (impl_->pid <= 0) return;
  const pid_t pid = std::exchange(impl_->pid, -1);
  ::kill(pid, SIGQUIT);
  if (wait_exit(pid, kGracefulStopTimeout)) return;
  ::kill(-pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

std::string FakeHub::endpoint() const {
  if (impl_->hub_port == 0) throw std::logic_error("FakeHub: endpoint() before start()");
  return origin(impl_->hub_port);
}

std::string FakeHub::cdn_origin() const {
  if (impl_->cdn_port == 0) throw std::logic_error("FakeHub: cdn_origin() before start()");
  return origin(impl_->cdn_port);
}

std::vector<LogEntry> FakeHub::log() const {
  std::vector<LogEntry> all = parse_access_log(impl_->lay.hub_log());
  std::vector<LogEntry> cdn = parse_access_log(impl_->lay.cdn_log());
  all.insert(all.end(), std::make_move_iterator(cdn.begin()), std::make_move_iterator(cdn.end()));
  return all;
}

std::vector<LogEntry> FakeHub::wait_for_log(size_t count, std::chrono::milliseconds timeout) const {
  const auto deadline = Clock::now() + timeout;
  std::vector<LogEntry> entries = log();
  while (entries.size() < count && Clock::now() < deadline) {
    std::this_thread::sleep_for(kPollInterval);
    entries = log();
  }
  return entries;
}

void FakeHub::clear_log() {
  const Layout& lay = impl_->lay;
  for (const fs::path& p : {lay.hub_log(), lay.cdn_log()})
    if (fs::exists(p)) fs::resize_file(p, 0);  // nginx appends (O_APPEND), so its next line lands at offset 0
  if (impl_->pid <= 0) return;
  const size_t before = reopen_notices(lay);
  ::kill(impl_->pid, SIGUSR1);
  for (const auto deadline = Clock::now() + kReopenTimeout; reopen_notices(lay) < before + 2;) {
    if (Clock::now() >= deadline) throw std::runtime_error("FakeHub: nginx did not reopen its logs");
    std::this_thread::sleep_for(kPollInterval);
  }
}

std::string FakeHub::commit_of(const std::string& repo_id) const { return impl_->repo(repo_id).commit; }

std::string FakeHub::etag_of(const std::string& repo_id, const std::string& path) const {
  for (const FilePlan& f : impl_->repo(repo_id).files)
    if (f.file.path == path) return f.etag;
  throw std::out_of_range("FakeHub: no file " + path + " in " + repo_id);
}

FakeRepo repo_from_directory(const std::string& id, const std::filesystem::path& dir) {
  FakeRepo repo;
  repo.id = id;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    FakeFile f;
    f.path = p.filename().string();
    f.content = read_whole_file(p);
    f.lfs = is_lfs_by_name(f.path) || f.content.size() > kLfsThresholdBytes;
    repo.files.push_back(std::move(f));
  }
  return repo;
}

}  // namespace ma::test
