// Which fused attention kernels can run the model's attention as it is, and what each has to do about it —
// a property of the architecture (head dims, ALiBi, logit soft-capping, windows, chunks), where seed 002 had
// a `use_flash_attention` flag copied from the config. The limits are the kernels' own: flash-attn 2.x
// (head dim <= 256, equal q/k and v head dims, window_size since 2.3, alibi_slopes since 2.4, softcap
// since 2.6, no mask argument but variable-length sequences, fp16/bf16 only) and PyTorch's
// scaled_dot_product_attention (any head dim, its flash backend only up to 256 and only without a mask; no
// hook for soft-capping).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/architecture.h"

namespace ma {

struct KernelSupport {
  std::string kernel;  // "FlashAttention-2", "SDPA"
  bool supported = false;
  std::vector<std::string> notes;  // why not, or what it has to do (pad values, take a mask)
};

struct AttentionKernels {
  bool applicable = false;  // false: no softmax-attention layer (pure SSM or linear attention)
  uint64_t max_head_dim = 0, max_v_head_dim = 0;
  std::vector<KernelSupport> kernels;
};

AttentionKernels attention_kernels(const ArchitectureRecord& arch);

}  // namespace ma
