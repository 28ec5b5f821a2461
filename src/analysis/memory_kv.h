// The KV cache of the decoder stack, layer by layer: what each layer adds per token and what it holds per
// sequence regardless of length (SSM and linear-attention state, cross-attention K/V over the encoder).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/memory.h"
#include "core/dtype.h"
#include "model/architecture.h"

namespace ma {

struct KvCachePlan {
  bool known = false;           // false without an architecture template to read the layers from
  std::vector<KvLayer> layers;  // one row per decoder layer, then one per cross-attention layer
  uint64_t per_token = 0;       // sum while no sliding window is full
  uint64_t per_token_decompressed = 0;
  uint64_t state_per_sequence = 0;  // SSM / linear-attention state of all layers
  uint64_t cross_per_sequence = 0;  // cross-attention K/V of all decoder layers
  std::string convention;
  std::vector<std::string> assumptions;
};

// How a runtime lays out a recurrent layer's state. transformers' cache (and mamba_ssm's) keeps the conv
// state's whole kernel window; vLLM, SGLang and llama.cpp keep the kernel less one column, the step's own
// input being the newest. llama.cpp keeps both states in f32 whatever the model's dtype.
struct StateLayout {
  bool conv_without_newest = false;
  std::optional<DType> dtype;  // of conv and recurrent states; unset: the caller's `state` rule
};

// `kv`: the attention K/V dtype; `state`: the dtype of conv and recurrent states unless the record names an
// SSM cache dtype (or `layout` a dtype of its own). `context` (0: unknown) only matters for encoder-decoder
// models without a fixed encoder length, whose cross-attention covers an encoder input as long as the
// context. `v`: V in a type of its own (llama.cpp's -ctv beside -ctk), each of K and V a row of whole
// blocks per token as llama.cpp sizes them; an MLA latent and a K that is its V are K's.
KvCachePlan plan_kv_cache(const ArchitectureRecord& arch, DType kv, DType state, uint64_t context,
                          const StateLayout& layout = {}, std::optional<DType> v = {});

// The positions an encoder-decoder's encoder runs over: the input length the record fixes for it (Whisper's
// 1,500 frames after the conv stride, BART's 1,024-position table), else the context (T5's relative positions
// take any input length); 0 when neither is known. What the cross-attention cache and the activations size.
uint64_t encoder_positions(const StackSpec& encoder, uint64_t context);

// Bytes for `batch` sequences of `context` tokens: per-token bytes x min(context, window) per layer, plus the
// per-sequence state and cross-attention K/V, times the batch.
uint64_t kv_cache_total(const KvCachePlan& plan, uint64_t batch, uint64_t context);

// How many ways a layer's cache divides over `tp` tensor-parallel GPUs: attention K/V by KV head (a GPU keeps
// at least one head, so tp beyond the KV heads replicates), MLA's latent not at all (every rank keeps it),
// recurrent state by head. What plan sizes per device and perf streams per step.
uint64_t cache_split(const KvLayer& layer, const ArchitectureRecord& arch, uint32_t tp);

}  // namespace ma
