#include "cli/arg_values.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/nearest_name.h"
#include "core/units.h"

namespace ma::cli {

uint64_t integer_arg(const std::string& flag, const std::string& text, uint64_t min, uint64_t max) {
  uint64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < min || v > max)
    throw Error(ErrorKind::Usage, "", flag,
                "expects an integer from " + with_thousands(min) + " to " + with_thousands(max) + ", got '" +
                    printable(text) + "'");
  return v;
}

namespace {

// The whole text as a finite number, or NaN: strtod also reads "inf", "nan" and hex floats, and stops early.
double finite_number(const std::string& text) {
  char* end = nullptr;
  const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  return end && end == text.c_str() + text.size() && std::isfinite(v) ? v : NAN;
}

}  // namespace

double number_arg(const std::string& flag, const std::string& text, double min, double max) {
  const double v = finite_number(text);
  if (std::isnan(v) || v < min || v > max)
    throw Error(ErrorKind::Usage, "", flag,
                "expects a number from " + short_number(min) + " to " + short_number(max) + ", got '" +
                    printable(text) + "'");
  return v;
}

double positive_number_arg(const std::string& flag, const std::string& text, double max) {
  const double v = finite_number(text);
  // One rule in one message: above 0 and at most max ("from 0" read as if 0 were allowed).
  if (!(v > 0) || v > max)
    throw Error(ErrorKind::Usage, "", flag,
                "expects a number above 0" +
                    (max < 1e300 ? " and at most " + short_number(max) : std::string()) + ", got '" +
                    printable(text) + "'");
  return v;
}

std::string choice_arg(const std::string& flag, const std::string& text,
                       std::initializer_list<const char*> choices) {
  std::string list;
  std::vector<std::string_view> names;
  for (const char* c : choices) {
    if (text == c) return text;
    list += (list.empty() ? "" : ", ") + std::string(c);
    names.push_back(c);
  }
  throw Error(
      ErrorKind::Usage, "", flag,
      "must be one of " + list + "; got '" + printable(text) + "'" + did_you_mean(nearest_name(text, names)));
}

std::string image_path_arg(const std::string& flag, const std::string& text) {
  if (text == "-") return text;
  std::string ext = std::filesystem::path(text).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext != ".png" && ext != ".svg")
    throw Error(
        ErrorKind::Usage, "", flag,
        "writes PNG or SVG: the file name must end in .png or .svg (or be - for SVG on stdout), got '" +
            printable(text) + "'");
  return text;
}

std::pair<uint32_t, uint32_t> layer_range_arg(const std::string& flag, const std::string& text) {
  constexpr uint64_t kMaxLayerIndex = 1 << 24;
  const size_t dash = text.find('-');
  const std::string first = text.substr(0, dash),
                    last = dash == std::string::npos ? first : text.substr(dash + 1);
  auto r = std::make_pair(static_cast<uint32_t>(integer_arg(flag, first, 0, kMaxLayerIndex)),
                          static_cast<uint32_t>(integer_arg(flag, last, 0, kMaxLayerIndex)));
  if (r.first > r.second) throw Error(ErrorKind::Usage, "", flag, "the range's start is after its end");
  return r;
}

}  // namespace ma::cli
