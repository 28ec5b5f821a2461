// SAM 2 (model/families/sam2_model.cpp, sam2_video.cpp, sam2_vision_models.cpp, sam2_hiera.cpp) on the
// SAM 2.1 Hiera-T / S / B+ / L shapes (segment-anything-2's configs/sam2.1/sam2.1_hiera_*.yaml, which
// transformers' conversion copies into vision_config.backbone_config). The counts are those of transformers'
// Sam2Model, Sam2VideoModel, Sam2VisionModel and Sam2HieraDetModel (modeling_sam2.py at 6a7031ae,
// modeling_sam2_video.py at e62b9aae) as a module-by-module reconstruction on torch gives them (the helper's
// verify/reconstruct.py: every state_dict key, shape and order compared with the template). Sam2VideoModel
// holds every weight of the released checkpoints, and its counts round to the sizes segment-anything-2's
// README publishes for SAM 2.1: 38.9M, 46M, 80.8M and 224.4M.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// A SAM 2.1 config.json's shape fields, the prompt encoder and mask decoder at their defaults; `backbone`
// is the Hiera's own fields, `channels` the neck's backbone_channel_list (the stages' widths, deepest first).
std::string sam21(const std::string& model_type, const std::string& backbone, const std::string& channels) {
  return R"({"model_type":")" + model_type + R"(",
    "vision_config":{"model_type":"sam2_vision_model","backbone_channel_list":)" +
         channels + R"(,
    "fpn_hidden_size":256,"fpn_kernel_size":1,"num_feature_levels":3,
    "backbone_config":{"model_type":"sam2_hiera_det_model",)" +
         backbone + R"(,
    "patch_kernel_size":[7,7],"patch_stride":[4,4],"patch_padding":[3,3],"mlp_ratio":4.0}},
    "prompt_encoder_config":{"hidden_size":256,"mask_input_channels":16,"num_point_embeddings":4},
    "mask_decoder_config":{"hidden_size":256,"mlp_dim":2048,"num_hidden_layers":2,"num_attention_heads":8,
    "attention_downsample_rate":2,"num_multimask_outputs":3,"iou_head_depth":3,"iou_head_hidden_dim":256}})";
}
constexpr const char* kTiny =
    R"("hidden_size":96,"blocks_per_stage":[1,2,7,2],"embed_dim_per_stage":[96,192,384,768],
    "num_attention_heads_per_stage":[1,2,4,8],"window_size_per_stage":[8,4,14,7],
    "global_attention_blocks":[5,7,9],"window_positional_embedding_background_size":[7,7])";
constexpr const char* kSmall =
    R"("hidden_size":96,"blocks_per_stage":[1,2,11,2],"embed_dim_per_stage":[96,192,384,768],
    "num_attention_heads_per_stage":[1,2,4,8],"window_size_per_stage":[8,4,14,7],
    "global_attention_blocks":[7,10,13],"window_positional_embedding_background_size":[7,7])";
constexpr const char* kBasePlus =
    R"("hidden_size":112,"blocks_per_stage":[2,3,16,3],"embed_dim_per_stage":[112,224,448,896],
    "num_attention_heads_per_stage":[2,4,8,16],"window_size_per_stage":[8,4,14,7],
    "global_attention_blocks":[12,16,20],"window_positional_embedding_background_size":[14,14])";
constexpr const char* kLarge =
    R"("hidden_size":144,"blocks_per_stage":[2,6,36,4],"embed_dim_per_stage":[144,288,576,1152],
    "num_attention_heads_per_stage":[2,4,8,16],"window_size_per_stage":[8,4,16,8],
    "global_attention_blocks":[23,33,43],"window_positional_embedding_background_size":[7,7])";
constexpr const char* kTinyChannels = "[768,384,192,96]";
constexpr const char* kSmallChannels = "[768,384,192,96]";
constexpr const char* kBasePlusChannels = "[896,448,224,112]";
constexpr const char* kLargeChannels = "[1152,576,288,144]";

TEST(Sam2, ImageModelSizesCountAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(sam21("sam2", kTiny, kTinyChannels)), 31'440'721u);
  EXPECT_EQ(parameters_of(sam21("sam2", kSmall, kSmallChannels)), 38'538'577u);
  EXPECT_EQ(parameters_of(sam21("sam2", kBasePlus, kBasePlusChannels)), 73'328'401u);
  EXPECT_EQ(parameters_of(sam21("sam2", kLarge, kLargeChannels)), 216'924'865u);
  // Sam2Config's defaults are SAM 2.1 Hiera-T's.
  EXPECT_EQ(parameters_of(R"({"model_type":"sam2"})"), 31'440'721u);
}

// Sam2VideoModel: the image model plus 7,521,777 parameters of memory attention, memory encoder and
// object-pointer heads, the same at every size (published: 38.9M, 46M, 80.8M, 224.4M).
TEST(Sam2, VideoModelSizesMatchThePublishedOnes) {
  EXPECT_EQ(parameters_of(sam21("sam2_video", kTiny, kTinyChannels)), 38'962'498u);
  EXPECT_EQ(parameters_of(sam21("sam2_video", kSmall, kSmallChannels)), 46'060'354u);
  EXPECT_EQ(parameters_of(sam21("sam2_video", kBasePlus, kBasePlusChannels)), 80'850'178u);
  EXPECT_EQ(parameters_of(sam21("sam2_video", kLarge, kLargeChannels)), 224'446'642u);
  EXPECT_EQ(parameters_of(R"({"model_type":"sam2_video"})"), 38'962'498u);
}

TEST(Sam2, VisionModelAndBackboneAlone) {
  // Sam2VisionModel: backbone.* and neck.* at the root; Sam2HieraDetModel: the Hiera's own names.
  EXPECT_EQ(parameters_of(R"({"model_type":"sam2_vision_model"})"), 27'219'136u);
  EXPECT_EQ(parameters_of(R"({"model_type":"sam2_hiera_det_model"})"), 26'849'472u);
  EXPECT_EQ(parameters_of(R"({"model_type":"sam2_hiera_det_model",)" + std::string(kLarge) + "}"),
            212'149'296u);
  const ModelTemplate v = template_of(R"({"model_type":"sam2_vision_model"})");
  EXPECT_EQ(v.tensors.front().name, "backbone.pos_embed");
  EXPECT_EQ(find_tensor(v, "neck.convs.3.weight")->shape, (Shape{256, 96, 1, 1}));
  EXPECT_EQ(v.tensors.back().name, "neck.convs.3.bias");
  const ModelTemplate h = template_of(R"({"model_type":"sam2_hiera_det_model"})");
  EXPECT_EQ(h.tensors.front().name, "pos_embed");
  EXPECT_EQ(h.arch.num_layers, 12u);
  EXPECT_EQ(h.arch.hidden_size, 768u);  // the last stage's width
}

// The model's own parameters come before its modules' (no_memory_embedding before shared_image_embedding),
// and the Hiera's own windowed position tables before its patch embedding.
TEST(Sam2, RegistrationOrderAndTheSharedBuffer) {
  const ModelTemplate t = template_of(sam21("sam2", kBasePlus, kBasePlusChannels));
  ASSERT_GE(t.tensors.size(), 4u);
  EXPECT_EQ(t.tensors[0].name, "no_memory_embedding");
  EXPECT_EQ(t.tensors[0].shape, (Shape{1, 1, 256}));
  EXPECT_EQ(t.tensors[1].name, "shared_image_embedding.positional_embedding");
  EXPECT_EQ(t.tensors[1].kind, TensorKind::Buffer);
  EXPECT_EQ(t.tensors[1].shape, (Shape{2, 128}));  // prompt_encoder_config.hidden_size // 2
  EXPECT_EQ(t.tensors[2].name, "vision_encoder.backbone.pos_embed");
  EXPECT_EQ(t.tensors[2].shape, (Shape{1, 112, 14, 14}));
  EXPECT_EQ(t.tensors[3].name, "vision_encoder.backbone.pos_embed_window");
  EXPECT_EQ(t.tensors[3].shape, (Shape{1, 112, 8, 8}));
  const TemplateTensor* copy = find_tensor(t, "prompt_encoder.shared_embedding.positional_embedding");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->tied_to, "shared_image_embedding.positional_embedding");
  EXPECT_FALSE(copy->stored);
  EXPECT_EQ(t.tensors.back().name, "mask_decoder.pred_obj_score_head.layers.0.bias");
}

// A stage's first block reads the previous stage's width and projects it for the residual (proj, registered
// after its MLP); the other blocks have no proj.
TEST(Sam2, HieraWidensAtEachStagesFirstBlock) {
  const ModelTemplate t = template_of(sam21("sam2", kLarge, kLargeChannels));
  const std::string b = "vision_encoder.backbone.blocks.";
  EXPECT_EQ(find_tensor(t, b + "0.attn.qkv.weight")->shape, (Shape{432, 144}));
  EXPECT_EQ(find_tensor(t, b + "1.proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, b + "2.layer_norm1.weight")->shape, (Shape{144}));
  EXPECT_EQ(find_tensor(t, b + "2.attn.qkv.weight")->shape, (Shape{864, 144}));
  EXPECT_EQ(find_tensor(t, b + "2.attn.proj.weight")->shape, (Shape{288, 288}));
  EXPECT_EQ(find_tensor(t, b + "2.proj.weight")->shape, (Shape{288, 144}));
  EXPECT_EQ(tensor_index(t, b + "2.mlp.proj_out.bias") + 1, tensor_index(t, b + "2.proj.weight"));
  EXPECT_EQ(find_tensor(t, b + "44.proj.weight")->shape, (Shape{1152, 576}));
  EXPECT_EQ(find_tensor(t, b + "47.mlp.proj_in.weight")->shape, (Shape{4608, 1152}));
  EXPECT_EQ(find_tensor(t, b + "48.layer_norm1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "vision_encoder.backbone.pos_embed_window")->shape, (Shape{1, 144, 8, 8}));
  EXPECT_EQ(find_tensor(t, "vision_encoder.neck.convs.0.weight")->shape, (Shape{256, 1152, 1, 1}));
}

// Where SAM 2's prompt encoder and mask decoder differ from SAM's (sam_test.cpp): one point table, o_proj,
// every cross-attention at attention_downsample_rate, a Sam2FeedForward MLP, the high-resolution
// convolutions and the object-score head.
TEST(Sam2, PromptEncoderAndMaskDecoderShapes) {
  const ModelTemplate t = template_of(sam21("sam2", kTiny, kTinyChannels));
  EXPECT_EQ(find_tensor(t, "prompt_encoder.point_embed.weight")->shape, (Shape{4, 256}));
  EXPECT_EQ(find_tensor(t, "prompt_encoder.mask_embed.conv1.weight")->shape, (Shape{4, 1, 2, 2}));
  const std::string l = "mask_decoder.transformer.layers.0.";
  EXPECT_EQ(find_tensor(t, l + "self_attn.o_proj.weight")->shape, (Shape{256, 256}));
  EXPECT_EQ(find_tensor(t, l + "cross_attn_token_to_image.q_proj.weight")->shape, (Shape{128, 256}));
  EXPECT_EQ(find_tensor(t, l + "mlp.proj_in.weight")->shape, (Shape{2048, 256}));
  EXPECT_EQ(find_tensor(t, l + "mlp.layers.0.weight"), nullptr);  // num_hidden_layers 2: two Linears
  EXPECT_EQ(find_tensor(t, "mask_decoder.conv_s0.weight")->shape, (Shape{32, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.conv_s1.weight")->shape, (Shape{64, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.obj_score_token.weight")->shape, (Shape{1, 256}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.pred_obj_score_head.proj_out.weight")->shape, (Shape{1, 256}));
}

// A variant exercising the other fields (per transformers: 4,900,122): a three-stage Hiera with its own
// widths, a 5 x 6 background table, a 5 x 5 patch kernel of 4 channels, mlp_ratio 3, a 3 x 3 neck 128 wide;
// three two-way blocks (so three-Linear MLPs) at downsample rate 4 with 3 heads (Sam2Attention has no check),
// six point embeddings, two multimask outputs and a four-layer IoU head.
TEST(Sam2, VariantFieldsAsTransformersReadsThem) {
  const std::string v = R"({"model_type":"sam2","vision_config":{"fpn_hidden_size":128,"fpn_kernel_size":3,
    "backbone_channel_list":[512,256,128,64],"backbone_config":{"hidden_size":64,"blocks_per_stage":[1,1,3],
    "embed_dim_per_stage":[64,128,256],"num_attention_heads_per_stage":[1,2,4],"window_size_per_stage":[4,8,8],
    "window_positional_embedding_background_size":[5,6],"patch_kernel_size":5,"mlp_ratio":3.0,
    "num_channels":4}},"prompt_encoder_config":{"hidden_size":128,"mask_input_channels":8,
    "num_point_embeddings":6},"mask_decoder_config":{"hidden_size":128,"mlp_dim":512,"num_hidden_layers":3,
    "attention_downsample_rate":4,"num_multimask_outputs":2,"iou_head_depth":4,"iou_head_hidden_dim":64,
    "num_attention_heads":3}})";
  EXPECT_EQ(parameters_of(v), 4'900'122u);
  const ModelTemplate t = template_of(v);
  EXPECT_EQ(find_tensor(t, "vision_encoder.backbone.pos_embed")->shape, (Shape{1, 64, 5, 6}));
  EXPECT_EQ(find_tensor(t, "vision_encoder.backbone.patch_embed.projection.weight")->shape,
            (Shape{64, 4, 5, 5}));
  EXPECT_EQ(find_tensor(t, "vision_encoder.backbone.blocks.4.mlp.proj_in.weight")->shape, (Shape{768, 256}));
  EXPECT_EQ(find_tensor(t, "vision_encoder.neck.convs.0.weight")->shape, (Shape{128, 512, 3, 3}));
  EXPECT_EQ(
      find_tensor(t, "mask_decoder.transformer.layers.0.cross_attn_token_to_image.q_proj.weight")->shape,
      (Shape{32, 128}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.transformer.layers.2.mlp.layers.0.weight")->shape,
            (Shape{512, 512}));
  EXPECT_EQ(find_tensor(t, "prompt_encoder.point_embed.weight")->shape, (Shape{6, 128}));
  EXPECT_EQ(find_tensor(t, "mask_decoder.iou_prediction_head.layers.1.weight")->shape, (Shape{64, 64}));
}

TEST(Sam2, VideoModelsMemoryModules) {
  const ModelTemplate t = template_of(sam21("sam2_video", kTiny, kTinyChannels));
  // The model's own parameters, in __init__'s order (the occlusion embedding set to None first, so last).
  ASSERT_GE(t.tensors.size(), 6u);
  EXPECT_EQ(t.tensors[0].name, "no_memory_embedding");
  EXPECT_EQ(t.tensors[1].name, "no_memory_positional_encoding");
  EXPECT_EQ(t.tensors[2].name, "memory_temporal_positional_encoding");
  EXPECT_EQ(t.tensors[2].shape, (Shape{7, 1, 1, 64}));
  EXPECT_EQ(t.tensors[3].name, "no_object_pointer");
  EXPECT_EQ(t.tensors[4].name, "occlusion_spatial_embedding_parameter");
  EXPECT_EQ(t.tensors[5].name, "shared_image_embedding.positional_embedding");
  // The cross-attention reads 64-channel memories (kv_in_dim=64, whatever the config).
  EXPECT_EQ(find_tensor(t, "memory_attention.layers.3.cross_attn_image.k_proj.weight")->shape,
            (Shape{256, 64}));
  EXPECT_EQ(find_tensor(t, "memory_attention.layers.3.linear1.weight")->shape, (Shape{2048, 256}));
  EXPECT_EQ(find_tensor(t, "memory_encoder.mask_downsampler.layers.3.conv.weight")->shape,
            (Shape{256, 64, 3, 3}));
  EXPECT_EQ(find_tensor(t, "memory_encoder.mask_downsampler.layers.4.conv.weight"), nullptr);
  // A ConvNeXt block's layer scale is its own parameter, before its modules.
  EXPECT_EQ(tensor_index(t, "memory_encoder.memory_fuser.layers.1.scale") + 1,
            tensor_index(t, "memory_encoder.memory_fuser.layers.1.depthwise_conv.weight"));
  EXPECT_EQ(find_tensor(t, "memory_encoder.memory_fuser.layers.1.depthwise_conv.weight")->shape,
            (Shape{256, 1, 7, 7}));
  EXPECT_EQ(find_tensor(t, "memory_encoder.projection.weight")->shape, (Shape{64, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, "mask_downsample.weight")->shape, (Shape{1, 1, 4, 4}));
  EXPECT_EQ(t.tensors.back().name, "temporal_positional_encoding_projection_layer.bias");
}

// SAM 2 (not 2.1) checkpoints turn the occlusion embedding and the temporal projection off; a mask
// downsampler of stride 3 to 27 takes three steps (per transformers: 7,093,939).
TEST(Sam2, VideoVariantFields) {
  const std::string v =
      R"({"model_type":"sam2_video","num_maskmem":5,"enable_occlusion_spatial_embedding":false,
    "enable_temporal_pos_encoding_for_object_pointers":false,"memory_attention_hidden_size":128,
    "memory_attention_num_layers":3,"memory_attention_num_attention_heads":2,"memory_attention_downsample_rate":2,
    "memory_attention_feed_forward_hidden_size":300,"memory_encoder_hidden_size":128,
    "memory_encoder_output_channels":32,"mask_downsampler_embed_dim":128,"mask_downsampler_kernel_size":5,
    "mask_downsampler_stride":3,"mask_downsampler_total_stride":27,"memory_fuser_num_layers":3,
    "memory_fuser_embed_dim":96,"memory_fuser_intermediate_dim":200,"memory_fuser_kernel_size":5,
    "vision_config":{"fpn_hidden_size":128,"fpn_kernel_size":3,"backbone_channel_list":[512,256,128,64],
    "backbone_config":{"hidden_size":64,"blocks_per_stage":[1,1,3],"embed_dim_per_stage":[64,128,256],
    "num_attention_heads_per_stage":[1,2,4],"window_size_per_stage":[4,8,8],
    "window_positional_embedding_background_size":[5,6],"patch_kernel_size":5,"mlp_ratio":3.0,"num_channels":4}},
    "prompt_encoder_config":{"hidden_size":128,"mask_input_channels":8,"num_point_embeddings":6},
    "mask_decoder_config":{"hidden_size":128,"mlp_dim":512,"num_hidden_layers":3,"attention_downsample_rate":4,
    "num_multimask_outputs":2,"iou_head_depth":4,"iou_head_hidden_dim":64,"num_attention_heads":3}})";
  EXPECT_EQ(parameters_of(v), 7'093'939u);
  const ModelTemplate t = template_of(v);
  EXPECT_EQ(find_tensor(t, "occlusion_spatial_embedding_parameter"), nullptr);
  EXPECT_EQ(find_tensor(t, "temporal_positional_encoding_projection_layer.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "memory_encoder.mask_downsampler.final_conv.weight")->shape,
            (Shape{128, 729, 1, 1}));
  EXPECT_EQ(find_tensor(t, "memory_attention.layers.2.self_attn.q_proj.weight")->shape, (Shape{64, 128}));
}

// Every tensor of Sam2Model and Sam2VideoModel is the image side of a model without text
// (tensor_placement.cpp's vision parts); the standalone backbone is a stack of layers like DINOv2's, its
// widening projection part of the block's attention.
TEST(Sam2, PlacementIsVision) {
  for (const std::string& type : {std::string("sam2"), std::string("sam2_video")})
    for (const TemplateTensor& x : template_of(sam21(type, kTiny, kTinyChannels)).tensors)
      EXPECT_EQ(place_tensor(x.name).block, Block::Vision) << x.name;
  expect_every_tensor_placed(template_of(R"({"model_type":"sam2_hiera_det_model"})"));
  EXPECT_EQ(place_tensor("blocks.3.proj.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor("blocks.3.proj.weight").layer, 3u);
}

TEST(Sam2, RefusesWhatTransformersCannotBuild) {
  const std::string tiny = sam21("sam2", kTiny, kTinyChannels);
  // A per-stage list shorter than blocks_per_stage: Sam2MultiScaleBlock's index raises.
  EXPECT_EQ(refusal_of(replaced(tiny, "[96,192,384,768]", "[96,192,384]")).field,
            "vision_config.backbone_config.embed_dim_per_stage");
  EXPECT_EQ(refusal_of(replaced(tiny, "[8,4,14,7]", "[8,4]")).field,
            "vision_config.backbone_config.window_size_per_stage");
  // Another backbone or image encoder is another model.
  EXPECT_EQ(
      refusal_of(replaced(tiny, R"("model_type":"sam2_hiera_det_model")", R"("model_type":"timm_wrapper")"))
          .kind,
      ErrorKind::Unsupported);
  EXPECT_EQ(
      refusal_of(replaced(tiny, R"("model_type":"sam2_vision_model")", R"("model_type":"sam_vision_model")"))
          .kind,
      ErrorKind::Unsupported);
  // Sam2VideoVisionRotaryEmbedding raises unless each head's width divides by 4.
  EXPECT_EQ(refusal_of(R"({"model_type":"sam2_video","memory_attention_num_attention_heads":3})").field,
            "memory_attention_num_attention_heads");
}

// EdgeTAM swaps Hiera for a timm RepViT that timm.create_model builds from its name: config.json does not
// spell its parameters.
TEST(Sam2, EdgeTamIsRefused) {
  EXPECT_EQ(refusal_of(R"({"model_type":"edgetam","vision_config":{"model_type":"edgetam_vision_model",
      "backbone_config":{"model_type":"timm_wrapper","architecture":"repvit_m1.dist_in1k"}}})")
                .kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"edgetam_vision_model"})").kind, ErrorKind::Unsupported);
  // The video model (EdgeTamVideoModel) holds the same backbone, under its vision_config.
  try {
    template_of(R"({"model_type":"edgetam_video","vision_config":{"model_type":"edgetam_vision_model",
        "backbone_config":{"model_type":"timm_wrapper","architecture":"repvit_m1.dist_in1k"}}})");
    ADD_FAILURE() << "edgetam_video was built";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("timm backbone repvit_m1.dist_in1k"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ma::test
