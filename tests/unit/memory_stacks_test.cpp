// Activations of every stack a model runs, each at its own length: an encoder-decoder's training activations
// hold its encoder's layers (at their input length: Whisper's max_source_positions, T5's context) beside its
// decoder's, and its inference activations the larger of the two stacks' layers; a masked-LM or
// token-classification head materialises the logits of every position, a generating head the last one's.
// Expected figures are Korthikanti et al.'s per-layer terms written out here by hand, per stack.
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory.h"
#include "report_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

uint64_t stacks_bytes(const MemoryReport& m, std::string_view name) {
  const Estimate* e = m.find(name);
  EXPECT_NE(e, nullptr) << name;
  EXPECT_TRUE(e && e->known) << name;
  return e ? e->bytes : 0;
}

const std::string& stacks_formula(const MemoryReport& m, std::string_view name) {
  static const std::string none;
  const Estimate* e = m.find(name);
  EXPECT_NE(e, nullptr) << name;
  return e ? e->formula : none;
}

// Korthikanti et al. 2022, eq. 1, per layer: s*b*h*(34 + 5*a*s/h) = s*b*(34h + 5as) bytes.
constexpr uint64_t stacks_eager_layer(uint64_t s, uint64_t b, uint64_t h, uint64_t a) {
  return s * b * (34 * h + 5 * a * s);
}
// Without the stored scores: 34*s*b*h.
constexpr uint64_t stacks_flash_layer(uint64_t s, uint64_t b, uint64_t h) {
  return 34 * s * b * h;
}

// A tiny Whisper: d_model 64, 4 heads, FFN 128 in both stacks, 2 encoder layers over 100 source positions,
// 3 decoder layers over 40 target positions, vocabulary 200, float32.
constexpr const char* kStacksTinyWhisper = R"({"architectures": ["WhisperForConditionalGeneration"],
  "model_type": "whisper", "d_model": 64, "encoder_layers": 2, "decoder_layers": 3,
  "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 128,
  "decoder_ffn_dim": 128, "max_source_positions": 100, "max_target_positions": 40, "vocab_size": 200,
  "num_mel_bins": 8, "torch_dtype": "float32"})";

TEST(MemoryStacks, WhisperTrainingHoldsTheEncoderAtItsSourcePositions) {
  test::TempDir dir;
  test::write_file(dir / "config.json", kStacksTinyWhisper);
  auto l = test::load_model(dir.path(), false);
  const MemoryReport m = test::memory_of(*l);
  ASSERT_EQ(m.context, 40u);  // min(max_target_positions, 8,192)
  // Encoder: 2 layers at s=100; decoder: 3 layers at s=40; h=64, a=4, b=1.
  // 2 x 100 x (2,176 + 2,000) = 835,200; 3 x 40 x (2,176 + 800) = 357,120.
  const uint64_t eager = 2 * stacks_eager_layer(100, 1, 64, 4) + 3 * stacks_eager_layer(40, 1, 64, 4);
  EXPECT_EQ(eager, 1'192'320u);
  EXPECT_EQ(stacks_bytes(m, "training_activations"), eager);
  // 34 x 64 x (2 x 100 + 3 x 40) = 2,176 x 320 = 696,320.
  const uint64_t flash = 2 * stacks_flash_layer(100, 1, 64) + 3 * stacks_flash_layer(40, 1, 64);
  EXPECT_EQ(flash, 696'320u);
  EXPECT_EQ(stacks_bytes(m, "training_activations_flash"), flash);
  // Layer inputs 2 x 64 x (2 x 100 + 3 x 40) = 40,960, + one encoder layer (the larger) 34 x 100 x 64 =
  // 217,600.
  EXPECT_EQ(stacks_bytes(m, "training_activations_checkpointed"), 40'960u + 217'600u);
  const uint64_t states = stacks_bytes(m, "training_mixed_bf16_states");
  EXPECT_EQ(stacks_bytes(m, "training_mixed_bf16_total"), states + flash);
  EXPECT_EQ(stacks_bytes(m, "training_full_fp32_total"), states + 2 * flash);
  // The formula names each stack's length and depth.
  const std::string& f = stacks_formula(m, "training_activations");
  EXPECT_NE(f.find("encoder s=100, b=1, h=64, a=4, L=2"), std::string::npos) << f;
  EXPECT_NE(f.find("decoder s=40, b=1, h=64, a=4, L=3"), std::string::npos) << f;
  // Inference: the encoder's layer is the larger: 100 x (2 x 64 + 2 x 128 (fc1, GELU)) x 4 bytes = 153,600
  // (the decoder's 40 x 384 x 4 = 61,440), + the last position's 200 x 4 bytes of logits.
  EXPECT_EQ(stacks_bytes(m, "inference_activations"), 153'600u + 800u);
}

TEST(MemoryStacks, BatchMultipliesEveryStack) {
  test::TempDir dir;
  test::write_file(dir / "config.json", kStacksTinyWhisper);
  auto l = test::load_model(dir.path(), false);
  ReportOptions o;
  o.batch = 3;
  const MemoryReport m = test::memory_of(*l, o);
  EXPECT_EQ(stacks_bytes(m, "training_activations"),
            2 * stacks_eager_layer(100, 3, 64, 4) + 3 * stacks_eager_layer(40, 3, 64, 4));
  EXPECT_EQ(stacks_bytes(m, "inference_activations"), 3 * 153'600u + 3 * 800u);
}

TEST(MemoryStacks, T5EncoderRunsAtTheContext) {
  // T5: relative positions, no fixed encoder length: its encoder runs over an input as long as the context.
  // d_model 64, 4 heads of 16, 2 encoder and 3 decoder layers, ReLU FFN 128.
  test::TempDir dir;
  test::write_file(dir / "config.json", R"({"architectures": ["T5ForConditionalGeneration"],
    "model_type": "t5", "d_model": 64, "d_kv": 16, "d_ff": 128, "num_layers": 2, "num_decoder_layers": 3,
    "num_heads": 4, "vocab_size": 200, "torch_dtype": "float32"})");
  auto l = test::load_model(dir.path(), false);
  ReportOptions o;
  o.context = 30;
  const MemoryReport m = test::memory_of(*l, o);
  // 5 layers x 30 x (34 x 64 + 5 x 4 x 30) = 5 x 30 x 2,776 = 416,400.
  EXPECT_EQ(stacks_bytes(m, "training_activations"), 5 * stacks_eager_layer(30, 1, 64, 4));
  EXPECT_EQ(stacks_bytes(m, "training_activations"), 416'400u);
  EXPECT_EQ(stacks_bytes(m, "training_activations_flash"), 5 * stacks_flash_layer(30, 1, 64));
  const std::string& f = stacks_formula(m, "training_activations");
  EXPECT_NE(f.find("encoder s=30, b=1, h=64, a=4, L=2"), std::string::npos) << f;
  EXPECT_NE(f.find("decoder s=30, b=1, h=64, a=4, L=3"), std::string::npos) << f;
}

TEST(MemoryStacks, PublishedEncoderDecodersCountBothStacks) {
  // The reviewer's table, recomputed by hand from the configs: t5-small 6 + 6 layers at 512, h=512, a=8;
  // whisper-base 6 encoder layers at 1,500 frames and 6 decoder layers at 448, h=512, a=8.
  LOAD_OR_SKIP(t5, "hf-configs", "google-t5__t5-small");
  const MemoryReport t = test::memory_of(*t5);
  EXPECT_EQ(stacks_bytes(t, "training_activations"), 232'783'872u);
  EXPECT_EQ(stacks_bytes(t, "training_activations_flash"), 106'954'752u);
  LOAD_OR_SKIP(whisper, "hf-configs", "openai__whisper-base");
  const MemoryReport w = test::memory_of(*whisper);
  EXPECT_EQ(stacks_bytes(w, "training_activations"),
            6 * stacks_eager_layer(1500, 1, 512, 8) + 6 * stacks_eager_layer(448, 1, 512, 8));
  EXPECT_EQ(stacks_bytes(w, "training_activations"), 791'633'664u);
  EXPECT_EQ(stacks_bytes(w, "training_activations_flash"), 203'464'704u);
}

TEST(MemoryStacks, DecoderOnlyKeepsOneStackAndItsFormula) {
  // tiny Llama: 2 layers, h=64, a=4, at --context 100: 2 x 100 x (2,176 + 2,000) = 835,200.
  test::TempDir dir;
  test::write_file(dir / "config.json", test::tiny_llama_config("2"));
  auto l = test::load_model(dir.path(), false);
  ReportOptions o;
  o.context = 100;
  const MemoryReport m = test::memory_of(*l, o);
  EXPECT_EQ(stacks_bytes(m, "training_activations"), 835'200u);
  EXPECT_EQ(stacks_formula(m, "training_activations"),
            "L x s*b*h*(34 + 5*a*s/h) bytes, s=100, b=1, h=64, a=4, L=2 (Korthikanti et al. 2022, 16-bit "
            "activations, attention scores stored)");
}

// A tiny BERT: hidden 64, 2 layers, 4 heads, GELU FFN 128, vocabulary 300, 64 positions, float32.
std::string stacks_bert_config(const std::string& architecture) {
  return R"({"architectures": [")" + architecture + R"("], "model_type": "bert", "hidden_size": 64,
    "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 300,
    "max_position_embeddings": 64, "num_labels": 7, "torch_dtype": "float32"})";
}

TEST(MemoryStacks, MaskedLmHeadScoresEveryPosition) {
  test::TempDir dir;
  test::write_file(dir / "config.json", stacks_bert_config("BertForMaskedLM"));
  auto l = test::load_model(dir.path(), false);
  const MemoryReport m = test::memory_of(*l);
  ASSERT_EQ(m.context, 64u);
  // 64 tokens x (2 x 64 + 2 x 128) x 4 bytes = 98,304, + logits of every position 64 x 300 x 4 = 76,800.
  EXPECT_EQ(stacks_bytes(m, "inference_activations"), 98'304u + 76'800u);
  EXPECT_NE(stacks_formula(m, "inference_activations").find("64 positions x 300 vocab"), std::string::npos);
}

TEST(MemoryStacks, TokenClassifierScoresEveryPositionOverItsLabels) {
  test::TempDir dir;
  test::write_file(dir / "config.json", stacks_bert_config("BertForTokenClassification"));
  auto l = test::load_model(dir.path(), false);
  const MemoryReport m = test::memory_of(*l);
  // 98,304 + 64 positions x 7 labels x 4 bytes = 1,792.
  EXPECT_EQ(stacks_bytes(m, "inference_activations"), 98'304u + 1'792u);
}

TEST(MemoryStacks, SequenceClassifierKeepsTheLastPositionFigure) {
  // Unchanged: one row of vocab-wide logits, as before (the head's own width is not modelled).
  test::TempDir dir;
  test::write_file(dir / "config.json", stacks_bert_config("BertForSequenceClassification"));
  auto l = test::load_model(dir.path(), false);
  const MemoryReport m = test::memory_of(*l);
  EXPECT_EQ(stacks_bytes(m, "inference_activations"), 98'304u + 300u * 4u);
}

}  // namespace
}  // namespace ma
