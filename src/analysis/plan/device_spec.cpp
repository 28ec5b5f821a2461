#include "analysis/plan/device_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "core/error.h"
#include "core/text.h"
#include "core/units.h"

namespace ma {
namespace {

constexpr uint32_t kMaxDevices = 4096;
constexpr double kBytesPerGiB = 1024.0 * 1024 * 1024;

[[noreturn]] void bad(std::string_view flag, std::string_view text, const std::string& rule) {
  throw Error(ErrorKind::Usage, "", std::string(flag), "'" + printable(text) + "': " + rule);
}

// A size: a number, optionally a space, and a binary unit ("24GB", "80 GiB", "512MiB"); GB is GiB here (the
// memory GPU makers sell as 80 GB is 80 GiB). `valid` is false for a size whose number is not above 0 or
// whose bytes pass 10^18; nullopt: not a size at all (a hardware name, perhaps).
struct Size {
  uint64_t bytes = 0;
  bool valid = false;
};
std::optional<Size> size_of(std::string_view text) {
  const std::string t = ascii_lower(text);
  double value = 0;
  const char* end = t.data() + t.size();
  auto [p, ec] = std::from_chars(t.data(), end, value);
  if (p == t.data()) return std::nullopt;
  std::string_view unit(p, static_cast<size_t>(end - p));
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  double scale = 0;
  if (unit == "gb" || unit == "gib" || unit == "g") scale = kBytesPerGiB;
  if (unit == "tb" || unit == "tib" || unit == "t") scale = kBytesPerGiB * 1024;
  if (unit == "mb" || unit == "mib") scale = kBytesPerGiB / 1024;
  if (scale == 0) return std::nullopt;
  if (ec != std::errc() || !std::isfinite(value) || value <= 0 || value * scale > 1e18) return Size{};
  return Size{static_cast<uint64_t>(std::llround(value * scale)), true};
}

constexpr std::string_view kSizeRange = "a size must be above 0 and at most 10^18 bytes";

const Hardware* hardware_named(std::string_view name, std::string_view flag, std::string_view text) {
  const std::string want = hardware_key(name);
  if (want.empty()) bad(flag, text, "a vendor's name alone names no device; say which (rtx4090, h100-sxm)");
  if (want.size() < 3 && !find_hardware(name))
    bad(flag, text, "too short to name a device; sizes need a unit (24GB)");
  if (const Hardware* h = match_hardware(name, flag)) return h;  // throws when ambiguous ("h100")
  const std::string names = hardware_names();
  bad(flag, text,
      "not a size (24GB, 80GiB) nor a hardware name" + hardware_like(name) + " (" + names +
          "), optionally with a count (8xh200)");
}

}  // namespace

uint64_t parse_memory_size(std::string_view text, std::string_view flag) {
  const std::optional<Size> s = size_of(text);
  if (!s) bad(flag, text, "must be a size such as 64GB or 512GiB (binary units)");
  if (!s->valid) bad(flag, text, std::string(kSizeRange));
  return s->bytes;
}

namespace {

std::string_view without_spaces_around(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

DeviceSpec parse_devices_alike(std::string_view text, std::string_view flag) {
  DeviceSpec d;
  d.text = std::string(text);
  std::string_view rest = text;
  const size_t x = ascii_lower(text).find('x');
  if (x != std::string::npos && x > 0 &&
      std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(x),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    uint64_t n = 0;
    std::from_chars(text.data(), text.data() + x, n);
    if (n == 0 || n > kMaxDevices)
      bad(flag, text, "the device count must be 1 to " + std::to_string(kMaxDevices));
    d.count = static_cast<uint32_t>(n);
    rest = text.substr(x + 1);
  }
  if (rest.empty()) bad(flag, text, "names no device");
  if (const std::optional<Size> s = size_of(rest)) {
    if (!s->valid) bad(flag, text, std::string(kSizeRange));
    d.memory_bytes = s->bytes;
    return d;
  }
  const DeviceSpec named = devices_of(*hardware_named(rest, flag, text), d.count);
  d.hardware = named.hardware;
  d.memory_bytes = named.memory_bytes;
  return d;
}

}  // namespace

DeviceSpec parse_device_spec(std::string_view text, std::string_view flag) {
  if (without_spaces_around(text).empty()) bad(flag, text, "names no device");
  if (text.find(',') == std::string_view::npos) return parse_devices_alike(without_spaces_around(text), flag);
  std::vector<DeviceSpec> parts;
  uint64_t count = 0;
  for (std::string_view rest = text;;) {
    const size_t comma = rest.find(',');
    const std::string_view part = without_spaces_around(rest.substr(0, comma));
    if (part.empty()) bad(flag, text, "a comma-separated list needs a device between every two commas");
    parts.push_back(parse_devices_alike(part, flag));
    count += parts.back().count;
    if (count > kMaxDevices) bad(flag, text, "the device count must be 1 to " + std::to_string(kMaxDevices));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  DeviceSpec d;
  d.text = std::string(text);
  d.count = static_cast<uint32_t>(count);
  d.memory_bytes = parts.front().memory_bytes;
  bool all_named = true;
  for (const DeviceSpec& p : parts) {
    for (uint32_t i = 0; i < p.count; ++i) {
      d.memories.push_back(p.memory_bytes);
      d.kinds.push_back(p.hardware ? find_hardware(p.hardware->name) : nullptr);
    }
    d.memory_bytes = std::min(d.memory_bytes, p.memory_bytes);
    all_named = all_named && p.hardware;
    if (p.hardware && (!d.hardware || p.hardware->hbm_gbps < d.hardware->hbm_gbps)) d.hardware = p.hardware;
  }
  if (!all_named) d.hardware.reset();
  // Alike after all ("h200,h200"): one kind of device.
  if (std::all_of(parts.begin(), parts.end(), [&](const DeviceSpec& p) {
        return p.memory_bytes == d.memory_bytes &&
               (p.hardware ? p.hardware->name : "") == (d.hardware ? d.hardware->name : "");
      })) {
    d.memories.clear();
    d.kinds.clear();
  }
  return d;
}

uint64_t DeviceSpec::total_memory() const {
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) total += memory_of(i);
  return total;
}

DeviceSpec devices_of(const Hardware& hw, uint32_t count) {
  DeviceSpec d;
  d.count = count;
  d.hardware = hw;
  d.memory_bytes = static_cast<uint64_t>(std::llround(hw.usable_gib() * kBytesPerGiB));
  d.text = std::to_string(count) + "x" + hw.name;
  return d;
}

}  // namespace ma
