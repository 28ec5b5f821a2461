#include "formats/weight_format.h"

#include <string>

#include "formats/torch_checkpoint.h"
#include "formats/zip_directory.h"

namespace ma {
namespace {

// ModelProto field 1 (ir_version, a varint: tag 0x08) with a version below 128, then a length-delimited
// field among producer_name .. opset_import (2-4, 6-8), model_version (5, varint) or metadata_props (14).
bool looks_like_onnx(std::string_view head) {
  if (head.size() < 3) return false;
  const auto tag = static_cast<uint8_t>(head[0]), version = static_cast<uint8_t>(head[1]),
             next = static_cast<uint8_t>(head[2]);
  if (tag != 0x08 || version < 1 || version > 0x7f) return false;
  for (int field : {0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42, 0x72})
    if (next == field) return true;
  return false;
}

}  // namespace

std::string_view checkpoint_format_name(CheckpointFormat f) {
  switch (f) {
    case CheckpointFormat::Safetensors:
      return "safetensors";
    case CheckpointFormat::Pytorch:
      return "pytorch";
    case CheckpointFormat::Gguf:
      return "gguf";
    case CheckpointFormat::Onnx:
      return "onnx";
    case CheckpointFormat::None:
      break;
  }
  return "none";
}

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
    case WeightFormat::Onnx:
      return "onnx";
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
  // Before the pickle test, which reads one opcode: a safetensors header 0x80 bytes long (mod 256) starts
  // with the PROTO opcode's byte, and a pickle does not have a '{' after a length that fits the file.
  if (head.size() >= 9) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(head[static_cast<size_t>(i)]);
    if (n >= 2 && n <= src.size() - 8 && head[8] == '{') return WeightFormat::Safetensors;
  }
  if (looks_like_torch_checkpoint(src)) return WeightFormat::PytorchLegacy;
  if (looks_like_onnx(head)) return WeightFormat::Onnx;
  return WeightFormat::Unknown;
}

bool is_torch_checkpoint_name(std::string_view name) {
  for (std::string_view ext : {".bin", ".pt", ".pth", ".ckpt"})
    if (name.ends_with(ext)) return true;
  return false;
}

}  // namespace ma
