// SAM 3 LiteText (model/families/sam3_lite_text.cpp). The counts are those of transformers'
// Sam3LiteTextModel and Sam3LiteTextTextModel (modeling_sam3_lite_text.py at 694f6f0f,
// modular_sam3_lite_text.py at 19c5b132) as an independent module-by-module port of their __init__s on
// torch's meta device gives them (every state_dict key, shape and order compared with the template).
// Published: the conversion script (convert_sam3_lite_text_to_hf.py) calls its MobileCLIP-S0 text encoder
// "42M"; that checkpoint's text config is inferred there: 512 wide, 6 layers, RepMixer blocks, 16 positions.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// Sam3LiteTextConfig's defaults: SAM 3's image encoder and heads, a 12-layer 512-wide text encoder.
constexpr const char* kLiteTextDefault =
    R"({"model_type":"sam3_lite_text","architectures":["Sam3LiteTextModel"]})";

// yonigozlan/sam3-litetext-s0 (EfficientSAM3 LiteText with MobileCLIP-S0's text encoder), as the conversion
// script writes its text_config.
constexpr const char* kLiteTextS0 = R"({"model_type":"sam3_lite_text","architectures":["Sam3LiteTextModel"],
  "text_config":{"vocab_size":49408,"hidden_size":512,"intermediate_size":2048,"num_hidden_layers":6,
    "num_attention_heads":8,"max_position_embeddings":16,"projection_dim":512,"use_repmixer_blocks":true}})";

TEST(Sam3LiteText, CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kLiteTextDefault), 548'138'550u);
  const ModelTemplate t = template_of(kLiteTextS0);
  EXPECT_EQ(t.arch.architecture, "Sam3LiteTextModel");
  EXPECT_EQ(total_of(t), 529'193'014u);
  // The MobileCLIP-S0 text encoder: 42,409,984, the conversion script's "42M".
  EXPECT_EQ(parameters_under(t, "text_encoder."), 42'409'984u);
  // Everything but the text encoder is SAM 3's: its image encoder is Sam3VisionModel's 454,038,784.
  EXPECT_EQ(parameters_under(t, "vision_encoder."), 454'038'784u);
  EXPECT_EQ(t.arch.hidden_size, 512u);
  EXPECT_EQ(t.arch.num_layers, 6u);
  EXPECT_EQ(t.arch.max_position_embeddings, 16u);
}

TEST(Sam3LiteText, RepMixerBlocksAreTheFirstAndLastLayers) {
  const ModelTemplate t = template_of(kLiteTextS0);
  // A [1, 1, positions, hidden] table, resized bilinearly to each sequence.
  EXPECT_EQ(find_tensor(t, "text_encoder.embeddings.position_embedding.position_embedding")->shape,
            (Shape{1, 1, 16, 512}));
  // The block's own layer_scale is registered before its token mixer's.
  EXPECT_EQ(tensor_index(t, "text_encoder.layers.0.layer_scale") + 1,
            tensor_index(t, "text_encoder.layers.0.token_mixer.layer_scale"));
  EXPECT_EQ(find_tensor(t, "text_encoder.layers.0.token_mixer.mixer.conv.weight")->shape,
            (Shape{512, 1, 1, 11}));
  EXPECT_EQ(find_tensor(t, "text_encoder.layers.5.conv_feed_forward.mlp.fc1.weight")->shape,
            (Shape{2048, 512, 1, 1}));
  const TemplateTensor* running =
      find_tensor(t, "text_encoder.layers.5.token_mixer.reference_batchnorm.running_var");
  ASSERT_NE(running, nullptr);
  EXPECT_EQ(running->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "text_encoder.layers.5.self_attn.q_proj.weight"), nullptr);
  // The middle layers are SigLIP's: layer_norm1, then k, v, q and out projections.
  EXPECT_LT(tensor_index(t, "text_encoder.layers.1.layer_norm1.bias"),
            tensor_index(t, "text_encoder.layers.1.self_attn.k_proj.weight"));
  EXPECT_LT(tensor_index(t, "text_encoder.layers.1.self_attn.v_proj.bias"),
            tensor_index(t, "text_encoder.layers.1.self_attn.q_proj.weight"));
  // The encoder's own projection has no bias; SAM 3's text_projection to the DETR width follows it.
  EXPECT_EQ(find_tensor(t, "text_encoder.projection.bias"), nullptr);
  EXPECT_EQ(tensor_index(t, "text_encoder.projection.weight") + 1, tensor_index(t, "text_projection.weight"));
  EXPECT_EQ(place_tensor("text_encoder.projection.weight").block, Block::LmHead);
  EXPECT_EQ(find_tensor(t, "text_projection.weight")->shape, (Shape{256, 512}));
  EXPECT_LT(tensor_index(t, "vision_encoder.neck.fpn_layers.3.proj2.bias"),
            tensor_index(t, "text_encoder.embeddings.token_embedding.weight"));
  EXPECT_LT(tensor_index(t, "text_projection.bias"), tensor_index(t, "geometry_encoder.label_embed.weight"));
  // Saved as it sits in memory (no detector_model. prefix).
  EXPECT_EQ(stored_name(*find_tensor(t, "detr_decoder.query_embed.weight")),
            "detr_decoder.query_embed.weight");
  // The checkpoint also holds the eight BatchNorms' running mean, variance and step count (buffers).
  EXPECT_EQ(disk_totals(t).elements, 529'193'014u + 8 * (512 + 512 + 1));
  expect_every_tensor_placed(t);
}

TEST(Sam3LiteText, TextEncoderAlone) {
  // Sam3LiteTextTextConfig's defaults: 12 layers, the first and last RepMixer blocks.
  EXPECT_EQ(parameters_of(R"({"model_type":"sam3_lite_text_text_model"})"), 61'355'520u);
  // Without RepMixer blocks every layer is a SigLIP layer.
  EXPECT_EQ(
      parameters_of(R"({"model_type":"sam3_lite_text_text_model","hidden_size":64,"intermediate_size":96,
      "num_hidden_layers":3,"num_attention_heads":4,"use_repmixer_blocks":false,"vocab_size":100})"),
      132'256u);
  const ModelTemplate t = template_of(R"({"model_type":"sam3_lite_text_text_model","hidden_size":64,
      "intermediate_size":96,"num_hidden_layers":3,"num_attention_heads":4,"max_position_embeddings":16,
      "projection_dim":32,"repmixer_kernel_size":5,"vocab_size":100})");
  EXPECT_EQ(total_of(t), 66'400u);
  EXPECT_EQ(t.arch.architecture, "Sam3LiteTextTextModel");
  EXPECT_EQ(find_tensor(t, "layers.2.conv_feed_forward.depthwise_conv.weight")->shape, (Shape{64, 1, 1, 5}));
  EXPECT_EQ(find_tensor(t, "projection.weight")->shape, (Shape{32, 64}));
  EXPECT_EQ(place_tensor("projection.weight").role, "projection");  // into the shared space: a head
  expect_every_tensor_placed(t);
}

TEST(Sam3LiteText, RefusesWhatTransformersCannotBuild) {
  // Sam3LiteTextTextAttention raises unless the heads divide the width.
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3_lite_text","text_config":{"hidden_size":500}})").field,
            "text_config.num_attention_heads");
  // Only SAM 3's image encoder is modelled.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"sam3_lite_text","vision_config":{"model_type":"sam2_vision_model"}})")
          .kind,
      ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
