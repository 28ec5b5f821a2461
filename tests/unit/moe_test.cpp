// summarize_moe() on real configs. Parameter figures are derived by hand from the configs (shown below)
// and cross-checked against transformers' num_params in ../shared/data/oracle.
#include <gtest/gtest.h>

#include "analysis/moe_summary.h"
#include "report_test_support.h"

namespace ma::test {
namespace {

std::vector<uint32_t> range(uint32_t from, uint32_t to) {  // [from, to)
  std::vector<uint32_t> v;
  for (uint32_t i = from; i < to; ++i) v.push_back(i);
  return v;
}

TEST(MoeSummary, Mixtral8x7B) {
  ANALYZE_OR_SKIP(m, "hf-configs/mistralai__Mixtral-8x7B-v0.1");
  const auto s = summarize_moe(m->inventory.arch, m->params);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->num_experts, 8u);        // num_local_experts
  EXPECT_EQ(s->experts_per_token, 2u);  // num_experts_per_tok
  EXPECT_EQ(s->num_shared_experts, 0u);
  EXPECT_EQ(s->expert_intermediate_size, 14336u);
  EXPECT_EQ(s->shared_expert_intermediate_size, 0u);
  // One expert: w1, w3 [14336, 4096] and w2 [4096, 14336] = 3 * 4096 * 14336.
  EXPECT_EQ(s->parameters_per_expert, 176'160'768u);
  EXPECT_EQ(s->moe_layers, range(0, 32));
  EXPECT_TRUE(s->dense_layers.empty());
  EXPECT_EQ(s->routed_expert_parameters, 176'160'768ull * 8 * 32);  // 45,097,156,608
  // Per layer: attention 2 * 4096^2 + 2 * 4096 * 1024 = 41,943,040; router 8 * 4096; experts 8 * 176,160,768;
  // two norms 2 * 4096 -> 1,451,270,144; x 32 + embed and lm_head 2 * 32000 * 4096 + final norm 4096.
  EXPECT_EQ(s->total_parameters, 1'451'270'144ull * 32 + 2ull * 32000 * 4096 + 4096);  // 46,702,792,704
  // Active: everything but 6 of the 8 experts in each layer.
  EXPECT_EQ(s->active_parameters, s->total_parameters - 176'160'768ull * 6 * 32);  // 12,879,925,248
}

TEST(MoeSummary, DeepSeekV3) {
  ANALYZE_OR_SKIP(m, "hf-configs/deepseek-ai__DeepSeek-V3");
  const auto s = summarize_moe(m->inventory.arch, m->params);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->num_experts, 256u);      // n_routed_experts
  EXPECT_EQ(s->experts_per_token, 8u);  // num_experts_per_tok
  EXPECT_EQ(s->num_shared_experts, 1u);
  EXPECT_EQ(s->expert_intermediate_size, 2048u);            // moe_intermediate_size
  EXPECT_EQ(s->shared_expert_intermediate_size, 2048u);     // n_shared_experts * moe_intermediate_size
  EXPECT_EQ(s->parameters_per_expert, 3ull * 7168 * 2048);  // 44,040,192
  EXPECT_EQ(s->dense_layers, range(0, 3));                  // first_k_dense_replace 3
  EXPECT_EQ(s->moe_layers, range(3, 61));                   // 58 MoE layers, moe_layer_freq 1
  EXPECT_EQ(s->routed_expert_parameters, 44'040'192ull * 256 * 58);  // 653,908,770,816
  EXPECT_EQ(s->total_parameters, 671'026'404'352u);                  // oracle num_params (transformers 5.17)
  EXPECT_EQ(s->active_parameters, 671'026'404'352ull - 44'040'192ull * (256 - 8) * 58);  // 37,552,282,624
}

TEST(MoeSummary, NemotronNanoMoeLayers) {
  ANALYZE_OR_SKIP(m, "hf-configs/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  const auto s = summarize_moe(m->inventory.arch, m->params);
  ASSERT_TRUE(s);
  // 'E' in hybrid_override_pattern: 23 MoE layers; Mamba and attention layers have no MLP at all.
  const std::string hybrid = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < hybrid.size(); ++i)
    if (hybrid[i] == 'E') expected.push_back(i);
  EXPECT_EQ(s->moe_layers, expected);
  EXPECT_EQ(s->moe_layers.size(), 23u);
  EXPECT_TRUE(s->dense_layers.empty());
  EXPECT_EQ(s->num_experts, 128u);
  EXPECT_EQ(s->experts_per_token, 6u);
  EXPECT_EQ(s->shared_expert_intermediate_size, 3712u);  // moe_shared_expert_intermediate_size
  // Non-gated experts: up_proj [1856, 2688] + down_proj [2688, 1856].
  EXPECT_EQ(s->parameters_per_expert, 2ull * 2688 * 1856);
}

TEST(MoeSummary, DenseModelsHaveNone) {
  ANALYZE_OR_SKIP(m, "hf-configs/meta-llama__Meta-Llama-3.1-8B");
  EXPECT_FALSE(summarize_moe(m->inventory.arch, m->params));
}

}  // namespace
}  // namespace ma::test
