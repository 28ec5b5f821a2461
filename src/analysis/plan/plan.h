// `modelanalyzer plan`: will the model fit these devices, split how, at what context and batch, in which
// precision, and how fast. Every split the model allows (tensor parallel dividing the heads, pipeline
// stages balanced by bytes, expert parallel dividing the experts) is sized per device by the engine's rule
// (device_budget.h) and, on a device from the hardware table, timed by the performance model; the largest
// context and batch that fit are searched; precisions are tried from the widest; when a CPU is given and
// the GPUs are not enough, llama.cpp-style offload (-ngl layers on the GPUs, --n-cpu-moe experts on the CPU,
// offload.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/memory_kv.h"
#include "analysis/model_report.h"
#include "analysis/perf/perf_model.h"
#include "analysis/plan/conversion.h"
#include "analysis/plan/device_budget.h"
#include "analysis/plan/device_spec.h"
#include "analysis/plan/offload.h"
#include "analysis/plan/plan_engine.h"
#include "model/inventory.h"

namespace ma {

// The weights' precision: as the checkpoint stores them, or every linear layer in one dtype (embeddings,
// norms and the rest 16-bit): bf16, fp8, int4 (g128 with an fp16 scale and zero point per group).
// FP32 (every parameter 4 bytes) only sizes perf's fp32 steps; plans offer the other four.
enum class WeightPrecision { Stored, BF16, FP8, INT4, FP32 };
std::string_view precision_name(WeightPrecision p);  // stored, bf16, fp8, int4, fp32
std::optional<WeightPrecision> precision_from_name(std::string_view name);

struct PlanRequest {
  DeviceSpec gpus;
  std::optional<uint64_t> cpu_ram;  // --cpu-ram: enables CPU offload
  std::optional<uint64_t> context;  // default: min(max context, 8,192)
  uint64_t batch = 1;               // sequences in flight (--batch / --concurrency)
  WeightPrecision precision = WeightPrecision::Stored;
  std::optional<DType> kv_dtype;  // default: the dtype the checkpoint declares for its cache, else 16-bit
  std::optional<DType> v_dtype;   // V in a type of its own (llama.cpp's -ctv); kv_dtype is then K's
  PlanEngine engine = PlanEngine::Transformers;
  EngineKnobs knobs;
  std::optional<uint32_t> tp, pp;  // --tp / --pp: only this split (tp x pp = the device count)
  bool time_splits = true;         // false: size only (a caller that needs no tokens/s)
  double cpu_gbps = 50;  // --cpu-bw: CPU memory bandwidth for offloaded layers (dual-channel DDR5 ~ 50-90)
};

struct SplitPlan {
  Split split;
  std::string invalid;  // why the model cannot be split so; empty: valid
  Budget budget;        // per device at the request's batch and context
  std::vector<uint32_t> stage_starts;
  std::optional<double> decode_tokens_per_s;   // batch / (pp x decode step), on a known device
  std::optional<double> prefill_tokens_per_s;  // one sequence of `context` tokens
  std::optional<double> decode_step_s;
};

// A searched boundary (the largest context at the request's batch, the largest batch at its context): the
// largest value that fits on any valid split, and that split; 0: none fits. Where every split still fits at
// the search's ceiling, memory does not bound it: `unbounded` says why and `value` is 0, not the ceiling.
struct PlanLimit {
  uint64_t value = 0;
  std::optional<Split> split;
  std::string unbounded;
};

struct PrecisionFit {
  WeightPrecision precision = WeightPrecision::Stored;
  uint64_t weights_bytes = 0;
  bool fits = false;
  std::optional<Split> split;  // the first split it fits with
};

// Per layer kind (LayerSpec::type()): what a GPU gains by holding it. Decode reads every dense weight each
// token but only top-k of the experts, so the bytes read per token per stored byte rank what belongs on the
// GPU first (seed 000's hybrid partition advice).
struct LayerKindAdvice {
  std::string kind;
  uint32_t layers = 0;
  uint64_t stored_bytes = 0;
  uint64_t read_per_token_bytes = 0;
  double read_fraction = 0;  // read_per_token / stored
};

struct Plan {
  std::string model_id;
  PlanRequest request;
  // Of request.gpus.count, the devices the splits use: all of them, unless no split of them all is valid
  // (devices_unused_reason says why), then the most that one holds.
  uint32_t devices_used = 0;
  std::string devices_unused_reason;
  uint64_t context = 0, max_model_context = 0, batch = 1;
  std::string kv_dtype;        // K's and V's, or K's where V has its own
  std::string v_dtype;         // V's where it differs from K's; empty otherwise
  uint64_t weights_bytes = 0;  // the whole model at the request's precision
  std::vector<SplitPlan> splits;
  std::optional<size_t> best;   // index of the recommended split
  std::optional<size_t> shown;  // the split the per-device figures are for: best, else the roomiest valid one
  bool fits = false;
  PlanLimit max_context;  // at the request's batch, over every valid split
  PlanLimit max_batch;    // at the request's context, over every valid split
  std::vector<PrecisionFit> precisions;
  std::optional<WeightPrecision> widest_fitting;  // the widest of bf16, fp8, int4 that fits
  std::optional<OffloadPlan> offload;
  std::vector<LayerKindAdvice> layer_kinds;
  ConversionPlan conversion;
  std::vector<std::string> assumptions;
};

// The dtype an engine holds activations and recurrent state in: the report's compute dtype, except that vLLM
// and SGLang run a float32 model in 16 bits (their dtype "auto" never keeps float32, too slow to serve).
DType engine_compute_dtype(const ModelReport& report, PlanEngine engine);
// How the engine keeps recurrent state (analysis/memory_kv.h): vLLM's and SGLang's Mamba cache and
// llama.cpp's recurrent memory hold the conv kernel less one column; llama.cpp both states in f32.
StateLayout engine_state_layout(PlanEngine engine);
// The KV cache dtype: the request's, else llama.cpp's f16, else the report's (the checkpoint's declared cache
// dtype, or the model's, which a 16-bit serving engine makes 16-bit too).
DType engine_kv_dtype(const ModelReport& report, PlanEngine engine, std::optional<DType> requested);

// Throws Error(Unsupported) without an architecture, Error(Usage) for impossible requests. Where no split of
// every device is valid, the plan is for the most devices a split holds (Plan::devices_used).
Plan make_plan(const Inventory& inv, const ModelReport& report, const PlanRequest& request);

// Bytes of each inventory tensor (index-aligned) with the weights in precision `p`: as stored, or the linear
// weights quantization recipes convert (is_quantizable_linear) in bf16, fp8 or int4 g128, the rest 16-bit.
std::vector<uint64_t> tensor_bytes_at(const Inventory& inv, const QuantizationInfo& q, WeightPrecision p);
// The same as `engine` holds them: vLLM and SGLang create every parameter in their compute dtype and copy the
// checkpoint into it, so a float weight stored wider (a float32 checkpoint's, float32 norms beside bf16
// matrices) takes that dtype's bytes; transformers and llama.cpp keep what is stored.
std::vector<uint64_t> engine_tensor_bytes(const Inventory& inv, const ModelReport& report, WeightPrecision p,
                                          PlanEngine engine);

// The performance model's inputs for weights in precision `p` and a `kv` cache on `hw`; as stored means as
// `engine` holds them (engine_tensor_bytes): quantized weights in their format, the others in its compute
// dtype.
PerfInputs precision_perf_inputs(const ModelReport& report, WeightPrecision p, DType kv, const Hardware& hw,
                                 PlanEngine engine);

}  // namespace ma
