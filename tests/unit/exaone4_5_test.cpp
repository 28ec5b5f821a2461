// EXAONE 4.5 (exaone4_5, model/families/exaone4_5.cpp): Qwen2.5-VL's tower with grouped key/value heads in
// its fused qkv, before EXAONE 4's language model. EXAONE-4.5-33B's card: "33B" with a 1.2B (1.29B) vision
// encoder; its published checkpoint adds a multi-token-prediction head of 536,110,336 that transformers
// does not load (34.35B, the "34.4B" safetensors listings show).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// LGAI-EXAONE/EXAONE-4.5-33B's sizes (its text dims are EXAONE 4.0 32B's: 64 layers of 5,120, three local
// layers a global one), the fields that shape tensors.
constexpr const char* kExaone45_33b = R"({"model_type":"exaone4_5",
    "architectures":["Exaone4_5_ForConditionalGeneration"],"tie_word_embeddings":false,
    "text_config":{"model_type":"exaone4_5_text","hidden_size":5120,"intermediate_size":27392,
      "num_hidden_layers":64,"num_attention_heads":40,"num_key_value_heads":8,"sliding_window":4096,
      "sliding_window_pattern":"LLLG","vocab_size":153600},
    "vision_config":{"model_type":"exaone4_5_vision","depth":28,"hidden_size":2048,"intermediate_size":5120,
      "num_heads":32,"num_key_value_heads":8,"out_hidden_size":5120,"patch_size":14,"spatial_merge_size":2,
      "temporal_patch_size":2}})";

TEST(Exaone45, VisionQkvHoldsGroupedKeysAndValues) {
  const ModelTemplate t = template_of(kExaone45_33b);
  EXPECT_EQ(t.arch.architecture, "Exaone4_5_ForConditionalGeneration");
  // 32 query heads of 64 and 8 key/value heads: 2,048 + 2 x 512 rows where Qwen2.5-VL has 3 x 2,048.
  EXPECT_EQ(find_tensor(t, "model.visual.blocks.0.attn.qkv.weight")->shape, Shape({3072, 2048}));
  EXPECT_EQ(find_tensor(t, "model.visual.blocks.0.attn.qkv.bias")->shape, Shape({3072}));
  EXPECT_EQ(find_tensor(t, "model.visual.merger.mlp.2.weight")->shape, Shape({5120, 8192}));
  // EXAONE 4's layers: norms after each half only, per-head q/k norms, a head of its own.
  const std::string l = "model.language_model.layers.0.";
  EXPECT_EQ(find_tensor(t, l + "input_layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, l + "post_feedforward_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, l + "self_attn.k_norm.weight")->shape, Shape({128}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "");
  // Text 32,527,504,384 (its 64 layers 30,954,635,264 as EXAONE 4.0 32B's card gives them, embedding and head
  // 786,432,000 each, the final norm) and the vision tower 1,286,482,944 ("1.29B").
  const uint64_t text = 30'954'635'264u + 2u * 786'432'000 + 5120;
  EXPECT_EQ(parameters_of(kExaone45_33b), text + 1'286'482'944u);
  EXPECT_EQ((parameters_of(kExaone45_33b) + 536'110'336u + 50'000'000) / 100'000'000, 344u);  // "34.4B"
  bool mtp_known = false;
  for (const auto& k : t.known_extras) mtp_known |= k.prefix == "mtp.";
  EXPECT_TRUE(mtp_known);
  std::string other = kExaone45_33b;
  other.replace(other.find("exaone4_5_text"), 14, "llama");
  EXPECT_THROW(template_of(other), Error);
}

}  // namespace
}  // namespace ma::test
