// Aria (model/families/aria.cpp): every decoder layer a mixture of 64 experts with a shared MLP beside them,
// a headless SigLIP tower and a projector of learned queries, against its card and transformers' classes
// instantiated at full size (the reference counter of this work).
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// rhymes-ai/Aria's transformers-native config (its shape-setting fields).
const std::string kAria = R"({"architectures":["AriaForConditionalGeneration"],"model_type":"aria",
    "projector_patch_to_query_dict":{"1225":128,"4900":256},
    "text_config":{"hidden_size":2560,"intermediate_size":1664,"max_position_embeddings":65536,
      "model_type":"aria_text","moe_intermediate_size":1664,"moe_num_experts":64,"moe_topk":6,
      "num_attention_heads":20,"num_experts_per_tok":6,"num_hidden_layers":28,"num_key_value_heads":20,
      "vocab_size":100352},
    "vision_config":{"image_size":980,"intermediate_size":4304,"model_type":"idefics3_vision",
      "num_hidden_layers":27,"patch_size":14}})";

// The card: "25.3B total parameters", "3.5B activated parameters per text token" (its language model's
// layers: 3,601,349,120 here, the head and the embeddings left out).
TEST(Aria, CountsMatchItsCard) {
  const ParameterCounts c = counts_of(kAria);
  EXPECT_EQ(c.total, 25'307'311'216u);
  EXPECT_EQ((c.total + 50'000'000) / 100'000'000, 253u);
  EXPECT_EQ(c.towers, 417'792'240u + 20'427'136u);
  EXPECT_EQ(c.active_non_embedding, 3'601'349'120u + 100352u * 2560);  // with the untied head, a Linear
  const ModelTemplate t = template_of(kAria);
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.mlp.experts.fc1.weight")->shape,
            Shape({64, 2560, 2 * 1664}));
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.mlp.shared_experts.down_proj.weight")->shape,
            Shape({2560, 2 * 1664}));
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.query")->shape, Shape({256, 1152}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.embeddings.position_embedding.weight")->shape,
            Shape({4900, 1152}));
  // The language model configured alone (AriaTextForCausalLM), and AriaConfig's defaults.
  EXPECT_EQ(parameters_of(R"({"model_type":"aria_text"})"), 18'517'069'824u);
  EXPECT_EQ(parameters_of(R"({"model_type":"aria","architectures":["AriaForConditionalGeneration"]})"),
            18'701'885'824u);
  EXPECT_EQ(refusal_of(replaced(kAria, R"("moe_topk":6)", R"("moe_topk":65)")).field, "text_config.moe_topk");
}

// A small checkpoint in the Hub's layout (transformers 4's names) loads with nothing missing or left over.
TEST(Aria, SmallCheckpointMatches) {
  expect_reads_cleanly(R"({"architectures":["AriaForConditionalGeneration"],"model_type":"aria",
      "projector_patch_to_query_dict":{"4":3},
      "text_config":{"hidden_size":32,"intermediate_size":8,"num_attention_heads":4,"num_hidden_layers":2,
        "moe_num_experts":4,"moe_topk":2,"vocab_size":64},
      "vision_config":{"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,"num_attention_heads":2,
        "image_size":28,"patch_size":14}})");
}

}  // namespace
}  // namespace ma::test
