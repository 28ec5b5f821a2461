#include "hub/hub_settings.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "core/text.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

// huggingface_hub's _clean_token: surrounding whitespace and newlines go; empty means none.
std::optional<std::string> clean_token(std::string_view raw) {
  while (!raw.empty() &&
         (raw.front() == ' ' || raw.front() == '\t' || raw.front() == '\r' || raw.front() == '\n'))
    raw.remove_prefix(1);
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r' || raw.back() == '\n'))
    raw.remove_suffix(1);
  if (raw.empty()) return std::nullopt;
  return std::string(raw);
}

void check_token_characters(const HubToken& t) {
  for (char c : t.value) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u > 0x7e)
      throw Error(ErrorKind::Usage, "token from " + t.source, "",
                  "invalid token characters (control, space or non-ASCII): not sent");
  }
}

constexpr size_t kMaxTokenFileBytes = 4096;

// A token named with --token-file may come through a pipe (`--token-file <(pass hf)`, /dev/stdin): the usual
// way to keep it out of `ps` and off the disk. Read to its end, at most 4 KB.
std::string read_token_stream(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    throw Error(ErrorKind::LocalIO, path.string(), "", std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  char buffer[1024];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : 0;
      ::close(fd);
      if (err)
        throw Error(ErrorKind::LocalIO, path.string(), "", std::string("read failed: ") + std::strerror(err));
      return text;
    }
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kMaxTokenFileBytes) {
      ::close(fd);
      throw Error(ErrorKind::Limit, path.string(), "", "a token file holds at most 4096 bytes");
    }
  }
}

std::optional<HubToken> token_from_file(const fs::path& path, bool required) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (required) {  // --token-file: a file, a pipe or a device, whatever the user named
    if (!fs::exists(st)) throw Error(ErrorKind::NotFound, path.string(), "", "token file not found");
    if (fs::is_directory(st))
      throw Error(ErrorKind::LocalIO, path.string(), "", "is a directory, not a token file");
    auto value = clean_token(read_token_stream(path));
    if (!value) return std::nullopt;
    return HubToken{*value, path.string()};
  }
  if (!fs::is_regular_file(st)) return std::nullopt;
  auto value = clean_token(read_small_file(path, kMaxTokenFileBytes));
  if (!value) return std::nullopt;
  return HubToken{*value, path.string()};
}

// huggingface_hub's _is_true: value.upper() in {"1", "ON", "YES", "TRUE"} (no trimming).
bool truthy(const std::optional<std::string>& v) {
  if (!v) return false;
  std::string upper = *v;
  for (char& c : upper)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return upper == "1" || upper == "ON" || upper == "YES" || upper == "TRUE";
}

// Python's int(): surrounding whitespace, a sign, decimal digits with single '_' between them. nullopt for
// anything else; saturated far beyond any timeout (only compared with the clamp).
std::optional<long long> env_python_int(std::string_view s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  long long value = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_' && i > 0 && i + 1 < s.size() && s[i - 1] != '_' && s[i + 1] >= '0' && s[i + 1] <= '9')
      continue;
    if (c < '0' || c > '9') return std::nullopt;
    value = std::min<long long>(value * 10 + (c - '0'), 1'000'000'000'000LL);
  }
  return negative ? -value : value;
}

// HF_HUB_ETAG_TIMEOUT, HF_HUB_DOWNLOAD_TIMEOUT: `_as_int(value) or DEFAULT` — unset or 0 is the default. A
// negative one huggingface_hub only fails on later (the socket refuses it); here it is a usage error at once.
// Longer than a day is taken as a day: curl's timers take it, and a person waits no longer.
long timeout_from(const EnvLookup& env, const char* name) {
  const std::optional<std::string> v = env(name);
  if (!v) return kDefaultTimeoutSeconds;
  const std::optional<long long> seconds = env_python_int(*v);
  if (!seconds || *seconds < 0)
    throw Error(ErrorKind::Usage, name, "",
                "expected a whole number of seconds (0 for the default of " +
                    std::to_string(kDefaultTimeoutSeconds) + ")");
  if (*seconds == 0) return kDefaultTimeoutSeconds;
  return static_cast<long>(std::min<long long>(*seconds, kMaxTimeoutSeconds));
}

// HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface; expanded as huggingface_hub does. An
// empty XDG_CACHE_HOME counts as unset (Python would make the cache relative to the current directory).
std::string hf_home_from(const EnvLookup& env) {
  std::string home;
  if (auto v = env("HF_HOME"))
    home = *v;
  else if (auto xdg = env("XDG_CACHE_HOME"); xdg && !xdg->empty())
    home = *xdg + "/huggingface";
  else
    home = "~/.cache/huggingface";
  return expand_env_path(home, env);
}

// HF_HUB_CACHE, else the legacy HUGGINGFACE_HUB_CACHE, else HF_HOME/hub: the chosen value expanded (again,
// for HF_HOME/hub, as constants.py does). Empty counts as unset: an empty cache path would be the current
// directory.
fs::path cache_root_from(const EnvLookup& env, const std::string& hf_home) {
  if (auto v = env("HF_HUB_CACHE"); v && !v->empty()) return expand_env_path(*v, env);
  if (auto v = env("HUGGINGFACE_HUB_CACHE"); v && !v->empty()) return expand_env_path(*v, env);
  return expand_env_path((fs::path(hf_home) / "hub").string(), env);
}

}  // namespace

std::optional<std::string> process_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

bool is_hugging_face_host(const std::string& endpoint) {
  std::string_view rest = endpoint;
  if (rest.rfind("https://", 0) != 0) return false;
  rest.remove_prefix(8);
  const std::string host_text = ascii_lower(rest.substr(0, rest.find_first_of("/:")));
  // A host is letters, digits, dots and hyphens: "evil.example#.hf.co" (a fragment to curl, which connects
  // to evil.example) or "evil.example\.hf.co" is no Hugging Face host.
  if (host_text.empty() || !std::all_of(host_text.begin(), host_text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
      }))
    return false;
  const std::string_view host = host_text;
  for (std::string_view base : {"huggingface.co", "hf.co"}) {
    if (host == base) return true;
    if (host.size() > base.size() + 1 && host.substr(host.size() - base.size()) == base &&
        host[host.size() - base.size() - 1] == '.')
      return true;
  }
  return false;
}

namespace {
std::string strip_trailing_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}
}  // namespace

HubSettings hub_settings(const HubFlags& flags, const EnvLookup& env) {
  HubSettings s;
  if (auto e = env("HF_ENDPOINT"); e && !e->empty()) {
    s.endpoint = strip_trailing_slashes(*e);
    if (s.endpoint.rfind("https://", 0) != 0 && s.endpoint.rfind("http://", 0) != 0)
      throw Error(ErrorKind::Usage, "HF_ENDPOINT", "", "must start with https:// or http://");
    if (s.endpoint.find_first_of("@?#") != std::string::npos)
      throw Error(ErrorKind::Usage, "HF_ENDPOINT", "",
                  "credentials, a query string or a fragment in the endpoint URL");
  }
  // `HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE` in Python: a non-empty HF_HUB_OFFLINE decides alone ("0" too).
  std::optional<std::string> offline = env("HF_HUB_OFFLINE");
  if (!offline || offline->empty()) offline = env("TRANSFORMERS_OFFLINE");
  s.offline = flags.offline || truthy(offline);
  const std::string hf_home = hf_home_from(env);
  s.cache_root = cache_root_from(env, hf_home);
  s.timeouts.connect_s = timeout_from(env, "HF_HUB_ETAG_TIMEOUT");
  s.timeouts.stall_s = timeout_from(env, "HF_HUB_DOWNLOAD_TIMEOUT");

  // Lookup order of huggingface_hub's get_token, with --token first (T6).
  bool explicit_token = false;
  if (flags.token) {
    explicit_token = true;
    if (auto v = clean_token(*flags.token)) s.token = HubToken{*v, "--token"};
    if (s.token)
      s.warnings.push_back(
          "a token on the command line is visible to other users (ps, shell history); "
          "prefer HF_TOKEN or --token-file");
  } else if (flags.token_file) {
    explicit_token = true;
    s.token = token_from_file(*flags.token_file, true);
  } else if (auto v = env("HF_TOKEN"); v && clean_token(*v)) {
    s.token = HubToken{*clean_token(*v), "HF_TOKEN"};
  } else if (auto legacy = env("HUGGING_FACE_HUB_TOKEN"); legacy && clean_token(*legacy)) {
    s.token = HubToken{*clean_token(*legacy), "HUGGING_FACE_HUB_TOKEN"};
  } else {
    const std::string file =
        expand_env_path(env("HF_TOKEN_PATH").value_or((fs::path(hf_home) / "token").string()), env);
    s.token = token_from_file(file, false);
  }
  if (s.token) check_token_characters(*s.token);

  // The token is for Hugging Face. Another endpoint (a mirror, a test server) gets it only when the user
  // says so: explicitly passed, --trust-endpoint (N21), or MODELANALYZER_TRUSTED_ENDPOINT naming this very
  // endpoint — a name, not a yes: a variable left in a shell profile cannot send the token to whatever
  // HF_ENDPOINT is set later.
  const std::optional<std::string> trusted_env = env("MODELANALYZER_TRUSTED_ENDPOINT");
  const bool trusted_by_env = trusted_env && strip_trailing_slashes(*trusted_env) == s.endpoint;
  s.send_token = s.token && (is_hugging_face_host(s.endpoint) || explicit_token || flags.trust_endpoint ||
                             trusted_by_env);
  if (s.token && !s.send_token)
    s.warnings.push_back("the token from " + s.token->source + " is not sent to " + s.endpoint +
                         " (not a Hugging Face host); pass --trust-endpoint or set "
                         "MODELANALYZER_TRUSTED_ENDPOINT=" +
                         s.endpoint + " to send it");
  // Trusted is not encrypted: whoever sees the traffic of a plain-http endpoint reads the token.
  if (s.send_token && s.endpoint.rfind("http://", 0) == 0)
    s.warnings.push_back("the token from " + s.token->source + " goes to " + s.endpoint +
                         " over plain HTTP, readable by anyone on the network path; use https");
  return s;
}

}  // namespace ma
