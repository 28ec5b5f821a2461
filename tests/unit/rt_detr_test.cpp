// RT-DETR and RT-DETR v2 (model/families/rt_detr_model.cpp over rt_detr_resnet.cpp and rt_detr_encoder.cpp)
// on the PekingU configs. The counts are those of transformers' RTDetrForObjectDetection and
// RTDetrV2ForObjectDetection (modeling_rt_detr.py, modeling_rt_detr_resnet.py, modular_rt_detr_v2.py): the
// helper's verify/ rebuilt their module construction with torch.nn and compared every state_dict key, shape,
// order and parameter/buffer kind. The RT-DETR papers give 20M / 31M / 42M / 76M for R18 / R34 / R50 / R101,
// v1 and v2 alike.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// PekingU/rtdetr_r50vd's config.json (reconstructed), its shape fields: a ResNet-50-vd handing stages 2 to 4
// to a 256-wide hybrid encoder, six decoder layers, COCO's 80 labels.
const std::string kRtDetrResnet50 =
    R"({"model_type":"rt_detr","architectures":["RTDetrForObjectDetection"],"use_timm_backbone":false,
    "backbone":null,"backbone_config":{"model_type":"rt_detr_resnet","depths":[3,4,6,3],
    "hidden_sizes":[256,512,1024,2048],"layer_type":"bottleneck","embedding_size":64,"num_channels":3,
    "downsample_in_bottleneck":true,"out_features":["stage2","stage3","stage4"],"out_indices":[2,3,4]},
    "d_model":256,"encoder_hidden_dim":256,"encoder_in_channels":[512,1024,2048],"encoder_layers":1,
    "encoder_ffn_dim":1024,"encoder_attention_heads":8,"encode_proj_layers":[2],"hidden_expansion":1.0,
    "decoder_in_channels":[256,256,256],"decoder_layers":6,"decoder_attention_heads":8,"decoder_ffn_dim":1024,
    "decoder_n_points":4,"num_feature_levels":3,"num_queries":300,"num_denoising":100,
    "learn_initial_query":false,"freeze_backbone_batch_norms":true,)" +
    id2label_of(80) + "}";

// The R18 / R34 changes of the conversion script: a basic-block ResNet of 64 to 512 channels, a
// half-width CSP neck, three or four decoder layers.
std::string rt_detr_basic(const std::string& depths, const std::string& decoder_layers) {
  std::string c = replaced(kRtDetrResnet50, R"("depths":[3,4,6,3])", R"("depths":)" + depths);
  c = replaced(c, R"("hidden_sizes":[256,512,1024,2048],"layer_type":"bottleneck")",
               R"("hidden_sizes":[64,128,256,512],"layer_type":"basic")");
  c = replaced(c, R"("encoder_in_channels":[512,1024,2048])", R"("encoder_in_channels":[128,256,512])");
  c = replaced(c, R"("hidden_expansion":1.0)", R"("hidden_expansion":0.5)");
  return replaced(c, R"("decoder_layers":6)", R"("decoder_layers":)" + decoder_layers);
}

// R101: 23 blocks in stage 3 and a 384-wide encoder with 2048-wide FFNs.
std::string rt_detr_r101() {
  std::string c = replaced(kRtDetrResnet50, R"("depths":[3,4,6,3])", R"("depths":[3,4,23,3])");
  c = replaced(c, R"("encoder_hidden_dim":256)", R"("encoder_hidden_dim":384)");
  c = replaced(c, R"("encoder_ffn_dim":1024)", R"("encoder_ffn_dim":2048)");
  return replaced(c, R"("decoder_in_channels":[256,256,256])", R"("decoder_in_channels":[384,384,384])");
}

std::string as_v2(const std::string& v1) {
  return replaced(
      replaced(v1, R"("model_type":"rt_detr",)", R"("model_type":"rt_detr_v2","decoder_n_levels":3,)"),
      "RTDetrForObjectDetection", "RTDetrV2ForObjectDetection");
}

// RTDetrForObjectDetection(PekingU/rtdetr_r50vd): 42,891,372 parameters (the paper's 42M). The backbone's
// batch norms are frozen (four buffers each, no parameter), the encoder's and the projections' trainable
// BatchNorm2d (two parameters, three buffers).
TEST(RtDetr, Resnet50CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kRtDetrResnet50), 42'891'372u);
  const ModelTemplate t = template_of(kRtDetrResnet50);
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 764u);
  EXPECT_EQ(d.elements, 43'019'414u);
  // ResNet-vd: a three-convolution stem and average-pooled striding shortcuts (shortcut.1 behind the pool).
  const std::string bb = "model.backbone.model.";
  EXPECT_EQ(find_tensor(t, bb + "embedder.embedder.0.convolution.weight")->shape, (Shape{32, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, bb + "embedder.embedder.0.normalization.weight")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, bb + "encoder.stages.0.layers.0.shortcut.convolution.weight")->shape,
            (Shape{256, 64, 1, 1}));
  EXPECT_EQ(find_tensor(t, bb + "encoder.stages.1.layers.0.shortcut.1.convolution.weight")->shape,
            (Shape{512, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, bb + "encoder.stages.1.layers.1.shortcut.convolution.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder_input_proj.2.0.weight")->shape, (Shape{256, 2048, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.encoder_input_proj.2.1.weight")->kind, TensorKind::Parameter);
  ASSERT_NE(find_tensor(t, "model.encoder_input_proj.2.1.num_batches_tracked"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.encoder.0.layers.0.fc1.weight")->shape, (Shape{1024, 256}));
  EXPECT_EQ(find_tensor(t, "model.encoder.fpn_blocks.1.conv1.conv.weight")->shape, (Shape{256, 512, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.encoder.fpn_blocks.1.conv3.conv.weight"), nullptr);  // hidden_expansion 1
  EXPECT_EQ(find_tensor(t, "model.denoising_class_embed.weight")->shape, (Shape{81, 256}));
  EXPECT_EQ(find_tensor(t, "model.weight_embedding.weight"), nullptr);
  // The deformable cross-attention samples 4 points on each of 3 levels for each of 8 heads.
  const std::string layer5 = "model.decoder.layers.5.";
  EXPECT_EQ(find_tensor(t, layer5 + "encoder_attn.sampling_offsets.weight")->shape, (Shape{192, 256}));
  EXPECT_EQ(find_tensor(t, layer5 + "encoder_attn.attention_weights.weight")->shape, (Shape{96, 256}));
  EXPECT_EQ(find_tensor(t, "model.decoder.query_pos_head.layers.0.weight")->shape, (Shape{512, 4}));
  // One classifier and one box head per decoder layer, on the decoder alone (no top-level copy in v1).
  EXPECT_EQ(find_tensor(t, "model.decoder.class_embed.5.weight")->shape, (Shape{80, 256}));
  EXPECT_EQ(find_tensor(t, "model.decoder.bbox_embed.5.layers.2.weight")->shape, (Shape{4, 256}));
  EXPECT_EQ(find_tensor(t, "class_embed.0.weight"), nullptr);
  // Registration order: the heads follow query_pos_head, every classifier before the first box head.
  EXPECT_LT(tensor_index(t, "model.decoder.query_pos_head.layers.1.bias"),
            tensor_index(t, "model.decoder.class_embed.0.weight"));
  EXPECT_LT(tensor_index(t, "model.decoder.class_embed.5.bias"),
            tensor_index(t, "model.decoder.bbox_embed.0.layers.0.weight"));
  EXPECT_LT(tensor_index(t, "model.encoder.lateral_convs.1.norm.num_batches_tracked"),
            tensor_index(t, "model.encoder.fpn_blocks.0.conv1.conv.weight"));
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 6u);
  ASSERT_NE(t.arch.stack(StackRole::Vision), nullptr);
}

// R18 / R34 / R101 (the papers' 20M / 31M / 42M / 76M); RTDetrModel drops the per-layer heads; the config
// class's defaults build R50 with 2 labels.
TEST(RtDetr, VariantsCountAsTransformersBuildThem) {
  EXPECT_EQ(parameters_of(rt_detr_basic("[2,2,2,2]", "3")), 20'174'608u);
  EXPECT_EQ(parameters_of(rt_detr_basic("[3,4,6,3]", "4")), 31'424'388u);
  EXPECT_EQ(parameters_of(rt_detr_r101()), 76'556'268u);
  EXPECT_EQ(parameters_of(replaced(kRtDetrResnet50, "RTDetrForObjectDetection", "RTDetrModel")), 41'972'340u);
  EXPECT_EQ(parameters_of(R"({"model_type":"rt_detr"})"), 41'932'326u);
  // R18's basic blocks: stage 0's first layer projects its shortcut though the widths match; the
  // half-width CSP blocks end in a conv3 back to the encoder's width.
  const ModelTemplate r18 = template_of(rt_detr_basic("[2,2,2,2]", "3"));
  EXPECT_EQ(
      find_tensor(r18, "model.backbone.model.encoder.stages.0.layers.0.shortcut.convolution.weight")->shape,
      (Shape{64, 64, 1, 1}));
  EXPECT_EQ(find_tensor(r18, "model.encoder.fpn_blocks.0.conv3.conv.weight")->shape, (Shape{256, 128, 1, 1}));
  EXPECT_EQ(find_tensor(r18, "model.decoder.class_embed.3.weight"), nullptr);
}

// RT-DETR v2: the same parameters (its attention only adds a persistent n_points_scale buffer per layer),
// but RTDetrV2ForObjectDetection also holds the decoder's head lists as its own class_embed and bbox_embed:
// state_dict lists them twice, parameters() and checkpoints once (under model.decoder.).
TEST(RtDetrV2, CountsAsTransformersBuildsIt) {
  const std::string v2 = as_v2(kRtDetrResnet50);
  EXPECT_EQ(parameters_of(v2), 42'891'372u);
  const ModelTemplate t = template_of(v2);
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 770u);
  EXPECT_EQ(d.elements, 43'019'486u);
  EXPECT_EQ(t.tensors.size(), 818u);
  const std::string attn = "model.decoder.layers.0.encoder_attn.";
  EXPECT_EQ(find_tensor(t, attn + "n_points_scale")->shape, (Shape{12}));
  EXPECT_EQ(find_tensor(t, attn + "n_points_scale")->kind, TensorKind::Buffer);
  EXPECT_LT(tensor_index(t, attn + "n_points_scale"), tensor_index(t, attn + "sampling_offsets.weight"));
  const TemplateTensor* alias = find_tensor(t, "bbox_embed.5.layers.2.bias");
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->tied_to, "model.decoder.bbox_embed.5.layers.2.bias");
  EXPECT_FALSE(alias->stored);
  EXPECT_EQ(parameters_of(as_v2(rt_detr_basic("[2,2,2,2]", "3"))), 20'174'608u);
  EXPECT_EQ(parameters_of(as_v2(rt_detr_r101())), 76'556'268u);
  EXPECT_EQ(parameters_of(R"({"model_type":"rt_detr_v2"})"), 41'932'326u);
}

TEST(RtDetr, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(
      refusal_of(replaced(kRtDetrResnet50, R"("model_type":"rt_detr_resnet")", R"("model_type":"resnet")"))
          .field,
      "backbone_config.model_type");
  EXPECT_EQ(
      refusal_of(replaced(kRtDetrResnet50, R"("layer_type":"bottleneck")", R"("layer_type":"preact")")).field,
      "backbone_config.layer_type");
  EXPECT_EQ(refusal_of(replaced(kRtDetrResnet50, R"("out_features":["stage2","stage3","stage4"])",
                                R"("out_features":["stage5"])"))
                .field,
            "backbone_config.out_features");
  EXPECT_EQ(refusal_of(
                replaced(kRtDetrResnet50, R"("decoder_attention_heads":8)", R"("decoder_attention_heads":7)"))
                .field,
            "decoder_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kRtDetrResnet50, R"("decoder_in_channels":[256,256,256])",
                                R"("decoder_in_channels":[])"))
                .field,
            "decoder_in_channels");
  EXPECT_EQ(
      refusal_of(replaced(kRtDetrResnet50, R"("hidden_expansion":1.0)", R"("hidden_expansion":0.001)")).field,
      "hidden_expansion");
  EXPECT_EQ(
      refusal_of(replaced(kRtDetrResnet50, R"("use_timm_backbone":false)", R"("use_timm_backbone":true)"))
          .kind,
      ErrorKind::Unsupported);
}

// The backbone (backbone.model) is the vision tower, the hybrid encoder's convolutional neck too; the
// input projections are projectors; the query selection and the per-layer heads are heads, their indices
// no layer; query_pos_head makes the queries' positions.
TEST(RtDetr, PlacesEveryTensor) {
  for (const std::string& config : {kRtDetrResnet50, as_v2(kRtDetrResnet50)})
    expect_every_tensor_placed(template_of(config));
  EXPECT_EQ(place_tensor("model.backbone.model.encoder.stages.2.layers.3.layer.1.convolution.weight").block,
            Block::Vision);
  EXPECT_EQ(place_tensor("model.encoder.pan_blocks.1.bottlenecks.2.conv1.norm.running_var").block,
            Block::Vision);
  EXPECT_EQ(place_tensor("model.decoder_input_proj.2.1.weight").block, Block::VisionProjector);
  const TensorPlacement aifi = place_tensor("model.encoder.encoder.0.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(aifi.block, Block::Attention);
  const TensorPlacement cross = place_tensor("model.decoder.layers.4.encoder_attn.sampling_offsets.weight");
  EXPECT_EQ(cross.block, Block::CrossAttention);
  EXPECT_EQ(cross.layer, 4u);
  EXPECT_EQ(place_tensor("model.decoder.layers.4.encoder_attn.n_points_scale").block, Block::Buffer);
  const TensorPlacement head = place_tensor("model.decoder.class_embed.3.weight");
  EXPECT_EQ(head.block, Block::LmHead);
  EXPECT_FALSE(head.layer.has_value());
  EXPECT_EQ(place_tensor("bbox_embed.2.layers.1.bias").block, Block::LmHead);
  EXPECT_EQ(place_tensor("model.enc_output.1.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("model.decoder.query_pos_head.layers.1.weight").block, Block::Embedding);
}

}  // namespace
}  // namespace ma::test
