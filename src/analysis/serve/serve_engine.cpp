#include "analysis/serve/serve_engine.h"

#include <algorithm>
#include <array>

namespace ma {
namespace {

// clang-format off
constexpr std::array<ServeEngineRules, 4> kServeEngines{{
  {ServeEngine::Vllm, "vllm", PlanEngine::Vllm, true, 8192, 1,
   "vLLM V1 scheduler: chunked prefill on by default, a token budget of max_num_batched_tokens (8,192 for "
   "`vllm serve` on a data-centre GPU) shared by the running decodes and prompt chunks; one token streamed "
   "per step"},
  {ServeEngine::Sglang, "sglang", PlanEngine::Sglang, false, 8192, 10,
   "SGLang scheduler: prefill batches run before decode batches (no mixed chunk by default), prompts chunked "
   "at chunked_prefill_size (8,192); InferenceMAX's SGLang runs stream 10 tokens per chunk (their mean "
   "inter-token latency is 10 x the time per output token)"},
  {ServeEngine::Trt, "trt", PlanEngine::TensorrtLlm, true, 8192, 1,
   "TensorRT-LLM in-flight batching with chunked context: context chunks and generation tokens in one step "
   "(max_num_tokens 8,192); its KV pool free_gpu_memory_fraction (0.9) of what its profiling pass leaves"},
  {ServeEngine::Atom, "atom", PlanEngine::Vllm, true, 8192, 1,
   "AMD ATOM (a vLLM-style engine for Instinct GPUs): chunked prefill mixed with decodes, 8,192 tokens per "
   "step"},
}};
// clang-format on

}  // namespace

const ServeEngineRules& serve_engine_rules(ServeEngine e) {
  return *std::find_if(kServeEngines.begin(), kServeEngines.end(),
                       [e](const auto& r) { return r.engine == e; });
}

std::optional<ServeEngine> serve_engine_from_name(std::string_view name) {
  if (name == "trtllm" || name == "tensorrt-llm") return ServeEngine::Trt;
  for (const ServeEngineRules& r : kServeEngines)
    if (r.name == name) return r.engine;
  return std::nullopt;
}

}  // namespace ma
