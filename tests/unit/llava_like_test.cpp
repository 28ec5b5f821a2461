// LLaVA-NeXT, LLaVA-OneVision and Mistral 3 (model/families/llava_like.cpp): what each adds to LLaVA, in
// memory and on disk, on configs written here. Their counts are checked against the model pages in
// published_sizes_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kTinyText =
    R"("text_config":{"model_type":"mistral","hidden_size":64,"intermediate_size":96,
    "num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})";

// The on-disk name of a tensor stored under another name (its first piece).
std::string stored_name(const TemplateTensor& x) {
  return x.disk.empty() ? x.name : x.disk.front().name;
}

TEST(LlavaLike, NextAndOnevisionLearnAnImageNewline) {
  for (const std::string type : {"llava_next", "llava_onevision"}) {
    const std::string cls =
        type == "llava_next" ? "LlavaNextForConditionalGeneration" : "LlavaOnevisionForConditionalGeneration";
    const ModelTemplate t = template_of(R"({"model_type":")" + type + R"(","architectures":[")" + cls +
                                        R"("],)" + kTinyText + "}");
    const TemplateTensor* newline = find_tensor(t, "model.image_newline");
    ASSERT_NE(newline, nullptr) << type;
    EXPECT_EQ(newline->shape, Shape({64}));
    EXPECT_EQ(stored_name(*newline), "image_newline");
    EXPECT_EQ(t.arch.architecture, cls);
  }
  // LLaVA has none; OneVision's default tower is SigLIP (1152 wide, no head).
  EXPECT_EQ(
      find_tensor(template_of(R"({"model_type":"llava","architectures":["LlavaForConditionalGeneration"],)" +
                              std::string(kTinyText) + "}"),
                  "model.image_newline"),
      nullptr);
  const ModelTemplate ov = template_of(R"({"model_type":"llava_onevision",)" + std::string(kTinyText) + "}");
  EXPECT_EQ(find_tensor(ov, "vision_tower.embeddings.patch_embedding.weight")->shape,
            Shape({1152, 3, 14, 14}));
  EXPECT_EQ(find_tensor(ov, "vision_tower.head.probe"), nullptr);
}

TEST(LlavaLike, Mistral3MergesPatchesBeforeProjecting) {
  const ModelTemplate t =
      template_of(R"({"model_type":"mistral3","architectures":["Mistral3ForConditionalGeneration"],
      "spatial_merge_size":2,)" +
                  std::string(kTinyText) +
                  R"(,"vision_config":{"model_type":"pixtral","hidden_size":32,
      "intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":2,"patch_size":14,"image_size":224}})");
  const std::string p = "model.multi_modal_projector.";
  EXPECT_EQ(find_tensor(t, p + "norm.weight")->shape, Shape({32}));
  EXPECT_EQ(find_tensor(t, p + "patch_merger.merging_layer.weight")->shape, Shape({32, 128}));
  EXPECT_EQ(find_tensor(t, p + "linear_1.weight")->shape, Shape({64, 32}));
  EXPECT_EQ(find_tensor(t, p + "linear_1.bias"), nullptr);  // multimodal_projector_bias: false
  const TemplateTensor* conv = find_tensor(t, "model.vision_tower.patch_conv.weight");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->shape, Shape({32, 3, 14, 14}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.patch_conv.bias"), nullptr);
  EXPECT_EQ(stored_name(*conv), "vision_tower.patch_conv.weight");
  EXPECT_EQ(
      stored_name(*find_tensor(t, "model.vision_tower.transformer.layers.1.feed_forward.down_proj.weight")),
      "vision_tower.transformer.layers.1.feed_forward.down_proj.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.language_model.layers.0.self_attn.q_proj.weight")),
            "language_model.model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "lm_head.weight")), "language_model.lm_head.weight");
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  EXPECT_THROW(template_of(R"({"model_type":"mistral3","text_config":{"model_type":"qwen2"}})"), Error);
}

}  // namespace
}  // namespace ma::test
