#include "analysis/plan/plan_engine.h"

#include <array>

namespace ma {
namespace {

struct EngineName {
  PlanEngine engine;
  std::string_view name;
};
constexpr std::array<EngineName, 6> kEngineNames{{{PlanEngine::Transformers, "transformers"},
                                                  {PlanEngine::Vllm, "vllm"},
                                                  {PlanEngine::Sglang, "sglang"},
                                                  {PlanEngine::LlamaCpp, "llama.cpp"},
                                                  {PlanEngine::Tgi, "tgi"},
                                                  {PlanEngine::TensorrtLlm, "tensorrt-llm"}}};

// vLLM's EngineArgs raise max_num_batched_tokens and max_num_seqs for `vllm serve` on devices with at least
// 70 GiB (8192 and 1024; the logs in ../shared/data/engines show both on H100 80 GB), and keep 2048 and 256
// below that.
constexpr uint64_t kVllmLargeDevice = 70ull << 30;

}  // namespace

std::string_view engine_name(PlanEngine e) {
  for (const EngineName& n : kEngineNames)
    if (n.engine == e) return n.name;
  return "transformers";
}

std::optional<PlanEngine> engine_from_name(std::string_view name) {
  for (const EngineName& n : kEngineNames)
    if (n.name == name) return n.engine;
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
  if (e == PlanEngine::Sglang && !k.mem_fraction_static) k.mem_fraction_static = 0.88;
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

}  // namespace ma
