// Which format a weight file is in, by its first bytes rather than its name (a GGUF saved as model.bin, a
// safetensors file without its extension): the one place that knows every format's magic.
#pragma once
#include <string_view>

#include "io/byte_source.h"

namespace ma {

// What one file is.
enum class WeightFormat { Safetensors, PytorchZip, PytorchLegacy, Gguf, Onnx, Unknown };
std::string_view weight_format_name(WeightFormat f);  // "safetensors", "pytorch zip", ..., "unknown"

// The format of a model's weights as a whole, which decides the reader (formats/checkpoint.h): PyTorch zip
// and legacy files are one checkpoint format, their reader tells them apart.
enum class CheckpointFormat { None, Safetensors, Pytorch, Gguf, Onnx };
std::string_view checkpoint_format_name(
    CheckpointFormat f);  // "none", "safetensors", "pytorch", "gguf", "onnx"

// Whether a file name is one torch.save writes under (.bin, .pt, .pth, .ckpt): the files a directory's (or a
// Hub repository's) PyTorch checkpoint is looked for among.
bool is_torch_checkpoint_name(std::string_view name);

// Reads at most 16 bytes. Safetensors: a little-endian header length that fits the file, then '{'; PyTorch
// zip: a ZIP local header; PyTorch legacy (or any pickle): the PROTO opcode; GGUF: "GGUF"; ONNX (a protobuf
// without magic): a ModelProto opening with its ir_version field, as every serializer writes it, then the
// tag of another ModelProto field.
WeightFormat sniff_weight_format(const ByteSource& src);

}  // namespace ma
