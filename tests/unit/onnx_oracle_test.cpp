// ONNX models against the onnx package itself. tests/oracle/onnx_models.py (Debian's python3-onnx) writes
// five small models — module-path node names with numbered layers, the same with external data in a
// subdirectory, initializers in protobuf's typed fields, QDQ / MatMulNBits / If precision markers, and a
// merged decoder whose layers lie inside an If — and says what onnx reads from each: nodes and op types
// (every subgraph's), opsets, inputs and outputs, every initializer's type, dims, location and bytes, and
// every edge's shape from onnx.shape_inference.infer_shapes. Our reader must find the same, byte for byte.
// The fixture tiny-gpt2-onnx (torch.onnx export, ../shared) is checked against its EXPECTED.json. Without
// /usr/bin/python3 with onnx, or without ../shared, the tests skip and say why.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/onnx_graph.h"
#include "core/dtype.h"
#include "formats/checkpoint.h"
#include "formats/model_files.h"
#include "io/file_source.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using test::kPython;
constexpr int kNoOnnxPackage = 2;  // the script's exit status without the onnx package

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string type_name(int64_t onnx_type) {
  std::optional<DType> d = dtype_from_onnx(static_cast<int32_t>(onnx_type));
  return d ? std::string(dtype_info(*d).name) : "?";
}

// "[batch, 8]" for a shape as the script writes it (ints, symbols, null for unknown) and as we read it.
std::string shape_text(const json::Value& shape) {
  if (shape.is_null()) return "none";
  std::string out = "[";
  for (const json::Value& d : shape.items())
    out += (out.size() > 1 ? "," : "") + (d.is_string() ? std::string(d.as_string())
                                          : d.is_null() ? "?"
                                                        : std::to_string(*d.as_uint()));
  return out + "]";
}
std::string shape_text(const OnnxValue& v) {
  if (!v.shape) return "none";
  std::string out = "[";
  for (const OnnxDim& d : *v.shape)
    out += (out.size() > 1 ? "," : "") + (d.size             ? std::to_string(*d.size)
                                          : d.symbol.empty() ? "?"
                                                             : d.symbol);
  return out + "]";
}

void expect_values(const json::Value& expected, const std::vector<OnnxValue>& ours, const char* what) {
  std::map<std::string, std::string> want, got;
  for (const json::Value& v : expected.items())
    want[std::string(v.find("name")->as_string())] =
        type_name(*v.find("elem_type")->as_int()) + " " + shape_text(*v.find("shape"));
  for (const OnnxValue& v : ours) got[v.name] = v.elem_type + " " + shape_text(v);
  EXPECT_EQ(want, got) << what;
}

class OnnxOracle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(kPython)) {
      skip_reason_ = std::string(kPython) + " is not installed";
      return;
    }
    dir_ = std::make_unique<test::TempDir>();
    const test::CommandResult r = test::run_shell(
        std::string(kPython) + " " + test::quoted(fs::path(MA_SOURCE_DIR) / "tests/oracle/onnx_models.py") +
        " " + test::quoted(dir_->path()));
    if (r.exit_code == kNoOnnxPackage) {
      skip_reason_ = std::string(kPython) + " has no onnx package (Debian: python3-onnx): " + r.err;
      return;
    }
    if (r.exit_code != 0) {
      failure_ = "oracle script failed (" + std::to_string(r.exit_code) + "): " + r.err;
      return;
    }
    expected_ = std::make_unique<json::Document>(test::parse_json_file(dir_->path() / "expected.json"));
  }
  static void TearDownTestSuite() {
    expected_.reset();
    dir_.reset();
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(failure_.empty()) << failure_;
  }

  static const json::Value& expected(const std::string& model) { return *expected_->root().find(model); }
  static fs::path model_path(const std::string& model) { return dir_->path() / model / "model.onnx"; }

  static std::string skip_reason_, failure_;
  static std::unique_ptr<test::TempDir> dir_;
  static std::unique_ptr<json::Document> expected_;
};

std::string OnnxOracle::skip_reason_, OnnxOracle::failure_;
std::unique_ptr<test::TempDir> OnnxOracle::dir_;
std::unique_ptr<json::Document> OnnxOracle::expected_;

class OnnxOracleModels : public OnnxOracle, public ::testing::WithParamInterface<std::string> {};

TEST_P(OnnxOracleModels, GraphIsWhatOnnxReads) {
  const json::Value& want = expected(GetParam());
  const Checkpoint ck = read_checkpoint(locate_local_model(model_path(GetParam()).string()));
  ASSERT_EQ(ck.format, "onnx");
  ASSERT_TRUE(ck.onnx);
  const OnnxGraphSummary g = summarize_onnx_graph(*ck.onnx, ck);
  EXPECT_EQ(g.nodes, *want.find("nodes")->as_uint());
  EXPECT_EQ(g.subgraph_nodes, *want.find("subgraph_nodes")->as_uint());
  EXPECT_EQ(g.subgraph_initializers, *want.find("subgraph_initializers")->as_uint());
  std::map<std::string, uint64_t> want_ops, got_ops;
  for (const auto& [op, count] : want.find("ops")->members()) want_ops[std::string(op)] = *count.as_uint();
  for (const OnnxOpCount& op : g.ops) got_ops[op.op_type] = op.count;
  EXPECT_EQ(want_ops, got_ops);
  std::vector<std::pair<std::string, int64_t>> want_opsets;
  for (const json::Value& o : want.find("opsets")->items())
    want_opsets.emplace_back(o.items().at(0).as_string(), *o.items().at(1).as_int());
  EXPECT_EQ(want_opsets, g.opsets);
  expect_values(*want.find("inputs"), g.inputs, "inputs");
  expect_values(*want.find("outputs"), g.outputs, "outputs");
  expect_values(*want.find("edges"), g.edges, "inferred edges");
}

TEST_P(OnnxOracleModels, InitializersAreWhereOnnxPutTheirBytes) {
  const json::Value& want = expected(GetParam());
  const fs::path path = model_path(GetParam());
  const Checkpoint ck = read_checkpoint(locate_local_model(path.string()));
  std::map<std::string, const StoredTensor*> ours;
  for (const CheckpointFile& f : ck.files)
    for (const StoredTensor& t : f.tensors) ours[t.name] = &t;
  ASSERT_EQ(ours.size(), want.find("initializers")->items().size());
  for (const json::Value& w : want.find("initializers")->items()) {
    const std::string name(w.find("name")->as_string());
    SCOPED_TRACE(name);
    ASSERT_TRUE(ours.count(name));
    const StoredTensor& t = *ours[name];
    EXPECT_EQ(type_name(*w.find("data_type")->as_int()), dtype_info(t.dtype).name);
    Shape dims;
    for (const json::Value& d : w.find("dims")->items()) dims.push_back(*d.as_uint());
    EXPECT_EQ(dims, t.shape);
    EXPECT_EQ(t.bytes(), *w.find("nbytes")->as_uint());
    const json::Value* location = w.find("location");
    const std::string file = ck.files[t.file_index].name;
    EXPECT_EQ(file, location->is_null() ? std::string("model.onnx") : std::string(location->as_string()));
    const json::Value* bytes = w.find("bytes_hex");
    EXPECT_EQ(t.encoded, bytes->is_null()) << "varint-encoded values have no byte range";
    if (bytes->is_null()) continue;
    std::string data;
    FileSource(path.parent_path() / file).read_exact(t.data_begin, t.bytes(), data);
    EXPECT_EQ(hex(data), bytes->as_string());
  }
}

INSTANTIATE_TEST_SUITE_P(Written, OnnxOracleModels,
                         ::testing::Values("mlp", "mlp_external", "typed", "quant", "merged"),
                         test::ParamName());

TEST_F(OnnxOracle, LayersFollowModulePathNodeNames) {
  const Checkpoint ck = read_checkpoint(locate_local_model(model_path("mlp").string()));
  const OnnxGraphSummary g = summarize_onnx_graph(*ck.onnx, ck);
  EXPECT_EQ(g.layer_evidence, "node names");
  ASSERT_EQ(g.layers.size(), 3u);
  // Each layer: its five named nodes and its three weights (8x16 + 16x8 f32, 8 f16); the Reshape and its
  // shape constant lie outside the layers.
  for (uint32_t l = 0; l < 2; ++l) {
    EXPECT_EQ(g.layers[l].layer, l);
    EXPECT_EQ(g.layers[l].nodes, 5u);
    EXPECT_EQ(g.layers[l].initializers, 3u);
    EXPECT_EQ(g.layers[l].weight_bytes, (8u * 16 + 16 * 8) * 4 + 8 * 2);
  }
  EXPECT_FALSE(g.layers[2].layer);
  EXPECT_EQ(g.layers[2].nodes, 1u);
  EXPECT_EQ(g.layers[2].weight_bytes, 3u * 8);
  // The longest chain: MatMul, Relu, MatMul, Mul per layer (each Cast reads only its weight), then Reshape.
  EXPECT_EQ(g.depth, 9u);
}

TEST_F(OnnxOracle, PrecisionNamesQdqAndMatMulNBits) {
  const Checkpoint ck = read_checkpoint(locate_local_model(model_path("quant").string()));
  const OnnxGraphSummary g = summarize_onnx_graph(*ck.onnx, ck);
  std::map<std::string, OnnxPrecision> by_kind;
  for (const OnnxPrecision& p : g.precision) by_kind[p.kind + " " + p.dtype] = p;
  ASSERT_TRUE(by_kind.count("QDQ I8"));
  EXPECT_EQ(by_kind["QDQ I8"].nodes, 1u);
  ASSERT_TRUE(by_kind.count("MatMulNBits "));
  EXPECT_EQ(by_kind["MatMulNBits "].bits, 4);
  EXPECT_EQ(by_kind["MatMulNBits "].block_size, 32);
  EXPECT_EQ(by_kind["MatMulNBits "].elements, 64u * 16);  // K x N logical weights in 512 packed bytes
  EXPECT_EQ(by_kind["weights U8"].bytes, 512u);
}

// A merged decoder keeps every layer in the two bodies of one If: the layers, the op histogram and the
// MatMulNBits precision come from there, as the onnx package finds them walking every subgraph.
TEST_F(OnnxOracle, AMergedDecodersLayersAreFoundInsideItsIf) {
  const json::Value& want = expected("merged");
  const Checkpoint ck = read_checkpoint(locate_local_model(model_path("merged").string()));
  const OnnxGraphSummary g = summarize_onnx_graph(*ck.onnx, ck);
  EXPECT_EQ(g.nodes, 1u);
  EXPECT_EQ(g.layer_evidence, "node names");
  std::map<std::string, uint64_t> want_layers, got_layers;
  for (const auto& [layer, count] : want.find("layer_nodes")->members())
    want_layers[std::string(layer)] = *count.as_uint();
  for (const OnnxLayerSlice& l : g.layers)
    if (l.layer) got_layers[std::to_string(*l.layer)] = l.nodes;
  EXPECT_EQ(want_layers, got_layers);
  ASSERT_EQ(want_layers.size(), 2u);
  std::map<std::string, OnnxPrecision> by_kind;
  for (const OnnxPrecision& p : g.precision) by_kind[p.kind] = p;
  ASSERT_TRUE(by_kind.count("MatMulNBits"));
  EXPECT_EQ(by_kind["MatMulNBits"].nodes, *want.find("ops")->find("com.microsoft.MatMulNBits")->as_uint());
  EXPECT_EQ(by_kind["MatMulNBits"].elements, 4u * 8 * 8);  // K x N of each of the four
  EXPECT_NE(std::find(ck.notes.begin(), ck.notes.end(),
                      "2 initializers inside If / Loop / Scan bodies are not read (counted in no figure)"),
            ck.notes.end());
}

TEST(OnnxFixture, TorchExportOfGpt2MatchesTheOnnxPackage) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  const fs::path dir = *data / "fixtures/tiny-gpt2-onnx";
  const json::Document want = test::parse_json_file(dir / "EXPECTED.json");
  const Checkpoint ck = read_checkpoint(locate_local_model(dir.string()));
  const OnnxGraphSummary g = summarize_onnx_graph(*ck.onnx, ck);
  EXPECT_EQ(g.nodes, *want.root().find("nodes")->as_uint());
  std::map<std::string, uint64_t> want_ops, got_ops;
  for (const auto& [op, count] : want.root().find("ops")->members())
    want_ops[std::string(op)] = *count.as_uint();
  for (const OnnxOpCount& op : g.ops) got_ops[op.op_type] = op.count;
  EXPECT_EQ(want_ops, got_ops);
  EXPECT_EQ(g.initializers, *want.root().find("initializers")->as_uint());
  EXPECT_EQ(g.initializer_elements, *want.root().find("initializer_elems")->as_uint());
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.inputs[0].name, want.root().find("inputs")->items().at(0).as_string());
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.outputs[0].name, want.root().find("outputs")->items().at(0).as_string());
  ASSERT_EQ(g.opsets.size(), 1u);
  EXPECT_EQ(g.opsets[0].second, *want.root().find("opset")->items().at(0).items().at(1).as_int());
  // External data: one file beside the model, every byte of it claimed by exactly the initializers.
  ASSERT_EQ(ck.files.size(), 2u);
  EXPECT_EQ(ck.files[1].name, "model.onnx.data");
  EXPECT_EQ(g.edges_with_shape, g.edges.size());
  EXPECT_TRUE(g.shape_inference_error.empty()) << g.shape_inference_error;
}

}  // namespace
}  // namespace ma
