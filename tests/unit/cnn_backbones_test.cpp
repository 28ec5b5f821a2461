// The convolutional image backbones of group cnn_backbones (model/families/resnet.cpp, convnext.cpp,
// regnet.cpp, mobilenet_v1.cpp, mobilenet_v2.cpp, efficientnet.cpp, bit.cpp) on their Hub configs. The counts
// are those of torch reconstructions of transformers' classes (the helper's verify/torch_reference.py
// compares every state_dict entry's name, shape, order and parameter-or-buffer kind), cross-checked against
// the checkpoints' published sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// microsoft/resnet-50's config.json, its shape fields (1,000 ImageNet labels).
const std::string kResNet50 =
    R"({"model_type":"resnet","architectures":["ResNetForImageClassification"],"embedding_size":64,
    "hidden_sizes":[256,512,1024,2048],"depths":[3,4,6,3],"layer_type":"bottleneck","num_channels":3,
    "downsample_in_first_stage":false,)" +
    id2label_of(1000) + "}";
// microsoft/resnet-18's: basic layers.
std::string resnet18() {
  return replaced(kResNet50,
                  R"("hidden_sizes":[256,512,1024,2048],"depths":[3,4,6,3],"layer_type":"bottleneck")",
                  R"("hidden_sizes":[64,128,256,512],"depths":[2,2,2,2],"layer_type":"basic")");
}
// facebook/convnext-tiny-224's.
const std::string kConvNextTiny =
    R"({"model_type":"convnext","architectures":["ConvNextForImageClassification"],"depths":[3,3,9,3],
    "hidden_sizes":[96,192,384,768],"layer_scale_init_value":1e-06,"num_stages":4,"patch_size":4,)" +
    id2label_of(1000) + "}";
// facebook/convnextv2-tiny-1k-224's.
const std::string kConvNextV2Tiny =
    R"({"model_type":"convnextv2","architectures":["ConvNextV2ForImageClassification"],"depths":[3,3,9,3],
    "hidden_sizes":[96,192,384,768],"num_stages":4,"patch_size":4,)" +
    id2label_of(1000) + "}";
// facebook/regnet-y-040's.
const std::string kRegNetY040 =
    R"({"model_type":"regnet","architectures":["RegNetForImageClassification"],"embedding_size":32,
    "hidden_sizes":[128,192,512,1088],"depths":[2,6,12,2],"groups_width":64,"layer_type":"y",)" +
    id2label_of(1000) + "}";
// google/mobilenet_v1_1.0_224's: 1,001 labels (TF-slim's background class first).
const std::string kMobileNetV1 =
    R"({"model_type":"mobilenet_v1","architectures":["MobileNetV1ForImageClassification"],
    "depth_multiplier":1.0,"min_depth":8,"num_channels":3,"image_size":224,)" +
    id2label_of(1001) + "}";
// google/mobilenet_v2_1.0_224's: 1,001 labels.
const std::string kMobileNetV2 =
    R"({"model_type":"mobilenet_v2","architectures":["MobileNetV2ForImageClassification"],
    "depth_multiplier":1.0,"depth_divisible_by":8,"min_depth":8,"expand_ratio":6.0,"output_stride":32,
    "first_layer_is_expansion":true,"finegrained_output":true,"tf_padding":true,"image_size":224,)" +
    id2label_of(1001) + "}";
// google/efficientnet-b0's config.json, its shape fields (EfficientNetConfig's defaults are B7's).
const std::string kEfficientNetB0 =
    R"({"model_type":"efficientnet","architectures":["EfficientNetForImageClassification"],
    "width_coefficient":1.0,"depth_coefficient":1.0,"hidden_dim":1280,"image_size":224,
    "depthwise_padding":[],)" +
    id2label_of(1000) + "}";
// PekingU/rtdetr_r50vd's backbone_config, alone.
constexpr const char* kRtDetrResNet50 =
    R"({"model_type":"rt_detr_resnet","architectures":["RTDetrResNetBackbone"],"embedding_size":64,
    "hidden_sizes":[256,512,1024,2048],"depths":[3,4,6,3],"layer_type":"bottleneck",
    "out_features":["stage2","stage3","stage4"]})";

// ---- ResNet ----

// ResNetForImageClassification: 25,557,032 parameters (microsoft/resnet-50's model card: 25.6M; the same
// as torchvision's resnet50). Batch norms' running statistics are buffers, the head classifier.1.
// BatchNorm's step counter is torch.long whatever the model's dtype: a dry run lists it as int64, 8 bytes, in
// transformers' names and in timm's (whose wrapper renames its tensors on disk), and counts no parameter.
TEST(CnnBackbones, BatchNormStepCountersAreInt64Buffers) {
  for (const std::string& config :
       {kResNet50,
        std::string(R"({"architecture":"resnet18","num_classes":1000,"torch_dtype":"float16"})")}) {
    const Inventory inv = inventory_from_config_text(config, "dry run");
    size_t counters = 0;
    for (const InventoryTensor& t : inv.tensors) {
      if (!t.name.ends_with(".num_batches_tracked")) {
        EXPECT_NE(t.dtype, DType::I64) << t.name;
        continue;
      }
      ++counters;
      EXPECT_EQ(t.dtype, DType::I64) << t.name;
      EXPECT_EQ(t.bytes, 8u) << t.name;
      EXPECT_EQ(t.kind, TensorKind::Buffer) << t.name;
    }
    EXPECT_GE(counters, 20u) << config;  // ResNet-18 has 20 BatchNorms, ResNet-50 53
  }
  // timm's checkpoint names carry no timm_model. prefix.
  const Inventory timm =
      inventory_from_config_text(R"({"architecture":"resnet18","num_classes":1000})", "timm");
  EXPECT_TRUE(std::any_of(timm.tensors.begin(), timm.tensors.end(),
                          [](const InventoryTensor& t) { return t.name == "bn1.num_batches_tracked"; }));
}

TEST(CnnBackbones, ResNet50CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kResNet50), 25'557'032u);
  const ModelTemplate t = template_of(kResNet50);
  EXPECT_EQ(total_of(t), 25'557'032u);
  EXPECT_EQ(t.arch.architecture, "ResNetForImageClassification");
  EXPECT_EQ(t.arch.num_layers, 16u);
  EXPECT_EQ(find_tensor(t, "resnet.embedder.embedder.convolution.weight")->shape, (Shape{64, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, "resnet.encoder.stages.0.layers.0.shortcut.convolution.weight")->shape,
            (Shape{256, 64, 1, 1}));
  EXPECT_EQ(find_tensor(t, "resnet.encoder.stages.3.layers.2.layer.1.convolution.weight")->shape,
            (Shape{512, 512, 3, 3}));
  EXPECT_EQ(find_tensor(t, "resnet.encoder.stages.1.layers.0.layer.0.normalization.running_var")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(
      find_tensor(t, "resnet.encoder.stages.1.layers.0.layer.0.normalization.num_batches_tracked")->kind,
      TensorKind::Buffer);
  // The shortcut is registered before the layer's convolutions.
  EXPECT_LT(tensor_index(t, "resnet.encoder.stages.1.layers.0.shortcut.convolution.weight"),
            tensor_index(t, "resnet.encoder.stages.1.layers.0.layer.0.convolution.weight"));
  EXPECT_EQ(find_tensor(t, "classifier.1.weight")->shape, (Shape{1000, 2048}));
  // Only the first layer of each stage projects its shortcut.
  EXPECT_EQ(find_tensor(t, "resnet.encoder.stages.0.layers.1.shortcut.convolution.weight"), nullptr);
  expect_every_tensor_placed(t);
}

// ResNet-18: 11,689,512 (torchvision's resnet18); the bare ResNetModel of ResNet-50 drops the 2,049,000
// head parameters. Stage 0 of a basic ResNet keeps the stem's width and strides 1: no shortcut.
TEST(CnnBackbones, ResNetBasicAndBareModels) {
  const ModelTemplate r18 = template_of(resnet18());
  EXPECT_EQ(total_of(r18), 11'689'512u);
  EXPECT_EQ(find_tensor(r18, "resnet.encoder.stages.0.layers.0.shortcut.convolution.weight"), nullptr);
  EXPECT_EQ(find_tensor(r18, "resnet.encoder.stages.1.layers.0.layer.0.convolution.weight")->shape,
            (Shape{128, 64, 3, 3}));
  const ModelTemplate bare = template_of(replaced(kResNet50, "ResNetForImageClassification", "ResNetModel"));
  EXPECT_EQ(total_of(bare), 23'508'032u);
  EXPECT_NE(find_tensor(bare, "embedder.embedder.convolution.weight"), nullptr);
  EXPECT_EQ(find_tensor(bare, "classifier.1.weight"), nullptr);
}

// ---- RT-DETR's ResNet-vd alone ----

// RTDetrResNetBackbone of R50-vd: 23,527,264 parameters with trainable batch norms (three 3 x 3 stem convs,
// average-pooled striding shortcuts at shortcut.1). The stem's Sequential indices are no layers.
TEST(CnnBackbones, RtDetrResNetBackboneAlone) {
  const ModelTemplate t = template_of(kRtDetrResNet50);
  EXPECT_EQ(total_of(t), 23'527'264u);
  EXPECT_EQ(t.arch.architecture, "RTDetrResNetBackbone");
  EXPECT_EQ(find_tensor(t, "embedder.embedder.0.convolution.weight")->shape, (Shape{32, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "embedder.embedder.2.normalization.weight")->kind, TensorKind::Parameter);
  EXPECT_EQ(find_tensor(t, "encoder.stages.1.layers.0.shortcut.1.convolution.weight")->shape,
            (Shape{512, 256, 1, 1}));
  EXPECT_FALSE(place_tensor("embedder.embedder.1.convolution.weight").layer.has_value());
  expect_every_tensor_placed(t);
  // R18-vd: basic layers, every stage's first layer projecting its shortcut.
  const std::string r18 = replaced(
      kRtDetrResNet50, R"("hidden_sizes":[256,512,1024,2048],"depths":[3,4,6,3],"layer_type":"bottleneck")",
      R"("hidden_sizes":[64,128,256,512],"depths":[2,2,2,2],"layer_type":"basic")");
  EXPECT_EQ(total_of(template_of(r18)), 11'199'968u);
}

// ---- ConvNeXt and ConvNeXt V2 ----

// ConvNextForImageClassification: 28,589,128 parameters (facebook/convnext-tiny-224, "28.6M"; torchvision's
// convnext_tiny the same). The layer-scale vector is listed first in its layer.
TEST(CnnBackbones, ConvNextTinyCountsAsTransformersBuildsIt) {
  const ModelTemplate t = template_of(kConvNextTiny);
  EXPECT_EQ(total_of(t), 28'589'128u);
  EXPECT_EQ(t.arch.num_layers, 18u);
  EXPECT_EQ(find_tensor(t, "convnext.embeddings.patch_embeddings.weight")->shape, (Shape{96, 3, 4, 4}));
  EXPECT_EQ(find_tensor(t, "convnext.encoder.stages.0.downsampling_layer.0.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "convnext.encoder.stages.1.downsampling_layer.1.weight")->shape,
            (Shape{192, 96, 2, 2}));
  EXPECT_EQ(find_tensor(t, "convnext.encoder.stages.2.layers.8.dwconv.weight")->shape, (Shape{384, 1, 7, 7}));
  EXPECT_EQ(tensor_index(t, "convnext.encoder.stages.0.layers.0.layer_scale_parameter") + 1,
            tensor_index(t, "convnext.encoder.stages.0.layers.0.dwconv.weight"));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 768}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("convnext.encoder.stages.1.layers.0.pwconv1.weight").block, Block::Mlp);
  // layer_scale_init_value 0: no layer-scale vectors (18 of them, 1,440 values).
  const ModelTemplate bare = template_of(
      replaced(replaced(kConvNextTiny, "ConvNextForImageClassification", "ConvNextModel"), "1e-06", "0"));
  EXPECT_EQ(total_of(bare), 27'813'504u);
}

// ConvNextV2ForImageClassification: 28,635,496 (facebook/convnextv2-tiny-1k-224, "28.6M"): a GRN of two
// [1, 1, 1, 4 * dim] tensors between the pointwise linears, no layer scale. Atto (2, 2, 6, 2 blocks of
// 40 ... 320): 3,708,400 (the paper's 3.7M).
TEST(CnnBackbones, ConvNextV2CountsAsTransformersBuildsIt) {
  const ModelTemplate t = template_of(kConvNextV2Tiny);
  EXPECT_EQ(total_of(t), 28'635'496u);
  EXPECT_EQ(find_tensor(t, "convnextv2.encoder.stages.3.layers.2.grn.weight")->shape, (Shape{1, 1, 1, 3072}));
  EXPECT_EQ(find_tensor(t, "convnextv2.encoder.stages.0.layers.0.layer_scale_parameter"), nullptr);
  expect_every_tensor_placed(t);
  const std::string atto =
      replaced(replaced(kConvNextV2Tiny, "[3,3,9,3]", "[2,2,6,2]"), "[96,192,384,768]", "[40,80,160,320]");
  EXPECT_EQ(total_of(template_of(atto)), 3'708'400u);
}

// ---- RegNet ----

// RegNetForImageClassification: 20,646,656 parameters (facebook/regnet-y-040; pycls' RegNetY-4.0GF:
// 20.6M). Grouped 3 x 3 convs (groups = width / 64), the SE block's reduced width round(in / 4).
TEST(CnnBackbones, RegNetY040CountsAsTransformersBuildsIt) {
  const ModelTemplate t = template_of(kRegNetY040);
  EXPECT_EQ(total_of(t), 20'646'656u);
  EXPECT_EQ(find_tensor(t, "regnet.embedder.embedder.convolution.weight")->shape, (Shape{32, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "regnet.encoder.stages.1.layers.1.layer.1.convolution.weight")->shape,
            (Shape{192, 64, 3, 3}));
  EXPECT_EQ(find_tensor(t, "regnet.encoder.stages.3.layers.0.layer.2.attention.0.weight")->shape,
            (Shape{128, 1088, 1, 1}));
  EXPECT_EQ(find_tensor(t, "classifier.1.weight")->shape, (Shape{1000, 1088}));
  expect_every_tensor_placed(t);
  // RegNetX-200MF (facebook/regnet-x-002): no SE, 2,684,792 (pycls: 2.7M).
  const std::string x002 =
      replaced(replaced(replaced(kRegNetY040, R"("hidden_sizes":[128,192,512,1088],"depths":[2,6,12,2])",
                                 R"("hidden_sizes":[24,56,152,368],"depths":[1,1,4,7])"),
                        R"("groups_width":64)", R"("groups_width":8)"),
               R"("layer_type":"y")", R"("layer_type":"x")");
  EXPECT_EQ(total_of(template_of(x002)), 2'684'792u);
  // Python's round halves to even: an input of 34 channels squeezes to 8 (8.5), not 9.
  const ModelTemplate odd = template_of(
      R"({"model_type":"regnet","embedding_size":34,"hidden_sizes":[48],"depths":[1],"groups_width":24})");
  EXPECT_EQ(find_tensor(odd, "encoder.stages.0.layers.0.layer.2.attention.0.weight")->shape,
            (Shape{8, 48, 1, 1}));
}

// ---- MobileNetV1 ----

// MobileNetV1ForImageClassification: 4,233,001 parameters (google/mobilenet_v1_1.0_224, "4.2M"). The
// 0.75 multiplier narrows every conv: 2,586,329.
TEST(CnnBackbones, MobileNetV1CountsAsTransformersBuildsIt) {
  const ModelTemplate t = template_of(kMobileNetV1);
  EXPECT_EQ(total_of(t), 4'233'001u);
  EXPECT_EQ(find_tensor(t, "mobilenet_v1.conv_stem.convolution.weight")->shape, (Shape{32, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "mobilenet_v1.layer.24.convolution.weight")->shape, (Shape{1024, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, "mobilenet_v1.layer.25.convolution.weight")->shape, (Shape{1024, 1024, 1, 1}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1001, 1024}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(total_of(template_of(
                replaced(kMobileNetV1, R"("depth_multiplier":1.0)", R"("depth_multiplier":0.75)"))),
            2'586'329u);
}

// ---- MobileNetV2 ----

// MobileNetV2ForImageClassification: 3,506,153 parameters (google/mobilenet_v2_1.0_224, "3.5M";
// torchvision's 3,504,872 with 1,000 labels). The 0.35 multiplier keeps the last conv at 1,280
// (finegrained_output): 1,678,409; 1.4 widens it to 1,792: 6,110,569.
TEST(CnnBackbones, MobileNetV2CountsAsTransformersBuildsIt) {
  const ModelTemplate t = template_of(kMobileNetV2);
  EXPECT_EQ(total_of(t), 3'506'153u);
  EXPECT_EQ(find_tensor(t, "mobilenet_v2.conv_stem.first_conv.convolution.weight")->shape,
            (Shape{32, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "mobilenet_v2.conv_stem.expand_1x1.convolution.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "mobilenet_v2.layer.15.expand_1x1.convolution.weight")->shape,
            (Shape{960, 160, 1, 1}));
  EXPECT_EQ(find_tensor(t, "mobilenet_v2.conv_1x1.convolution.weight")->shape, (Shape{1280, 320, 1, 1}));
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1001, 1280}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("mobilenet_v2.conv_1x1.convolution.weight").block, Block::Vision);
  EXPECT_EQ(place_tensor("mobilenet_v2.conv_stem.first_conv.convolution.weight").block, Block::Embedding);
  EXPECT_EQ(total_of(template_of(
                replaced(kMobileNetV2, R"("depth_multiplier":1.0)", R"("depth_multiplier":0.35)"))),
            1'678'409u);
  EXPECT_EQ(
      total_of(template_of(replaced(kMobileNetV2, R"("depth_multiplier":1.0)", R"("depth_multiplier":1.4)"))),
      6'110'569u);
}

// ---- EfficientNet ----

// EfficientNetForImageClassification: 5,288,548 parameters (google/efficientnet-b0; the paper's 5.3M). 16
// MBConv blocks in one list; the first (expand ratio 1) has no expansion; the SE's width follows the block's
// input (16 -> 4 in block 1, inside 96 expanded channels).
TEST(CnnBackbones, EfficientNetB0CountsAsTransformersBuildsIt) {
  const ModelTemplate t = template_of(kEfficientNetB0);
  EXPECT_EQ(total_of(t), 5'288'548u);
  EXPECT_EQ(t.arch.num_layers, 16u);
  EXPECT_EQ(find_tensor(t, "efficientnet.embeddings.convolution.weight")->shape, (Shape{32, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "efficientnet.encoder.blocks.0.expansion.expand_conv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "efficientnet.encoder.blocks.1.expansion.expand_conv.weight")->shape,
            (Shape{96, 16, 1, 1}));
  EXPECT_EQ(find_tensor(t, "efficientnet.encoder.blocks.1.squeeze_excite.reduce.weight")->shape,
            (Shape{4, 96, 1, 1}));
  EXPECT_EQ(find_tensor(t, "efficientnet.encoder.blocks.15.depthwise_conv.depthwise_conv.weight")->shape,
            (Shape{1152, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, "efficientnet.encoder.top_conv.weight")->shape, (Shape{1280, 320, 1, 1}));
  EXPECT_EQ(find_tensor(t, "efficientnet.encoder.top_bn.running_var")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, (Shape{1000, 1280}));
  expect_every_tensor_placed(t);
  // B7 (the config class's defaults: width 2.0, depth 3.1, 55 blocks): 66,347,960 (the paper's 66M).
  const ModelTemplate b7 = template_of(R"({"model_type":"efficientnet","architectures":
      ["EfficientNetForImageClassification"],)" +
                                       id2label_of(1000) + "}");
  EXPECT_EQ(total_of(b7), 66'347'960u);
  EXPECT_EQ(b7.arch.num_layers, 55u);
}

// ---- BiT ----

// BitForImageClassification of google/bit-50 (BitConfig's defaults: pre-activation R50x1): 25,549,352
// parameters (the model card's 25.5M). Weight-standardized convs have no bias; GroupNorms no running
// statistics; only the first layer of a stage projects (downsample.conv, no norm with pre-activation).
TEST(CnnBackbones, Bit50CountsAsTransformersBuildsIt) {
  const ModelTemplate t = template_of(R"({"model_type":"bit","architectures":["BitForImageClassification"],
      "layer_type":"preactivation","num_groups":32,"global_padding":null,)" +
                                      id2label_of(1000) + "}");
  EXPECT_EQ(total_of(t), 25'549'352u);
  EXPECT_EQ(find_tensor(t, "bit.embedder.convolution.weight")->shape, (Shape{64, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, "bit.embedder.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "bit.encoder.stages.0.layers.0.downsample.conv.weight")->shape,
            (Shape{256, 64, 1, 1}));
  EXPECT_EQ(find_tensor(t, "bit.encoder.stages.0.layers.0.downsample.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "bit.encoder.stages.3.layers.2.norm1.weight")->shape, (Shape{2048}));
  EXPECT_EQ(find_tensor(t, "bit.encoder.stages.3.layers.2.conv2.weight")->shape, (Shape{512, 512, 3, 3}));
  EXPECT_EQ(find_tensor(t, "bit.norm.bias")->shape, (Shape{2048}));
  EXPECT_EQ(find_tensor(t, "classifier.1.weight")->shape, (Shape{1000, 2048}));
  expect_every_tensor_placed(t);
  // ViT-hybrid's non-pre-activation variant (three stages) norms the stem and the shortcut, not the output.
  const ModelTemplate hybrid = template_of(
      R"({"model_type":"bit","layer_type":"bottleneck","depths":[3,4,9],"hidden_sizes":[256,512,1024]})");
  EXPECT_EQ(total_of(hybrid), 11'894'848u);
  EXPECT_NE(find_tensor(hybrid, "encoder.stages.1.layers.0.downsample.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(hybrid, "norm.weight"), nullptr);
  EXPECT_EQ(refusal_of(R"({"model_type":"bit","num_groups":48})").field, "num_groups");
}

// ---- Refusals ----

TEST(CnnBackbones, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kResNet50, R"("depths":[3,4,6,3])", R"("depths":[3,4,6])")).field, "depths");
  EXPECT_EQ(refusal_of(replaced(kConvNextTiny, R"("num_stages":4)", R"("num_stages":5)")).field,
            "hidden_sizes");
  EXPECT_EQ(refusal_of(replaced(kRegNetY040, R"("groups_width":64)", R"("groups_width":30)")).field,
            "groups_width");
  EXPECT_EQ(refusal_of(replaced(kMobileNetV1, R"("depth_multiplier":1.0)", R"("depth_multiplier":0)")).field,
            "depth_multiplier");
  EXPECT_EQ(
      refusal_of(replaced(kEfficientNetB0, R"("depthwise_padding":[])", R"("expand_ratios":[1,6])")).field,
      "expand_ratios");
  EXPECT_EQ(refusal_of(replaced(kResNet50, "ResNetForImageClassification", "ResNetBackbone")).kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
