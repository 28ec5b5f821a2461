#include "analysis/onnx_graph.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "core/checked.h"
#include "core/dtype.h"
#include "core/error.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

constexpr std::string_view kIntegerKernels[] = {"MatMulInteger", "QLinearMatMul", "ConvInteger",
                                                "QLinearConv", "DynamicQuantizeLinear"};

std::string qualified_op(const OnnxNode& n) {
  if (n.domain.empty() || n.domain == "ai.onnx") return n.op_type;
  return n.domain + "." + n.op_type;
}

// Exporters name nodes by module path ("/model/layers.3/self_attn/MatMul", "/Reshape" outside the layers),
// which reads as a tensor name once its slashes are dots.
bool is_module_path(std::string_view name) {
  return name.find('/') != std::string_view::npos;
}

std::optional<uint32_t> layer_of_name(std::string_view name) {
  std::string dotted;
  for (char c : name)
    if (c == '/') {
      if (!dotted.empty()) dotted += '.';
    } else {
      dotted += c;
    }
  return place_tensor(dotted).layer;
}

int64_t int_attribute(const OnnxNode& n, std::string_view name) {
  for (const auto& [k, v] : n.int_attributes)
    if (k == name) return v;
  return 0;
}

// Calls f on every node: the main graph's, then those of its subgraph bodies.
template <typename F>
void for_each_node(const OnnxModel& g, F&& f) {
  for (const OnnxNode& n : g.nodes) f(n);
  for (const OnnxNode& n : g.subgraph_nodes) f(n);
}

void count_ops(const OnnxModel& g, OnnxGraphSummary& s) {
  std::map<std::string, uint64_t> ops;
  for_each_node(g, [&](const OnnxNode& n) { ++ops[qualified_op(n)]; });
  for (auto& [op, count] : ops) s.ops.push_back({op, count});
  std::stable_sort(s.ops.begin(), s.ops.end(),
                   [](const OnnxOpCount& a, const OnnxOpCount& b) { return a.count > b.count; });
}

// The main graph's topology (a subgraph body is one If / Loop node of it, which depends on its inputs and on
// the values its bodies read from the main graph: an If whose branch reads y comes after the node making y).
// Depth: one pass in file order (the reader refused a graph out of topological order; a value produced later
// would count as depth 0, so a cycle could not loop). Fan-out: readers per value, a node holding subgraphs
// reading what its bodies read.
void topology(const OnnxModel& g, OnnxGraphSummary& s) {
  std::unordered_map<std::string_view, uint64_t> depth, readers;
  for (const OnnxNode& n : g.nodes) {
    uint64_t d = 0;
    auto read = [&](const std::string& in) {
      if (in.empty()) return;  // an omitted optional input
      ++readers[in];
      auto it = depth.find(in);
      if (it != depth.end()) d = std::max(d, it->second);
    };
    for (const std::string& in : n.inputs) read(in);
    for (const std::string& in : n.implicit_inputs) read(in);
    for (const std::string& out : n.outputs)
      if (!out.empty()) depth[out] = d + 1;
    s.depth = std::max(s.depth, d + 1);
  }
  if (g.nodes.empty()) s.depth = 0;
  for (const auto& [value, count] : readers)
    if (count > s.max_fan_out || (count == s.max_fan_out && value < s.max_fan_out_value)) {
      s.max_fan_out = count;
      s.max_fan_out_value = std::string(value);
    }
}

void precision(const OnnxModel& g, const Checkpoint& ck, OnnxGraphSummary& s) {
  std::map<std::string, OnnxPrecision> weights;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) {
      OnnxPrecision& p = weights[std::string(dtype_info(t.dtype).name)];
      p.kind = "weights";
      p.dtype = dtype_info(t.dtype).name;
      p.elements += t.numel;
      p.bytes += t.bytes();
    }
  for (auto& [name, p] : weights) s.precision.push_back(p);
  std::stable_sort(s.precision.begin(), s.precision.end(),
                   [](const OnnxPrecision& a, const OnnxPrecision& b) { return a.bytes > b.bytes; });

  // Element types by value name: initializers', then what the graph declares or inference found.
  std::unordered_map<std::string_view, std::string_view> type_of;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) type_of.emplace(t.name, dtype_info(t.dtype).name);
  for (const auto* values : {&g.inputs, &g.outputs, &g.edges})
    for (const OnnxValue& v : *values)
      if (!v.elem_type.empty()) type_of.emplace(v.name, v.elem_type);
  auto type_at = [&](const std::vector<std::string>& names, size_t i) -> std::string {
    if (i >= names.size() || names[i].empty()) return "";
    auto it = type_of.find(names[i]);
    return it == type_of.end() ? "" : std::string(it->second);
  };
  // One entry per quantized type and per MatMulNBits bits and block size, so that a graph mixing them (I8
  // weights, U8 activations; 4-bit and 8-bit matmuls) shows each with its own nodes.
  std::map<std::string, OnnxPrecision> qdq;
  std::map<std::pair<int64_t, int64_t>, OnnxPrecision> nbits;
  OnnxPrecision kernels;
  kernels.kind = "integer kernels";
  const std::string file = ck.files.empty() ? "" : ck.files[0].name;
  for_each_node(g, [&](const OnnxNode& n) {
    if (n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear") {
      // The quantized type: DequantizeLinear's input 0 (which its zero point matches), QuantizeLinear's zero
      // point or output, U8 for a QuantizeLinear without a zero point (its default); empty when unknown.
      const bool quantize = n.op_type == "QuantizeLinear";
      std::string type = quantize ? type_at(n.inputs, 2) : type_at(n.inputs, 0);
      if (type.empty()) type = quantize ? type_at(n.outputs, 0) : type_at(n.inputs, 2);
      if (type.empty() && quantize && (n.inputs.size() < 3 || n.inputs[2].empty())) type = "U8";
      OnnxPrecision& p = qdq[type];
      p.kind = "QDQ";
      p.dtype = type;
      ++p.nodes;
    } else if (n.op_type == "MatMulNBits") {
      const int64_t bits = int_attribute(n, "bits"), block_size = int_attribute(n, "block_size");
      OnnxPrecision& p = nbits[{bits, block_size}];
      p.kind = "MatMulNBits";
      p.bits = bits;
      p.block_size = block_size;
      ++p.nodes;
      std::optional<uint64_t> logical =
          checked_mul(static_cast<uint64_t>(std::max<int64_t>(0, int_attribute(n, "K"))),
                      static_cast<uint64_t>(std::max<int64_t>(0, int_attribute(n, "N"))));
      if (logical) logical = checked_add(p.elements, *logical);
      if (!logical)
        throw Error(ErrorKind::Malformed, file, "MatMulNBits '" + printable(n.name) + "'",
                    "K x N weights (with the other MatMulNBits nodes') do not fit in 64 bits");
      p.elements = *logical;
    } else if (std::find(std::begin(kIntegerKernels), std::end(kIntegerKernels), n.op_type) !=
               std::end(kIntegerKernels)) {
      ++kernels.nodes;
    }
  });
  for (auto& [type, p] : qdq) s.precision.push_back(p);
  for (auto& [bits, p] : nbits) s.precision.push_back(p);
  if (kernels.nodes) s.precision.push_back(kernels);
}

// Layers: from node names where exporters keep module paths (a path without a layer is outside them); else
// from the floating-point initializers a
// node reads (integer ones are shapes and axes, shared by every layer), the last layer among them; else the
// last layer among the nodes that feed it (the residual stream runs on into the next layer).
void layers(const OnnxModel& g, const Checkpoint& ck, OnnxGraphSummary& s) {
  std::unordered_map<std::string_view, std::optional<uint32_t>> of_value;
  std::unordered_map<std::string_view, std::optional<uint32_t>> of_weight;
  std::map<uint32_t, OnnxLayerSlice> numbered;
  OnnxLayerSlice rest;
  bool by_name = false, by_initializer = false;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) {
      std::optional<uint32_t> layer = place_tensor(t.name).layer;
      by_initializer = by_initializer || layer.has_value();
      if (dtype_info(t.dtype).is_float) of_weight[t.name] = layer;
      OnnxLayerSlice& slice = layer ? numbered[*layer] : rest;
      slice.layer = layer;
      ++slice.initializers;
      slice.weight_bytes += t.bytes();
    }
  for_each_node(g, [&](const OnnxNode& n) {
    const bool named = is_module_path(n.name);
    std::optional<uint32_t> layer = named ? layer_of_name(n.name) : std::nullopt;
    by_name = by_name || layer.has_value();
    // The node's own inputs: an If reading every layer's weights in its branches is in none of the layers.
    auto latest = [&](const auto& layer_of) {
      std::optional<uint32_t> found;
      bool any = false;
      for (const std::string& in : n.inputs)
        if (auto it = layer_of.find(in); it != layer_of.end()) {
          any = true;
          if (it->second && (!found || *it->second > *found)) found = it->second;
        }
      return std::make_pair(any, found);
    };
    if (!named) {
      auto [weighted, by_weight] = latest(of_weight);
      layer = weighted ? by_weight : latest(of_value).second;
    }
    for (const std::string& out : n.outputs) of_value[out] = layer;
    OnnxLayerSlice& slice = layer ? numbered[*layer] : rest;
    slice.layer = layer;
    ++slice.nodes;
  });
  if (numbered.empty()) return;
  s.layer_evidence = by_name ? "node names" : by_initializer ? "initializer names" : "";
  for (auto& [index, slice] : numbered) s.layers.push_back(slice);
  if (rest.nodes || rest.initializers) s.layers.push_back(rest);
}

}  // namespace

OnnxGraphSummary summarize_onnx_graph(const OnnxModel& g, const Checkpoint& ck) {
  OnnxGraphSummary s;
  s.ir_version = g.ir_version;
  s.producer = g.producer_name + (g.producer_version.empty() ? "" : " " + g.producer_version);
  s.opsets = g.opsets;
  s.nodes = g.nodes.size();
  s.subgraph_nodes = g.subgraph_nodes.size();
  s.subgraph_initializers = g.subgraph_initializers;
  s.inputs = g.inputs;
  s.outputs = g.outputs;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) {
      ++s.initializers;
      s.initializer_elements += t.numel;
      s.initializer_bytes += t.bytes();
    }
  count_ops(g, s);
  topology(g, s);
  precision(g, ck, s);
  layers(g, ck, s);
  s.edges = g.edges;
  for (const OnnxValue& v : s.edges) s.edges_with_shape += v.shape.has_value();
  s.shape_inference_error = g.shape_inference_error;
  s.shape_inference_note = g.shape_inference_note;
  return s;
}

}  // namespace ma
