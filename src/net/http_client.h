// One HTTP exchange at a time per call, on pooled libcurl handles (connections are kept alive and reused
// across calls and threads). Deliberately policy-free: no redirects followed, no retries, no credentials of
// its own — the Hub client decides those per hop (hub/hub_http.h). A body cap stops the transfer after the
// bytes asked for, so a server that ignores Range cannot make us download a multi-GB body.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

namespace ma {

// A failure of the connection itself that another try may not meet (refused, reset, timed out, cut short):
// the only failure of perform worth retrying. Every other Error it throws is final: a refused TLS
// certificate, a header over libcurl's limit, compressed bytes, Ctrl-C, a sink's own error.
struct TransientNetworkError : Error {
  using Error::Error;
};

inline constexpr uint64_t kOpenEnded = UINT64_MAX;

struct ByteRange {
  uint64_t first = 0;
  uint64_t last = 0;  // inclusive, as in the Range header; kOpenEnded: "bytes=first-"
};

struct HttpRequest {
  std::string url;
  bool head = false;
  std::optional<ByteRange> range;
  std::string authorization;        // full header value ("Bearer ..."); empty: none
  uint64_t max_body = 64ull << 20;  // stop receiving after this many (decoded) body bytes (response.capped)
  // Whole small files (configs, indexes): accept gzip/deflate/br and decode. Off by default so sizes and
  // ranges mean bytes of the file itself.
  bool accept_compressed = false;
  // Streams the body instead of collecting it; throwing from it aborts the transfer and rethrows.
  std::function<void(std::string_view)> sink;
  // Called once with the status before the first byte goes to the sink (a 2xx answer): a resumed download
  // learns there whether the server honoured its Range (206) or sends the whole file again (200).
  std::function<void(int status)> on_sink_start;
  // Set (Ctrl-C): the transfer stops within about a second, even one that is waiting for bytes that do not
  // come, and perform throws Error(LocalIO, "interrupted").
  const std::atomic<bool>* cancel = nullptr;
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-case, in arrival order
  std::string body;                                          // empty when a sink consumed it
  uint64_t body_bytes = 0;                                   // received (and kept) body bytes
  bool capped = false;                                       // the server had more to send than max_body

  const std::string* header(std::string_view lower_name) const;  // the last such header, or null
};

// One request and its answer as a log may show them: the URL without its query string (presigned CDN URLs
// carry signatures), never a header. A failed exchange (refused, reset, timed out, cut short, stopped) is one
// too: status 0, the bytes that arrived before it failed, and why — the ones a user turns --verbose on for.
struct HttpExchange {
  std::string method;  // GET, HEAD
  std::string url;     // redact_url'd
  std::optional<ByteRange> range;
  int status = 0;  // 0: no complete answer (see failure)
  uint64_t body_bytes = 0;
  double seconds = 0;
  std::string failure;  // empty when an answer came; else the error's reason ("connection reset")
};

struct HttpTimeouts {
  long connect_s = 10;
  long stall_s =
      10;  // abort when under 1 KiB a second arrives for this long (silent or dripping: slow-loris)
};

class HttpClient {
 public:
  explicit HttpClient(HttpTimeouts timeouts = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Thread-safe. Throws Error(Network) on transport failures (refused, reset, timeout, TLS), naming the URL
  // without its query string (presigned CDN URLs carry signatures); TransientNetworkError for those another
  // try may not meet. `received`, when given, is set to the body bytes that arrived, also when it throws (a
  // transfer cut short after 100,000 bytes says so in a trace).
  HttpResponse perform(const HttpRequest& request, uint64_t* received = nullptr);

  uint64_t requests() const { return requests_.load(); }
  uint64_t bytes_received() const { return bytes_.load(); }  // headers and bodies as on the wire (compressed)

 private:
  void* acquire();
  void release(void* handle);

  HttpTimeouts timeouts_;
  std::mutex mutex_;
  std::vector<void*> idle_;  // CURL* handles with their open connections
  std::atomic<uint64_t> requests_{0}, bytes_{0};
};

// The URL without query string or fragment: what errors and logs may show.
std::string redact_url(std::string_view url);

// `text` with every occurrence of `secret` (a token) replaced by "<token>": for server-supplied text and URLs
// before they go into an error or a log, since a server may echo the token it was sent. Done before any cut
// to length, or a token across the cut would no longer be found. An empty secret changes nothing.
std::string redact_secret(std::string text, std::string_view secret);

}  // namespace ma
