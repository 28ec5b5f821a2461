#include "plugins/onnx/onnx_data_propagation.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/checked.h"

namespace ma {
namespace {

uint64_t elements_of(const onnx::TensorProto& t) {
  uint64_t n = 1;
  for (const int64_t d : t.dims()) n = d <= 0 ? 0 : saturating_mul(n, static_cast<uint64_t>(d));
  return n;
}

bool integer_vector(const onnx::TensorProto& t) {
  return t.dims_size() <= 1 &&
         (t.data_type() == onnx::TensorProto::INT64 || t.data_type() == onnx::TensorProto::INT32);
}

// Each value's propagated length (data) and rank, in the order inference visits the nodes (the graph is
// topologically sorted: GraphStructure checked it).
class Bound {
 public:
  // Names are scoped per graph in ONNX, but one table serves: a name defined twice keeps the larger bound.
  void walk_graph(const onnx::GraphProto& g) {
    for (const auto* values : {&g.input(), &g.output(), &g.value_info()})
      for (const onnx::ValueInfoProto& v : *values) declare(v);
    for (const onnx::TensorProto& t : g.initializer()) {
      raise(ranks_[t.name()], static_cast<uint64_t>(t.dims_size()));
      // Inference reads an initializer as data only where it is a scalar or a vector of integers.
      if (integer_vector(t)) define(t.name(), elements_of(t));
    }
    for (const onnx::NodeProto& n : g.node()) walk_node(n);
  }

  // A function's inputs carry what its callers pass: at most the longest value and rank anywhere.
  void walk_function(const onnx::FunctionProto& f) {
    for (const std::string& in : f.input()) {
      define(in, longest_);
      raise(ranks_[in], highest_rank_);
    }
    for (const onnx::NodeProto& n : f.node()) walk_node(n);
  }

  uint64_t total() const { return total_; }

 private:
  static void raise(uint64_t& at, uint64_t v) { at = std::max(at, v); }

  void declare(const onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    const auto rank = static_cast<uint64_t>(v.type().tensor_type().shape().dim_size());
    raise(ranks_[v.name()], rank);
    raise(declared_rank_, rank);
    raise(highest_rank_, rank);
  }

  void define(const std::string& name, uint64_t length) {
    raise(values_[name], length);
    total_ = saturating_add(total_, length);
    raise(longest_, length);
  }

  uint64_t data(const onnx::NodeProto& n, int i) const {
    if (i >= n.input_size() || n.input(i).empty()) return 0;
    const auto it = values_.find(n.input(i));
    return it == values_.end() ? 0 : it->second;
  }

  uint64_t rank(const onnx::NodeProto& n, int i) const {
    if (i >= n.input_size() || n.input(i).empty()) return 0;
    const auto it = ranks_.find(n.input(i));
    return it == ranks_.end() ? declared_rank_ : it->second;
  }

  // The rank a shape input gives: its propagated length, else (a shape computed by ops that propagate
  // nothing) the longest declared rank.
  uint64_t rank_from_shape(const onnx::NodeProto& n, int i) const {
    const uint64_t d = data(n, i);
    return d ? d : declared_rank_;
  }

  static uint64_t attribute_length(const onnx::NodeProto& n) {
    uint64_t length = 0;
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_t()) length = std::max(length, elements_of(a.t()));
      length = std::max(length, static_cast<uint64_t>(std::max(a.ints_size(), a.floats_size())));
    }
    return length;
  }

  // The length of the value ONNX 1.12's propagator for `n` makes (0: the op propagates none).
  uint64_t output_length(const onnx::NodeProto& n, std::string_view op) const {
    if (op == "Shape") return rank(n, 0);
    if (op == "Size") return 1;
    if (op == "Constant") return std::max<uint64_t>(attribute_length(n), 1);
    if (op == "Concat") {
      uint64_t sum = 0;
      for (int i = 0; i < n.input_size(); ++i) sum = saturating_add(sum, data(n, i));
      return sum;
    }
    if (op == "Add" || op == "Sub" || op == "Mul") return std::max(data(n, 0), data(n, 1));
    if (op == "Gather") return std::max<uint64_t>(data(n, 1), 1);
    if (op == "Slice" || op == "Cast" || op == "Squeeze" || op == "Identity") return data(n, 0);
    if (op == "Unsqueeze") return saturating_add(data(n, 0), 1);
    return 0;
  }

  // The rank of `n`'s outputs: most ops keep their inputs' (the highest of them); these make more.
  uint64_t output_rank(const onnx::NodeProto& n, std::string_view op, bool standard) const {
    // Ops that keep the rank of their inputs, or lower it.
    // clang-format off
    static const std::unordered_set<std::string_view> kKeepRank = {
        "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Neg", "Abs", "Exp", "Log", "Erf", "Tanh", "Sigmoid", "Relu",
        "Gelu", "Softmax", "LogSoftmax", "Cast", "CastLike", "Where", "Equal", "Less", "Greater", "LessOrEqual",
        "GreaterOrEqual", "Not", "And", "Or", "Max", "Min", "Clip", "MatMul", "Gemm", "Transpose", "Slice",
        "Split", "Concat", "Squeeze", "Identity", "Shape", "Size", "Reciprocal", "ReduceMean", "ReduceSum",
        "ReduceMax", "ReduceMin", "ReduceProd", "LayerNormalization", "Trilu", "Tile", "Pad", "Resize", "Conv",
        "Mod", "Floor", "Ceil", "Round", "Sign", "Dropout", "ArgMax", "ArgMin", "TopK", "CumSum", "Cos", "Sin",
        "IsNaN", "IsInf", "QuantizeLinear", "DequantizeLinear", "MatMulInteger", "DynamicQuantizeLinear"};
    // clang-format on
    uint64_t inputs = 0;
    for (int i = 0; i < n.input_size(); ++i) inputs = std::max(inputs, rank(n, i));
    if (standard) {
      if (kKeepRank.count(op)) return inputs;
      if (op == "Unsqueeze")
        return saturating_add(rank(n, 0), std::max({data(n, 1), attribute_length(n), uint64_t{1}}));
      if (op == "Reshape" || op == "Expand") return std::max(inputs, rank_from_shape(n, 1));
      if (op == "ConstantOfShape") return rank_from_shape(n, 0);
      if (op == "Gather" || op == "GatherND") return saturating_add(rank(n, 0), rank(n, 1));
      if (op == "Range" || op == "NonZero" || op == "Flatten") return 2;
      if (op == "Einsum") return 52;  // an output axis per letter at most
      if (op == "Constant") return std::max<uint64_t>(attribute_length(n), 1);
    }
    // One more axis than any input: OneHot, sequences stacked, a loop's scan outputs, ops of other domains.
    return saturating_add(std::max({inputs, declared_rank_, attribute_length(n)}), 1);
  }

  void walk_node(const onnx::NodeProto& n) {
    const std::string_view domain = n.domain();
    const std::string_view op = n.op_type();
    const bool standard = domain.empty() || domain == "ai.onnx";
    const uint64_t length = standard ? output_length(n, op) : 0;
    const uint64_t r = output_rank(n, op, standard);
    for (const std::string& out : n.output()) {
      if (out.empty()) continue;
      define(out, length);
      raise(ranks_[out], r);
    }
    raise(highest_rank_, r);
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) walk_graph(a.g());
      for (const onnx::GraphProto& g : a.graphs()) walk_graph(g);
    }
  }

  std::unordered_map<std::string, uint64_t> values_, ranks_;
  uint64_t declared_rank_ = 0, highest_rank_ = 0, total_ = 0, longest_ = 0;
};

}  // namespace

uint64_t data_propagation_bound(const onnx::ModelProto& m) {
  Bound b;
  b.walk_graph(m.graph());
  for (const onnx::FunctionProto& f : m.functions()) b.walk_function(f);
  return b.total();
}

}  // namespace ma
