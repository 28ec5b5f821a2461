// Seed 001's efficiency study as data: every operation of one step (prefill, decode or training) with its
// FLOPs (theory, on tensor cores, realizable at the modelled tensor-core efficiency), its bytes (weights,
// activations, KV cache, temporaries, network), arithmetic intensities, and times on one accelerator
// (compute, memory, network, estimate, regime); the step's totals, MFU and tokens/s. Built from the exact
// inventory (every weight matrix is a GEMM with its real shape) and the report's per-layer attention, MoE and
// KV-cache facts, so dense, GQA/MQA, MLA, sliding-window, MoE with shared experts, Mamba and hybrid models
// need no special cases beyond their layer kinds.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model_report.h"
#include "analysis/perf/hardware.h"
#include "model/inventory.h"

namespace ma {

enum class PerfMode { Prefill, Decode, Train };
std::string_view perf_mode_name(PerfMode m);

// Seed 001's execution knobs; `naive` and `efficient` are its two profiles.
struct ExecutionKnobs {
  std::string profile = "naive";
  double wrf_attention = 1, wrf_dense = 1, wrf_moe = 1;  // weight residency: streamed bytes = W / WRF
  double act_fusion = 1;                                 // multiplier on activation / intermediate bytes
  double elementwise = 1;        // multiplier on elementwise temporaries (norms, softmax, masks)
  bool flash_attention = false;  // false: S x S scores and probabilities go through HBM
  static ExecutionKnobs naive();
  static ExecutionKnobs efficient();  // WRF 4/4/2, fusion 0.5, elementwise 0.7, flash attention
};

struct Parallelism {
  uint32_t tp = 1, pp = 1, ep = 1;
  // Data-parallel attention (SGLang's --enable-dp-attention): each of the tp GPUs holds every attention
  // weight and runs attention for 1/tp of the sequences with their own cache; the MLPs and experts stay
  // split over the group, fed by an all-gather and returned by a reduce-scatter.
  bool dp_attention = false;
};

struct PerfInputs {
  PerfMode mode = PerfMode::Decode;
  uint64_t batch = 1;
  uint64_t seq = 255;     // prompt / training sequence length
  uint64_t kv_len = 255;  // decode: tokens already in the cache (seed default 255)
  ComputeDType weight_dtype = ComputeDType::BF16, act_dtype = ComputeDType::BF16,
               kv_dtype = ComputeDType::BF16;
  ExecutionKnobs knobs;
  Parallelism parallel;
  // Weights as the checkpoint stores them (perf's default for a quantized checkpoint; --dtype and
  // --weight-dtype set one dtype instead): bytes per inventory tensor, index-aligned with
  // Inventory::tensors, scales included. Empty: every weight at weight_dtype.
  std::vector<uint64_t> stored_bytes;
  std::string stored_label;  // what they are, e.g. "as stored: fp8 (modelopt), W8A8 fp8"
  // Whether the step replays a CUDA graph (the per-kernel cost under graphs) or launches its kernels one by
  // one (serving engines capture graphs for decode batches only; a prefill runs eagerly).
  bool cuda_graph = true;
};

// One operation (or the whole step, in PerfResult::total).
struct OpCost {
  std::string name;  // "layers.3.self_attn.q_proj", "layers.3.attention", "layers.3.moe.experts", ...
  std::string kind;  // gemm | attention | moe | ssm | elementwise | embedding | network
  std::optional<uint32_t> layer;
  double m_eff = 0;   // rows of the GEMM the tensor cores see (decode ~B, prefill ~B*S, MoE: per expert)
  double eta_tc = 1;  // min(1, M_eff / B_sat)
  double flops_theory = 0, flops_tensorcore = 0, flops_realizable = 0;
  double bytes_weights = 0, bytes_activations = 0, bytes_kv = 0, bytes_temporary = 0, bytes_net = 0;
  double kernels = 0;  // launches this op is modelled as (for the calibrated per-kernel overhead)
  double bytes_hbm() const { return bytes_weights + bytes_activations + bytes_kv + bytes_temporary; }
  double ai_weights_only() const { return bytes_weights > 0 ? flops_theory / bytes_weights : 0; }
  double ai_hbm() const { return bytes_hbm() > 0 ? flops_theory / bytes_hbm() : 0; }
  double ai_total() const {
    return bytes_hbm() + bytes_net > 0 ? flops_theory / (bytes_hbm() + bytes_net) : 0;
  }
  double t_comp = 0, t_hbm = 0, t_net = 0, t_est = 0;
  std::string regime;  // compute | memory | network
};

// Whether the step's memory fits its devices (weights, KV cache, activations, workspace per device), and what
// would when it does not. perf_model does not size memory: the caller fills it
// (analysis/plan/perf_capacity.h).
struct CapacityCheck {
  bool fits = true;
  // False for a profile that gives no memory size (a --hw file without hbm_gb): bytes_per_device is what
  // the step needs, and whether it fits is not judged (fits and capacity_bytes mean nothing).
  bool capacity_known = true;
  uint64_t bytes_per_device = 0, capacity_bytes = 0;
  std::string advice;  // e.g. "fits on 16 x h200 (TP 8 x PP 2), or in fp8 on these 8"
};

struct PerfResult {
  PerfInputs inputs;
  Hardware hardware;
  std::vector<OpCost> ops;     // per GPU, after tensor/pipeline/expert parallel splitting
  OpCost total;                // sums; t_* of the whole step (t_est includes the kernel overhead term)
  double tokens = 0;           // tokens processed in the step (decode: B; prefill/train: B*S)
  double overhead_s = 0;       // kernels x the profile's per-kernel overhead
  double tf_est = 0;           // F_theory / T_est / 1e12
  double tf_roofline_hbm = 0;  // min(P_peak, BW * AI_hbm) / 1e12
  double p_effective = 0;      // P_peak * F_theory / F_realizable, TFLOP/s
  double mfu_est = 0;          // F_theory / (P_peak * T_est)
  double tokens_per_s = 0;
  std::vector<std::string> assumptions;   // every modelling choice, in words
  std::optional<CapacityCheck> capacity;  // unset where not checked (training steps)
};

// False for an encoder-only model (BERT, a T5 encoder alone): it reads its input in one pass and has no
// token-by-token step, so decode is refused.
bool has_decode_step(const ModelReport& report);

// A device without bf16 tensor cores (Turing's T4, Volta's V100) runs a bf16 model in fp16, as serving
// engines cast it (vLLM below compute capability 8.0): the same bytes at the fp16 rate. The note saying so
// where `in` computes in bf16 on such a device (model_performance then computes in fp16), else nothing.
std::optional<std::string> bf16_as_fp16_note(const PerfInputs& in, const Hardware& hw);

// Throws Error(Unsupported) without an architecture template, Error(Usage) for impossible inputs (zero
// batch, tp not dividing the heads, a dtype the hardware lacks, bf16 apart: above).
PerfResult model_performance(const Inventory& inv, const ModelReport& report, const PerfInputs& in,
                             const Hardware& hw);

}  // namespace ma
