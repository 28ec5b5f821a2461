// Where the Hub is, who we are and what we may do, from flags and the environment variables huggingface_hub
// reads (HF_ENDPOINT, HF_TOKEN, HUGGING_FACE_HUB_TOKEN, HF_TOKEN_PATH, HF_HOME, HF_HUB_CACHE, XDG_CACHE_HOME,
// HF_HUB_OFFLINE, HF_HUB_ETAG_TIMEOUT, HF_HUB_DOWNLOAD_TIMEOUT), so both tools agree on a machine.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/env_path.h"
#include "net/http_client.h"

namespace ma {

struct HubToken {
  std::string value;   // never printed, logged, exported or put in an error
  std::string source;  // what may be shown instead: "--token", "HF_TOKEN", "/root/.cache/huggingface/token"
};

// Command-line choices; unset fields fall back to the environment.
struct HubFlags {
  std::optional<std::string> token;       // --token ("" disables the implicit token)
  std::optional<std::string> token_file;  // --token-file
  bool trust_endpoint = false;  // --trust-endpoint: send the token to a non-Hugging Face HF_ENDPOINT
  bool offline = false;         // --offline (or HF_HUB_OFFLINE=1)
  // --quiet: the CLI shows no warning about these settings (HubSettings::warnings). Carried here because a
  // command that fails never prints what it would have printed after success: open_model (cli/model_source)
  // prints the settings warnings itself before rethrowing, and must know whether to.
  bool quiet = false;
};

struct HubSettings {
  std::string endpoint = "https://huggingface.co";  // no trailing slash
  std::optional<HubToken> token;
  bool send_token = false;  // the token may go to the endpoint's origin (and only there)
  bool offline = false;
  std::filesystem::path cache_root;  // the hub cache: $HF_HUB_CACHE or $HF_HOME/hub
  HttpTimeouts timeouts;
  int max_retries = 5;              // per request, for 408/429/5xx answers
  int max_transport_retries = 2;    // refused, reset, timed out: a dead network is not waited out for 23 s
  double max_retry_wait_s = 60;     // cap on Retry-After (the Hub client has none)
  double backoff_base_s = 1;        // 1, 2, 4, 8, 8 s
  unsigned parallel_requests = 16;  // header range reads and small files in flight
  // A token on the command line, a token withheld from an endpoint or sent to it over plain http.
  std::vector<std::string> warnings;
  // Told of every HTTP exchange, each redirect hop on its own (--verbose); called from the threads that
  // make the requests. Unset: nobody is told.
  std::function<void(const HttpExchange&)> observe;
};

std::optional<std::string> process_env(const char* name);

// Read as huggingface_hub's constants.py reads them: HF_HOME, HF_HUB_CACHE and HF_TOKEN_PATH with `~` and
// `$VAR` expanded (env_path.h); HF_HUB_OFFLINE true for 1, ON, YES or TRUE in any case; the timeouts whole
// seconds, 0 for the default of 10, above kMaxTimeoutSeconds taken as that. Throws Error(Usage) for a token
// with control or non-ASCII characters (header injection), a bad HF_ENDPOINT and a timeout that is not a
// whole number or is negative; Error(LocalIO) for an unreadable --token-file.
inline constexpr long kDefaultTimeoutSeconds = 10;  // huggingface_hub's DEFAULT_*_TIMEOUT
inline constexpr long kMaxTimeoutSeconds = 86400;   // a day: longer is the same as never, for a person

HubSettings hub_settings(const HubFlags& flags, const EnvLookup& env = process_env);

// True for https://huggingface.co, https://hf.co and their subdomains: hosts the token is meant for.
bool is_hugging_face_host(const std::string& endpoint);

}  // namespace ma
