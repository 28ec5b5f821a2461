#include "hub/hub_http.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/error.h"
#include "hub/hub_errors.h"
#include "hub/response_headers.h"

namespace ma {
namespace {

constexpr int kMaxRedirects = 10;

bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// What the server asks us to wait before the next try: Retry-After, else the RateLimit header's reset; both
// validated and clamped (hub/response_headers.h), so anything else means the normal backoff.
std::optional<double> server_wait(const HttpResponse& r) {
  if (auto s = parse_header(r.header("retry-after"), parse_retry_after)) return s;
  return parse_header(r.header("ratelimit"), parse_ratelimit_reset);
}

// A finite wait of at most kMaxHeaderWaitSeconds, as whole seconds ("86400 s or more" at the clamp).
std::string wait_text(double s) {
  return std::to_string(static_cast<long long>(std::ceil(s))) +
         (s >= kMaxHeaderWaitSeconds ? " s or more" : " s");
}

// Waits `s` seconds before the next try, in steps of at most 100 ms so that Ctrl-C (the request's cancel
// flag) is honoured within one: a Retry-After may ask for up to a minute. Interrupted, it fails as an
// interrupted transfer does (HttpClient::perform).
void sleep_s(double s, const std::atomic<bool>* cancel, const std::string& url) {
  const auto until =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
  for (;;) {
    if (cancel && cancel->load()) throw Error(ErrorKind::LocalIO, redact_url(url), "", "interrupted");
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(100)));
  }
}

}  // namespace

const std::string* HubResult::hub_header(std::string_view lower_name) const {
  const std::string* found = nullptr;
  for (const auto& [name, value] : hub_headers)
    if (name == lower_name) found = &value;
  return found;
}

const std::string* HubResult::file_etag() const {
  const std::string* linked = hub_header("x-linked-etag");
  return linked ? linked : hub_header("etag");
}

HubHttp::HubHttp(const HubSettings& settings)
    : settings_(settings), endpoint_origin_(origin_of(settings.endpoint)), client_(settings.timeouts) {}

HubResult HubHttp::follow(const std::string& start, HttpRequest request) {
  HubResult result;
  std::string url = start;
  for (int hop = 0;; ++hop) {
    const Origin origin = origin_of(url);
    request.url = url;
    // Credentials belong to the endpoint's exact origin: scheme, host and port (curl's rule, and httpx's).
    request.authorization.clear();
    if (settings_.send_token && origin == endpoint_origin_)
      request.authorization = "Bearer " + settings_.token->value;
    const auto sent = std::chrono::steady_clock::now();
    auto observe = [&](int status, uint64_t bytes, std::string failure) {
      if (settings_.observe)
        settings_.observe({request.head ? "HEAD" : "GET", without_token(redact_url(url)), request.range,
                           status, bytes,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count(),
                           without_token(std::move(failure))});
    };
    HttpResponse r;
    uint64_t received = 0;
    try {
      r = client_.perform(request, &received);
    } catch (const Error& e) {
      // A failed exchange is traced too (status 0, what arrived, why), then the error goes on as it was: the
      // transfer a resume continues, every refused, reset or timed-out try.
      observe(0, received, e.rule());
      throw;
    }
    observe(r.status, r.body_bytes, {});
    if (origin == endpoint_origin_) result.hub_headers = r.headers;
    const std::string* location = r.header("location");
    if (!is_redirect(r.status) || !location) {
      result.response = std::move(r);
      result.final_url = url;
      return result;
    }
    if (hop + 1 >= kMaxRedirects)
      throw Error(ErrorKind::Network, redact_url(start), "", "too many redirects");
    std::string next = resolve_url(url, *location);
    const Origin to = origin_of(next);
    if (origin.scheme == "https" && to.scheme != "https")
      throw Error(ErrorKind::Network, redact_url(url), "Location",
                  "insecure redirect to " + redact_url(next) + " (https to http)");
    url = std::move(next);
  }
}

std::string HubHttp::without_token(std::string text) const {
  return settings_.token ? redact_secret(std::move(text), settings_.token->value) : text;
}

HubResult HubHttp::fetch(const std::string& url, HttpRequest request, const HubTarget& target) {
  // Every error of every hop passes here, the URLs a server redirected to and the text it sent included:
  // the token is taken out of them all, whether or not that hop was sent it (the one place that knows it).
  auto clean = [&](const Error& e) {
    return Error(e.kind(), without_token(e.file()), without_token(e.field()), without_token(e.rule()),
                 e.offset());
  };
  try {
    return retrying(url, std::move(request), target);
  } catch (const TransientNetworkError& e) {
    const Error c = clean(e);
    throw TransientNetworkError(c.kind(), c.file(), c.field(), c.rule(), c.offset());
  } catch (const Error& e) {
    throw clean(e);
  }
}

HubResult HubHttp::retrying(const std::string& url, HttpRequest request, const HubTarget& target) {
  bool delivered = false;
  if (request.sink) {
    auto inner = std::move(request.sink);
    request.sink = [inner, &delivered](std::string_view chunk) {
      delivered = true;
      inner(chunk);
    };
  }
  for (int attempt = 1;; ++attempt) {
    const double backoff = std::min(settings_.backoff_base_s * std::pow(2.0, attempt - 1), 8.0);
    HubResult r;
    try {
      r = follow(url, request);
    } catch (const TransientNetworkError&) {
      // Only the connection failed (refused, reset, timed out): worth another try, unless bytes already went
      // to the sink (the caller resumes). A refused redirect, Ctrl-C or a header over the limit is not.
      if (delivered || attempt > settings_.max_transport_retries) throw;
      sleep_s(backoff, request.cancel, url);
      continue;
    }
    const int status = r.response.status;
    if (status >= 200 && status < 300) return r;
    if (!retryable_status(status) || attempt > settings_.max_retries)
      throw_hub_error(r, target, settings_, attempt);
    double wait = backoff;
    if (status == 429) {
      if (auto ra = server_wait(r.response)) {
        // A wait beyond the cap is not worth hanging for: say when to come back instead (N6).
        if (*ra + 1 > settings_.max_retry_wait_s)
          throw Error(ErrorKind::Network, target.repo, "HTTP 429",
                      "rate limited; the server asks to wait " + wait_text(*ra) + ", which exceeds the " +
                          wait_text(settings_.max_retry_wait_s) + " cap; retry later");
        wait = *ra + 1;
      }
    }
    sleep_s(wait, request.cancel, url);
  }
}

}  // namespace ma
