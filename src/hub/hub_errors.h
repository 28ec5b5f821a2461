// HTTP failures from the Hub as errors users understand (anchors-reliability N1–N7): the repository, revision
// or file that was not found, a gated repository and where to accept its license, a rejected token (by its
// source, never its value), rate limits and server errors. The server's own message is shown when it gives
// one, cleaned of control characters and of the token.
#pragma once
#include <string>

#include "hub/hub_http.h"

namespace ma {

[[noreturn]] void throw_hub_error(const HubResult& result, const HubTarget& target,
                                  const HubSettings& settings, int attempts);

// True for statuses worth retrying: 408, 429, 500, 502, 503, 504.
bool retryable_status(int status);

}  // namespace ma
