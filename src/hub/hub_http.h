// The Hub's HTTP policy on top of HttpClient: redirects followed by hand so that the token goes to the
// endpoint's origin only (never to a CDN, another port or scheme: T4, N15), no https->http downgrade and at
// most 10 hops (N16); retries with backoff for 408/429/5xx and transport errors, Retry-After honoured up to a
// cap (N5–N7); failures mapped to errors that say what to do (hub_errors.h).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "hub/hub_settings.h"
#include "net/http_client.h"
#include "net/url.h"

namespace ma {

// What a request is about, for error messages.
struct HubTarget {
  std::string repo;
  std::string revision;
  std::string file;  // empty for API calls
};

struct HubResult {
  HttpResponse response;  // the final hop's
  // Headers of the last answer from the endpoint itself: X-Repo-Commit, X-Linked-Etag, X-Linked-Size live
  // there when the file itself comes from a CDN.
  std::vector<std::pair<std::string, std::string>> hub_headers;
  std::string final_url;
  const std::string* hub_header(std::string_view lower_name) const;
  // The file's etag as the endpoint states it (X-Linked-Etag when the bytes come from a CDN, else ETag);
  // raw, for checked_etag. Null when there is none.
  const std::string* file_etag() const;
};

class HubHttp {
 public:
  explicit HubHttp(const HubSettings& settings);

  // GET (or HEAD) with redirects and retries. Returns 2xx answers; throws the mapped Error otherwise.
  // A request with a sink is retried only while nothing reached the sink (the caller resumes downloads).
  // No error it throws holds the token: a server may echo it in a header, or in a URL it redirects to.
  HubResult fetch(const std::string& url, HttpRequest request, const HubTarget& target);

  const HubSettings& settings() const { return settings_; }
  HttpClient& client() { return client_; }
  std::string api_url(const std::string& path) const { return settings_.endpoint + path; }

 private:
  HubResult follow(const std::string& url, HttpRequest request);
  HubResult retrying(const std::string& url, HttpRequest request, const HubTarget& target);
  std::string without_token(std::string text) const;

  const HubSettings& settings_;
  Origin endpoint_origin_;
  HttpClient client_;
};

}  // namespace ma
