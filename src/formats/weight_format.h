// Which format a weight file is in, by its first bytes rather than its name (a GGUF saved as model.bin, a
// safetensors file without its extension): the one place that knows every format's magic.
#pragma once
#include <string_view>

#include "io/byte_source.h"

namespace ma {

enum class WeightFormat { Safetensors, PytorchZip, PytorchLegacy, Gguf, Onnx, Unknown };
std::string_view weight_format_name(WeightFormat f);  // "safetensors", "pytorch zip", ..., "unknown"

// Reads at most 16 bytes. Safetensors: a little-endian header length that fits the file, then '{'; PyTorch
// zip: a ZIP local header; PyTorch legacy (or any pickle): the PROTO opcode; GGUF: "GGUF"; ONNX (a protobuf
// without magic): a ModelProto opening with its ir_version field, as every serializer writes it, then the
// tag of another ModelProto field.
WeightFormat sniff_weight_format(const ByteSource& src);

}  // namespace ma
