// xLSTM (model/families/xlstm.cpp): mLSTM blocks with a matrix memory per head. Counted on NX-AI/xLSTM-7b's
// config against its float32 shards and the closed form of transformers' native classes (the reference
// counter of this work, instantiated at full size).
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory_kv.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// NX-AI/xLSTM-7b's config.json, the fields that shape tensors: embedding_dim and num_blocks, where
// hidden_size and num_hidden_layers keep their defaults (the same 4,096 and 32 here).
const std::string kXlstm7b =
    R"({"model_type":"xlstm","architectures":["xLSTMForCausalLM"],"embedding_dim":4096,
    "num_blocks":32,"num_heads":8,"qk_dim_factor":0.5,"v_dim_factor":1.0,"ffn_proj_factor":2.667,
    "ffn_round_up_to_multiple_of":64,"use_bias":false,"vocab_size":50304,"tie_word_embeddings":false,
    "weight_mode":"single"})";

// A block: q and k of 2,048, v and the output gate of 4,096, an input and a forget gate of one unit a head
// with biases, the per-head norm, the output projection, a gated feed-forward of 4,096 x 2.667 rounded up
// to 10,944, and two norms. Its six float32 shards: 4.99, 4.97, 4.84, 4.84, 4.84 and 2.98 GB.
TEST(Xlstm, CountsXlstm7b) {
  const uint64_t h = 4096, qk = 2048, v = 4096, heads = 8, up = 10944;
  const uint64_t block = 2 * qk * h + 2 * v * h + 2 * (heads * h + heads) + v + h * v + 3 * up * h + 2 * h;
  EXPECT_EQ(block, 201'666'576u);
  const uint64_t total = 50304 * h + 32 * block + h + 50304 * h;
  EXPECT_EQ(parameters_of(kXlstm7b), total);
  EXPECT_EQ(total, 6'865'424'896u);
  EXPECT_NEAR(4.0 * static_cast<double>(total) / 1e9, 4.99 + 4.97 + 4.84 + 4.84 + 4.84 + 2.98, 0.03);
  const ModelTemplate t = template_of(kXlstm7b);
  EXPECT_EQ(find_tensor(t, "backbone.blocks.31.mlstm_layer.igate_preact.bias")->shape, Shape({8}));
  EXPECT_EQ(find_tensor(t, "backbone.blocks.0.ffn.proj_up_gate.weight")->shape, Shape({up, h}));
  EXPECT_EQ(place_tensor("backbone.blocks.3.mlstm_layer.ogate_preact.weight").block, Block::Mlstm);
  EXPECT_EQ(place_tensor("backbone.blocks.3.ffn.proj_down.weight").block, Block::Mlp);
  EXPECT_EQ(t.arch.layers()[0].mixer, Mixer::Mlstm);
  // The fused weight mode stores the same values in fewer tensors.
  const ModelTemplate fused = template_of(replaced(kXlstm7b, R"("single")", R"("fused")"));
  EXPECT_EQ(parameters_of(replaced(kXlstm7b, R"("single")", R"("fused")")), total);
  EXPECT_EQ(find_tensor(fused, "backbone.blocks.0.mlstm_layer.qkv_opreact.weight")->shape,
            Shape({2 * qk + 2 * v, h}));
}

// transformers 5's xLSTMForCausalLM declares no tied weights: its head is its own whatever the config says.
// A small 12-block configuration whose harness counts 126,901,952 (transformers 4's tied count, the
// embedding used as the head) builds that many as xLSTMModel and one head more as xLSTMForCausalLM.
TEST(Xlstm, NeverTiesItsHead) {
  const std::string small = R"({"model_type":"xlstm","architectures":["xLSTMForCausalLM"],"vocab_size":65536,
      "embedding_dim":736,"hidden_size":736,"num_blocks":12,"num_hidden_layers":12,"num_heads":4,
      "tie_word_embeddings":true})";
  EXPECT_EQ(parameters_of(replaced(small, "xLSTMForCausalLM", "xLSTMModel")), 126'901'952u);
  EXPECT_EQ(parameters_of(small), 126'901'952u + 65536 * 736);
  expect_reads_cleanly(R"({"model_type":"xlstm","vocab_size":40,"hidden_size":64,"num_blocks":2,
      "num_heads":2,"use_bias":true})");
}

// Per block per sequence: 8 heads of a 256 x 512 memory, a 256-wide normaliser and a maximum, in the
// model's dtype: 67,240,448 bytes in bfloat16, nothing per token.
TEST(Xlstm, CachesAMatrixMemoryPerHead) {
  const KvCachePlan kv = plan_kv_cache(template_of(kXlstm7b).arch, DType::BF16, DType::BF16, 0);
  EXPECT_EQ(kv.per_token, 0u);
  EXPECT_EQ(kv.state_per_sequence, 67'240'448u);
  EXPECT_NE(kv.convention.find("mLSTM"), std::string::npos);
}

TEST(Xlstm, RefusesWhatCannotBeBuilt) {
  EXPECT_EQ(refusal_of(replaced(kXlstm7b, R"("single")", R"("double")")).field, "weight_mode");
  EXPECT_EQ(refusal_of(replaced(kXlstm7b, R"("qk_dim_factor":0.5)", R"("qk_dim_factor":0)")).field,
            "qk_dim_factor");
  EXPECT_EQ(refusal_of(replaced(kXlstm7b, R"("num_blocks":32)", R"("num_blocks":100000)")).field,
            "num_blocks");
  EXPECT_EQ(refusal_of(replaced(kXlstm7b, "xLSTMForCausalLM", "xLSTMForSequenceClassification")).kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
