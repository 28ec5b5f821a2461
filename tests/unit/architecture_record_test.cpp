// The architecture record as the family builders fill it: stacks, per-layer shapes and the caches that
// follow from them, on configs written here (each figure worked out by hand from the config's numbers).
#include <gtest/gtest.h>

#include "analysis/memory_kv.h"
#include "model/family_registry.h"
#include "test_support.h"

namespace ma::test {
namespace {

ModelTemplate build(const std::string& json) {
  return build_template(ModelConfig::parse(json, "config.json"));
}

TEST(ArchitectureRecord, Qwen2SlidesFromMaxWindowLayersOn) {
  // transformers 5 derives layer_types: sliding from max_window_layers on when use_sliding_window is set.
  const ModelTemplate t = build(R"({"model_type":"qwen2","hidden_size":64,"num_hidden_layers":10,
      "num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"vocab_size":100,
      "use_sliding_window":true,"sliding_window":512,"max_window_layers":6})");
  const std::vector<LayerSpec>& layers = t.arch.layers();
  ASSERT_EQ(layers.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(layers[i].attention.window, i >= 6 ? 512u : 0u) << "layer " << i;
    EXPECT_EQ(layers[i].attention.span, i >= 6 ? Span::Sliding : Span::Full) << "layer " << i;
  }
  // The KV cache follows: 6 full layers keep every token, 4 sliding ones at most 512.
  const KvCachePlan p = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 2048);
  const uint64_t per_layer = 2 * 2 * 16 * 2;  // K and V x 2 kv heads x head dim 16 x 2 bytes
  EXPECT_EQ(kv_cache_total(p, 1, 2048), per_layer * (6 * 2048 + 4 * 512));
}

// Phi-3-mini-128k declares a 262,144-token window over 131,072 positions: a window that never slides is full
// attention; one shorter than the context slides.
TEST(ArchitectureRecord, AWindowAsLongAsTheContextIsFullAttention) {
  for (const auto& [window, span] :
       {std::pair{262144u, Span::Full}, std::pair{131072u, Span::Full}, std::pair{4096u, Span::Sliding}}) {
    const ModelTemplate t = build(R"({"model_type":"mistral","hidden_size":64,"num_hidden_layers":2,
        "num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"vocab_size":100,
        "max_position_embeddings":131072,"sliding_window":)" +
                                  std::to_string(window) + "}");
    EXPECT_EQ(t.arch.layers()[0].attention.span, span) << window;
    EXPECT_EQ(t.arch.layers()[0].attention.window, span == Span::Full ? 0u : window) << window;
  }
}

// Seed 002's architecture.use_cache: the config's own value, true when it says nothing (PretrainedConfig).
TEST(ArchitectureRecord, UseCacheAsTheConfigStatesIt) {
  const std::string base = R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100)";
  EXPECT_TRUE(build(base + "}").arch.use_cache);
  EXPECT_FALSE(build(base + R"(,"use_cache":false})").arch.use_cache);
  EXPECT_TRUE(build(base + R"(,"use_cache":"no"})").arch.use_cache) << "not a boolean: as if absent";
}

TEST(ArchitectureRecord, ExplicitLayerTypesWinAndWithoutTheFlagNothingSlides) {
  const ModelTemplate off = build(R"({"model_type":"qwen3","hidden_size":64,"num_hidden_layers":4,
      "num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"vocab_size":100,
      "sliding_window":512,"max_window_layers":1})");
  for (const LayerSpec& l : off.arch.layers()) EXPECT_EQ(l.attention.window, 0u);
  const ModelTemplate typed = build(R"({"model_type":"qwen3","hidden_size":64,"num_hidden_layers":4,
      "num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"vocab_size":100,
      "use_sliding_window":true,"sliding_window":512,"max_window_layers":0,
      "layer_types":["full_attention","sliding_attention","full_attention","sliding_attention"]})");
  std::vector<uint64_t> windows;
  for (const LayerSpec& l : typed.arch.layers()) windows.push_back(l.attention.window);
  EXPECT_EQ(windows, (std::vector<uint64_t>{0, 512, 0, 512}));
}

TEST(ArchitectureRecord, NemotronLegacyGroupCountSizesBothParametersAndState) {
  // mamba_n_groups (the legacy spelling) = 2: the in_proj and the SSM state both use 2 groups, not 8.
  const ModelTemplate t = build(R"({"model_type":"nemotron_h","hidden_size":64,"num_attention_heads":4,
      "num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"vocab_size":100,"mamba_num_heads":8,
      "mamba_head_dim":16,"ssm_state_size":16,"mamba_n_groups":2,"conv_kernel":4,
      "hybrid_override_pattern":"M*"})");
  const LayerSpec& m = t.arch.layers()[0];
  ASSERT_EQ(m.mixer, Mixer::Mamba2);
  EXPECT_EQ(m.state.groups, 2u);
  uint64_t in_proj = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.name == "model.layers.0.mixer.in_proj.weight") in_proj = x.shape[0];
  // in_proj: z and x (2 x 128) + B and C (2 x groups x 16) + dt (8 heads).
  EXPECT_EQ(in_proj, 2 * 128 + 2 * 2 * 16 + 8);
  const KvCachePlan p = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 0);
  // conv (128 + 2 x 2 x 16) x 4 x 2 bytes + ssm 8 heads x 16 x 16 x 2 bytes.
  EXPECT_EQ(p.layers[0].state_bytes_per_sequence, (128 + 2 * 2 * 16) * 4 * 2 + 8 * 16 * 16 * 2);
}

TEST(ArchitectureRecord, DeepSeekV32IndexerKeysAreCachedAndTheMtpLayerIsAStack) {
  const ModelTemplate t = build(R"({"model_type":"deepseek_v32","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"moe_intermediate_size":32,"vocab_size":100,
      "n_routed_experts":4,"num_experts_per_tok":2,"n_shared_experts":1,"first_k_dense_replace":1,
      "q_lora_rank":24,"kv_lora_rank":16,"qk_nope_head_dim":8,"qk_rope_head_dim":4,"v_head_dim":8,
      "index_n_heads":2,"index_head_dim":32,"index_topk":64,"num_nextn_predict_layers":1})");
  const AttentionShape& at = t.arch.layers()[0].attention;
  EXPECT_EQ(at.kind, AttentionKind::Mla);
  EXPECT_EQ(at.indexer_head_dim, 32u);
  const KvCachePlan p = plan_kv_cache(t.arch, DType::BF16, DType::BF16, 0);
  // Per layer per token: (16 latent + 4 rope) x 2 bytes + 32 indexer key dims x 2 bytes.
  EXPECT_EQ(p.layers[0].bytes_per_token, (16 + 4) * 2 + 32 * 2);
  EXPECT_EQ(p.per_token, 2 * ((16 + 4) * 2 + 32 * 2));
  const StackSpec* mtp = t.arch.stack(StackRole::Mtp);
  ASSERT_NE(mtp, nullptr);
  EXPECT_EQ(mtp->first_index, 2u);
  EXPECT_EQ(mtp->layers.size(), 1u);
}

TEST(ArchitectureRecord, T5KeepsItsEncoderAndDecoderApart) {
  const ModelTemplate t = build(R"({"model_type":"t5","architectures":["T5ForConditionalGeneration"],
      "d_model":32,"d_kv":8,"num_heads":4,"d_ff":64,"num_layers":4,"num_decoder_layers":6,"vocab_size":100})");
  const StackSpec* enc = t.arch.stack(StackRole::Encoder);
  const StackSpec* dec = t.arch.stack(StackRole::Decoder);
  ASSERT_TRUE(enc && dec);
  EXPECT_EQ(enc->layers.size(), 4u);
  EXPECT_EQ(dec->layers.size(), 6u);
  EXPECT_EQ(enc->path, "encoder.block");
  EXPECT_EQ(dec->path, "decoder.block");
  EXPECT_FALSE(enc->layers[0].cross_attention);
  ASSERT_TRUE(dec->layers[0].cross_attention);
  EXPECT_EQ(dec->layers[0].cross_attention->head_dim, 8u);
  EXPECT_EQ(t.arch.layers().size(), 6u) << "the main stack of an encoder-decoder is its decoder";
}

TEST(ArchitectureRecord, FamilyFactsComeFromTheBuilders) {
  const ModelTemplate bloom = build(R"({"model_type":"bloom","hidden_size":64,"n_layer":2,"n_head":4,
      "vocab_size":100})");
  EXPECT_EQ(bloom.arch.position, PositionKind::Alibi);
  const ModelTemplate llama = build(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100,"rms_norm_eps":1e-5,"hidden_act":"silu",
      "rope_theta":500000})");
  EXPECT_EQ(llama.arch.position, PositionKind::Rope);
  EXPECT_EQ(llama.arch.norm, NormKind::RmsNorm);
  EXPECT_EQ(llama.arch.activation, "silu");
  ASSERT_TRUE(llama.arch.rope);
  EXPECT_EQ(llama.arch.rope->theta, 500000);
  const ModelTemplate mamba = build(R"({"model_type":"mamba","hidden_size":64,"num_hidden_layers":2,
      "vocab_size":100})");
  EXPECT_EQ(mamba.arch.position, PositionKind::None);
  EXPECT_EQ(mamba.arch.layers()[0].ffn.kind, Ffn::None);
}

}  // namespace
}  // namespace ma::test
