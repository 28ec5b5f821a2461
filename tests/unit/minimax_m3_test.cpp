// MiniMax-M3 (minimax_m3_vl, minimax_m3_vl_text; model/families/minimax_m3.cpp). Independent figures: its
// BF16 checkpoint holds 23,416 tensors of 427,040,140,160 values (two safetensors audits; 7,296 of them the
// routers' score-correction buffers), which transformers loads into 1,582 state_dict entries (a port's audit
// of the same index against transformers' modeling), "~23B activated" on its card, and 137,472 bytes of
// cache per token in bf16 as transformers' cache layers hold them (K and V of 4 heads of 128 in 60 layers,
// one 128-wide index key in the 57 sparse-attention ones). Names, shapes and order were compared with the
// module constructors of transformers' modular_minimax_m3_vl.py (/tmp/impl/vlm_2026_b/verify).
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory.h"
#include "core/error.h"
#include "report_test_support.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

std::string ones(int zeros, int total, const char* one = "1", const char* zero = "0") {
  std::string s = "[";
  for (int i = 0; i < total; ++i) s += std::string(i ? "," : "") + (i < zeros ? zero : one);
  return s + "]";
}

// MiniMaxAI/MiniMax-M3's config.json, the fields that shape tensors, in the Hub's form.
std::string hub_config() {
  return R"({"model_type":"minimax_m3_vl","architectures":["MiniMaxM3SparseForConditionalGeneration"],
      "projector_hidden_size":6144,"tie_word_embeddings":false,"torch_dtype":"bfloat16",
      "text_config":{"hidden_size":6144,"intermediate_size":3072,"num_hidden_layers":60,"num_attention_heads":64,
        "num_key_value_heads":4,"head_dim":128,"vocab_size":200064,"dense_intermediate_size":12288,
        "shared_intermediate_size":3072,"num_local_experts":128,"num_experts_per_tok":4,"n_shared_experts":1,
        "moe_layer_freq":)" +
         ones(3, 60) + R"(,"sparse_attention_config":{"sparse_index_dim":128,"sparse_num_index_heads":4,
          "sparse_topk_blocks":16,"sparse_block_size":128,"sparse_attention_freq":)" +
         ones(3, 60) + R"(}},
      "vision_config":{"hidden_size":1280,"num_attention_heads":16,"num_hidden_layers":32,"intermediate_size":5120,
        "patch_size":14,"model_type":"clip_vision_model","num_channels":3}})";
}

TEST(MinimaxM3, CountsAsItsCheckpointHoldsIt) {
  const std::string config = hub_config();
  EXPECT_EQ(parameters_of(config), 427'040'140'160u - 57 * 128);
  const ModelTemplate t = template_of(config);
  const DiskTotals disk = disk_totals(t);
  EXPECT_EQ(disk.tensors, 23'416u);
  EXPECT_EQ(disk.elements, 427'040'140'160u);
  const auto disk_name = [&](const std::string& memory) { return stored_name(*find_tensor(t, memory)); };
  const std::string l = "model.language_model.layers.";
  EXPECT_EQ(disk_name(l + "3.self_attn.indexer.q_proj.weight"),
            "language_model.model.layers.3.self_attn.index_q_proj.weight");
  EXPECT_EQ(find_tensor(t, l + "3.self_attn.indexer.k_proj.weight")->shape, Shape({128, 6144}));
  EXPECT_EQ(find_tensor(t, l + "2.self_attn.indexer.q_proj.weight"),
            nullptr);  // a dense, full-attention layer
  EXPECT_EQ(find_tensor(t, l + "0.self_attn.q_norm.weight")->shape, Shape({128}));  // per head
  EXPECT_EQ(disk_name(l + "5.mlp.gate.e_score_correction_bias"),
            "language_model.model.layers.5.block_sparse_moe.e_score_correction_bias");
  EXPECT_EQ(disk_name(l + "5.mlp.shared_experts.down_proj.weight"),
            "language_model.model.layers.5.block_sparse_moe.shared_experts.down_proj.weight");
  EXPECT_EQ(find_tensor(t, l + "1.mlp.down_proj.weight")->shape, Shape({6144, 12288}));
  // MiniMaxM3VLDenseMLP holds gate and up in one gate_up_proj; the checkpoint stores them apart, gate first.
  const TemplateTensor* gate_up = find_tensor(t, l + "1.mlp.gate_up_proj.weight");
  ASSERT_NE(gate_up, nullptr);
  EXPECT_EQ(gate_up->shape, Shape({24576, 6144}));
  ASSERT_EQ(gate_up->disk.size(), 2u);
  EXPECT_EQ(gate_up->disk[0].name, "language_model.model.layers.1.mlp.gate_proj.weight");
  EXPECT_EQ(gate_up->disk[1].name, "language_model.model.layers.1.mlp.up_proj.weight");
  EXPECT_EQ(gate_up->disk[1].shape, Shape({12288, 6144}));
  EXPECT_EQ(find_tensor(t, l + "1.mlp.gate_proj.weight"), nullptr);
  const TemplateTensor* shared = find_tensor(t, l + "5.mlp.shared_experts.gate_up_proj.weight");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->shape, Shape({6144, 6144}));
  EXPECT_EQ(stored_name(*shared),
            "language_model.model.layers.5.block_sparse_moe.shared_experts.gate_proj.weight");
  EXPECT_EQ(disk_name("model.vision_tower.embeddings.proj.weight"),
            "vision_tower.vision_model.embeddings.patch_embedding.weight");
  EXPECT_EQ(find_tensor(t, "model.vision_tower.embeddings.proj.weight")->shape, Shape({1280, 3, 2, 14, 14}));
  EXPECT_EQ(disk_name("model.vision_tower.layers.31.mlp.fc2.bias"),
            "vision_tower.vision_model.encoder.layers.31.mlp.fc2.bias");
  EXPECT_EQ(find_tensor(t, "model.vision_tower.post_layernorm.weight"), nullptr);
  EXPECT_EQ(disk_name("model.multi_modal_projector.merge_linear_1.weight"),
            "patch_merge_mlp.linear_1.weight");
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.merge_linear_1.weight")->shape, Shape({6144, 24576}));
  EXPECT_EQ(disk_name("lm_head.weight"), "language_model.lm_head.weight");
  EXPECT_EQ(t.tensors.size(), 1'582u);  // the state_dict: parameters and the score-correction buffers
  // Active per token without the embedding and the head: the card's "~23B".
  const ParameterCounts c = counts_of(config);
  ASSERT_TRUE(c.active.has_value());
  EXPECT_EQ((*c.active - 2u * 200'064 * 6144) / 1'000'000'000, 23u);
}

// In transformers' registration order: the tower, the projector, then the language model (LlavaModel's
// layout), the head last; in each layer self_attn with its indexer after the q/k norms, then the MLP, then
// the two norms.
TEST(MinimaxM3, ListsTensorsInRegistrationOrder) {
  const ModelTemplate t = template_of(hub_config());
  const auto at = [&](const std::string& name) {
    for (size_t i = 0; i < t.tensors.size(); ++i)
      if (t.tensors[i].name == name) return i;
    ADD_FAILURE() << name;
    return size_t{0};
  };
  EXPECT_EQ(t.tensors.front().name, "model.vision_tower.embeddings.proj.weight");
  EXPECT_EQ(at("model.multi_modal_projector.merge_linear_2.bias") + 1,
            at("model.language_model.embed_tokens.weight"));
  EXPECT_EQ(t.tensors.back().name, "lm_head.weight");
  const std::string l = "model.language_model.layers.3.";
  EXPECT_EQ(at(l + "self_attn.k_norm.weight") + 1, at(l + "self_attn.indexer.q_proj.weight"));
  EXPECT_EQ(at(l + "self_attn.indexer.k_norm.weight") + 1, at(l + "mlp.gate.weight"));
  EXPECT_EQ(at(l + "mlp.gate.weight") + 1, at(l + "mlp.gate.e_score_correction_bias"));
  EXPECT_EQ(at(l + "mlp.shared_experts.down_proj.weight") + 1, at(l + "input_layernorm.weight"));
}

// MiniMaxM3VLTextConfig.__post_init__ copies sparse_attention_config's fields over the flat index_* ones;
// MiniMaxM3VLConfig's raises its own tie flag when text_config ties.
TEST(MinimaxM3, SparseAttentionConfigWinsAndEitherFlagTies) {
  const std::string one = R"({"model_type":"minimax_m3_vl","text_config":{"num_hidden_layers":1,
      "layer_types":["minimax_m3_sparse"],"index_n_heads":8)";
  const std::string q = "model.language_model.layers.0.self_attn.indexer.q_proj.weight";
  EXPECT_EQ(find_tensor(template_of(one + "}}"), q)->shape, Shape({1024, 6144}));
  EXPECT_EQ(find_tensor(template_of(one + R"(,"sparse_attention_config":{"sparse_num_index_heads":4}}})"), q)
                ->shape,
            Shape({512, 6144}));
  const ModelTemplate tied =
      template_of(R"({"model_type":"minimax_m3_vl","text_config":{"tie_word_embeddings":true}})");
  EXPECT_EQ(find_tensor(tied, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(template_of(R"({"model_type":"minimax_m3_vl"})"), "lm_head.weight")->tied_to, "");
  // transformers indexes the per-layer lists by layer: a shorter list fails there.
  EXPECT_EQ(refusal_of(R"({"model_type":"minimax_m3_vl","text_config":{"num_hidden_layers":2,
      "sparse_attention_config":{"sparse_attention_freq":[1]}}})")
                .field,
            "text_config.sparse_attention_config.sparse_attention_freq");
}

// minimax_m3_vl_text: MiniMaxM3VLForCausalLM (transformers' causal-LM class for the type) or
// MiniMaxM3VLTextModel, under transformers' names (no conversion mapping renames this type). MiniMax-M3's
// language model alone is the VL total less the tower and projector's 865,567,232.
TEST(MinimaxM3, TextModelAlone) {
  const std::string vl = hub_config();
  const size_t from = vl.find(R"("text_config":{)") + std::string(R"("text_config":)").size();
  const size_t to = vl.rfind('}', vl.find(R"("vision_config")"));  // text_config's closing brace
  const std::string text = R"({"model_type":"minimax_m3_vl_text",)" + vl.substr(from + 1, to - from);
  EXPECT_EQ(parameters_of(text), 427'040'140'160u - 57 * 128 - 865'567'232u);
  const ModelTemplate t = template_of(text);
  EXPECT_EQ(t.arch.architecture, "MiniMaxM3VLForCausalLM");
  const TemplateTensor* experts = find_tensor(t, "model.layers.5.mlp.experts.gate_up_proj");
  ASSERT_NE(experts, nullptr);
  EXPECT_EQ(experts->shape, Shape({128, 6144, 6144}));
  EXPECT_EQ(stored_name(*experts), "model.layers.5.mlp.experts.gate_up_proj");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.layers.3.self_attn.indexer.k_proj.weight")),
            "model.layers.3.self_attn.indexer.k_proj.weight");
  EXPECT_EQ(t.tensors.back().name, "lm_head.weight");
  const ModelTemplate bare =
      template_of(R"({"model_type":"minimax_m3_vl_text","architectures":["MiniMaxM3VLTextModel"]})");
  EXPECT_EQ(bare.tensors.front().name, "embed_tokens.weight");
  EXPECT_EQ(find_tensor(bare, "lm_head.weight"), nullptr);
  // Its own tie flag ties MiniMaxM3VLForCausalLM's head.
  EXPECT_EQ(find_tensor(template_of(R"({"model_type":"minimax_m3_vl_text","tie_word_embeddings":true})"),
                        "lm_head.weight")
                ->tied_to,
            "model.embed_tokens.weight");
  EXPECT_EQ(
      refusal_of(
          R"({"model_type":"minimax_m3_vl_text","architectures":["MiniMaxM3VLForSequenceClassification"]})")
          .kind,
      ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(R"({"model_type":"minimax_m3_vl_text","moe_layer_freq":[1,0]})").field,
            "moe_layer_freq");
}

// transformers' own form: the per-layer lists and flat index fields.
TEST(MinimaxM3, TransformersFormBuildsTheSame) {
  std::string hf = hub_config();
  hf.replace(hf.find(R"("moe_layer_freq":)"), std::string(R"("moe_layer_freq":)").size(),
             R"("mlp_layer_types":)");
  const std::string dense = ones(3, 60, "\"sparse\"", "\"dense\"");
  const size_t list = hf.find(R"("mlp_layer_types":)") + std::string(R"("mlp_layer_types":)").size();
  hf.replace(list, ones(3, 60).size(), dense);
  const size_t sparse = hf.find(R"(,"sparse_attention_config")");
  hf.replace(sparse, hf.find("}}", sparse) + 1 - sparse,
             R"(,"index_n_heads":4,"index_head_dim":128,"layer_types":)" +
                 ones(3, 60, "\"minimax_m3_sparse\"", "\"full_attention\""));
  EXPECT_EQ(parameters_of(hf), parameters_of(hub_config()));
}

TEST(MinimaxM3, CachesIndexKeysBesideKeysAndValues) {
  TempDir dir;
  write_file(dir / "config.json", hub_config());
  auto l = load_model(dir.path(), false);
  EXPECT_EQ(memory_of(*l, ReportOptions{}).kv_cache_per_token_bytes, 137'472u);
}

}  // namespace
}  // namespace ma::test
