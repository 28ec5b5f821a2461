// ALIGN, GroupViT and X-CLIP (model/families/align.cpp, groupvit.cpp, xclip.cpp) on their Hub configs. The
// counts are transformers' own classes' (sum of p.numel() over model.parameters()), counted tensor by tensor
// from modeling_align.py, modeling_groupvit.py and modular_x_clip.py by the helper's verify/ scripts (names,
// shapes and registration order compared with the template), and agree with the sizes the Hub shows for
// kakaobrain/align-base (172M), nvidia/groupvit-gcc-yfcc (55.7M) and microsoft/xclip-base-patch32 (197M).
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// kakaobrain/align-base's config.json, its shape fields (the vision config keeps AlignVisionConfig's
// EfficientNet-B7 defaults).
constexpr const char* kAlignBase =
    R"({"model_type":"align","architectures":["AlignModel"],"projection_dim":640,
    "temperature_init_value":1.0,
    "text_config":{"model_type":"align_text_model","vocab_size":30522,"hidden_size":768,
    "num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":512,
    "type_vocab_size":2},
    "vision_config":{"model_type":"align_vision_model","width_coefficient":2.0,"depth_coefficient":3.1,
    "hidden_dim":640,"image_size":289}})";

// nvidia/groupvit-gcc-yfcc's config.json, its shape fields.
constexpr const char* kGroupVitGccYfcc =
    R"({"model_type":"groupvit","architectures":["GroupViTModel"],"projection_dim":256,
    "projection_intermediate_dim":4096,
    "text_config":{"model_type":"groupvit_text_model","vocab_size":49408,"hidden_size":256,
    "intermediate_size":1024,"num_hidden_layers":12,"num_attention_heads":4,"max_position_embeddings":77},
    "vision_config":{"model_type":"groupvit_vision_model","hidden_size":384,"intermediate_size":1536,
    "depths":[6,3,3],"num_group_tokens":[64,8,0],"num_output_groups":[64,8,8],"num_attention_heads":6,
    "image_size":224,"patch_size":16,"assign_mlp_ratio":[0.5,4]}})";

// microsoft/xclip-base-patch32's config.json, its shape fields.
constexpr const char* kXclipBasePatch32 =
    R"({"model_type":"xclip","architectures":["XCLIPModel"],"projection_dim":512,"prompt_layers":2,
    "prompt_alpha":0.1,"prompt_num_attention_heads":8,
    "text_config":{"model_type":"xclip_text_model","vocab_size":49408,"hidden_size":512,
    "intermediate_size":2048,"num_hidden_layers":12,"num_attention_heads":8,"max_position_embeddings":77},
    "vision_config":{"model_type":"xclip_vision_model","hidden_size":768,"intermediate_size":3072,
    "num_hidden_layers":12,"num_attention_heads":12,"mit_hidden_size":512,"mit_intermediate_size":2048,
    "mit_num_hidden_layers":1,"mit_num_attention_heads":8,"image_size":224,"patch_size":32,"num_frames":8}})";

// ---- ALIGN ----

// AlignModel: 172,117,841 parameters = BERT-base with its pooler (109,482,240) + the B7 EfficientNet's stem
// and 55 blocks without a top conv (62,143,440) + the biased 768 -> 640 text projection + the temperature.
TEST(DualEncoders, AlignBaseCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kAlignBase), 172'117'841u);
  const ModelTemplate t = template_of(kAlignBase);
  EXPECT_EQ(t.tensors.front().name, "temperature");  // the model's own parameter precedes its modules'
  EXPECT_EQ(t.tensors.front().shape, Shape{});
  EXPECT_EQ(find_tensor(t, "text_model.pooler.dense.weight")->shape, (Shape{768, 768}));
  EXPECT_EQ(find_tensor(t, "text_projection.bias")->shape, (Shape{640}));
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.convolution.weight")->shape, (Shape{64, 3, 3, 3}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.blocks.54.projection.project_conv.weight")->shape,
            (Shape{640, 3840, 1, 1}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.blocks.54.projection.project_bn.running_mean")->kind,
            TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.top_conv.weight"), nullptr);  // EfficientNet's, not ALIGN's
  EXPECT_EQ(find_tensor(t, "visual_projection.weight"), nullptr);              // the image is not projected
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 12u);
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->hidden, 640u);
  expect_every_tensor_placed(t);
}

// The towers alone: AlignTextModel (BERT-base and its pooler) and AlignVisionModel, flat.
TEST(DualEncoders, AlignTowersAlone) {
  EXPECT_EQ(parameters_of(R"({"model_type":"align_text_model","architectures":["AlignTextModel"]})"),
            109'482'240u);
  const ModelTemplate v = template_of(R"({"model_type":"align_vision_model","width_coefficient":2.0,
      "depth_coefficient":3.1})");
  EXPECT_EQ(total_of(v), 62'143'440u);
  EXPECT_NE(find_tensor(v, "embeddings.batchnorm.weight"), nullptr);
  EXPECT_EQ(v.arch.architecture, "AlignVisionModel");
}

// ---- GroupViT ----

// GroupViTModel: 55,726,609 parameters. The text tower is CLIP's at GroupViTTextConfig's sizes; the vision
// stages hold 64 and 8 group tokens; both projections are Linear, BatchNorm1d, ReLU, Linear (indices 0, 1,
// 3; the BatchNorm's running statistics are buffers).
TEST(DualEncoders, GroupVitCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kGroupVitGccYfcc), 55'726'609u);
  // GroupViTTextConfig's own defaults (256 wide, 4 heads), not CLIP's, when the config names none.
  EXPECT_EQ(parameters_of(R"({"model_type":"groupvit"})"), 55'726'609u);
  const ModelTemplate t = template_of(kGroupVitGccYfcc);
  EXPECT_EQ(t.tensors.front().name, "logit_scale");
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embeddings")->shape, (Shape{1, 196, 384}));
  // GroupViTVisionEmbeddings registers its position table before the patch projection.
  EXPECT_LT(tensor_index(t, "vision_model.embeddings.position_embeddings"),
            tensor_index(t, "vision_model.embeddings.patch_embeddings.projection.weight"));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.stages.0.group_token")->shape, (Shape{1, 64, 384}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.stages.2.group_token"), nullptr);
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.stages.2.downsample.norm_tokens.weight"), nullptr);
  // The token mixer runs across tokens: 64 group tokens -> 192 (0.5 x 384) -> 64 output groups.
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.stages.0.downsample.mlp_inter.fc1.weight")->shape,
            (Shape{192, 64}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.stages.0.downsample.mlp_channels.fc1.weight")->shape,
            (Shape{1536, 384}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.stages.1.group_projector.1.fc1.weight")->shape,
            (Shape{192, 64}));
  EXPECT_EQ(find_tensor(t, "vision_model.encoder.stages.0.group_projector.0.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "text_projection.0.weight")->shape, (Shape{4096, 256}));
  EXPECT_EQ(find_tensor(t, "visual_projection.1.running_var")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "visual_projection.3.weight")->shape, (Shape{256, 4096}));
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->hidden, 384u);
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->patch_size, 16u);
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("visual_projection.0.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("text_projection.3.bias").block, Block::LmHead);
}

// ---- X-CLIP ----

// XCLIPModel: 196,585,729 parameters: CLIP ViT-B/32 and its text transformer, a message token per frame in
// each vision layer (message_fc, message_ln, message_attn), one 512-wide integration layer over the 8
// frames, two prompt generator layers and the 768 x 512 projection of the patch features.
TEST(DualEncoders, XclipCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kXclipBasePatch32), 196'585'729u);
  EXPECT_EQ(parameters_of(R"({"model_type":"xclip"})"), 196'585'729u);  // the config classes' defaults
  const ModelTemplate t = template_of(kXclipBasePatch32);
  EXPECT_EQ(t.tensors[0].name, "logit_scale");
  EXPECT_EQ(t.tensors[1].name, "prompts_visual_projection");
  EXPECT_EQ(t.tensors[1].shape, (Shape{768, 512}));
  // transformers 5 (modular_x_clip.py): the message modules follow CLIP's layer, pre_layernorm (sic)
  // follows post_layernorm.
  EXPECT_LT(tensor_index(t, "vision_model.encoder.layers.0.layer_norm2.bias"),
            tensor_index(t, "vision_model.encoder.layers.0.message_fc.weight"));
  EXPECT_LT(tensor_index(t, "vision_model.post_layernorm.weight"),
            tensor_index(t, "vision_model.pre_layernorm.weight"));
  EXPECT_EQ(find_tensor(t, "vision_model.embeddings.position_embedding.weight")->shape, (Shape{50, 768}));
  EXPECT_EQ(find_tensor(t, "mit.position_embedding")->shape, (Shape{1, 8, 512}));
  EXPECT_NE(find_tensor(t, "mit.encoder.layers.0.mlp.fc2.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "prompts_generator.alpha")->shape, (Shape{512}));
  EXPECT_EQ(find_tensor(t, "prompts_generator.decoder.1.cross_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "prompts_generator.decoder.1.mlp.0.weight")->shape, (Shape{2048, 512}));
  EXPECT_EQ(find_tensor(t, "visual_projection.bias"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Vision)->layers.size(), 12u);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 12u);
  expect_every_tensor_placed(t);
}

// ---- hostile configs ----

TEST(DualEncoders, RefusesHostileConfigsNamingTheField) {
  EXPECT_EQ(
      refusal_of(replaced(kAlignBase, R"("num_attention_heads":12)", R"("num_attention_heads":7)")).field,
      "text_config.num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kAlignBase, R"("type_vocab_size":2)",
                                R"("type_vocab_size":2,"position_embedding_type":"relative_key")"))
                .field,
            "text_config.position_embedding_type");
  EXPECT_EQ(refusal_of(replaced(kAlignBase, R"("image_size":289)",
                                R"("image_size":289,"in_channels":[32,16],"out_channels":[16])"))
                .field,
            "vision_config.out_channels");
  EXPECT_EQ(
      refusal_of(replaced(kAlignBase, R"("image_size":289)", R"("image_size":289,"pooling_type":"sum")"))
          .field,
      "vision_config.pooling_type");
  EXPECT_EQ(
      refusal_of(replaced(kGroupVitGccYfcc, R"("num_group_tokens":[64,8,0])", R"("num_group_tokens":[64,8])"))
          .field,
      "vision_config.num_group_tokens");
  EXPECT_EQ(
      refusal_of(replaced(kGroupVitGccYfcc, R"("assign_mlp_ratio":[0.5,4])", R"("assign_mlp_ratio":"big")"))
          .field,
      "vision_config.assign_mlp_ratio");
  EXPECT_EQ(refusal_of(replaced(kGroupVitGccYfcc, R"("num_attention_heads":6)", R"("num_attention_heads":5)"))
                .field,
            "vision_config.num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kXclipBasePatch32, R"("mit_num_attention_heads":8)",
                                R"("mit_num_attention_heads":7)"))
                .field,
            "vision_config.mit_num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kXclipBasePatch32, R"("prompt_num_attention_heads":8)",
                                R"("prompt_num_attention_heads":7)"))
                .field,
            "prompt_num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kXclipBasePatch32, R"("patch_size":32)", R"("patch_size":300)")).field,
            "vision_config.patch_size");
  const Refusal r = refusal_of(replaced(kAlignBase, "AlignModel", "AlignForImageClassification"));
  EXPECT_EQ(r.kind, ErrorKind::Unsupported);
  EXPECT_EQ(r.field, "architectures");
}

}  // namespace
}  // namespace ma::test
