// TemplateMatcher: an expert's stored tensor matches its piece of the per-expert pattern, other names match
// exactly (also saved without the base-model prefix); and a template name that happens to look like an
// expert piece is matched as itself, since exact names take precedence (the matcher tries the patterns first
// only for templates where no such name exists).
#include "model/template_matcher.h"

#include <gtest/gtest.h>

namespace ma {
namespace {

ModelTemplate moe_template(uint32_t expert_count = 3) {
  ModelTemplate t;
  t.add("model.embed.weight", {8, 4});
  TemplateTensor& experts = t.add("model.layers.0.mlp.experts.up_down", {3, 16});
  experts.routed_expert = true;
  experts.per_expert = PerExpertPieces{
      "model.layers.0.mlp.experts", expert_count, {{"up.weight", {4, 2}}, {"down.weight", {2, 4}}}};
  t.add("model.norm.weight", {4});
  return t;
}

TEST(TemplateMatcher, ExpertPiecesAndExactNames) {
  const ModelTemplate t = moe_template();
  TemplateMatcher m(t, DType::BF16);
  const TemplateMatch piece = m.match("model.layers.0.mlp.experts.2.down.weight");
  ASSERT_EQ(piece.how, TemplateMatch::How::ExpertPiece);
  EXPECT_EQ(*piece.shape, (Shape{2, 4}));
  const TemplateMatch other = m.match("model.layers.0.mlp.experts.1.up.weight");
  ASSERT_EQ(other.how, TemplateMatch::How::ExpertPiece);
  EXPECT_LT(other.order, piece.order);  // expert 1's first part comes before expert 2's second
  EXPECT_EQ(m.match("model.norm.weight").how, TemplateMatch::How::Exact);
  EXPECT_EQ(m.match("norm.weight").how, TemplateMatch::How::Exact);  // saved without "model."
  EXPECT_FALSE(m.match("model.layers.0.mlp.experts.3.up.weight"));   // only experts 0-2
  EXPECT_FALSE(m.match("model.layers.0.mlp.experts.1.gate.weight"));
  size_t unmatched = 0;
  m.for_each_unmatched([&](const std::string&, const Shape&) { ++unmatched; });
  EXPECT_EQ(unmatched, 1u + 6u - 2u);  // the embedding, and 4 of the 6 expert pieces
}

TEST(TemplateMatcher, ATemplateNameShapedLikeAnExpertPieceIsMatchedAsItself) {
  ModelTemplate t = moe_template();
  t.add("model.layers.0.mlp.experts.1.up.weight", {9, 9});
  TemplateMatcher m(t, DType::BF16);
  const TemplateMatch exact = m.match("model.layers.0.mlp.experts.1.up.weight");
  ASSERT_EQ(exact.how, TemplateMatch::How::Exact);
  EXPECT_EQ(*exact.shape, (Shape{9, 9}));
  EXPECT_EQ(m.match("model.layers.0.mlp.experts.2.up.weight").how, TemplateMatch::How::ExpertPiece);
}

// Packed quantized weights stand for the weight they pack: GPTQ/AWQ's X.qweight and compressed-tensors'
// X.weight_packed (llm-compressor's W4A16, Kimi-K2-Thinking's INT4 experts), an expert's slice too; the
// stored shape is the packing's, so the match says so.
TEST(TemplateMatcher, PackedWeightsMatchTheWeightTheyPack) {
  const ModelTemplate t = moe_template();
  TemplateMatcher m(t, DType::BF16);
  const TemplateMatch piece = m.match("model.layers.0.mlp.experts.2.down.weight_packed");
  ASSERT_EQ(piece.how, TemplateMatch::How::ExpertPiece);
  EXPECT_TRUE(piece.packed);
  EXPECT_EQ(*piece.shape, (Shape{2, 4}));
  const TemplateMatch norm = m.match("model.norm.weight_packed");
  ASSERT_EQ(norm.how, TemplateMatch::How::Exact);
  EXPECT_TRUE(norm.packed);
  EXPECT_TRUE(m.match("model.embed.qweight").packed);
  EXPECT_FALSE(m.match("model.norm.weight").packed);
  EXPECT_FALSE(m.match("model.layers.0.mlp.experts.2.down.weight_scale"));   // a scale: placed, not matched
  EXPECT_FALSE(m.match("model.layers.0.mlp.experts.3.down.weight_packed"));  // only experts 0-2
  size_t unmatched = 0;
  m.for_each_unmatched([&](const std::string&, const Shape&) { ++unmatched; });
  EXPECT_EQ(unmatched, 6u - 1u);  // 5 of the 6 expert pieces
}

// Each thread remembers the expert keys it matched last: two matchers used in turn on one thread, with the
// same keys but not the same experts, each answer by their own template.
TEST(TemplateMatcher, MatchersUsedInTurnAnswerByTheirOwnTemplate) {
  const ModelTemplate three = moe_template(3), five = moe_template(5);
  TemplateMatcher a(three, DType::BF16), b(five, DType::BF16);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(a.match("model.layers.0.mlp.experts.1.up.weight").how, TemplateMatch::How::ExpertPiece);
    EXPECT_FALSE(a.match("model.layers.0.mlp.experts.4.up.weight"));
    EXPECT_EQ(b.match("model.layers.0.mlp.experts.4.up.weight").how, TemplateMatch::How::ExpertPiece);
    EXPECT_EQ(*b.match("model.layers.0.mlp.experts.4.down.weight").shape, (Shape{2, 4}));
  }
}

}  // namespace
}  // namespace ma
