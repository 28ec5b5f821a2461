// attention_kernels(): which fused kernels run an architecture's attention, from its head dims, position
// encoding, soft-capping and windows (the kernels' documented limits, see attention_kernels.h).
#include "analysis/attention_kernels.h"

#include <gtest/gtest.h>

namespace ma {
namespace {

ArchitectureRecord record(uint64_t head_dim, uint64_t v_head_dim = 0, Span span = Span::Full) {
  ArchitectureRecord a;
  StackSpec& s = a.add_stack(StackRole::Decoder, "model.layers");
  LayerSpec l;
  l.mixer = Mixer::Attention;
  l.attention.heads = 8;
  l.attention.kv_heads = 8;
  l.attention.head_dim = head_dim;
  l.attention.v_head_dim = v_head_dim;
  l.attention.span = span;
  l.attention.window = span == Span::Full ? 0 : 4096;
  s.layers.assign(2, l);
  return a;
}

const KernelSupport& kernel(const AttentionKernels& k, const std::string& name) {
  for (const KernelSupport& s : k.kernels)
    if (s.kernel == name) return s;
  throw std::runtime_error("no kernel " + name);
}

bool noted(const KernelSupport& k, const std::string& part) {
  for (const std::string& n : k.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

TEST(AttentionKernels, HeadDimAboveTwoHundredFiftySixIsBeyondFlashAttention) {
  const AttentionKernels k = attention_kernels(record(512));
  EXPECT_FALSE(kernel(k, "FlashAttention-2").supported);
  EXPECT_TRUE(noted(kernel(k, "FlashAttention-2"), "head dim 512 > 256"));
  EXPECT_TRUE(kernel(k, "SDPA").supported);
  EXPECT_TRUE(kernel(attention_kernels(record(256)), "FlashAttention-2").supported);
}

TEST(AttentionKernels, SoftCappingRulesOutSdpaNotFlashAttention) {
  ArchitectureRecord a = record(256);
  a.attention_softcap = 50;
  const AttentionKernels k = attention_kernels(a);
  EXPECT_FALSE(kernel(k, "SDPA").supported);
  EXPECT_TRUE(kernel(k, "FlashAttention-2").supported);
  EXPECT_TRUE(noted(kernel(k, "FlashAttention-2"), "softcap"));
}

TEST(AttentionKernels, MlaValuesArePaddedAlibiAndWindowsTakeAMask) {
  const AttentionKernels mla = attention_kernels(record(192, 128));
  EXPECT_EQ(mla.max_head_dim, 192u);
  EXPECT_EQ(mla.max_v_head_dim, 128u);
  EXPECT_TRUE(noted(kernel(mla, "FlashAttention-2"), "padded from head dim 128 to 192"));
  ArchitectureRecord alibi = record(64);
  alibi.position = PositionKind::Alibi;
  EXPECT_TRUE(noted(kernel(attention_kernels(alibi), "FlashAttention-2"), "alibi_slopes"));
  EXPECT_TRUE(noted(kernel(attention_kernels(alibi), "SDPA"), "not the flash backend"));
  EXPECT_TRUE(
      noted(kernel(attention_kernels(record(128, 0, Span::Sliding)), "FlashAttention-2"), "window_size"));
  EXPECT_TRUE(kernel(attention_kernels(record(128, 0, Span::Chunked)), "FlashAttention-2").supported);
}

// T5's learned relative-position bias is added to every score: flash-attn has no input for it (only ALiBi's
// slopes); SDPA takes it as a float mask, off the flash backend.
TEST(AttentionKernels, ARelativePositionBiasRulesOutFlashAttention) {
  ArchitectureRecord t5 = record(64);
  t5.position = PositionKind::Relative;
  const AttentionKernels k = attention_kernels(t5);
  EXPECT_FALSE(kernel(k, "FlashAttention-2").supported);
  EXPECT_TRUE(noted(kernel(k, "FlashAttention-2"), "relative-position bias"));
  EXPECT_TRUE(kernel(k, "SDPA").supported);
  EXPECT_TRUE(noted(kernel(k, "SDPA"), "not the flash backend"));
}

TEST(AttentionKernels, NoSoftmaxAttentionNoKernels) {
  ArchitectureRecord a;
  StackSpec& s = a.add_stack(StackRole::Decoder, "backbone.layers");
  LayerSpec l;
  l.mixer = Mixer::Mamba2;
  s.layers.assign(4, l);
  const AttentionKernels k = attention_kernels(a);
  EXPECT_FALSE(k.applicable);
  EXPECT_TRUE(k.kernels.empty());
}

}  // namespace
}  // namespace ma
