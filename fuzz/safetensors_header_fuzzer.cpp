// Whole safetensors files: every input must either parse or raise ma::Error — no crash, no sanitizer report,
// no allocation beyond the header cap.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "formats/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    ma::SafetensorsHeader h = ma::parse_safetensors_bytes(bytes, "fuzz.safetensors");
    // Accepted headers must be internally consistent: tensors tile the data area exactly.
    uint64_t total = 0;
    for (const auto& t : h.tensors) total += t.bytes();
    if (total + h.data_offset() != size) __builtin_trap();
  } catch (const ma::Error&) {
  }
  return 0;
}
