// LFM2, LFM2-MoE and LFM2-VL (model/families/conv_hybrids.cpp): which layers convolve, the MLP width LFM2
// derives, and where each tensor sits, on configs written here. Their counts are checked against llama.cpp
// (hf_twin_llama_oracle_test.cpp) and their model pages (published_sizes_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kSmallLfm2 = R"("hidden_size":64,"num_hidden_layers":4,"num_attention_heads":4,
    "num_key_value_heads":2,"vocab_size":100)";

std::string small_lfm2(const std::string& model_type, const std::string& extra) {
  return "{\"model_type\":\"" + model_type + "\"," + kSmallLfm2 + "," + extra + "}";
}

std::vector<Mixer> mixers_of(const ModelTemplate& t) {
  std::vector<Mixer> m;
  for (const LayerSpec& l : t.arch.layers()) m.push_back(l.mixer);
  return m;
}

TEST(ConvHybrids, Lfm2LayersConvolveWhereTheyDoNotAttend) {
  const ModelTemplate t =
      template_of(small_lfm2("lfm2", R"("intermediate_size":96,"full_attn_idxs":[1,3],"conv_L_cache":3)"));
  using enum Mixer;
  EXPECT_EQ(mixers_of(t), (std::vector<Mixer>{ShortConv, Attention, ShortConv, Attention}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.conv.conv.weight")->shape, Shape({64, 1, 3}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.conv.in_proj.weight")->shape, Shape({192, 64}));
  EXPECT_NE(find_tensor(t, "model.layers.1.self_attn.out_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.1.self_attn.q_layernorm.weight")->shape, Shape({16}));
  EXPECT_NE(find_tensor(t, "model.layers.1.operator_norm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.embedding_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.norm.weight"), nullptr);
  EXPECT_TRUE(t.arch.tie_word_embeddings);
  EXPECT_EQ(t.arch.layers()[0].state.conv_kernel, 3u);
  // layer_types wins over full_attn_idxs; without either every layer attends.
  EXPECT_EQ(mixers_of(template_of(small_lfm2("lfm2", R"("layer_types":["conv","conv","conv","full_attention"],
      "full_attn_idxs":[0])"))),
            (std::vector<Mixer>{ShortConv, ShortConv, ShortConv, Attention}));
  EXPECT_EQ(mixers_of(template_of(small_lfm2("lfm2", R"("intermediate_size":96)"))),
            std::vector<Mixer>(4, Attention));
}

TEST(ConvHybrids, Lfm2MlpWidthIsTwoThirdsRoundedUp) {
  // 2 x 6656 / 3 = 4437, x 1.0, up to a multiple of 256: 4608 (LFM2-350M's block_ff_dim).
  const ModelTemplate t = template_of(small_lfm2("lfm2", R"("block_ff_dim":6656)"));
  EXPECT_EQ(find_tensor(t, "model.layers.0.feed_forward.w1.weight")->shape, Shape({4608, 64}));
  EXPECT_EQ(t.arch.intermediate_size, 4608u);
  // A null multiplier skips the rounding; auto-adjust off keeps the width.
  EXPECT_EQ(
      find_tensor(template_of(small_lfm2("lfm2", R"("block_ff_dim":6656,"block_ffn_dim_multiplier":null)")),
                  "model.layers.0.feed_forward.w1.weight")
          ->shape,
      Shape({4437, 64}));
  EXPECT_EQ(find_tensor(
                template_of(small_lfm2("lfm2", R"("intermediate_size":96,"block_auto_adjust_ff_dim":false)")),
                "model.layers.0.feed_forward.w3.weight")
                ->shape,
            Shape({96, 64}));
}

TEST(ConvHybrids, Lfm2MoeRoutesAfterItsDenseLayers) {
  const ModelTemplate t =
      template_of(small_lfm2("lfm2_moe", R"("intermediate_size":96,"moe_intermediate_size":32,
      "num_experts":8,"num_experts_per_tok":2,"num_dense_layers":1,
      "layer_types":["conv","full_attention","conv","conv"])"));
  EXPECT_EQ(find_tensor(t, "model.layers.0.feed_forward.w1.weight")->shape, Shape({96, 64}));  // not adjusted
  EXPECT_EQ(t.arch.layers()[0].ffn.kind, Ffn::Dense);
  EXPECT_EQ(t.arch.layers()[1].ffn.kind, Ffn::Moe);
  EXPECT_EQ(find_tensor(t, "model.layers.1.feed_forward.gate.weight")->shape, Shape({8, 64}));
  const TemplateTensor* experts = find_tensor(t, "model.layers.1.feed_forward.experts.gate_up_proj");
  ASSERT_NE(experts, nullptr);
  EXPECT_EQ(experts->shape, Shape({8, 64, 64}));
  EXPECT_EQ(experts->per_expert->name(7, 1), "model.layers.1.feed_forward.experts.7.w3.weight");
  EXPECT_EQ(find_tensor(t, "model.layers.1.feed_forward.expert_bias")->kind, TensorKind::Buffer);
  // Lfm2MoeConfig derives no layer types.
  EXPECT_THROW(template_of(small_lfm2("lfm2_moe", R"("num_experts":8,"num_experts_per_tok":2)")), Error);
}

TEST(ConvHybrids, CheckpointNamesPlaceOnTheShortConvolution) {
  for (const char* leaf : {"conv", "in_proj", "out_proj"}) {
    const TensorPlacement p = place_tensor(std::string("model.layers.3.conv.") + leaf + ".weight");
    EXPECT_EQ(p.block, Block::ShortConv) << leaf;
    EXPECT_EQ(p.layer, 3u) << leaf;
    EXPECT_EQ(p.role, leaf);
  }
  EXPECT_EQ(place_tensor("model.layers.3.feed_forward.expert_bias").block, Block::MoeRouter);
}

// LiquidAI/LFM2-VL-450M's config.json as first published (custom code, model_type "lfm2-vl"), its fields
// that shape tensors. Its model.safetensors is 901,692,416 bytes: 351 bf16 tensors (lm_head tied, not stored)
// of 450,822,656 values, 901,645,312 bytes, after a header of 47,104.
constexpr const char* kLfm2Vl450m =
    R"({"model_type":"lfm2-vl","architectures":["Lfm2VlForConditionalGeneration"],
    "downsample_factor":2,"projector_bias":true,"projector_hidden_size":2560,
    "text_config":{"model_type":"lfm2","block_auto_adjust_ff_dim":true,"block_ff_dim":6656,
      "block_ffn_dim_multiplier":1.0,"block_multiple_of":256,"conv_L_cache":3,"conv_bias":false,
      "hidden_size":1024,"intermediate_size":6656,"layer_types":["conv","conv","full_attention","conv","conv",
      "full_attention","conv","conv","full_attention","conv","full_attention","conv","full_attention","conv",
      "full_attention","conv"],"num_attention_heads":16,"num_hidden_layers":16,"num_key_value_heads":8,
      "vocab_size":65536},
    "vision_config":{"hidden_size":768,"intermediate_size":3072,"model_type":"siglip2_vision_model",
      "num_attention_heads":12,"num_channels":3,"num_hidden_layers":12,"num_patches":256,"patch_size":16,
      "vision_use_head":false}})";

TEST(ConvHybrids, Lfm2VlUnshufflesPatchesIntoLfm2) {
  EXPECT_EQ(parameters_of(kLfm2Vl450m), 450'822'656u);
  const ModelTemplate t = template_of(kLfm2Vl450m);
  EXPECT_EQ(t.arch.architecture, "Lfm2VlForConditionalGeneration");
  const DiskTotals disk = disk_totals(t);
  EXPECT_EQ(disk.tensors, 351u);
  EXPECT_EQ(disk.elements * 2, 901'692'416u - 47'104u);
  // 2 x 2 patches of 768 into one vector of 3,072: LayerNorm, then two biased linears to the text width.
  const std::string p = "model.multi_modal_projector.";
  EXPECT_EQ(find_tensor(t, p + "layer_norm.weight")->shape, Shape({3072}));
  EXPECT_EQ(find_tensor(t, p + "linear_1.weight")->shape, Shape({2560, 3072}));
  EXPECT_EQ(find_tensor(t, p + "linear_2.bias")->shape, Shape({1024}));
  // The tower: NaFlex's linear patch embedding, no head; its checkpoint keeps the vision_model wrapper.
  const TemplateTensor* patch = find_tensor(t, "model.vision_tower.embeddings.patch_embedding.weight");
  EXPECT_EQ(patch->shape, Shape({768, 768}));
  EXPECT_EQ(stored_name(*patch), "model.vision_tower.vision_model.embeddings.patch_embedding.weight");
  EXPECT_EQ(find_tensor(t, "model.vision_tower.head.probe"), nullptr);
  // LFM2-350M under model.language_model: its MLP 6,656 wide as configured, 4,608 as built.
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.feed_forward.w1.weight")->shape,
            Shape({4608, 1024}));
  using enum Mixer;
  const std::vector<Mixer> m = mixers_of(t);
  EXPECT_EQ(std::count(m.begin(), m.end(), Attention), 6);
  EXPECT_EQ(m[2], Attention);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  // transformers' own model_type builds the same.
  std::string hf = kLfm2Vl450m;
  hf.replace(hf.find("lfm2-vl"), 7, "lfm2_vl");
  EXPECT_EQ(parameters_of(hf), 450'822'656u);
}

}  // namespace
}  // namespace ma::test
