#include "onnx_test_models.h"

#include <cstring>

#include "test_support.h"

namespace ma::test {
namespace {

void set_tensor_type(onnx::ValueInfoProto* v, const std::string& name, int64_t last_dim) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param("batch");
  t->mutable_shape()->add_dim()->set_dim_value(last_dim);
}

std::string weight_bytes() {
  std::string out(kTinyOnnxWeights.size() * 4, '\0');
  std::memcpy(out.data(), kTinyOnnxWeights.data(), out.size());
  return out;
}

}  // namespace

onnx::ModelProto tiny_onnx_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ma-tests");
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("tiny");
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("model.layers.0.mlp.up_proj.weight");
  w->set_data_type(onnx::TensorProto_DataType_FLOAT);
  w->add_dims(3);
  w->add_dims(2);
  w->set_raw_data(weight_bytes());
  onnx::NodeProto* n = g->add_node();
  n->set_name("/model/layers.0/mlp/up_proj/MatMul");
  n->set_op_type("MatMul");
  n->add_input("x");
  n->add_input(w->name());
  n->add_output("y");
  set_tensor_type(g->add_input(), "x", 3);
  set_tensor_type(g->add_output(), "y", 2);
  return m;
}

void make_weight_external(onnx::ModelProto& m, const std::string& location, const std::string& offset,
                          const std::string& length, const std::filesystem::path& data_file) {
  onnx::TensorProto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto add = [&](const std::string& k, const std::string& v) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  if (!offset.empty()) add("offset", offset);
  if (!length.empty()) add("length", length);
  if (!data_file.empty()) {
    size_t pad = 0;
    try {
      pad = std::stoul(offset);
    } catch (...) {
    }
    write_file(data_file, std::string(pad, '\0') + weight_bytes());
  }
}

void write_onnx(const std::filesystem::path& path, const onnx::ModelProto& m) {
  write_file(path, m.SerializeAsString());
}

}  // namespace ma::test
