// SAM 3.1's multiplex video tracker (model/families/sam3_1_video.cpp). The counts are those of transformers'
// Sam3_1VideoModel (modular_sam3_1_video.py and configuration_sam3_1_video.py at 3af407e1) as an independent
// module-by-module port of its __init__ (and of the SAM 2 / SAM 3 modules it reuses) gives them on torch,
// every state_dict key, shape and order compared with the template. With the defaults (facebook/sam3.1's
// tracker: SAM 3's 32-layer ViT, three FPN necks of three levels, 16 object slots) it holds 486,714,550
// parameters, and its checkpoint, converted by convert_sam3_1_video_to_hf.py without the detector heads,
// 1,024 tensors (two of them [2, 128] buffers).
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// Every size changed: a small ViT with FPN levels 2x, 1x and 0.5x, a narrower prompt encoder and mask
// decoder, four object slots, three multimask outputs per slot (the single-mask one too, with
// multimask_output_in_sam false), the no-object pointer as a table, object-conditional tokens, Linear object
// pointer and score heads, a shorter memory attention and downsampler and no high-resolution convolutions
// or temporal projection.
constexpr const char* kSam31VideoSmall = R"({"model_type":"sam3_1_video",
  "vision_config":{"model_type":"sam3_vision_model","fpn_hidden_size":128,"scale_factors":[2.0,1.0,0.5],
    "backbone_config":{"model_type":"sam3_vit_model","hidden_size":192,"intermediate_size":512,
    "num_hidden_layers":3,"num_attention_heads":4,"patch_size":16,"image_size":512,"pretrain_image_size":224}},
  "prompt_encoder_config":{"hidden_size":128,"mask_input_channels":8,"num_point_embeddings":5},
  "mask_decoder_config":{"hidden_size":128,"mlp_dim":256,"num_hidden_layers":3,"num_multimask_outputs":2,
    "iou_head_depth":4,"iou_head_hidden_dim":64},
  "multiplex_count":4,"num_multimask_outputs":2,"multimask_output_in_sam":false,"num_maskmem":5,
  "use_linear_no_obj_ptr":false,"add_object_conditional_embeddings":true,"use_mlp_for_obj_ptr_proj":false,
  "pred_obj_scores_mlp":false,"memory_attention_num_layers":2,"memory_attention_feed_forward_hidden_size":256,
  "memory_fuser_num_layers":1,"memory_fuser_kernel_size":5,"memory_fuser_padding":2,
  "mask_downsampler_total_stride":8,"enable_temporal_pos_encoding_for_object_pointers":false,
  "use_high_res_features_in_sam":false})";

// Shared tokens for the mask attributes, no multimask outputs (one hypernetwork MLP), no object pointers and
// only the conditional object tokens, a stride-4 downsampler; a small ViT.
constexpr const char* kSam31VideoShared = R"({"model_type":"sam3_1_video",
  "vision_config":{"backbone_config":{"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
    "num_attention_heads":4}},
  "multiplex_count":2,"num_multimask_outputs":0,"decode_mask_attribute_with_shared_tokens":true,
  "use_obj_ptrs_in_encoder":false,"use_no_obj_ptr":false,"add_object_conditional_embeddings":true,
  "add_object_unconditional_embeddings":false,"mask_downsampler_stride":4})";

TEST(Sam31Video, CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(R"({"model_type":"sam3_1_video"})"), 486'714'550u);
  EXPECT_EQ(parameters_of(kSam31VideoSmall), 5'786'431u);
  EXPECT_EQ(parameters_of(kSam31VideoShared), 22'524'980u);
  const ModelTemplate t = template_of(R"({"model_type":"sam3_1_video"})");
  EXPECT_EQ(t.arch.architecture, "Sam3_1VideoModel");
  EXPECT_EQ(t.arch.hidden_size, 1024u);  // the record is the ViT's
  EXPECT_EQ(t.arch.num_layers, 32u);
  EXPECT_EQ(disk_totals(t).tensors, 1'024u);
  EXPECT_EQ(disk_totals(t).elements, 486'714'550u + 2 * 256u);
  expect_every_tensor_placed(t);
}

TEST(Sam31Video, BuildsThreeNecksAndMultiplexModules) {
  const ModelTemplate t = template_of(R"({"model_type":"sam3_1_video"})");
  // The model's own tokens come first; the no-object pointer is a Linear by default.
  EXPECT_EQ(t.tensors.front().name, "maskmem_tpos_enc");
  EXPECT_EQ(t.tensors.front().shape, (Shape{7, 1, 1, 256}));
  EXPECT_EQ(find_tensor(t, "no_obj_ptr"), nullptr);
  ASSERT_NE(find_tensor(t, "no_obj_ptr_linear.weight"), nullptr);
  // Sam3_1VideoConfig gives its vision_config three FPN levels (4x, 2x, 1x), copied for each neck.
  for (const char* neck : {"convs", "interactive_convs", "propagation_convs"}) {
    const std::string p = std::string("backbone.vision_backbone.") + neck + ".";
    ASSERT_NE(find_tensor(t, p + "0.scale_layers.2.weight"), nullptr) << neck;
    ASSERT_NE(find_tensor(t, p + "2.proj1.weight"), nullptr) << neck;
    EXPECT_EQ(find_tensor(t, p + "3.proj1.weight"), nullptr) << neck;
  }
  // Two mask channels per slot into the downsampler; three mask tokens for each of the 16 slots.
  EXPECT_EQ(find_tensor(t, "maskmem_backbone.mask_downsampler.encoder.0.weight")->shape,
            (Shape{16, 32, 3, 3}));
  EXPECT_EQ(find_tensor(t, "sam_mask_decoder.mask_tokens.weight")->shape, (Shape{48, 256}));
  EXPECT_EQ(find_tensor(t, "sam_mask_decoder.iou_prediction_head.layers.2.weight")->shape, (Shape{3, 256}));
  // The ConvNeXt block's layer scale is its own parameter, before its modules'.
  EXPECT_LT(tensor_index(t, "maskmem_backbone.fuser.layers.0.gamma"),
            tensor_index(t, "maskmem_backbone.fuser.layers.0.dwconv.weight"));
  // The interactive prompt encoder's positional basis is a buffer of its own (no shared_image_embedding).
  const TemplateTensor* basis =
      find_tensor(t, "interactive_sam_prompt_encoder.shared_embedding.positional_embedding");
  ASSERT_NE(basis, nullptr);
  EXPECT_EQ(basis->kind, TensorKind::Buffer);
  EXPECT_TRUE(basis->tied_to.empty());
  EXPECT_TRUE(basis->stored);
  EXPECT_EQ(find_tensor(t, "shared_image_embedding.positional_embedding"), nullptr);
  EXPECT_EQ(find_tensor(t, "image_pe_layer.positional_encoding_gaussian_matrix")->kind, TensorKind::Buffer);
  // The memory attention's projections sit on the layer itself, named by the attention they serve.
  const TensorPlacement self_q = place_tensor("transformer.encoder.layers.3.self_attn_q_proj.weight");
  EXPECT_EQ(self_q.block, Block::Attention);
  EXPECT_EQ(self_q.role, "q");
  EXPECT_EQ(self_q.layer.value_or(0), 3u);
  const TensorPlacement image_k = place_tensor("transformer.encoder.layers.0.image_cross_attn_k_proj.bias");
  EXPECT_EQ(image_k.block, Block::CrossAttention);
  EXPECT_EQ(image_k.role, "k");
  EXPECT_EQ(place_tensor("transformer.encoder.layers.0.cross_attn_out_proj.weight").role, "o");
}

TEST(Sam31Video, SmallConfigsReadCleanly) {
  const ModelTemplate t = template_of(kSam31VideoSmall);
  EXPECT_EQ(find_tensor(t, "no_obj_ptr")->shape, (Shape{4, 128}));
  EXPECT_EQ(find_tensor(t, "obj_non_cond_embed")->shape, (Shape{4, 128}));
  EXPECT_EQ(find_tensor(t, "sam_mask_decoder.conv_s0.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "obj_ptr_tpos_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "sam_mask_decoder.mask_tokens.weight")->shape, (Shape{12, 128}));
  const ModelTemplate shared = template_of(kSam31VideoShared);
  EXPECT_EQ(find_tensor(shared, "sam_mask_decoder.iou_token.weight"), nullptr);
  ASSERT_NE(find_tensor(shared, "sam_mask_decoder.output_hypernetworks_mlp.layers.0.weight"), nullptr);
  EXPECT_EQ(find_tensor(shared, "obj_non_cond_embed"), nullptr);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(kSam31VideoSmall);
}

TEST(Sam31Video, RefusesWhatTransformersCannotBuild) {
  // Sam3_1SimpleMaskDownSampler raises unless total_stride is a power of stride.
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3_1_video","mask_downsampler_total_stride":12})").field,
            "mask_downsampler_total_stride");
  // Sam3FPNLayer raises for a scale factor other than 4, 2, 1 and 0.5.
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3_1_video","vision_config":{"scale_factors":[3.0]}})").field,
            "vision_config.scale_factors");
  // The ViT's 2-D rotary embedding needs heads of a multiple of 4 features.
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3_1_video",
      "vision_config":{"backbone_config":{"hidden_size":1000}}})")
                .field,
            "vision_config.backbone_config.num_attention_heads");
  // The tri-neck is built over SAM 3's ViT only.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"sam3_1_video","vision_config":{"model_type":"sam2_vision_model"}})").kind,
      ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
