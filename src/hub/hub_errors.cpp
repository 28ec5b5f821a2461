#include "hub/hub_errors.h"

#include "core/error.h"

namespace ma {
namespace {

// The server's X-Error-Message, printable and short, with the token cut out should a server echo it.
std::string server_message(const HubResult& r, const HubSettings& s) {
  const std::string* m = r.hub_header("x-error-message");
  if (!m) m = r.response.header("x-error-message");
  if (!m) return {};
  std::string out;
  for (char c : *m)
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
  // The token is taken out of the whole message before it is cut short: cut first, a token across the cut
  // would no longer be found, and its first characters would be printed.
  if (s.token) out = redact_secret(std::move(out), s.token->value);
  if (out.size() > 200) out.resize(200);
  return out;
}

std::string error_code(const HubResult& r) {
  const std::string* c = r.hub_header("x-error-code");
  if (!c) c = r.response.header("x-error-code");
  return c ? *c : std::string();
}

std::string where(const HubTarget& t) {
  std::string w = t.repo;
  if (!t.revision.empty()) w += "@" + t.revision;
  if (!t.file.empty()) w += "/" + t.file;
  return w;
}

// What was sent, by source, never by value. A token withheld from a non-Hugging Face endpoint was not sent:
// saying "the token from HF_TOKEN" there would have the user replace a token the server never saw.
std::string token_hint(const HubSettings& s) {
  if (s.token && s.send_token) return "the token from " + s.token->source;
  if (s.token)
    return "no token (the token from " + s.token->source +
           " is withheld from this endpoint: pass --trust-endpoint to send it)";
  return "no token";
}

}  // namespace

bool retryable_status(int status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

void throw_hub_error(const HubResult& r, const HubTarget& t, const HubSettings& s, int attempts) {
  const int status = r.response.status;
  const std::string code = error_code(r);
  const std::string msg = server_message(r, s);
  const std::string page = s.endpoint + "/" + t.repo;
  auto fail = [&](ErrorKind kind, const std::string& rule) {
    throw Error(kind, where(t), "HTTP " + std::to_string(status), rule);
  };
  if (code == "GatedRepo")
    fail(ErrorKind::Auth, "gated repo: request access at " + page +
                              " and pass a token (HF_TOKEN or --token); sent: " + token_hint(s));
  // Rejected only when one was sent: without a token the server's "Invalid credentials" means one is needed.
  if (status == 401 && s.token && s.send_token && msg.find("Invalid credentials") != std::string::npos)
    fail(ErrorKind::Auth, "token rejected (expired or revoked): " + token_hint(s));
  if (status == 401)
    fail(ErrorKind::Auth,
         "repository not found or requires authentication (private or gated); check the id, "
         "set HF_TOKEN or pass --token; sent: " +
             token_hint(s));
  if (status == 403)
    fail(ErrorKind::Auth, "forbidden" + (msg.empty() ? std::string() : ": " + msg) +
                              "; make sure the token has read access; sent: " + token_hint(s));
  if (status == 404) {
    if (code == "RevisionNotFound")
      fail(ErrorKind::NotFound, "revision '" + t.revision + "' not found in " + t.repo);
    // A file is asked for only once the listing named it, so the repository is there: a bare 404 (no
    // X-Error-Code, as a CDN or a mirror answers) means the file is missing, not the repository.
    if (code == "EntryNotFound" || (code.empty() && !t.file.empty()))
      fail(ErrorKind::NotFound, "file '" + t.file + "' not found in " + t.repo + "@" + t.revision);
    fail(ErrorKind::NotFound,
         "repository '" + t.repo + "' not found on " + s.endpoint + " (a typo? private repos need a token)");
  }
  if (status == 429)  // a token raises the limits: advised only when none was sent
    fail(ErrorKind::Network, "rate limited after " + std::to_string(attempts) + " attempt(s); retry later" +
                                 (s.token && s.send_token ? std::string(" (sent: " + token_hint(s) + ")")
                                                          : ", or pass a token for higher limits"));
  if (retryable_status(status))
    fail(ErrorKind::Network, "server error after " + std::to_string(attempts) + " attempt(s)" +
                                 (msg.empty() ? std::string() : ": " + msg));
  throw Error(ErrorKind::Network, where(t), "HTTP " + std::to_string(status),
              "unexpected answer" + (msg.empty() ? std::string() : ": " + msg));
}

}  // namespace ma
