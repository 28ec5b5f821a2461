// The parameter breakdown: by stack, by layer, towers apart from what a text token runs, and the active
// non-embedding figure vendors quote. Tiny configs written here are worked out by hand from their numbers;
// the vendor figures are the ones published in the model cards, at the precision they were published.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/architecture_details.h"
#include "analysis/model_report.h"
#include "report_test_support.h"

namespace ma::test {
namespace {

std::unique_ptr<LoadedModel> load_config(const TempDir& dir, const std::string& json) {
  write_file(dir / "config.json", json);
  return load_model(dir.path(), false);
}

uint64_t stack_parameters(const ParameterCounts& p, StackRole role) {
  for (const StackParameters& s : p.by_stack)
    if (s.role == role) return s.parameters;
  return 0;
}

uint64_t block_parameters(const ParameterCounts& p, Block block) {
  for (const BlockParameters& b : p.by_block)
    if (b.block == block) return b.parameters;
  return 0;
}

TEST(ParameterBreakdown, T5CountsItsEncoderAndDecoderApart) {
  TempDir dir;
  auto m = load_config(dir, R"({"model_type":"t5","architectures":["T5ForConditionalGeneration"],
      "d_model":32,"d_kv":8,"num_heads":4,"d_ff":64,"num_layers":4,"num_decoder_layers":6,"vocab_size":100,
      "relative_attention_num_buckets":32,"feed_forward_proj":"relu"})");
  const ParameterCounts& p = m->params;
  // Attention: q, k, v, o of 32 x (4 heads x 8) = 4,096; a sublayer norm 32; the FFN wi + wo 2 x 32 x 64.
  // Block 0 of each stack also holds the relative attention bias, 32 buckets x 4 heads.
  const uint64_t attention = 4 * 32 * 32 + 32, ffn = 2 * 32 * 64 + 32, bias = 32 * 4;
  EXPECT_EQ(stack_parameters(p, StackRole::Encoder), 4 * (attention + ffn) + bias);
  EXPECT_EQ(stack_parameters(p, StackRole::Decoder), 6 * (2 * attention + ffn) + bias);  // + cross-attention
  ASSERT_EQ(p.by_layer.size(), 6u) << "the main stack of an encoder-decoder is its decoder";
  EXPECT_EQ(p.by_layer[0], 2 * attention + ffn + bias);
  EXPECT_EQ(p.by_layer[5], 2 * attention + ffn);

  const ArchitectureDetails d = describe_architecture(m->inventory.arch, p, {});
  EXPECT_EQ(d.encoder_layers, 4u);
  EXPECT_EQ(d.decoder_layers, 6u);
  ASSERT_EQ(d.stacks.size(), 2u);
  EXPECT_EQ(d.stacks[0].role, StackRole::Decoder);
  EXPECT_EQ(d.stacks[0].layers, 6u);
  EXPECT_EQ(d.stacks[1].role, StackRole::Encoder);
  EXPECT_EQ(d.stacks[1].parameters, 4 * (attention + ffn) + bias);
}

TEST(ParameterBreakdown, LlavaTowersAreCountedButNotRunByATextToken) {
  TempDir dir;
  auto m = load_config(dir, R"({"model_type":"llava","architectures":["LlavaForConditionalGeneration"],
      "text_config":{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
        "intermediate_size":128,"vocab_size":100},
      "vision_config":{"model_type":"clip_vision_model","hidden_size":16,"intermediate_size":32,
        "num_hidden_layers":3,"num_attention_heads":2,"image_size":32,"patch_size":8},
      "vision_feature_layer":-2})");
  const ParameterCounts& p = m->params;
  // The projector: linear_1 16 -> 64 and linear_2 64 -> 64, both with bias.
  EXPECT_EQ(block_parameters(p, Block::VisionProjector), 16 * 64 + 64 + 64 * 64 + 64);
  EXPECT_EQ(stack_parameters(p, StackRole::Projector), block_parameters(p, Block::VisionProjector));
  EXPECT_EQ(stack_parameters(p, StackRole::Vision), block_parameters(p, Block::Vision));
  EXPECT_GT(block_parameters(p, Block::Vision), 0u);
  EXPECT_EQ(p.towers, block_parameters(p, Block::Vision) + block_parameters(p, Block::VisionProjector));
  ASSERT_TRUE(p.active);
  EXPECT_EQ(*p.active, p.total - p.towers) << "a dense language model runs everything but its towers";
  // Non-embedding leaves out the text token table only (100 x 64): CLIP's position embedding, also an
  // nn.Embedding, belongs to the tower and was never in the active figure.
  EXPECT_EQ(*p.active_non_embedding, *p.active - 100 * 64);

  const ArchitectureDetails d = describe_architecture(m->inventory.arch, p, {});
  ASSERT_EQ(d.stacks.size(), 3u);
  EXPECT_EQ(d.stacks[1].role, StackRole::Vision);
  EXPECT_EQ(d.stacks[1].layers, 3u);
  EXPECT_EQ(d.stacks[1].heads, 2u);
  EXPECT_EQ(d.stacks[1].patch_size, 8u);
  EXPECT_EQ(d.stacks[2].role, StackRole::Projector);
}

TEST(ParameterBreakdown, DeepSeekMtpModuleIsAStackWithItsOwnParametersOutsideTheTotal) {
  TempDir dir;
  auto m = load_config(dir, R"({"model_type":"deepseek_v3","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"moe_intermediate_size":32,"vocab_size":100,
      "n_routed_experts":4,"num_experts_per_tok":2,"n_shared_experts":1,"first_k_dense_replace":1,
      "q_lora_rank":24,"kv_lora_rank":16,"qk_nope_head_dim":8,"qk_rope_head_dim":4,"v_head_dim":8,
      "num_nextn_predict_layers":1,"torch_dtype":"bfloat16"})");
  const ModelReport r = build_model_report(m->inventory, m->files, m->options);
  const StackSummary& mtp = r.architecture.stacks.back();
  ASSERT_EQ(mtp.role, StackRole::Mtp);
  // Layer 2 is a MoE layer like layer 1, plus its own embedding (100 x 64), enorm and hnorm (64 each),
  // eh_proj (2 x 64 -> 64) and shared head (norm 64, head 64 -> 100).
  ASSERT_EQ(r.parameters.by_layer.size(), 2u);
  const uint64_t module = 100 * 64 + 64 + 64 + 128 * 64 + 64 + 64 * 100;
  // The router's e_score_correction_bias (4) is a buffer: stored, but not in by_layer's parameters.
  EXPECT_EQ(mtp.parameters, r.parameters.by_layer[1] + 4 + module);
  EXPECT_EQ(mtp.stored_bytes, 2 * mtp.parameters) << "bfloat16";
  uint64_t in_stacks = 0;
  for (const StackParameters& s : r.parameters.by_stack) in_stacks += s.parameters;
  EXPECT_EQ(in_stacks, r.parameters.by_layer[0] + r.parameters.by_layer[1]) << "MTP is not in the total";
  EXPECT_FALSE(mtp.counted_in_total);
}

// MiMo's MTP layer is a parameter of the model (MiMoModel builds model.mtp_layers): its own stack, in the
// total, not in the decoder's layers, and not in the active count (it only drafts tokens).
TEST(ParameterBreakdown, MiMoMtpLayerIsInTheTotalButNotTheActiveCount) {
  TempDir dir;
  auto m = load_config(dir, R"({"model_type":"mimo","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":96,"vocab_size":100,
      "num_nextn_predict_layers":1,"torch_dtype":"bfloat16"})");
  const ModelReport r = build_model_report(m->inventory, m->files, m->options);
  const StackSummary& mtp = r.architecture.stacks.back();
  ASSERT_EQ(mtp.role, StackRole::Mtp);
  EXPECT_EQ(mtp.path, "model.mtp_layers");
  EXPECT_EQ(mtp.layers, 1u);
  EXPECT_TRUE(mtp.counted_in_total);
  uint64_t module = 0;
  for (const InventoryTensor& t : m->inventory.tensors)
    if (t.name.rfind("model.mtp_layers.0.", 0) == 0 && t.kind == TensorKind::Parameter)
      module += t.parameters;
  ASSERT_GT(module, 0u);
  EXPECT_EQ(mtp.parameters, module);
  EXPECT_EQ(mtp.stored_bytes, 2 * module) << "bfloat16";
  EXPECT_EQ(r.parameters.by_layer.size(), 2u);
  ASSERT_TRUE(r.parameters.active);
  EXPECT_EQ(*r.parameters.active, r.parameters.total - module);
}

// gpt-oss model card, table 1: active parameters (the routed experts a token picks, attention, norms, the
// unembedding; the embedding table left out) 3.61B for gpt-oss-20b and 5.13B for gpt-oss-120b.
TEST(ParameterBreakdown, GptOssActiveParametersMatchTheModelCard) {
  for (const auto& [name, published] :
       {std::pair{"openai__gpt-oss-20b", 3.61e9}, std::pair{"openai__gpt-oss-120b", 5.13e9}}) {
    LOAD_OR_SKIP(m, "hf-configs", name);
    ASSERT_TRUE(m->params.active_non_embedding) << name;
    EXPECT_LT(std::abs(static_cast<double>(*m->params.active_non_embedding) - published), 0.005e9) << name;
  }
}

}  // namespace
}  // namespace ma::test
