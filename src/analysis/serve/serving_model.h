// `serve`: what a serving engine delivers at a fixed number of requests in flight (issue 14). A closed loop
// of `concurrency` clients, each sending a prompt of isl tokens and reading osl output tokens, then sending
// the next. In steady state the engine repeats decode steps over the requests that are generating, with
// every new request's prefill interleaved as its engine schedules it (serve_engine.h). The steps' times come
// from the performance model (analysis/perf), the KV pool from the engine's memory rule (analysis/plan):
//   R (requests/s) = 1 / ((osl - 1) x D(b) / b + P)         the engine's time per request, b sharing a step
//   B (decoding)   = running - R x TTFT                      Little's law: the rest are in their prefill
//                    (a mixing engine saturated with prompts decodes at most R (osl - 1) x its longest
//                    token interval: the rest wait before their prefill)
//   b = max(1, B)  the batch of a decode step: one client decodes alone, a fraction B of the time
//   TPOT = B / (R (osl - 1)), at least D(b),  E2EL = TTFT + (osl - 1) x TPOT,  tokens/s = c / E2EL x tokens
// where D(b) is one decode step at batch b and the mean KV length isl + osl / 2, P one request's prefill as
// the engine pays for it (its share of the step or batch it rides; a lone prefill step when nothing else
// decodes), TTFT its own prefill plus the wait for what the engine is running when it arrives, and
// `running` the requests the KV pool holds (the rest wait for a slot).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model_report.h"
#include "analysis/perf/hardware.h"
#include "analysis/plan/plan.h"
#include "analysis/serve/serve_engine.h"
#include "model/inventory.h"

namespace ma {

struct ServeRequest {
  Hardware hw;
  uint32_t tp = 1, ep = 1;    // GPUs = tp; experts split over ep of them
  bool dp_attention = false;  // attention data-parallel over the tp GPUs (each its own sequences and cache)
  WeightPrecision precision = WeightPrecision::Stored;
  std::optional<DType> kv_dtype;  // default: the checkpoint's, else 16-bit
  ServeEngine engine = ServeEngine::Vllm;
  uint64_t isl = 1024, osl = 1024, concurrency = 64;
  std::optional<uint64_t> max_batched_tokens;  // default: the engine's
  std::optional<uint32_t> stream_interval;     // default: the engine's
  // Prompts each client sends in the benchmark (its first round starts together); 0: steady state only.
  std::optional<uint32_t> rounds;
  std::vector<uint64_t> sweep;  // concurrencies of the throughput-latency curve
};

// One load point. Times in seconds, throughputs per GPU (input + output tokens, and each part).
struct ServePoint {
  uint64_t concurrency = 0;
  double running = 0;       // requests the KV pool holds at once
  double decode_batch = 0;  // of them, those one decode step carries (at least 1; 0 at osl 1: no decode)
  double mean_ttft_s = 0, mean_tpot_s = 0, mean_itl_s = 0, mean_e2el_s = 0;
  double first_round_ttft_s = 0;  // mean TTFT of the benchmark's first round, all prompts sent at once
  double throughput_tokens_per_s_per_gpu = 0, output_tokens_per_s_per_gpu = 0, input_tokens_per_s_per_gpu = 0;
  double requests_per_s = 0;
  double decode_step_s = 0;   // one decode step at decode_batch
  double prefill_s = 0;       // one request's prefill as the engine pays for it (its share of a shared step)
  std::string decode_bound;   // weights | kv | compute | network | launch: the decode step's largest term
  std::string prefill_bound;  // the same for a prefill
};

struct ServeResult {
  std::string model_id;
  ServeRequest request;
  std::string engine_source;
  uint64_t kv_cache_tokens = 0;  // per replica, the engine's pool
  uint64_t max_running = 0;      // requests of isl + osl tokens it holds
  std::string precision_label;   // how the weights run ("as stored (mxfp4 ...), W4A16")
  ServePoint point;              // at request.concurrency
  std::vector<ServePoint> sweep;
  std::vector<std::string> assumptions;
};

// Throws Error(Usage) for settings that cannot run (tp not dividing the heads, a model that does not fit
// the devices, an encoder-only model, a token budget below the requests a mixing engine runs at once),
// Error(Malformed) for a device profile serving cannot use (check_serving_hardware) and Error(Unsupported)
// without an architecture template.
ServeResult estimate_serving(const Inventory& inv, const ModelReport& report, const ServeRequest& request);

// Throws Error(Malformed, where, field) for a device profile without what serving needs: its memory (the KV
// pool is sized from it) and, over more than one GPU, its interconnect (the all-reduces run over it).
// `where` names the profile in the message (its file, for `--hw FILE.json`).
void check_serving_hardware(const Hardware& hw, uint32_t tp, const std::string& where);

}  // namespace ma
