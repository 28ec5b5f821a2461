// Bamba and Falcon-H1 (model/families/mamba2_hybrids.cpp), on configs written here. Falcon-H1's count is
// checked against llama.cpp in hf_twin_llama_oracle_test.cpp, Bamba-9B's against its model page in
// published_sizes_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

std::string small_falcon_h1(const std::string& extra) {
  return R"({"model_type":"falcon_h1","hidden_size":64,"intermediate_size":96,"num_hidden_layers":2,
      "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100,"mamba_d_ssm":128,"mamba_n_heads":8,
      "mamba_d_state":16,"mamba_d_conv":4)" +
         (extra.empty() ? "" : "," + extra) + "}";
}

TEST(Mamba2Hybrids, FalconH1LayersHoldBothMixers) {
  const ModelTemplate t = template_of(small_falcon_h1(""));
  const LayerSpec& l = t.arch.layers()[1];
  EXPECT_EQ(l.mixer, Mixer::Attention);
  EXPECT_EQ(l.parallel, Mixer::Mamba2);
  EXPECT_EQ(l.state.heads, 8u);
  EXPECT_EQ(l.state.head_dim, 16u);  // "auto": mamba_d_ssm / mamba_n_heads
  // in_proj: z and x (2 x 128), B and C (2 x 1 group x 16), one dt per head (8).
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.in_proj.weight")->shape, Shape({296, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.conv1d.weight")->shape, Shape({160, 1, 4}));
  EXPECT_NE(find_tensor(t, "model.layers.0.mamba.conv1d.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.norm.weight"), nullptr);  // mamba_rms_norm: false
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.out_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.0.self_attn.k_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.0.feed_forward.gate_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.0.pre_ff_layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.final_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.norm.weight"), nullptr);
}

TEST(Mamba2Hybrids, FalconH1BiasesFollowTheirOwnFlags) {
  // projectors_bias biases the mixer's out_proj, mamba_proj_bias its in_proj only.
  const ModelTemplate t = template_of(small_falcon_h1(R"("projectors_bias":true,"mamba_rms_norm":true)"));
  EXPECT_NE(find_tensor(t, "model.layers.0.mamba.out_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.in_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.norm.weight")->shape, Shape({128}));
  const ModelTemplate in = template_of(small_falcon_h1(R"("mamba_proj_bias":true)"));
  EXPECT_NE(find_tensor(in, "model.layers.0.mamba.in_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(in, "model.layers.0.mamba.out_proj.bias"), nullptr);
  EXPECT_THROW(template_of(small_falcon_h1(R"("mamba_d_head":10)")), Error);
}

TEST(Mamba2Hybrids, BambaAttendsOnlyWhereAttnLayerIndicesSays) {
  const std::string config = R"({"model_type":"bamba","hidden_size":64,"intermediate_size":96,
      "num_hidden_layers":4,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100,"mamba_n_heads":8,
      "mamba_d_state":16,"attn_layer_indices":[1])";
  const ModelTemplate t = template_of(config + "}");
  std::vector<Mixer> mixers;
  for (const LayerSpec& l : t.arch.layers()) mixers.push_back(l.mixer);
  using enum Mixer;
  EXPECT_EQ(mixers, (std::vector<Mixer>{Mamba2, Attention, Mamba2, Mamba2}));
  // mamba_expand 2: 128 wide, 8 heads of 16 ("auto"); the gated norm always.
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.in_proj.weight")->shape, Shape({296, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.norm.weight")->shape, Shape({128}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.1.self_attn.q_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.1.feed_forward.down_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.final_layernorm.weight"), nullptr);
  EXPECT_THROW(template_of(config + R"(,"attn_layer_indices":[4]})"), Error);
}

}  // namespace
}  // namespace ma::test
