// Memory estimates, each with its formula: weights at FP32/BF16/FP16/FP8/INT8/INT4 (4-bit with group-scale
// overhead) and as stored; KV cache per token and for a batch and context, per layer (full attention,
// sliding windows capped, MLA latent cache with the decompressed size too, SSM / linear-attention state per
// sequence, cross-attention); inference total; training (AdamW fp32, bf16 mixed precision with fp32 master
// weights, activations with and without checkpointing, LoRA, QLoRA).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/capabilities.h"
#include "analysis/memory_activations.h"
#include "analysis/quantization.h"
#include "analysis/report_inputs.h"
#include "model/architecture.h"

namespace ma {

struct Estimate {
  std::string name;  // stable JSON key, e.g. "weights_bf16"
  uint64_t bytes = 0;
  std::string formula;  // how it was computed, with the numbers, e.g. "8,030,261,248 params x 2 bytes"
  // False when a term it is or it sums is unknown (the KV cache and activations without a context, the cache
  // without an architecture): `bytes` is then 0, never the sum of the known terms posing as the whole, and
  // the JSON's bytes null; the formula names the known terms and what is missing.
  bool known = true;
  std::string unknown_because = {};  // when not known, in short: "pass --context", "no architecture"
};

// What a layer keeps in the cache: K and V of every token (full), of the last window or chunk, MLA's latent,
// a constant SSM or linear-attention state, K and V over the encoder (cross), an earlier layer's (shared).
enum class CacheKind : uint8_t {
  Full,
  Sliding,
  Chunked,
  MlaLatent,
  SsmState,
  LinearState,
  Cross,
  Shared,
  None
};
// full, sliding, chunked, mla, ssm-state, linear-state, cross, shared, none
std::string_view cache_kind_name(CacheKind k);

struct KvLayer {
  uint32_t layer = 0;
  CacheKind kind = CacheKind::None;
  uint64_t bytes_per_token = 0;               // what one more token adds (0 for constant-state layers)
  uint64_t bytes_per_token_decompressed = 0;  // MLA: full K and V of every head; others: bytes_per_token
  uint64_t window = 0;                        // sliding / chunked layers: tokens kept
  uint64_t state_bytes_per_sequence = 0;      // SSM / linear-attention state; cross-attention K/V
  std::string formula;                        // with the numbers of this layer
};

struct MemoryReport {
  std::string kv_cache_dtype;  // short dtype name
  // What inference holds weights, activations and recurrent state in (short name): the model's dtype, else
  // float32 (transformers' default, and what a config without torch_dtype was saved in) or, for a quantized
  // checkpoint, 16-bit (its kernels take nothing wider). What plan and serve size activations and state in.
  std::string compute_dtype;
  std::vector<Estimate>
      weights;            // weights_fp32, weights_bf16, ..., weights_int4, weights_stored (when known)
  bool kv_known = false;  // false without an architecture (bare weights) to derive the cache from
  uint64_t kv_cache_per_token_bytes = 0;               // sum over layers while no sliding window is full
  uint64_t kv_cache_per_token_decompressed_bytes = 0;  // MLA: as full K and V would be
  uint64_t kv_cache_bytes = 0;  // for batch x context, sliding layers capped at their window, + state
  uint64_t state_bytes_per_sequence = 0;            // Mamba / linear-attention state; DeepSeek-V4 windows
  uint64_t cross_attention_bytes_per_sequence = 0;  // encoder-decoder: cross-attention K/V over the encoder
  uint64_t batch = 1;
  // The context the figures are for: --context, else min(max_context, kDefaultContext). 0: unknown (no
  // maximum context in the config and no --context).
  uint64_t context = 0;
  uint64_t max_context = 0;                    // the config's maximum context; 0: unknown
  uint64_t kv_cache_bytes_at_max_context = 0;  // batch x max_context, beside the practical figure
  std::vector<KvLayer> kv_layers;
  std::string kv_convention;        // e.g. "MLA: latent cache (kv_lora_rank + qk_rope_head_dim) per layer"
  std::vector<Estimate> inference;  // weights + kv + activations + overhead, total
  // adamw_fp32, mixed_bf16, activations (with/without checkpointing), lora, qlora, with their totals
  std::vector<Estimate> training;
  uint64_t lora_rank = 16;
  // Exact: rank x (in + out) over the projections LoRA targets, from the template's shapes, else (GGUF, bare
  // weights) from the stored tensors' placements and shapes. nullopt when none is found: unknown, not 0.
  std::optional<uint64_t> lora_adapter_parameters;
  std::vector<std::string> assumptions;

  const Estimate* find(std::string_view name) const;
  // kv_cache_bytes is complete: the architecture is known, and so is the context when any layer grows per
  // token.
  bool kv_cache_total_known() const;  // in weights, inference or training; null if absent
};

// A practical default context: a long-context model (128k, 1M) is mostly served far below its maximum, and
// sizing the cache for the maximum would make every such model look like it needs a datacenter.
inline constexpr uint64_t kDefaultContext = 8192;

// `quant`: the report's quantization analysis, whose stored bytes (read, or predicted from the config) are
// the weights inference loads. `caps`: QLoRA is sized only for a checkpoint it can start from.
MemoryReport estimate_memory(const ReportInputs& in, const QuantizationInfo& quant, const Capabilities& caps);

}  // namespace ma
