// ONNX models (seed 000): the ModelProto parsed by Debian's libonnx/libprotobuf (not a parser of our own),
// inside a memory budget; initializers located as stored tensors, inline in the .onnx file or in external
// data files named relative to it; graph inputs and outputs; nodes; and every edge's shape as
// onnx.shape_inference.infer_shapes gives it (the same C++ inference, run here). Weights are never read.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/stored_tensor.h"
#include "io/byte_source.h"

namespace ma {

// One dimension of a value's shape: a size, a symbol ("batch_size"), or unknown (neither).
struct OnnxDim {
  std::optional<uint64_t> size;
  std::string symbol;
};

// A graph input, output or intermediate edge with its element type and shape as declared or inferred.
struct OnnxValue {
  std::string name;
  std::string elem_type;                      // "F32", "I64" (the dtype table's names), or ONNX's own name
  std::optional<std::vector<OnnxDim>> shape;  // nullopt: rank unknown
};

struct OnnxNode {
  std::string name, op_type, domain;  // domain "" is the default ai.onnx
  std::vector<std::string> inputs, outputs;
  // What a node holding subgraphs (If / Loop / Scan) depends on besides its inputs: the values of the graphs
  // around it that its bodies read, at any depth, in first-read order (ONNX Runtime's implicit inputs).
  std::vector<std::string> implicit_inputs;
  std::vector<std::pair<std::string, int64_t>> int_attributes;  // MatMulNBits' bits, block_size, K, N
};

struct OnnxModel {
  int64_t ir_version = 0;
  std::string producer_name, producer_version, graph_name;
  std::vector<std::pair<std::string, int64_t>> opsets;        // domain ("" = ai.onnx) and version
  std::vector<std::pair<std::string, std::string>> metadata;  // metadata_props
  // Inputs the caller feeds (initializers that older IR versions also list as inputs are left out).
  std::vector<OnnxValue> inputs, outputs;
  // Every other named edge with what shape inference knows of it, in graph order.
  std::vector<OnnxValue> edges;
  std::vector<OnnxNode> nodes;  // the main graph's, in file order (topologically sorted, as ONNX requires)
  // The nodes of If / Loop / Scan bodies at any depth, depth-first in file order: a merged decoder (one If
  // choosing between the graphs with and without a KV cache) keeps every layer there. They may read values
  // of the graphs around them.
  std::vector<OnnxNode> subgraph_nodes;
  uint64_t subgraph_initializers = 0;  // held inside those bodies: counted, not read
  // Initializers as stored tensors: file_index 0 is the .onnx file itself, k > 0 is external_files[k - 1].
  std::vector<StoredTensor> initializers;
  std::vector<std::string> external_files;  // relative to the model's directory, in order of first use
  uint64_t sparse_initializers = 0;         // counted, not read
  std::string shape_inference_error;        // empty when inference ran to the end
  std::string shape_inference_note;         // how it ran, where not as onnx.shape_inference(data_prop=True)
};

// Caps on what a model may make us hold (the protobuf is parsed into an arena that refuses to grow past
// max_parsed_bytes): far beyond any published export.
struct OnnxLimits {
  uint64_t max_parsed_bytes = 4ull << 30;
  uint64_t max_nodes = 4u << 20;
  uint64_t max_initializers = 4u << 20;
};

// The size of an external data file the model names (`location`, already checked to be a relative path
// without ".."); nullopt when it does not exist. The caller checks it stays inside the model's directory.
using OnnxExternalSize = std::function<std::optional<uint64_t>(const std::string& location)>;

// Throws Error: Malformed (not a ModelProto, an initializer whose bytes do not match its shape or whose
// element type is no ONNX type, external data outside its file, duplicate initializer names, a declared shape
// over kMaxTensorRank, local functions that call themselves, names that are not plain text), Unsafe (an
// external data path that is absolute or climbs with ".."), NotFound (a missing external data file), Limit (a
// file over protobuf's 2 GiB, a parse over OnnxLimits, max_nodes exceeded once local functions are expanded
// at every call, calls and subgraphs nested over 64 levels, shape inference out of memory), Unsupported (an
// initializer element type with no dtype: strings, complex128, 2-bit).
OnnxModel read_onnx(const ByteSource& src, const OnnxExternalSize& external_size,
                    const OnnxLimits& limits = {});

}  // namespace ma
