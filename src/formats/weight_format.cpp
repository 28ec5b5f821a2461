#include "formats/weight_format.h"

#include <string>

#include "formats/torch_checkpoint.h"
#include "formats/zip_directory.h"

namespace ma {

std::string_view weight_format_name(WeightFormat f) {
  switch (f) {
    case WeightFormat::Safetensors:
      return "safetensors";
    case WeightFormat::PytorchZip:
      return "pytorch zip";
    case WeightFormat::PytorchLegacy:
      return "pytorch legacy";
    case WeightFormat::Gguf:
      return "gguf";
    case WeightFormat::Unknown:
      break;
  }
  return "unknown";
}

WeightFormat sniff_weight_format(const ByteSource& src) {
  std::string head;
  src.read_exact(0, std::min<uint64_t>(src.size(), 16), head);
  if (head.size() >= 4 && head.compare(0, 4, "GGUF") == 0) return WeightFormat::Gguf;
  if (looks_like_zip(src)) return WeightFormat::PytorchZip;
  if (looks_like_torch_checkpoint(src)) return WeightFormat::PytorchLegacy;
  if (head.size() >= 9) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(head[static_cast<size_t>(i)]);
    if (n >= 2 && n <= src.size() - 8 && head[8] == '{') return WeightFormat::Safetensors;
  }
  return WeightFormat::Unknown;
}

}  // namespace ma
