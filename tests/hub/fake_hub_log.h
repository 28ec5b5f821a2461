// Parsing the fake Hub's access logs (the ma_hub / ma_cdn log formats of nginx.conf) into LogEntry values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "fake_hub.h"

namespace ma::test::detail {

// The entries of one access log from byte `from` on, in request order; a line without all seven fields (one
// being written) is skipped, and a missing file is an empty log.
std::vector<LogEntry> parse_access_log(const std::filesystem::path& p, uint64_t from = 0);

}  // namespace ma::test::detail
