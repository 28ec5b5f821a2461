// KV cache and recurrent state of real configs, checked against figures derived by hand from each config.json
// (the derivation is in the comment above each expectation; none is copied from our own output).
#include <gtest/gtest.h>

#include "analysis/memory.h"
#include "analysis/parameter_counts.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "model/inventory.h"
#include "report_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using test::memory_of;

size_t count_kind(const MemoryReport& m, std::string_view kind) {
  return std::count_if(m.kv_layers.begin(), m.kv_layers.end(),
                       [&](const KvLayer& l) { return cache_kind_name(l.kind) == kind; });
}

TEST(MemoryKvTest, Llama2_7bFp16PerToken) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Llama-2-7b-hf");
  MemoryReport m = memory_of(*l);
  // torch_dtype float16; 32 layers x 2 (K, V) x 32 kv heads x 128 head_dim x 2 bytes = 524,288.
  EXPECT_EQ(m.kv_cache_dtype, "f16");
  EXPECT_EQ(m.kv_cache_per_token_bytes, 524'288u);
  EXPECT_EQ(m.kv_cache_per_token_decompressed_bytes, 524'288u);
  EXPECT_EQ(m.state_bytes_per_sequence, 0u);
  // Default context max_position_embeddings 4096, batch 1: 524,288 x 4096 = 2,147,483,648 (2 GiB, seed 002).
  EXPECT_EQ(m.context, 4096u);
  EXPECT_EQ(m.kv_cache_bytes, 2'147'483'648u);
  EXPECT_EQ(count_kind(m, "full"), 32u);
}

TEST(MemoryKvTest, Llama31_8bGqaAndFlags) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Meta-Llama-3.1-8B");
  // bfloat16; 32 layers x 2 x 8 kv heads x 128 x 2 bytes = 131,072.
  MemoryReport m = memory_of(*l);
  EXPECT_EQ(m.kv_cache_dtype, "bf16");
  EXPECT_EQ(m.kv_cache_per_token_bytes, 131'072u);
  // The practical default context is min(131,072 max_position_embeddings, 8,192): 131,072 x 8,192 =
  // 1,073,741,824 (1 GiB); at the maximum, 131,072 x 131,072 = 17,179,869,184 (16 GiB), shown beside it.
  EXPECT_EQ(m.context, 8192u);
  EXPECT_EQ(m.max_context, 131'072u);
  EXPECT_EQ(m.kv_cache_bytes, 1'073'741'824u);
  EXPECT_EQ(m.kv_cache_bytes_at_max_context, 17'179'869'184u);

  ReportOptions o;
  o.batch = 4;
  o.context = 8192;
  o.kv_dtype = DType::F8_E4M3;
  MemoryReport f = memory_of(*l, o);
  // fp8: 32 x 2 x 8 x 128 x 1 = 65,536 per token; x 8192 tokens x 4 sequences = 2,147,483,648.
  EXPECT_EQ(f.kv_cache_per_token_bytes, 65'536u);
  EXPECT_EQ(f.kv_cache_bytes, 2'147'483'648u);
  EXPECT_EQ(f.batch, 4u);
  EXPECT_EQ(f.context, 8192u);

  // A 4-bit cache packs two values per byte: 32 x 2 x 8 x 128 x 4 bits / 8 = 32,768.
  o.kv_dtype = DType::F4;
  EXPECT_EQ(memory_of(*l, o).kv_cache_per_token_bytes, 32'768u);
}

TEST(MemoryKvTest, DeepSeekV3LatentAndDecompressed) {
  LOAD_OR_SKIP(l, "hf-configs", "deepseek-ai__DeepSeek-V3");
  MemoryReport m = memory_of(*l);
  // MLA latent: 61 layers x (512 kv_lora_rank + 64 qk_rope_head_dim) x 2 bytes = 61 x 1,152 = 70,272.
  EXPECT_EQ(m.kv_cache_per_token_bytes, 70'272u);
  // Decompressed: 61 x 128 heads x (128 nope + 64 rope + 128 v) x 2 bytes = 61 x 81,920 = 4,997,120.
  EXPECT_EQ(m.kv_cache_per_token_decompressed_bytes, 4'997'120u);
  EXPECT_EQ(count_kind(m, "mla"), 61u);
  EXPECT_NE(m.kv_convention.find("kv_lora_rank + qk_rope_head_dim"), std::string::npos);
}

// A float8 cache of sparse MLA is FlashMLA's layout, as SGLang allocated it for DeepSeek-V3.2-Exp
// (../shared/data/engines, sglang-8xb200-dsv32exp-dpattn-indexer: 975,424 tokens in 43.67 GiB): per layer
// 512 fp8 + 4 float32 scales + 64 bf16 rope = 656 bytes and 128 fp8 indexer keys + 1 scale = 132 bytes;
// 61 x 788 = 48,068 a token (each at one byte gave 42,944, 11% short). Dense MLA stays plain float8.
TEST(MemoryKvTest, SparseMlaFloat8CacheIsFlashMlasLayout) {
  LOAD_OR_SKIP(l, "hf-configs", "deepseek-ai__DeepSeek-V3.2");
  ReportOptions fp8;
  fp8.kv_dtype = DType::F8_E4M3;
  MemoryReport m = memory_of(*l, fp8);
  EXPECT_EQ(m.kv_cache_per_token_bytes, 48'068u);
  EXPECT_NE(m.kv_layers.front().formula.find("FlashMLA"), std::string::npos) << m.kv_layers.front().formula;
  auto v3 = test::load_shared("hf-configs/deepseek-ai__DeepSeek-V3");
  ASSERT_TRUE(v3);
  EXPECT_EQ(memory_of(*v3, fp8).kv_cache_per_token_bytes, 61u * 576);
}

TEST(MemoryKvTest, NemotronNanoOnlyAttentionLayersPerToken) {
  LOAD_OR_SKIP(l, "hf-configs", "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  MemoryReport m = memory_of(*l);
  // hybrid_override_pattern has 6 '*' (attention), 23 'M' (Mamba-2), 23 'E' (MoE).
  EXPECT_EQ(count_kind(m, "full"), 6u);
  EXPECT_EQ(count_kind(m, "ssm-state"), 23u);
  // 2 x 6 layers x 2 kv heads x 128 head_dim x 2 bytes = 6,144.
  EXPECT_EQ(m.kv_cache_per_token_bytes, 6'144u);
  // Mamba-2 state per layer: intermediate = 64 mamba_num_heads x 64 mamba_head_dim = 4096;
  // conv_dim = 4096 + 2 x 8 n_groups x 128 ssm_state_size = 6144; conv state 6144 x 4 conv_kernel x 2 bytes
  // (bf16) = 49,152; SSM state 64 x 64 x 128 x 4 bytes (mamba_ssm_cache_dtype float32) = 2,097,152;
  // 23 x (49,152 + 2,097,152) = 23 x 2,146,304 = 49,364,992.
  EXPECT_EQ(m.state_bytes_per_sequence, 49'364'992u);
  // batch 2, context 1000: 2 x (6,144 x 1000 + 49,364,992) = 111,017,984.
  ReportOptions o;
  o.batch = 2;
  o.context = 1000;
  EXPECT_EQ(memory_of(*l, o).kv_cache_bytes, 111'017'984u);
}

TEST(MemoryKvTest, Gemma3SlidingLayersCappedAtWindow) {
  LOAD_OR_SKIP(l, "synthetic-configs", "gemma-3-12b-text-shape");
  ReportOptions o;
  o.context = 32768;
  MemoryReport m = memory_of(*l, o);
  // 48 layers, sliding_window_pattern 6: layers 5, 11, ..., 47 full (8), the other 40 sliding (1024).
  EXPECT_EQ(count_kind(m, "full"), 8u);
  EXPECT_EQ(count_kind(m, "sliding"), 40u);
  // Per layer 2 x 8 kv heads x 256 head_dim x 2 bytes = 8,192; per token 48 x 8,192 = 393,216.
  EXPECT_EQ(m.kv_cache_per_token_bytes, 393'216u);
  // 8 x 8,192 x 32,768 + 40 x 8,192 x 1,024 = 2,147,483,648 + 335,544,320 = 2,483,027,968.
  EXPECT_EQ(m.kv_cache_bytes, 2'483'027'968u);
  // A context shorter than the window caps nothing: 393,216 x 512 = 201,326,592.
  o.context = 512;
  EXPECT_EQ(memory_of(*l, o).kv_cache_bytes, 201'326'592u);
}

TEST(MemoryKvTest, Gemma4GlobalLayersUseTheirOwnHeads) {
  LOAD_OR_SKIP(l, "hf-configs", "google__gemma-4-31B-it");
  MemoryReport m = memory_of(*l);
  // text_config: 60 layers, full_attention at 5, 11, ..., 59 (10), 50 sliding (window 1024).
  // Sliding: 2 x 16 kv heads x 256 x 2 = 16,384; global (attention_k_eq_v): 2 x 4 num_global_key_value_heads
  // x 512 global_head_dim x 2 = 8,192. Per token 50 x 16,384 + 10 x 8,192 = 901,120.
  EXPECT_EQ(count_kind(m, "sliding"), 50u);
  EXPECT_EQ(count_kind(m, "full"), 10u);
  EXPECT_EQ(m.kv_cache_per_token_bytes, 901'120u);
}

TEST(MemoryKvTest, Qwen3NextLinearAttentionState) {
  LOAD_OR_SKIP(l, "hf-configs", "Qwen__Qwen3-Next-80B-A3B-Thinking");
  MemoryReport m = memory_of(*l);
  // 48 layers, full_attention_interval 4: 12 full, 36 gated-delta-net layers.
  EXPECT_EQ(count_kind(m, "full"), 12u);
  EXPECT_EQ(count_kind(m, "linear-state"), 36u);
  // 12 x 2 x 2 kv heads x 256 head_dim x 2 bytes = 24,576 per token.
  EXPECT_EQ(m.kv_cache_per_token_bytes, 24'576u);
  // Per layer: conv (2 x 16 key heads x 128 + 32 value heads x 128) = 8,192 channels x 4 kernel x 2 bytes =
  // 65,536; recurrent 32 x 128 x 128 x 2 bytes = 1,048,576; 36 x 1,114,112 = 40,108,032.
  EXPECT_EQ(m.state_bytes_per_sequence, 40'108'032u);
}

TEST(MemoryKvTest, MambaOneAndTwoState) {
  {
    LOAD_OR_SKIP(l, "synthetic-configs", "mamba-2.8b-shape");
    MemoryReport m = memory_of(*l);
    // float32; d_inner = 2 x 2560 = 5120; conv 5120 x 4 x 4 = 81,920; ssm 5120 x 16 x 4 = 327,680;
    // 64 layers x 409,600 = 26,214,400. Nothing per token.
    EXPECT_EQ(m.kv_cache_per_token_bytes, 0u);
    EXPECT_EQ(m.state_bytes_per_sequence, 26'214'400u);
  }
  {
    LOAD_OR_SKIP(l, "synthetic-configs", "mamba2-2.7b-shape");
    MemoryReport m = memory_of(*l);
    // float32; inner 5120, conv_dim 5120 + 2 x 1 x 128 = 5376; conv 5376 x 4 x 4 = 86,016;
    // ssm 80 heads x 64 x 128 x 4 = 2,621,440; 64 x 2,707,456 = 173,277,184.
    EXPECT_EQ(m.state_bytes_per_sequence, 173'277'184u);
  }
}

TEST(MemoryKvTest, JambaMixesAttentionAndMamba) {
  LOAD_OR_SKIP(l, "fixtures", "tiny-jamba");
  MemoryReport m = memory_of(*l);
  // tiny-jamba: 4 layers, attn_layer_period 4 / offset 2: layer 2 attention, 0, 1, 3 Mamba.
  EXPECT_EQ(count_kind(m, "full"), 1u);
  EXPECT_EQ(count_kind(m, "ssm-state"), 3u);
  // bf16; attention: 2 x 2 kv heads x 16 head_dim (64 / 4 heads) x 2 bytes = 128 per token.
  EXPECT_EQ(m.kv_cache_per_token_bytes, 128u);
  // Mamba: d_inner 2 x 64 = 128; conv 128 x 4 x 2 = 1,024; ssm 128 x 8 d_state x 2 = 2,048; 3 x 3,072 =
  // 9,216.
  EXPECT_EQ(m.state_bytes_per_sequence, 9'216u);
}

TEST(MemoryKvTest, WhisperCrossAttentionOverEncoder) {
  LOAD_OR_SKIP(l, "hf-configs", "openai__whisper-base");
  MemoryReport m = memory_of(*l);
  // float32; decoder 6 layers, 8 heads x 64 (512 / 8): self 6 x 2 x 8 x 64 x 4 = 24,576 per token.
  EXPECT_EQ(m.kv_cache_per_token_bytes, 24'576u);
  // Cross: 6 x 2 x 8 x 64 x 1500 max_source_positions x 4 = 36,864,000 per sequence.
  EXPECT_EQ(m.cross_attention_bytes_per_sequence, 36'864'000u);
  EXPECT_EQ(count_kind(m, "cross"), 6u);
  // max_target_positions 448: 24,576 x 448 + 36,864,000 = 47,874,048.
  EXPECT_EQ(m.context, 448u);
  EXPECT_EQ(m.kv_cache_bytes, 47'874'048u);
}

TEST(MemoryKvTest, EncoderOnlyHasNoCache) {
  LOAD_OR_SKIP(l, "hf-configs", "google-bert__bert-base-uncased");
  MemoryReport m = memory_of(*l);
  EXPECT_TRUE(m.kv_known);
  EXPECT_EQ(m.kv_cache_per_token_bytes, 0u);
  EXPECT_EQ(m.kv_cache_bytes, 0u);
  EXPECT_TRUE(m.kv_layers.empty());
}

TEST(MemoryKvTest, UnknownContextLeavesTheTotalUnknown) {
  LOAD_OR_SKIP(l, "hf-configs", "bigscience__bloom-560m");
  MemoryReport m = memory_of(*l);
  // ALiBi: no max_position_embeddings, so no default context. No torch_dtype and no index to read the
  // stored width from: f32, transformers' default and the template's stored prediction.
  // 24 layers x 2 x 16 heads x 64 head_dim (1024 / 16) x 4 bytes = 196,608 per token.
  EXPECT_EQ(m.context, 0u);
  EXPECT_EQ(m.compute_dtype, "f32");
  EXPECT_EQ(m.kv_cache_per_token_bytes, 196'608u);
  EXPECT_FALSE(m.kv_cache_total_known());
  ReportOptions o;
  o.context = 2048;
  MemoryReport c = memory_of(*l, o);
  EXPECT_TRUE(c.kv_cache_total_known());
  EXPECT_EQ(c.kv_cache_bytes, 402'653'184u);  // 196,608 x 2048
}

TEST(MemoryKvTest, BadSsmCacheDtypeIsAnError) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  std::string cfg = test::read_file(*data / "fixtures/tiny-nemotron-h/config.json");
  const std::string key = "\"mamba_ssm_cache_dtype\": \"float32\"";
  size_t at = cfg.find(key);
  ASSERT_NE(at, std::string::npos);
  cfg.replace(at, key.size(), "\"mamba_ssm_cache_dtype\": \"int8\"");
  test::TempDir dir;
  test::write_file(dir / "config.json", cfg);
  // The record reads cache dtypes when the model is built, before any analysis.
  try {
    test::load_model(dir.path());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "mamba_ssm_cache_dtype");
  }
}

// DeepSeek-V4 (a config written here: 4 layers of head_dim 512, bf16): one shared key-value head cached once,
// a raw window of 128 tokens per sequence, and per token one compressed entry per ratio. Layer kinds from
// compress_ratios [0, 4, 128, 4]: sliding 512 x 2 bytes = 1,024 per token (at most 128 tokens kept); CSA
// (512 compressor + 128 indexer dims) x 2 bytes / 4 = 320 per token; HCA 512 x 2 / 128 = 8 per token. Per
// token while the window fills: 1,024 + 320 + 8 + 320 = 1,672. The three compressed layers also hold their
// window: 3 x 128 x 512 x 2 = 393,216 per sequence. At 8,192 tokens: 128 x 1,024 + 8,192 x 648 + 393,216 =
// 131,072 + 5,308,416 + 393,216 = 5,832,704.
TEST(MemoryKvTest, DeepSeekV4CachesCompressedEntriesBesideItsWindow) {
  test::TempDir dir;
  test::write_file(dir / "config.json", R"({"model_type":"deepseek_v4","num_hidden_layers":4,
      "torch_dtype":"bfloat16","compress_ratios":[0,4,128,4],"num_hash_layers":1,"n_routed_experts":8,
      "num_experts_per_tok":2})");
  auto l = test::load_model(dir.path(), false);
  ReportOptions o;
  o.context = 8192;
  MemoryReport m = memory_of(*l, o);
  EXPECT_EQ(m.kv_cache_per_token_bytes, 1'672u);
  EXPECT_EQ(m.state_bytes_per_sequence, 393'216u);
  EXPECT_EQ(m.kv_cache_bytes, 5'832'704u);
  EXPECT_EQ(count_kind(m, "sliding"), 1u);
}

// LongCat-Flash: two MLA attentions per layer, each with its own latent cache (transformers' cache counts
// 2 x num_layers layers): 2 layers x 2 x (512 + 64) x 2 bytes = 4,608 per token in bf16.
TEST(MemoryKvTest, LongCatFlashCachesBothAttentionsOfALayer) {
  test::TempDir dir;
  test::write_file(dir / "config.json", R"({"model_type":"longcat_flash","num_layers":2,
      "torch_dtype":"bfloat16","n_routed_experts":8,"zero_expert_num":4,"moe_topk":2})");
  auto l = test::load_model(dir.path(), false);
  ReportOptions o;
  o.context = 1000;
  MemoryReport m = memory_of(*l, o);
  EXPECT_EQ(m.kv_cache_per_token_bytes, 4'608u);
  EXPECT_EQ(m.kv_cache_bytes, 4'608'000u);
  ASSERT_EQ(m.kv_layers.size(), 2u);
  EXPECT_NE(m.kv_layers[0].formula.find("2 attention modules"), std::string::npos) << m.kv_layers[0].formula;
}

TEST(MemoryKvTest, AbsurdBatchIsALimitErrorNotAWrap) {
  LOAD_OR_SKIP(l, "hf-configs", "meta-llama__Meta-Llama-3.1-8B");
  ReportOptions o;
  o.batch = 1ull << 40;
  o.context = 1ull << 30;
  try {
    memory_of(*l, o);
    FAIL() << "expected an overflow error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
  }
}

}  // namespace
}  // namespace ma
