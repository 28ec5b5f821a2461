// Tokenizer files (tokenizer.json, tokenizer_config.json, special_tokens_map.json): any content must be
// summarised or rejected with ma::Error — no crash, no unbounded recursion, no path followed. The first byte
// of the input picks the file; the rest is its content, written into a private directory.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "formats/tokenizer.h"
#include "fuzz_work_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const kFiles[] = {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"};
  const std::filesystem::path& dir = ma::fuzz::work_dir("ma-tokenizer-fuzz");
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
