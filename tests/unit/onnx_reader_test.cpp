// The ONNX reader on models built with ONNX's own protobuf classes and broken one field at a time: every
// bad input is refused with its error kind (the exit code) naming the field, none crashes, and nothing is
// read outside the model's directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "core/dtype_values.h"
#include "core/error.h"
#include "formats/checkpoint.h"
#include "formats/model_files.h"
#include "formats/onnx_model.h"
#include "formats/weight_format.h"
#include "io/byte_source.h"
#include "io/file_source.h"
#include "onnx_test_models.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

OnnxModel read_bytes(const std::string& bytes, const OnnxExternalSize& external = {},
                     const OnnxLimits& limits = {}) {
  const OnnxExternalSize none = [](const std::string&) { return std::optional<uint64_t>(); };
  return read_onnx(MemorySource(bytes, "m.onnx"), external ? external : none, limits);
}

ErrorKind kind_of(const std::string& bytes, const OnnxExternalSize& external = {},
                  const OnnxLimits& limits = {}, std::string* message = nullptr) {
  try {
    read_bytes(bytes, external, limits);
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "accepted";
  return ErrorKind::Internal;
}

OnnxExternalSize sized(uint64_t size) {
  return [size](const std::string&) { return std::optional<uint64_t>(size); };
}

TEST(OnnxReader, InlineWeightIsLocatedInTheFile) {
  const std::string bytes = test::tiny_onnx_model().SerializeAsString();
  const OnnxModel m = read_bytes(bytes);
  ASSERT_EQ(m.initializers.size(), 1u);
  const StoredTensor& w = m.initializers[0];
  EXPECT_EQ(w.dtype, DType::F32);
  EXPECT_EQ(w.shape, (Shape{3, 2}));
  EXPECT_EQ(w.file_index, 0u);
  EXPECT_FALSE(w.encoded);
  ASSERT_EQ(w.bytes(), 24u);
  std::vector<float> values(6);
  std::memcpy(values.data(), bytes.data() + w.data_begin, 24);
  EXPECT_EQ(values, test::kTinyOnnxWeights);
  EXPECT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.inputs.size(), 1u);
  ASSERT_EQ(m.edges.size(), 0u);  // x -> y: no intermediate value
  EXPECT_EQ(m.outputs[0].shape->at(0).symbol, "batch");
  EXPECT_EQ(sniff_weight_format(MemorySource(bytes, "m")), WeightFormat::Onnx);
}

TEST(OnnxReader, EveryTruncationIsRefusedOrReadWithinTheBytesLeft) {
  const std::string bytes = test::tiny_onnx_model().SerializeAsString();
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string prefix = bytes.substr(0, n);
    try {
      const OnnxModel m = read_bytes(prefix);
      for (const StoredTensor& t : m.initializers)
        if (!t.encoded) {
          EXPECT_LE(t.data_end, n) << n;
        }
    } catch (const Error& e) {
      EXPECT_TRUE(e.kind() == ErrorKind::Malformed) << n << ": " << e.what();
    }
  }
}

TEST(OnnxReader, ExternalDataMustStayInsideTheModelDirectory) {
  for (const char* location : {"../outside.bin", "/etc/passwd", "data/../../x.bin", "a/../../b"}) {
    onnx::ModelProto m = test::tiny_onnx_model();
    test::make_weight_external(m, location, "0", "24", {});
    std::string message;
    EXPECT_EQ(kind_of(m.SerializeAsString(), sized(1000), {}, &message), ErrorKind::Unsafe) << location;
    EXPECT_NE(message.find("model.layers.0.mlp.up_proj.weight"), std::string::npos) << message;
  }
}

TEST(OnnxReader, ExternalDataMustLieInsideItsFile) {
  struct Case {
    const char* offset;
    const char* length;
    uint64_t file_size;
    ErrorKind kind;
  };
  for (const Case& c :
       {Case{"0", "24", 23, ErrorKind::Malformed},                      // file too short
        Case{"8", "24", 31, ErrorKind::Malformed},                      // offset pushes it out
        Case{"18446744073709551615", "24", 100, ErrorKind::Malformed},  // offset + bytes overflow
        Case{"0", "20", 100, ErrorKind::Malformed},                     // length disagrees
        Case{"-1", "24", 100, ErrorKind::Malformed},                    // not a byte count
        Case{"0x10", "24", 100, ErrorKind::Malformed}}) {
    onnx::ModelProto m = test::tiny_onnx_model();
    test::make_weight_external(m, "w.bin", c.offset, c.length, {});
    EXPECT_EQ(kind_of(m.SerializeAsString(), sized(c.file_size)), c.kind) << c.offset << " " << c.length;
  }
  onnx::ModelProto m = test::tiny_onnx_model();
  test::make_weight_external(m, "w.bin", "8", "", {});
  const OnnxModel ok = read_bytes(m.SerializeAsString(), sized(32));
  EXPECT_EQ(ok.initializers[0].file_index, 1u);
  EXPECT_EQ(ok.initializers[0].data_begin, 8u);
  EXPECT_EQ(ok.initializers[0].data_end, 32u);
  EXPECT_EQ(ok.external_files, std::vector<std::string>{"w.bin"});
  EXPECT_EQ(kind_of(m.SerializeAsString()), ErrorKind::NotFound);  // the file is missing
}

TEST(OnnxReader, InitializersThatLieAboutTheirValuesAreRefused) {
  auto broken = [](auto&& edit) {
    onnx::ModelProto m = test::tiny_onnx_model();
    edit(*m.mutable_graph()->mutable_initializer(0), m);
    return m.SerializeAsString();
  };
  EXPECT_EQ(kind_of(broken([](onnx::TensorProto& t, auto&) { t.mutable_raw_data()->pop_back(); })),
            ErrorKind::Malformed);
  EXPECT_EQ(kind_of(broken([](onnx::TensorProto& t, auto&) { t.set_dims(0, -3); })), ErrorKind::Malformed);
  EXPECT_EQ(kind_of(broken([](onnx::TensorProto& t, auto&) {
              t.set_dims(0, int64_t{1} << 40);
              t.set_dims(1, int64_t{1} << 40);
            })),
            ErrorKind::Malformed);
  EXPECT_EQ(kind_of(broken([](onnx::TensorProto& t, auto&) { t.clear_name(); })), ErrorKind::Malformed);
  EXPECT_EQ(kind_of(broken([](onnx::TensorProto& t, auto& m) { *m.mutable_graph()->add_initializer() = t; })),
            ErrorKind::Malformed);
  EXPECT_EQ(kind_of(broken([](onnx::TensorProto& t, auto&) {
              t.clear_raw_data();
              t.add_float_data(1.0f);  // one value for six elements
            })),
            ErrorKind::Malformed);
  EXPECT_EQ(kind_of(broken(
                [](onnx::TensorProto& t, auto&) { t.set_data_type(onnx::TensorProto_DataType_STRING); })),
            ErrorKind::Unsupported);
}

// ONNX's INT4 (opset 21 QDQ weights): two elements per byte, the first in the low nibble.
TEST(OnnxReader, FourBitIntegersAreTwoPerByte) {
  onnx::ModelProto m = test::tiny_onnx_model();
  onnx::TensorProto& w = *m.mutable_graph()->mutable_initializer(0);
  w.set_data_type(22);  // INT4 (onnx >= 1.16; Debian's 1.12 parses the number all the same)
  w.set_raw_data(std::string("\x21\xf7\x08", 3));  // 1, 2, 7, -1, -8, 0
  const OnnxModel ok = read_bytes(m.SerializeAsString());
  EXPECT_EQ(ok.initializers[0].dtype, DType::I4);
  EXPECT_EQ(ok.initializers[0].bytes(), 3u);
  EXPECT_EQ(element_value(DType::I4, 0x7), 7.0);
  EXPECT_EQ(element_value(DType::I4, 0xf), -1.0);
  EXPECT_EQ(element_value(DType::I4, 0x8), -8.0);
  EXPECT_EQ(element_value(DType::U4, 0xf), 15.0);
  w.set_raw_data(std::string("\x21\xf7", 2));  // five elements' worth for six
  EXPECT_EQ(kind_of(m.SerializeAsString()), ErrorKind::Malformed);
}

// An output declared with its type but no shape gets the shape ONNX's inference gives it, as
// onnx.shape_inference.infer_shapes returns the model: x [batch, 3] times W [3, 2] is y [batch, 2].
TEST(OnnxReader, AnOutputWithoutADeclaredShapeHasTheInferredOne) {
  onnx::ModelProto m = test::tiny_onnx_model();
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  const OnnxModel g = read_bytes(m.SerializeAsString());
  ASSERT_EQ(g.outputs.size(), 1u);
  ASSERT_TRUE(g.outputs[0].shape) << "rank unknown";
  ASSERT_EQ(g.outputs[0].shape->size(), 2u);
  EXPECT_EQ((*g.outputs[0].shape)[0].symbol, "batch");
  EXPECT_EQ((*g.outputs[0].shape)[1].size, 2u);
}

// onnx.checker's rules for the main graph: a value read before the node that makes it (a cycle, or nodes out
// of order), a value nothing defines, a value made twice: each refused naming the node, never walked.
TEST(OnnxReader, AGraphThatBreaksItsStructureIsMalformed) {
  auto with_node = [](const std::string& op, const std::vector<std::string>& in, const std::string& out) {
    onnx::ModelProto m = test::tiny_onnx_model();
    onnx::NodeProto* n = m.mutable_graph()->add_node();
    n->set_op_type(op);
    for (const std::string& i : in) n->add_input(i);
    n->add_output(out);
    return m;
  };
  std::string message;
  EXPECT_EQ(kind_of(with_node("Relu", {"z"}, "r").SerializeAsString(), {}, {}, &message),
            ErrorKind::Malformed);
  EXPECT_NE(message.find("graph.node[1] (Relu): reads 'z', which no input, initializer or node defines"),
            std::string::npos)
      << message;
  EXPECT_EQ(kind_of(with_node("Relu", {"x"}, "y").SerializeAsString(), {}, {}, &message),
            ErrorKind::Malformed);
  EXPECT_NE(message.find("makes 'y', which is already defined"), std::string::npos) << message;
  // The MatMul reads "r", which a later Relu makes from "y": a cycle.
  onnx::ModelProto cycle = with_node("Relu", {"y"}, "r");
  cycle.mutable_graph()->mutable_node(0)->set_input(0, "r");
  EXPECT_EQ(kind_of(cycle.SerializeAsString(), {}, {}, &message), ErrorKind::Malformed);
  EXPECT_NE(message.find("which a later node makes: the nodes are not topologically sorted"),
            std::string::npos)
      << message;
}

// Every intermediate value is listed, typed or not: the output of an op inference has no schema for
// (com.microsoft's MatMulNBits) is an edge of unknown type, and what it feeds may be untyped too.
TEST(OnnxReader, UntypedIntermediateValuesAreEdgesToo) {
  onnx::ModelProto m = test::tiny_onnx_model();
  onnx::GraphProto* g = m.mutable_graph();
  g->mutable_node(0)->set_output(0, "m");
  onnx::NodeProto* contrib = g->add_node();
  contrib->set_op_type("FusedThing");
  contrib->set_domain("com.example");
  contrib->add_input("m");
  contrib->add_output("c");
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("c");
  relu->add_output("y");
  auto* opset = m.add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  const OnnxModel read = read_bytes(m.SerializeAsString());
  std::vector<std::string> names;
  for (const OnnxValue& e : read.edges) names.push_back(e.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"c", "m"}));
  for (const OnnxValue& e : read.edges) {
    if (e.name == "c") {
      EXPECT_FALSE(e.shape.has_value());
    }
  }
}

// A COMPLEX64 initializer in float_data holds two values an element, its real and imaginary parts, as
// onnx.helper.make_tensor writes it and onnx.checker accepts it; one value an element is short.
TEST(OnnxReader, ComplexValuesArePairsOfFloats) {
  onnx::ModelProto m = test::tiny_onnx_model();
  onnx::TensorProto& w = *m.mutable_graph()->mutable_initializer(0);  // [2, 3]
  w.set_data_type(onnx::TensorProto_DataType_COMPLEX64);
  w.clear_raw_data();
  for (int i = 0; i < 12; ++i) w.add_float_data(static_cast<float>(i));
  const OnnxModel ok = read_bytes(m.SerializeAsString());
  EXPECT_EQ(ok.initializers[0].dtype, DType::C64);
  EXPECT_EQ(ok.initializers[0].bytes(), 48u);
  w.clear_float_data();
  for (int i = 0; i < 6; ++i) w.add_float_data(static_cast<float>(i));
  EXPECT_EQ(kind_of(m.SerializeAsString()), ErrorKind::Malformed);
}

// Protobuf strings are bytes: an initializer or node name that is not UTF-8 text (or holds an escape
// sequence) is refused, never printed raw nor written into JSON.
TEST(OnnxReader, NamesMustBePlainText) {
  onnx::ModelProto bad_initializer = test::tiny_onnx_model();
  bad_initializer.mutable_graph()->mutable_initializer(0)->set_name("w\xff\xfe");
  EXPECT_EQ(kind_of(bad_initializer.SerializeAsString()), ErrorKind::Malformed);
  onnx::ModelProto bad_node = test::tiny_onnx_model();
  bad_node.mutable_graph()->mutable_node(0)->set_name("n\x1b[2J");
  EXPECT_EQ(kind_of(bad_node.SerializeAsString()), ErrorKind::Malformed);
}

TEST(OnnxReader, NotAModelIsMalformed) {
  EXPECT_EQ(kind_of("this is not a protobuf at all"), ErrorKind::Malformed);
  onnx::ModelProto no_graph = test::tiny_onnx_model();
  no_graph.clear_graph();
  EXPECT_EQ(kind_of(no_graph.SerializeAsString()), ErrorKind::Malformed);
  onnx::ModelProto no_version = test::tiny_onnx_model();
  no_version.clear_ir_version();
  EXPECT_EQ(kind_of(no_version.SerializeAsString()), ErrorKind::Malformed);
}

TEST(OnnxReader, ParsedSizeAndCountsAreCapped) {
  onnx::ModelProto m = test::tiny_onnx_model();
  for (int i = 0; i < 20000; ++i) m.mutable_graph()->add_node();  // two bytes each on the wire
  const std::string bytes = m.SerializeAsString();
  OnnxLimits small;
  small.max_parsed_bytes = 256 << 10;
  std::string message;
  EXPECT_EQ(kind_of(bytes, {}, small, &message), ErrorKind::Limit);
  EXPECT_NE(message.find("memory"), std::string::npos) << message;
  OnnxLimits few;
  few.max_nodes = 1000;
  EXPECT_EQ(kind_of(bytes, {}, few), ErrorKind::Limit);
  EXPECT_EQ(read_bytes(bytes).nodes.size(), 20001u);  // within the default caps
}

// 200 If nodes inside each other: 600 protobuf levels, beyond the cap of 64. Refused as the cap (Limit, which
// names it), not as a broken file, and never a crash.
TEST(OnnxReader, NestingBeyondTheCapIsALimitNotACrash) {
  onnx::ModelProto m = test::tiny_onnx_model();
  onnx::GraphProto* g = m.mutable_graph();
  for (int depth = 0; depth < 200; ++depth) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("If");
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name("then_branch");
    a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
    g = a->mutable_g();
  }
  std::string why;
  EXPECT_EQ(kind_of(m.SerializeAsString(), {}, {}, &why), ErrorKind::Limit);
  EXPECT_NE(why.find("nested deeper than 64 levels"), std::string::npos) << why;
}

TEST(OnnxReader, SubgraphNodesAreListedAtEveryDepth) {
  onnx::ModelProto m = test::tiny_onnx_model();
  onnx::NodeProto* n = m.mutable_graph()->add_node();
  n->set_op_type("If");
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("then_branch");
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  a->mutable_g()->add_node()->set_op_type("Identity");
  onnx::NodeProto* loop = a->mutable_g()->add_node();
  loop->set_op_type("Loop");
  onnx::AttributeProto* body = loop->add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  onnx::NodeProto* inner = body->mutable_g()->add_node();
  inner->set_op_type("MatMulNBits");
  inner->set_domain("com.microsoft");
  inner->set_name("/model/layers.1/MatMul");
  body->mutable_g()->add_initializer()->set_name("axes");
  const OnnxModel got = read_bytes(m.SerializeAsString());
  ASSERT_EQ(got.subgraph_nodes.size(), 3u);
  EXPECT_EQ(got.subgraph_nodes[0].op_type, "Identity");
  EXPECT_EQ(got.subgraph_nodes[1].op_type, "Loop");
  EXPECT_EQ(got.subgraph_nodes[2].op_type, "MatMulNBits");  // depth-first: the Loop's body after the Loop
  EXPECT_EQ(got.subgraph_nodes[2].domain, "com.microsoft");
  EXPECT_EQ(got.subgraph_nodes[2].name, "/model/layers.1/MatMul");
  EXPECT_EQ(got.subgraph_initializers, 1u);
}

TEST(OnnxReader, SubgraphNodesCountTowardTheNodeCap) {
  onnx::ModelProto m = test::tiny_onnx_model();
  const auto main_nodes = static_cast<uint64_t>(m.graph().node_size());
  onnx::NodeProto* n = m.mutable_graph()->add_node();
  n->set_op_type("If");
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("then_branch");
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  for (int i = 0; i < 3; ++i) a->mutable_g()->add_node()->set_op_type("Identity");
  OnnxLimits limits;
  limits.max_nodes = main_nodes + 1 + 3;  // exactly the nodes there are: read
  EXPECT_EQ(read_bytes(m.SerializeAsString(), {}, limits).subgraph_nodes.size(), 3u);
  limits.max_nodes = main_nodes + 1 + 2;
  std::string why;
  EXPECT_EQ(kind_of(m.SerializeAsString(), {}, limits, &why), ErrorKind::Limit);
  EXPECT_NE(why.find("nodes with those of its subgraphs"), std::string::npos) << why;
}

TEST(OnnxCheckpoint, ExternalDataThroughASymlinkOutOfTheDirectoryIsUnsafe) {
  test::TempDir tmp;
  fs::create_directories(tmp / "model");
  onnx::ModelProto m = test::tiny_onnx_model();
  test::make_weight_external(m, "weights.bin", "0", "24", tmp / "outside.bin");
  test::write_onnx(tmp / "model" / "model.onnx", m);
  fs::create_symlink(tmp / "outside.bin", tmp / "model" / "weights.bin");
  try {
    read_checkpoint(locate_local_model((tmp / "model").string()));
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsafe) << e.what();
  }
  // The same file inside the directory is read.
  fs::remove(tmp / "model" / "weights.bin");
  fs::rename(tmp / "outside.bin", tmp / "model" / "weights.bin");
  const Checkpoint ck = read_checkpoint(locate_local_model((tmp / "model").string()));
  ASSERT_EQ(ck.files.size(), 2u);
  EXPECT_EQ(ck.files[1].name, "weights.bin");
  EXPECT_EQ(ck.files[1].tensors.size(), 1u);
}

TEST(OnnxCheckpoint, ADirectoryWithTwoModelsAsksWhichOne) {
  test::TempDir tmp;
  test::write_onnx(tmp / "encoder_model.onnx", test::tiny_onnx_model());
  test::write_onnx(tmp / "decoder_model.onnx", test::tiny_onnx_model());
  try {
    locate_local_model(tmp.path().string());
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("decoder_model.onnx, encoder_model.onnx"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(locate_local_model((tmp / "decoder_model.onnx").string()).format, CheckpointFormat::Onnx);
}

}  // namespace
}  // namespace ma
