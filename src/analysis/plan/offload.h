// llama.cpp's CPU offload (seed 000's hybrid partition): which layers go to the GPUs (-ngl), whose routed
// experts stay in CPU RAM (--n-cpu-moe), which GPU holds each offloaded layer (llama.cpp's own layer split,
// llama_cpp_layer_split), where each layer's KV cache lives (on its layer's device: a GPU, or the CPU for the
// layers left there), and the decode rate from the bytes each device and the CPU read per step, each at its
// own bandwidth. Every GPU must hold its own share: their memories are never pooled.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/plan/device_budget.h"
#include "analysis/plan/device_spec.h"

namespace ma {

// One GPU of an offload plan: the layers llama.cpp's split gives it, less the routed experts --n-cpu-moe
// keeps in CPU RAM, their KV cache, and the compute buffer every CUDA device holds.
struct OffloadDevice {
  uint32_t first_layer = 0, end_layer = 0;  // [first, end) of the language stack; equal: no layer
  bool output = false;                      // holds the output (final norm and head)
  uint64_t capacity = 0;
  uint64_t weights = 0, kv = 0, compute_buffer = 0;
  uint64_t used() const { return weights + kv + compute_buffer; }
  bool fits() const { return used() <= capacity; }
};

// What llama.cpp's default split (each GPU's memory for its share) needs where a -ts of the plan's own holds
// more: its -ngl, --n-cpu-moe, each GPU's share and decode rate.
struct OffloadDefaultSplit {
  uint32_t ngl = 0, cpu_moe_layers = 0;
  std::vector<OffloadDevice> devices;
  bool gpus_fit = false;
  std::optional<double> decode_tokens_per_s;
};

struct OffloadPlan {
  uint32_t gpu_layers = 0;  // layers of the stack on the GPUs: the last ones
  // llama.cpp's -ngl for that: it counts the output as a layer (src/llama-model.cpp: i_gpu_start =
  // n_layer + 1 - n_gpu_layers), so gpu_layers + 1 with the output on a GPU, 0 with nothing there.
  uint32_t ngl = 0;
  uint32_t cpu_moe_layers = 0;  // --n-cpu-moe: the routed experts of the first layers in CPU RAM
  bool ngl_given = false, cpu_moe_given = false;  // as the user gave them (else chosen)
  // The -ngl the user typed, which may pass the model's slots (-ngl 999: every one, which ngl then is).
  std::optional<uint32_t> ngl_asked;
  std::vector<OffloadDevice> devices;  // every GPU, in order
  // -ts: the user's --tensor-split (tensor_split_given), held to; else each GPU's slots (its layers, and the
  // output on the last GPU given any) where a split of the plan's own holds more than llama.cpp's default one
  // (more layers, or fewer --n-cpu-moe); empty: the default split, and no default_split.
  std::vector<double> tensor_split;
  bool tensor_split_given = false;
  std::optional<OffloadDefaultSplit> default_split;
  uint64_t gpu_bytes = 0;     // over every GPU
  uint64_t cpu_bytes = 0;     // weights and KV cache in CPU RAM
  uint64_t cpu_kv_bytes = 0;  // of which the KV cache of the layers left on the CPU
  bool fits = false;          // every GPU holds its share, and the CPU RAM (when given) the rest
  std::optional<double> decode_tokens_per_s;
  std::string formula;
};

struct OffloadInputs {
  const DeviceSpec* gpus = nullptr;
  std::optional<uint64_t> cpu_ram;  // unset: the CPU side is not checked
  double cpu_gbps = 50;
  EngineKnobs knobs;  // llama.cpp's, defaults filled (n_ubatch)
  uint64_t batch = 1, context = 0;
};

// The most of the model the GPUs hold: every layer and the output with the fewest --n-cpu-moe layers (MoE
// models: attention and shared experts stay fast), else the largest -ngl; `fits` says whether even that
// fits. -ngl and --n-cpu-moe the user gave (in.knobs) are held to, the other chosen around them, and `fits`
// says whether they hold. Under the user's --tensor-split (in.knobs, one share per GPU) that split; else,
// over several GPUs, llama.cpp's default split and the best -ts are both tried, and the split that holds
// more is the plan.
OffloadPlan plan_offload(const BudgetModel& m, const OffloadInputs& in);

// The plan as llama.cpp's flags: "-ngl 95 --n-cpu-moe 60 -ts 31,64".
std::string llama_cpp_offload_flags(const OffloadPlan& o);

}  // namespace ma
