#include "analysis/serve/serving_model.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/memory_kv.h"
#include "analysis/perf/achievable.h"
#include "analysis/perf/parallelism.h"
#include "analysis/perf/perf_model.h"
#include "core/error.h"
#include "core/units.h"

namespace ma {
namespace {

constexpr int kFixedPointIterations = 60;
// InferenceMAX's client sends 10 prompts per concurrent client (num_prompts = 10 x concurrency): the first of
// the 10 rounds starts all at once.
constexpr uint32_t kBenchmarkRounds = 10;

// The largest of a step's terms, in the words of the issue: streaming the weights, the KV cache, the
// tensor cores, the interconnect, or kernel launches.
std::string bound_of(const PerfResult& r) {
  const double bw = r.hardware.hbm_gbps * 1e9;
  const std::pair<double, const char*> terms[] = {
      {r.total.bytes_weights / bw, "weights"},
      {(r.total.bytes_kv + r.total.bytes_activations + r.total.bytes_temporary) / bw, "kv"},
      {r.total.t_comp, "compute"},
      {r.total.t_net, "network"},
      {r.overhead_s, "launch"}};
  return std::max_element(std::begin(terms), std::end(terms),
                          [](const auto& a, const auto& b) { return a.first < b.first; })
      ->second;
}

class Estimator {
 public:
  Estimator(const Inventory& inv, const ModelReport& report, const ServeRequest& rq, const PerfInputs& base,
            const Hardware& hw)
      : inv_(inv), report_(report), rq_(rq), base_(base), hw_(hw), rules_(serve_engine_rules(rq.engine)) {
    budget_ = rq.max_batched_tokens.value_or(rules_.max_batched_tokens);
    mean_kv_ = rq.isl + rq.osl / 2;
    PerfInputs in = base_;
    in.mode = PerfMode::Prefill;
    in.batch = 1;
    in.seq = rq.isl;
    in.cuda_graph = false;  // engines capture graphs for decode batches; a step with a prompt runs eagerly
    prefill_ = model_performance(inv_, report_, in, hw_);
    // What a prompt mixed into decode steps adds besides the experts (prefill_cost): the step carrying it
    // launches its kernels eagerly instead of from a graph.
    prompt_other_bytes_ = prefill_.total.bytes_hbm() - prefill_.total.bytes_weights;
    eager_ = std::max(0.0, prefill_.total.kernels * (hw_.kernel_overhead_s - hw_.graph_kernel_overhead_s));
  }

  // What one request's prefill costs the engine while `batch` requests decode. A prefill batch of its own
  // pays its whole step. A prompt mixed into decode steps adds its FLOPs, or its bytes beyond what those
  // steps read anyway: its activations and cache, and the routed experts its tokens pick that the decodes'
  // do not (a dense model's weights are all read by any step; 1,024 prompt tokens pick nearly every expert
  // of an MoE layer, 4 decoding requests a few of them), chunk by chunk of the token budget the decodes
  // leave.
  double prefill_cost(double batch) {
    if (!rules_.mixed_prefill) return prefill_.total.t_est;
    const uint64_t decoding = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(batch)));
    const uint64_t room = budget_ > decoding ? budget_ - decoding : 1;
    const uint64_t chunk = std::min(rq_.isl, room), chunks = (rq_.isl + chunk - 1) / chunk;
    const double unread = std::max(0.0, weights_streamed(decoding + chunk) - weights_streamed(decoding)) *
                          static_cast<double>(chunks);
    return std::max(prefill_.total.t_comp, (prompt_other_bytes_ + unread) / (hw_.hbm_gbps * 1e9)) +
           prefill_.total.t_net + eager_;
  }

  // The weight bytes one forward pass over `tokens` tokens streams (routed experts: those they pick).
  double weights_streamed(uint64_t tokens) {
    if (auto it = weights_streamed_.find(tokens); it != weights_streamed_.end()) return it->second;
    PerfInputs in = base_;
    in.mode = PerfMode::Prefill;
    in.batch = 1;
    in.seq = tokens;
    const double bytes = model_performance(inv_, report_, in, hw_).total.bytes_weights;
    return weights_streamed_.emplace(tokens, bytes).first->second;
  }

  // Mean TTFT of `n` prompts sent together: they fill steps of the engine's token budget in turn, so the
  // i-th is done after ceil(i x isl / budget) such steps. The last step carries only the prompts left (one
  // lone prompt pays a step of one prompt, not a full step's).
  double first_round_ttft(double n) {
    const uint64_t per_step = std::max<uint64_t>(1, budget_ / rq_.isl);  // whole prompts per step
    const auto prompts = static_cast<uint64_t>(std::llround(n));
    if (prompts == 0) return 0;
    const uint64_t full = prompts / per_step, left = prompts % per_step;
    const double full_step = burst_step(per_step), last_step = left ? burst_step(left) : 0;
    // Prompts of the j-th full step finish at j full steps; those of the last one after all full steps.
    const double sum =
        static_cast<double>(per_step) * full_step * static_cast<double>(full * (full + 1) / 2) +
        static_cast<double>(left) * (static_cast<double>(full) * full_step + last_step);
    return sum / static_cast<double>(prompts);
  }

  // One prefill step of the first round carrying `prompts` whole prompts (chunks of the token budget).
  double burst_step(uint64_t prompts) {
    if (auto it = burst_steps_.find(prompts); it != burst_steps_.end()) return it->second;
    PerfInputs in = base_;
    in.mode = PerfMode::Prefill;
    in.batch = prompts;
    in.seq = std::min(rq_.isl, budget_);
    in.cuda_graph = false;
    // A prompt longer than the budget takes ceil(isl / budget) steps of one chunk each.
    const double t = model_performance(inv_, report_, in, hw_).total.t_est *
                     static_cast<double>((rq_.isl + in.seq - 1) / in.seq);
    return burst_steps_.emplace(prompts, t).first->second;
  }

  double decode_step(double batch) {
    const uint64_t b = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(batch)));
    if (auto it = decode_.find(b); it != decode_.end()) return it->second.total.t_est;
    PerfInputs in = base_;
    in.mode = PerfMode::Decode;
    in.batch = b;
    in.kv_len = mean_kv_;
    return decode_.emplace(b, model_performance(inv_, report_, in, hw_)).first->second.total.t_est;
  }

  ServePoint at(uint64_t concurrency, uint64_t max_running) {
    ServePoint p;
    p.concurrency = concurrency;
    const double c = static_cast<double>(concurrency);
    const double running = std::min(c, static_cast<double>(max_running));
    const double steps = static_cast<double>(rq_.osl - 1);  // the first output token comes with the prefill
    double batch = 0, rate = 0, ttft = 0, tpot = 0, d = 0, prefill = 0;
    if (steps == 0) {
      // One output token (osl 1): the prefill gives it, and the engine runs prefill steps only, each carrying
      // as many waiting prompts as its token budget holds. Every client waits its turn: E2EL = c / rate.
      const uint64_t per_step = std::max<uint64_t>(1, budget_ / rq_.isl);
      const uint64_t carried = std::min<uint64_t>(per_step, static_cast<uint64_t>(std::llround(running)));
      prefill = burst_step(carried) / static_cast<double>(carried);
      rate = 1 / prefill;
      ttft = c / rate;
    } else {
      batch = running;
      double ttft_own = 0;
      for (int i = 0; i < kFixedPointIterations; ++i) {
        d = decode_step(batch);
        prefill = prefill_cost(batch);
        rate = 1.0 / (steps * d / batch + prefill);
        // Its own prefill: a batch of its own right after the step in flight (prefill first), or chunks of
        // the token budget the running decodes leave, each riding one decode step (mixed).
        if (rules_.mixed_prefill) {
          const double room = std::max(1.0, static_cast<double>(budget_) - batch);
          const double chunks = std::ceil(static_cast<double>(rq_.isl) / room);
          ttft_own = d / 2 + chunks * d + prefill;
        } else {
          ttft_own = d / 2 + prefill_.total.t_est;
        }
        // Prefills queued before it: M/D/1 with the engine busy on prefills a fraction rho of the time.
        const double rho = std::min(0.95, rate * prefill);
        const double queued = ttft_own + rho * prefill / (2 * (1 - rho));
        const double next = std::clamp(running - rate * queued, 1.0, running);
        if (std::abs(next - batch) < 1e-6) break;
        batch = 0.5 * (batch + next);
      }
      const double rho = std::min(0.95, rate * prefill);
      ttft = ttft_own + rho * prefill / (2 * (1 - rho));
      ttft += (c - running) / rate;  // clients beyond the KV pool wait for a slot
      // Between two of a request's tokens the engine runs one decode step and the prompt work it shares the
      // time with: B / (R (osl - 1)) = D / (1 - R P). A mixing engine puts at most the token budget's room
      // into a step, so its token interval is at most D + P x room / isl: a prefill-saturated engine
      // (short outputs, high load) makes requests wait for their prefill, not between their tokens (osl 2
      // at 64 clients gave a TPOT of 190 decode steps).
      tpot = batch / (rate * steps);
      if (rules_.mixed_prefill) {
        const double room = std::max(1.0, static_cast<double>(budget_) - batch);
        tpot = std::min(tpot, d + prefill * room / static_cast<double>(rq_.isl));
      }
      // Little's law for the closed loop: c clients, one request each in the system, complete c / E2EL
      // requests a second, and the engine completes at most `rate`. The M/D/1 wait above is capped (rho at
      // most 0.95) and can undercount a saturated engine: what it misses is time queued before the prefill.
      ttft = std::max(ttft, c / rate - steps * tpot);
    }
    // A benchmark's first round: every client sends at once, and the prompts queue for the prefill steps
    // (chunks of the step budget, one after another); the k - 1 rounds after it run in steady state.
    const double k = static_cast<double>(rq_.rounds.value_or(kBenchmarkRounds));
    if (k > 0) {
      const double burst = first_round_ttft(running);
      p.first_round_ttft_s = burst;
      ttft = ((k - 1) * ttft + std::max(burst, ttft)) / k;
    }
    p.running = running;
    p.decode_batch = batch;
    p.decode_step_s = d;
    p.prefill_s = prefill;
    p.mean_ttft_s = ttft;
    p.mean_tpot_s = tpot;
    p.mean_itl_s = p.mean_tpot_s * rq_.stream_interval.value_or(rules_.stream_interval);
    p.mean_e2el_s = ttft + steps * p.mean_tpot_s;
    p.requests_per_s = c / p.mean_e2el_s;
    const double gpus = rq_.tp;
    p.input_tokens_per_s_per_gpu = p.requests_per_s * static_cast<double>(rq_.isl) / gpus;
    p.output_tokens_per_s_per_gpu = p.requests_per_s * static_cast<double>(rq_.osl) / gpus;
    p.throughput_tokens_per_s_per_gpu = p.input_tokens_per_s_per_gpu + p.output_tokens_per_s_per_gpu;
    p.decode_bound =
        steps == 0 ? "none"
                   : bound_of(decode_.at(std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(batch)))));
    p.prefill_bound = bound_of(prefill_);
    return p;
  }

 private:
  const Inventory& inv_;
  const ModelReport& report_;
  const ServeRequest& rq_;
  PerfInputs base_;
  Hardware hw_;
  const ServeEngineRules& rules_;
  uint64_t budget_ = 0, mean_kv_ = 0;
  PerfResult prefill_;
  double prompt_other_bytes_ = 0, eager_ = 0;  // a prompt's bytes beyond the weights; its eager launches
  std::map<uint64_t, double> burst_steps_;     // a prefill step of the first round, by prompts it carries
  std::map<uint64_t, PerfResult> decode_;
  std::map<uint64_t, double> weights_streamed_;  // by tokens
};

// Data-parallel attention: every GPU holds all the attention weights (tensor parallel gave it 1/tp of
// them) and the whole cache of its own sequences, so the replica's pool holds tp x (pool - the attention
// weights it now holds more): in tokens, over the full per-token bytes; in requests, over one request's
// bytes (its tokens', windows capped, and its recurrent state).
struct DpAttentionPool {
  uint64_t tokens = 0, requests = 0;
};
DpAttentionPool dp_attention_pool(const Inventory& inv, const ModelReport& report, const ServeRequest& rq,
                                  DType kv, uint64_t pool_bytes) {
  const std::vector<uint64_t> bytes =
      engine_tensor_bytes(inv, report, rq.precision, serve_engine_rules(rq.engine).memory);
  uint64_t attention = 0;
  for (size_t i = 0; i < inv.tensors.size(); ++i)
    if (inv.tensors[i].placement.block == Block::Attention) attention += bytes[i];
  const uint64_t extra = attention - attention / rq.tp;
  const DType state = engine_compute_dtype(report, serve_engine_rules(rq.engine).memory);
  const KvCachePlan cache = plan_kv_cache(inv.arch, kv, state, rq.isl + rq.osl,
                                          engine_state_layout(serve_engine_rules(rq.engine).memory));
  const uint64_t request = kv_cache_total(cache, 1, rq.isl + rq.osl);
  if (cache.per_token == 0 || request == 0 || pool_bytes <= extra) return {};
  return {(pool_bytes - extra) / cache.per_token * rq.tp, (pool_bytes - extra) * rq.tp / request};
}

}  // namespace

ServeResult estimate_serving(const Inventory& inv, const ModelReport& report, const ServeRequest& rq) {
  if (!has_decode_step(report))
    throw Error(ErrorKind::Usage, "", "MODEL", "an encoder-only model generates no tokens to serve");
  if (rq.isl == 0 || rq.osl == 0 || rq.concurrency == 0)
    throw Error(ErrorKind::Usage, "", "--isl/--osl/--concurrency", "must be at least 1");
  const ServeEngineRules& rules = serve_engine_rules(rq.engine);
  ServeResult out;
  out.request = rq;
  out.engine_source = std::string(rules.source);

  // The cache dtype: the request's, else the checkpoint's declared one, else the engine's 16 bits.
  const DType kv = engine_kv_dtype(report, rules.memory, rq.kv_dtype);
  // The KV pool by the engine's memory rule, on tp devices holding one replica.
  PlanRequest plan_rq;
  plan_rq.gpus = devices_of(rq.hw, rq.tp);
  plan_rq.engine = rules.memory;
  plan_rq.precision = rq.precision;
  plan_rq.kv_dtype = rq.kv_dtype;
  plan_rq.context = rq.isl + rq.osl;
  plan_rq.batch = rq.concurrency;
  plan_rq.tp = rq.tp;
  plan_rq.pp = 1;
  plan_rq.time_splits = false;
  const Plan plan = make_plan(inv, report, plan_rq);
  const auto split = std::find_if(plan.splits.begin(), plan.splits.end(), [&](const SplitPlan& s) {
    return s.split.tp == rq.tp && s.split.pp == 1 && s.split.ep == rq.ep;
  });
  if (split == plan.splits.end()) {
    // The plan lists no split an --ep the engine takes cannot make (8 experts over 16): its check says why.
    if (rq.ep == 1 || rq.ep == rq.tp) check_parallelism(inv.arch, {rq.tp, 1, rq.ep});
    throw Error(ErrorKind::Usage, "", "--ep", "expert parallel must be 1 or the tensor-parallel size");
  }
  // The plan keeps why as text ("--tp: 8 cannot split ..."): the check's own error names the flag once.
  if (!split->invalid.empty()) {
    check_parallelism(inv.arch, {rq.tp, 1, rq.ep});
    throw Error(ErrorKind::Usage, "", "--tp/--ep", "cannot split this model");  // the plan's check differed
  }
  // Requests the pool holds at once: its bytes over one request's (isl + osl tokens, windows capped, and the
  // recurrent state a hybrid keeps per request), as plan's max_concurrency counts them. The pool's tokens
  // over isl + osl would give a Mamba hybrid 8.8 times what it holds.
  if (rq.dp_attention && rq.tp > 1) {
    const DpAttentionPool pool = dp_attention_pool(inv, report, rq, kv, split->budget.engine.kv_cache_bytes);
    out.kv_cache_tokens = pool.tokens;
    out.max_running = pool.requests;
  } else {
    out.kv_cache_tokens = split->budget.engine.kv_cache_tokens;
    out.max_running = static_cast<uint64_t>(split->budget.engine.max_concurrency);
  }
  if (split->budget.engine.kv_cache_bytes == 0) {
    // Nothing left for a cache: the weights (and what the engine holds besides) take the devices. Bytes, not
    // tokens: a pure state-space model (Mamba) caches no token, only a state per request.
    const DeviceBytes& d = split->budget.worst;
    throw Error(ErrorKind::Usage, "", "--hw/--tp",
                "the weights take " + human_bytes(d.weights) + " of each " + rq.hw.name + "'s " +
                    human_bytes(d.capacity) + " at TP " + std::to_string(rq.tp) + " and the " +
                    std::string(rules.name) + " engine " +
                    human_bytes(d.activations + d.overhead + d.reserved) +
                    " more (activations, its own memory, headroom): no room for a KV cache");
  }
  if (out.max_running == 0)
    throw Error(ErrorKind::Usage, "", "--hw/--tp",
                "one request of " + with_thousands(rq.isl + rq.osl) + " tokens does not fit the " +
                    std::string(rules.name) + " KV pool of " + std::to_string(rq.tp) + " x " + rq.hw.name +
                    " (" + with_thousands(out.kv_cache_tokens) + " tokens)");

  const AchievableHardware achievable = achievable_hardware(rq.hw);
  PerfInputs base = precision_perf_inputs(report, rq.precision, kv, achievable.hw, rules.memory);
  base.knobs = ExecutionKnobs::efficient();
  base.parallel = {rq.tp, 1, rq.ep, rq.dp_attention};
  out.precision_label =
      base.stored_label.empty() ? std::string(precision_name(rq.precision)) : base.stored_label;

  Estimator e(inv, report, rq, base, achievable.hw);
  out.point = e.at(rq.concurrency, out.max_running);
  for (uint64_t c : rq.sweep) out.sweep.push_back(e.at(c, out.max_running));

  out.assumptions = {
      "closed loop: " + with_thousands(rq.concurrency) + " clients, each sends a prompt of " +
          with_thousands(rq.isl) + " tokens, reads " + with_thousands(rq.osl) +
          " output tokens, then sends the next",
      "R = 1 / ((osl - 1) x D(B) / B + P); B = running - R x TTFT; TPOT = B / (R (osl - 1)); E2EL = TTFT + "
      "(osl - 1) TPOT; tokens/s per GPU = concurrency / E2EL x tokens / tp",
      "D(B): the performance model's decode step (efficient profile: flash attention, fused kernels, CUDA "
      "graphs) at batch B and the mean KV length isl + osl / 2 = " +
          with_thousands(rq.isl + rq.osl / 2) + ", TP " + std::to_string(rq.tp) +
          (rq.ep > 1 ? " with EP " + std::to_string(rq.ep) : "") + ", its all-reduces included",
      std::string("P: ") +
          (rules.mixed_prefill
               ? "a prompt's FLOPs (or its bytes beyond the weights the decodes stream anyway: its "
                 "activations and cache, and the routed experts its tokens pick that theirs do not) on "
                 "decode steps, whose kernels then launch eagerly (no CUDA graph)"
               : "a prefill step of its own, launched eagerly, which the running decodes wait for"),
      "TTFT: half the step in flight, its own prefill, and the prefills queued before it (M/D/1); clients "
      "beyond the KV pool (" +
          with_thousands(out.max_running) +
          " requests) wait for a slot; and never less than concurrency / R - (osl - 1) TPOT (Little's law: "
          "the engine completes at most R requests a second)",
      "engine: " + std::string(rules.source),
      "speeds: " + achievable.how,
      "weights: " + out.precision_label};
  if (std::optional<std::string> cast = bf16_as_fp16_note(base, achievable.hw))
    out.assumptions.push_back(std::move(*cast));
  if (rq.osl == 1)
    out.assumptions.insert(out.assumptions.begin() + 2,
                           "osl 1: no decode step; prefill steps of min(running, budget / isl) prompts each, "
                           "launched eagerly: R = prompts / step, E2EL = TTFT = concurrency / R");
  return out;
}

}  // namespace ma
