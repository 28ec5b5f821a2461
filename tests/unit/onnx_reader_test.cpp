// The ONNX reader on models built with ONNX's own protobuf classes and broken one field at a time: every
// bad input is refused with its error kind (the exit code) naming the field, none crashes, and nothing is
// read outside the model's directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>

#include "analysis/onnx_graph.h"
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

// The model's weight at `offset` of `location`, and a second initializer "second" at `second_offset` of
// `second_location`: each 24 bytes of external data.
std::string two_external_initializers(const std::string& location, const std::string& second_location,
                                      const std::string& second_offset) {
  onnx::ModelProto m = test::tiny_onnx_model();
  test::make_weight_external(m, location, "0", "24", {});
  onnx::TensorProto* second = m.mutable_graph()->add_initializer();
  *second = m.graph().initializer(0);
  second->set_name("second");
  for (onnx::StringStringEntryProto& kv : *second->mutable_external_data()) {
    if (kv.key() == "location") kv.set_value(second_location);
    if (kv.key() == "offset") kv.set_value(second_offset);
  }
  return m.SerializeAsString();
}

// An exporter gives every initializer bytes of its own: two whose external ranges overlap (2,000 naming the
// same 4 MB made a 4 MB file 2 billion parameters, each read again by stats) are refused, naming both with
// their ranges, however the location spells the file. Side by side they are read, from one file.
TEST(OnnxReader, InitializersWhoseExternalBytesOverlapAreRefused) {
  for (const char* second_location : {"w.bin", "./w.bin"}) {
    std::string message;
    EXPECT_EQ(kind_of(two_external_initializers("w.bin", second_location, "8"), sized(32), {}, &message),
              ErrorKind::Malformed)
        << second_location;
    EXPECT_NE(message.find("initializer 'second': its external bytes [8, 32) in w.bin overlap those of "
                           "initializer 'model.layers.0.mlp.up_proj.weight' [0, 24)"),
              std::string::npos)
        << message;
  }
  const OnnxModel ok = read_bytes(two_external_initializers("w.bin", "./w.bin", "24"), sized(48));
  ASSERT_EQ(ok.initializers.size(), 2u);
  EXPECT_EQ(ok.external_files, std::vector<std::string>{"w.bin"});
  EXPECT_EQ(ok.initializers[1].file_index, 1u);
  EXPECT_EQ(ok.initializers[1].data_begin, 24u);
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
  // onnx.checker's one value field, of the element type's kind: raw_data beside six float_data values (read
  // by some readers and not others), float values in int64_data, none at all.
  const std::pair<std::function<void(onnx::TensorProto&)>, std::string> fields[] = {
      {[](onnx::TensorProto& t) {
         for (int i = 0; i < 6; ++i) t.add_float_data(7.0f);
       },
       "holds values in float_data and raw_data: a tensor's values are in one field"},
      {[](onnx::TensorProto& t) {
         t.clear_raw_data();
         for (int i = 0; i < 6; ++i) t.add_int64_data(1);
       },
       "values of element type F32 belong in float_data, not int64_data"},
      {[](onnx::TensorProto& t) { t.clear_raw_data(); }, "holds no values (no raw_data, no typed field)"}};
  for (const auto& field : fields) {  // not a structured binding: clang 14 captures none in a lambda
    std::string why;
    EXPECT_EQ(kind_of(broken([&](onnx::TensorProto& t, auto&) { field.first(t); }), {}, {}, &why),
              ErrorKind::Malformed);
    EXPECT_NE(why.find("initializer 'model.layers.0.mlp.up_proj.weight': " + field.second), std::string::npos)
        << why;
  }
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

// The body of a new If node added to the model's graph.
onnx::GraphProto* then_branch(onnx::ModelProto& m) {
  onnx::NodeProto* n = m.mutable_graph()->add_node();
  n->set_op_type("If");
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("then_branch");
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  return a->mutable_g();
}

// Every other string `graph --json` writes is held to the same rule: the producer, the graph's name, opset
// domains, dimension names, and the op types and names of nodes inside subgraph bodies.
TEST(OnnxReader, EveryStringTheGraphReportWritesMustBePlainText) {
  const std::string bad = "p\xff\"\x1b[2J";
  auto in_subgraph = [](onnx::ModelProto& m) { return then_branch(m)->add_node(); };
  const std::vector<std::function<void(onnx::ModelProto&)>> edits = {
      [&](onnx::ModelProto& m) { m.set_producer_name(bad); },
      [&](onnx::ModelProto& m) { m.set_producer_version(bad); },
      [&](onnx::ModelProto& m) { m.mutable_graph()->set_name(bad); },
      [&](onnx::ModelProto& m) {
        auto* o = m.add_opset_import();
        o->set_domain(bad);
        o->set_version(1);
      },
      [&](onnx::ModelProto& m) {
        m.mutable_graph()
            ->mutable_input(0)
            ->mutable_type()
            ->mutable_tensor_type()
            ->mutable_shape()
            ->mutable_dim(0)
            ->set_dim_param(bad);
      },
      [&](onnx::ModelProto& m) { in_subgraph(m)->set_op_type(bad); },
      [&](onnx::ModelProto& m) { in_subgraph(m)->set_name(bad); },
      [&](onnx::ModelProto& m) { in_subgraph(m)->set_domain(bad); },
      [&](onnx::ModelProto& m) { in_subgraph(m)->add_output(bad); },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    onnx::ModelProto m = test::tiny_onnx_model();
    edits[i](m);
    std::string why;
    EXPECT_EQ(kind_of(m.SerializeAsString(), {}, {}, &why), ErrorKind::Malformed) << i;
    EXPECT_NE(why.find("not UTF-8 text without control characters"), std::string::npos) << i << ": " << why;
  }
  // Metadata values are printed nowhere, and may hold line breaks (a JSON document).
  onnx::ModelProto m = test::tiny_onnx_model();
  auto* kv = m.add_metadata_props();
  kv->set_key("notes");
  kv->set_value("line one\nline two");
  EXPECT_EQ(read_bytes(m.SerializeAsString()).metadata.size(), 1u);
}

// Model-local functions in domain "local": `body` is each function's list of (op, callee-or-empty) nodes;
// main calls the first. Every node reads "a" (or the previous node's output) and writes the next value, so
// each body is a valid chain from its input "a" to its output "b".
onnx::ModelProto with_functions(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& functions) {
  onnx::ModelProto m = test::tiny_onnx_model();
  auto* local = m.add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  for (const auto& [name, calls] : functions) {
    onnx::FunctionProto* f = m.add_functions();
    f->set_domain("local");
    f->set_name(name);
    f->add_input("a");
    f->add_output("b");
    *f->mutable_opset_import() = m.opset_import();
    std::string in = "a";
    for (size_t i = 0; i < calls.size(); ++i) {
      onnx::NodeProto* n = f->add_node();
      const bool relu = calls[i].empty();
      n->set_op_type(relu ? "Relu" : calls[i]);
      if (!relu) n->set_domain("local");
      n->add_input(in);
      in = i + 1 == calls.size() ? "b" : "t" + std::to_string(i);
      n->add_output(in);
    }
  }
  // y = F(x @ W) in place of y = x @ W.
  onnx::GraphProto* g = m.mutable_graph();
  g->mutable_node(0)->set_output(0, "m");
  onnx::NodeProto* call = g->add_node();
  call->set_op_type(functions.front().first);
  call->set_domain("local");
  call->add_input("m");
  call->add_output("y");
  return m;
}

// ONNX's inference walks a local function's body at each call: one that calls itself recursed until the
// stack ran out (a crash). A cycle of calls is refused, naming it.
TEST(OnnxReader, FunctionsThatCallThemselvesAreMalformed) {
  std::string why;
  EXPECT_EQ(kind_of(with_functions({{"F", {"F"}}}).SerializeAsString(), {}, {}, &why), ErrorKind::Malformed);
  EXPECT_NE(why.find("function 'local:F': calls itself"), std::string::npos) << why;
  EXPECT_EQ(kind_of(with_functions({{"F", {"", "G"}}, {"G", {"F"}}}).SerializeAsString(), {}, {}, &why),
            ErrorKind::Malformed);
  EXPECT_NE(why.find("local:F -> local:G -> local:F"), std::string::npos) << why;
  // Two calls of one function are no cycle.
  const OnnxModel ok = read_bytes(with_functions({{"F", {"G", "G"}}, {"G", {""}}}).SerializeAsString());
  EXPECT_EQ(ok.nodes.size(), 2u);
}

// F_k calls F_(k-1) twice: inference walks 2^k bodies, 23 levels (a 2 KB file) 8 million of them, which took
// minutes. The nodes inference would walk count toward the node cap: F0 is one Relu; F1 two calls of it, 2 x
// (1 + 1) = 4; F2 2 x (1 + 4) = 10; F3 2 x (1 + 10) = 22; the main graph's MatMul and call 1 + (1 + 22) = 24.
TEST(OnnxReader, FunctionsExpandedAtEveryCallCountTowardTheNodeCap) {
  std::vector<std::pair<std::string, std::vector<std::string>>> chain;
  auto build = [&](int levels) {
    chain.clear();
    for (int k = levels; k >= 1; --k) {
      const std::string callee = "F" + std::to_string(k - 1);
      chain.push_back({"F" + std::to_string(k), {callee, callee}});
    }
    chain.push_back({"F0", {""}});
    onnx::ModelProto m = with_functions(chain);
    m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
    return m.SerializeAsString();
  };
  OnnxLimits limits;
  limits.max_nodes = 24;
  // Inference runs through the bodies: y = Relu(...(x @ W)) is [batch, 2].
  const OnnxModel ok = read_bytes(build(3), {}, limits);
  ASSERT_EQ(ok.outputs.size(), 1u);
  ASSERT_TRUE(ok.outputs[0].shape);
  ASSERT_EQ(ok.outputs[0].shape->size(), 2u);
  EXPECT_EQ((*ok.outputs[0].shape)[1].size, 2u);
  limits.max_nodes = 23;
  std::string why;
  EXPECT_EQ(kind_of(build(3), {}, limits, &why), ErrorKind::Limit);
  EXPECT_NE(why.find("more than 23 nodes once its local functions are expanded"), std::string::npos) << why;
  EXPECT_EQ(kind_of(build(23), {}, {}, &why), ErrorKind::Limit);
  EXPECT_NE(why.find("more than 4194304 nodes"), std::string::npos) << why;
}

// Each call is a level of inference's recursion, as each subgraph is: a chain of 10,000 calls ran out of
// stack. The levels are capped at 64.
TEST(OnnxReader, CallsNestedBeyondTheCapAreALimit) {
  auto chain = [](int levels) {
    std::vector<std::pair<std::string, std::vector<std::string>>> functions;
    for (int k = levels; k >= 1; --k)
      functions.push_back({"F" + std::to_string(k), {"F" + std::to_string(k - 1)}});
    functions.push_back({"F0", {""}});
    return with_functions(functions).SerializeAsString();
  };
  // The main graph's call, F60 .. F1, and F0's Relu: 62 levels.
  EXPECT_EQ(read_bytes(chain(60)).nodes.size(), 2u);
  std::string why;
  EXPECT_EQ(kind_of(chain(10000), {}, {}, &why), ErrorKind::Limit);
  EXPECT_NE(why.find("nested deeper than 64 levels"), std::string::npos) << why;
}

// A graph handed to a function as an attribute is inferred wherever the body refers to it: F1 refers to
// its "g" from two If nodes, so the caller's graph of 1,000 nodes is walked twice.
TEST(OnnxReader, GraphsHandedToFunctionsCountAtEachUse) {
  onnx::ModelProto m = with_functions({{"F1", {"", ""}}});
  onnx::FunctionProto* f = m.mutable_functions(0);
  f->add_attribute("g");
  for (int i = 0; i < 2; ++i) {
    onnx::NodeProto* n = f->add_node();
    n->set_op_type("If");
    n->add_input("a");
    n->add_output("r" + std::to_string(i));
    for (const char* branch : {"then_branch", "else_branch"}) {
      onnx::AttributeProto* a = n->add_attribute();
      a->set_name(branch);
      a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
      a->set_ref_attr_name("g");
    }
  }
  onnx::NodeProto* call = m.mutable_graph()->mutable_node(1);
  onnx::AttributeProto* g = call->add_attribute();
  g->set_name("g");
  g->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  for (int i = 0; i < 1000; ++i) g->mutable_g()->add_node()->set_op_type("Identity");
  // MatMul 1, the call 1 + F1's 4 nodes, and the graph at each of F1's four references: 4,006.
  OnnxLimits limits;
  limits.max_nodes = 4006;
  EXPECT_EQ(read_bytes(m.SerializeAsString(), {}, limits).subgraph_nodes.size(), 1000u);
  limits.max_nodes = 4005;
  EXPECT_EQ(kind_of(m.SerializeAsString(), {}, limits), ErrorKind::Limit);
}

// dtype_bytes computes elements x bits: 2^59 F32 elements are 2^64 bits, which wrapped to 0 bytes, so an
// initializer with empty raw_data was read as a 0-byte tensor of 2^59 elements.
TEST(OnnxReader, ElementsWhoseBitsOverflowAreMalformed) {
  for (const auto& [type, elements] : {std::pair{onnx::TensorProto_DataType_FLOAT, int64_t{1} << 59},
                                       std::pair{onnx::TensorProto_DataType_DOUBLE, int64_t{1} << 58}}) {
    onnx::ModelProto m = test::tiny_onnx_model();
    onnx::TensorProto& w = *m.mutable_graph()->mutable_initializer(0);
    w.set_data_type(type);
    w.clear_dims();
    w.add_dims(elements);
    w.set_raw_data("");
    std::string why;
    EXPECT_EQ(kind_of(m.SerializeAsString(), {}, {}, &why), ErrorKind::Malformed) << elements;
    EXPECT_NE(why.find("too many elements"), std::string::npos) << why;
  }
}

// A sparse initializer defines the value its values tensor names, as onnx.checker reads it.
TEST(OnnxReader, ANodeMayReadASparseInitializer) {
  onnx::ModelProto m = test::tiny_onnx_model();
  onnx::SparseTensorProto* sparse = m.mutable_graph()->add_sparse_initializer();
  sparse->add_dims(2);
  onnx::TensorProto* values = sparse->mutable_values();
  values->set_name("sw");
  values->set_data_type(onnx::TensorProto_DataType_FLOAT);
  values->add_dims(1);
  values->add_float_data(1.0f);
  onnx::TensorProto* indices = sparse->mutable_indices();
  indices->set_data_type(onnx::TensorProto_DataType_INT64);
  indices->add_dims(1);
  indices->add_int64_data(1);
  onnx::NodeProto* add = m.mutable_graph()->add_node();
  add->set_op_type("Add");
  add->add_input("y");
  add->add_input("sw");
  add->add_output("z");
  const OnnxModel ok = read_bytes(m.SerializeAsString());
  EXPECT_EQ(ok.sparse_initializers, 1u);
  EXPECT_EQ(ok.nodes.size(), 2u);
}

// A declared shape is as long as a tensor's may be (64 dimensions): 5 million empty dims (2 bytes each on
// disk) took 17 s and 2 GB to infer and print.
TEST(OnnxReader, DeclaredShapesLongerThanATensorsAreMalformed) {
  auto with_rank = [](int rank, auto&& where) {
    onnx::ModelProto m = test::tiny_onnx_model();
    onnx::TensorShapeProto* shape = where(m)->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int i = 0; i < rank; ++i) shape->add_dim()->set_dim_value(1);
    return m.SerializeAsString();
  };
  auto input = [](onnx::ModelProto& m) { return m.mutable_graph()->mutable_input(0); };
  auto output = [](onnx::ModelProto& m) { return m.mutable_graph()->mutable_output(0); };
  auto value_info = [](onnx::ModelProto& m) {
    onnx::ValueInfoProto* v = m.mutable_graph()->add_value_info();
    v->set_name("unused");
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT);
    return v;
  };
  auto in_subgraph = [](onnx::ModelProto& m) {
    onnx::ValueInfoProto* v = then_branch(m)->add_output();
    v->set_name("o");
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT);
    return v;
  };
  std::string why;
  EXPECT_EQ(read_bytes(with_rank(64, input)).inputs[0].shape->size(), 64u);
  EXPECT_EQ(kind_of(with_rank(65, input), {}, {}, &why), ErrorKind::Malformed);
  EXPECT_NE(why.find("value 'x': a shape of 65 dimensions, more than 64"), std::string::npos) << why;
  EXPECT_EQ(kind_of(with_rank(100'000, input)), ErrorKind::Malformed);
  EXPECT_EQ(kind_of(with_rank(65, output)), ErrorKind::Malformed);
  EXPECT_EQ(kind_of(with_rank(65, value_info)), ErrorKind::Malformed);
  EXPECT_EQ(kind_of(with_rank(65, in_subgraph)), ErrorKind::Malformed);
}

// Element type numbers outside ONNX's table (UNDEFINED, 99) break the format; ONNX's own types this program
// holds no dtype for (strings, complex128, 2-bit integers) are unsupported.
TEST(OnnxReader, UndefinedElementTypesAreMalformedAndUnheldOnesUnsupported) {
  auto typed = [](int32_t type) {
    onnx::ModelProto m = test::tiny_onnx_model();
    m.mutable_graph()->mutable_initializer(0)->set_data_type(type);
    return m.SerializeAsString();
  };
  std::string why;
  EXPECT_EQ(kind_of(typed(0), {}, {}, &why), ErrorKind::Malformed);
  EXPECT_EQ(kind_of(typed(99), {}, {}, &why), ErrorKind::Malformed);
  EXPECT_NE(why.find("element type 99 is not one of ONNX's element types"), std::string::npos) << why;
  EXPECT_EQ(kind_of(typed(-1)), ErrorKind::Malformed);
  EXPECT_EQ(kind_of(typed(onnx::TensorProto_DataType_COMPLEX128), {}, {}, &why), ErrorKind::Unsupported);
  EXPECT_NE(why.find("element type COMPLEX128 has no dtype here"), std::string::npos) << why;
  EXPECT_EQ(kind_of(typed(26), {}, {}, &why), ErrorKind::Unsupported);  // INT2, onnx 1.20
  EXPECT_NE(why.find("element type INT2 has no dtype here"), std::string::npos) << why;
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
// names it), not as a broken file, and never a crash; at 2,000 (6,000 levels) too, which a parse retried
// deeper (1,000 levels) called a damaged file. Cut short, the same model is a damaged file.
TEST(OnnxReader, NestingBeyondTheCapIsALimitNotACrash) {
  for (const int ifs : {200, 2000}) {
    SCOPED_TRACE(ifs);
    onnx::ModelProto m = test::tiny_onnx_model();
    onnx::GraphProto* g = m.mutable_graph();
    for (int depth = 0; depth < ifs; ++depth) {
      onnx::NodeProto* n = g->add_node();
      n->set_op_type("If");
      onnx::AttributeProto* a = n->add_attribute();
      a->set_name("then_branch");
      a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
      g = a->mutable_g();
    }
    const std::string bytes = m.SerializeAsString();
    std::string why;
    EXPECT_EQ(kind_of(bytes, {}, {}, &why), ErrorKind::Limit);
    EXPECT_NE(why.find("nested deeper than 64 levels (" + std::to_string(3 * ifs + 1) + ": "),
              std::string::npos)
        << why;
    EXPECT_EQ(kind_of(bytes.substr(0, bytes.size() / 2), {}, {}, &why), ErrorKind::Malformed);
    EXPECT_NE(why.find("not a valid ONNX protobuf"), std::string::npos) << why;
  }
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

// The quantized type of a QDQ node is its quantized operand's: a DequantizeLinear without a zero point reads
// int8 weights as int8 (not the U8 of QuantizeLinear's default), and a graph quantizing weights to I8 and
// activations to U8 shows both. MatMulNBits of 4 and 8 bits show both, and K x N past 64 bits is refused.
TEST(OnnxGraphPrecision, MixedQuantizedTypesAndBitWidthsAreEachShown) {
  test::TempDir tmp;
  onnx::ModelProto m = test::tiny_onnx_model();
  onnx::GraphProto* g = m.mutable_graph();
  auto add_tensor = [&](const std::string& name, int32_t type, const std::string& raw) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    t->set_raw_data(raw);
    return t;
  };
  add_tensor("w_q", onnx::TensorProto_DataType_INT8, std::string(6, '\1'))->add_dims(6);
  add_tensor("scale", onnx::TensorProto_DataType_FLOAT, std::string(4, '\0'));
  add_tensor("a_zp", onnx::TensorProto_DataType_UINT8, std::string(1, '\x80'));
  auto add_node = [&](const std::string& op, std::vector<std::string> in, const std::string& out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    for (const std::string& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  };
  add_node("DequantizeLinear", {"w_q", "scale"}, "w_dq");  // no zero point: I8, its input's type
  add_node("QuantizeLinear", {"y", "scale", "a_zp"}, "y_q");
  add_node("DequantizeLinear", {"y_q", "scale", "a_zp"}, "y_dq");
  auto nbits = [&](int64_t bits, int64_t k, int64_t n) {
    onnx::NodeProto* node = add_node("MatMulNBits", {"y"}, "nb" + std::to_string(g->node_size()));
    node->set_domain("com.microsoft");
    for (const auto& [name, v] :
         {std::pair<std::string, int64_t>{"bits", bits}, {"block_size", 32}, {"K", k}, {"N", n}}) {
      onnx::AttributeProto* a = node->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto_AttributeType_INT);
      a->set_i(v);
    }
  };
  nbits(4, 64, 16);
  nbits(8, 32, 8);
  nbits(4, 64, 16);
  test::write_onnx(tmp / "model.onnx", m);
  {
    const Checkpoint ck = read_checkpoint(locate_local_model((tmp / "model.onnx").string()));
    const OnnxGraphSummary s = summarize_onnx_graph(*ck.onnx, ck);
    std::map<std::string, OnnxPrecision> got;
    for (const OnnxPrecision& p : s.precision) got[p.kind + " " + p.dtype + " " + std::to_string(p.bits)] = p;
    ASSERT_TRUE(got.count("QDQ I8 0"));
    EXPECT_EQ(got["QDQ I8 0"].nodes, 1u);
    ASSERT_TRUE(got.count("QDQ U8 0"));
    EXPECT_EQ(got["QDQ U8 0"].nodes, 2u);
    ASSERT_TRUE(got.count("MatMulNBits  4"));
    EXPECT_EQ(got["MatMulNBits  4"].nodes, 2u);
    EXPECT_EQ(got["MatMulNBits  4"].elements, 2u * 64 * 16);
    ASSERT_TRUE(got.count("MatMulNBits  8"));
    EXPECT_EQ(got["MatMulNBits  8"].nodes, 1u);
    EXPECT_EQ(got["MatMulNBits  8"].elements, 32u * 8);
  }
  nbits(4, int64_t{1} << 32, int64_t{1} << 32);  // 2^64 weights: wrapped to 0
  test::write_onnx(tmp / "model.onnx", m);
  const Checkpoint ck = read_checkpoint(locate_local_model((tmp / "model.onnx").string()));
  try {
    summarize_onnx_graph(*ck.onnx, ck);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Malformed) << e.what();
  }
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

// A location that names the model's directory itself (".") or a link that cannot be followed holds no bytes:
// the open says which, as for any directory or unreadable file, rather than calling it a symbolic link out of
// the directory.
TEST(OnnxCheckpoint, ALocationThatIsNoFileSaysWhatItIs) {
  test::TempDir tmp;
  struct Case {
    const char* location;
    ErrorKind kind;
    const char* says;
  };
  fs::create_symlink("loop.bin", tmp / "loop.bin");
  for (const Case& c : {Case{".", ErrorKind::LocalIO, "is a directory"},
                        Case{"loop.bin", ErrorKind::LocalIO, "Too many levels of symbolic links"}}) {
    onnx::ModelProto m = test::tiny_onnx_model();
    test::make_weight_external(m, c.location, "0", "24", {});
    test::write_onnx(tmp / "model.onnx", m);
    try {
      read_checkpoint(locate_local_model((tmp / "model.onnx").string()));
      ADD_FAILURE() << c.location << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), c.kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("external data '" + std::string(c.location) + "'"),
                std::string::npos)
          << e.what();
      EXPECT_EQ(std::string(e.what()).find("symbolic link)"), std::string::npos) << e.what();
    }
  }
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
