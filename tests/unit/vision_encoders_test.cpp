// DINOv2 (model/families/vision_encoders.cpp): the released backbones' counts, the giant's SwiGLU width and
// the classifier over the class token and the mean patch.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/dinov2-*'s config.json: 518-pixel images in 14-pixel patches (1,369 patches and the class token).
std::string dinov2(uint64_t hidden, uint64_t layers, uint64_t heads, bool swiglu,
                   const std::string& cls = "Dinov2Model") {
  return R"({"model_type":"dinov2","architectures":[")" + cls + R"("],"hidden_size":)" +
         std::to_string(hidden) + R"(,"num_hidden_layers":)" + std::to_string(layers) +
         R"(,"num_attention_heads":)" + std::to_string(heads) +
         R"(,"image_size":518,"patch_size":14,"mlp_ratio":4,"use_swiglu_ffn":)" +
         (swiglu ? "true" : "false") + "}";
}

// 22,056,576 / 86,580,480 / 304,368,640, as a public table lists DINOv2-S/B/L (86,580,480 and 7,089,408 a
// layer also in a printed module tree of dinov2-base); the giant 1,136,480,768 (the paper: 1.1B). By hand:
// embeddings 1,961 x H (class and mask tokens, 1,370 positions, the biased patch conv), 12H^2 + 15H a layer
// (layer scales included), the final LayerNorm.
TEST(Dinov2, ReleasedBackbonesCount) {
  EXPECT_EQ(parameters_of(dinov2(384, 12, 6, false)), 22'056'576u);
  EXPECT_EQ(parameters_of(dinov2(768, 12, 12, false)), 86'580'480u);
  EXPECT_EQ(parameters_of(dinov2(1024, 24, 16, false)), 304'368'640u);
  EXPECT_EQ(parameters_of(dinov2(1536, 40, 24, true)), 1'136'480'768u);
  const ModelTemplate base = template_of(dinov2(768, 12, 12, false));
  EXPECT_EQ(find_tensor(base, "embeddings.position_embeddings")->shape, Shape({1, 1370, 768}));
  EXPECT_EQ(find_tensor(base, "embeddings.mask_token")->shape, Shape({1, 768}));
  EXPECT_EQ(find_tensor(base, "encoder.layer.0.layer_scale1.lambda1")->shape, Shape({768}));
}

// The giant's SwiGLU: two thirds of 4 x 1,536, rounded up to a multiple of 8: 4,096, its gate and value in
// one weights_in.
TEST(Dinov2, GiantSwigluWidthAndClassifier) {
  const ModelTemplate g = template_of(dinov2(1536, 40, 24, true));
  EXPECT_EQ(find_tensor(g, "encoder.layer.0.mlp.weights_in.weight")->shape, Shape({8192, 1536}));
  EXPECT_EQ(find_tensor(g, "encoder.layer.0.mlp.weights_out.weight")->shape, Shape({1536, 4096}));
  EXPECT_TRUE(g.arch.layers()[0].ffn.gated);
  const ModelTemplate c = template_of(dinov2(384, 12, 6, false, "Dinov2ForImageClassification"));
  EXPECT_EQ(find_tensor(c, "classifier.weight")->shape, Shape({2, 768}));  // class token + mean patch
  EXPECT_NE(find_tensor(c, "dinov2.embeddings.cls_token"), nullptr);
  EXPECT_THROW(template_of(R"({"model_type":"dinov2","image_size":10,"patch_size":14})"), Error);
  EXPECT_THROW(template_of(R"({"model_type":"dinov2","mlp_ratio":-1})"), Error);
}

}  // namespace
}  // namespace ma::test
