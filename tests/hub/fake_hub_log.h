// Parsing the fake Hub's access logs (the ma_hub / ma_cdn log formats of nginx.conf) into LogEntry values.
#pragma once

#include <filesystem>
#include <vector>

#include "fake_hub.h"

namespace ma::test::detail {

// The entries of one access log, in request order; a line without all seven fields (one being written) is
// skipped, and a missing file is an empty log.
std::vector<LogEntry> parse_access_log(const std::filesystem::path& p);

}  // namespace ma::test::detail
