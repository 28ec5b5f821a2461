// timm's models as transformers wraps them (model/families/timm_wrapper.cpp; TimmBackbone:
// timm_backbone.cpp), read from the config.json timm writes to the Hub. Expected counts are the published
// ones of the same networks: torchvision's model table (resnet18 11,689,512, resnet50 25,557,032, resnet152
// 60,192,808; vit_b_16 86,567,656, vit_l_16 304,326,632: timm builds the same modules) and timm's model card
// of vit_small_patch16_224 (22.1M: 22,050,664 counted by hand from timm's VisionTransformer: patch 295,296,
// tokens 384 + 75,648, 12 blocks of 1,774,464, norm 768, head 385,000).
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// Every tensor of a bare timm checkpoint (the names the Hub stores) lands in a block of its own.
void expect_stored_names_placed(const ModelTemplate& t) {
  for (const TemplateTensor& x : t.tensors)
    EXPECT_NE(place_tensor(stored_name(x)).block, Block::Other) << stored_name(x);
}

// timm/resnet50.a1_in1k's config.json, as timm's push_to_hub writes it (no model_type, no architectures).
constexpr const char* kTimmResnet50 = R"({"architecture":"resnet50.a1_in1k","num_classes":1000,
  "num_features":2048,"global_pool":"avg","pretrained_cfg":{"tag":"a1_in1k","custom_load":false,
  "input_size":[3,224,224],"fixed_input_size":false,"interpolation":"bicubic","crop_pct":0.95,
  "mean":[0.485,0.456,0.406],"std":[0.229,0.224,0.225],"num_classes":1000,"pool_size":[7,7],
  "first_conv":"conv1","classifier":"fc"}})";

std::string timm_config(const std::string& architecture, const std::string& extra = "") {
  return R"({"architecture":")" + architecture + R"(","num_classes":1000)" + extra + "}";
}

TEST(TimmWrapper, ResNetsCountAsPublished) {
  const ModelTemplate t = template_of(kTimmResnet50);
  EXPECT_EQ(t.arch.model_type, "timm_wrapper");
  EXPECT_EQ(t.arch.architecture, "TimmWrapperForImageClassification");
  EXPECT_EQ(total_of(t), 25'557'032u);
  EXPECT_EQ(parameters_of(timm_config("resnet18")), 11'689'512u);
  EXPECT_EQ(parameters_of(timm_config("resnet152.tv_in1k")), 60'192'808u);
  // TimmWrapperModel builds no head: ResNet-50's body alone.
  EXPECT_EQ(parameters_of(R"({"model_type":"timm_wrapper","architectures":["TimmWrapperModel"],
      "architecture":"resnet50"})"),
            25'557'032u - (2048 * 1000 + 1000));
  // The wrapper holds timm's model as timm_model; the Hub checkpoint holds timm's own names, each
  // BatchNorm2d with its running statistics: 53 convolutions, 53 norms of 5 tensors, the fc weight and bias.
  EXPECT_EQ(stored_name(*find_tensor(t, "timm_model.layer4.2.bn3.running_var")), "layer4.2.bn3.running_var");
  EXPECT_EQ(find_tensor(t, "timm_model.layer1.0.downsample.0.weight")->shape, (Shape{256, 64, 1, 1}));
  EXPECT_EQ(find_tensor(t, "timm_model.fc.weight")->shape, (Shape{1000, 2048}));
  EXPECT_EQ(disk_totals(t).tensors, 53u + 53u * 5 + 2);
  expect_every_tensor_placed(t);
  expect_stored_names_placed(t);
  EXPECT_EQ(place_tensor("layer3.0.downsample.1.running_mean").block, Block::Norm);
  EXPECT_EQ(place_tensor("layer3.0.downsample.0.weight").block, Block::Vision);
  expect_reads_cleanly(kTimmResnet50);
}

TEST(TimmWrapper, VisionTransformersCountAsPublished) {
  const ModelTemplate t = template_of(timm_config("vit_base_patch16_224.augreg2_in21k_ft_in1k"));
  EXPECT_EQ(total_of(t), 86'567'656u);
  EXPECT_EQ(parameters_of(timm_config("vit_large_patch16_224")), 304'326'632u);
  EXPECT_EQ(parameters_of(timm_config("vit_small_patch16_224.augreg_in21k_ft_in1k")), 22'050'664u);
  // The model's own parameters first, then the patch convolution, the blocks, the norm and the head.
  EXPECT_EQ(t.tensors[0].name, "timm_model.cls_token");
  EXPECT_EQ(t.tensors[1].name, "timm_model.pos_embed");
  EXPECT_EQ(t.tensors[1].shape, (Shape{1, 197, 768}));
  EXPECT_EQ(t.tensors[2].name, "timm_model.patch_embed.proj.weight");
  EXPECT_EQ(find_tensor(t, "timm_model.blocks.11.attn.qkv.weight")->shape, (Shape{2304, 768}));
  EXPECT_EQ(t.tensors.back().name, "timm_model.head.bias");
  EXPECT_EQ(stored_name(*find_tensor(t, "timm_model.blocks.0.mlp.fc1.weight")), "blocks.0.mlp.fc1.weight");
  EXPECT_EQ(t.arch.num_layers, 12u);
  EXPECT_EQ(t.arch.num_attention_heads, 12u);
  EXPECT_EQ(t.arch.intermediate_size, 3072u);
  EXPECT_EQ(t.arch.norm, NormKind::LayerNorm);
  EXPECT_EQ(t.arch.position, PositionKind::Learned);
  EXPECT_FALSE(t.arch.stacks.front().layers.front().ffn.gated);
  // A 384-pixel model has 577 positions (24 x 24 patches and the class token).
  EXPECT_EQ(find_tensor(template_of(timm_config("vit_base_patch16_384")), "timm_model.pos_embed")->shape,
            (Shape{1, 577, 768}));
  expect_every_tensor_placed(t);
  expect_stored_names_placed(t);
  expect_reads_cleanly(timm_config("vit_small_patch32_224"));
}

TEST(TimmWrapper, RefusesWhatItDoesNotModel) {
  // Another timm architecture, or a variant of the plain ViT with other modules (CLIP's pre-norm, DINOv2's
  // layer scale).
  for (const char* other :
       {"convnext_tiny.fb_in1k", "vit_base_patch16_clip_224", "vit_small_patch14_dinov2"}) {
    const Refusal r = refusal_of(timm_config(other));
    EXPECT_EQ(r.kind, ErrorKind::Unsupported) << other;
    EXPECT_EQ(r.field, "architecture") << other;
  }
  // create_model arguments that reshape the network.
  EXPECT_EQ(refusal_of(timm_config("resnet50", R"(,"model_args":{"features_only":true})")).field,
            "model_args.features_only");
  EXPECT_EQ(parameters_of(timm_config("resnet50", R"(,"model_args":{"drop_path_rate":0.1})")), 25'557'032u);
  // transformers refuses a classifier without classes; a headless timm config is TimmWrapperModel's.
  EXPECT_EQ(refusal_of(R"({"model_type":"timm_wrapper","architectures":["TimmWrapperForImageClassification"],
      "architecture":"resnet18","num_classes":0})")
                .field,
            "num_classes");
  const ModelTemplate headless = template_of(
      replaced(timm_config("vit_base_patch16_224"), R"("num_classes":1000)", R"("num_classes":0)"));
  EXPECT_EQ(headless.arch.architecture, "TimmWrapperModel");
  EXPECT_EQ(total_of(headless), 86'567'656u - (768 * 1000 + 1000));
}

// transformers' TimmBackbone: timm.create_model(backbone, features_only=True, out_indices=...) under
// _backbone. A ResNet's feature layers are its published count less the classifier (resnet50 25,557,032 less
// fc's 2,048 x 1,000 + 1,000; resnet18 11,689,512 less 512 x 1,000 + 1,000), cut after the last feature
// out_indices reads (0 the stem's act1, 1..4 layer1..layer4; TimmBackboneConfig's default [-1], the last).
std::string timm_backbone(const std::string& extra) {
  return R"({"model_type":"timm_backbone","architectures":["TimmBackbone"],"use_pretrained_backbone":false,)" +
         extra + "}";
}

TEST(TimmWrapper, TimmBackboneIsAResNetsFeatureLayers) {
  const ModelTemplate r50 = template_of(timm_backbone(R"("backbone":"resnet50.a1_in1k")"));
  EXPECT_EQ(r50.arch.architecture, "TimmBackbone");
  EXPECT_EQ(total_of(r50), 25'557'032u - (2'048 * 1'000 + 1'000));
  EXPECT_EQ(r50.tensors.front().name, "_backbone.conv1.weight");
  EXPECT_EQ(find_tensor(r50, "_backbone.fc.weight"), nullptr);
  EXPECT_EQ(r50.arch.num_layers, 16u);  // 3 + 4 + 6 + 3 bottleneck blocks
  EXPECT_EQ(parameters_of(timm_backbone(R"("backbone":"resnet18","out_indices":[1,2,3,4])")),
            11'689'512u - (512 * 1'000 + 1'000));
  // out_indices [1] keeps the stem and layer1; [-2] everything up to layer3.
  const ModelTemplate to_layer1 = template_of(timm_backbone(R"("backbone":"resnet50","out_indices":[1])"));
  EXPECT_NE(find_tensor(to_layer1, "_backbone.layer1.2.conv3.weight"), nullptr);
  EXPECT_EQ(find_tensor(to_layer1, "_backbone.layer2.0.conv1.weight"), nullptr);
  const ModelTemplate to_layer3 = template_of(timm_backbone(R"("backbone":"resnet50","out_indices":[-2])"));
  EXPECT_NE(find_tensor(to_layer3, "_backbone.layer3.5.conv3.weight"), nullptr);
  EXPECT_EQ(find_tensor(to_layer3, "_backbone.layer4.0.conv1.weight"), nullptr);
  // freeze_batch_norm_2d: timm's FrozenBatchNorm2d keeps weight, bias and the running statistics as buffers.
  const ModelTemplate frozen =
      template_of(timm_backbone(R"("backbone":"resnet50","freeze_batch_norm_2d":true)"));
  EXPECT_EQ(find_tensor(frozen, "_backbone.bn1.weight")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(frozen, "_backbone.bn1.num_batches_tracked"), nullptr);
  EXPECT_LT(total_of(frozen), total_of(r50));
  expect_every_tensor_placed(r50);
  expect_stored_names_placed(r50);
  expect_reads_cleanly(timm_backbone(R"("backbone":"resnet18")"));
}

TEST(TimmWrapper, TimmBackboneRefusesWhatTransformersOrThisAnalysisDoes) {
  EXPECT_EQ(refusal_of(timm_backbone(R"("num_channels":3)")).field, "backbone");
  EXPECT_EQ(refusal_of(timm_backbone(R"("backbone":"resnet50","out_features":["stage4"])")).field,
            "out_features");
  EXPECT_EQ(refusal_of(timm_backbone(R"("backbone":"resnet50","out_indices":[5])")).field, "out_indices");
  EXPECT_EQ(refusal_of(timm_backbone(R"("backbone":"resnet50","features_only":false)")).kind,
            ErrorKind::Unsupported);
  const Refusal other = refusal_of(timm_backbone(R"("backbone":"convnext_tiny")"));
  EXPECT_EQ(other.kind, ErrorKind::Unsupported);
  EXPECT_EQ(other.field, "backbone");
}

}  // namespace
}  // namespace ma::test
