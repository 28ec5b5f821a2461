// The model's local functions (ModelProto.functions) as ONNX's shape inference expands them, checked before
// it runs: inference walks a function's body afresh at every call, so a function that calls itself recurses
// until the stack runs out, and one calling another twice, 23 deep, is 8 million bodies from a 2 KB file.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace ma {

// Throws Error(Malformed) naming a function that calls itself (directly or through others), Error(Limit) when
// the graph with every call expanded holds more than `max_nodes` nodes or nests calls and subgraphs deeper
// than `max_nesting` levels.
void check_function_calls(const onnx::ModelProto& m, const std::string& file, uint64_t max_nodes,
                          int max_nesting);

}  // namespace ma
