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
// Cast, Squeeze, Unsqueeze, Identity: their input; Size: one; Constant and integer-vector initializers:
// their elements), with each value's rank bounded alongside (declared, else its op's rule: most keep their
// inputs' rank, Unsqueeze adds its axes, Reshape, Expand and ConstantOfShape take their shape input's length,
// an op of another domain one more than its inputs'). UINT64_MAX where the bound overflows.
uint64_t data_propagation_bound(const onnx::ModelProto& m);

}  // namespace ma
