// Decoder-only models built for a task (model/decoder_task_head.h): transformers'
// ...ForSequenceClassification is the causal LM's base model with score = Linear(width, num_labels,
// bias=False) in place of the LM head (GenericForSequenceClassification; GPT2ForSequenceClassification before
// it), ...ForTokenClassification the same with a biased Linear, ...ForQuestionAnswering a biased qa_outputs =
// Linear(width, 2) with the generic classes' base model renamed `transformer`. Reward models are sequence
// classifiers with one label. The expected counts are worked by hand from those classes.
#include "model/decoder_task_head.h"

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

TEST(DecoderTaskHead, ScoreReplacesTheLmHead) {
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
TEST(DecoderTaskHead, ATiedHeadIsDroppedWithItsTie) {
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
TEST(DecoderTaskHead, TokenClassifiersAreBiased) {
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

// Question answering: qa_outputs = Linear(hidden, 2) with a bias, and LlamaForQuestionAnswering's base model
// under `transformer` (its "for BC" base_model_prefix): every name, tie, disk piece and the stack's path.
TEST(DecoderTaskHead, QuestionAnsweringHoldsTheBaseAsTransformer) {
  const ModelTemplate t = template_of(tiny_llama("LlamaForQuestionAnswering", id2label_of(7)));
  EXPECT_EQ(find_tensor(t, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "qa_outputs.weight")->shape, Shape({2, 64}));  // two outputs whatever the labels
  EXPECT_EQ(find_tensor(t, "qa_outputs.bias")->shape, Shape({2}));
  EXPECT_EQ(total_of(t), 98'754u);  // 115,008 - 16,384 + 2 x 64 + 2
  ASSERT_NE(find_tensor(t, "transformer.embed_tokens.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "transformer.layers.1.self_attn.q_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "transformer.norm.weight"), nullptr);
  for (const TemplateTensor& x : t.tensors) EXPECT_FALSE(x.name.starts_with("model.")) << x.name;
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->path, "transformer.layers");
  EXPECT_EQ(t.arch.layers().size(), 2u);
  EXPECT_EQ(place_tensor("transformer.layers.1.mlp.down_proj.weight").layer.value_or(99), 1u);
  expect_reads_cleanly(tiny_llama("LlamaForQuestionAnswering", ""));
}

// A MoE's experts stored one tensor per expert move with the base: Qwen3-MoE's gate_proj of expert 0 on disk.
// Mixtral's class keeps GenericForQuestionAnswering's `model`.
TEST(DecoderTaskHead, QuestionAnsweringMovesPerExpertPieces) {
  const std::string qwen3_moe = R"({"model_type": "qwen3_moe", "architectures":
      ["Qwen3MoeForQuestionAnswering"], "hidden_size": 64, "intermediate_size": 96, "moe_intermediate_size": 32,
      "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
      "vocab_size": 256, "num_experts": 4, "num_experts_per_tok": 2})";
  bool found = false;
  for (const DiskTensor& x : disk_form(template_of(qwen3_moe))) {
    EXPECT_FALSE(x.name.starts_with("model.")) << x.name;
    found = found || x.name == "transformer.layers.0.mlp.experts.0.gate_proj.weight";
  }
  EXPECT_TRUE(found);
  const ModelTemplate mixtral = template_of(R"({"model_type": "mixtral", "architectures":
      ["MixtralForQuestionAnswering"], "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 1,
      "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 256, "num_local_experts": 4,
      "num_experts_per_tok": 2})");
  EXPECT_NE(find_tensor(mixtral, "model.embed_tokens.weight"), nullptr);
  EXPECT_EQ(find_tensor(mixtral, "lm_head.weight"), nullptr);
  EXPECT_EQ(find_tensor(mixtral, "qa_outputs.weight")->shape, Shape({2, 64}));
  EXPECT_EQ(find_tensor(mixtral, "qa_outputs.bias")->shape, Shape({2}));
}

// The older classes keep their causal LM's base names (GPT-2's transformer.) and add a biased qa_outputs.
TEST(DecoderTaskHead, OlderQuestionAnsweringClassesKeepTheirNames) {
  const std::string lm = R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 64,
      "n_layer": 2, "n_head": 4, "vocab_size": 256, "n_positions": 128})";
  const ModelTemplate t = template_of(replaced(lm, "GPT2LMHeadModel", "GPT2ForQuestionAnswering"));
  EXPECT_NE(find_tensor(t, "transformer.wte.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "qa_outputs.weight")->shape, Shape({2, 64}));
  EXPECT_EQ(total_of(t), total_of(template_of(lm)) + 2 * 64 + 2);
}

// OPT's heads read word_embed_proj_dim, the width its project_out gives the last hidden state (OPT-350m: 512
// of a 1,024 hidden size), and its base stays model.decoder. (OPTForQuestionAnswering's self.model).
TEST(DecoderTaskHead, HeadsReadTheWidthTheLmHeadRead) {
  const std::string opt = R"({"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 64,
      "word_embed_proj_dim": 32, "ffn_dim": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 256, "max_position_embeddings": 128})";
  const ModelTemplate lm = template_of(opt);
  const ModelTemplate cls = template_of(replaced(opt, "OPTForCausalLM", "OPTForSequenceClassification"));
  EXPECT_EQ(find_tensor(cls, "score.weight")->shape, Shape({2, 32}));
  EXPECT_EQ(total_of(cls), total_of(lm) + 2 * 32);  // the tied head leaves, the score comes
  const ModelTemplate qa = template_of(replaced(opt, "OPTForCausalLM", "OPTForQuestionAnswering"));
  EXPECT_EQ(find_tensor(qa, "qa_outputs.weight")->shape, Shape({2, 32}));
  EXPECT_NE(find_tensor(qa, "model.decoder.embed_tokens.weight"), nullptr);
  EXPECT_NE(find_tensor(qa, "model.decoder.project_out.weight"), nullptr);
}

// Classifiers that are their builders' own keep their heads: BERT's classifier with its bias; Qwen3-ASR's
// aligner, a decoder whose score its builder sizes without a bias, is counted in its own test
// (Qwen3Asr.CountsAsPublished).
TEST(DecoderTaskHead, EncodersKeepTheirOwnClassifier) {
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
TEST(DecoderTaskHead, ACheckpointOfItReadsCleanly) {
  expect_reads_cleanly(tiny_llama("LlamaForSequenceClassification", R"("num_labels": 1)"));
  expect_reads_cleanly(
      replaced(tiny_llama("Qwen2ForSequenceClassification", id2label_of(5)), R"("llama")", R"("qwen2")"));
  expect_reads_cleanly(tiny_llama("LlamaForTokenClassification", id2label_of(9)));
}

}  // namespace
}  // namespace ma::test
