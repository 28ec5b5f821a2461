// DINOv3 (ViT and ConvNeXt), AIMv2, MLCD and MetaCLIP 2 (group vision_backbones, and MetaCLIP 2 in
// contrastive.cpp): templates against what transformers builds. Totals were counted by a mirror of each
// transformers class's module construction on the meta device, its state_dict keys compared in order with the
// templates' (/tmp/impl/vision_backbones/verify: count_transformers.py, compare_out.txt), and against the
// sizes the model cards publish where they do. Configs are the Hub repositories' fields that size the model.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/dinov3-vit*16-pretrain-lvd1689m: four register tokens, no key bias, layer scales.
std::string dinov3_vit(int hidden, int intermediate, int layers, int heads, bool gated) {
  return R"({"model_type":"dinov3_vit","architectures":["DINOv3ViTModel"],"hidden_size":)" +
         std::to_string(hidden) + R"(,"intermediate_size":)" + std::to_string(intermediate) +
         R"(,"num_hidden_layers":)" + std::to_string(layers) + R"(,"num_attention_heads":)" +
         std::to_string(heads) +
         R"(,"num_register_tokens":4,"patch_size":16,"image_size":224,"key_bias":false,)" +
         R"("use_gated_mlp":)" + (gated ? "true" : "false") + "}";
}

// The model card's table: ViT-S/16 21M, ViT-S+/16 29M, ViT-B/16 86M, ViT-L/16 300M, ViT-H+/16 840M and
// ViT-7B/16 6,716M parameters; DINOv3ViTModel's modules add up to these exactly.
TEST(Dinov3Vit, SizesMatchTheModelCard) {
  EXPECT_EQ(parameters_of(dinov3_vit(384, 1536, 12, 6, false)), 21'596'544u);
  EXPECT_EQ(parameters_of(dinov3_vit(384, 1536, 12, 6, true)), 28'692'864u);
  EXPECT_EQ(parameters_of(dinov3_vit(768, 3072, 12, 12, false)), 85'660'416u);
  EXPECT_EQ(parameters_of(dinov3_vit(1024, 4096, 24, 16, false)), 303'129'600u);
  EXPECT_EQ(parameters_of(dinov3_vit(1280, 5120, 32, 20, true)), 840'592'640u);
  EXPECT_EQ(parameters_of(dinov3_vit(4096, 8192, 40, 32, true)), 6'716'362'752u);
}

TEST(Dinov3Vit, ModulesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(dinov3_vit(4096, 8192, 40, 32, true));
  EXPECT_EQ(t.arch.architecture, "DINOv3ViTModel");
  EXPECT_EQ(t.arch.num_layers, 40u);
  EXPECT_EQ(find_tensor(t, "embeddings.register_tokens")->shape, (Shape{1, 4, 4096}));
  EXPECT_EQ(find_tensor(t, "embeddings.mask_token")->shape, (Shape{1, 1, 4096}));
  // Rotary positions: no position table. The key projection has no bias; k, v, q, o in that order.
  EXPECT_EQ(find_tensor(t, "embeddings.position_embeddings"), nullptr);
  EXPECT_EQ(find_tensor(t, "layer.0.attention.k_proj.bias"), nullptr);
  EXPECT_LT(tensor_index(t, "layer.0.attention.v_proj.weight"),
            tensor_index(t, "layer.0.attention.q_proj.weight"));
  // The 7B's gated MLP, biased.
  EXPECT_EQ(find_tensor(t, "layer.39.mlp.gate_proj.bias")->shape, (Shape{8192}));
  EXPECT_EQ(find_tensor(t, "layer.39.layer_scale2.lambda1")->shape, (Shape{4096}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("layer.3.layer_scale1.lambda1").block, Block::Attention);
  EXPECT_EQ(place_tensor("layer.3.layer_scale2.lambda1").block, Block::Mlp);
}

// DINOv3ViTConfig's defaults: ViT-S/16 without register tokens (an empty [1, 0, 384] table).
TEST(Dinov3Vit, DefaultsAndRefusals) {
  const ModelTemplate t = template_of(R"({"model_type":"dinov3_vit"})");
  EXPECT_EQ(total_of(t), 21'595'008u);
  EXPECT_EQ(find_tensor(t, "embeddings.register_tokens")->shape, (Shape{1, 0, 384}));
  EXPECT_EQ(refusal_of(R"({"model_type":"dinov3_vit","num_attention_heads":5})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"dinov3_vit","patch_size":300})").field, "patch_size");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"dinov3_vit","architectures":["DINOv3ViTForImageClassification"]})").kind,
      ErrorKind::Unsupported);
}

// facebook/dinov3-convnext-{tiny,small,base,large}-pretrain-lvd1689m. The model card's 29M, 50M, 89M and 198M
// count an ImageNet classifier (a 1000-way linear over the last width) these backbones do not have:
// 27,820,128 + 769,000, 49,454,688 + 769,000, 87,566,464 + 1,025,000 and 196,230,336 + 1,537,000.
std::string dinov3_convnext(const std::string& widths, const std::string& depths) {
  return R"({"model_type":"dinov3_convnext","architectures":["DINOv3ConvNextModel"],"hidden_sizes":)" +
         widths + R"(,"depths":)" + depths + "}";
}
TEST(Dinov3ConvNext, SizesMatchTheModelCardLessItsClassifier) {
  EXPECT_EQ(parameters_of(dinov3_convnext("[96,192,384,768]", "[3,3,9,3]")), 27'820'128u);
  EXPECT_EQ(parameters_of(dinov3_convnext("[96,192,384,768]", "[3,3,27,3]")), 49'454'688u);
  EXPECT_EQ(parameters_of(dinov3_convnext("[128,256,512,1024]", "[3,3,27,3]")), 87'566'464u);
  EXPECT_EQ(parameters_of(dinov3_convnext("[192,384,768,1536]", "[3,3,27,3]")), 196'230'336u);
}

TEST(Dinov3ConvNext, StagesAsTransformersRegistersThem) {
  const ModelTemplate t = template_of(R"({"model_type":"dinov3_convnext"})");  // ConvNeXt-T's defaults
  EXPECT_EQ(total_of(t), 27'820'128u);
  EXPECT_EQ(t.arch.num_layers, 18u);
  EXPECT_EQ(t.arch.hidden_size, 768u);
  EXPECT_EQ(find_tensor(t, "stages.0.downsample_layers.0.weight")->shape, (Shape{96, 3, 4, 4}));
  EXPECT_EQ(find_tensor(t, "stages.3.downsample_layers.1.weight")->shape, (Shape{768, 384, 2, 2}));
  EXPECT_EQ(find_tensor(t, "stages.2.layers.8.depthwise_conv.weight")->shape, (Shape{384, 1, 7, 7}));
  // The layer's own gamma is listed before its modules.
  EXPECT_LT(tensor_index(t, "stages.1.layers.0.gamma"),
            tensor_index(t, "stages.1.layers.0.depthwise_conv.weight"));
  EXPECT_EQ(find_tensor(t, "layer_norm.weight")->shape, (Shape{768}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(refusal_of(R"({"model_type":"dinov3_convnext","hidden_sizes":[96,192],"depths":[3]})").field,
            "depths");
}

// apple/aimv2-{large,huge,1B}-patch14-224 and -3B-patch14-448 (Aimv2VisionModel); the model cards give 0.3B,
// 0.6B, 1.2B and 2.7B.
std::string aimv2_vision(int hidden, int intermediate, int heads, int image) {
  return R"({"model_type":"aimv2_vision_model","architectures":["Aimv2VisionModel"],"hidden_size":)" +
         std::to_string(hidden) + R"(,"intermediate_size":)" + std::to_string(intermediate) +
         R"(,"num_hidden_layers":24,"num_attention_heads":)" + std::to_string(heads) +
         R"(,"patch_size":14,"image_size":)" + std::to_string(image) + "}";
}
TEST(Aimv2, VisionSizesMatchTheModelCards) {
  EXPECT_EQ(parameters_of(aimv2_vision(1024, 2816, 8, 224)), 312'345'600u);
  EXPECT_EQ(parameters_of(aimv2_vision(1536, 4096, 12, 224)), 687'932'928u);
  EXPECT_EQ(parameters_of(aimv2_vision(2048, 5632, 16, 224)), 1'247'545'344u);
  EXPECT_EQ(parameters_of(aimv2_vision(3072, 8192, 24, 448)), 2'751'335'424u);
}

TEST(Aimv2, VisionModelAndItsNativeVariant) {
  const ModelTemplate t = template_of(aimv2_vision(1024, 2816, 8, 224));
  EXPECT_EQ(find_tensor(t, "embeddings.position_embedding.weight")->shape, (Shape{256, 1024}));
  EXPECT_EQ(find_tensor(t, "encoder.layers.0.attention.q_proj.bias"), nullptr);  // qkv_bias false
  EXPECT_EQ(find_tensor(t, "encoder.layers.0.rms_norm1.bias"), nullptr);         // RMSNorms
  EXPECT_EQ(find_tensor(t, "encoder.layers.23.ffn.gate_proj.weight")->shape, (Shape{2816, 1024}));
  // The pooling head's query token is its own parameter, before its k_proj.
  EXPECT_LT(tensor_index(t, "head.cls_token"), tensor_index(t, "head.k_proj.weight"));
  EXPECT_EQ(find_tensor(t, "head.output_proj.bias")->shape, (Shape{1024}));
  expect_every_tensor_placed(t);
  // Native-resolution checkpoints compute sin-cos positions; this one has no head either.
  const ModelTemplate native =
      template_of(R"({"model_type":"aimv2_vision_model","is_native":true,"use_head":false})");
  EXPECT_EQ(total_of(native), 308'935'680u);
  EXPECT_EQ(find_tensor(native, "embeddings.position_embedding.weight"), nullptr);
}

// apple/aimv2-large-patch14-224-lit: the large vision tower with its head, Aimv2TextConfig's text tower,
// 768-wide projections and a 0-dimensional logit_scale listed first.
TEST(Aimv2, LitModelHasBothTowers) {
  const ParameterCounts c = counts_of(
      R"({"model_type":"aimv2","architectures":["Aimv2Model"],"projection_dim":768,
          "text_config":{"model_type":"aimv2_text_model"},"vision_config":{"model_type":"aimv2_vision_model"}})");
  EXPECT_EQ(c.total, 436'680'193u);
  EXPECT_EQ(c.towers, 312'345'600u);  // the vision model
  const ModelTemplate t = template_of(R"({"model_type":"aimv2"})");
  EXPECT_EQ(total_of(t), 436'221'441u);  // projection_dim 512
  EXPECT_EQ(t.tensors.front().name, "logit_scale");
  EXPECT_EQ(find_tensor(t, "text_model.embeddings.token_embedding.weight")->shape, (Shape{49408, 768}));
  EXPECT_EQ(find_tensor(t, "text_model.encoder.layers.11.ffn.down_proj.weight")->shape, (Shape{768, 2048}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(refusal_of(R"({"model_type":"aimv2","vision_config":{"num_attention_heads":9}})").field,
            "vision_config.num_attention_heads");
}

// DeepGlint-AI/mlcd-vit-bigG-patch14-336 and -448: CLIP's tower without a position table, so the image size
// does not change the count; class_pos_emb is half a head (104 / 2) wide.
TEST(Mlcd, BigGAtBothResolutions) {
  constexpr const char* kBigG = R"({"model_type":"mlcd_vision_model","architectures":["MLCDVisionModel"],
      "hidden_size":1664,"intermediate_size":8192,"num_hidden_layers":48,"num_attention_heads":16,
      "image_size":336,"patch_size":14})";
  EXPECT_EQ(parameters_of(kBigG), 1'842'349'748u);
  EXPECT_EQ(parameters_of(replaced(kBigG, "336", "448")), 1'842'349'748u);
  const ModelTemplate t = template_of(kBigG);
  EXPECT_EQ(t.tensors.front().name, "vision_model.class_pos_emb");
  EXPECT_EQ(t.tensors.front().shape, (Shape{1, 52}));
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.patch_embedding.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "vision_model.pre_layrnorm.weight"), nullptr);
  expect_every_tensor_placed(t);
  // transformers' auto classes map model_type mlcd to the same class.
  EXPECT_EQ(parameters_of(R"({"model_type":"mlcd"})"), 1'842'349'748u);
  EXPECT_EQ(refusal_of(R"({"model_type":"mlcd","patch_size":400})").field, "patch_size");
}

// facebook/metaclip-2-worldwide-huge-quickgelu, sized as transformers' convert_metaclip_2_to_hf.py writes its
// config (ViT-H-14-quickgelu-worldwide: a ViT-H/14, a 1024-wide text tower over XLM-V's 901,629 tokens,
// 1024-wide projections): CLIP's modules. MetaClip2Config reads its sub-configs as CLIP's whatever model_type
// they name.
TEST(MetaClip2, WorldwideHugeIsClipsModules) {
  const ParameterCounts c = counts_of(
      R"({"model_type":"metaclip_2","architectures":["MetaClip2Model"],"projection_dim":1024,
          "text_config":{"model_type":"metaclip_2_text_model","hidden_size":1024,"intermediate_size":4096,
          "num_hidden_layers":24,"num_attention_heads":16,"vocab_size":901629},
          "vision_config":{"model_type":"metaclip_2_vision_model","hidden_size":1280,"intermediate_size":5120,
          "num_hidden_layers":32,"num_attention_heads":16,"patch_size":14,"image_size":224}})");
  EXPECT_EQ(c.total, 1'858'783'745u);
  EXPECT_EQ(c.towers, 630'766'080u);
  // MetaClip2Config's defaults are CLIPConfig's: openai/clip-vit-base-patch32's 151,277,313.
  const ModelTemplate t = template_of(R"({"model_type":"metaclip_2"})");
  EXPECT_EQ(total_of(t), 151'277'313u);
  EXPECT_EQ(t.arch.architecture, "MetaClip2Model");
  expect_every_tensor_placed(t);
  EXPECT_EQ(refusal_of(R"({"model_type":"metaclip_2","vision_config":{"num_attention_heads":7}})").field,
            "vision_config.num_attention_heads");
}

}  // namespace
}  // namespace ma::test
