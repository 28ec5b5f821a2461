#include "analysis/plan/offload.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>

#include "analysis/memory_math.h"
#include "core/units.h"

namespace ma {
namespace {

using memory::num;

// What the placement reads of the model, once per plan.
struct OffloadModel {
  const BudgetModel* m = nullptr;
  std::vector<uint64_t> kv;  // each layer's cache at the plan's batch and context
  uint64_t output = 0;       // the final norm and head, or llama.cpp's GPU copy of a tied embedding
  uint64_t buffer = 0;       // the compute buffer of each CUDA device
  // -ngl and --n-cpu-moe as the user gave them (clamped to the model: llama.cpp takes at most every slot and
  // every layer), held to by every placement; unset: chosen.
  std::optional<uint32_t> ngl, cpu_moe;
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
std::vector<OffloadDevice> place_on_gpus(const OffloadModel& om, const DeviceSpec& g, Placement p,
                                         std::span<const double> shares) {
  const uint32_t n = om.layers(), on_gpu = p.gpu_layers(), first = n - on_gpu;
  std::vector<OffloadDevice> out(g.count);
  for (size_t d = 0; d < g.count; ++d) {
    out[d].capacity = g.memory_of(d);
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

std::vector<double> memory_shares(const DeviceSpec& g) {
  std::vector<double> shares(g.count);
  for (size_t d = 0; d < g.count; ++d) shares[d] = static_cast<double>(g.memory_of(d));
  return shares;
}

bool every_gpu_holds(const std::vector<OffloadDevice>& devices) {
  return std::all_of(devices.begin(), devices.end(), [](const OffloadDevice& d) { return d.fits(); });
}

// The most the GPUs hold, each its own share (`holds`): every layer and the output, with the routed experts
// of the fewest first layers in CPU RAM (for a MoE model, attention and shared experts are worth more per
// byte on a GPU); then fewer layers (-ngl shrinks from the front). What the user gave is held to, whether
// or not it holds.
template <typename Holds>
Placement choose_placement(const OffloadModel& om, Holds&& holds) {
  const WeightLayout& w = om.m->weights;
  const uint32_t n = om.layers();
  Placement p{om.ngl.value_or(n + 1), om.cpu_moe.value_or(0)};
  const bool moe =
      std::any_of(w.layer_expert_bytes.begin(), w.layer_expert_bytes.end(), [](uint64_t b) { return b > 0; });
  if (moe && !om.cpu_moe)
    while (p.cpu_moe < n && !holds(p)) ++p.cpu_moe;
  if (!om.ngl)
    while (p.ngl > 0 && !holds(p)) --p.ngl;
  return p;
}

// What each GPU slot of placement p takes on its GPU, in llama.cpp's order: the GPU layers (weights less the
// experts kept in CPU RAM, and their cache), then the output.
std::vector<uint64_t> slot_bytes(const OffloadModel& om, Placement p) {
  std::vector<uint64_t> slots;
  const uint32_t n = om.layers();
  for (uint32_t l = n - p.gpu_layers(); l < n; ++l)
    slots.push_back(gpu_weights_of(om.m->weights, l, p) + om.kv[l]);
  if (p.ngl) slots.push_back(om.output);
  return slots;
}

// The slots packed onto the GPUs in order, each GPU taking slots while it keeps `slack` bytes free beside
// its compute buffer: each GPU's count, or nothing when slots are left over. Packing in order decides
// whether any split in order holds them: a GPU given fewer slots than it holds only leaves more for the
// next.
std::optional<std::vector<uint32_t>> pack_slots(const std::vector<uint64_t>& slots, const DeviceSpec& g,
                                                uint64_t buffer, uint64_t slack) {
  std::vector<uint32_t> counts(g.count, 0);
  size_t next = 0;
  for (size_t d = 0; d < g.count; ++d) {
    const uint64_t capacity = g.memory_of(d);
    if (capacity < buffer + slack) return std::nullopt;  // every CUDA device holds a compute buffer
    uint64_t room = capacity - buffer - slack;
    for (; next < slots.size() && slots[next] <= room; ++next, ++counts[d]) room -= slots[next];
  }
  if (next < slots.size()) return std::nullopt;
  return counts;
}

// A -ts of the plan's own: the placement that holds the most over every split in order (choose_placement's
// preference), its slots then packed with the most memory left free on the fullest GPU (the largest slack
// every GPU keeps, found by bisection), which leaves room for what an estimate misses. Nothing when no
// slot fits, or no split holds the placement the user gave.
struct SearchedSplit {
  Placement placement;
  std::vector<uint32_t> slots;  // per GPU: the -ts
};
std::optional<SearchedSplit> search_split(const OffloadModel& om, const DeviceSpec& g) {
  const Placement p = choose_placement(
      om, [&](Placement q) { return pack_slots(slot_bytes(om, q), g, om.buffer, 0).has_value(); });
  const std::vector<uint64_t> slots = slot_bytes(om, p);
  if (p.ngl == 0 || !pack_slots(slots, g, om.buffer, 0)) return std::nullopt;
  uint64_t lo = 0, hi = 0;
  for (size_t d = 0; d < g.count; ++d) hi = std::max(hi, g.memory_of(d));
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (pack_slots(slots, g, om.buffer, mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return SearchedSplit{p, *pack_slots(slots, g, om.buffer, lo)};
}

// Whether placement a holds more of the model on the GPUs than b: more layers, or as many with fewer
// layers' experts in CPU RAM.
bool holds_more(Placement a, Placement b) {
  return a.ngl != b.ngl ? a.ngl > b.ngl : a.cpu_moe < b.cpu_moe;
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

std::string offload_formula(const OffloadPlan& o, const OffloadInputs& in, const DecodeReads& r) {
  auto n = [](double b) { return num(static_cast<uint64_t>(b)); };
  return llama_cpp_offload_flags(o) + ": a decode step of batch " + num(in.batch) + " reads " +
         n(r.gpus.weights) + " bytes of weights + " + n(r.gpus.kv) +
         " of KV cache on the GPUs (each at its own bandwidth) and " + n(r.cpu.weights) + " + " +
         n(r.cpu.kv) + " on the CPU at " + num(static_cast<uint64_t>(in.cpu_gbps)) + " GB/s";
}

}  // namespace

std::string llama_cpp_offload_flags(const OffloadPlan& o) {
  std::string flags = "-ngl " + num(o.ngl);
  if (o.cpu_moe_layers) flags += " --n-cpu-moe " + num(o.cpu_moe_layers);
  for (size_t d = 0; d < o.tensor_split.size(); ++d)
    flags += (d ? "," : " -ts ") + exact_number(o.tensor_split[d]);
  return flags;
}

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
  if (in.knobs.n_gpu_layers) om.ngl = std::min(*in.knobs.n_gpu_layers, om.layers() + 1);
  if (in.knobs.n_cpu_moe) om.cpu_moe = std::min(*in.knobs.n_cpu_moe, om.layers());

  // The user's --tensor-split, held to; else llama.cpp's default split, then (over several GPUs) the best
  // -ts, kept where it holds more.
  OffloadPlan o;
  const std::vector<double>& given = in.knobs.tensor_split;
  o.tensor_split_given = given.size() == g.count;
  const std::vector<double> first_shares = o.tensor_split_given ? given : memory_shares(g);
  const Placement first_choice = choose_placement(
      om, [&](Placement q) { return every_gpu_holds(place_on_gpus(om, g, q, first_shares)); });
  Placement p = first_choice;
  if (o.tensor_split_given) o.tensor_split = given;
  // Placed once: the plan's devices, unless a -ts of the plan's own replaces them (then the default split's).
  std::vector<OffloadDevice> first_devices = place_on_gpus(om, g, first_choice, first_shares);
  // A placement the user gave may not hold under the default split where a -ts of the plan's own holds it.
  const bool default_holds = every_gpu_holds(first_devices);
  o.devices = std::move(first_devices);
  if (const std::optional<SearchedSplit> s =
          g.count > 1 && !o.tensor_split_given ? search_split(om, g) : std::nullopt;
      s && (!default_holds || holds_more(s->placement, first_choice))) {
    p = s->placement;
    o.tensor_split.assign(s->slots.begin(), s->slots.end());
    OffloadDefaultSplit& d = o.default_split.emplace();
    d.ngl = first_choice.ngl;
    d.cpu_moe_layers = first_choice.cpu_moe;
    d.devices = std::exchange(o.devices, place_on_gpus(om, g, p, o.tensor_split));
    d.gpus_fit = default_holds;
    const DecodeReads r = decode_reads(om, in, first_choice, d.devices);
    if (r.step_s) d.decode_tokens_per_s = static_cast<double>(in.batch) / *r.step_s;
  }
  o.ngl = p.ngl;
  o.gpu_layers = p.gpu_layers();
  o.cpu_moe_layers = p.cpu_moe;
  o.ngl_given = om.ngl.has_value();
  o.ngl_asked = in.knobs.n_gpu_layers;
  o.cpu_moe_given = om.cpu_moe.has_value();
  for (const OffloadDevice& d : o.devices) o.gpu_bytes += d.used();
  const CpuShare cpu = cpu_share(om, p);
  o.cpu_bytes = cpu.weights + cpu.kv;
  o.cpu_kv_bytes = cpu.kv;
  o.fits = every_gpu_holds(o.devices) && (!in.cpu_ram || o.cpu_bytes <= *in.cpu_ram);
  const DecodeReads r = decode_reads(om, in, p, o.devices);
  if (r.step_s) o.decode_tokens_per_s = static_cast<double>(in.batch) / *r.step_s;
  o.formula = offload_formula(o, in, r);
  return o;
}

}  // namespace ma
