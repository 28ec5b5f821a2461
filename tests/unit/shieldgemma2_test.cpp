// ShieldGemma 2 (shieldgemma2, model/families/multimodal.cpp): Gemma-3 4B held as `model` by
// ShieldGemma2ForImageClassification, stored as Gemma-3 stores it. The independent figure is Gemma 3 4B's:
// google/gemma-3-4b-it's shards hold 8,600,158,944 bytes of bfloat16, 4,300,079,472 parameters.
#include <gtest/gtest.h>

#include <string>

#include "core/json.h"
#include "report_test_support.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// google/shieldgemma-2-4b-it's config.json is gemma-3-4b-it's with its own model_type and class; the fields
// that shape tensors.
constexpr const char* kShieldGemma2 = R"({"model_type":"shieldgemma2",
    "architectures":["ShieldGemma2ForImageClassification"],"mm_tokens_per_image":256,
    "text_config":{"model_type":"gemma3_text","hidden_size":2560,"intermediate_size":10240,
      "num_hidden_layers":34,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,
      "sliding_window":1024,"vocab_size":262208,"rope_scaling":{"factor":8.0,"rope_type":"linear"}},
    "vision_config":{"model_type":"siglip_vision_model","hidden_size":1152,"intermediate_size":4304,
      "num_hidden_layers":27,"num_attention_heads":16,"image_size":896,"patch_size":14,
      "vision_use_head":false}})";

TEST(ShieldGemma2, CountsGemma3FourB) {
  EXPECT_EQ(parameters_of(kShieldGemma2), 4'300'079'472u);
  const ModelTemplate t = template_of(kShieldGemma2);
  EXPECT_EQ(t.arch.architecture, "ShieldGemma2ForImageClassification");
  EXPECT_EQ(t.arch.model_type, "gemma3_text");
  EXPECT_EQ(t.arch.num_layers, 34u);
  // In memory under the classifier's `model`; on disk as every Gemma-3 checkpoint, without it.
  const TemplateTensor* q = find_tensor(t, "model.model.language_model.layers.0.self_attn.q_proj.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->shape, Shape({2048, 2560}));
  EXPECT_EQ(stored_name(*q), "language_model.model.layers.0.self_attn.q_proj.weight");
  const TemplateTensor* patch = find_tensor(t, "model.model.vision_tower.embeddings.patch_embedding.weight");
  ASSERT_NE(patch, nullptr);
  EXPECT_EQ(stored_name(*patch), "vision_tower.vision_model.embeddings.patch_embedding.weight");
  const TemplateTensor* head = find_tensor(t, "model.lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->tied_to, "model.model.language_model.embed_tokens.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.model.multi_modal_projector.mm_input_projection_weight")),
            "multi_modal_projector.mm_input_projection_weight");
}

// A checkpoint written the way Gemma-3's Hub files are reads with nothing unexplained.
TEST(ShieldGemma2, ReadsItsCheckpointLayout) {
  expect_reads_cleanly(kShieldGemma2);
}

// transformers' own count of a Gemma3ForConditionalGeneration (the oracle's MedGemma 27B): the same
// config under ShieldGemma 2's model_type counts the same.
TEST(ShieldGemma2, WrapsWhatTransformersBuildsForGemma3) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  const auto oracle = json::Document::parse(
      read_small_file(*data / "oracle/google__medgemma-27b-it.json", 1 << 26), "oracle");
  std::string config = read_small_file(*data / "hf-configs/google__medgemma-27b-it/config.json", 1 << 20);
  const std::string from = R"("model_type": "gemma3")";
  ASSERT_NE(config.find(from), std::string::npos);
  config.replace(config.find(from), from.size(), R"("model_type": "shieldgemma2")");
  EXPECT_EQ(parameters_of(config), *oracle.root().find("num_params")->as_uint());
}

}  // namespace
}  // namespace ma::test
