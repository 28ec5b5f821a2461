// DAB-DETR (model/families/dab_detr.cpp over DETR's backbone) and D-FINE (model/families/d_fine.cpp over
// HGNetV2 and RT-DETR's encoder pieces). The counts are those of transformers' DabDetrForObjectDetection
// (modeling_dab_detr.py) and DFineForObjectDetection (modeling_d_fine.py / modular_d_fine.py): the helper's
// verify/ rebuilt their module construction with torch.nn and compared every state_dict key, shape, order and
// parameter/buffer kind. Published sizes: DAB-DETR-R50 44M (the DAB-DETR paper's table 2); D-FINE-N / L / X
// 4M / 31M / 62M (the D-FINE paper's table 1).
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// IDEA-Research/dab-detr-resnet-50's config.json (convert_dab_detr_original_pytorch_checkpoint_to_pytorch.py:
// DabDetrConfig's defaults and COCO's 91 labels): timm's resnet50, six + six layers, PReLU activations.
const std::string kDabDetrR50 =
    R"({"model_type":"dab-detr","architectures":["DabDetrForObjectDetection"],"use_timm_backbone":true,
    "backbone":"resnet50","backbone_kwargs":{"in_chans":3,"out_indices":[1,2,3,4]},
    "activation_function":"prelu","num_labels":91})";

// D-FINE's HGNetV2 backbones as convert_d_fine_original_pytorch_checkpoint_to_hf.py sets them (the conversion
// keeps the ResNet fields embedding_size 32, depths and layer_type beside the stage lists).
std::string dfine_hgnet(const std::string& stages) {
  return R"("backbone_config":{"model_type":"hgnet_v2","embedding_size":32,"depths":[3,4,6,3],)"
         R"("layer_type":"basic",)" +
         stages + "}";
}

// ustc-community/dfine-nano-coco: PP-HGNetV2-B0 handing on stages 3 and 4, a 128-wide encoder and decoder,
// two feature levels, three decoder layers.
const std::string kDfineNano =
    R"({"model_type":"d_fine","architectures":["DFineForObjectDetection"],"num_labels":80,
    "hidden_expansion":0.34,"decoder_layers":3,"num_feature_levels":2,"encoder_ffn_dim":512,
    "encode_proj_layers":[1],"d_model":128,"encoder_hidden_dim":128,"decoder_ffn_dim":512,
    "encoder_in_channels":[512,1024],"decoder_n_points":[6,6],"decoder_in_channels":[128,128],
    "feat_strides":[16,32],"depth_mult":0.5,)" +
    dfine_hgnet(R"("hidden_sizes":[128,256,512,1024],"stem_channels":[3,16,16],
    "stage_in_channels":[16,64,256,512],"stage_mid_channels":[16,32,64,128],
    "stage_out_channels":[64,256,512,1024],"stage_num_blocks":[1,1,2,1],
    "stage_downsample":[false,true,true,true],"stage_light_block":[false,false,true,true],
    "stage_kernel_size":[3,3,5,5],"stage_numb_of_layers":[3,3,3,3],"out_indices":[3,4],
    "use_learnable_affine_block":true)") +
    "}";

// ustc-community/dfine-large-coco: PP-HGNetV2-B4 (HGNetV2Config's defaults) handing on stages 2 to 4.
const std::string kDfineLarge =
    R"({"model_type":"d_fine","architectures":["DFineForObjectDetection"],"num_labels":80,
    "hidden_expansion":1.0,"decoder_layers":6,"encoder_ffn_dim":1024,"encoder_in_channels":[512,1024,2048],
    "decoder_n_points":[3,6,3],)" +
    dfine_hgnet(R"("hidden_sizes":[256,512,1024,2048],"stem_channels":[3,32,48],
    "stage_in_channels":[48,128,512,1024],"stage_mid_channels":[48,96,192,384],
    "stage_out_channels":[128,512,1024,2048],"stage_num_blocks":[1,1,3,1],
    "stage_downsample":[false,true,true,true],"stage_light_block":[false,false,true,true],
    "stage_kernel_size":[3,3,5,5],"stage_numb_of_layers":[6,6,6,6],"out_indices":[2,3,4])") +
    "}";

// ustc-community/dfine-xlarge-coco: PP-HGNetV2-B5, a 384-wide encoder feeding the 256-wide decoder through
// projections.
const std::string kDfineXlarge =
    R"({"model_type":"d_fine","architectures":["DFineForObjectDetection"],"num_labels":80,
    "hidden_expansion":1.0,"decoder_layers":6,"encoder_in_channels":[512,1024,2048],"encoder_hidden_dim":384,
    "encoder_ffn_dim":2048,"decoder_n_points":[3,6,3],"decoder_in_channels":[384,384,384],)" +
    dfine_hgnet(R"("hidden_sizes":[256,512,1024,2048],"stem_channels":[3,32,64],
    "stage_in_channels":[64,128,512,1024],"stage_mid_channels":[64,128,256,512],
    "stage_out_channels":[128,512,1024,2048],"stage_num_blocks":[1,2,5,2],
    "stage_downsample":[false,true,true,true],"stage_light_block":[false,false,true,true],
    "stage_kernel_size":[3,3,5,5],"stage_numb_of_layers":[6,6,6,6],"out_indices":[2,3,4])") +
    "}";

}  // namespace

// DabDetrForObjectDetection(dab-detr-resnet-50): 43,671,517 parameters (the paper's 44M). The frozen
// backbone holds its convolutions alone; every encoder layer and decoder mlp adds an nn.PReLU weight.
TEST(DabDetr, Resnet50CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kDabDetrR50), 43'671'517u);
  const ModelTemplate t = template_of(kDabDetrR50);
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 608u);
  EXPECT_EQ(d.elements, 43'777'757u);
  EXPECT_EQ(find_tensor(t, "model.backbone.conv_encoder.model.layer4.2.bn3.weight")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "model.query_refpoint_embeddings.weight")->shape, (Shape{300, 4}));
  EXPECT_EQ(find_tensor(t, "model.input_projection.weight")->shape, (Shape{256, 2048, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.encoder.query_scale.layers.1.weight")->shape, (Shape{256, 256}));
  // The PReLU registers between the attention's LayerNorm and fc1 (encoder), last in the decoder's mlp.
  const std::string enc = "model.encoder.layers.5.";
  EXPECT_EQ(find_tensor(t, enc + "activation_fn.weight")->shape, (Shape{1}));
  EXPECT_EQ(tensor_index(t, enc + "self_attn_layer_norm.bias") + 1,
            tensor_index(t, enc + "activation_fn.weight"));
  EXPECT_EQ(tensor_index(t, enc + "activation_fn.weight") + 1, tensor_index(t, enc + "fc1.weight"));
  const std::string dec = "model.decoder.layers.";
  EXPECT_EQ(tensor_index(t, dec + "0.mlp.final_layer_norm.bias") + 1,
            tensor_index(t, dec + "0.mlp.fc1.weight"));
  EXPECT_EQ(tensor_index(t, dec + "0.mlp.fc2.bias") + 1, tensor_index(t, dec + "0.mlp.activation_fn.weight"));
  // Only the first decoder layer keeps cross_attn_query_pos_proj (keep_query_pos false).
  ASSERT_NE(find_tensor(t, dec + "0.cross_attn.cross_attn_query_pos_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, dec + "1.cross_attn.cross_attn_query_pos_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, dec + "1.cross_attn.cross_attn.output_proj.weight")->shape, (Shape{256, 256}));
  // The anchors' sine embedding is 2 x d_model wide; ref_anchor_head gives a width and a height.
  EXPECT_EQ(find_tensor(t, "model.decoder.ref_point_head.layers.0.weight")->shape, (Shape{256, 512}));
  EXPECT_EQ(find_tensor(t, "model.decoder.ref_anchor_head.layers.1.weight")->shape, (Shape{2, 256}));
  // No "no object" class; bbox_predictor is the decoder's bbox_embed, stored once under model.decoder.
  EXPECT_EQ(find_tensor(t, "class_embed.weight")->shape, (Shape{91, 256}));
  EXPECT_LT(tensor_index(t, "model.decoder.ref_anchor_head.layers.1.bias"),
            tensor_index(t, "model.decoder.bbox_embed.layers.0.weight"));
  const TemplateTensor* alias = find_tensor(t, "bbox_predictor.layers.2.weight");
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->tied_to, "model.decoder.bbox_embed.layers.2.weight");
  EXPECT_FALSE(alias->stored);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 6u);
  expect_every_tensor_placed(t);
}

// DabDetrModel at DabDetrConfig's defaults (no heads, no bbox_embed on its decoder); three patterns with
// every layer's query_pos_proj and the pre-norm encoder's LayerNorm; a ReLU resnet18 (no PReLU weights).
TEST(DabDetr, VariantsCountAsTransformersBuildThem) {
  EXPECT_EQ(parameters_of(R"({"model_type":"dab-detr","num_labels":91})"), 43'515'518u);
  const std::string pat3 =
      replaced(kDabDetrR50, R"("num_labels":91)",
               R"("num_labels":91,"num_patterns":3,"keep_query_pos":true,"normalize_before":true)");
  EXPECT_EQ(parameters_of(pat3), 44'001'757u);
  const ModelTemplate t = template_of(pat3);
  EXPECT_EQ(find_tensor(t, "model.patterns.weight")->shape, (Shape{3, 256}));
  ASSERT_NE(find_tensor(t, "model.decoder.layers.5.cross_attn.cross_attn_query_pos_proj.weight"), nullptr);
  ASSERT_NE(find_tensor(t, "model.encoder.norm.weight"), nullptr);
  expect_every_tensor_placed(t);
  std::string r18 = replaced(kDabDetrR50, R"("backbone":"resnet50")", R"("backbone":"resnet18")");
  r18 = replaced(r18, R"("activation_function":"prelu")",
                 R"("activation_function":"relu","decoder_layers":3,"encoder_layers":2,"d_model":128,)"
                 R"("encoder_ffn_dim":512,"decoder_ffn_dim":256)");
  EXPECT_EQ(parameters_of(r18), 12'619'089u);
  EXPECT_EQ(find_tensor(template_of(r18), "model.encoder.layers.0.activation_fn.weight"), nullptr);
}

TEST(DabDetr, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kDabDetrR50, R"("num_labels":91)", R"("num_labels":91,"query_dim":2)")).field,
            "query_dim");
  EXPECT_EQ(refusal_of(replaced(kDabDetrR50, R"("num_labels":91)", R"("num_labels":91,"d_model":100)")).field,
            "encoder_attention_heads");
  // DabDetrConfig looks a dict backbone_config's model_type up in CONFIG_MAPPING: it must name one.
  const std::string no_timm = replaced(kDabDetrR50, R"("backbone":"resnet50")", R"("backbone":null)");
  EXPECT_EQ(refusal_of(replaced(no_timm, R"("use_timm_backbone":true)",
                                R"("use_timm_backbone":false,"backbone_config":{})"))
                .field,
            "backbone_config.model_type");
  EXPECT_EQ(refusal_of(replaced(kDabDetrR50, "resnet50", "resnet26")).kind, ErrorKind::Unsupported);
}

// DFineForObjectDetection: dfine-nano-coco 3,770,421, dfine-large-coco 31,244,152, dfine-xlarge-coco
// 62,621,560 parameters (the paper's 4M / 31M / 62M).
TEST(DFine, CheckpointsCountAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(kDfineNano), 3'770'421u);
  EXPECT_EQ(parameters_of(kDfineLarge), 31'244'152u);
  EXPECT_EQ(parameters_of(kDfineXlarge), 62'621'560u);
  // DFineModel at DFineConfig's defaults: HGNetV2Config's B4 backbone, four points on each level.
  EXPECT_EQ(parameters_of(R"({"model_type":"d_fine","num_labels":80})"), 30'127'744u);
}

TEST(DFine, LargeNamesShapesAndOrder) {
  const ModelTemplate t = template_of(kDfineLarge);
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 1197u);
  EXPECT_EQ(d.elements, 31'364'889u);
  // replace_batch_norm freezes the backbone's norms (four buffers, no num_batches_tracked); its depthwise
  // light-block convolutions keep one input channel per group.
  const std::string bb = "model.backbone.model.";
  EXPECT_EQ(find_tensor(t, bb + "embedder.stem1.normalization.weight")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, bb + "embedder.stem1.normalization.num_batches_tracked"), nullptr);
  EXPECT_EQ(find_tensor(t, bb + "encoder.stages.2.blocks.0.layers.0.conv2.convolution.weight")->shape,
            (Shape{192, 1, 5, 5}));
  // The neck: RepNCSPELAN4 blocks (branches of round(1.0 x 256 // 2) channels, three RepVGG blocks each)
  // and SCDown's depthwise strided convolution; its norms stay trainable.
  EXPECT_EQ(find_tensor(t, "model.encoder.fpn_blocks.0.conv4.conv.weight")->shape, (Shape{256, 768, 1, 1}));
  ASSERT_NE(find_tensor(t, "model.encoder.pan_blocks.1.csp_rep2.bottlenecks.2.conv2.conv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.encoder.downsample_convs.1.conv2.conv.weight")->shape,
            (Shape{256, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.encoder.downsample_convs.1.conv2.norm.weight")->kind,
            TensorKind::Parameter);
  // The decoder's own scalars first, then its layers: 3 + 6 + 3 sampled points for 8 heads, no value or
  // output projection, a gate in place of the cross-attention's LayerNorm.
  const std::string dec = "model.decoder.";
  EXPECT_EQ(find_tensor(t, dec + "reg_scale")->kind, TensorKind::Parameter);
  EXPECT_EQ(tensor_index(t, dec + "reg_scale") + 1, tensor_index(t, dec + "up"));
  EXPECT_EQ(tensor_index(t, dec + "up") + 1, tensor_index(t, dec + "layers.0.self_attn.k_proj.weight"));
  const std::string attn = dec + "layers.5.encoder_attn.";
  EXPECT_EQ(find_tensor(t, attn + "num_points_scale")->shape, (Shape{12}));
  EXPECT_EQ(find_tensor(t, attn + "num_points_scale")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, attn + "sampling_offsets.weight")->shape, (Shape{192, 256}));
  EXPECT_EQ(find_tensor(t, attn + "value_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, dec + "layers.5.gateway.gate.weight")->shape, (Shape{512, 512}));
  EXPECT_EQ(find_tensor(t, dec + "layers.5.encoder_attn_layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, dec + "layers.6.fc1.weight"), nullptr);  // eval_idx -1: no extra layer
  // Location quality per layer: 4 edges x (4 top bins + their mean) -> 64 -> 1. Box heads: 4 x 33 bins.
  EXPECT_EQ(find_tensor(t, dec + "lqe_layers.5.reg_conf.layers.0.weight")->shape, (Shape{64, 20}));
  EXPECT_EQ(find_tensor(t, dec + "bbox_embed.5.layers.2.weight")->shape, (Shape{132, 256}));
  EXPECT_LT(tensor_index(t, dec + "lqe_layers.5.reg_conf.layers.1.bias"),
            tensor_index(t, dec + "class_embed.0.weight"));
  // d_model equals decoder_in_channels[-1]: the decoder's input projections are nn.Identity.
  EXPECT_EQ(find_tensor(t, "model.decoder_input_proj.0.0.weight"), nullptr);
  const TemplateTensor* alias = find_tensor(t, "class_embed.5.weight");
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->tied_to, "model.decoder.class_embed.5.weight");
  EXPECT_FALSE(alias->stored);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 6u);
  expect_every_tensor_placed(t);
}

// Nano's narrow neck (round(0.34 x 128 // 2) = 21-channel branches, round(3 x 0.5) = 2 RepVGG blocks) and
// learnable affine blocks; X-Large's 384-wide encoder reaches the decoder through 1 x 1 projections that all
// read decoder_in_channels[-1].
TEST(DFine, NanoAndXlargeShapes) {
  const ModelTemplate nano = template_of(kDfineNano);
  EXPECT_EQ(find_tensor(nano, "model.encoder.fpn_blocks.0.csp_rep1.conv1.conv.weight")->shape,
            (Shape{21, 128, 1, 1}));
  EXPECT_EQ(find_tensor(nano, "model.encoder.fpn_blocks.0.csp_rep1.bottlenecks.2.conv1.conv.weight"),
            nullptr);
  EXPECT_EQ(find_tensor(nano, "model.backbone.model.embedder.stem1.lab.scale")->kind, TensorKind::Parameter);
  EXPECT_EQ(find_tensor(nano, "model.encoder_input_proj.1.0.weight")->shape, (Shape{128, 1024, 1, 1}));
  EXPECT_EQ(find_tensor(nano, "model.decoder.layers.2.encoder_attn.attention_weights.weight")->shape,
            (Shape{96, 128}));
  expect_every_tensor_placed(nano);
  const ModelTemplate xl = template_of(kDfineXlarge);
  EXPECT_EQ(find_tensor(xl, "model.decoder_input_proj.2.0.weight")->shape, (Shape{256, 384, 1, 1}));
  EXPECT_LT(tensor_index(xl, "model.decoder.bbox_embed.5.layers.2.bias"),
            tensor_index(xl, "model.decoder_input_proj.0.0.weight"));
  expect_every_tensor_placed(xl);
}

// eval_idx inside the stack: decoder_layers - eval_idx - 1 more layers, the later box heads
// round(layer_scale x d_model) wide; learned initial queries, a fourth (strided 3 x 3) feature level, an
// unfrozen backbone.
TEST(DFine, EvalIndexAndOtherCornersCountAsTransformersBuildsThem) {
  std::string c = replaced(kDfineXlarge, R"("num_labels":80)",
                           R"("num_labels":80,"eval_idx":3,"layer_scale":0.5,"learn_initial_query":true,)"
                           R"("num_feature_levels":4,"freeze_backbone_batch_norms":false,"depth_mult":0.67,)"
                           R"("lqe_layers":3,"max_num_bins":16)");
  c = replaced(c, R"("decoder_n_points":[3,6,3])", R"("decoder_n_points":4)");
  EXPECT_EQ(parameters_of(c), 62'885'272u);
  const ModelTemplate t = template_of(c);
  ASSERT_NE(find_tensor(t, "model.decoder.layers.7.gateway.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.8.fc1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.bbox_embed.3.layers.0.weight")->shape, (Shape{256, 256}));
  EXPECT_EQ(find_tensor(t, "model.decoder.bbox_embed.4.layers.2.weight")->shape, (Shape{68, 128}));
  EXPECT_EQ(find_tensor(t, "model.decoder_input_proj.3.0.weight")->shape, (Shape{256, 384, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.backbone.model.embedder.stem1.normalization.weight")->kind,
            TensorKind::Parameter);
  expect_every_tensor_placed(t);
}

TEST(DFine, RefusesWhatTransformersCannotBuild) {
  // DFineConfig pops backbone_config's model_type: a backbone_config without one cannot be built.
  EXPECT_EQ(refusal_of(replaced(kDfineLarge, R"("model_type":"hgnet_v2",)", "")).field,
            "backbone_config.model_type");
  EXPECT_EQ(
      refusal_of(replaced(kDfineLarge, R"("decoder_n_points":[3,6,3])", R"("decoder_n_points":[3,6])")).field,
      "decoder_n_points");
  EXPECT_EQ(refusal_of(replaced(kDfineLarge, R"("num_labels":80)", R"("num_labels":80,"eval_idx":6)")).field,
            "eval_idx");
  EXPECT_EQ(refusal_of(replaced(kDfineNano, R"("decoder_in_channels":[128,128])",
                                R"("decoder_in_channels":[128,128,128])"))
                .field,
            "decoder_in_channels");
  EXPECT_EQ(
      refusal_of(replaced(kDfineLarge, R"("hidden_expansion":1.0)", R"("hidden_expansion":0.001)")).field,
      "hidden_expansion");
  EXPECT_EQ(refusal_of(
                replaced(kDfineLarge, R"("num_labels":80)", R"("num_labels":80,"decoder_attention_heads":7)"))
                .field,
            "decoder_attention_heads");
  EXPECT_EQ(
      refusal_of(replaced(kDfineLarge, R"("num_labels":80)", R"("num_labels":80,"use_timm_backbone":true)"))
          .kind,
      ErrorKind::Unsupported);
}

}  // namespace ma::test
