// config.json text through every family builder: malformed or hostile configs (zero heads, huge layer counts,
// wrong types) must raise ma::Error, never crash, divide by zero or exhaust memory.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "model/config.h"
#include "model/family_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ma::ModelConfig cfg = ma::ModelConfig::parse(text, "fuzz/config.json");
    ma::build_template(cfg);
  } catch (const ma::Error&) {
  }
  return 0;
}
