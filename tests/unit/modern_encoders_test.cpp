// ModernBERT and XLM-RoBERTa (model/families/encoders.cpp), and RoBERTa's default vocabulary, on configs
// written here. Their counts are checked against llama.cpp (ModernBERT, hf_twin_llama_oracle_test.cpp) and
// the model pages (published_sizes_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kSmallEncoder = R"("hidden_size":64,"intermediate_size":96,"num_hidden_layers":7,
    "num_attention_heads":4,"vocab_size":100)";

std::string small_encoder(const std::string& model_type, const std::string& architecture,
                          const std::string& extra = "") {
  return "{\"model_type\":\"" + model_type + "\",\"architectures\":[\"" + architecture + "\"]," +
         kSmallEncoder + (extra.empty() ? "" : "," + extra) + "}";
}

TEST(ModernEncoders, ModernBertLayerZeroHasNoAttentionNorm) {
  const ModelTemplate t = template_of(small_encoder("modernbert", "ModernBertModel"));
  EXPECT_EQ(find_tensor(t, "layers.0.attn_norm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "layers.1.attn_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "layers.1.attn_norm.bias"), nullptr);  // norm_bias: false
  EXPECT_EQ(find_tensor(t, "layers.0.attn.Wqkv.weight")->shape, Shape({192, 64}));
  EXPECT_EQ(find_tensor(t, "layers.0.mlp.Wi.weight")->shape, Shape({192, 64}));  // input and gate
  EXPECT_EQ(find_tensor(t, "layers.0.mlp.Wo.weight")->shape, Shape({64, 96}));
  EXPECT_NE(find_tensor(t, "embeddings.norm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "final_norm.weight"), nullptr);
  // Global attention on layers 0, 3, 6; the others slide over local_attention (128) tokens.
  std::vector<uint64_t> windows;
  for (const LayerSpec& l : t.arch.layers()) windows.push_back(l.attention.window);
  EXPECT_EQ(windows, (std::vector<uint64_t>{0, 128, 128, 0, 128, 128, 0}));
}

TEST(ModernEncoders, ModernBertMaskedLmTiesItsDecoderButKeepsItsBias) {
  const ModelTemplate t =
      template_of(small_encoder("modernbert", "ModernBertForMaskedLM", R"("norm_bias":true)"));
  const TemplateTensor* decoder = find_tensor(t, "decoder.weight");
  ASSERT_NE(decoder, nullptr);
  EXPECT_EQ(decoder->tied_to, "model.embeddings.tok_embeddings.weight");
  EXPECT_EQ(find_tensor(t, "decoder.bias")->shape, Shape({100}));
  EXPECT_NE(find_tensor(t, "head.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "head.dense.bias"), nullptr);  // classifier_bias: false
  EXPECT_NE(find_tensor(t, "head.norm.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.1.attn_norm.bias"), nullptr);
  const ModelTemplate cls =
      template_of(small_encoder("modernbert", "ModernBertForSequenceClassification", R"("num_labels":3)"));
  EXPECT_EQ(find_tensor(cls, "classifier.weight")->shape, Shape({3, 64}));
  EXPECT_EQ(find_tensor(cls, "decoder.weight"), nullptr);
  EXPECT_THROW(template_of(small_encoder("modernbert", "ModernBertForFooBar")), Error);
}

TEST(ModernEncoders, XlmRobertaIsRobertaUnderItsOwnClassNames) {
  const ModelTemplate t = template_of(small_encoder("xlm-roberta", "XLMRobertaForMaskedLM"));
  EXPECT_EQ(t.arch.architecture, "XLMRobertaForMaskedLM");
  EXPECT_NE(find_tensor(t, "roberta.encoder.layer.6.output.LayerNorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "lm_head.dense.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.decoder.weight")->tied_to, "roberta.embeddings.word_embeddings.weight");
  // Without a vocab_size, XLMRobertaConfig's is BERT's and RobertaConfig's its own.
  const std::string bare =
      R"("hidden_size":64,"intermediate_size":96,"num_hidden_layers":1,"num_attention_heads":4})";
  EXPECT_EQ(template_of(R"({"model_type":"xlm-roberta",)" + bare).arch.vocab_size, 30522u);
  EXPECT_EQ(template_of(R"({"model_type":"roberta",)" + bare).arch.vocab_size, 50265u);
}

}  // namespace
}  // namespace ma::test
