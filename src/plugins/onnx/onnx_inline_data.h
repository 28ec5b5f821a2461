// Where each ONNX initializer's inline values lie in the .onnx file. libprotobuf copies field contents out
// while it parses, so their offsets come from a second walk over the same bytes with protobuf's own
// CodedInputStream, three messages deep: ModelProto.graph -> GraphProto.initializer -> TensorProto's
// raw_data, or its packed float_data / double_data (fixed-width little-endian: the same bytes raw_data would
// hold). The walk follows protobuf's merge rules: every `graph` occurrence adds its initializers, and the
// last raw_data of a tensor wins.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace ma {

struct OnnxInlineData {
  uint64_t begin = 0, end = 0;  // byte range in the file; empty when the tensor holds no inline bytes
  // The values are exactly those bytes in row-major order (raw_data, or one packed float/double run).
  // False for varint-encoded integer fields and for typed values split over several runs.
  bool contiguous = false;
};

// One entry per initializer, in the order the parsed GraphProto lists them. Returns an empty vector when the
// bytes do not walk as a ModelProto (the caller has parsed them already, so that means a protobuf feature
// the walk does not follow, such as groups).
std::vector<OnnxInlineData> onnx_inline_data(std::string_view model_bytes);

}  // namespace ma
