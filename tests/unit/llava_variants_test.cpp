// LLaVA's video and visual-prompt variants (model/families/llava_like.cpp): ViP-LLaVA, LLaVA-NeXT-Video and
// Video-LLaVA, against transformers' classes instantiated at full size (the reference counter of this work,
// on the meta device) and the figures their Hub files give.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// CLIP ViT-L/14 as llava-hf's configs give it; Video-LLaVA's names no image_size (CLIPVisionConfig's 224).
const std::string kClip336 = R"("vision_config":{"hidden_size":1024,"image_size":336,"intermediate_size":4096,
    "model_type":"clip_vision_model","num_attention_heads":16,"num_hidden_layers":24,"patch_size":14})";
const std::string kVicuna7b =
    R"("text_config":{"max_position_embeddings":4096,"model_type":"llama","vocab_size":32064})";

// llava-hf/vip-llava-7b-hf: its config carries the singular vision_feature_layer, which VipLlavaConfig does
// not read: the projector takes the default five layers.
const std::string kVipLlava7b =
    R"({"architectures":["VipLlavaForConditionalGeneration"],"model_type":"vipllava",
    "projector_layernorm":false,)" +
    kVicuna7b + "," + kClip336 + R"(,"vision_feature_layer":-2,"vocab_size":32064})";
const std::string kNextVideo7b =
    R"({"architectures":["LlavaNextVideoForConditionalGeneration"],"model_type":"llava_next_video",
    "spatial_pool_mode":"average","spatial_pool_out_channels":1024,"spatial_pool_stride":2,"tie_word_embeddings":false,)" +
    kVicuna7b + "," + kClip336 + R"(,"vision_feature_layer":-2})";
const std::string kVideoLlava7b =
    R"({"architectures":["VideoLlavaForConditionalGeneration"],"model_type":"video_llava",)" + kVicuna7b +
    R"(,"vision_config":{"hidden_size":1024,"intermediate_size":4096,"model_type":"clip_vision_model",
    "num_attention_heads":16,"num_hidden_layers":24,"patch_size":14},"vision_feature_layer":-2,"vocab_size":32064})";

TEST(LlavaVariants, VipLlavaNormsFiveLayersOfFeatures) {
  EXPECT_EQ(parameters_of(kVipLlava7b), 7'080'214'528u);
  // Against LLaVA-1.5-7B (same tower and decoder): linear_1 reads 5 x 1,024 features, with a LayerNorm.
  const std::string llava =
      replaced(replaced(kVipLlava7b, "VipLlava", "Llava"), R"("vipllava")", R"("llava")");
  EXPECT_EQ(parameters_of(kVipLlava7b) - parameters_of(llava), 4u * 1024 * 4096 + 2 * 5120);
  const ModelTemplate t = template_of(kVipLlava7b);
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.projector_layernorm.weight")->shape, Shape({5120}));
  // llava-hf/vip-llava-13b-hf lists the layers.
  EXPECT_EQ(parameters_of(replaced(replaced(kVipLlava7b, R"("vision_feature_layer":-2)",
                                            R"("vision_feature_layers":[-2,-5,-8,-11,6])"),
                                   R"("model_type":"llama")",
                                   R"("model_type":"llama","hidden_size":5120,"intermediate_size":13824,
                                      "num_attention_heads":40,"num_hidden_layers":40,"num_key_value_heads":40)")),
            13'372'476'416u);
  const ModelTemplate three = template_of(
      replaced(kVipLlava7b, R"("vision_feature_layer":-2)", R"("vision_feature_layers":[-1,0,2])"));
  EXPECT_EQ(find_tensor(three, "model.multi_modal_projector.linear_1.weight")->shape, Shape({4096, 3072}));
  // Stored in transformers 4's layout; only the top-level flag ties the head.
  const ModelTemplate tied_text = template_of(
      replaced(kVipLlava7b, R"("vocab_size":32064})", R"("vocab_size":32064,"tie_word_embeddings":true})"));
  EXPECT_TRUE(find_tensor(tied_text, "lm_head.weight")->tied_to.empty());
}

// LLaVA-NeXT-Video-7B-hf's shards hold 14.13 GB of bfloat16, two bytes a parameter; the 34B's text model is
// Nous-Hermes-2-Yi-34B.
TEST(LlavaVariants, NextVideoIsNextWithAVideoPooler) {
  EXPECT_EQ(parameters_of(kNextVideo7b), 7'063'431'168u);
  EXPECT_EQ((2 * parameters_of(kNextVideo7b) + 5'000'000) / 10'000'000, 1413u);
  EXPECT_EQ(parameters_of(replaced(kNextVideo7b, R"("model_type":"llama","vocab_size":32064)",
                                   R"("model_type":"llama","hidden_size":7168,"intermediate_size":20480,
                                      "num_attention_heads":56,"num_hidden_layers":60,"num_key_value_heads":8,
                                      "vocab_size":64064)")),
            34'752'083'968u);
  // The DPO checkpoint's config still names llava_next, with the video class: the same model, head included.
  EXPECT_EQ(parameters_of(
                replaced(kNextVideo7b, R"("model_type":"llava_next_video")", R"("model_type":"llava_next")")),
            7'063'431'168u);
  // Pooling by a convolution adds its weights: out x hidden x stride^2 + out.
  const ModelTemplate conv = template_of(
      replaced(kNextVideo7b, R"("spatial_pool_mode":"average")", R"("spatial_pool_mode":"conv")"));
  EXPECT_EQ(find_tensor(conv, "model.vision_resampler.pool.weight")->shape, Shape({1024, 1024, 2, 2}));
  EXPECT_EQ(parameters_of(
                replaced(kNextVideo7b, R"("spatial_pool_mode":"average")", R"("spatial_pool_mode":"conv")")),
            7'063'431'168u + 1024u * 1024 * 4 + 1024);
}

TEST(LlavaVariants, VideoLlavaHasAVideoAndAnImageTower) {
  EXPECT_EQ(parameters_of(kVideoLlava7b), 7'366'279'168u);
  // Each tower: CLIP ViT-L/14 at 224 pixels, 257 positions; stored under their own names.
  const ModelTemplate t = template_of(kVideoLlava7b);
  std::vector<std::string> stored;
  for (const DiskTensor& x : disk_form(t)) stored.push_back(x.name);
  for (const char* tower : {"video_tower", "image_tower"}) {
    EXPECT_EQ(find_tensor(t, std::string("model.") + tower + ".embeddings.position_embedding.weight")->shape,
              Shape({257, 1024}));
    EXPECT_NE(std::find(stored.begin(), stored.end(),
                        std::string(tower) + ".vision_model.encoder.layers.23.mlp.fc2.bias"),
              stored.end());
  }
  EXPECT_EQ(t.arch.stacks.size(), 4u);  // the decoder, two towers and the projector
}

// Small checkpoints in the Hub's layout load with nothing missing or left over.
TEST(LlavaVariants, SmallCheckpointsMatch) {
  const std::string vision = R"("vision_config":{"model_type":"clip_vision_model","hidden_size":32,
      "intermediate_size":48,"num_hidden_layers":3,"num_attention_heads":4,"image_size":30,"patch_size":6})";
  const std::string text = R"("text_config":{"model_type":"mistral","vocab_size":99,"hidden_size":40,
      "intermediate_size":56,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2})";
  for (const std::string& head :
       {std::string(R"("VideoLlavaForConditionalGeneration"],"model_type":"video_llava")"),
        std::string(R"("VipLlavaForConditionalGeneration"],"model_type":"vipllava")"),
        std::string(R"("LlavaNextVideoForConditionalGeneration"],
                                      "model_type":"llava_next_video","spatial_pool_mode":"conv")")}) {
    expect_reads_cleanly(R"({"architectures":[)" + head + "," + vision + "," + text + "}");
  }
}

}  // namespace
}  // namespace ma::test
