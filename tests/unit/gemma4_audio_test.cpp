// Gemma 4 E2B and E4B (gemma4 with an audio_config, model/families/multimodal.cpp): the audio conformer
// and its embedder beside the vision tower, and the keys and values the checkpoints still store in
// KV-shared layers. Independent figures: google/gemma-4-E2B-it's published tensor dump, 2,011 tensors of
// 5,123,178,979 values; E4B's published totals, 2,130 tensors of 7,996,157,418; and 5,104,297,504 and
// 7,941,100,832 parameters as transformers loads them (reported by several projects).
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// google/gemma-4-E2B-it's config.json, the fields that shape tensors; E4B's differs in its text model.
std::string gemma4_e(const std::string& text) {
  return R"({"model_type":"gemma4","architectures":["Gemma4ForConditionalGeneration"],"tie_word_embeddings":true,
      "text_config":{"model_type":"gemma4_text","attention_k_eq_v":false,"enable_moe_block":false,
        "global_head_dim":512,"head_dim":256,"hidden_size_per_layer_input":256,"num_attention_heads":8,
        "sliding_window":512,"vocab_size":262144,"vocab_size_per_layer_input":262144,)" +
         text + R"(},
      "vision_config":{"model_type":"gemma4_vision","hidden_size":768,"intermediate_size":3072,
        "num_hidden_layers":16,"num_attention_heads":12,"num_key_value_heads":12,"head_dim":64,"patch_size":16,
        "position_embedding_size":10240,"use_clipped_linears":true},
      "audio_config":{"model_type":"gemma4_audio","conv_kernel_size":5,"hidden_size":1024,"num_attention_heads":8,
        "num_hidden_layers":12,"output_proj_dims":1536,"subsampling_conv_channels":[128,32],
        "use_clipped_linears":true}})";
}
// E2B attends fully in every fifth layer (its layer_types), E4B in every sixth (the default).
std::string every_fifth_full(int layers) {
  std::string s = R"("layer_types":[)";
  for (int i = 0; i < layers; ++i)
    s += std::string(i ? "," : "") + (i % 5 == 4 ? R"("full_attention")" : R"("sliding_attention")");
  return s + "]";
}
const std::string kE2b = gemma4_e(R"("hidden_size":1536,"intermediate_size":6144,"num_hidden_layers":35,
    "num_key_value_heads":1,"num_kv_shared_layers":20,"use_double_wide_mlp":true,)" +
                                  every_fifth_full(35));
const std::string kE4b = gemma4_e(R"("hidden_size":2560,"intermediate_size":10240,"num_hidden_layers":42,
    "num_key_value_heads":2,"num_kv_shared_layers":18,"use_double_wide_mlp":false)");

TEST(Gemma4Audio, CountsAsTheCheckpointsHoldThem) {
  EXPECT_EQ(parameters_of(kE2b), 5'104'297'504u);
  EXPECT_EQ(parameters_of(kE4b), 7'941'100'832u);
  const DiskTotals e2b = disk_totals(template_of(kE2b)), e4b = disk_totals(template_of(kE4b));
  EXPECT_EQ(e2b.tensors, 2'011u);
  EXPECT_EQ(e2b.elements, 5'123'178'979u);
  EXPECT_EQ(e4b.tensors, 2'130u);
  EXPECT_EQ(e4b.elements, 7'996'157'418u);
}

TEST(Gemma4Audio, ConformerLayersAndTheirClampBounds) {
  const ModelTemplate t = template_of(kE2b);
  const std::string a = "model.audio_tower.";
  EXPECT_EQ(find_tensor(t, a + "subsample_conv_projection.layer1.conv.weight")->shape,
            Shape({32, 128, 3, 3}));
  EXPECT_EQ(find_tensor(t, a + "subsample_conv_projection.input_proj_linear.weight")->shape,
            Shape({1024, 1024}));
  const std::string l = a + "layers.11.";
  EXPECT_EQ(find_tensor(t, l + "feed_forward2.ffw_layer_1.linear.weight")->shape, Shape({4096, 1024}));
  EXPECT_EQ(find_tensor(t, l + "self_attn.post.output_max")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, l + "self_attn.relative_k_proj.input_max"), nullptr);  // a plain linear
  EXPECT_EQ(find_tensor(t, l + "self_attn.per_dim_scale")->shape, Shape({128}));
  EXPECT_EQ(find_tensor(t, l + "lconv1d.depthwise_conv1d.weight")->shape, Shape({1024, 1, 5}));
  EXPECT_EQ(find_tensor(t, a + "output_proj.bias")->shape, Shape({1536}));
  EXPECT_EQ(find_tensor(t, "model.embed_audio.embedding_projection.weight")->shape, Shape({1536, 1536}));
  ASSERT_NE(t.arch.stack(StackRole::Audio), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Audio)->layers.size(), 12u);
  // The last 20 layers share earlier layers' caches; their stored keys and values are extras.
  const TemplateTensor* shared = find_tensor(t, "model.language_model.layers.34.self_attn.k_proj.weight");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->kind, TensorKind::Extra);
  EXPECT_EQ(shared->shape, Shape({512, 1536}));  // a global layer: one key head of 512
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.14.self_attn.k_proj.weight")->kind,
            TensorKind::Parameter);
}

}  // namespace
}  // namespace ma::test
