// How each serving engine schedules a continuous batch, one table of facts (the memory each reserves is
// the plan's engine rule, analysis/plan/plan_engine.h):
//  - vLLM (V1), TensorRT-LLM, ATOM: chunked prefill mixed into the decode steps. Every step carries all the
//    running decodes and fills the rest of its token budget (max_num_batched_tokens) with prompt chunks, so
//    a prompt rides on steps that stream the weights anyway;
//  - SGLang: prefill first. A new request's prompt runs as its own prefill batch (chunked at
//    chunked_prefill_size) between decode steps, and the running decodes wait for it.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "analysis/plan/plan_engine.h"

namespace ma {

enum class ServeEngine { Vllm, Sglang, Trt, Atom };

struct ServeEngineRules {
  ServeEngine engine;
  std::string_view name;        // as InferenceMAX names it: vllm, sglang, trt, atom
  PlanEngine memory;            // whose rule sizes the KV pool
  bool mixed_prefill;           // prompt chunks share the decode steps (else prefill batches alone)
  uint64_t max_batched_tokens;  // tokens per step (vLLM's max_num_batched_tokens, SGLang's chunk)
  uint32_t stream_interval;     // output tokens per streamed chunk: the inter-token latency a client sees
  std::string_view source;
};

const ServeEngineRules& serve_engine_rules(ServeEngine e);
std::optional<ServeEngine> serve_engine_from_name(std::string_view name);  // vllm, sglang, trt|trtllm, atom

}  // namespace ma
