// What seed 000's ONNX inspection reports of a graph: nodes and the op-type histogram, graph inputs and
// outputs, opsets, topology (depth, fan-out), the precision the graph computes in (weight types, QDQ pairs,
// MatMulNBits and other integer kernels), layer boundaries with nodes and weight bytes per layer, and every
// edge's inferred shape.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/checkpoint.h"
#include "formats/onnx_model.h"

namespace ma {

struct OnnxOpCount {
  std::string op_type;  // "MatMul", or "com.microsoft.MatMulNBits" outside the default domain
  uint64_t count = 0;
};

// How the graph stores and computes its weights: one entry per kind and type found.
//  - "weights": initializers of one element type (dtype "F32"): their elements and bytes;
//  - "QDQ": QuantizeLinear / DequantizeLinear nodes of one quantized type ("I8", "U8": DequantizeLinear's
//    input, QuantizeLinear's zero point or output; empty where neither is known), one entry per type;
//  - "MatMulNBits": ONNX Runtime's block-quantized matmuls of one bits and block_size (their attributes),
//    with their K x N logical weights as elements, one entry per pair;
//  - "integer kernels": MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv, DynamicQuantizeLinear.
struct OnnxPrecision {
  std::string kind;
  std::string dtype;  // "F32", "I8"; empty where the kind states no type
  uint64_t nodes = 0, elements = 0, bytes = 0;
  int64_t bits = 0, block_size = 0;  // MatMulNBits
};

// One layer's share of the graph. `layer` is empty for what lies outside the numbered layers (embedding,
// final norm, head).
struct OnnxLayerSlice {
  std::optional<uint32_t> layer;
  uint64_t nodes = 0;
  uint64_t initializers = 0;
  uint64_t weight_bytes = 0;
};

struct OnnxGraphSummary {
  int64_t ir_version = 0;
  std::string producer;  // "pytorch 2.11.0"
  std::vector<std::pair<std::string, int64_t>> opsets;
  uint64_t nodes = 0;
  uint64_t subgraph_nodes = 0;         // inside If / Loop / Scan bodies
  uint64_t subgraph_initializers = 0;  // inside them too: counted, not read (in no other figure)
  // Every graph's nodes, subgraph bodies included (as are the precision and the layers below; the depth and
  // fan-out are the main graph's): most frequent first, then by name.
  std::vector<OnnxOpCount> ops;
  std::vector<OnnxValue> inputs, outputs;
  uint64_t initializers = 0, initializer_elements = 0, initializer_bytes = 0;
  // Longest chain of nodes from a graph input or initializer to any value, and the value read by the most
  // nodes (a residual stream, a mask).
  uint64_t depth = 0;
  uint64_t max_fan_out = 0;
  std::string max_fan_out_value;
  std::vector<OnnxPrecision> precision;
  std::vector<OnnxLayerSlice> layers;  // in layer order, the unnumbered slice last
  // How layers were found: "node names", "initializer names" or "" when the graph has no numbered layers.
  std::string layer_evidence;
  std::vector<OnnxValue> edges;  // every intermediate value with its inferred type and shape
  uint64_t edges_with_shape = 0;
  std::string shape_inference_error;
  std::string shape_inference_note;
};

OnnxGraphSummary summarize_onnx_graph(const OnnxModel& graph, const Checkpoint& ck);

}  // namespace ma
