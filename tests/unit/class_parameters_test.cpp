// The parameters Mantile's classes build from their arguments, against the counts Mantile's own hand-written
// configs publish (../shared/reference/mantile.md): Llama-3.3-70B's attention, gated MLP, norm and embedding,
// Mistral-7B's, and gpt-oss-120b's MoE layer with its biases and router.
#include "analysis/builder/class_parameters.h"

#include <gtest/gtest.h>

namespace ma {
namespace {

Facts facts(std::initializer_list<std::pair<std::string, FactValue>> list) {
  return Facts(list);
}

TEST(ClassParameters, MantilesPublishedCountsAreRebuilt) {
  // Llama-3.3-70B: hidden 8,192, 64 heads of 128, 8 KV heads, MLP 28,672, vocabulary 128,256.
  EXPECT_EQ(class_parameters("GroupedQueryAttentionLayer", facts({{"hidden_size", uint64_t{8192}},
                                                                  {"num_heads", uint64_t{64}},
                                                                  {"num_kv_heads", uint64_t{8}},
                                                                  {"head_dim", uint64_t{128}}})),
            150'994'944u);
  EXPECT_EQ(class_parameters("GatedMLPLayer", facts({{"hidden_size", uint64_t{8192}},
                                                     {"intermediate_size", uint64_t{28672}}})),
            704'643'072u);
  EXPECT_EQ(class_parameters("NormLayer", facts({{"hidden_size", uint64_t{8192}}, {"has_bias", false}})),
            8'192u);
  EXPECT_EQ(class_parameters("EmbeddingLayer",
                             facts({{"vocab_size", uint64_t{128256}}, {"hidden_size", uint64_t{8192}}})),
            1'050'673'152u);
  // Mistral-7B: hidden 4,096, 32 heads of 128, 8 KV heads, MLP 14,336.
  EXPECT_EQ(class_parameters("GroupedQueryAttentionLayer", facts({{"hidden_size", uint64_t{4096}},
                                                                  {"num_heads", uint64_t{32}},
                                                                  {"num_kv_heads", uint64_t{8}},
                                                                  {"head_dim", uint64_t{128}}})),
            41'943'040u);
  EXPECT_EQ(class_parameters("GatedMLPLayer", facts({{"hidden_size", uint64_t{4096}},
                                                     {"intermediate_size", uint64_t{14336}}})),
            176'160'768u);
  // gpt-oss-120b: 128 experts of 2,880 x 2,880, three projections (gate and up fused), biases, router.
  EXPECT_EQ(class_parameters("MoELayer", facts({{"hidden_size", uint64_t{2880}},
                                                {"intermediate_size", uint64_t{2880}},
                                                {"num_experts", uint64_t{128}},
                                                {"top_k", uint64_t{4}},
                                                {"num_shared_experts", uint64_t{0}},
                                                {"num_projections", uint64_t{3}},
                                                {"has_bias", true}})),
            3'186'524'288u);
}

TEST(ClassParameters, UnknownClassesAndMissingArgumentsHaveNoFormula) {
  EXPECT_FALSE(class_parameters("MLAAttentionLayer", facts({{"hidden_size", uint64_t{7168}}})));
  EXPECT_FALSE(class_parameters("GatedMLPLayer", facts({{"hidden_size", uint64_t{8192}}})));
  EXPECT_FALSE(class_parameters(
      "AttentionLayer",
      facts({{"hidden_size", uint64_t{64}}, {"num_heads", FactValue{}}, {"head_dim", uint64_t{16}}})));
}

}  // namespace
}  // namespace ma
