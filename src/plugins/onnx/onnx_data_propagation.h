// ONNX's data propagation (shape inference with data_prop: the values of Shape, Concat, Gather ... computed
// as shapes, so that a Reshape to a computed shape gets one) holds every propagated value at once, and a
// Concat's is as long as its inputs together: 40 Concats of a value with itself make 2^41 values from a
// 1.5 KB file, and inference grows without bound. This bounds the values before inference runs.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>

namespace ma {

// An upper bound on the values data propagation over `m` can hold: the graph's, every subgraph's and
// every local function's, each node's output as long as ONNX 1.12's propagators can make it (Shape: any
// tensor's rank; Concat: its inputs' together; Add, Sub, Mul: the longer input; Gather: its indices; Slice,
// Cast, Squeeze, Unsqueeze, Identity: their input; Size: one; Constant and initializers: their elements),
// where a tensor's rank is at most the longest rank declared or the longest value any node reads (a
// Reshape's rank is its shape input's length). UINT64_MAX where the bound overflows.
uint64_t data_propagation_bound(const onnx::ModelProto& m);

}  // namespace ma
