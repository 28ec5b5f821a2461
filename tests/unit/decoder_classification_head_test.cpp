// Decoder-only models built as classifiers (model/decoder_classification_head.h): transformers'
// ...ForSequenceClassification is the causal LM's base model with score = Linear(hidden, num_labels,
// bias=False) in place of the LM head (GenericForSequenceClassification; GPT2ForSequenceClassification
// before it), ...ForTokenClassification the same with a biased Linear. Reward models are sequence
// classifiers with one label. The expected counts are worked by hand from those classes.
#include "model/decoder_classification_head.h"

#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// Hidden 64, 2 layers of 4 heads, a 256-token vocabulary: the causal LM holds 16,384 (embedding) + 2 x 41,088
// (layers) + 64 (final norm) + 16,384 (lm_head) = 115,008 parameters.
std::string tiny_llama(const std::string& cls, const std::string& labels) {
  return R"({"model_type": "llama", "architectures": [")" + cls +
         R"("], "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 256,
             "max_position_embeddings": 512)" +
         (labels.empty() ? "" : ", " + labels) + "}";
}

TEST(DecoderClassificationHead, ScoreReplacesTheLmHead) {
  EXPECT_EQ(parameters_of(tiny_llama("LlamaForCausalLM", "")), 115'008u);
  const ModelTemplate t = template_of(tiny_llama("LlamaForSequenceClassification", id2label_of(3)));
  EXPECT_EQ(find_tensor(t, "lm_head.weight"), nullptr);
  ASSERT_NE(find_tensor(t, "score.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "score.weight")->shape, Shape({3, 64}));
  EXPECT_EQ(find_tensor(t, "score.bias"), nullptr);
  EXPECT_EQ(place_tensor("score.weight").block, Block::LmHead);  // the analyses find the head by its block
  // 115,008 - 16,384 (lm_head) + 3 x 64 (score).
  EXPECT_EQ(total_of(t), 98'816u);
  EXPECT_EQ(t.arch.architecture, "LlamaForSequenceClassification");
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  // A reward model's one label, from num_labels; transformers' default of 2 without either key.
  EXPECT_EQ(find_tensor(template_of(tiny_llama("LlamaForSequenceClassification", R"("num_labels": 1)")),
                        "score.weight")
                ->shape,
            Shape({1, 64}));
  EXPECT_EQ(find_tensor(template_of(tiny_llama("LlamaForSequenceClassification", "")), "score.weight")->shape,
            Shape({2, 64}));
}

// A tied head (GPT-2's lm_head is transformer.wte) leaves nothing behind, and the count gains only score.
TEST(DecoderClassificationHead, ATiedHeadIsDroppedWithItsTie) {
  const std::string lm = R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 64,
      "n_layer": 2, "n_head": 4, "vocab_size": 256, "n_positions": 128})";
  const std::string cls = replaced(lm, "GPT2LMHeadModel", "GPT2ForSequenceClassification");
  const ModelTemplate t = template_of(cls);
  EXPECT_EQ(find_tensor(t, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "score.weight")->shape, Shape({2, 64}));
  EXPECT_EQ(total_of(t), total_of(template_of(lm)) + 2 * 64);
}

// A per-token classifier's Linear is biased: GenericForTokenClassification's score where the base model is
// `model`, GPT-2's own classifier under `transformer`.
TEST(DecoderClassificationHead, TokenClassifiersAreBiased) {
  const ModelTemplate llama = template_of(tiny_llama("LlamaForTokenClassification", id2label_of(3)));
  EXPECT_EQ(find_tensor(llama, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(llama, "score.weight")->shape, Shape({3, 64}));
  EXPECT_EQ(find_tensor(llama, "score.bias")->shape, Shape({3}));
  EXPECT_EQ(total_of(llama), 98'819u);  // 115,008 - 16,384 + 3 x 64 + 3
  const ModelTemplate gpt2 =
      template_of(R"({"model_type": "gpt2", "architectures": ["GPT2ForTokenClassification"],
      "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 256, "n_positions": 128, )" +
                  id2label_of(5) + "}");
  EXPECT_EQ(find_tensor(gpt2, "score.weight"), nullptr);
  EXPECT_EQ(find_tensor(gpt2, "classifier.weight")->shape, Shape({5, 64}));
  EXPECT_EQ(find_tensor(gpt2, "classifier.bias")->shape, Shape({5}));
}

// Classifiers that are their builders' own keep their heads: BERT's classifier with its bias; Qwen3-ASR's
// aligner, a decoder whose score its builder sizes without a bias, is counted in its own test
// (Qwen3Asr.CountsAsPublished).
TEST(DecoderClassificationHead, EncodersKeepTheirOwnClassifier) {
  const ModelTemplate t =
      template_of(R"({"model_type": "bert", "architectures": ["BertForSequenceClassification"],
      "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
      "vocab_size": 256, )" +
                  id2label_of(3) + "}");
  EXPECT_EQ(find_tensor(t, "score.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "classifier.weight")->shape, Shape({3, 64}));
  EXPECT_NE(find_tensor(t, "classifier.bias"), nullptr);
}

// A checkpoint stored as transformers saves it (score.weight, no lm_head) reads with no warning and no extra.
TEST(DecoderClassificationHead, ACheckpointOfItReadsCleanly) {
  expect_reads_cleanly(tiny_llama("LlamaForSequenceClassification", R"("num_labels": 1)"));
  expect_reads_cleanly(
      replaced(tiny_llama("Qwen2ForSequenceClassification", id2label_of(5)), R"("llama")", R"("qwen2")"));
  expect_reads_cleanly(tiny_llama("LlamaForTokenClassification", id2label_of(9)));
}

}  // namespace
}  // namespace ma::test
