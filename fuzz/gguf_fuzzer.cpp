// GGUF files, whole: every input must either be read or raise ma::Error — no crash, no sanitizer report, no
// allocation sized by an unchecked count — and every accepted tensor must lie inside the file. The metadata
// lookups and the tokenizer summary run on whatever was accepted, as the report runs them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "formats/gguf.h"
#include "formats/gguf_tokenizer.h"
#include "io/byte_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ma::MemorySource src(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.gguf");
  try {
    const ma::GgufFile f = ma::read_gguf(src);
    for (const ma::GgufTensorInfo& t : f.tensors)
      if (f.data_start + t.offset + t.bytes > size) __builtin_trap();
    for (const ma::GgufKv& kv : f.metadata) {
      (void)f.uint_value(kv.key);
      (void)f.float_value(kv.key);
      (void)f.string_value(kv.key);
      (void)f.uint_array(kv.key);
      (void)f.string_array(kv.key);
    }
    (void)ma::tokenizer_from_gguf(f);
  } catch (const ma::Error&) {
  }
  return 0;
}
