// Text helpers of the fake Hub: hex digits, JSON string literals, joining.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ma::test::detail {

std::string to_hex(const unsigned char* data, size_t n);
bool is_lower_hex(std::string_view s, size_t len);
std::string json_string(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep);

}  // namespace ma::test::detail
