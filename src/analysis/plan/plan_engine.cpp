#include "analysis/plan/plan_engine.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace ma {
namespace {

// A K/V cache type in the engine's own spelling, and the dtype the plan sizes it in.
struct CacheType {
  std::string_view name;
  DType dtype;
};

// vLLM's --kv-cache-dtype (CacheConfig.cache_dtype: auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2; auto keeps a
// float16 model's cache in fp16).
constexpr CacheType kVllmCache[] = {{"bf16", DType::BF16},
                                    {"fp16", DType::F16},
                                    {"fp8", DType::F8_E4M3},
                                    {"fp8_e4m3", DType::F8_E4M3},
                                    {"fp8_e5m2", DType::F8_E5M2}};
// SGLang's --kv-cache-dtype (server_args.py: auto, bf16 / bfloat16, fp8_e4m3, fp8_e5m2; its fp4_e2m1, an
// MXFP4 cache with block scales, is not sized here).
constexpr CacheType kSglangCache[] = {
    {"bf16", DType::BF16}, {"fp8_e4m3", DType::F8_E4M3}, {"fp8_e5m2", DType::F8_E5M2}};
// llama.cpp's -ctk / -ctv (common/arg.cpp kv_cache_types): anything else it refuses.
constexpr CacheType kLlamaCppCache[] = {
    {"f32", DType::F32},       {"f16", DType::F16},   {"bf16", DType::BF16},
    {"q8_0", DType::Q8_0},     {"q4_0", DType::Q4_0}, {"q4_1", DType::Q4_1},
    {"iq4_nl", DType::IQ4_NL}, {"q5_0", DType::Q5_0}, {"q5_1", DType::Q5_1}};
// TGI's --kv-cache-dtype (launcher: fp8_e4m3fn, fp8_e5m2); without it the cache is in the model's --dtype
// (float16, bfloat16).
constexpr CacheType kTgiCache[] = {
    {"f16", DType::F16}, {"bf16", DType::BF16}, {"fp8_e4m3fn", DType::F8_E4M3}, {"fp8_e5m2", DType::F8_E5M2}};
// TensorRT-LLM's kv_cache_config.dtype (PyTorch backend): auto (the checkpoint's 16 bits) or fp8 (E4M3).
constexpr CacheType kTrtllmCache[] = {{"f16", DType::F16}, {"bf16", DType::BF16}, {"fp8", DType::F8_E4M3}};
// transformers' caches hold K and V in the dtype the model runs in (its torch_dtype).
constexpr CacheType kTransformersCache[] = {{"f32", DType::F32}, {"f16", DType::F16}, {"bf16", DType::BF16}};

// plan's --dtype names: every engine runs the checkpoint as stored and in bf16; the serving engines and
// transformers also quantize online or load quantized checkpoints in fp8 and int4 (W4A16).
constexpr std::string_view kAllPrecisions[] = {"stored", "bf16", "fp8", "int4"};
constexpr std::string_view kGgufPrecisions[] = {"stored", "bf16"};

// One row per engine: its name and what its own flags accept.
struct EngineRow {
  PlanEngine engine;
  std::string_view name;
  std::span<const CacheType> cache_types;
  std::span<const std::string_view> precisions;
};
constexpr std::array<EngineRow, 6> kEngines{{
    {PlanEngine::Transformers, "transformers", kTransformersCache, kAllPrecisions},
    {PlanEngine::Vllm, "vllm", kVllmCache, kAllPrecisions},
    {PlanEngine::Sglang, "sglang", kSglangCache, kAllPrecisions},
    {PlanEngine::LlamaCpp, "llama.cpp", kLlamaCppCache, kGgufPrecisions},
    {PlanEngine::Tgi, "tgi", kTgiCache, kAllPrecisions},
    {PlanEngine::TensorrtLlm, "tensorrt-llm", kTrtllmCache, kAllPrecisions},
}};

const EngineRow& row_of(PlanEngine e) {
  for (const EngineRow& r : kEngines)
    if (r.engine == e) return r;
  return kEngines.front();
}

constexpr uint32_t bit(PlanEngine e) {
  return 1u << static_cast<unsigned>(e);
}

// Which engines read each knob (engine_defaults below): a knob given to another engine changes nothing.
// `offload`: llama.cpp's CPU offload plan (analysis/plan/offload.h), which --cpu-ram asks for under any
// engine, reads it too.
struct KnobOwners {
  std::string_view knob;
  bool (*given)(const EngineKnobs&);
  uint32_t engines;
  bool offload = false;
};
const KnobOwners kKnobOwners[] = {
    {"gpu_memory_utilization", [](const EngineKnobs& k) { return k.gpu_memory_utilization.has_value(); },
     bit(PlanEngine::Vllm)},
    {"max_num_batched_tokens", [](const EngineKnobs& k) { return k.max_num_batched_tokens.has_value(); },
     bit(PlanEngine::Vllm)},
    {"max_num_seqs", [](const EngineKnobs& k) { return k.max_num_seqs.has_value(); }, bit(PlanEngine::Vllm)},
    {"block_size", [](const EngineKnobs& k) { return k.block_size.has_value(); },
     bit(PlanEngine::Vllm) | bit(PlanEngine::Tgi) | bit(PlanEngine::TensorrtLlm)},
    {"mem_fraction_static", [](const EngineKnobs& k) { return k.mem_fraction_static.has_value(); },
     bit(PlanEngine::Sglang)},
    {"ubatch_size", [](const EngineKnobs& k) { return k.ubatch.has_value(); }, bit(PlanEngine::LlamaCpp),
     true},
    {"cuda_memory_fraction", [](const EngineKnobs& k) { return k.cuda_memory_fraction.has_value(); },
     bit(PlanEngine::Tgi)},
    {"max_batch_prefill_tokens", [](const EngineKnobs& k) { return k.max_batch_prefill_tokens.has_value(); },
     bit(PlanEngine::Tgi)},
    {"free_gpu_memory_fraction", [](const EngineKnobs& k) { return k.free_gpu_memory_fraction.has_value(); },
     bit(PlanEngine::TensorrtLlm)},
    {"max_num_tokens", [](const EngineKnobs& k) { return k.max_num_tokens.has_value(); },
     bit(PlanEngine::TensorrtLlm)},
    {"kv_cache_max_tokens", [](const EngineKnobs& k) { return k.kv_cache_max_tokens.has_value(); },
     bit(PlanEngine::TensorrtLlm)},
    {"tensor_split", [](const EngineKnobs& k) { return !k.tensor_split.empty(); }, bit(PlanEngine::LlamaCpp),
     true},
    {"n_gpu_layers", [](const EngineKnobs& k) { return k.n_gpu_layers.has_value(); },
     bit(PlanEngine::LlamaCpp), true},
    {"n_cpu_moe", [](const EngineKnobs& k) { return k.n_cpu_moe.has_value(); }, bit(PlanEngine::LlamaCpp),
     true},
};

// vLLM's EngineArgs raise max_num_batched_tokens and max_num_seqs for `vllm serve` on devices with at least
// 70 GiB (8192 and 1024; the logs in ../shared/data/engines show both on H100 80 GB), and keep 2048 and 256
// below that.
constexpr uint64_t kVllmLargeDevice = 70ull << 30;

}  // namespace

std::string_view engine_name(PlanEngine e) {
  return row_of(e).name;
}

std::optional<PlanEngine> engine_from_name(std::string_view name) {
  for (const EngineRow& r : kEngines)
    if (r.name == name) return r.engine;
  if (name == "llamacpp" || name == "llama-cpp") return PlanEngine::LlamaCpp;
  if (name == "text-generation-inference") return PlanEngine::Tgi;
  if (name == "trtllm" || name == "trt-llm") return PlanEngine::TensorrtLlm;
  return std::nullopt;
}

bool is_serving_engine(PlanEngine e) {
  return e == PlanEngine::Vllm || e == PlanEngine::Sglang || e == PlanEngine::Tgi ||
         e == PlanEngine::TensorrtLlm;
}

EngineKnobs engine_defaults(PlanEngine e, const EngineKnobs& given, uint64_t device_bytes) {
  EngineKnobs k = given;
  const bool large = device_bytes >= kVllmLargeDevice;
  if (e == PlanEngine::Vllm) {
    if (!k.gpu_memory_utilization) k.gpu_memory_utilization = 0.9;
    if (!k.max_num_batched_tokens) k.max_num_batched_tokens = large ? 8192 : 2048;
    if (!k.max_num_seqs) k.max_num_seqs = large ? 1024 : 256;
    if (!k.block_size) k.block_size = 16;
  }
  if (e == PlanEngine::LlamaCpp && !k.ubatch) k.ubatch = 512;
  if (e == PlanEngine::Tgi) {
    if (!k.cuda_memory_fraction) k.cuda_memory_fraction = 1.0;
    // TGI 3 derives its default from the GPU's FLOPs when nvidia-smi names a card it knows, else 4096.
    if (!k.max_batch_prefill_tokens) k.max_batch_prefill_tokens = 4096;
    if (!k.block_size) k.block_size = 1;  // its default flashinfer backend; flashdecoding 256, paged 16
  }
  if (e == PlanEngine::TensorrtLlm) {
    if (!k.free_gpu_memory_fraction) k.free_gpu_memory_fraction = 0.9;
    if (!k.max_num_tokens) k.max_num_tokens = 8192;
    if (!k.block_size) k.block_size = 32;
  }
  return k;
}

SglangFraction sglang_default_fraction(uint64_t device_bytes, uint32_t tp, uint32_t pp) {
  SglangFraction f;
  f.memory_mib = device_bytes >> 20;
  const bool small_tp = tp < 4;
  if (f.memory_mib < 20 * 1024) {  // T4, RTX 4080
    f.chunked_prefill = 2048;
    f.cuda_graph_max_bs = 8;
  } else if (f.memory_mib < 35 * 1024) {  // A10, RTX 4090, RTX 5090
    f.chunked_prefill = 2048;
    f.cuda_graph_max_bs = small_tp ? 24 : 80;
  } else if (f.memory_mib < 60 * 1024) {  // A100 40GB, L40
    f.chunked_prefill = 4096;
    f.cuda_graph_max_bs = small_tp ? 32 : 160;
  } else if (f.memory_mib < 160 * 1024) {  // H100, A100 80GB, H20, H200
    f.chunked_prefill = 8192;
    f.cuda_graph_max_bs = small_tp ? 256 : 512;
  } else {  // B200, MI300X
    f.chunked_prefill = 16384;
    f.cuda_graph_max_bs = 512;
  }
  // In MiB, as SGLang counts (1.5 x an even chunk is whole; tp x pp / 8 x 1024 is tp x pp x 128).
  f.reserved_mib = 512 + std::max<uint64_t>(f.chunked_prefill, 2048) * 3 / 2 + f.cuda_graph_max_bs * 2 +
                   uint64_t{tp} * pp * 128;
  if (f.memory_mib > 60 * 1024) f.reserved_mib = std::max<uint64_t>(f.reserved_mib, 10 * 1024);
  const double free = f.memory_mib > f.reserved_mib ? static_cast<double>(f.memory_mib - f.reserved_mib) : 0;
  f.fraction = f.memory_mib ? std::round(1000 * free / static_cast<double>(f.memory_mib)) / 1000 : 0;
  return f;
}

bool engine_runs_kv_dtype(PlanEngine e, DType d) {
  for (const CacheType& c : row_of(e).cache_types)
    if (c.dtype == d) return true;
  return false;
}

std::string engine_kv_dtype_names(PlanEngine e) {
  std::string t;
  for (const CacheType& c : row_of(e).cache_types) t += (t.empty() ? "" : ", ") + std::string(c.name);
  return t;
}

std::optional<DType> engine_kv_dtype_named(PlanEngine e, std::string_view name) {
  for (const CacheType& c : row_of(e).cache_types)
    if (c.name == name) return c.dtype;
  return std::nullopt;
}

bool engine_runs_precision(PlanEngine e, std::string_view precision) {
  for (std::string_view p : row_of(e).precisions)
    if (p == precision) return true;
  return false;
}

std::string engine_precision_names(PlanEngine e) {
  std::string t;
  for (std::string_view p : row_of(e).precisions) t += (t.empty() ? "" : ", ") + std::string(p);
  return t;
}

std::vector<ForeignKnob> foreign_knobs(PlanEngine e, const EngineKnobs& given, bool offload) {
  std::vector<ForeignKnob> out;
  for (const KnobOwners& k : kKnobOwners) {
    if (!k.given(given) || (k.engines & bit(e)) || (offload && k.offload)) continue;
    std::string owners;
    for (const EngineRow& r : kEngines)
      if (k.engines & bit(r.engine)) owners += (owners.empty() ? "" : ", ") + std::string(r.name);
    out.push_back({k.knob, owners});
  }
  return out;
}

}  // namespace ma
