// Aya Vision (model/families/aya_vision.cpp), counted on CohereLabs/aya-vision-8b's config.json (as
// mlx-community copies it): SigLIP so400m at 364 pixels, 27 layers, no head; a SwiGLU projector 28,672 wide;
// Command R7B's shapes as its Cohere2 language model, the head tied.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kAya8b =
    R"({"model_type":"aya_vision","architectures":["AyaVisionForConditionalGeneration"],
    "alignment_intermediate_size":28672,"downsample_factor":2,"text_config":{"hidden_size":4096,
    "intermediate_size":14336,"model_type":"cohere2","num_attention_heads":32,"num_hidden_layers":32,
    "num_key_value_heads":8,"use_qk_norm":false},"vision_config":{"hidden_size":1152,"image_size":364,
    "intermediate_size":4304,"model_type":"siglip_vision_model","num_attention_heads":16,"num_hidden_layers":27,
    "patch_size":14,"vision_use_head":false}})";

// Its language model has Aya-23-8B's shapes, which the Open LLM Leaderboard lists at 8.028B: the count
// without the tower and projector is exactly 8,028,033,024.
TEST(AyaVision, EightBCountsItsLanguageModelAsAya23) {
  const ParameterCounts c = counts_of(kAya8b);
  EXPECT_EQ(c.total - c.towers, 8'028'033'024u);
  EXPECT_EQ(c.total, 8'631'842'032u);
  const ModelTemplate t = template_of(kAya8b);
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.layernorm.weight")->shape, Shape({4608}));
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.linear_1.weight")->shape, Shape({28672, 4608}));
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.linear_2.weight")->shape, Shape({4096, 14336}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.embeddings.position_embedding.weight")->shape,
            Shape({676, 1152}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.head.probe"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.language_model.layers.0.self_attn.q_proj.weight")),
            "language_model.model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.post_attention_layernorm.weight"), nullptr);
}

TEST(AyaVision, RefusesWhatItsProjectorCannotBe) {
  std::string odd = kAya8b;
  odd.replace(odd.find("28672"), 5, "28671");
  EXPECT_THROW(template_of(odd), Error);
  EXPECT_THROW(template_of(R"({"model_type":"aya_vision","text_config":{"model_type":"llama"}})"), Error);
}

// CohereLabs/command-a-vision-07-2025 (cohere2_vision): Aya Vision's model without the projector's LayerNorm,
// SigLIP so400m/16 at 512 pixels without its head, Command A's 111B text model. The Hub lists 111.9B
// parameters and 223.7 GB of float16 files; with the head the files would be 223.8 GB.
TEST(AyaVision, CommandAVisionHasNoProjectorNorm) {
  const std::string config = R"({"model_type":"cohere2_vision","alignment_intermediate_size":36864,
      "downsample_factor":2,"tie_word_embeddings":true,
      "text_config":{"model_type":"cohere2","vocab_size":256000,"hidden_size":12288,"intermediate_size":36864,
        "num_hidden_layers":64,"num_attention_heads":96,"num_key_value_heads":8,"head_dim":128,
        "sliding_window":4096,"sliding_window_pattern":4},
      "vision_config":{"model_type":"siglip_vision_model","hidden_size":1152,"intermediate_size":4304,
        "num_hidden_layers":27,"num_attention_heads":16,"image_size":512,"patch_size":16,"vision_use_head":false}})";
  const uint64_t n = parameters_of(config);
  EXPECT_EQ(n, 111'867'525'360u);
  EXPECT_EQ((n + 50'000'000) / 100'000'000, 1119u);      // 111.9B
  EXPECT_EQ((2 * n + 50'000'000) / 100'000'000, 2237u);  // 223.7 GB in float16
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(t.arch.architecture, "Cohere2VisionForConditionalGeneration");
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.linear_1.weight")->shape, Shape({36864, 4608}));
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.linear_2.weight")->shape, Shape({12288, 18432}));
  EXPECT_EQ(stored_name(*find_tensor(t, "model.vision_tower.post_layernorm.weight")),
            "model.vision_tower.vision_model.post_layernorm.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.language_model.norm.weight")),
            "model.language_model.norm.weight");
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
}

}  // namespace
}  // namespace ma::test
