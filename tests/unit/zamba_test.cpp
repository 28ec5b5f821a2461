// Zamba (Zamba-7B; model/families/zamba2.cpp): Mamba layers of n_mamba_heads, and every sixth or so a hybrid
// layer that first runs the model's one shared transformer block. Counted on Zamba-7B-v1's config.json
// against the closed form of transformers' classes (the reference counter of this work, instantiated at full
// size) and the checkpoint's bytes.
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory_kv.h"
#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// Zyphra/Zamba-7B-v1's config.json, the fields that shape tensors (its layers_block_type list spells the
// pattern the config class derives from attn_layer_period and attn_layer_offset).
const std::string kZamba7b = R"({"model_type":"zamba","architectures":["ZambaForCausalLM"],"hidden_size":3712,
    "intermediate_size":14848,"num_hidden_layers":76,"num_attention_heads":16,"num_key_value_heads":16,
    "vocab_size":32000,"mamba_expand":2,"mamba_d_state":16,"mamba_d_conv":4,"mamba_dt_rank":"auto",
    "n_mamba_heads":2,"mamba_conv_bias":true,"mamba_proj_bias":false,"attn_layer_period":6,
    "attn_layer_offset":4,"tie_word_embeddings":true,"torch_dtype":"bfloat16"})";

// Per layer a Mamba mixer (d_inner 7,424 in two heads, dt rank 232) and its norm; 13 hybrid layers (2, 7,
// 13, ..., 73) add a linear of 3,712 x 3,712; the shared block (attention from the 7,424-wide concatenation
// of state and embeddings, a gated MLP of 14,848) exists once. Its checkpoint: bfloat16 shards of 4.94, 4.96
// and 4.57 GB.
TEST(Zamba, CountsZamba7b) {
  const uint64_t inner = 7424, rank = 232, state = 16;
  const uint64_t mixer = inner * (2 * rank + 3 * state + 4 + 2 + 1) + 3 * inner * 3712;
  EXPECT_EQ(mixer, 86'526'720u);
  const uint64_t head_dim = 464;         // 2 x 3,712 / 16 heads
  const uint64_t heads = 16 * head_dim;  // q, k and v read the concatenation; o writes the state
  const uint64_t block = 3 * heads * inner + 3712 * heads + 3 * 14848 * 3712 + inner + 3712;
  EXPECT_EQ(block, 358'263'680u);
  const uint64_t total = 32000 * 3712 + 76 * (mixer + 3712) + 13 * 3712 * 3712 + block + 3712;
  EXPECT_EQ(parameters_of(kZamba7b), total);
  EXPECT_NEAR(2.0 * static_cast<double>(total) / 1e9, 4.94 + 4.96 + 4.57, 0.015);  // its three shards
  const ModelTemplate t = template_of(kZamba7b);
  EXPECT_EQ(disk_totals(t).tensors, 784u);  // one block, no head: what the checkpoint stores
  EXPECT_EQ(find_tensor(t, "model.layers.7.shared_transf.self_attn.q_proj.weight")->tied_to,
            "model.layers.2.shared_transf.self_attn.q_proj.weight");
  EXPECT_EQ(find_tensor(t, "model.layers.2.shared_transf.self_attn.q_proj.weight")->shape,
            Shape({16 * head_dim, inner}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.x_proj_weight")->shape,
            Shape({2, rank + 2 * state, inner / 2}));
  EXPECT_EQ(find_tensor(t, "model.layers.73.mamba_decoder.mamba.A_log")->shape, Shape({2, inner / 2, state}));
  EXPECT_EQ(find_tensor(t, "model.layers.74.linear.weight"), nullptr);
  // The attention-period pattern the config class derives gives the same layers as the list.
  std::string listed = R"({"model_type":"zamba","layers_block_type":[)";
  for (int i = 0; i < 76; ++i)
    listed +=
        std::string(i ? "," : "") + ((i == 2 || (i >= 3 && (i - 3) % 6 == 4)) ? "\"hybrid\"" : "\"mamba\"");
  EXPECT_EQ(parameters_of(listed + "]}"), total);
}

// transformers 5 shares the block by tying, which it does only with tie_word_embeddings: without it each of
// the 13 hybrid layers has a block of its own, and the head is untied.
TEST(Zamba, UntiedEmbeddingsUnshareTheBlock) {
  EXPECT_EQ(
      parameters_of(replaced(kZamba7b, R"("tie_word_embeddings":true)", R"("tie_word_embeddings":false)")),
      11'650'438'656u);
}

// The cache: every layer's conv window (7,424 x 4 in bfloat16) and scan state (7,424 x 16 in float32, in
// which the scan runs), and keys and values of 16 heads of 464 in the 13 hybrid layers.
TEST(Zamba, CachesEveryMixerAndTheHybridLayersAttention) {
  const ModelTemplate t = template_of(kZamba7b);
  const KvCachePlan kv = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 0);
  EXPECT_EQ(kv.per_token, 13u * 2 * 16 * 464 * 2);
  EXPECT_EQ(kv.state_per_sequence, 76u * (7424 * 4 * 2 + 7424 * 16 * 4));
  EXPECT_EQ(t.arch.position, PositionKind::None);
  expect_reads_cleanly(R"({"model_type":"zamba","hidden_size":16,"intermediate_size":24,"num_hidden_layers":6,
      "num_attention_heads":4,"num_key_value_heads":4,"vocab_size":40,"n_mamba_heads":2,"mamba_d_state":4,
      "attn_layer_period":2,"attn_layer_offset":0})");
}

TEST(Zamba, RefusesWhatTheConfigClassRejects) {
  EXPECT_EQ(refusal_of(replaced(kZamba7b, R"("n_mamba_heads":2)", R"("n_mamba_heads":3)")).field,
            "n_mamba_heads");
  EXPECT_EQ(refusal_of(replaced(kZamba7b, R"("num_attention_heads":16,"num_key_value_heads":16)",
                                R"("num_attention_heads":15,"num_key_value_heads":15)"))
                .field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"zamba","num_hidden_layers":4,"layers_block_type":["mamba"]})").field,
            "layers_block_type");
  EXPECT_EQ(refusal_of(replaced(kZamba7b, R"("attn_layer_period":6)", R"("attn_layer_period":0)")).field,
            "attn_layer_period");
}

}  // namespace
}  // namespace ma::test
