// Attention per decoder layer — MHA / GQA / MQA / MLA / sliding-window / chunked-local / linear / none —
// and a compact pattern such as "5×sliding(1024) + 1×full, ×8 (GQA 16/8)".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attention_kernels.h"
#include "model/architecture.h"

namespace ma {

struct LayerAttention {
  uint32_t layer = 0;
  Mixer mixer = Mixer::None;
  std::string kind;    // mha | gqa | mqa | mla | linear | none; unknown without a config (a label, from the
                       // record's categories: compare `mixer`, not this)
  uint64_t heads = 0;  // 0: unknown (linear attention: value heads)
  uint64_t kv_heads = 0;  // linear attention: key heads
  uint64_t head_dim = 0;  // MLA: the q/k head dim (nope + rope); linear attention: key head dim
  uint64_t window = 0;    // 0: full attention
  bool chunked = false;   // window is a chunk (Llama-4 local attention), not a sliding window
  // DeepSeek-V4: beside its window, one compressed entry per compress_ratio tokens of the context. 0: none.
  uint64_t compress_ratio = 0;
  // Attention modules the layer runs in turn, each with its own cache (LongCat-Flash: 2).
  uint32_t modules = 1;
};

struct AttentionSummary {
  std::string attention_type;  // the model's headline kind, e.g. "GQA", "MLA", "GQA + sliding window",
                               // "hybrid (GQA + Mamba)"
  uint64_t num_attention_heads = 0;
  uint64_t num_key_value_heads = 0;
  uint64_t head_dim = 0;
  std::vector<LayerAttention> layers;  // one per decoder layer
  std::string pattern;                 // compact, e.g. "5×sliding(1024) + 1×full, ×8 (GQA 16/8)"
  AttentionKernels kernels;            // which fused kernels can run it
};

AttentionSummary summarize_attention(const ArchitectureRecord& arch);
// No layer attends (a pure Mamba model): no heads, no pattern, no kernels to show.
bool attention_free(const AttentionSummary& s);

// Run-length and period compression of a layer sequence: {a,a,b,a,a,b} -> "2×a + 1×b, ×2";
// {n,n,f,n,f,n,f,n} -> "2×n + (1×f + 1×n)×3". Picks the factorization that shows the fewest runs.
std::string compress_pattern(const std::vector<std::string>& tokens);

}  // namespace ma
