// Falcon-Mamba (model/families/state_space.cpp): Mamba's mixer with FalconMambaConfig's defaults, on configs
// written here; its count against the model page is in published_sizes_test.cpp.
#include <gtest/gtest.h>

#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kTinySsm = R"("hidden_size":64,"num_hidden_layers":1,"vocab_size":100,"state_size":8)";

TEST(FalconMamba, ProjectionsHaveNoBiasByDefaultAndIntermediateSizeWins) {
  const ModelTemplate falcon = template_of(R"({"model_type":"falcon_mamba",)" + std::string(kTinySsm) +
                                           R"(,"expand":16,"intermediate_size":96})");
  EXPECT_EQ(falcon.arch.architecture, "FalconMambaForCausalLM");
  EXPECT_EQ(find_tensor(falcon, "backbone.layers.0.mixer.in_proj.weight")->shape, Shape({192, 64}));
  EXPECT_EQ(find_tensor(falcon, "backbone.layers.0.mixer.in_proj.bias"), nullptr);
  // MambaConfig biases in_proj and out_proj by default and takes expand x hidden.
  const ModelTemplate mamba = template_of(R"({"model_type":"mamba",)" + std::string(kTinySsm) +
                                          R"(,"expand":2,"intermediate_size":96})");
  EXPECT_EQ(find_tensor(mamba, "backbone.layers.0.mixer.in_proj.weight")->shape, Shape({256, 64}));
  EXPECT_NE(find_tensor(mamba, "backbone.layers.0.mixer.in_proj.bias"), nullptr);
}

}  // namespace
}  // namespace ma::test
