// summarize_attention() and its layer-pattern compression. Expected layer kinds come from the configs
// (layer_types, hybrid_override_pattern, sliding_window_pattern, ...) read by hand.
#include <gtest/gtest.h>

#include <regex>

#include "analysis/attention_summary.h"
#include "report_test_support.h"

namespace ma::test {
namespace {

std::vector<std::string> repeat(const std::vector<std::string>& block, size_t times) {
  std::vector<std::string> out;
  for (size_t i = 0; i < times; ++i) out.insert(out.end(), block.begin(), block.end());
  return out;
}

// Expands a compressed pattern back into its tokens (the inverse of compress_pattern), so a test can check
// that a pattern says exactly the layer sequence whatever grouping it chose.
std::vector<std::string> expand(std::string p) {
  std::vector<std::string> out;
  size_t reps_all = 1;
  if (auto comma = p.rfind(", ×"); comma != std::string::npos) {
    reps_all = std::stoul(p.substr(comma + 4));
    p = p.substr(0, comma);
  }
  // Top-level parts: "N×tok" or "(N×tok + M×tok)×K".
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '(') ++depth;
    if (p[i] == ')') --depth;
    if (depth == 0 && p.compare(i, 3, " + ") == 0) {
      parts.push_back(cur);
      cur.clear();
      i += 2;
      continue;
    }
    cur += p[i];
  }
  parts.push_back(cur);
  std::vector<std::string> one;
  const std::regex run(R"(^(\d+)×(.+)$)");
  for (const std::string& part : parts) {
    std::vector<std::string> block;
    size_t k = 1;
    std::string body = part;
    if (part.front() == '(') {
      size_t close = part.rfind(")×");
      k = std::stoul(part.substr(close + 3));
      body = part.substr(1, close - 1);
    }
    size_t start = 0;
    while (start <= body.size()) {
      size_t plus = body.find(" + ", start);
      std::string r = body.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
      std::smatch mm;
      EXPECT_TRUE(std::regex_match(r, mm, run)) << r;
      for (size_t i = 0; i < std::stoul(mm[1]); ++i) block.push_back(mm[2]);
      if (plus == std::string::npos) break;
      start = plus + 3;
    }
    auto b = repeat(block, k);
    one.insert(one.end(), b.begin(), b.end());
  }
  return repeat(one, reps_all);
}

TEST(AttentionPattern, Compression) {
  EXPECT_EQ(compress_pattern({}), "");
  EXPECT_EQ(compress_pattern(repeat({"full"}, 32)), "32×full");
  // Gemma-3-12B: sliding_window_pattern 6 over 48 layers = (5 sliding + 1 full) x 8.
  EXPECT_EQ(compress_pattern(repeat({"s"}, 5)), "5×s");
  std::vector<std::string> gemma = repeat({"s", "s", "s", "s", "s", "f"}, 8);
  EXPECT_EQ(compress_pattern(gemma), "5×s + 1×f, ×8");
  // 62 layers (Gemma-3-27B): ten full blocks and two sliding layers left over.
  std::vector<std::string> g27 = repeat({"s", "s", "s", "s", "s", "f"}, 10);
  g27.insert(g27.end(), {"s", "s"});
  EXPECT_EQ(compress_pattern(g27), "(5×s + 1×f)×10 + 2×s");
  EXPECT_EQ(compress_pattern({"n", "n", "f", "n", "f", "n", "f", "n"}), "2×n + (1×f + 1×n)×3");
  EXPECT_EQ(compress_pattern({"a", "b", "c"}), "1×a + 1×b + 1×c");
}

TEST(AttentionPattern, HugeInputsStayFastAndExact) {
  std::vector<std::string> t = repeat({"a", "b", "b"}, 50000);  // 100,000 runs: beyond the search bound
  std::string p = compress_pattern(t);
  EXPECT_EQ(expand(p), t);
  std::vector<std::string> u = repeat({"a", "b", "b", "c"}, 500);  // 1,500 runs: within it
  EXPECT_EQ(compress_pattern(u), "1×a + 2×b + 1×c, ×500");
}

TEST(AttentionSummary, Llama31_8B) {
  ANALYZE_OR_SKIP(m, "hf-configs/meta-llama__Meta-Llama-3.1-8B");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  EXPECT_EQ(s.attention_type, "GQA");  // 1 < 8 kv heads < 32 heads
  EXPECT_EQ(s.num_attention_heads, 32u);
  EXPECT_EQ(s.num_key_value_heads, 8u);
  EXPECT_EQ(s.head_dim, 128u);
  ASSERT_EQ(s.layers.size(), 32u);
  for (const LayerAttention& l : s.layers) {
    EXPECT_EQ(l.kind, "gqa");
    EXPECT_EQ(l.heads, 32u);
    EXPECT_EQ(l.kv_heads, 8u);
    EXPECT_EQ(l.window, 0u);
  }
  EXPECT_EQ(s.pattern, "32×full (GQA 32/8)");
}

TEST(AttentionSummary, Gpt2IsMha) {
  ANALYZE_OR_SKIP(m, "hf-configs/openai-community__gpt2");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  EXPECT_EQ(s.attention_type, "MHA");
  EXPECT_EQ(s.head_dim, 64u);
  EXPECT_EQ(s.pattern, "12×full (MHA 12/12)");
}

TEST(AttentionSummary, Gemma3SlidingPattern) {
  ANALYZE_OR_SKIP(m, "synthetic-configs/gemma-3-12b-text-shape");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  ASSERT_EQ(s.layers.size(), 48u);
  // sliding_window_pattern 6: every sixth layer (5, 11, ...) is global, the others slide over 1024 tokens.
  for (const LayerAttention& l : s.layers)
    EXPECT_EQ(l.window, (l.layer + 1) % 6 == 0 ? 0u : 1024u) << l.layer;
  EXPECT_EQ(s.attention_type, "GQA + sliding window");
  EXPECT_EQ(s.pattern, "5×sliding(1024) + 1×full, ×8 (GQA 16/8)");
}

TEST(AttentionSummary, Gemma4GlobalLayersHaveTheirOwnHeads) {
  ANALYZE_OR_SKIP(m, "hf-configs/google__gemma-4-31B-it");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  ASSERT_EQ(s.layers.size(), 60u);
  size_t full = 0;
  for (const LayerAttention& l : s.layers) {
    if (l.window == 0) {
      ++full;
      EXPECT_EQ(l.kv_heads, 4u);    // num_global_key_value_heads (attention_k_eq_v)
      EXPECT_EQ(l.head_dim, 512u);  // global_head_dim
    } else {
      EXPECT_EQ(l.window, 1024u);  // sliding_window
      EXPECT_EQ(l.kv_heads, 16u);
      EXPECT_EQ(l.head_dim, 256u);
    }
  }
  EXPECT_EQ(full, 10u);  // layer_types: every sixth layer is full_attention
}

TEST(AttentionSummary, DeepSeekV3IsMla) {
  ANALYZE_OR_SKIP(m, "hf-configs/deepseek-ai__DeepSeek-V3");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  EXPECT_EQ(s.attention_type, "MLA");
  ASSERT_EQ(s.layers.size(), 61u);
  for (const LayerAttention& l : s.layers) {
    EXPECT_EQ(l.kind, "mla");
    EXPECT_EQ(l.heads, 128u);
    EXPECT_EQ(l.head_dim, 192u);  // qk_nope_head_dim 128 + qk_rope_head_dim 64
  }
}

TEST(AttentionSummary, NemotronNanoHasSixAttentionLayers) {
  ANALYZE_OR_SKIP(m, "hf-configs/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  // hybrid_override_pattern "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME": '*' at these indices.
  const std::string hybrid = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
  ASSERT_EQ(s.layers.size(), hybrid.size());
  std::vector<uint32_t> attention;
  std::vector<std::string> tokens;
  for (const LayerAttention& l : s.layers) {
    if (l.kind != "none") attention.push_back(l.layer);
    tokens.push_back(hybrid[l.layer] == '*' ? "full" : "none");
  }
  EXPECT_EQ(attention, (std::vector<uint32_t>{5, 12, 19, 26, 33, 42}));
  EXPECT_EQ(s.layers[5].kind, "gqa");
  EXPECT_EQ(s.layers[5].kv_heads, 2u);
  EXPECT_EQ(s.attention_type, "hybrid (GQA + Mamba)");
  const std::string note = " (GQA 32/2)";
  ASSERT_TRUE(s.pattern.ends_with(note)) << s.pattern;
  EXPECT_EQ(expand(s.pattern.substr(0, s.pattern.size() - note.size())), tokens);
}

TEST(AttentionSummary, Llama4ChunkedLocalLayers) {
  ANALYZE_OR_SKIP(m, "hf-configs/meta-llama__Llama-4-Scout-17B-16E-Instruct");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  // No no_rope_layers list: every fourth layer (3, 7, ...) is a global NoPE layer, the rest attend within
  // attention_chunk_size 8192.
  for (const LayerAttention& l : s.layers) {
    const bool global = (l.layer + 1) % 4 == 0;
    EXPECT_EQ(l.window, global ? 0u : 8192u);
    EXPECT_EQ(l.chunked, !global);
  }
  EXPECT_EQ(s.attention_type, "GQA + chunked local");
  EXPECT_EQ(s.pattern, "3×chunked(8192) + 1×full, ×12 (GQA 40/8)");
}

TEST(AttentionSummary, Qwen3NextLinearAttention) {
  ANALYZE_OR_SKIP(m, "hf-configs/Qwen__Qwen3-Next-80B-A3B-Thinking");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  // full_attention_interval 4: layers 3, 7, ... are full attention, the others Gated DeltaNet.
  ASSERT_EQ(s.layers.size(), 48u);
  EXPECT_EQ(s.layers[0].kind, "linear");
  EXPECT_EQ(s.layers[0].heads, 32u);      // linear_num_value_heads
  EXPECT_EQ(s.layers[0].kv_heads, 16u);   // linear_num_key_heads
  EXPECT_EQ(s.layers[0].head_dim, 128u);  // linear_key_head_dim
  EXPECT_EQ(s.layers[3].kind, "gqa");
  EXPECT_EQ(s.pattern, "3×linear + 1×full, ×12 (GQA 16/2)");
  EXPECT_EQ(s.attention_type, "hybrid (GQA + linear attention)");
}

TEST(AttentionSummary, MambaHasNoAttention) {
  ANALYZE_OR_SKIP(m, "synthetic-configs/mamba-2.8b-shape");
  const AttentionSummary s = summarize_attention(m->inventory.arch);
  EXPECT_EQ(s.attention_type, "none (Mamba state-space layers only)");
  EXPECT_TRUE(attention_free(s)) << "the report shows no heads, pattern or kernels for it";
  EXPECT_EQ(s.pattern, "64×none");  // n_layer 64
}

}  // namespace
}  // namespace ma::test
