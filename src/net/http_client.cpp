#include "net/http_client.h"

#include <algorithm>
#include <cctype>
#include <exception>

#include "core/error.h"
#include "net/curl_library.h"

namespace ma {
namespace {

struct Transfer {
  const HttpRequest* request;
  HttpResponse* response;
  CURL* handle;
  std::exception_ptr sink_error;
  int to_sink = -1;  // decided at the first body byte: only a 2xx body goes to the sink
};

constexpr uint64_t kMaxErrorBody = 64 << 10;

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * count);
  // A new status line (after a 100 Continue, say) starts a new header block.
  if (line.rfind("HTTP/", 0) == 0) t->response->headers.clear();
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
      value.remove_suffix(1);
    t->response->headers.emplace_back(std::move(name), std::string(value));
  }
  return size * count;
}

bool status_is_success(const Transfer& t) {
  long status = 0;
  curl().easy_getinfo(t.handle, CURLINFO_RESPONSE_CODE, &status);
  return status >= 200 && status < 300;
}

// Called by curl about once a second, bytes or not: a non-zero return aborts the transfer.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* t = static_cast<const Transfer*>(user);
  return t->request->cancel && t->request->cancel->load() ? 1 : 0;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  HttpResponse& r = *t->response;
  if (t->to_sink < 0) {
    long status = 0;
    curl().easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &status);
    t->to_sink = t->request->sink && status >= 200 && status < 300;
    if (t->to_sink && t->request->on_sink_start) {
      try {
        t->request->on_sink_start(static_cast<int>(status));
      } catch (...) {
        t->sink_error = std::current_exception();
        return 0;  // aborts the transfer
      }
    }
  }
  // Error and redirect bodies are kept (small) for the message; never streamed into a download.
  const uint64_t cap = t->to_sink || status_is_success(*t) ? t->request->max_body : kMaxErrorBody;
  const uint64_t room = cap - std::min(cap, r.body_bytes);
  const size_t keep = n <= room ? n : static_cast<size_t>(room);
  std::string_view chunk(data, keep);
  if (t->to_sink) {
    try {
      t->request->sink(chunk);
    } catch (...) {
      t->sink_error = std::current_exception();
      return 0;  // aborts the transfer
    }
  } else {
    r.body.append(chunk);
  }
  r.body_bytes += keep;
  if (keep < n) {
    r.capped = true;
    return 0;  // enough: stop receiving (CURLE_WRITE_ERROR, expected)
  }
  return n;
}

std::string transport_reason(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return "could not resolve host";
    case CURLE_COULDNT_RESOLVE_PROXY:
      return "could not resolve proxy";
    case CURLE_COULDNT_CONNECT:
      return "could not connect (refused or unreachable)";
    case CURLE_OPERATION_TIMEDOUT:
      return "timed out";
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
      return "TLS error: " + std::string(curl().easy_strerror(rc));
    case CURLE_PARTIAL_FILE:
      return "connection closed before the whole body arrived";
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
      return "connection reset";
    case CURLE_OUT_OF_MEMORY:
      // What libcurl answers when a response header line is over its 100 KB limit, far more often than
      // when memory runs out.
      return "a response header over libcurl's 100 KB limit (or out of memory)";
    default:
      return curl().easy_strerror(rc);
  }
}

// The failures another try may not meet: the connection, not what was said on it.
bool transient(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:  // the handshake broke off, unlike a certificate refused
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

// The secret of the Authorization header sent ("Bearer hf_..." -> "hf_..."), which an answer may echo.
std::string_view credentials(const HttpRequest& request) {
  std::string_view v = request.authorization;
  const size_t space = v.find(' ');
  return space == std::string_view::npos ? v : v.substr(space + 1);
}

}  // namespace

const std::string* HttpResponse::header(std::string_view lower_name) const {
  const std::string* found = nullptr;
  for (const auto& [name, value] : headers)
    if (name == lower_name) found = &value;
  return found;
}

std::string redact_url(std::string_view url) {
  size_t cut = url.find_first_of("?#");
  return std::string(url.substr(0, cut));
}

std::string redact_secret(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  for (size_t at = 0; (at = text.find(secret, at)) != std::string::npos; at += 7)
    text.replace(at, secret.size(), "<token>");
  return text;
}

// libcurl is loaded by the first request (net/curl_library.h), not here: a client made for a command that
// finds everything local never costs its loading.
HttpClient::HttpClient(HttpTimeouts timeouts) : timeouts_(timeouts) {}

HttpClient::~HttpClient() {
  for (void* h : idle_) curl().easy_cleanup(static_cast<CURL*>(h));
}

void* HttpClient::acquire() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  CURL* h = curl().easy_init();
  if (!h) throw Error(ErrorKind::Internal, "libcurl", "", "curl_easy_init failed");
  return h;
}

void HttpClient::release(void* handle) {
  std::lock_guard lock(mutex_);
  idle_.push_back(handle);
}

HttpResponse HttpClient::perform(const HttpRequest& request, uint64_t* received) {
  CURL* h = static_cast<CURL*>(acquire());
  curl().easy_reset(h);  // keeps the connection cache, clears the previous request's options
  HttpResponse response;
  Transfer t{&request, &response, h, nullptr};
  std::string range;
  if (request.range)
    range = std::to_string(request.range->first) + "-" +
            (request.range->last == kOpenEnded ? std::string() : std::to_string(request.range->last));
  curl_slist* headers = curl().slist_append(nullptr, "User-Agent: modelanalyzer/" MA_VERSION);
  if (!request.accept_compressed) headers = curl().slist_append(headers, "Accept-Encoding: identity");
  std::string auth;
  if (!request.authorization.empty()) {
    auth = "Authorization: " + request.authorization;
    headers = curl().slist_append(headers, auth.c_str());
  }
  curl().easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl().easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl().easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl().easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl().easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl().easy_setopt(h, CURLOPT_CONNECTTIMEOUT, timeouts_.connect_s);
  // Under 1 KiB a second for stall_s seconds is stuck: silent, or dripping a few bytes to stay open.
  curl().easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl().easy_setopt(h, CURLOPT_LOW_SPEED_TIME, timeouts_.stall_s);
  curl().easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl().easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl().easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl().easy_setopt(h, CURLOPT_WRITEDATA, &t);
  if (request.accept_compressed)
    curl().easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // every encoding curl decodes
  if (request.head) curl().easy_setopt(h, CURLOPT_NOBODY, 1L);
  if (request.cancel) {
    curl().easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl().easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl().easy_setopt(h, CURLOPT_XFERINFODATA, &t);
  }
  if (!range.empty()) curl().easy_setopt(h, CURLOPT_RANGE, range.c_str());

  CURLcode rc = curl().easy_perform(h);
  long status = 0;
  curl().easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  long header_bytes = 0;
  curl_off_t body_bytes = 0;  // as received, before decoding
  curl().easy_getinfo(h, CURLINFO_HEADER_SIZE, &header_bytes);
  curl().easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &body_bytes);
  curl().slist_free_all(headers);
  if (received) *received = response.body_bytes;
  requests_.fetch_add(1);
  bytes_.fetch_add(static_cast<uint64_t>(header_bytes + body_bytes));
  // A transfer we stopped on purpose leaves a connection mid-body: drop the handle rather than reuse it.
  if (rc == CURLE_OK)
    release(h);
  else
    curl().easy_cleanup(h);

  if (t.sink_error) std::rethrow_exception(t.sink_error);
  if (rc == CURLE_ABORTED_BY_CALLBACK && request.cancel && request.cancel->load())
    throw Error(ErrorKind::LocalIO, redact_url(request.url), "", "interrupted");
  if (rc == CURLE_WRITE_ERROR && response.capped) rc = CURLE_OK;
  if (rc != CURLE_OK && transient(rc))
    throw TransientNetworkError(ErrorKind::Network, redact_url(request.url), "", transport_reason(rc));
  if (rc != CURLE_OK) throw Error(ErrorKind::Network, redact_url(request.url), "", transport_reason(rc));
  response.status = static_cast<int>(status);
  // Bytes asked for as they are (ranges of a weights file, a download) that come compressed are not the
  // file's bytes: a network fault, not a malformed file.
  if (!request.accept_compressed && status >= 200 && status < 300)
    if (const std::string* encoding = response.header("content-encoding");
        encoding && !encoding->empty() && *encoding != "identity")
      throw Error(ErrorKind::Network, redact_url(request.url), "Content-Encoding",
                  "the server compressed (" + printable(redact_secret(*encoding, credentials(request))) +
                      ") bytes asked for as they are (Accept-Encoding: identity)");
  return response;
}

}  // namespace ma
