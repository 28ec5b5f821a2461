// Where the names of the encoder-decoder composites and the classic families added beside them land
// (model/tensor_placement.cpp): each was "other", or on a layer it is not, before its rule.
#include <gtest/gtest.h>

#include "model/tensor_placement.h"

namespace ma::test {
namespace {

TEST(ClassicPlacement, CompositesPlaceTheNestedModelsHeadsAndTheirProjection) {
  // A base model's pooler one level down (bert.pooler), and a composite's nested heads.
  EXPECT_EQ(place_tensor("bert.pooler.dense.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("encoder.pooler.dense.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("decoder.cls.predictions.transform.dense.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("enc_to_dec_proj.weight").block, Block::VisionProjector);
  // fairseq's head (TrOCR, FSMT), DeiT's token and classifiers, ModernBERT-decoder's top-level decoder.
  EXPECT_EQ(place_tensor("decoder.output_projection.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("model.decoder.output_projection.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("deit.embeddings.distillation_token").block, Block::Embedding);
  EXPECT_EQ(place_tensor("distillation_classifier.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("decoder.weight").block, Block::LmHead);
}

TEST(ClassicPlacement, IndicesInsideModulesAreNoLayers) {
  // GIT's projection is a Sequential named as the module holding it; CLIP's own stays in its tower.
  const TensorPlacement git = place_tensor("git.visual_projection.visual_projection.0.weight");
  EXPECT_EQ(git.block, Block::VisionProjector);
  EXPECT_FALSE(git.layer);
  EXPECT_NE(place_tensor("visual_projection.weight").block, Block::VisionProjector);
  const TensorPlacement frame = place_tensor("git.img_temporal_embedding.5");
  EXPECT_EQ(frame.block, Block::Vision);
  EXPECT_FALSE(frame.layer);
  // Speech2Text's subsampler and Reformer's axial position tables.
  const TensorPlacement conv = place_tensor("model.encoder.conv.conv_layers.1.weight");
  EXPECT_EQ(conv.block, Block::Embedding);
  EXPECT_FALSE(conv.layer);
  const TensorPlacement axial = place_tensor("reformer.embeddings.position_embeddings.weights.1");
  EXPECT_EQ(axial.block, Block::Embedding);
  EXPECT_EQ(axial.role, "position-embedding");
  EXPECT_FALSE(axial.layer);
}

TEST(ClassicPlacement, CrossAttentionAndItsGates) {
  const TensorPlacement nllb = place_tensor("model.decoder.layers.3.cross_attention.out_proj.weight");
  EXPECT_EQ(nllb.block, Block::CrossAttention);
  EXPECT_EQ(nllb.layer, 3u);
  EXPECT_EQ(place_tensor("model.gated_cross_attn_layers.0.alpha_cross_attn").block, Block::CrossAttention);
  EXPECT_EQ(place_tensor("model.gated_cross_attn_layers.0.alpha_dense").block, Block::Mlp);
}

}  // namespace
}  // namespace ma::test
