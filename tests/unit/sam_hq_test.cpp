// SAM-HQ (model/families/sam_hq.cpp) on the syscv-community/sam-hq-vit-* configs (transformers'
// convert_samhq_to_hf.py: SAM's vision sizes, mask_decoder_config.vit_dim = the ViT's width). The totals are
// transformers' SamHQModel / SamHQVisionModel as an independent count of their modules gives (the helper's
// verify/count_transformers.py on torch's meta device, from modeling_sam_hq.py: every state_dict key, shape,
// order and the total compared): SamModel's, plus the HQ modules spelled out below; ViT-B's 94.8M is the
// ~94M the Hub lists for sam-hq-vit-base.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// sam-hq-vit-base's shape fields: SamConfig's sub-configs at their defaults, vit_dim 768.
constexpr const char* kSamHqVitBase =
    R"({"model_type":"sam_hq","architectures":["SamHQModel"],
    "vision_config":{"hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,"image_size":1024,
    "patch_size":16,"mlp_ratio":4.0,"output_channels":256,"window_size":14,"global_attn_indexes":[2,5,8,11],
    "num_pos_feats":128,"qkv_bias":true,"use_abs_pos":true,"use_rel_pos":true},
    "prompt_encoder_config":{"hidden_size":256,"image_size":1024,"patch_size":16,"mask_input_channels":16,
    "num_point_embeddings":4},
    "mask_decoder_config":{"hidden_size":256,"mlp_dim":2048,"num_hidden_layers":2,"num_attention_heads":8,
    "attention_downsample_rate":2,"num_multimask_outputs":3,"iou_head_depth":3,"iou_head_hidden_dim":256,
    "vit_dim":768}})";

// sam-hq-vit-large's and -huge's vision sizes and vit_dim (convert_samhq_to_hf.py's get_config).
std::string samhq_vit(const char* hidden, const char* layers, const char* heads, const char* global) {
  std::string c = replaced(kSamHqVitBase, R"("hidden_size":768)", std::string(R"("hidden_size":)") + hidden);
  c = replaced(c, R"("num_hidden_layers":12)", std::string(R"("num_hidden_layers":)") + layers);
  c = replaced(c, R"("num_attention_heads":12)", std::string(R"("num_attention_heads":)") + heads);
  c = replaced(c, "[2,5,8,11]", global);
  return replaced(c, R"("vit_dim":768)", std::string(R"("vit_dim":)") + hidden);
}

// The HQ modules at hidden_size 256 (h), from the ViT width `vit`: hq_token [1, h]; hq_mask_mlp h -> h -> h,
// h -> h / 8; compress_vit_conv1 [vit, h, 2, 2] + bias, its norm, compress_vit_conv2 [h, h / 8, 2, 2] + bias;
// encoder_conv1 [h, h / 4, 2, 2] + bias, its norm, encoder_conv2 [h / 4, h / 8, 2, 2] + bias; mask_conv1
// [h / 4, h / 8, 3, 3] + bias, its norm, mask_conv2 [h / 8, h / 4, 3, 3] + bias.
constexpr uint64_t samhq_extras(uint64_t vit) {
  const uint64_t h = 256;
  return h + 2 * (h * h + h) + (h * h / 8 + h / 8) + (vit * h * 4 + h) + 2 * h + (h * h / 8 * 4 + h / 8) +
         (h * h / 4 * 4 + h / 4) + 2 * (h / 4) + (h / 4 * h / 8 * 4 + h / 8) + (h / 4 * h / 8 * 9 + h / 4) +
         2 * (h / 4) + (h / 8 * h / 4 * 9 + h / 8);
}

TEST(SamHq, SizesAreSamsPlusTheHqModules) {
  // SamModel's totals (sam_test.cpp: 93,735,472, 312,342,832 and 641,090,608) and the HQ modules.
  EXPECT_EQ(samhq_extras(768), 1'071'104u);
  EXPECT_EQ(parameters_of(kSamHqVitBase), 93'735'472u + samhq_extras(768));
  EXPECT_EQ(parameters_of(kSamHqVitBase), 94'806'576u);
  EXPECT_EQ(parameters_of(samhq_vit("1024", "24", "16", "[5,11,17,23]")), 313'676'080u);
  EXPECT_EQ(parameters_of(samhq_vit("1024", "24", "16", "[5,11,17,23]")), 312'342'832u + samhq_extras(1024));
  EXPECT_EQ(parameters_of(samhq_vit("1280", "32", "16", "[7,15,23,31]")), 642'686'000u);
  // SamHQConfig's defaults are ViT-B's, vit_dim 768 included.
  EXPECT_EQ(parameters_of(R"({"model_type":"sam_hq"})"), 94'806'576u);
  const ModelTemplate t = template_of(samhq_vit("1280", "32", "16", "[7,15,23,31]"));
  EXPECT_EQ(t.tensors.size(), 620u);  // state_dict keys, the two positional buffers included
  EXPECT_EQ(t.arch.architecture, "SamHQModel");
  EXPECT_EQ(find_tensor(t, "mask_decoder.compress_vit_conv1.weight")->shape, (Shape{1280, 256, 2, 2}));
}

// SamHQMaskDecoder registers SamMaskDecoder's modules first, then the HQ token and its MLP, then the fusion:
// compress_vit_*, encoder_*, mask_* (modeling_sam_hq.py's __init__ order), the last of all the tensors.
TEST(SamHq, HqModulesFollowSamsMaskDecoder) {
  const ModelTemplate t = template_of(kSamHqVitBase);
  EXPECT_EQ(t.tensors.front().name, "shared_image_embedding.positional_embedding");
  EXPECT_EQ(tensor_index(t, "mask_decoder.iou_prediction_head.layers.0.bias") + 1,
            tensor_index(t, "mask_decoder.hq_token.weight"));
  const char* order[] = {"mask_decoder.hq_token.weight",
                         "mask_decoder.hq_mask_mlp.proj_in.weight",
                         "mask_decoder.hq_mask_mlp.layers.0.bias",
                         "mask_decoder.compress_vit_conv1.weight",
                         "mask_decoder.compress_vit_norm.bias",
                         "mask_decoder.compress_vit_conv2.bias",
                         "mask_decoder.encoder_conv1.weight",
                         "mask_decoder.encoder_norm.weight",
                         "mask_decoder.encoder_conv2.weight",
                         "mask_decoder.mask_conv1.weight",
                         "mask_decoder.mask_norm.bias"};
  for (size_t i = 0; i + 1 < std::size(order); ++i)
    EXPECT_LT(tensor_index(t, order[i]), tensor_index(t, order[i + 1])) << order[i];
  EXPECT_EQ(t.tensors.back().name, "mask_decoder.mask_conv2.bias");
  // The transposed convolutions hold [in, out, 2, 2], the 3 x 3 ones [out, in, 3, 3].
  EXPECT_EQ(find_tensor(t, "mask_decoder.compress_vit_conv1.weight")->shape, (Shape{768, 256, 2, 2}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.compress_vit_conv2.weight")->shape, (Shape{256, 32, 2, 2}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.encoder_conv1.weight")->shape, (Shape{256, 64, 2, 2}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.encoder_conv2.weight")->shape, (Shape{64, 32, 2, 2}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.mask_conv1.weight")->shape, (Shape{64, 32, 3, 3}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.mask_conv2.weight")->shape, (Shape{32, 64, 3, 3}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.hq_mask_mlp.proj_out.weight")->shape, (Shape{32, 256}));
  // The IoU head scores SAM's four mask tokens only; the HQ token has no IoU output.
  EXPECT_EQ(find_tensor(t, "mask_decoder.iou_prediction_head.proj_out.weight")->shape, (Shape{4, 256}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.output_hypernetworks_mlps.4.proj_in.weight"), nullptr);
}

// A variant exercising the decoder fields (per transformers: 7,498,057): a 128-wide decoder of three two-way
// blocks, two multimask outputs, a four-layer IoU head, and a vit_dim (200) that is not the ViT's width
// (384): transformers builds compress_vit_conv1 from vit_dim without checking it.
TEST(SamHq, VariantFieldsAsTransformersReadsThem) {
  const std::string v =
      R"({"model_type":"sam_hq","vision_config":{"hidden_size":384,"num_hidden_layers":4,
      "num_attention_heads":6,"global_attn_indexes":[1,3],"image_size":512,"window_size":8,"mlp_dim":1000,
      "num_pos_feats":64,"output_channels":128},
      "prompt_encoder_config":{"hidden_size":128,"mask_input_channels":8,"num_point_embeddings":3},
      "mask_decoder_config":{"hidden_size":128,"mlp_dim":512,"num_hidden_layers":3,"num_attention_heads":4,
      "attention_downsample_rate":4,"num_multimask_outputs":2,"iou_head_depth":4,"iou_head_hidden_dim":96,
      "vit_dim":200}})";
  EXPECT_EQ(parameters_of(v), 7'498'057u);
  const ModelTemplate t = template_of(v);
  EXPECT_EQ(t.tensors.size(), 259u);
  EXPECT_EQ(find_tensor(t, "mask_decoder.compress_vit_conv1.weight")->shape, (Shape{200, 128, 2, 2}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.mask_conv2.weight")->shape, (Shape{16, 32, 3, 3}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.iou_prediction_head.proj_out.weight")->shape, (Shape{3, 96}));
}

// SamHQVisionModel is SamVisionModel: SamHQVisionConfig at the top level, the encoder under vision_encoder.
TEST(SamHq, VisionModelAlone) {
  constexpr const char* kLargeVision =
      R"({"model_type":"sam_hq_vision_model","hidden_size":1024,"num_hidden_layers":24,
      "num_attention_heads":16,"global_attn_indexes":[5,11,17,23]})";
  EXPECT_EQ(parameters_of(kLargeVision), 308'278'272u);  // as SamVisionModel's (sam_test.cpp)
  EXPECT_EQ(parameters_of(R"({"model_type":"sam_hq_vision_model"})"), 89'670'912u);
  const ModelTemplate t = template_of(kLargeVision);
  EXPECT_EQ(t.arch.architecture, "SamHQVisionModel");
  EXPECT_EQ(t.tensors.size(), 345u);
  EXPECT_EQ(t.tensors.front().name, "vision_encoder.pos_embed");
  EXPECT_EQ(t.tensors.back().name, "vision_encoder.neck.layer_norm2.bias");
}

// The HQ modules are the mask decoder's: vision, as all of SAM (tensor_placement.cpp's mask_decoder rule).
TEST(SamHq, EveryTensorIsPlacedInTheVisionBlock) {
  for (const TemplateTensor& x : template_of(kSamHqVitBase).tensors)
    EXPECT_EQ(place_tensor(x.name).block, Block::Vision) << x.name;
  for (const TemplateTensor& x : template_of(R"({"model_type":"sam_hq_vision_model"})").tensors)
    EXPECT_EQ(place_tensor(x.name).block, Block::Vision) << x.name;
}

TEST(SamHq, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kSamHqVitBase, R"("vit_dim":768)", R"("vit_dim":0)")).field,
            "mask_decoder_config.vit_dim");
  EXPECT_EQ(refusal_of(replaced(kSamHqVitBase, R"("vit_dim":768)", R"("vit_dim":"wide")")).field,
            "mask_decoder_config.vit_dim");
  EXPECT_EQ(
      refusal_of(replaced(kSamHqVitBase, R"("num_attention_heads":8)", R"("num_attention_heads":7)")).field,
      "mask_decoder_config.num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"sam_hq_vision_model","num_attention_heads":7})").field,
            "num_attention_heads");
}

}  // namespace
}  // namespace ma::test
