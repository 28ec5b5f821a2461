#include "analysis/plan/offload.h"

#include <algorithm>
#include <cmath>

#include "analysis/memory_math.h"

namespace ma {
namespace {

using memory::num;

// What the placement reads of the model, once per plan.
struct OffloadModel {
  const BudgetModel* m = nullptr;
  std::vector<uint64_t> kv;  // each layer's cache at the plan's batch and context
  uint64_t output = 0;       // the final norm and head, or llama.cpp's GPU copy of a tied embedding
  uint64_t buffer = 0;       // the compute buffer of each CUDA device
  uint32_t layers() const { return static_cast<uint32_t>(m->weights.layer_bytes.size()); }
};

// -ngl and --n-cpu-moe. llama.cpp puts its last ngl slots on the GPUs, the output being the last slot: the
// output and the last ngl - 1 layers; 0: nothing.
struct Placement {
  uint32_t ngl = 0, cpu_moe = 0;
  uint32_t gpu_layers() const { return ngl ? ngl - 1 : 0; }
};

// Layer l's weights as they sit on its GPU: less its routed experts when --n-cpu-moe keeps them in CPU RAM.
uint64_t gpu_weights_of(const WeightLayout& w, uint32_t l, Placement p) {
  return w.layer_bytes[l] - (l < p.cpu_moe ? w.layer_expert_bytes[l] : 0);
}

// Each GPU's share: llama.cpp splits its GPU slots (the layers, then the output) by --tensor-split, by
// default each device's free memory (taken as its memory), with llama_cpp_layer_split's rule; each layer's
// cache goes with it.
std::vector<OffloadDevice> place_on_gpus(const OffloadModel& om, const DeviceSpec& g, Placement p) {
  const uint32_t n = om.layers(), on_gpu = p.gpu_layers(), first = n - on_gpu;
  std::vector<OffloadDevice> out(g.count);
  std::vector<uint64_t> shares(g.count);
  for (size_t d = 0; d < g.count; ++d) {
    shares[d] = out[d].capacity = g.memory_of(d);
    out[d].compute_buffer = om.buffer;
    out[d].first_layer = out[d].end_layer = n;
  }
  if (p.ngl == 0) return out;
  const LayerSplit split = llama_cpp_layer_split(on_gpu, shares);
  for (size_t d = 0; d < g.count; ++d) {
    OffloadDevice& dev = out[d];
    dev.first_layer = first + split.starts[d];
    dev.end_layer = first + (d + 1 < g.count ? split.starts[d + 1] : on_gpu);
    for (uint32_t l = dev.first_layer; l < dev.end_layer; ++l) {
      dev.weights += gpu_weights_of(om.m->weights, l, p);
      dev.kv += om.kv[l];
    }
  }
  out[split.output_device].output = true;
  out[split.output_device].weights += om.output;
  return out;
}

bool every_gpu_holds(const std::vector<OffloadDevice>& devices) {
  return std::all_of(devices.begin(), devices.end(), [](const OffloadDevice& d) { return d.fits(); });
}

// The most the GPUs hold, each its own share: every layer and the output, with the routed experts of the
// fewest first layers in CPU RAM (for a MoE model, attention and shared experts are worth more per byte on
// a GPU); then fewer layers (-ngl shrinks from the front).
Placement choose_placement(const OffloadModel& om, const DeviceSpec& g) {
  const WeightLayout& w = om.m->weights;
  const uint32_t n = om.layers();
  Placement p{n + 1, 0};
  const bool moe =
      std::any_of(w.layer_expert_bytes.begin(), w.layer_expert_bytes.end(), [](uint64_t b) { return b > 0; });
  if (moe)
    while (p.cpu_moe < n && !every_gpu_holds(place_on_gpus(om, g, p))) ++p.cpu_moe;
  while (p.ngl > 0 && !every_gpu_holds(place_on_gpus(om, g, p))) --p.ngl;
  return p;
}

// What stays in CPU RAM: the token embedding (llama.cpp keeps the input layer on the CPU), the layers below
// the GPU ones with their cache, the experts --n-cpu-moe keeps back, and the output when no GPU has it.
struct CpuShare {
  uint64_t weights = 0, kv = 0;
};
CpuShare cpu_share(const OffloadModel& om, Placement p) {
  const WeightLayout& w = om.m->weights;
  const uint32_t n = om.layers(), first = n - p.gpu_layers();
  CpuShare c{w.before_bytes + (p.ngl ? 0 : w.after_bytes), 0};  // a tied head's copy exists only on a GPU
  for (uint32_t l = 0; l < n; ++l) {
    if (l < first) {
      c.weights += w.layer_bytes[l];
      c.kv += om.kv[l];
    } else {
      c.weights += w.layer_bytes[l] - gpu_weights_of(w, l, p);
    }
  }
  return c;
}

// The share of a layer's routed experts a decode step reads: each token picks top_k of them, so a batch
// of b tokens reads 1 - (1 - k / E)^b of them (every one of the dense weights).
double expert_share(const LayerSpec& l, uint64_t batch) {
  if (!l.ffn.experts) return 1.0;
  const double picked =
      static_cast<double>(std::min(l.ffn.top_k, l.ffn.experts)) / static_cast<double>(l.ffn.experts);
  return 1.0 - std::pow(1.0 - picked, static_cast<double>(batch));
}

// Bytes one decode step reads on one side: weights (dense, the experts the batch picks, the output) and
// the cache of every sequence.
struct Reads {
  double weights = 0, kv = 0;
  double total() const { return weights + kv; }
};

// Layer l's reads, split between its GPU (if any) and the CPU (its experts under --n-cpu-moe, or all of it).
void read_layer(const OffloadModel& om, uint32_t l, bool on_gpu, Placement p, uint64_t batch, Reads& gpu,
                Reads& cpu) {
  const WeightLayout& w = om.m->weights;
  const double experts = static_cast<double>(w.layer_expert_bytes[l]);
  const double dense = static_cast<double>(w.layer_bytes[l]) - experts;
  const double picked = experts * expert_share(om.m->arch->layers()[l], batch);
  Reads& side = on_gpu ? gpu : cpu;
  side.weights += dense;
  side.kv += static_cast<double>(om.kv[l]);
  (on_gpu && l >= p.cpu_moe ? gpu : cpu).weights += picked;
}

// The memory bandwidth of GPU d, bytes/s; 0: not known (a device given by its size).
double gpu_bytes_per_s(const DeviceSpec& g, size_t d) {
  const Hardware* hw = g.mixed() ? g.kinds[d] : (g.hardware ? &*g.hardware : nullptr);
  return hw ? hw->hbm_gbps * 1e9 : 0;
}

// A decode step: each GPU reads its share at its own bandwidth and the CPU its own at --cpu-bw, one after
// another (llama.cpp's layer split runs the layers in turn); batch tokens a step.
struct DecodeReads {
  Reads gpus, cpu;
  std::optional<double> step_s;
};
DecodeReads decode_reads(const OffloadModel& om, const OffloadInputs& in, Placement p,
                         const std::vector<OffloadDevice>& devices) {
  DecodeReads r;
  double step = 0;
  bool timed = true;
  for (uint32_t l = 0; l < om.layers() - p.gpu_layers(); ++l)
    read_layer(om, l, false, p, in.batch, r.gpus, r.cpu);
  for (size_t d = 0; d < devices.size(); ++d) {
    Reads here;
    for (uint32_t l = devices[d].first_layer; l < devices[d].end_layer; ++l)
      read_layer(om, l, true, p, in.batch, here, r.cpu);
    if (devices[d].output) here.weights += static_cast<double>(om.output);
    const double bw = gpu_bytes_per_s(*in.gpus, d);
    if (here.total() > 0 && bw <= 0) timed = false;
    if (bw > 0) step += here.total() / bw;
    r.gpus.weights += here.weights;
    r.gpus.kv += here.kv;
  }
  if (p.ngl == 0) r.cpu.weights += static_cast<double>(om.output);
  step += r.cpu.total() / (in.cpu_gbps * 1e9);
  if (timed && step > 0) r.step_s = step;
  return r;
}

std::string offload_formula(Placement p, const OffloadInputs& in, const DecodeReads& r) {
  auto n = [](double b) { return num(static_cast<uint64_t>(b)); };
  return "-ngl " + num(p.ngl) + (p.cpu_moe ? " --n-cpu-moe " + num(p.cpu_moe) : "") +
         ": a decode step of batch " + num(in.batch) + " reads " + n(r.gpus.weights) +
         " bytes of weights + " + n(r.gpus.kv) + " of KV cache on the GPUs (each at its own bandwidth) and " +
         n(r.cpu.weights) + " + " + n(r.cpu.kv) + " on the CPU at " +
         num(static_cast<uint64_t>(in.cpu_gbps)) + " GB/s";
}

}  // namespace

OffloadPlan plan_offload(const BudgetModel& m, const OffloadInputs& in) {
  const DeviceSpec& g = *in.gpus;
  OffloadModel om;
  om.m = &m;
  om.kv = layer_cache_bytes(m, in.batch, in.context, PlanEngine::LlamaCpp, in.knobs);
  om.output = m.weights.after_bytes + m.weights.tied_head_bytes;
  // One llama.cpp budget at the plan's batch and context gives the compute buffer (whose attention mask
  // grows with the context); llama.cpp logs one per CUDA device.
  om.buffer = device_budget(m, {}, in.batch, in.context, PlanEngine::LlamaCpp, in.knobs, g.memory_bytes)
                  .worst.activations;

  const Placement p = choose_placement(om, g);
  OffloadPlan o;
  o.ngl = p.ngl;
  o.gpu_layers = p.gpu_layers();
  o.cpu_moe_layers = p.cpu_moe;
  o.devices = place_on_gpus(om, g, p);
  for (const OffloadDevice& d : o.devices) o.gpu_bytes += d.used();
  const CpuShare cpu = cpu_share(om, p);
  o.cpu_bytes = cpu.weights + cpu.kv;
  o.cpu_kv_bytes = cpu.kv;
  o.fits = every_gpu_holds(o.devices) && (!in.cpu_ram || o.cpu_bytes <= *in.cpu_ram);
  const DecodeReads r = decode_reads(om, in, p, o.devices);
  if (r.step_s) o.decode_tokens_per_s = static_cast<double>(in.batch) / *r.step_s;
  o.formula = offload_formula(p, in, r);
  return o;
}

}  // namespace ma
