// The numbers the Hub client reads from response headers, parsed without trusting the server: each function
// takes a header's value as received and returns a validated value, or nullopt when the header says nothing
// usable. Every number is checked (finite, non-negative, in range) before it is converted, so a broken or
// hostile server can at worst leave us to the normal backoff — never a NaN, negative or overflowed wait, and
// never a size or offset that wrapped around.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ma {

// The longest wait a header can ask for. Longer waits, up to "inf" and 1e300, are clamped to it rather than
// dropped: the caller must see that the server asks for more than it is willing to wait (and say so with a
// sane number), while no later cast or message ever meets an infinite or out-of-range double.
inline constexpr double kMaxHeaderWaitSeconds = 86400;

// Retry-After in its delay-seconds form: "120", also decimals, exponents and "inf" as some servers send them;
// seconds in [0, kMaxHeaderWaitSeconds]. nullopt (absent) for the HTTP-date form (as huggingface_hub does),
// negative numbers, NaN, an empty value and trailing junk.
std::optional<double> parse_retry_after(std::string_view value);

// The IETF RateLimit header the Hub sends (`"api";r=0;t=55`; several policies separated by commas): the
// seconds until the quota resets when a policy has none left (r=0), clamped like Retry-After; the longest
// when several are exhausted. nullopt when quota remains or r or t is missing or not a number.
std::optional<double> parse_ratelimit_reset(std::string_view value);

// Content-Length, X-Linked-Size: a decimal byte count that fits 64 bits; nullopt for anything else (a sign,
// spaces inside, junk, 18446744073709551616).
std::optional<uint64_t> parse_byte_count(std::string_view value);

// Content-Range of a 206 answer: "bytes first-last/total" with first <= last < total. nullopt for anything
// else, an unknown total ("bytes 0-9/*") and the "bytes */total" form of a 416 included.
struct ContentRange {
  uint64_t first = 0, last = 0, total = 0;
};
std::optional<ContentRange> parse_content_range(std::string_view value);

// One of the parsers above applied to a header that may be absent (HttpResponse::header's null).
template <typename T>
std::optional<T> parse_header(const std::string* value, std::optional<T> (*parse)(std::string_view)) {
  return value ? parse(*value) : std::nullopt;
}

}  // namespace ma
