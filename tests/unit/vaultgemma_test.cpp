// VaultGemma (model/families/llama_like.cpp): Gemma-2's decoder without the norms after attention and after
// the MLP, as VaultGemmaDecoderLayer deletes them; everything else Gemma-2's.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// google/vaultgemma-1b's sizes: 26 layers of 1,152, four heads of 256, MLPs of 6,912, Gemma's 256,000 tokens.
std::string sized(const std::string& model_type) {
  return R"({"model_type":")" + model_type + R"(","hidden_size":1152,"intermediate_size":6912,
      "num_attention_heads":4,"num_hidden_layers":26,"num_key_value_heads":4,"head_dim":256,
      "vocab_size":256000,"sliding_window":512})";
}

TEST(VaultGemma, IsGemma2WithoutTheNormsAfterAttentionAndMlp) {
  EXPECT_EQ(parameters_of(sized("vaultgemma")), parameters_of(sized("gemma2")) - 26u * 2 * 1152);
  const ModelTemplate t = template_of(sized("vaultgemma"));
  EXPECT_EQ(t.arch.architecture, "VaultGemmaForCausalLM");
  EXPECT_NE(find_tensor(t, "model.layers.25.pre_feedforward_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.25.post_attention_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.25.post_feedforward_layernorm.weight"), nullptr);
  EXPECT_TRUE(t.arch.tie_word_embeddings);
}

}  // namespace
}  // namespace ma::test
