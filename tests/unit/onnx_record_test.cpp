// The architecture record of an ONNX model without config.json: from genai_config.json when the export has
// one, else from the graph (embedding shape, the values where projections split into heads). The truth is
// written by hand here; the GPT-2 fixture's own config.json (../shared) checks the graph reading on a real
// torch.onnx export.
#include "model/onnx_record.h"

#include <gtest/gtest.h>

#include <map>

#include "analysis/parameter_counts.h"
#include "analyzed_model.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "onnx_test_models.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// A value of the graph with a fixed shape ("batch" symbolic first), as shape inference leaves it.
void add_value(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims) {
  auto* v = m.mutable_graph()->add_value_info();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param("batch");
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

void add_weight(onnx::ModelProto& m, const std::string& name, int64_t rows, int64_t cols) {
  onnx::TensorProto* e = m.mutable_graph()->add_initializer();
  e->set_name(name);
  e->set_data_type(onnx::TensorProto_DataType_FLOAT);
  e->add_dims(rows);
  e->add_dims(cols);
  e->set_raw_data(std::string(static_cast<size_t>(rows * cols * 4), '\0'));
}

void add_embedding(onnx::ModelProto& m, int64_t vocab, int64_t hidden) {
  add_weight(m, "model.embed_tokens.weight", vocab, hidden);
}

using test::inventory_of;

TEST(OnnxRecord, HeadsAndKeyValueHeadsFromTheValuesThatSplitProjections) {
  test::TempDir tmp;
  onnx::ModelProto m = test::tiny_onnx_model();
  add_embedding(m, 100, 128);
  add_value(m, "q_heads", {7, 8, 16});  // [batch, seq 7, 8 heads, 16]
  add_value(m, "q_t", {8, 7, 16});      // transposed
  add_value(m, "k_heads", {7, 2, 16});  // 2 key/value heads of the same size
  add_value(m, "v_heads", {7, 2, 16});
  add_value(m, "scores", {8, 7, 7});  // [batch, heads, seq, seq]: no vote (7 < 8)
  test::write_onnx(tmp / "model.onnx", m);
  const Inventory inv = inventory_of(tmp.path());
  EXPECT_EQ(inv.arch.hidden_size, 128u);
  EXPECT_EQ(inv.arch.vocab_size, 100u);
  EXPECT_EQ(inv.arch.num_attention_heads, 8u);
  EXPECT_EQ(inv.arch.num_key_value_heads, 2u);
  EXPECT_EQ(inv.arch.head_dim, 16u);
}

TEST(OnnxRecord, GenaiConfigStatesTheDecoder) {
  test::TempDir tmp;
  onnx::ModelProto m = test::tiny_onnx_model();
  add_embedding(m, 100, 128);
  add_weight(m, "model.layers.0.self_attn.q_proj.weight", 128, 128);
  add_value(m, "q_heads", {7, 8, 16});  // the graph would say 8 heads; the config wins
  test::write_onnx(tmp / "model.onnx", m);
  test::write_file(tmp / "genai_config.json", R"({"model": {"type": "llama", "context_length": 4096,
    "vocab_size": 100, "decoder": {"hidden_size": 128, "num_attention_heads": 4, "num_key_value_heads": 1,
    "head_size": 32, "num_hidden_layers": 1}}})");
  const Inventory inv = inventory_of(tmp.path());
  EXPECT_EQ(inv.arch.model_type, "llama");
  EXPECT_EQ(inv.arch.num_attention_heads, 4u);
  EXPECT_EQ(inv.arch.num_key_value_heads, 1u);
  EXPECT_EQ(inv.arch.head_dim, 32u);
  EXPECT_EQ(inv.arch.max_position_embeddings, 4096u);
  ASSERT_FALSE(inv.arch.layers().empty());
  EXPECT_EQ(inv.arch.layers()[0].attention.kind, AttentionKind::Mqa);
}

TEST(OnnxRecord, WithoutAnEmbeddingTheDimensionsAreSaidToBeUnknown) {
  test::TempDir tmp;
  test::write_onnx(tmp / "model.onnx", test::tiny_onnx_model());
  const Inventory inv = inventory_of(tmp.path());
  EXPECT_EQ(inv.arch.hidden_size, 0u);
  bool said = false;
  for (const std::string& n : inv.notes)
    said = said || n.find("hidden size and vocabulary are not known") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(OnnxRecord, Gpt2ExportMatchesTheConfigItWasExportedFrom) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  const json::Document cfg = test::parse_json_file(*data / "fixtures/tiny-gpt2/config.json");
  const Inventory inv = inventory_of(*data / "fixtures/tiny-gpt2-onnx");
  EXPECT_EQ(inv.arch.hidden_size, *cfg.root().find("n_embd")->as_uint());
  EXPECT_EQ(inv.arch.num_attention_heads, *cfg.root().find("n_head")->as_uint());
  EXPECT_EQ(inv.arch.vocab_size, *cfg.root().find("vocab_size")->as_uint());
  EXPECT_EQ(inv.arch.num_layers, *cfg.root().find("n_layer")->as_uint());
  EXPECT_EQ(inv.arch.intermediate_size,
            4 * *cfg.root().find("n_embd")->as_uint());  // n_inner null: 4 x n_embd
  ASSERT_TRUE(cfg.root().find("n_inner")->is_null());
  // The export folded the position lookup into "embedding_1" [1, 8, 64]: a position embedding's rows, not the
  // token embedding (which GPT-2 ties to the head), and GPT-2's positions are learned.
  for (const InventoryTensor& t : inv.tensors) {
    if (t.name == "embedding_1") {
      EXPECT_EQ(t.placement.role, "position-embedding");
    }
  }
  // The token table the graph's Gather reads is stored as lm_head.weight (tied): an embedding, as
  // exclude_embeddings counts it, beside the folded position rows: 512 x 64 + 8 x 64.
  const ParameterCounts c = count_parameters(inv);
  EXPECT_EQ(c.embedding, 512u * 64 + 8 * 64);
  EXPECT_EQ(c.embedding + c.non_embedding, c.total);
}

// A token embedding is a [vocab, hidden] table: an "embedding" initializer of another rank is a folded lookup
// of fixed indices, a position embedding's rows; a 2-D one keeps its role.
TEST(OnnxRecord, AFoldedLookupIsAPositionEmbeddingsRows) {
  test::TempDir tmp;
  onnx::ModelProto m = test::tiny_onnx_model();
  add_embedding(m, 100, 16);
  onnx::TensorProto* folded = m.mutable_graph()->add_initializer();
  folded->set_name("embedding_1");
  folded->set_data_type(onnx::TensorProto_DataType_FLOAT);
  for (int64_t d : {1, 8, 16}) folded->add_dims(d);
  folded->set_raw_data(std::string(8 * 16 * 4, '\0'));
  test::write_onnx(tmp / "model.onnx", m);
  const Inventory inv = inventory_of(tmp.path());
  std::map<std::string, std::string> roles;
  for (const InventoryTensor& t : inv.tensors) roles[t.name] = t.placement.role;
  EXPECT_EQ(roles["embedding_1"], "position-embedding");
  EXPECT_EQ(roles["model.embed_tokens.weight"], "token-embedding");
  EXPECT_EQ(inv.arch.vocab_size, 100u);
}

}  // namespace
}  // namespace ma
