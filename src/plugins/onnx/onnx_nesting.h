// How deep an ONNX model's messages nest, walked on the wire without recursion: protobuf's parser recurses
// once per nested message, so the parse caps the depth and a model past the cap fails to parse like a damaged
// one; this walk tells the two apart at any depth.
#pragma once
#include <optional>
#include <string_view>

namespace ma {

// The deepest nesting of messages in a serialized ModelProto along the fields that nest without bound
// (graphs in node attributes, functions, training graphs, types in sequences, maps and optionals); the
// model itself is level 0, its graph level 1. nullopt where the bytes break the wire format.
std::optional<int> onnx_nesting_depth(std::string_view bytes);

}  // namespace ma
