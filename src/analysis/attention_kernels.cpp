#include "analysis/attention_kernels.h"

#include <algorithm>

#include "core/units.h"

namespace ma {
namespace {

// flash-attn 2.x's largest head dim (its kernels are instantiated up to 256); PyTorch's flash backend has
// the same limit.
constexpr uint64_t kFlashMaxHeadDim = 256;

struct Traits {
  uint64_t head_dim = 0, v_head_dim = 0;
  bool sliding = false, chunked = false;
};

Traits traits_of(const ArchitectureRecord& a) {
  Traits t;
  for (const StackSpec& s : a.stacks)
    for (const LayerSpec& l : s.layers) {
      for (const AttentionShape* at : {l.mixer == Mixer::Attention ? &l.attention : nullptr,
                                       l.cross_attention ? &*l.cross_attention : nullptr}) {
        if (!at) continue;
        t.head_dim = std::max(t.head_dim, at->head_dim);
        t.v_head_dim = std::max(t.v_head_dim, at->v_head_dim ? at->v_head_dim : at->head_dim);
        t.sliding = t.sliding || at->span == Span::Sliding;
        t.chunked = t.chunked || at->span == Span::Chunked;
      }
    }
  return t;
}

std::string digits(uint64_t v) {
  return std::to_string(v);
}

KernelSupport flash_attention_2(const ArchitectureRecord& a, const Traits& t) {
  KernelSupport k{"FlashAttention-2", true, {}};
  if (t.head_dim > kFlashMaxHeadDim) {
    k.supported = false;
    k.notes.push_back("head dim " + digits(t.head_dim) + " > " + digits(kFlashMaxHeadDim));
  }
  if (t.v_head_dim != t.head_dim)
    k.notes.push_back("values padded from head dim " + digits(t.v_head_dim) + " to " + digits(t.head_dim) +
                      " (its kernels take one head dim for q, k and v)");
  if (t.chunked)  // as vLLM runs Llama-4's local layers: no mask parameter, but the varlen entry point
    k.notes.push_back("chunked local attention as chunk-long sequences (varlen), no mask");
  if (t.sliding) k.notes.push_back("sliding window as window_size (flash-attn >= 2.3)");
  if (a.position == PositionKind::Alibi) k.notes.push_back("ALiBi as alibi_slopes (flash-attn >= 2.4)");
  // A learned bias per head and relative distance (T5's buckets) is added to every score: flash-attn takes
  // ALiBi's slopes, not an arbitrary bias, and transformers offers no FlashAttention-2 for such models.
  if (a.position == PositionKind::Relative) {
    k.supported = false;
    k.notes.push_back("no input for a learned relative-position bias added to the scores");
  }
  if (a.attention_softcap > 0) k.notes.push_back("logit soft-capping as softcap (flash-attn >= 2.6)");
  k.notes.push_back("fp16 / bf16 only");
  return k;
}

KernelSupport sdpa(const ArchitectureRecord& a, const Traits& t) {
  KernelSupport k{"SDPA", true, {}};
  if (a.attention_softcap > 0) {
    k.supported = false;
    k.notes.push_back("no hook for logit soft-capping (" + short_number(a.attention_softcap) +
                      "): eager attention, or flex attention's score_mod");
  }
  bool masked = false;
  if (a.position == PositionKind::Alibi || a.position == PositionKind::Relative) {
    k.notes.push_back(a.position == PositionKind::Alibi
                          ? "ALiBi as an additive float mask"
                          : "the relative-position bias as an additive float mask");
    masked = true;
  }
  if (t.sliding || t.chunked) {
    k.notes.push_back(std::string(t.chunked ? "chunks" : "the sliding window") + " as a boolean mask");
    masked = true;
  }
  if (masked)
    k.notes.push_back("with a mask, the memory-efficient or math backend (not the flash backend)");
  else if (t.head_dim > kFlashMaxHeadDim)
    k.notes.push_back("head dim " + digits(t.head_dim) + " > " + digits(kFlashMaxHeadDim) +
                      ": the memory-efficient or math backend");
  return k;
}

}  // namespace

AttentionKernels attention_kernels(const ArchitectureRecord& arch) {
  AttentionKernels out;
  const Traits t = traits_of(arch);
  if (t.head_dim == 0) return out;  // no softmax attention, or no head dims known
  out.applicable = true;
  out.max_head_dim = t.head_dim;
  out.max_v_head_dim = t.v_head_dim;
  out.kernels.push_back(flash_attention_2(arch, t));
  out.kernels.push_back(sdpa(arch, t));
  return out;
}

}  // namespace ma
