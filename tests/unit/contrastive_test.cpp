// CLIP, SigLIP and SigLIP 2 (model/families/contrastive.cpp): both towers, the projections or heads, the
// logit scale, counted on the configs their Hub repositories publish.
#include <gtest/gtest.h>

#include <string>

#include "analyzed_model.h"
#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// openai/clip-vit-base-patch32's config.json: every size is CLIPConfig's default.
constexpr const char* kClipB32 = R"({"model_type":"clip","architectures":["CLIPModel"],"projection_dim":512,
    "text_config":{"model_type":"clip_text_model"},"vision_config":{"model_type":"clip_vision_model"}})";

// 151,277,313 (MTEB's registry gives n_parameters=151277313): the text tower 63,165,952, the vision tower
// 87,456,000 (a class token, a bias-free 32 x 32 patch conv, 50 positions, pre_layrnorm), the two bias-free
// projections 393,216 + 262,144 and the 0-dimensional logit_scale.
TEST(Clip, ViTB32CountsAsPublished) {
  const ParameterCounts c = counts_of(kClipB32);
  EXPECT_EQ(c.total, 151'277'313u);
  EXPECT_EQ(c.towers, 87'456'000u);
  const ModelTemplate t = template_of(kClipB32);
  EXPECT_EQ(find_tensor(t, "logit_scale")->shape, Shape({}));
  EXPECT_EQ(find_tensor(t, "text_projection.weight")->shape, Shape({512, 512}));
  EXPECT_EQ(find_tensor(t, "visual_projection.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding.weight")->shape, Shape({50, 768}));
  EXPECT_NE(find_tensor(t, "vision_model.pre_layrnorm.weight"), nullptr);  // sic
  EXPECT_EQ(find_tensor(t, "text_model.embeddings.position_embedding.weight")->shape, Shape({77, 512}));
}

// An image-text embedding model: it reads text and images and generates nothing.
TEST(Clip, IsAnEmbeddingModelThatDoesNotGenerate) {
  const TempDir dir;
  write_file(dir / "config.json", kClipB32);
  const std::unique_ptr<AnalyzedModel> m = analyze_dir(dir.path());
  EXPECT_EQ(m->report.identity.kind, "image-text-embedding");
  EXPECT_FALSE(m->report.capabilities.can_generate);
}

// openai/clip-vit-large-patch14: 427,616,513 (MTEB), text 768 wide, vision 24 layers of 1,024 over 14-pixel
// patches, projections to 768.
TEST(Clip, ViTL14CountsAsPublished) {
  EXPECT_EQ(parameters_of(R"({"model_type":"clip","projection_dim":768,
      "text_config":{"hidden_size":768,"intermediate_size":3072,"num_attention_heads":12},
      "vision_config":{"hidden_size":1024,"intermediate_size":4096,"num_attention_heads":16,
        "num_hidden_layers":24,"patch_size":14}})"),
            427'616'513u);
}

// google/siglip-base-patch16-224 (every size SigLIP's default): 203,155,970. Keras-Hub's 203,156,230 also
// counts the 196 + 64 position ids transformers keeps as non-persistent buffers. The towers end in heads of
// their own (the text head a Linear over the last token, the vision head attention pooling); no projections.
TEST(Siglip, BaseCountsAndHeads) {
  const std::string config = R"({"model_type":"siglip","architectures":["SiglipModel"],
      "text_config":{"model_type":"siglip_text_model"},"vision_config":{"model_type":"siglip_vision_model"}})";
  EXPECT_EQ(parameters_of(config), 203'155'970u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "logit_bias")->shape, Shape({1}));
  EXPECT_EQ(find_tensor(t, "text_model.head.weight")->shape, Shape({768, 768}));
  EXPECT_EQ(find_tensor(t, "vision_model.head.probe")->shape, Shape({1, 1, 768}));
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding.weight")->shape, Shape({196, 768}));
  EXPECT_EQ(find_tensor(t, "text_projection.weight"), nullptr);
  // so400m-patch14-384: 877,960,498 ("878M").
  EXPECT_EQ(parameters_of(R"({"model_type":"siglip",
      "text_config":{"hidden_size":1152,"intermediate_size":4304,"num_attention_heads":16,"num_hidden_layers":27},
      "vision_config":{"hidden_size":1152,"image_size":384,"intermediate_size":4304,"num_attention_heads":16,
        "num_hidden_layers":27,"patch_size":14}})"),
            877'960'498u);
}

// google/siglip2-base-patch16-naflex and -so400m-patch16-naflex (Siglip2Model, the sizes of transformers'
// conversion script). NaFlex cuts images into patches itself: the patch embedding is a linear over 3 x 16 x
// 16 values, and the 256-entry position table is resized to each image. With 256 entries they hold as many
// parameters as the fixed 256-pixel SigLIP 2 twins MTEB lists (siglip2-base-patch16-256 375,234,050,
// siglip2-so400m-patch16-256 1,135,670,962), whose patch embedding is the same weights as a Conv2d.
TEST(Siglip2, NaflexTowersCountAsTheirFixedResolutionTwins) {
  const std::string base = R"({"model_type":"siglip2","architectures":["Siglip2Model"],
      "text_config":{"model_type":"siglip2_text_model","vocab_size":256000},
      "vision_config":{"model_type":"siglip2_vision_model","patch_size":16,"num_patches":256}})";
  EXPECT_EQ(parameters_of(base), 375'234'050u);
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.patch_embedding.weight")->shape, Shape({768, 768}));
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding.weight")->shape, Shape({256, 768}));
  EXPECT_EQ(find_tensor(t, "vision_model.head.probe")->shape, Shape({1, 1, 768}));
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->image_size, 0u);  // any size: dynamic
  EXPECT_EQ(parameters_of(R"({"model_type":"siglip2",
      "text_config":{"vocab_size":256000,"hidden_size":1152,"intermediate_size":4304,"num_hidden_layers":27,
        "num_attention_heads":16},
      "vision_config":{"patch_size":16,"num_patches":256,"hidden_size":1152,"intermediate_size":4304,
        "num_hidden_layers":27,"num_attention_heads":16}})"),
            1'135'670'962u);
  // The table is reshaped to a square grid: 250 entries name no grid.
  EXPECT_THROW(template_of(R"({"model_type":"siglip2","vision_config":{"num_patches":250}})"), Error);
}

}  // namespace
}  // namespace ma::test
