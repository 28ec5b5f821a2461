#include "analysis/plan/plan.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "analysis/memory_math.h"
#include "analysis/perf/parallelism.h"
#include "analysis/perf/perf_model.h"
#include "analysis/perf/stored_precision.h"
#include "core/error.h"
#include "core/units.h"

namespace ma {
namespace {

// How the devices' memory was taken: what CUDA reports where the hardware table has it measured, else the
// printed capacity (binary) or the size given, which CUDA shows 1-2% of short.
std::string capacity_assumption(const DeviceSpec& g) {
  std::string measured;
  const auto note = [&](const Hardware* h) {
    if (!h || !(h->cuda_total_gib > 0) || measured.find(h->name + ":") != std::string::npos) return;
    measured += (measured.empty() ? "" : ", ") + h->name + ": " + short_number(h->cuda_total_gib) +
                " of its " + short_number(h->hbm_gb) + " GiB";
  };
  if (g.mixed())
    for (const Hardware* h : g.kinds) note(h);
  else if (g.hardware)
    note(&*g.hardware);
  std::string text = "memory sizes are binary: GPU makers' GB are GiB (an 80 GB H100 has 80 GiB)";
  if (!measured.empty())
    return text + "; a device named from the hardware table holds what CUDA reports for it, measured (" +
           measured + "), the rest of its memory being the driver's";
  return text +
         "; CUDA reports 1-2% less than a device's printed size (the driver keeps the rest), not "
         "measured for these devices: the size is used as printed or given";
}

using memory::num;

constexpr uint64_t kMaxBatch = 1ull << 20;
constexpr uint64_t kUnboundedContext = 1ull << 24;  // the search's ceiling when the model names no maximum
constexpr std::array<WeightPrecision, 4> kPlanPrecisions{WeightPrecision::Stored, WeightPrecision::BF16,
                                                         WeightPrecision::FP8, WeightPrecision::INT4};

// The arithmetic a cache or a weight held in `d` runs in: 8-bit floats, fp32, else 16 bits.
ComputeDType compute_dtype_of(DType d) {
  if (dtype_bits(d) == 8) return ComputeDType::FP8;
  if (d == DType::F32) return ComputeDType::FP32;
  return ComputeDType::BF16;
}

// One decode step (batch sequences at KV length `context`) and one prefill of `context` tokens of the whole
// model on `hw` with the split's tensor and expert parallelism, `pp` pipeline stages; unset where the device
// cannot compute in the precision.
struct StepTimes {
  std::optional<double> decode_s, prefill_s;
};
StepTimes step_times(const Inventory& inv, const ModelReport& report, const PlanRequest& rq, DType kv,
                     uint64_t context, const Split& split, uint32_t pp, const Hardware& hw) {
  StepTimes t;
  PerfInputs in = precision_perf_inputs(report, rq.precision, kv, hw, rq.engine);
  in.parallel = {split.tp, pp, split.ep, false};
  try {
    if (has_decode_step(report)) {
      in.mode = PerfMode::Decode;
      in.batch = rq.batch;
      in.kv_len = context;
      t.decode_s = model_performance(inv, report, in, hw).total.t_est * pp;  // the stages run in turn
    }
    in.mode = PerfMode::Prefill;
    in.batch = 1;
    in.seq = context;
    t.prefill_s = model_performance(inv, report, in, hw).total.t_est * pp;
  } catch (const Error&) {
    // a precision the device cannot compute in: sized, not timed
  }
  return t;
}

// Devices that differ, all named: each stage takes its share (its weights and cache over all stages') of the
// whole model's step on its own device (a tensor-parallel group: its slowest), the stages one after another.
std::optional<StepTimes> mixed_step_times(const Inventory& inv, const ModelReport& report,
                                          const PlanRequest& rq, DType kv, uint64_t context,
                                          const SplitPlan& s) {
  const DeviceSpec& g = rq.gpus;
  double all = 0;
  for (const StageBudget& st : s.budget.stages) all += static_cast<double>(st.bytes.weights + st.bytes.kv);
  if (!(all > 0)) return std::nullopt;
  std::vector<std::pair<const Hardware*, StepTimes>> on;  // the whole model on each kind of device
  StepTimes sum{0.0, 0.0};
  for (size_t i = 0; i < s.budget.stages.size(); ++i) {
    const Hardware* hw = nullptr;
    for (size_t d = i * s.split.tp; d < (i + 1) * s.split.tp && d < g.kinds.size(); ++d)
      if (!hw || (g.kinds[d] && g.kinds[d]->hbm_gbps < hw->hbm_gbps)) hw = g.kinds[d];
    if (!hw) return std::nullopt;
    auto it = std::find_if(on.begin(), on.end(), [&](const auto& e) { return e.first == hw; });
    if (it == on.end()) {
      on.emplace_back(hw, step_times(inv, report, rq, kv, context, s.split, 1, *hw));
      it = on.end() - 1;
    }
    const DeviceBytes& b = s.budget.stages[i].bytes;
    const double share = static_cast<double>(b.weights + b.kv) / all;
    auto add = [&](std::optional<double>& total, const std::optional<double>& whole) {
      total = total && whole ? std::optional<double>(*total + *whole * share) : std::nullopt;
    };
    add(sum.decode_s, it->second.decode_s);
    add(sum.prefill_s, it->second.prefill_s);
  }
  return sum;
}

void time_split(const Inventory& inv, const ModelReport& report, const PlanRequest& rq, DType kv,
                uint64_t context, SplitPlan& s) {
  if (!rq.gpus.hardware) return;
  std::optional<StepTimes> t;
  if (rq.gpus.mixed()) t = mixed_step_times(inv, report, rq, kv, context, s);
  if (!t) t = step_times(inv, report, rq, kv, context, s.split, s.split.pp, *rq.gpus.hardware);
  if (t->decode_s) {
    s.decode_step_s = *t->decode_s;
    s.decode_tokens_per_s = static_cast<double>(rq.batch) / *t->decode_s;
  }
  if (t->prefill_s) s.prefill_tokens_per_s = static_cast<double>(context) / *t->prefill_s;
}

std::vector<SplitPlan> enumerate_splits(const ArchitectureRecord& arch, uint32_t devices) {
  std::vector<SplitPlan> out;
  uint64_t experts = 0;
  for (const LayerSpec& l : arch.layers()) experts = std::max(experts, l.ffn.experts);
  for (uint32_t tp = devices; tp >= 1; --tp) {
    if (devices % tp) continue;
    // Expert parallel over the tensor-parallel group is an alternative wherever the experts divide.
    std::vector<uint32_t> eps{1};
    if (tp > 1 && experts && experts % tp == 0) eps.push_back(tp);
    for (uint32_t ep : eps) {
      SplitPlan s;
      s.split = {tp, devices / tp, ep};
      try {
        check_parallelism(arch, {s.split.tp, s.split.pp, s.split.ep});
      } catch (const Error& e) {
        s.invalid = e.what();
      }
      out.push_back(s);
    }
  }
  return out;
}

// The splits of `devices` the engine can run: llama.cpp splits whole layers over its GPUs (-sm layer, its
// default; its row split is not modelled), so only pipeline splits unless --tp asks for another.
std::vector<SplitPlan> engine_splits(const ArchitectureRecord& arch, const PlanRequest& rq,
                                     uint32_t devices) {
  std::vector<SplitPlan> splits = enumerate_splits(arch, devices);
  if (rq.engine == PlanEngine::LlamaCpp && !rq.tp)
    std::erase_if(splits, [](const SplitPlan& s) { return s.split.tp > 1; });
  return splits;
}

bool any_valid(const std::vector<SplitPlan>& splits) {
  return std::any_of(splits.begin(), splits.end(), [](const SplitPlan& s) { return s.invalid.empty(); });
}

// The largest value in [lo, hi] for which `fits` holds (fits is monotone: true up to a point); lo - 1: none.
template <typename Fits>
uint64_t largest_fitting(uint64_t lo, uint64_t hi, Fits fits) {
  if (!fits(lo)) return lo - 1;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

std::vector<LayerKindAdvice> layer_kinds(const ArchitectureRecord& arch, const WeightLayout& w) {
  std::vector<LayerKindAdvice> out;
  const std::vector<LayerSpec>& layers = arch.layers();
  for (size_t i = 0; i < layers.size() && i < w.layer_bytes.size(); ++i) {
    const std::string kind = layers[i].type();
    auto it = std::find_if(out.begin(), out.end(), [&](const LayerKindAdvice& a) { return a.kind == kind; });
    if (it == out.end()) {
      out.push_back({kind, 0, 0, 0, 0});
      it = out.end() - 1;
    }
    const FfnShape& f = layers[i].ffn;
    const uint64_t experts = w.layer_expert_bytes[i];
    const uint64_t dense = w.layer_bytes[i] - experts;
    const uint64_t read =
        f.experts ? dense + experts / f.experts * std::min(f.top_k, f.experts) : w.layer_bytes[i];
    ++it->layers;
    it->stored_bytes += w.layer_bytes[i];
    it->read_per_token_bytes += read;
  }
  for (LayerKindAdvice& a : out)
    a.read_fraction = a.stored_bytes
                          ? static_cast<double>(a.read_per_token_bytes) / static_cast<double>(a.stored_bytes)
                          : 0;
  std::stable_sort(out.begin(), out.end(), [](const LayerKindAdvice& a, const LayerKindAdvice& b) {
    return a.read_fraction > b.read_fraction;
  });
  return out;
}

// llama.cpp's own inputs to its offload: its knobs, the plan's batch and context.
OffloadPlan offload_of(const BudgetModel& m, const PlanRequest& rq, uint64_t context) {
  OffloadInputs in;
  in.gpus = &rq.gpus;
  in.cpu_ram = rq.cpu_ram;
  in.cpu_gbps = rq.cpu_gbps;
  in.knobs = engine_defaults(PlanEngine::LlamaCpp, rq.knobs, rq.gpus.memory_bytes);
  in.batch = rq.batch;
  in.context = context;
  return plan_offload(m, in);
}

// Whether a sequence adds memory of its own: a KV cache per token or a state per sequence. An encoder's
// layers keep neither.
bool caches_per_sequence(const KvCachePlan& kv) {
  return std::any_of(kv.layers.begin(), kv.layers.end(), [](const KvLayer& l) {
    return l.bytes_per_token > 0 || l.state_bytes_per_sequence > 0;
  });
}

// Why a search reached its ceiling with every split still fitting: what (not) grows with it.
std::string unbounded_reason(const KvCachePlan& kv, PlanEngine engine, std::string_view what,
                             uint64_t ceiling) {
  if (!caches_per_sequence(kv))
    return "not bounded by memory: the model keeps no KV cache or state that grows with the " +
           std::string(what) + ", and " + std::string(engine_name(engine)) + "'s activations fit at " +
           with_thousands(ceiling) + " (the search's ceiling)";
  return "not bounded by memory below " + with_thousands(ceiling) + " (the search's ceiling)";
}

// The largest value in [1, ceiling] that fits on any valid split, and the split it is for (the first of
// those that tie, in the splits' order: widest tensor parallel first).
// A split only searches above the best so far: one budget says it cannot beat it (fits is monotone).
template <typename Fits>
PlanLimit search_limit(const std::vector<SplitPlan>& splits, uint64_t ceiling, Fits fits) {
  PlanLimit best;
  for (const SplitPlan& s : splits) {
    if (!s.invalid.empty() || best.value >= ceiling) continue;
    const uint64_t v = largest_fitting(best.value + 1, ceiling, [&](uint64_t x) { return fits(s.split, x); });
    if (v > best.value) {
      best.value = v;
      best.split = s.split;
    }
  }
  return best;
}

// llama.cpp splits whole layers over its GPUs (-sm layer, its default); its row split (-sm row) keeps the KV
// cache and compute buffer on the main GPU, which tensor-parallel sizing would halve: not modelled, refused.
void require_llama_cpp_layer_split(const PlanRequest& rq) {
  if (rq.engine == PlanEngine::LlamaCpp && rq.tp && *rq.tp > 1)
    throw Error(ErrorKind::Usage, "", "--tp",
                std::to_string(*rq.tp) +
                    " with --engine llama.cpp: its row split (-sm row) is not modelled; plan its layer split "
                    "(-sm layer, the default) with --pp " +
                    std::to_string(rq.gpus.count) + " or no --tp");
}

}  // namespace

std::vector<uint64_t> tensor_bytes_at(const Inventory& inv, const QuantizationInfo& q, WeightPrecision p) {
  if (p == WeightPrecision::Stored && q.tensor_bytes.size() == inv.tensors.size()) return q.tensor_bytes;
  std::vector<uint64_t> out;
  out.reserve(inv.tensors.size());
  for (const InventoryTensor& t : inv.tensors) {
    if (p == WeightPrecision::Stored || t.parameters == 0) {
      out.push_back(t.bytes);
      continue;
    }
    // The checkpoint's own scales go with its quantization; a converted model has the target's (int4's
    // below) or none.
    if (t.kind == TensorKind::QuantizationScale) {
      out.push_back(0);
      continue;
    }
    const uint64_t n = logical_parameters(t, q);  // a packed MXFP4 / GPTQ tensor converts all its weights
    if (p == WeightPrecision::FP32)
      out.push_back(n * 4);
    else if (!is_quantizable_linear(t))
      out.push_back(n * 2);
    else if (p == WeightPrecision::BF16)
      out.push_back(n * 2);
    else if (p == WeightPrecision::FP8)
      out.push_back(n);
    else  // int4, g128: half a byte per weight and 4 bytes (fp16 scale + zero point) per 128 weights
      out.push_back(memory::ceil_div(n, 2) + memory::ceil_div(n, 128) * 4);
  }
  return out;
}

std::vector<uint64_t> engine_tensor_bytes(const Inventory& inv, const ModelReport& report, WeightPrecision p,
                                          PlanEngine engine) {
  std::vector<uint64_t> out = tensor_bytes_at(inv, report.quantization, p);
  if (p != WeightPrecision::Stored || !is_serving_engine(engine)) return out;
  const DType compute = engine_compute_dtype(report, engine);
  for (size_t i = 0; i < inv.tensors.size() && i < out.size(); ++i) {
    const InventoryTensor& t = inv.tensors[i];
    if (t.kind == TensorKind::Parameter && t.dtype && dtype_info(*t.dtype).is_float &&
        dtype_bits(*t.dtype) > dtype_bits(compute))
      out[i] = dtype_bytes(t.parameters, compute);
  }
  return out;
}

DType engine_compute_dtype(const ModelReport& report, PlanEngine engine) {
  const DType compute = dtype_from_any_name(report.memory.compute_dtype).value_or(DType::BF16);
  return is_serving_engine(engine) && dtype_bits(compute) > 16 ? DType::BF16 : compute;
}

StateLayout engine_state_layout(PlanEngine engine) {
  switch (engine) {
    case PlanEngine::Transformers:
      return {};
    case PlanEngine::Vllm:
    case PlanEngine::Sglang:
    case PlanEngine::Tgi:
    case PlanEngine::TensorrtLlm:
      return {.conv_without_newest = true, .dtype = std::nullopt};
    case PlanEngine::LlamaCpp:
      return {.conv_without_newest = true, .dtype = DType::F32};
  }
  return {};
}

DType engine_kv_dtype(const ModelReport& report, PlanEngine engine, std::optional<DType> requested) {
  if (requested) return *requested;
  if (engine == PlanEngine::LlamaCpp) return DType::F16;
  const std::optional<DType> kv = dtype_from_any_name(report.memory.kv_cache_dtype);
  // The report's cache is in the model's dtype unless the checkpoint declares one: the engine's then.
  if (!kv || report.memory.kv_cache_dtype == report.memory.compute_dtype)
    return engine_compute_dtype(report, engine);
  return *kv;
}

PerfInputs precision_perf_inputs(const ModelReport& report, WeightPrecision p, DType kv, const Hardware& hw,
                                 PlanEngine engine) {
  PerfInputs in;
  in.kv_dtype = compute_dtype_of(kv);
  switch (p) {
    case WeightPrecision::Stored:
      // Unquantized weights are timed in the dtype the plan sizes them in (engine_tensor_bytes): GPT-J's fp32
      // checkpoint under transformers streams 22.5 GiB a token, not the 11.3 of bf16 (247 tok/s on an H100
      // would have read 6 TB/s).
      in.weight_dtype = in.act_dtype = compute_dtype_of(engine_compute_dtype(report, engine));
      use_stored_weights(in, report.quantization, std::nullopt, true, hw);
      break;
    case WeightPrecision::BF16:
      break;
    case WeightPrecision::FP32:
      in.weight_dtype = in.act_dtype = ComputeDType::FP32;
      break;
    case WeightPrecision::FP8:
      in.weight_dtype = ComputeDType::FP8;
      in.act_dtype = hw.peak(ComputeDType::FP8) > 0 ? ComputeDType::FP8 : ComputeDType::BF16;
      break;
    case WeightPrecision::INT4:  // W4A16: half a byte per weight streamed, 16-bit compute
      in.weight_dtype = ComputeDType::FP4;
      break;
  }
  return in;
}

std::string_view precision_name(WeightPrecision p) {
  static constexpr std::string_view kNames[] = {"stored", "bf16", "fp8", "int4", "fp32"};
  return kNames[static_cast<size_t>(p)];
}

std::optional<WeightPrecision> precision_from_name(std::string_view name) {
  for (WeightPrecision p : kPlanPrecisions)
    if (precision_name(p) == name) return p;
  return std::nullopt;
}

namespace {

// The plan on every device of rq.gpus (make_plan below chooses how many).
Plan plan_on_devices(const Inventory& inv, const ModelReport& report, const PlanRequest& rq) {
  Plan plan;
  plan.request = rq;
  plan.devices_used = rq.gpus.count;
  plan.batch = rq.batch;
  plan.max_model_context = inv.arch.max_position_embeddings;
  plan.context = rq.context.value_or(report.memory.context ? report.memory.context : kDefaultContext);
  // The cache dtype: the request's, else llama.cpp's own default (f16 K and V), else the report's (the
  // checkpoint's declared cache dtype or the model's).
  const DType kv = engine_kv_dtype(report, rq.engine, rq.kv_dtype);
  plan.kv_dtype = std::string(dtype_info(kv).short_name);
  const std::optional<DType> v = rq.v_dtype && *rq.v_dtype != kv ? rq.v_dtype : std::nullopt;
  if (v) plan.v_dtype = std::string(dtype_info(*v).short_name);
  const EngineKnobs knobs = engine_defaults(rq.engine, rq.knobs, rq.gpus.memory_bytes);
  plan.request.knobs = knobs;

  BudgetModel m;
  m.arch = &inv.arch;
  m.weights = weight_layout(inv, engine_tensor_bytes(inv, report, rq.precision, rq.engine));
  // Recurrent state and activations in the model's compute dtype, as the report has them (16-bit under a
  // serving engine; llama.cpp's recurrent state in f32), the state laid out as the engine keeps it; only K
  // and V in the cache dtype.
  const DType compute = engine_compute_dtype(report, rq.engine);
  m.kv = plan_kv_cache(inv.arch, kv, compute, plan.context, engine_state_layout(rq.engine), v);
  m.activation_bytes = dtype_bits(compute) / 8;
  m.ffn = widest_ffn(inv.arch);
  m.logits = logits_shape(inv);
  plan.weights_bytes = m.weights.total();
  const std::vector<uint64_t> memories =
      rq.gpus.mixed() ? rq.gpus.memories : std::vector<uint64_t>{rq.gpus.memory_bytes};
  auto budget = [&](const Split& s, uint64_t batch, uint64_t context) {
    return device_budget(m, s, batch, context, rq.engine, knobs, memories);
  };

  plan.splits = engine_splits(inv.arch, rq, rq.gpus.count);
  // --tp / --pp name the engine's own split: only those are sized and ranked.
  if (rq.tp || rq.pp) {
    std::erase_if(plan.splits, [&](const SplitPlan& s) {
      return (rq.tp && s.split.tp != *rq.tp) || (rq.pp && s.split.pp != *rq.pp);
    });
    if (plan.splits.empty())
      throw Error(ErrorKind::Usage, "", "--tp/--pp",
                  "no split of " + std::to_string(rq.gpus.count) + " devices has" +
                      (rq.tp ? " tp " + std::to_string(*rq.tp) : "") +
                      (rq.pp ? " pp " + std::to_string(*rq.pp) : "") +
                      ": tp x pp must equal the device count");
    // The split asked for cannot hold the model at all (heads, experts or layers do not divide): a usage
    // error naming why, as perf and serve give, not a plan that says the model does not fit.
    if (std::all_of(plan.splits.begin(), plan.splits.end(),
                    [](const SplitPlan& s) { return !s.invalid.empty(); }))
      throw Error(ErrorKind::Usage, "", "", plan.splits.front().invalid);  // it names --tp or --pp itself
  }
  for (SplitPlan& s : plan.splits) {
    if (!s.invalid.empty()) continue;
    s.budget = budget(s.split, rq.batch, plan.context);
    for (const StageBudget& st : s.budget.stages) s.stage_starts.push_back(st.first_layer);
    if (s.budget.fits && rq.time_splits) time_split(inv, report, rq, kv, plan.context, s);
  }
  // The fastest split that fits (decode, else prefill tokens/s); without timings the one with most room.
  auto speed = [](const SplitPlan& s) {
    return s.decode_tokens_per_s.value_or(s.prefill_tokens_per_s.value_or(0));
  };
  std::optional<size_t> roomiest;
  for (size_t i = 0; i < plan.splits.size(); ++i) {
    const SplitPlan& s = plan.splits[i];
    if (!s.invalid.empty()) continue;
    if (!roomiest ||
        s.budget.worst.used() - s.budget.worst.kv_spare <
            plan.splits[*roomiest].budget.worst.used() - plan.splits[*roomiest].budget.worst.kv_spare)
      roomiest = i;
    if (!s.budget.fits) continue;
    if (!plan.best || speed(s) > speed(plan.splits[*plan.best])) plan.best = i;
  }
  plan.fits = plan.best.has_value();
  plan.shown = plan.best ? plan.best : roomiest;
  // Over every valid split, not the recommended one alone: the fastest split is not the roomiest (MLA's
  // latent is whole on every TP rank, so PP halves DeepSeek-V3's cache per device), and a --batch past a
  // figure searched on one split would fit on another.
  const uint64_t context_ceiling = plan.max_model_context ? plan.max_model_context : kUnboundedContext;
  plan.max_context = search_limit(plan.splits, context_ceiling,
                                  [&](const Split& s, uint64_t c) { return budget(s, rq.batch, c).fits; });
  plan.max_batch = search_limit(plan.splits, kMaxBatch,
                                [&](const Split& s, uint64_t b) { return budget(s, b, plan.context).fits; });
  // A search that reaches its ceiling found no bound: the ceiling is not a result (the model's own maximum
  // context is).
  if (!plan.max_model_context && plan.max_context.value == kUnboundedContext)
    plan.max_context = {0, std::nullopt, unbounded_reason(m.kv, rq.engine, "context", kUnboundedContext)};
  if (plan.max_batch.value == kMaxBatch)
    plan.max_batch = {0, std::nullopt, unbounded_reason(m.kv, rq.engine, "batch", kMaxBatch)};

  for (WeightPrecision p : kPlanPrecisions) {
    BudgetModel pm = m;
    pm.weights = weight_layout(inv, engine_tensor_bytes(inv, report, p, rq.engine));
    PrecisionFit f;
    f.precision = p;
    f.weights_bytes = pm.weights.total();
    for (const SplitPlan& s : plan.splits)
      if (s.invalid.empty() &&
          device_budget(pm, s.split, rq.batch, plan.context, rq.engine, knobs, memories).fits) {
        f.fits = true;
        f.split = s.split;
        break;
      }
    plan.precisions.push_back(f);
  }
  // The widest of bf16, fp8 and int4 that fits and the engine runs ("stored" is the request's own answer:
  // `fits`): llama.cpp has no fp8 or int4 g128 type, so its advice is never to convert to one.
  for (const PrecisionFit& f : plan.precisions)
    if (f.fits && f.precision != WeightPrecision::Stored && !plan.widest_fitting &&
        engine_runs_precision(rq.engine, precision_name(f.precision)))
      plan.widest_fitting = f.precision;

  if (rq.cpu_ram || rq.engine == PlanEngine::LlamaCpp) plan.offload = offload_of(m, rq, plan.context);
  plan.layer_kinds = layer_kinds(inv.arch, m.weights);
  plan.conversion = plan_conversion(inv, report.quantization,
                                    tensor_bytes_at(inv, report.quantization, WeightPrecision::Stored));

  plan.assumptions = {
      capacity_assumption(rq.gpus),
      "tensor parallel splits every weight and the attention heads' KV cache over its GPUs (a GPU keeps at "
      "least "
      "one KV head; MLA's latent is kept whole on each); expert parallel runs inside the tensor-parallel "
      "group",
      "pipeline stages are contiguous layers balanced by weight bytes (llama.cpp's by its layer split); the "
      "first holds the embedding, the last the head; figures are the tightest stage's device (under a "
      "serving engine the one whose KV pool holds the fewest tokens: vLLM gives every stage that many "
      "blocks)",
      "decode tokens/s = batch / (pp x one decode step at KV length = context) from the performance model "
      "(no pipelining of microbatches); prefill tokens/s for one sequence of `context` tokens",
      "precisions: bf16, fp8 and int4 convert the linear layers only (int4: g128 with an fp16 scale and "
      "zero); "
      "`stored` is the checkpoint as stored or predicted from its quantization config, less what inference "
      "does not load (stored extras such as an MTP layer); vLLM and SGLang hold float weights stored wider "
      "than their compute dtype in it (a float32 checkpoint in bf16)",
  };
  if (rq.engine == PlanEngine::LlamaCpp)
    plan.assumptions.push_back(
        "llama.cpp: whole layers per GPU (-sm layer, its default; its row split is not modelled), layer i of "
        "n on the first GPU whose cumulative share of --tensor-split exceeds i / (n + 1), the output counted "
        "as layer n; the shares are --tensor-split's where given, by default the GPUs' free memory, taken "
        "here as each device's memory (give --gpu the free sizes when a display or another process holds "
        "some); the token embedding stays on the CPU");
  if (rq.gpus.mixed())
    plan.assumptions.push_back(
        "the devices differ: each pipeline stage is sized on its own device (a tensor-parallel group on its "
        "smallest)" +
        (rq.gpus.hardware
             ? std::string("; a pipeline stage takes its share (its weights and cache over all stages') of "
                           "the whole model's step on its own device, the stages one after another")
             : std::string("; not timed: a device is given by size alone")));
  if (rq.gpus.hardware)
    if (std::optional<std::string> cast = bf16_as_fp16_note(
            precision_perf_inputs(report, rq.precision, kv, *rq.gpus.hardware, rq.engine), *rq.gpus.hardware))
      plan.assumptions.push_back(std::move(*cast));
  if (plan.offload)
    plan.assumptions.push_back(
        "offload: llama.cpp keeps the token embedding on the CPU; -ngl N puts its last N slots on the GPUs, "
        "the output being the last (src/llama-model.cpp: i_gpu_start = n_layer + 1 - n_gpu_layers), split "
        "over the GPUs by the layer split above, each GPU holding its own share and a compute buffer; "
        "--n-cpu-moe K keeps the routed experts of layers 0 to K - 1 in CPU RAM, whichever GPU holds those "
        "layers; each layer's KV cache lives on its layer's device (the CPU for layers not offloaded); the "
        "CPU "
        "computes its own layers, so only activations cross PCIe (negligible per token); a decode step reads "
        "every dense weight, the experts its tokens pick (1 - (1 - top_k / experts)^batch of them) and every "
        "sequence's KV cache, on each GPU at its HBM bandwidth and on the CPU at --cpu-bw, one after "
        "another");
  return plan;
}

}  // namespace

Plan make_plan(const Inventory& inv, const ModelReport& report, const PlanRequest& rq) {
  if (!report.architecture_known || inv.arch.layers().empty())
    throw Error(ErrorKind::Unsupported, inv.source, "", "a plan needs a known architecture");
  if (rq.batch == 0) throw Error(ErrorKind::Usage, "", "--batch", "must be at least 1");
  require_llama_cpp_layer_split(rq);
  // More devices never make a model that fits fewer of them not fit: where no split of them all is valid
  // (a 6-layer model's heads and layers over 7 or 8 GPUs), the plan is for the most of them a split
  // holds, the others left to replicas (data parallel), which it does not size. Not under --tp / --pp,
  // which name their split, nor over devices that differ, whose order the stages follow.
  const std::vector<SplitPlan> all = engine_splits(inv.arch, rq, rq.gpus.count);
  if (rq.tp || rq.pp || rq.gpus.mixed() || any_valid(all)) return plan_on_devices(inv, report, rq);
  PlanRequest fewer = rq;
  while (fewer.gpus.count > 1 && !any_valid(engine_splits(inv.arch, rq, fewer.gpus.count)))
    --fewer.gpus.count;
  Plan plan = plan_on_devices(inv, report, fewer);
  plan.request.gpus = rq.gpus;  // as given: the plan names every device, and uses devices_used of them
  std::string why;
  for (const SplitPlan& s : all) why += (why.empty() ? "" : "; ") + split_name(s.split) + ": " + s.invalid;
  plan.devices_unused_reason =
      "no split of all " + std::to_string(rq.gpus.count) + " devices is valid (" + why + ")";
  plan.assumptions.push_back(plan.devices_unused_reason + ": the plan is for " +
                             std::to_string(fewer.gpus.count) + " of them; the other " +
                             std::to_string(rq.gpus.count - fewer.gpus.count) +
                             " can serve replicas of the model (data parallel), which it does not size");
  return plan;
}

}  // namespace ma
