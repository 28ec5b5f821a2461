// A fake Hugging Face Hub on loopback for tests and benchmarks: a real nginx serves the Hub's model-info API,
// its /resolve/ endpoint (with 302 redirects of LFS files to a separate "CDN" origin) and the CDN itself,
// with per-repo fault modes. Self-contained: the standard library, POSIX and OpenSSL libcrypto only.
//
// What a client can rely on (exact spellings; the notes atop fake_hub.cpp say how each mode is built):
//   GET  {endpoint}/api/models/{id}[/revision/{main|commit}]   model info JSON
//   GET/HEAD {endpoint}/{id}/resolve/{main|commit}/{path}     file, or 302 to {cdn_origin}/lfs/...
//   Headers: X-Repo-Commit: {commit}; ETag: "{hex}" (quoted); X-Linked-Etag: "{sha256}" (quoted);
//            X-Linked-Size: {bytes}; X-Error-Code / X-Error-Message on errors; on 429 the repo's
//            limit_headers (Retry-After: 2 unless the repo says otherwise).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ma::test {

struct FakeFile {
  std::string path;          // repo-relative, e.g. "config.json", "model-00001-of-00163.safetensors"
  std::string content;       // the file's bytes, or the prefix of a sparse file
  uint64_t sparse_size = 0;  // if > content.size(): `content` then zeros up to this size, written sparse
  bool lfs = false;          // LFS files are served through a redirect to the CDN server
  // Override for the etag the server sends: the sha256 (64 hex) of an LFS file, the git blob sha1 (40 hex) of
  // another. Empty = computed; a sparse file over 64 MiB is never hashed, so it needs an override.
  std::string etag;
};

struct FakeRepo {
  std::string id;      // "gpt2" or "org/name" ([A-Za-z0-9._-], at most one '/')
  std::string commit;  // 40 lowercase hex; empty = derived deterministically from id
  std::vector<FakeFile> files;
  // normal | gated | private | rate_limited | flaky | ignore_range | truncated | corrupt | slow |
  // redirect_loop
  std::string mode = "normal";
  // Extra top-level members spliced into the model-info object, e.g. "\"downloads\":12,\"likes\":3". A member
  // named here replaces the default of the same name (including "siblings"), so the JSON stays valid.
  std::string info_json_fields;
  // What a rate_limited repo's 429 answers carry besides their body: a hostile Retry-After ("inf"), an IETF
  // RateLimit header ("\"api\";r=0;t=nan"). Names are letters, digits and '-'; values printable ASCII
  // without '$' (they are written into nginx.conf, where '$' would name a variable).
  std::vector<std::pair<std::string, std::string>> limit_headers = {{"Retry-After", "2"}};
};

struct LogEntry {
  std::string server;  // "hub" or "cdn"
  std::string method;
  std::string uri;            // as requested, with the query string
  std::string range;          // the Range header, empty when absent
  std::string authorization;  // the Authorization header, empty when absent
  int status = 0;
  uint64_t bytes_sent = 0;  // headers included
};

class FakeHub {
 public:
  // An nginx binary exists (/usr/sbin/nginx or on PATH).
  static bool available();

  // work_dir is created; the served tree, nginx.conf, logs and pid file all live under it (it is not
  // removed).
  FakeHub(std::filesystem::path work_dir, std::string valid_token);
  ~FakeHub();
  FakeHub(const FakeHub&) = delete;
  FakeHub& operator=(const FakeHub&) = delete;

  // Before start(). Validates the repo and computes its commit and etags (throws std::invalid_argument or
  // std::runtime_error on bad input, e.g. a sparse file over 64 MiB without an etag override).
  void add_repo(FakeRepo repo);

  // Writes the tree and nginx.conf, opens two listening sockets at free ports (nginx inherits them, so no
  // other process can take a port between its choice and nginx), starts nginx and waits until its master has
  // started its worker (10 s, then throws std::runtime_error with the tail of error.log).
  void start();
  // Graceful (SIGQUIT), then SIGKILL to nginx's process group after 5 s. Idempotent; the destructor calls it.
  void stop();

  std::string endpoint() const;    // "http://127.0.0.1:<hub port>"
  std::string cdn_origin() const;  // "http://127.0.0.1:<cdn port>"

  // The parsed access logs since the last clear_log(), hub entries first then cdn entries, each in request
  // order. Every request nginx has answered before the call is in it: nginx logs a request just after sending
  // its last byte, so a client that returns the moment it has the bytes could otherwise race the line; log()
  // first sends nginx a request of its own and waits until that one is logged (it is never listed).
  std::vector<LogEntry> log() const;
  // For requests nginx may still be answering when the client is done (a transfer the client cut short, which
  // nginx notices on its next write): polls log() until at least `count` entries are there (or the timeout).
  std::vector<LogEntry> wait_for_log(size_t count,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(2)) const;
  // From now on log() lists only what is answered after this call (and everything answered before is out).
  void clear_log();

  std::string commit_of(const std::string& repo_id) const;
  // The bare hex the server puts (quoted) in ETag: the sha256 of an LFS file, the git blob sha1 of another.
  std::string etag_of(const std::string& repo_id, const std::string& path) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Reads every regular file of a local directory (not its subdirectories) into a FakeRepo; *.safetensors,
// *.bin,
// *.pt, *.gguf, *.onnx and any file over 1 MiB become LFS files.
FakeRepo repo_from_directory(const std::string& id, const std::filesystem::path& dir);

}  // namespace ma::test
