// What one device of a split holds: weights of its pipeline stage split over the tensor-parallel group,
// the KV cache (or state) of its layers for batch x context, activations, the engine's own overhead and the
// headroom it leaves, as the chosen engine sizes them (plan_engine.h); and the engine's own view (vLLM's KV
// pool in tokens and the concurrency it allows).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "analysis/memory.h"
#include "analysis/memory_kv.h"
#include "analysis/plan/plan_engine.h"
#include "model/inventory.h"

namespace ma {

// The weights as a plan places them: per layer of the language stack, and what sits before (embedding,
// vision tower, encoder) and after it (final norm, LM head).
struct WeightLayout {
  std::vector<uint64_t> layer_bytes;         // every tensor of layer i, its routed experts included
  std::vector<uint64_t> layer_expert_bytes;  // of which routed experts
  uint64_t before_bytes = 0, after_bytes = 0;
  // A head tied to the embedding (stored once): a last pipeline stage apart from the first, and llama.cpp's
  // output on the GPU, hold a copy of the embedding to compute the logits with.
  uint64_t tied_head_bytes = 0;
  uint64_t total() const;  // as loaded: neither stored extras (weight_layout) nor the tied copy
};

// `tensor_bytes`: index-aligned with inv.tensors (the quantization analysis' stored bytes, or a precision's).
WeightLayout weight_layout(const Inventory& inv, const std::vector<uint64_t>& tensor_bytes);

// The model facts a budget needs, computed once per plan.
struct BudgetModel {
  const ArchitectureRecord* arch = nullptr;
  WeightLayout weights;
  KvCachePlan kv;                 // at the plan's KV dtype
  FfnWidth ffn;                   // widest per-token FFN intermediates
  LogitsShape logits;             // what the head materialises (transformers: the report's activations)
  uint64_t activation_bytes = 2;  // per element: the model's compute dtype
};

struct Split {
  uint32_t tp = 1, pp = 1, ep = 1;
  uint32_t devices() const { return tp * pp; }  // expert parallel runs inside the tensor-parallel group
};
std::string split_name(const Split& s);  // "TP 8 x PP 1, EP 8"

// What a serving worker holds before it loads the model: the CUDA context, and with tensor parallel the
// communicators made at start-up (SGLang takes its total after these).
uint64_t worker_startup_bytes(uint32_t tp);

// One device's bytes by kind; `capacity` is the whole device.
struct DeviceBytes {
  uint64_t capacity = 0;
  uint64_t weights = 0, kv = 0, activations = 0, overhead = 0;
  uint64_t reserved = 0;  // headroom the engine leaves by its own rule (vLLM's 1 - gpu_memory_utilization)
  uint64_t kv_spare = 0;  // KV pool an engine preallocates beyond what batch x context needs (vLLM, SGLang)
  uint64_t used() const { return weights + kv + activations + overhead + reserved + kv_spare; }
  bool fits() const { return used() <= capacity; }
};

// The engine's view of its memory, per device (JSON "engine"): what vLLM's log prints.
struct EngineView {
  uint64_t kv_cache_bytes = 0;  // the KV pool it allocates (transformers, llama.cpp: the demand)
  // Tokens the pool holds as the engine logs them, every attention layer counted whole (vLLM: whole blocks);
  // transformers and llama.cpp: batch x context (cells).
  uint64_t kv_cache_tokens = 0;
  uint64_t weights_bytes = 0, activation_peak_bytes = 0, non_kv_bytes = 0;
  // Sequences of the context the pool serves: pool bytes / one sequence's (sliding windows capped, recurrent
  // state included).
  double max_concurrency = 0;
  std::vector<std::string> formulas;
};

struct StageBudget {
  uint32_t first_layer = 0, end_layer = 0;  // [first, end) of the language stack
  DeviceBytes bytes;
};

struct Budget {
  Split split;
  std::vector<StageBudget> stages;  // one per pipeline stage; every device of a stage holds the same
  // The tightest stage's device: a serving engine's smallest pool in tokens (vLLM sizes one pool for all
  // stages by it), else the least room left.
  DeviceBytes worst;
  EngineView engine;  // of that stage
  bool fits = false;
};

// Stage boundaries for `pp` stages balancing the weight bytes (the largest stage as small as it can be);
// returns each stage's first layer.
std::vector<uint32_t> balance_stages(const WeightLayout& w, uint32_t pp);

// llama.cpp's layer split (-sm layer, its default): layer i of `layers` goes to the first device whose
// cumulative share of --tensor-split (default: each device's free memory) exceeds i / (layers + 1), the
// output counted as layer `layers`, in float as llama.cpp computes it (each share taken as a float, as it
// holds its --tensor-split and each device's free bytes). Returns each device's first layer (a device with a
// small share may get none: its first is the next one's) and the output's device.
struct LayerSplit {
  std::vector<uint32_t> starts;
  size_t output_device = 0;
};
LayerSplit llama_cpp_layer_split(uint32_t layers, std::span<const double> shares);

// The KV cache (or recurrent state) each layer of the language stack holds for batch x context on one
// device, as `engine` caches it (llama.cpp: whole cells, a sliding window plus a ubatch): llama.cpp keeps a
// layer's cache on that layer's device, a GPU or the CPU.
std::vector<uint64_t> layer_cache_bytes(const BudgetModel& m, uint64_t batch, uint64_t context,
                                        PlanEngine engine, const EngineKnobs& knobs);

// `device_bytes`: each device's memory in order (stage s's tensor-parallel group is devices s x tp to
// s x tp + tp - 1, sized on its smallest), or one figure for every device. Stages are balanced by weight
// bytes, under llama.cpp by its layer split with each stage's memory as its share; llama.cpp keeps the
// token embedding on the CPU, so no stage holds it there.
Budget device_budget(const BudgetModel& m, Split split, uint64_t batch, uint64_t context, PlanEngine engine,
                     const EngineKnobs& knobs, std::span<const uint64_t> device_bytes);
Budget device_budget(const BudgetModel& m, Split split, uint64_t batch, uint64_t context, PlanEngine engine,
                     const EngineKnobs& knobs, uint64_t device_bytes);

}  // namespace ma
