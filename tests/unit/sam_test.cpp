// Segment Anything (model/families/sam_model.cpp, sam_vision_model.cpp) on the facebook/sam-vit-* configs.
// The counts are those of transformers' SamModel / SamVisionModel as an independent count of their modules
// gives (the helper's verify/count_transformers.py, on torch's meta device: every state_dict key, shape,
// order and the total compared), and they match the sizes the Hub lists for the checkpoints: 93.7M, 312M,
// 641M.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/sam-vit-base's config.json, its shape fields (the sub-configs at SamConfig's defaults).
constexpr const char* kSamVitBase =
    R"({"model_type":"sam","architectures":["SamModel"],
    "vision_config":{"hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,"image_size":1024,
    "patch_size":16,"mlp_ratio":4.0,"output_channels":256,"window_size":14,"global_attn_indexes":[2,5,8,11],
    "num_pos_feats":128,"qkv_bias":true,"use_abs_pos":true,"use_rel_pos":true},
    "prompt_encoder_config":{"hidden_size":256,"image_size":1024,"patch_size":16,"mask_input_channels":16,
    "num_point_embeddings":4},
    "mask_decoder_config":{"hidden_size":256,"mlp_dim":2048,"num_hidden_layers":2,"num_attention_heads":8,
    "attention_downsample_rate":2,"num_multimask_outputs":3,"iou_head_depth":3,"iou_head_hidden_dim":256}})";

// sam-vit-large's and sam-vit-huge's vision sizes (segment-anything's build_sam_vit_l / _h, which
// transformers' conversion script copies into vision_config).
std::string sam_vit_large() {
  return replaced(replaced(replaced(replaced(kSamVitBase, R"("hidden_size":768)", R"("hidden_size":1024)"),
                                    R"("num_hidden_layers":12)", R"("num_hidden_layers":24)"),
                           R"("num_attention_heads":12)", R"("num_attention_heads":16)"),
                  "[2,5,8,11]", "[5,11,17,23]");
}
std::string sam_vit_huge() {
  return replaced(replaced(replaced(replaced(kSamVitBase, R"("hidden_size":768)", R"("hidden_size":1280)"),
                                    R"("num_hidden_layers":12)", R"("num_hidden_layers":32)"),
                           R"("num_attention_heads":12)", R"("num_attention_heads":16)"),
                  "[2,5,8,11]", "[7,15,23,31]");
}

TEST(SegmentAnything, SamSizesCountAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(kSamVitBase), 93'735'472u);
  EXPECT_EQ(parameters_of(sam_vit_large()), 312'342'832u);
  EXPECT_EQ(parameters_of(sam_vit_huge()), 641'090'608u);
  // SamConfig's defaults are ViT-B's, whatever its docstring says about ViT-H.
  EXPECT_EQ(parameters_of(R"({"model_type":"sam"})"), 93'735'472u);
  const ModelTemplate t = template_of(sam_vit_huge());
  EXPECT_EQ(t.tensors.size(), 595u);  // state_dict keys, the two positional buffers included
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->layers.size(), 32u);
  // A global layer's relative tables span the 64 x 64 grid, a windowed one's its 14 x 14 window.
  EXPECT_EQ(find_tensor(t, "vision_encoder.layers.7.attn.rel_pos_h")->shape, (Shape{127, 80}));
  EXPECT_EQ(find_tensor(t, "vision_encoder.layers.8.attn.rel_pos_w")->shape, (Shape{27, 80}));
}

// SamPositionalEmbedding's random Fourier basis is a persistent buffer, not a parameter; the prompt encoder's
// copy is the model's shared_image_embedding (tied), listed again where the prompt encoder starts.
TEST(SegmentAnything, PositionalBasisIsOneTiedBuffer) {
  const ModelTemplate t = template_of(kSamVitBase);
  ASSERT_FALSE(t.tensors.empty());
  EXPECT_EQ(t.tensors.front().name, "shared_image_embedding.positional_embedding");
  EXPECT_EQ(t.tensors.front().kind, TensorKind::Buffer);
  EXPECT_EQ(t.tensors.front().shape, (Shape{2, 128}));
  const TemplateTensor* copy = find_tensor(t, "prompt_encoder.shared_embedding.positional_embedding");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, TensorKind::Buffer);
  EXPECT_EQ(copy->tied_to, "shared_image_embedding.positional_embedding");
  EXPECT_FALSE(copy->stored);
  EXPECT_EQ(tensor_index(t, "prompt_encoder.shared_embedding.positional_embedding") + 1,
            tensor_index(t, "prompt_encoder.mask_embed.conv1.weight"));
}

TEST(SegmentAnything, PromptEncoderAndMaskDecoderShapes) {
  const ModelTemplate t = template_of(kSamVitBase);
  // SamMaskEmbedding: 1 -> 16 / 4 -> 16 channels, then a 1 x 1 conv to the prompt width.
  EXPECT_EQ(find_tensor(t, "prompt_encoder.mask_embed.conv1.weight")->shape, (Shape{4, 1, 2, 2}));
  EXPECT_EQ(find_tensor(t, "prompt_encoder.mask_embed.conv3.weight")->shape, (Shape{256, 16, 1, 1}));
  EXPECT_EQ(find_tensor(t, "prompt_encoder.point_embed.3.weight")->shape, (Shape{1, 256}));
  EXPECT_EQ(find_tensor(t, "prompt_encoder.point_embed.4.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "mask_decoder.mask_tokens.weight")->shape, (Shape{4, 256}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.upscale_conv1.weight")->shape,
            (Shape{256, 64, 2, 2}));  // transposed
  EXPECT_EQ(find_tensor(t, "mask_decoder.upscale_conv2.weight")->shape, (Shape{64, 32, 2, 2}));
  EXPECT_EQ(
      find_tensor(t, "mask_decoder.transformer.layers.1.cross_attn_image_to_token.q_proj.weight")->shape,
      (Shape{128, 256}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.iou_prediction_head.proj_out.weight")->shape, (Shape{4, 256}));
  // SamFeedForward registers proj_in and proj_out before its hidden layers.
  EXPECT_LT(tensor_index(t, "mask_decoder.output_hypernetworks_mlps.3.proj_out.bias"),
            tensor_index(t, "mask_decoder.output_hypernetworks_mlps.3.layers.0.weight"));
  EXPECT_EQ(find_tensor(t, "mask_decoder.output_hypernetworks_mlps.3.proj_out.weight")->shape,
            (Shape{32, 256}));
  EXPECT_EQ(t.tensors.back().name, "mask_decoder.iou_prediction_head.layers.0.bias");
}

// The two-way blocks build their cross-attentions with SamTwoWayAttentionBlock's own default rate of 2; only
// the final token-to-image attention reads attention_downsample_rate.
TEST(SegmentAnything, OnlyTheFinalAttentionReadsTheDownsampleRate) {
  const ModelTemplate t = template_of(
      replaced(kSamVitBase, R"("attention_downsample_rate":2)", R"("attention_downsample_rate":4)"));
  EXPECT_EQ(
      find_tensor(t, "mask_decoder.transformer.layers.0.cross_attn_token_to_image.k_proj.weight")->shape,
      (Shape{128, 256}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.transformer.final_attn_token_to_image.k_proj.weight")->shape,
            (Shape{64, 256}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.transformer.final_attn_token_to_image.out_proj.weight")->shape,
            (Shape{256, 64}));
}

// A variant exercising the other fields (per transformers: 57,058,889): every layer global (window_size 0),
// an explicit mlp_dim, a 64-feature basis, 8 mask channels, three two-way blocks, two multimask outputs and a
// four-layer IoU head.
TEST(SegmentAnything, VariantFieldsAsTransformersReadsThem) {
  std::string v = replaced(kSamVitBase, R"("window_size":14)", R"("window_size":0,"mlp_dim":1000)");
  v = replaced(v, R"("num_pos_feats":128)", R"("num_pos_feats":64)");
  v = replaced(v, R"("mask_input_channels":16)", R"("mask_input_channels":8)");
  v = replaced(v, R"("num_hidden_layers":2)", R"("num_hidden_layers":3)");
  v = replaced(v, R"("attention_downsample_rate":2)", R"("attention_downsample_rate":4)");
  v = replaced(v, R"("num_multimask_outputs":3)", R"("num_multimask_outputs":2)");
  v = replaced(v, R"("iou_head_depth":3)", R"("iou_head_depth":4)");
  EXPECT_EQ(parameters_of(v), 57'058'889u);
  const ModelTemplate t = template_of(v);
  EXPECT_EQ(find_tensor(t, "vision_encoder.layers.0.attn.rel_pos_h")->shape, (Shape{127, 64}));
  EXPECT_EQ(find_tensor(t, "shared_image_embedding.positional_embedding")->shape, (Shape{2, 64}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.iou_prediction_head.layers.1.weight")->shape, (Shape{256, 256}));
}

// SamVisionModel: SamVisionConfig at the top level, the encoder under vision_encoder. (no positional basis).
TEST(SegmentAnything, VisionModelAlone) {
  constexpr const char* kLargeVision =
      R"({"model_type":"sam_vision_model","architectures":["SamVisionModel"],"hidden_size":1024,
      "num_hidden_layers":24,"num_attention_heads":16,"global_attn_indexes":[5,11,17,23]})";
  EXPECT_EQ(parameters_of(kLargeVision), 308'278'272u);
  const ModelTemplate t = template_of(kLargeVision);
  EXPECT_EQ(t.tensors.front().name, "vision_encoder.pos_embed");
  EXPECT_EQ(find_tensor(t, "vision_encoder.layers.5.attn.rel_pos_h")->shape, (Shape{127, 64}));
  EXPECT_EQ(find_tensor(t, "vision_encoder.neck.conv2.weight")->shape, (Shape{256, 256, 3, 3}));
}

// Every tensor is the image side of a model without text (tensor_placement.cpp: prompt_encoder, mask_decoder,
// shared_image_embedding); point_embed.N and output_hypernetworks_mlps.N index parallel modules, not layers.
TEST(SegmentAnything, EveryTensorIsPlacedInTheVisionBlock) {
  for (const TemplateTensor& x : template_of(kSamVitBase).tensors)
    EXPECT_EQ(place_tensor(x.name).block, Block::Vision) << x.name;
  EXPECT_FALSE(place_tensor("prompt_encoder.point_embed.2.weight").layer.has_value());
  EXPECT_FALSE(place_tensor("mask_decoder.output_hypernetworks_mlps.3.proj_in.weight").layer.has_value());
  EXPECT_EQ(place_tensor("mask_decoder.transformer.layers.1.mlp.lin1.weight").layer, 1u);
}

// transformers raises when a SamAttention's heads do not divide its width (hidden_size / downsample rate) and
// when the encoder's heads do not divide its width.
// A model that is all tower runs every weight on its own inputs: nothing is set aside as a tower no text
// token runs (a VLM's vision tower is, Clip.ViTB32CountsAsPublished), so SAM reads as DINOv2 does.
TEST(SegmentAnything, AllTowerSetsNothingAside) {
  const ParameterCounts c = counts_of(kSamVitBase);
  EXPECT_EQ(c.total, 93'735'472u);
  EXPECT_EQ(c.towers, 0u);
  EXPECT_FALSE(c.active.has_value());
  EXPECT_FALSE(c.active_non_embedding.has_value());
}

TEST(SegmentAnything, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(
      refusal_of(replaced(kSamVitBase, R"("num_attention_heads":8)", R"("num_attention_heads":7)")).field,
      "mask_decoder_config.num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kSamVitBase, R"("attention_downsample_rate":2)",
                                R"("attention_downsample_rate":64)"))
                .field,
            "mask_decoder_config.num_attention_heads");
  EXPECT_EQ(
      refusal_of(replaced(kSamVitBase, R"("num_attention_heads":12)", R"("num_attention_heads":7)")).field,
      "vision_config.num_attention_heads");
  EXPECT_EQ(
      refusal_of(replaced(kSamVitBase, R"("mask_input_channels":16)", R"("mask_input_channels":2)")).field,
      "prompt_encoder_config.mask_input_channels");
}

}  // namespace
}  // namespace ma::test
