// Gemma 3n's vision tower configured alone (model_type gemma3n_vision, Gemma3nVisionConfig): AutoModel builds
// TimmWrapperModel, timm's mobilenetv5_300m_enc under timm_model (standalone_towers.cpp), the composite's
// model.vision_tower.timm_model without its prefix.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// google/gemma-3n-E2B's vision_config as its config.json spells it.
constexpr const char* kGemma3nVisionE2b =
    R"({"architecture":"mobilenetv5_300m_enc","do_pooling":false,"hidden_size":2048,"initializer_range":0.02,
    "label_names":["LABEL_0","LABEL_1"],"model_args":null,"model_type":"gemma3n_vision","num_classes":2,
    "rms_norm_eps":1e-06,"vocab_offset":262144,"vocab_size":128})";

TEST(Gemma3nVision, IsTheCompositesTowerWithoutItsPrefix) {
  const ModelTemplate alone = template_of(kGemma3nVisionE2b);
  const ModelTemplate composite = template_of(R"({"model_type":"gemma3n"})");
  std::vector<std::pair<std::string, Shape>> tower;
  const std::string prefix = "model.vision_tower.";
  for (const TemplateTensor& x : composite.tensors)
    if (x.name.starts_with(prefix)) tower.emplace_back(x.name.substr(prefix.size()), x.shape);
  ASSERT_EQ(alone.tensors.size(), tower.size());
  for (size_t i = 0; i < tower.size(); ++i) {
    EXPECT_EQ(alone.tensors[i].name, tower[i].first);
    EXPECT_EQ(alone.tensors[i].shape, tower[i].second);
  }
  EXPECT_EQ(alone.tensors.front().name, "timm_model.conv_stem.conv.weight");
  EXPECT_EQ(alone.arch.architecture, "TimmWrapperModel");
  // timm 1.0.29's mobilenetv5_300m_enc, instantiated: 548 tensors of 294,126,912 parameters
  // (gemma3n_test.cpp).
  EXPECT_EQ(parameters_of(kGemma3nVisionE2b), 294'126'912u);
  EXPECT_EQ(parameters_of(R"({"model_type":"gemma3n_vision"})"), 294'126'912u);
  EXPECT_EQ(alone.tensors.size(), 548u);
}

// TimmWrapperModel's timm_model is an image network: the vision block (tensor_name_tables.h's kVisionParts).
TEST(Gemma3nVision, EveryTensorIsPlacedInTheVisionBlock) {
  for (const TemplateTensor& x : template_of(kGemma3nVisionE2b).tensors)
    EXPECT_EQ(place_tensor(x.name).block, Block::Vision) << x.name;
}

// Another timm architecture, or timm model_args, would change the network: refused, as in the composite.
TEST(Gemma3nVision, RefusesOtherTimmNetworks) {
  EXPECT_EQ(refusal_of(replaced(kGemma3nVisionE2b, "mobilenetv5_300m_enc", "mobilenetv5_base")).kind,
            ErrorKind::Unsupported);
  EXPECT_EQ(
      refusal_of(replaced(kGemma3nVisionE2b, R"("model_args":null)", R"("model_args":{"drop_rate":0.1})"))
          .kind,
      ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
