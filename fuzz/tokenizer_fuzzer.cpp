// Tokenizer files (tokenizer.json, tokenizer_config.json, special_tokens_map.json): any content must be
// summarised or rejected with ma::Error — no crash, no unbounded recursion, no path followed. The first byte
// of the input picks the file; the rest is its content, written into a private directory.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "formats/tokenizer.h"

namespace {

// A plain buffer, not a std::string: the exit handler runs after static objects are destroyed.
char g_dir[4096];

void remove_work_dir() {
  std::error_code ec;
  std::filesystem::remove_all(g_dir, ec);
}

const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("ma-tokenizer-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::snprintf(g_dir, sizeof g_dir, "%s", d.c_str());
    std::atexit(remove_work_dir);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const kFiles[] = {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"};
  const std::filesystem::path& dir = work_dir();
  for (const char* f : kFiles) std::filesystem::remove(dir / f);
  {
    std::ofstream out(dir / kFiles[data[0] % 3], std::ios::binary);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  try {
    ma::read_tokenizer(dir);
  } catch (const ma::Error&) {
  }
  return 0;
}
