// SAM 3's trackers and video model (model/families/sam3_tracker.cpp, sam3_video.cpp). The counts are those of
// transformers' Sam3TrackerModel (modular_sam3_tracker.py at 020a37d2), Sam3TrackerVideoModel
// (modular_sam3_tracker_video.py at 00f123c6) and Sam3VideoModel (modeling_sam3_video.py,
// configuration_sam3_video.py at 053f59ef) as a module-by-module port of their __init__s on torch's meta
// device gives them, every state_dict key, shape and order compared with the template. Published: the whole
// of SAM 3 (facebook/sam3, stored as Sam3VideoModel) is given as 848M parameters (facebookresearch/sam3); the
// classes transformers builds for it hold 859,921,848: its detector's 840,376,374, the tracker's 11,743,362
// without an image encoder and the tracker's FPN neck, 7,802,112.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// Every sub-config changed: a small SAM 3 ViT with three FPN levels, narrower prompt encoder and mask
// decoder.
constexpr const char* kSam3TrackerSmall = R"({"model_type":"sam3_tracker",
  "vision_config":{"model_type":"sam3_vision_model","fpn_hidden_size":128,"scale_factors":[4.0,2.0,1.0],
    "backbone_config":{"model_type":"sam3_vit_model","hidden_size":192,"intermediate_size":512,
    "num_hidden_layers":3,"num_attention_heads":4,"patch_size":16,"image_size":512,"pretrain_image_size":224}},
  "prompt_encoder_config":{"hidden_size":128,"mask_input_channels":8,"num_point_embeddings":5},
  "mask_decoder_config":{"hidden_size":128,"mlp_dim":512,"num_hidden_layers":3,"num_multimask_outputs":2,
    "iou_head_depth":4,"iou_head_hidden_dim":64}})";

// The same image side plus smaller memories, without the occlusion embedding or the object pointers'
// temporal projection (an nn.Identity then).
constexpr const char* kSam3TrackerVideoSmall = R"({"model_type":"sam3_tracker_video",
  "vision_config":{"model_type":"sam3_vision_model","fpn_hidden_size":128,"scale_factors":[4.0,2.0,1.0],
    "backbone_config":{"model_type":"sam3_vit_model","hidden_size":192,"intermediate_size":512,
    "num_hidden_layers":3,"num_attention_heads":4,"patch_size":16,"image_size":512,"pretrain_image_size":224}},
  "prompt_encoder_config":{"hidden_size":128,"mask_input_channels":8,"num_point_embeddings":5},
  "mask_decoder_config":{"hidden_size":128,"mlp_dim":512,"num_hidden_layers":3,"num_multimask_outputs":2,
    "iou_head_depth":4,"iou_head_hidden_dim":64},
  "num_maskmem":5,"enable_occlusion_spatial_embedding":false,
  "enable_temporal_pos_encoding_for_object_pointers":false,"memory_attention_hidden_size":128,
  "memory_attention_num_layers":2,"memory_attention_feed_forward_hidden_size":256,
  "memory_encoder_hidden_size":128,"memory_encoder_output_channels":32,"mask_downsampler_embed_dim":128,
  "memory_fuser_num_layers":1,"memory_fuser_embed_dim":128,"memory_fuser_intermediate_dim":256})";

// A small detector (its ViT 256 wide, FPN levels 2x, 1x and 0.5x, which tracker_neck copies) and a tracker
// whose vision_config is absent (only its fpn_hidden_size, 256 by default, matters without an image encoder).
constexpr const char* kSam3VideoSmall = R"({"model_type":"sam3_video","architectures":["Sam3VideoModel"],
  "detector_config":{"model_type":"sam3",
    "vision_config":{"fpn_hidden_size":128,"scale_factors":[2.0,1.0,0.5],
      "backbone_config":{"hidden_size":256,"intermediate_size":512,"num_hidden_layers":4,"num_attention_heads":4,
      "global_attn_indexes":[3],"pretrain_image_size":224,"patch_size":16,"image_size":512,"window_size":8}},
    "text_config":{"num_hidden_layers":2,"vocab_size":1000},
    "geometry_encoder_config":{"hidden_size":128,"num_layers":2,"intermediate_size":256,"roi_size":5},
    "detr_encoder_config":{"hidden_size":128,"num_layers":1,"intermediate_size":256},
    "detr_decoder_config":{"hidden_size":128,"num_layers":2,"num_queries":50,"num_attention_heads":4,
      "intermediate_size":384},
    "mask_decoder_config":{"hidden_size":128,"num_upsampling_stages":2}},
  "tracker_config":{"model_type":"sam3_tracker_video","prompt_encoder_config":{"hidden_size":256},
    "mask_decoder_config":{"num_multimask_outputs":4},"num_maskmem":5,"enable_occlusion_spatial_embedding":false,
    "enable_temporal_pos_encoding_for_object_pointers":false,"memory_attention_hidden_size":256,
    "memory_attention_num_layers":2,"memory_attention_feed_forward_hidden_size":256,
    "memory_encoder_hidden_size":256,"memory_encoder_output_channels":32,"mask_downsampler_embed_dim":256,
    "memory_fuser_num_layers":1,"memory_fuser_embed_dim":256,"memory_fuser_intermediate_dim":256}})";

TEST(Sam3Tracker, CountsAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(R"({"model_type":"sam3_tracker"})"), 458'260'369u);
  EXPECT_EQ(parameters_of(kSam3TrackerSmall), 3'675'690u);
  EXPECT_EQ(parameters_of(R"({"model_type":"sam3_tracker_video"})"), 465'782'146u);
  EXPECT_EQ(parameters_of(kSam3TrackerVideoSmall), 4'375'259u);
  const ModelTemplate t = template_of(R"({"model_type":"sam3_tracker"})");
  EXPECT_EQ(t.arch.architecture, "Sam3TrackerModel");
  // The image encoder is SAM 3's Sam3VisionModel, as configured alone.
  EXPECT_EQ(parameters_under(t, "vision_encoder."), 454'038'784u);
  EXPECT_EQ(t.arch.hidden_size, 1024u);
  EXPECT_EQ(t.arch.num_layers, 32u);
  expect_every_tensor_placed(t);
  expect_every_tensor_placed(template_of(R"({"model_type":"sam3_tracker_video"})"));
}

TEST(Sam3Tracker, VideoTrackerRegistersItsTokensFirst) {
  const ModelTemplate t = template_of(R"({"model_type":"sam3_tracker_video"})");
  EXPECT_EQ(t.arch.architecture, "Sam3TrackerVideoModel");
  // The model's own parameters, the occlusion embedding (first set to None) last of them, then its modules in
  // __init__'s order: shared_image_embedding, vision_encoder, prompt_encoder, mask_decoder, the memory ones.
  EXPECT_EQ(tensor_index(t, "no_memory_embedding"), 0u);
  EXPECT_EQ(tensor_index(t, "occlusion_spatial_embedding_parameter"), 4u);
  EXPECT_EQ(tensor_index(t, "shared_image_embedding.positional_embedding"), 5u);
  EXPECT_LT(tensor_index(t, "vision_encoder.neck.fpn_layers.3.proj2.bias"),
            tensor_index(t, "prompt_encoder.mask_embed.conv1.weight"));
  EXPECT_EQ(tensor_index(t, "memory_attention.layers.0.self_attn.q_proj.weight"),
            tensor_index(t, "mask_decoder.pred_obj_score_head.layers.0.bias") + 1);
  EXPECT_EQ(find_tensor(t, "temporal_positional_encoding_projection_layer.weight")->shape, (Shape{64, 256}));
  const ModelTemplate small = template_of(kSam3TrackerVideoSmall);
  EXPECT_EQ(find_tensor(small, "occlusion_spatial_embedding_parameter"), nullptr);
  EXPECT_EQ(find_tensor(small, "temporal_positional_encoding_projection_layer.weight"), nullptr);
  EXPECT_EQ(find_tensor(small, "memory_temporal_positional_encoding")->shape, (Shape{5, 1, 1, 32}));
}

TEST(Sam3Tracker, CheckpointsStoreItInsideTheVideoModel) {
  // facebook/sam3 holds the trackers' modules under tracker_model, their ViT as the detector's and their FPN
  // neck as tracker_neck (the trackers' _checkpoint_conversion_mapping).
  const ModelTemplate t = template_of(R"({"model_type":"sam3_tracker"})");
  EXPECT_EQ(stored_name(*find_tensor(t, "mask_decoder.conv_s0.weight")),
            "tracker_model.mask_decoder.conv_s0.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "vision_encoder.backbone.layers.0.attention.q_proj.weight")),
            "detector_model.vision_encoder.backbone.layers.0.attention.q_proj.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "vision_encoder.neck.fpn_layers.0.proj1.weight")),
            "tracker_neck.fpn_layers.0.proj1.weight");
  // The rest of the detector and, for Sam3TrackerModel, the video tracker's memory are skipped on load.
  const StoredCheckpoint c = stored_checkpoint(
      kSam3TrackerSmall, {{"detector_model.detr_decoder.query_embed.weight", DType::BF16, {200, 256}, {}},
                          {"tracker_model.memory_attention.layer_norm.weight", DType::BF16, {256}, {}},
                          {"tracker_model.no_object_pointer", DType::BF16, {1, 256}, {}}});
  EXPECT_EQ(extras_in(c.inventory), 3u);
  EXPECT_TRUE(c.inventory.warnings.empty());
  expect_reads_cleanly(kSam3TrackerVideoSmall);
}

TEST(Sam3Tracker, VideoModelIsDetectorTrackerAndNeck) {
  const ModelTemplate t = template_of(R"({"model_type":"sam3_video","architectures":["Sam3VideoModel"]})");
  EXPECT_EQ(t.arch.architecture, "Sam3VideoModel");
  EXPECT_EQ(total_of(t), 859'921'848u);
  EXPECT_EQ(parameters_under(t, "detector_model."), 840'376'374u);  // Sam3Model's own count
  // Sam3TrackerVideoModel with remove_vision_encoder=True.
  EXPECT_EQ(parameters_under(t, "tracker_model."), 465'782'146u - 454'038'784u);
  EXPECT_EQ(find_tensor(t, "tracker_model.vision_encoder.neck.fpn_layers.0.proj1.weight"), nullptr);
  // Sam3VisionNeck of the detector's vision_config: its four FPN levels over the ViT's 1,024 channels.
  EXPECT_EQ(parameters_under(t, "tracker_neck."), 7'802'112u);
  // Stored under their own names (Sam3VideoModel is the class the checkpoint was saved from): the 1,797
  // state_dict entries but the prompt encoder's copy of the positional basis, tied to shared_image_embedding.
  EXPECT_EQ(disk_totals(t).tensors, 1'796u);
  EXPECT_EQ(stored_name(*find_tensor(t, "tracker_model.no_memory_embedding")),
            "tracker_model.no_memory_embedding");
  EXPECT_LT(tensor_index(t, "detector_model.dot_product_scoring.query_proj.bias"),
            tensor_index(t, "tracker_model.no_memory_embedding"));
  EXPECT_LT(tensor_index(t, "tracker_model.temporal_positional_encoding_projection_layer.bias"),
            tensor_index(t, "tracker_neck.fpn_layers.0.scale_layers.0.weight"));
  expect_every_tensor_placed(t);
  EXPECT_EQ(parameters_of(kSam3VideoSmall), 19'301'817u);
  // The small detector's neck levels are 2x, 1x and 0.5x over 256 channels: tracker_neck follows them.
  const ModelTemplate small = template_of(kSam3VideoSmall);
  EXPECT_EQ(find_tensor(small, "tracker_neck.fpn_layers.0.scale_layers.0.weight")->shape,
            (Shape{256, 128, 2, 2}));
  EXPECT_EQ(find_tensor(small, "tracker_neck.fpn_layers.3.proj1.weight"), nullptr);
  expect_reads_cleanly(kSam3VideoSmall);
}

TEST(Sam3Tracker, RefusesWhatTransformersCannotBuild) {
  // Sam2VideoVisionRotaryEmbedding needs the memory attention's head width to be a multiple of 4.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"sam3_video","tracker_config":{"memory_attention_num_attention_heads":3}})")
          .field,
      "tracker_config.memory_attention_num_attention_heads");
  // tracker_neck is a Sam3VisionNeck too: Sam3FPNLayer raises for a scale factor other than 4, 2, 1 and 0.5.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"sam3_video","detector_config":{"vision_config":{"scale_factors":[3.0]}}})")
          .field,
      "detector_config.vision_config.scale_factors");
  // Only Sam3TrackerVideoModel takes remove_vision_encoder; only Sam3Model is a SAM 3 detector here.
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3_video","tracker_config":{"model_type":"sam2_video"}})").kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3_video","detector_config":{"model_type":"sam2"}})").kind,
            ErrorKind::Unsupported);
  // The trackers' image encoder is SAM 3's (AutoModel of vision_config): another is not modelled.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"sam3_tracker","vision_config":{"model_type":"sam2_vision_model"}})").kind,
      ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3_tracker_video",
      "vision_config":{"backbone_config":{"hidden_size":1000}}})")
                .field,
            "vision_config.backbone_config.num_attention_heads");
}

}  // namespace
}  // namespace ma::test
