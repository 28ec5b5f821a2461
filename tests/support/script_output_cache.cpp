#include "script_output_cache.h"

#include <unistd.h>

#include <cstdio>
#include <system_error>

namespace ma::test {

namespace fs = std::filesystem;

std::string cache_key(std::string_view material) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : material) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

fs::path cached_script_output(std::string_view name, std::string_view key,
                              const std::function<std::string(const fs::path&)>& write,
                              std::string& failure) {
  const fs::path cache = fs::path(MA_TEST_CACHE_DIR) / (std::string(name) + "-" + std::string(key));
  if (fs::is_directory(cache)) return cache;
  fs::create_directories(cache.parent_path());
  const fs::path staging =
      cache.parent_path() / (cache.filename().string() + ".staging-" + std::to_string(::getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging);
  failure = write(staging);
  std::error_code ec;
  if (!failure.empty()) {
    fs::remove_all(staging, ec);
    return {};
  }
  fs::rename(staging, cache, ec);  // fails when another test got there first: its copy is as good
  fs::remove_all(staging, ec);
  return cache;
}

}  // namespace ma::test
