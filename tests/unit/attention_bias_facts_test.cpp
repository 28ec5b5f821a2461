// The record's attention_bias (model/record_facts.h): set by a bias on the attention's q, k, v or output
// projections only, as transformers' attention_bias means; not by the bias of another vector in the block
// (the DSA indexer's LayerNorm of GLM-5 and DeepSeek-V3.2).
#include <gtest/gtest.h>

#include <string>

#include "formats/model_files.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma {
namespace {

Inventory inventory_of_config(const test::TempDir& dir, const std::string& config_json) {
  test::write_file(dir / "config.json", config_json);
  return build_inventory(locate_local_model(dir.path().string()));
}

bool has_tensor_ending(const Inventory& inv, const std::string& suffix) {
  for (const InventoryTensor& t : inv.tensors)
    if (t.name.ends_with(suffix)) return true;
  return false;
}

// Whether the tensors hold a bias of an attention projection, by the names transformers gives them.
bool has_projection_bias(const Inventory& inv) {
  for (const char* p : {"q_proj.bias", "k_proj.bias", "v_proj.bias", "o_proj.bias", "out_proj.bias"})
    if (has_tensor_ending(inv, p)) return true;
  return false;
}

// GLM-5-shaped (glm_moe_dsa, two layers): MLA projections without bias ("attention_bias": false), and the
// indexer's k_norm, a LayerNorm with a bias, in the attention block.
TEST(AttentionBiasFacts, IndexerNormBiasIsNotAnAttentionBias) {
  test::TempDir dir;
  const Inventory inv = inventory_of_config(dir, R"({"architectures": ["GlmMoeDsaForCausalLM"],
      "model_type": "glm_moe_dsa", "attention_bias": false, "first_k_dense_replace": 1, "hidden_act": "silu",
      "hidden_size": 64, "index_head_dim": 16, "index_n_heads": 2, "index_topk": 8, "intermediate_size": 128,
      "kv_lora_rank": 16, "max_position_embeddings": 256, "moe_intermediate_size": 32, "n_routed_experts": 4,
      "n_shared_experts": 1, "num_attention_heads": 4, "num_experts_per_tok": 2, "num_hidden_layers": 2,
      "num_key_value_heads": 4, "q_lora_rank": 32, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8,
      "v_head_dim": 16, "vocab_size": 100})");
  ASSERT_TRUE(has_tensor_ending(inv, "self_attn.indexer.k_norm.bias"));
  ASSERT_FALSE(has_projection_bias(inv));
  EXPECT_FALSE(inv.arch.attention_bias);  // as the config says
}

// Qwen2 gives q, k and v a bias (and o none): attention_bias holds.
TEST(AttentionBiasFacts, ProjectionBiasesAreAnAttentionBias) {
  test::TempDir dir;
  const Inventory inv = inventory_of_config(dir, R"({"architectures": ["Qwen2ForCausalLM"],
      "model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
      "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100, "max_position_embeddings": 256})");
  ASSERT_TRUE(has_tensor_ending(inv, "self_attn.q_proj.bias"));
  EXPECT_TRUE(inv.arch.attention_bias);
}

// The real configs: GLM-5 ("attention_bias": false, an indexer norm bias in every layer) and Whisper (q, v
// and out_proj biased, k not).
TEST(AttentionBiasFacts, RealConfigsAgreeWithTheirTensors) {
  const auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  for (const char* model : {"zai-org__GLM-5", "deepseek-ai__DeepSeek-V3.2", "openai__whisper-base"}) {
    const std::filesystem::path dir = *data / "hf-configs" / model;
    if (!std::filesystem::exists(dir)) continue;
    const Inventory inv = build_inventory(locate_local_model(dir.string()));
    EXPECT_EQ(inv.arch.attention_bias, has_projection_bias(inv)) << model;
  }
}

}  // namespace
}  // namespace ma
