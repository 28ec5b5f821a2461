// The Hub client's response-header parsers (hub/response_headers.h). An input is a header line, "Name:
// value"; the name picks the parser, and a line with an unknown name or no colon goes to every parser.
// Whatever the bytes, a wait is finite and within [0, kMaxHeaderWaitSeconds], and a Content-Range is
// consistent.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hub/response_headers.h"

namespace {

void check_wait(std::optional<double> s) {
  if (s && !(*s >= 0 && *s <= ma::kMaxHeaderWaitSeconds)) __builtin_trap();  // NaN fails both comparisons
}

void check_range(std::optional<ma::ContentRange> r) {
  if (r && !(r->first <= r->last && r->last < r->total)) __builtin_trap();
}

bool named(std::string_view name, std::string_view lower) {
  if (name.size() != lower.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if ((name[i] | 0x20) != lower[i]) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const size_t colon = line.find(':');
  const std::string_view name = colon == std::string_view::npos ? std::string_view() : line.substr(0, colon);
  const std::string value(colon == std::string_view::npos ? line : line.substr(colon + 1));
  const bool any = !named(name, "retry-after") && !named(name, "ratelimit") &&
                   !named(name, "content-range") && !named(name, "content-length") &&
                   !named(name, "x-linked-size");
  if (any || named(name, "retry-after")) check_wait(ma::parse_header(&value, ma::parse_retry_after));
  if (any || named(name, "ratelimit")) check_wait(ma::parse_ratelimit_reset(value));
  if (any || named(name, "content-range")) check_range(ma::parse_content_range(value));
  if (any || named(name, "content-length") || named(name, "x-linked-size")) ma::parse_byte_count(value);
  return 0;
}
