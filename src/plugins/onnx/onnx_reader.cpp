// The ONNX reader module (libma_onnx.so): ONNX's own protobuf classes parse the model inside a memory budget,
// ONNX's shape inference runs on it, and what the program needs comes back as plain values
// (formats/onnx_reader_abi.h).
#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <filesystem>
#include <new>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/checked.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"
#include "formats/onnx_reader_abi.h"
#include "plugins/onnx/onnx_data_propagation.h"
#include "plugins/onnx/onnx_function_calls.h"
#include "plugins/onnx/onnx_inline_data.h"
#include "plugins/onnx/onnx_nesting.h"

namespace ma {
namespace {

// Protobuf messages nested inside each other (each If / Loop subgraph adds three: node, attribute, graph):
// parsing recurses once per level, so the depth is capped below protobuf's default of 100.
constexpr int kMaxNesting = 64;

// The model's bytes and the name errors give them.
struct NamedBytes {
  std::string_view bytes;
  std::string file;
  const std::string& name() const { return file; }
};

// The arena's allowance, per parsing thread: protobuf asks for blocks through these hooks, and a model whose
// parsed form would outgrow the allowance is refused instead of exhausting memory (empty repeated elements
// cost a byte or two on the wire and a hundred in memory).
struct ArenaBudgetExceeded {};
// initial-exec: this module is dlopen'd, and a general-dynamic TLS block here is one LeakSanitizer (clang
// 14, glibc 2.36) misreads at exit ("DTLS ... Tracer caught signal 11", depending on the process layout).
// Eight bytes of glibc's static TLS surplus, kept for modules loaded this way, avoid the dynamic block.
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_arena_left = 0;

void* budget_alloc(size_t n) {
  if (n > t_arena_left) throw ArenaBudgetExceeded{};
  t_arena_left -= n;
  return ::operator new(n);
}

void budget_dealloc(void* p, size_t) {
  ::operator delete(p);
}

// TensorProto.DataType's last value (INT2, onnx 1.20): the numbers 1 to this are element types, some newer
// than the libonnx parsing them (whose own table stops earlier); 0 is UNDEFINED.
constexpr int32_t kLastOnnxElementType = 26;

bool is_onnx_element_type(int32_t t) {
  return t >= 1 && t <= kLastOnnxElementType;
}

std::string elem_type_name(int32_t t) {
  if (std::optional<DType> d = dtype_from_onnx(t)) return std::string(dtype_info(*d).name);
  if (onnx::TensorProto_DataType_IsValid(t)) return onnx::TensorProto_DataType_Name(t);
  if (t == 25) return "UINT2";
  if (t == 26) return "INT2";
  return "type " + std::to_string(t);
}

// A value's shape is copied by inference and into every output: as long as a tensor's may be, and no longer.
// A declared one that is longer breaks the rule (Malformed); an inferred one (a Reshape to a shape held in a
// long initializer) exceeds the cap (Limit).
void check_rank(int rank, ErrorKind kind, const std::string& file, const std::string& name) {
  if (static_cast<size_t>(rank) > kMaxTensorRank)
    throw Error(kind, file, "value '" + printable(name) + "'",
                "a shape of " + std::to_string(rank) + " dimensions, more than " +
                    std::to_string(kMaxTensorRank) + (kind == ErrorKind::Limit ? " (the cap)" : ""));
}

// Every shape a type declares, inside sequences, optionals and maps too (nesting is capped by the parse).
void check_type_ranks(const onnx::TypeProto& t, const std::string& file, const std::string& name) {
  if (t.has_tensor_type() && t.tensor_type().has_shape())
    check_rank(t.tensor_type().shape().dim_size(), ErrorKind::Malformed, file, name);
  if (t.has_sparse_tensor_type() && t.sparse_tensor_type().has_shape())
    check_rank(t.sparse_tensor_type().shape().dim_size(), ErrorKind::Malformed, file, name);
  if (t.has_sequence_type()) check_type_ranks(t.sequence_type().elem_type(), file, name);
  if (t.has_optional_type()) check_type_ranks(t.optional_type().elem_type(), file, name);
  if (t.has_map_type()) check_type_ranks(t.map_type().value_type(), file, name);
}

void check_declared_ranks(const onnx::GraphProto& g, const std::string& file);

void check_declared_ranks(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                          const std::string& file) {
  for (const onnx::NodeProto& n : nodes)
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) check_declared_ranks(a.g(), file);
      for (const onnx::GraphProto& sub : a.graphs()) check_declared_ranks(sub, file);
      if (a.has_tp()) check_type_ranks(a.tp(), file, n.name());
      for (const onnx::TypeProto& tp : a.type_protos()) check_type_ranks(tp, file, n.name());
    }
}

// The declared shapes of a graph's inputs, outputs and value_info, and of its nodes' subgraphs, checked
// before inference copies them.
void check_declared_ranks(const onnx::GraphProto& g, const std::string& file) {
  for (const auto* values : {&g.input(), &g.output(), &g.value_info()})
    for (const onnx::ValueInfoProto& v : *values) check_type_ranks(v.type(), file, v.name());
  check_declared_ranks(g.node(), file);
}

OnnxValue value_of(const onnx::ValueInfoProto& v, const std::string& file) {
  OnnxValue out;
  out.name = v.name();
  if (!v.type().has_tensor_type()) {
    out.elem_type = v.type().has_sequence_type() ? "sequence" : v.type().has_map_type() ? "map" : "";
    return out;
  }
  const onnx::TypeProto_Tensor& t = v.type().tensor_type();
  out.elem_type = t.elem_type() ? elem_type_name(t.elem_type()) : "";
  if (!t.has_shape()) return out;
  check_rank(t.shape().dim_size(), ErrorKind::Limit, file, v.name());
  out.shape.emplace();
  for (const onnx::TensorShapeProto_Dimension& d : t.shape().dim()) {
    OnnxDim dim;
    if (d.has_dim_value() && d.dim_value() >= 0) dim.size = static_cast<uint64_t>(d.dim_value());
    if (d.has_dim_param()) dim.symbol = d.dim_param();
    out.shape->push_back(std::move(dim));
  }
  return out;
}

// The values of the graphs around it that a node's subgraphs read (at any depth), in first-read order: what
// an If / Loop / Scan node depends on besides its inputs (ONNX Runtime's implicit inputs). GraphStructure
// finds them.
using ImplicitInputs = std::unordered_map<const onnx::NodeProto*, std::vector<std::string>>;

OnnxNode node_of(const onnx::NodeProto& n, const ImplicitInputs& implicit) {
  OnnxNode node;
  node.name = n.name();
  node.op_type = n.op_type();
  node.domain = n.domain();
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  for (const onnx::AttributeProto& a : n.attribute())
    if (a.type() == onnx::AttributeProto_AttributeType_INT) node.int_attributes.emplace_back(a.name(), a.i());
  if (auto it = implicit.find(&n); it != implicit.end()) node.implicit_inputs = it->second;
  return node;
}

// The nodes of the If / Loop / Scan bodies of node n, at any depth, depth-first in file order (an
// exporter's merged decoder keeps every layer in an If's two branches), and how many initializers those
// bodies hold. The nodes count toward the same cap as the main graph's.
void add_subgraph_nodes(const onnx::NodeProto& n, int depth, const std::string& file, uint64_t max_nodes,
                        const ImplicitInputs& implicit, OnnxModel& out) {
  if (depth > kMaxNesting) return;  // the parse already refused deeper nesting
  auto add_graph = [&](const onnx::GraphProto& g) {
    out.subgraph_initializers += static_cast<uint64_t>(g.initializer_size());
    for (const onnx::NodeProto& inner : g.node()) {
      if (out.nodes.size() + out.subgraph_nodes.size() >= max_nodes)
        throw Error(ErrorKind::Limit, file, "graph",
                    "more than " + std::to_string(max_nodes) + " nodes with those of its subgraphs: the cap");
      out.subgraph_nodes.push_back(node_of(inner, implicit));
      add_subgraph_nodes(inner, depth + 1, file, max_nodes, implicit, out);
    }
  };
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.has_g()) add_graph(a.g());
    for (const onnx::GraphProto& g : a.graphs()) add_graph(g);
  }
}

// A decimal string from external_data ("offset", "length").
uint64_t parse_decimal(const std::string& s, const std::string& file, const std::string& field) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size())
    throw Error(ErrorKind::Malformed, file, field, "'" + printable(s) + "' is not a byte count");
  return v;
}

// An external data location must name a file below the model's directory: relative, no "..", no NUL.
void check_location(const std::string& location, const std::string& file, const std::string& field) {
  if (location.empty()) throw Error(ErrorKind::Malformed, file, field, "external data without a location");
  const std::filesystem::path p(location);
  bool climbs = location.find('\0') != std::string::npos || p.is_absolute() || p.has_root_name() ||
                location.front() == '/' || location.front() == '\\';
  for (const auto& part : p) climbs = climbs || part == "..";
  if (climbs)
    throw Error(ErrorKind::Unsafe, file, field,
                "external data location '" + printable(location) +
                    "' leaves the model's directory (absolute or with '..')");
}

class InitializerReader {
 public:
  InitializerReader(const NamedBytes& src, const OnnxExternalSize& external_size, OnnxModel& out)
      : src_(src), external_size_(external_size), out_(out) {}

  void add(const onnx::TensorProto& t, const OnnxInlineData& inline_data) {
    const std::string field = "initializer '" + printable(t.name()) + "'";
    if (t.name().empty())
      throw Error(ErrorKind::Malformed, src_.name(),
                  "initializer " + std::to_string(out_.initializers.size()), "has no name");
    if (!names_.insert(t.name()).second)
      throw Error(ErrorKind::Malformed, src_.name(), field, "a second initializer of that name");
    std::optional<DType> dtype = dtype_from_onnx(t.data_type());
    if (!dtype && !is_onnx_element_type(t.data_type()))
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "element type " + std::to_string(t.data_type()) +
                      (t.data_type() == 0 ? " (UNDEFINED)" : "") + " is not one of ONNX's element types");
    if (!dtype)
      throw Error(ErrorKind::Unsupported, src_.name(), field,
                  "element type " + elem_type_name(t.data_type()) + " has no dtype here");
    StoredTensor s;
    s.name = t.name();
    s.dtype = *dtype;
    if (static_cast<size_t>(t.dims_size()) > kMaxTensorRank)
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "more than " + std::to_string(kMaxTensorRank) + " dimensions");
    for (int64_t d : t.dims()) {
      if (d < 0) throw Error(ErrorKind::Malformed, src_.name(), field, "a negative dimension");
      s.shape.push_back(static_cast<uint64_t>(d));
    }
    // dtype_bytes computes elements * bits + 7: checked here, so that a shape whose bits wrap is not 0 bytes.
    std::optional<uint64_t> n = checked_numel(s.shape);
    std::optional<uint64_t> bits = n ? checked_mul(*n, dtype_bits(s.dtype)) : std::nullopt;
    if (!n || !bits || !checked_add(*bits, 7))
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "too many elements: their size in bits does not fit in 64 bits");
    s.numel = *n;
    const uint64_t bytes = dtype_bytes(s.numel, s.dtype);
    const bool external = t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
    check_value_fields(t, field, s.numel, external);
    if (external)
      place_external(t, field, bytes, s);
    else
      place_inline(t, field, bytes, inline_data, s);
    out_.initializers.push_back(std::move(s));
  }

  // Refuses two initializers whose external bytes overlap, naming both. An exporter gives every initializer
  // bytes of its own (a tied weight is one initializer used twice); overlapping ranges would let one small
  // file stand for any number of tensors, each counted and read again.
  void check_external_ranges_disjoint() {
    const std::vector<StoredTensor>& t = out_.initializers;
    std::stable_sort(external_.begin(), external_.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(t[a].file_index, t[a].data_begin) < std::tie(t[b].file_index, t[b].data_begin);
    });
    auto range = [&](const StoredTensor& x) {
      return "[" + std::to_string(x.data_begin) + ", " + std::to_string(x.data_end) + ")";
    };
    // Sorted by file and start, a range overlaps an earlier one of its file exactly when it starts before the
    // furthest end so far.
    const StoredTensor* furthest = nullptr;
    for (uint32_t i : external_) {
      const StoredTensor& x = t[i];
      if (furthest && furthest->file_index == x.file_index && x.data_begin < furthest->data_end)
        throw Error(ErrorKind::Malformed, src_.name(), "initializer '" + printable(x.name) + "'",
                    "its external bytes " + range(x) + " in " +
                        printable(out_.external_files[x.file_index - 1]) + " overlap those of initializer '" +
                        printable(furthest->name) + "' " + range(*furthest) +
                        ": every initializer has bytes of its own");
      if (!furthest || furthest->file_index != x.file_index || x.data_end > furthest->data_end) furthest = &x;
    }
  }

 private:
  void place_external(const onnx::TensorProto& t, const std::string& field, uint64_t bytes, StoredTensor& s) {
    std::string location;
    std::optional<uint64_t> offset, length;
    for (const onnx::StringStringEntryProto& kv : t.external_data()) {
      if (kv.key() == "location") location = kv.value();
      if (kv.key() == "offset") offset = parse_decimal(kv.value(), src_.name(), field + " offset");
      if (kv.key() == "length") length = parse_decimal(kv.value(), src_.name(), field + " length");
    }
    check_location(location, src_.name(), field);
    // One file, one entry, however the location spells it ("./w.bin", "sub//w.bin"): the ranges in it are
    // checked against each other (check_external_ranges_disjoint).
    const std::string file = std::filesystem::path(location).lexically_normal().generic_string();
    auto [it, added] = file_of_.try_emplace(file, 0);
    if (added) {
      std::optional<uint64_t> size = external_size_(file);
      if (!size)
        throw Error(ErrorKind::NotFound, src_.name(), field,
                    "external data file '" + printable(location) + "' is missing");
      out_.external_files.push_back(file);
      sizes_.push_back(*size);
      it->second = static_cast<uint32_t>(out_.external_files.size());
    }
    const uint64_t size = sizes_[it->second - 1];
    if (length && *length != bytes)
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "external data length " + std::to_string(*length) + " but its shape and type take " +
                      std::to_string(bytes) + " bytes");
    const uint64_t begin = offset.value_or(0);
    std::optional<uint64_t> end = checked_add(begin, bytes);
    if (!end || *end > size)
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "its " + std::to_string(bytes) + " bytes at offset " + std::to_string(begin) +
                      " run past the end of " + location + " (" + std::to_string(size) + " bytes)");
    s.file_index = it->second;
    s.data_begin = begin;
    s.data_end = *end;
    if (bytes > 0) external_.push_back(static_cast<uint32_t>(out_.initializers.size()));
  }

  // onnx.checker's rule for a tensor's values: in one field (none for no elements), raw_data or the typed
  // field of its element type; stored externally, in none. A second field would be read by some readers and
  // not others (raw_data's ones beside float_data's sevens).
  void check_value_fields(const onnx::TensorProto& t, const std::string& field, uint64_t numel,
                          bool external) const {
    const std::pair<const char*, int> set[] = {
        {"float_data", t.float_data_size()},
        {"int32_data", t.int32_data_size()},
        {"string_data", t.string_data_size()},
        {"int64_data", t.int64_data_size()},
        {"raw_data", static_cast<int>(std::min<size_t>(t.raw_data().size(), 1))},
        {"double_data", t.double_data_size()},
        {"uint64_data", t.uint64_data_size()}};
    std::string fields;
    int count = 0;
    for (const auto& [name, size] : set)
      if (size > 0) fields += (count++ ? " and " : "") + std::string(name);
    if (external && count)
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "stored externally, yet holds values in " + fields);
    if (external) return;
    if (numel == 0 && count)
      throw Error(ErrorKind::Malformed, src_.name(), field, "has no elements, yet holds values in " + fields);
    if (numel > 0 && count != 1)
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  count ? "holds values in " + fields + ": a tensor's values are in one field"
                        : "holds no values (no raw_data, no typed field)");
    if (t.raw_data().empty() && fields != typed_field(t.data_type()))
      throw Error(ErrorKind::Malformed, src_.name(), field,
                  "values of element type " + elem_type_name(t.data_type()) + " belong in " +
                      typed_field(t.data_type()) + ", not " + fields);
  }

  // The TensorProto field that holds an element type's values when not in raw_data (onnx.proto's table).
  static std::string typed_field(int32_t type) {
    switch (type) {
      case onnx::TensorProto_DataType_FLOAT:
      case onnx::TensorProto_DataType_COMPLEX64:
        return "float_data";
      case onnx::TensorProto_DataType_DOUBLE:
      case onnx::TensorProto_DataType_COMPLEX128:
        return "double_data";
      case onnx::TensorProto_DataType_INT64:
        return "int64_data";
      case onnx::TensorProto_DataType_UINT32:
      case onnx::TensorProto_DataType_UINT64:
        return "uint64_data";
      case onnx::TensorProto_DataType_STRING:
        return "string_data";
      default:  // int32 and every narrower type, one value (or two 4-bit ones) per entry
        return "int32_data";
    }
  }

  void place_inline(const onnx::TensorProto& t, const std::string& field, uint64_t bytes,
                    const OnnxInlineData& d, StoredTensor& s) {
    // Values in the typed fields count once each, whatever their encoding; raw_data must hold the bytes the
    // shape and type take.
    uint64_t values = 0;
    if (t.has_raw_data()) {
      if (t.raw_data().size() != bytes)
        throw Error(ErrorKind::Malformed, src_.name(), field,
                    "raw_data holds " + std::to_string(t.raw_data().size()) +
                        " bytes but its shape and type take " + std::to_string(bytes));
    } else {
      values = static_cast<uint64_t>(t.float_data_size()) + static_cast<uint64_t>(t.int32_data_size()) +
               static_cast<uint64_t>(t.int64_data_size()) + static_cast<uint64_t>(t.double_data_size()) +
               static_cast<uint64_t>(t.uint64_data_size());
      // 16-bit and 8-bit types travel one value per int32_data entry; 4-bit types pack two per entry; a
      // complex64 element is two float_data values, its real and imaginary parts.
      const uint64_t expected = dtype_bits(s.dtype) == 4 ? (s.numel + 1) / 2
                                : s.dtype == DType::C64  ? 2 * s.numel
                                                         : s.numel;
      if (values != expected)
        throw Error(ErrorKind::Malformed, src_.name(), field,
                    "holds " + std::to_string(values) + " values but its shape has " +
                        std::to_string(s.numel) + " elements");
    }
    s.file_index = 0;
    if (d.contiguous && d.end - d.begin == bytes) {
      s.data_begin = d.begin;
      s.data_end = d.end;
    } else {
      // Varint-encoded values have no byte range: their size is what they take in memory.
      s.data_begin = 0;
      s.data_end = bytes;
      s.encoded = true;
    }
  }

  const NamedBytes& src_;
  const OnnxExternalSize& external_size_;
  OnnxModel& out_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, uint32_t> file_of_;
  std::vector<uint64_t> sizes_;
  std::vector<uint32_t> external_;  // the initializers with external bytes, by index
};

// Shape values data propagation may hold (data_propagation_bound): about 50 bytes each, so 100 MiB at most;
// the graphs of published exports bound theirs in the thousands.
constexpr uint64_t kMaxPropagatedValues = uint64_t{1} << 21;

void infer_shapes(onnx::ModelProto& m, const std::string& file, OnnxModel& out) {
  const uint64_t propagated = data_propagation_bound(m);
  const bool propagate = propagated <= kMaxPropagatedValues;
  if (!propagate)
    out.shape_inference_note =
        "data propagation skipped: the graph's shape arithmetic (Shape, Concat, Gather ...) could hold " +
        (propagated == UINT64_MAX ? std::string("2^64 or more") : std::to_string(propagated)) +
        " values, more than " + std::to_string(kMaxPropagatedValues) +
        " (the cap); shapes computed from it (a Reshape to a computed shape) are left unknown";
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/0, propagate);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const ArenaBudgetExceeded&) {
    throw;
  } catch (const std::bad_alloc&) {
    // Memory ran out (data propagation holds every propagated shape value at once): the model asks for more
    // than we hold, which is no inference error of the model's to record and read on past.
    throw Error(ErrorKind::Limit, file, "graph", "shape inference ran out of memory");
  } catch (const std::exception& e) {
    out.shape_inference_error = printable(e.what(), 200);
  }
}

// The structure onnx.checker requires of the main graph and of every subgraph (If branches, Loop and Scan
// bodies, at any depth), with ONNX's scoping: a node reads a value its own graph defines before it (a graph
// input, an initializer, an earlier node's output) or one the graphs around it define before the node that
// holds the subgraph (a value made later, or by the holder itself, is out of scope: a cycle, or an order the
// format forbids); a node makes no value already in scope (SSA; a subgraph's own inputs and initializers may
// shadow outer names, as the checker lets them). Depth and fan-out are walked on it; a graph that breaks it
// has no such figures. Fills `implicit` with what each subgraph-holding node's bodies read from outside them.
class GraphStructure {
 public:
  GraphStructure(const std::string& file, ImplicitInputs& implicit) : file_(file), implicit_(implicit) {}

  void check_main(const onnx::GraphProto& g) { check(g, nullptr, nullptr, "graph.", 0); }

 private:
  struct Scope {
    const Scope* outer = nullptr;
    const onnx::NodeProto* holder = nullptr;       // the node whose attribute holds this graph; null: main
    std::unordered_set<std::string_view> defined;  // so far
    std::unordered_set<std::string_view> made;     // by any node of this graph (for the error's reason)
  };

  void check(const onnx::GraphProto& g, const Scope* outer, const onnx::NodeProto* holder,
             const std::string& path, int depth) {
    if (depth > kMaxNesting) return;  // the parse already refused deeper nesting
    Scope scope;
    scope.outer = outer;
    scope.holder = holder;
    for (const onnx::ValueInfoProto& v : g.input()) scope.defined.insert(v.name());
    for (const onnx::TensorProto& t : g.initializer()) scope.defined.insert(t.name());
    // A sparse initializer's name is its values tensor's, as onnx.checker reads it.
    for (const onnx::SparseTensorProto& t : g.sparse_initializer()) scope.defined.insert(t.values().name());
    for (const onnx::NodeProto& n : g.node())
      for (const std::string& o : n.output())
        if (!o.empty()) scope.made.insert(o);
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& n = g.node(i);
      auto where = [&] {
        return path + "node[" + std::to_string(i) + "] (" + printable(n.op_type(), 40) +
               (n.name().empty() ? "" : " '" + printable(n.name(), 80) + "'") + ")";
      };
      for (const std::string& in : n.input()) {
        if (in.empty()) continue;  // "": an optional input left out
        const Scope* found = &scope;
        while (found && !found->defined.count(in)) found = found->outer;
        if (!found)
          throw Error(ErrorKind::Malformed, file_, where(),
                      "reads '" + printable(in, 80) + "', " + why_undefined(scope, in));
        // Read across subgraph boundaries: an implicit input of every holder between here and there.
        for (const Scope* s = &scope; s != found; s = s->outer) add_implicit(s->holder, in);
      }
      // Its subgraphs see what is defined so far, not the node's own outputs.
      for (const onnx::AttributeProto& a : n.attribute()) {
        if (a.has_g()) check(a.g(), &scope, &n, where() + "." + a.name() + ".", depth + 1);
        for (int k = 0; k < a.graphs_size(); ++k)
          check(a.graphs(k), &scope, &n, where() + "." + a.name() + "[" + std::to_string(k) + "].",
                depth + 1);
      }
      for (const std::string& o : n.output()) {
        if (o.empty()) continue;
        bool in_scope = false;
        for (const Scope* s = &scope; s && !in_scope; s = s->outer) in_scope = s->defined.count(o) > 0;
        if (in_scope || !scope.defined.insert(o).second)
          throw Error(ErrorKind::Malformed, file_, where(),
                      "makes '" + printable(o, 80) +
                          "', which is already defined (an ONNX graph defines each value once)");
      }
    }
  }

  static std::string why_undefined(const Scope& scope, const std::string& in) {
    if (scope.made.count(in)) return "which a later node makes: the nodes are not topologically sorted";
    for (const Scope* s = scope.outer; s; s = s->outer)
      if (s->made.count(in))
        return "which the graph around this subgraph makes only at or after the node holding it (a subgraph "
               "reads outer values defined before its node)";
    return scope.outer
               ? "which no input, initializer or node of this subgraph or the graphs around it defines"
               : "which no input, initializer or node defines";
  }

  void add_implicit(const onnx::NodeProto* holder, const std::string& value) {
    if (seen_[holder].insert(value).second) implicit_[holder].push_back(value);
  }

  const std::string& file_;
  ImplicitInputs& implicit_;
  std::unordered_map<const onnx::NodeProto*, std::unordered_set<std::string_view>> seen_;
};

void read_graph(const NamedBytes& src, std::string_view bytes, onnx::ModelProto& m,
                const OnnxExternalSize& external_size, const OnnxLimits& limits, OnnxModel& out) {
  const onnx::GraphProto& g = m.graph();
  if (static_cast<uint64_t>(g.node_size()) > limits.max_nodes ||
      static_cast<uint64_t>(g.initializer_size()) > limits.max_initializers)
    throw Error(ErrorKind::Limit, src.name(), "graph",
                std::to_string(g.node_size()) + " nodes and " + std::to_string(g.initializer_size()) +
                    " initializers exceed the caps (" + std::to_string(limits.max_nodes) + ", " +
                    std::to_string(limits.max_initializers) + ")");
  const std::vector<OnnxInlineData> inline_data = onnx_inline_data(bytes);
  if (inline_data.size() != static_cast<size_t>(g.initializer_size()))
    throw Error(ErrorKind::Malformed, src.name(), "graph.initializer",
                "the initializers do not walk as the parser read them");
  InitializerReader initializers(src, external_size, out);
  for (int i = 0; i < g.initializer_size(); ++i)
    initializers.add(g.initializer(i), inline_data[static_cast<size_t>(i)]);
  initializers.check_external_ranges_disjoint();
  out.sparse_initializers = static_cast<uint64_t>(g.sparse_initializer_size());
  ImplicitInputs implicit;
  GraphStructure(src.name(), implicit).check_main(g);
  check_declared_ranks(g, src.name());
  for (const onnx::FunctionProto& f : m.functions()) check_declared_ranks(f.node(), src.name());

  std::unordered_set<std::string_view> weights;
  for (const onnx::TensorProto& t : g.initializer()) weights.insert(t.name());
  for (const onnx::ValueInfoProto& v : g.input())
    if (!weights.count(v.name())) out.inputs.push_back(value_of(v, src.name()));
  out.nodes.reserve(static_cast<size_t>(g.node_size()));
  for (const onnx::NodeProto& n : g.node()) out.nodes.push_back(node_of(n, implicit));
  for (const onnx::NodeProto& n : g.node())
    add_subgraph_nodes(n, 0, src.name(), limits.max_nodes, implicit, out);

  check_function_calls(m, src.name(), limits.max_nodes, kMaxNesting);
  // The outputs after inference: it fills in an output whose declared type gives no shape, as
  // onnx.shape_inference.infer_shapes returns it.
  infer_shapes(m, src.name(), out);
  for (const onnx::ValueInfoProto& v : m.graph().output()) out.outputs.push_back(value_of(v, src.name()));
  // Every intermediate value: a node's output that is no graph output. Inference types most; one it could not
  // type (the output of a contrib op, com.microsoft's MatMulNBits, whose schema is not registered) is listed
  // untyped, so "N of M inferred" counts it.
  std::unordered_set<std::string_view> typed, graph_outputs;
  for (const onnx::ValueInfoProto& v : m.graph().output()) graph_outputs.insert(v.name());
  for (const onnx::ValueInfoProto& v : m.graph().value_info())
    if (!weights.count(v.name()) && typed.insert(v.name()).second)
      out.edges.push_back(value_of(v, src.name()));
  for (const onnx::NodeProto& n : m.graph().node())
    for (const std::string& o : n.output())
      if (!o.empty() && !graph_outputs.count(o) && !weights.count(o) && typed.insert(o).second)
        out.edges.push_back(OnnxValue{o, "", std::nullopt});
}

OnnxModel read_onnx_bytes(const NamedBytes& src, const OnnxExternalSize& external_size,
                          const OnnxLimits& limits) {
  const std::string_view bytes = src.bytes;
  google::protobuf::ArenaOptions options;
  options.block_alloc = budget_alloc;
  options.block_dealloc = budget_dealloc;
  t_arena_left = limits.max_parsed_bytes;
  OnnxModel out;
  try {
    google::protobuf::Arena arena(options);
    auto* m = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    in.SetRecursionLimit(kMaxNesting);
    if (!m->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
      // Say which: a model whose messages nest past the cap (walked without recursion, at any depth)
      // broke the cap, not the format.
      if (const std::optional<int> depth = onnx_nesting_depth(bytes); depth && *depth > kMaxNesting)
        throw Error(ErrorKind::Limit, src.name(), "ModelProto",
                    "messages nested deeper than " + std::to_string(kMaxNesting) + " levels (" +
                        std::to_string(*depth) +
                        ": subgraphs of If / Loop nodes inside each other): the cap");
      throw Error(ErrorKind::Malformed, src.name(), "ModelProto",
                  "not a valid ONNX protobuf (truncated, or not an ONNX model)");
    }
    if (!m->has_graph() || m->ir_version() <= 0)
      throw Error(ErrorKind::Malformed, src.name(), m->has_graph() ? "ir_version" : "graph",
                  "missing: every ONNX model states its IR version and holds a graph");
    out.ir_version = m->ir_version();
    out.producer_name = m->producer_name();
    out.producer_version = m->producer_version();
    out.graph_name = m->graph().name();
    for (const onnx::OperatorSetIdProto& o : m->opset_import())
      out.opsets.emplace_back(o.domain(), o.version());
    for (const onnx::StringStringEntryProto& kv : m->metadata_props())
      out.metadata.emplace_back(kv.key(), kv.value());
    read_graph(src, bytes, *m, external_size, limits, out);
  } catch (const ArenaBudgetExceeded&) {
    throw Error(ErrorKind::Limit, src.name(), "ModelProto",
                "its parsed form would take more than " + std::to_string(limits.max_parsed_bytes >> 20) +
                    " MiB of memory");
  }
  return out;
}

}  // namespace
}  // namespace ma

extern "C" __attribute__((visibility("default"))) void ma_onnx_read(const ma::OnnxReadRequest* request,
                                                                    ma::OnnxReadResult* result) noexcept {
  try {
    result->model =
        ma::read_onnx_bytes({request->bytes, request->name}, *request->external_size, request->limits);
  } catch (const ma::Error& e) {
    result->error_kind = static_cast<int>(e.kind());
    result->file = e.file();
    result->field = e.field();
    result->rule = e.rule();
    result->offset = e.offset();
  } catch (const std::bad_alloc&) {
    result->error_kind = static_cast<int>(ma::ErrorKind::Limit);
    result->file = request->name;
    result->rule = "out of memory while reading the model";
  } catch (const std::exception& e) {
    result->error_kind = static_cast<int>(ma::ErrorKind::Internal);
    result->file = request->name;
    result->rule = e.what();
  } catch (...) {  // nothing may leave a noexcept entry point
    result->error_kind = static_cast<int>(ma::ErrorKind::Internal);
    result->file = request->name;
    result->rule = "the ONNX reader failed";
  }
}
