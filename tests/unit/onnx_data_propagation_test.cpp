// Shape inference's data propagation on graphs that would make it hold without bound: 40 Concats of a value
// with itself (2^41 values from a 1.5 KB file) grew memory at 250 MB/s until the process was killed, in
// every command that reads the graph. Such a graph is now inferred without data propagation, and says so;
// the shape arithmetic of real exports (a Reshape to a shape computed from Shape, Gather and Concat) is
// still propagated.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "formats/onnx_model.h"
#include "io/byte_source.h"

namespace ma {
namespace {

void add_node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> in,
              const std::string& out) {
  onnx::NodeProto* n = g.add_node();
  n->set_op_type(op);
  for (const std::string& i : in) n->add_input(i);
  n->add_output(out);
}

void add_ints(onnx::GraphProto& g, const std::string& name, std::vector<int64_t> values) {
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto_DataType_INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (const int64_t v : values) t->add_int64_data(v);
}

// A graph of float input x [2, 12], its nodes added by `build`, and output `out` declared without a shape.
onnx::ModelProto graph_of(const std::function<void(onnx::GraphProto&)>& build, const std::string& out) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("g");
  onnx::ValueInfoProto* x = g.add_input();
  x->set_name("x");
  auto* t = x->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(2);
  t->mutable_shape()->add_dim()->set_dim_value(12);
  build(g);
  g.add_output()->set_name(out);
  return m;
}

OnnxModel read(const onnx::ModelProto& m) {
  const OnnxExternalSize none = [](const std::string&) { return std::optional<uint64_t>(); };
  return read_onnx(MemorySource(m.SerializeAsString(), "m.onnx"), none, {});
}

std::vector<uint64_t> known_dims(const OnnxValue& v) {
  std::vector<uint64_t> dims;
  for (const OnnxDim& d : v.shape.value_or(std::vector<OnnxDim>{})) dims.push_back(d.size.value_or(0));
  return dims;
}

TEST(OnnxDataPropagation, ADoublingChainIsInferredWithoutItAndSaysSo) {
  const onnx::ModelProto m = graph_of(
      [](onnx::GraphProto& g) {
        add_node(g, "Shape", {"x"}, "s0");
        for (int i = 0; i < 40; ++i) {
          add_node(g, "Concat", {"s" + std::to_string(i), "s" + std::to_string(i)},
                   "s" + std::to_string(i + 1));
          onnx::AttributeProto* axis = g.mutable_node(g.node_size() - 1)->add_attribute();
          axis->set_name("axis");
          axis->set_type(onnx::AttributeProto_AttributeType_INT);
          axis->set_i(0);
        }
      },
      "s40");
  const auto start = std::chrono::steady_clock::now();
  const OnnxModel r = read(m);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(r.shape_inference_error.empty()) << r.shape_inference_error;
  EXPECT_NE(r.shape_inference_note.find("data propagation skipped"), std::string::npos)
      << r.shape_inference_note;
  // Inference without it still types the output: a vector (its length, 2^41, ONNX's Concat sums in an int).
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].elem_type, "I64");
  EXPECT_EQ(known_dims(r.outputs[0]).size(), 1u);
}

// transformers' exports reshape to shapes computed from the input's: Shape, Gather, Unsqueeze, Concat. The
// bound leaves them to data propagation, which gives the Reshape its whole shape, as
// onnx.shape_inference.infer_shapes(data_prop=True) does.
TEST(OnnxDataPropagation, ComputedReshapeTargetsAreStillPropagated) {
  const onnx::ModelProto m = graph_of(
      [](onnx::GraphProto& g) {
        add_ints(g, "zero", {0});
        add_ints(g, "three_four", {3, 4});
        add_node(g, "Shape", {"x"}, "s");
        add_node(g, "Gather", {"s", "zero"}, "batch");  // [2]
        add_node(g, "Concat", {"batch", "three_four"}, "target");
        onnx::AttributeProto* axis = g.mutable_node(g.node_size() - 1)->add_attribute();
        axis->set_name("axis");
        axis->set_type(onnx::AttributeProto_AttributeType_INT);
        axis->set_i(0);
        add_node(g, "Reshape", {"x", "target"}, "y");
      },
      "y");
  const OnnxModel r = read(m);
  EXPECT_TRUE(r.shape_inference_note.empty()) << r.shape_inference_note;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(known_dims(r.outputs[0]), (std::vector<uint64_t>{2, 3, 4}));
}

}  // namespace
}  // namespace ma
