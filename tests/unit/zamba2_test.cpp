// Zamba2 (model/families/zamba2.cpp): Mamba-2 layers, and hybrid layers that also run one of the model's
// shared transformer blocks with a LoRA adapter of their own. Counted on Zyphra's configurations and
// compared with what their checkpoints hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/memory_kv.h"
#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

std::string types_json(uint64_t layers, const std::vector<uint64_t>& hybrids) {
  std::vector<std::string> types(layers, "\"mamba\"");
  for (uint64_t i : hybrids) types[i] = "\"hybrid\"";
  std::string out = "[";
  for (size_t i = 0; i < types.size(); ++i) out += (i ? "," : "") + types[i];
  return out + "]";
}

// Zamba2-1.2B: one shared block, visited by the hybrid layers 5, 11, ..., 35, with adapters on q, k and v
// too.
std::string zamba2_1_2b(const std::string& extra = "") {
  return R"({"model_type":"zamba2","hidden_size":2048,"num_hidden_layers":38,"num_attention_heads":32,
      "num_key_value_heads":32,"intermediate_size":8192,"mamba_d_state":128,"n_mamba_heads":64,
      "num_mem_blocks":1,"use_shared_attention_adapter":true,"adapter_rank":128,"vocab_size":32000,
      "use_mem_rope":true,"layers_block_type":)" +
         types_json(38, {5, 11, 17, 23, 29, 35}) + extra + "}";
}

// Zamba2-2.7B(-instruct)'s config.json: two shared blocks taking turns over nine hybrid layers, adapters on
// the MLP only. attention_head_dim and mamba_headdim are recomputed by the config class.
std::string zamba2_2_7b() {
  return R"({"model_type":"zamba2","hidden_size":2560,"num_hidden_layers":54,"num_attention_heads":32,
      "num_key_value_heads":32,"intermediate_size":10240,"mamba_d_state":64,"n_mamba_heads":80,
      "num_mem_blocks":2,"use_shared_attention_adapter":false,"adapter_rank":128,"vocab_size":32000,
      "attention_head_dim":160,"mamba_headdim":64,"torch_dtype":"bfloat16","layers_block_type":)" +
         types_json(54, {6, 12, 18, 24, 30, 36, 42, 47, 51}) + "}";
}

// A safetensors header count of Zyphra/Zamba2-1.2B's model.safetensors: 1,215,064,704 values, the one shared
// block stored once (under layer 5); its file is 2.43 GB in bf16.
TEST(Zamba2, SharedBlocksCountOnceAsTheCheckpointsStoreThem) {
  EXPECT_EQ(parameters_of(zamba2_1_2b()), 1'215'064'704u);
  const ModelTemplate t = template_of(zamba2_1_2b());
  EXPECT_EQ(disk_totals(t).elements, 1'215'064'704u);
  EXPECT_EQ(find_tensor(t, "model.layers.5.shared_transformer.self_attn.q_proj.weight")->shape,
            Shape({4096, 4096}));
  EXPECT_EQ(find_tensor(t, "model.layers.5.shared_transformer.input_layernorm.weight")->shape, Shape({4096}));
  EXPECT_EQ(find_tensor(t, "model.layers.11.shared_transformer.self_attn.q_proj.weight")->tied_to,
            "model.layers.5.shared_transformer.self_attn.q_proj.weight");
  EXPECT_EQ(
      find_tensor(t, "model.layers.5.shared_transformer.self_attn.linear_k_adapter_list.5.1.weight")->shape,
      Shape({4096, 128}));
  EXPECT_EQ(find_tensor(t, "model.layers.5.mamba_decoder.mamba.in_proj.weight")->shape,
            Shape({2 * 4096 + 2 * 128 + 64, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.5.linear.weight")->shape, Shape({2048, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.conv1d.weight")->shape, Shape({4096 + 256, 1, 4}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mamba.conv1d.bias")->shape, Shape({4096 + 256}));
}

// Zamba2-2.7B-instruct's Hub files: 4.94 GB + 384 MB in bf16. Block 0 serves visits 0, 2, 4, 6 and 8 from
// layer 6, block 1 visits 1, 3, 5 and 7 from layer 12, each visit with its own MLP adapter.
TEST(Zamba2, TwoBlocksTakeTurns) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << zamba2_2_7b();
  const Inventory inv = build_inventory(locate_local_model((dir.path() / "config.json").string()));
  EXPECT_EQ(count_parameters(inv).total, 2'662'214'560u);
  uint64_t bytes = 0;
  for (const InventoryTensor& x : inv.tensors) bytes += x.bytes;
  EXPECT_EQ((bytes + 5'000'000) / 10'000'000, 532u);
  const ModelTemplate t = template_of(zamba2_2_7b());
  const std::string adapters = ".shared_transformer.feed_forward.gate_up_proj_adapter_list.";
  EXPECT_EQ(find_tensor(t, "model.layers.6" + adapters + "8.1.weight")->shape, Shape({20480, 128}));
  EXPECT_EQ(find_tensor(t, "model.layers.12" + adapters + "7.0.weight")->shape, Shape({128, 2560}));
  EXPECT_EQ(find_tensor(t, "model.layers.6" + adapters + "1.0.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.47" + adapters + "7.0.weight")->tied_to,
            "model.layers.12" + adapters + "7.0.weight");
  EXPECT_EQ(find_tensor(t, "model.layers.6.shared_transformer.self_attn.linear_q_adapter_list.0.0.weight"),
            nullptr);
  // The nine hybrid layers attend (32 heads of 160 over the doubled width) and then run their own mixer.
  const KvCachePlan kv = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 0);
  EXPECT_EQ(kv.per_token, 9u * 2 * 32 * 160 * 2);
  EXPECT_TRUE(t.arch.layers()[6].mixers_in_sequence);
  EXPECT_EQ(t.arch.layers()[6].parallel, Mixer::Mamba2);
  EXPECT_EQ(t.arch.layers()[5].ffn.kind, Ffn::None);
  EXPECT_EQ(t.arch.position, PositionKind::None);  // use_mem_rope off
}

TEST(Zamba2, RefusesLayoutsTheConfigClassRejects) {
  EXPECT_THROW(template_of(R"({"model_type":"zamba2","num_hidden_layers":4,"n_mamba_heads":80})"), Error);
  EXPECT_THROW(template_of(zamba2_1_2b(R"(,"num_key_value_heads":8)")), Error);
  EXPECT_THROW(template_of(R"({"model_type":"zamba2","num_hidden_layers":2,"layers_block_type":["m","g"]})"),
               Error);
}

}  // namespace
}  // namespace ma::test
