#include "analysis/serve/serving_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
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
// The largest share of the engine's time the prompts are taken to have in the steady-state averages (a step
// lengthened by prompt work, D / (1 - share)): a saturated engine's waits come from Little's law instead.
constexpr double kMaxUtilisation = 0.95;

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

uint64_t whole(double x) {
  return static_cast<uint64_t>(std::llround(x));
}

// The chance that, while one request is in its prefill, at least one of the other running - 1 requests is
// decoding, each doing so a fraction decoding / running of the time. One client alone never finds another
// (its prompt runs on an idle engine); a few clients nearly always do.
double others_decoding_chance(double decoding, double running) {
  if (running <= 1) return 0;
  return 1 - std::pow(1 - std::clamp(decoding / running, 0.0, 1.0), running - 1);
}

// The engine at one load, as the fixed point settles it. Times in seconds.
struct LoadState {
  double decoding = 0;  // B: requests generating, on average over time (the rest are in their prefill)
  double batch = 1;     // b: requests one decode step carries (at least the one it runs for)
  double step = 0;      // D(b)
  double ride = 0;      // the chance another request decodes while a prompt runs (its step is shared)
  double sharing = 1;   // prompts one step's prompt work (mixed) or one prefill batch (prefill first) carries
  double prompt = 0;    // P: one request's prompt as the engine pays for it
  double rate = 0;      // R: requests a second
  double ttft = 0;      // its own prefill, after what the engine is running when it arrives
  double tpot = 0;      // the interval between its tokens
};

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
    // What a prompt mixed into decode steps adds besides the experts (mixed_prompt_cost): the step carrying
    // it launches its kernels eagerly instead of from a graph, once for all the prompts it carries.
    prompt_other_bytes_ = prefill_.total.bytes_hbm() - prefill_.total.bytes_weights;
    eager_ = std::max(0.0, prefill_.total.kernels * (hw_.kernel_overhead_s - hw_.graph_kernel_overhead_s));
  }

  // What one prompt mixed into decode steps of `decoding` requests costs, `together` prompts sharing each
  // step's prompt work: its FLOPs, or its bytes beyond what those steps read anyway (its activations and
  // cache, and the routed experts its tokens pick that the decodes' do not: a dense model's weights are all
  // read by any step; 1,024 prompt tokens pick nearly every expert of an MoE layer, 4 decoding requests a
  // few of them), chunk by chunk of the token budget the decodes leave. The prompts of one step pick their
  // experts and launch its kernels eagerly once for all of them: each pays its share (64 prompts of 128
  // tokens in one step paid 64 eager launches of every kernel, a third of the rate the step allows).
  double mixed_prompt_cost(double decoding, double together) {
    const uint64_t decoders = std::max<uint64_t>(1, whole(decoding)), room = room_beside(decoding);
    const uint64_t chunk = std::min(rq_.isl, room), chunks = (rq_.isl + chunk - 1) / chunk;
    const uint64_t tokens = std::max<uint64_t>(chunk, whole(together * static_cast<double>(chunk)));
    const double unread = std::max(0.0, weights_streamed(decoders + tokens) - weights_streamed(decoders)) *
                          static_cast<double>(chunks) / together;
    return std::max(prefill_.total.t_comp, (prompt_other_bytes_ + unread) / (hw_.hbm_gbps * 1e9)) +
           prefill_.total.t_net + eager_ / together;
  }

  // The prompt tokens a mixed step's budget leaves beside `decoding` decodes (at least one).
  uint64_t room_beside(double decoding) const {
    const uint64_t decoders = std::max<uint64_t>(1, whole(decoding));
    return budget_ > decoders ? budget_ - decoders : 1;
  }

  // Whole prompts that room holds (1 for a prompt longer than it, which takes it in chunks).
  double prompts_per_room(double decoding) const {
    return std::max<double>(1, static_cast<double>(room_beside(decoding) / rq_.isl));
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
    const uint64_t per_step = whole_prompts_per_step();
    const uint64_t prompts = whole(n);
    if (prompts == 0) return 0;
    const uint64_t full = prompts / per_step, left = prompts % per_step;
    const double full_step = burst_step(per_step), last_step = left ? burst_step(left) : 0;
    // Prompts of the j-th full step finish at j full steps; those of the last one after all full steps.
    const double sum =
        static_cast<double>(per_step) * full_step * static_cast<double>(full * (full + 1) / 2) +
        static_cast<double>(left) * (static_cast<double>(full) * full_step + last_step);
    return sum / static_cast<double>(prompts);
  }

  uint64_t whole_prompts_per_step() const { return std::max<uint64_t>(1, budget_ / rq_.isl); }

  // One prefill step carrying `prompts` whole prompts (chunks of the token budget), launched eagerly: the
  // first round's, an osl-1 load's, a prefill-first engine's batch, and one prompt on an idle engine.
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

  // A prefill step of a mean `prompts` prompts: a mix of steps of the whole numbers either side.
  double burst_step(double prompts) {
    const double p = std::max(1.0, prompts);
    const auto lo = static_cast<uint64_t>(std::floor(p));
    const double part = p - static_cast<double>(lo);
    return part > 0 ? (1 - part) * burst_step(lo) + part * burst_step(lo + 1) : burst_step(lo);
  }

  const PerfResult& decode_result(uint64_t batch) {
    if (auto it = decode_.find(batch); it != decode_.end()) return it->second;
    PerfInputs in = base_;
    in.mode = PerfMode::Decode;
    in.batch = batch;
    in.kv_len = mean_kv_;
    return decode_.emplace(batch, model_performance(inv_, report_, in, hw_)).first->second;
  }

  // One decode step at a mean batch of `batch` requests (at least one): a mix of steps of the whole batches
  // either side, so the step grows smoothly with the load.
  double decode_step(double batch) {
    const double b = std::max(1.0, batch);
    const auto lo = static_cast<uint64_t>(std::floor(b));
    const double part = b - static_cast<double>(lo), at_lo = decode_result(lo).total.t_est;
    return part > 0 ? (1 - part) * at_lo + part * decode_result(lo + 1).total.t_est : at_lo;
  }

  // The fraction of the time the engine spends on the other requests' prompts (one client: none).
  static double others_prompt_share(const LoadState& s, double running) {
    return std::min(kMaxUtilisation, s.rate * s.prompt * (running - 1) / running);
  }

  // A mixing engine (vLLM): a prompt that finds other requests decoding rides their steps. It waits for the
  // step in flight (half a decode step, and half the prompt work of the step when it carries some), then
  // takes one step per chunk, which carries the prompts that share it and lasts at least as long as those
  // prompts alone. Prompts that wait are not served one after another: they share the next step. A prompt
  // that finds no one decoding (one client) runs as a prefill step of its own on an idle engine.
  void mixed_prompt(LoadState& s, double running) {
    const double riders = s.decoding * (running - 1) / running;            // the others decoding, on average
    const double batch = s.ride > 0 ? std::max(1.0, riders / s.ride) : 1;  // ... when some do
    const double step = decode_step(batch), busy = others_prompt_share(s, running);
    // Prompts arriving during one step share it: R x the step, which all their work lengthens (D / (1 - R
    // P)). And while the room holds them no prompt waits longer than the step in flight, so at least half
    // of those in their prefill (running - B) ride the same step: a step never carries one prompt while
    // others queue (4 clients at osl 2 sat in such a state, each prompt paying a step's eager launches).
    // At most as many as its room holds, and no more than the clients send.
    const double most = std::min(prompts_per_room(batch), std::max(1.0, running));
    const double lengthened = step / (1 - std::min(kMaxUtilisation, s.rate * s.prompt));
    s.sharing = std::clamp(std::max(s.rate * lengthened, (running - s.decoding) / 2), 1.0, most);
    const double mixed = mixed_prompt_cost(batch, s.sharing);
    const double alone = burst_step(s.sharing);  // the prompts sharing it, on an engine with no decodes
    const double chunks = std::ceil(static_cast<double>(rq_.isl) / static_cast<double>(room_beside(batch)));
    const double riding =
        step / 2 + busy * s.sharing * mixed / 2 + std::max(chunks * step + s.sharing * mixed, alone);
    s.prompt = s.ride * mixed + (1 - s.ride) * alone / s.sharing;
    s.ttft = s.ride * riding + (1 - s.ride) * alone;
  }

  // A prefill-first engine (SGLang): the prompts waiting when a prefill batch starts run together, as many
  // as its token budget holds: those that arrived during the last decode step and prefill batch. The
  // decodes wait for the batch. A prompt waits for what the engine is running (half a decode step, or half
  // a prefill batch of others), then for its own batch.
  void prefill_first_prompt(LoadState& s, double running) {
    const double cycle = s.step + burst_step(s.sharing), busy = others_prompt_share(s, running);
    const double most = std::min(static_cast<double>(whole_prompts_per_step()), std::max(1.0, running));
    s.sharing = std::clamp(s.rate * cycle, 1.0, most);
    const double batch = burst_step(s.sharing);
    s.prompt = batch / s.sharing;
    s.ttft = (1 - busy) * s.ride * s.step / 2 + busy * batch / 2 + batch;
  }

  // One round of the fixed point: the steps at the state's decoding requests, the rate they allow, and the
  // requests decoding that these leave.
  double next_decoding(LoadState& s, double running, double steps) {
    s.batch = std::max(1.0, s.decoding);
    s.step = decode_step(s.batch);
    s.ride = others_decoding_chance(s.decoding, running);
    if (rules_.mixed_prefill)
      mixed_prompt(s, running);
    else
      prefill_first_prompt(s, running);
    s.rate = 1.0 / (steps * s.step / s.batch + s.prompt);
    // Little's law twice: the requests not in their prefill (running - R x TTFT) decode, but no more than
    // the longest token interval lets the engine finish (R x (osl - 1) x TPOT). Where the second binds, the
    // engine is saturated with prompts and the rest wait before their prefill (osl 2 at 4,096 clients
    // decoded 3,962 at once beside a room for 33 prompts a step).
    const double decoding = std::min(running - s.rate * s.ttft, s.rate * steps * longest_token_interval(s));
    s.tpot = std::clamp(s.decoding / (s.rate * steps), s.step, longest_token_interval(s));
    return std::clamp(decoding, 0.0, running);
  }

  // The fixed point of next_decoding, damped (each round moves half way), to a billionth of a request.
  LoadState settle(double running, double steps) {
    LoadState s;
    s.decoding = running;
    const double tolerance = 1e-9 * std::max(1.0, running);
    for (int i = 0; i < kFixedPointIterations; ++i) {
      const double sharing = s.sharing;
      const double next = next_decoding(s, running, steps);
      if (std::abs(next - s.decoding) < tolerance && std::abs(s.sharing - sharing) < tolerance) {
        s.decoding = next;
        break;
      }
      s.decoding = 0.5 * (s.decoding + next);
      s.sharing = 0.5 * (s.sharing + sharing);
    }
    next_decoding(s, running, steps);  // the figures of the state settled on
    return s;
  }

  // Between two of a request's tokens the engine runs one decode step and the other requests' prompt work
  // it shares the time with: Little's law on the decoding requests gives B / (R (osl - 1)), and no token
  // comes faster than the step that makes it (one client's come one decode step apart: its own prefill is
  // over). A mixing engine puts at most the token budget's room of prompts into a step, so its interval is
  // at most one such step: a prefill-saturated engine (short outputs, high load) makes requests wait for
  // their prefill, not between their tokens (osl 2 at 64 clients gave a TPOT of 190 decode steps). A
  // prefill-first engine has no such bound: its decodes wait for the prefill batches run before them.
  double longest_token_interval(const LoadState& s) {
    if (!rules_.mixed_prefill) return std::numeric_limits<double>::infinity();
    // The prompts' worth of tokens the room holds (a fraction of one for a prompt longer than it).
    const double fill = static_cast<double>(room_beside(s.batch)) / static_cast<double>(rq_.isl);
    return s.step + mixed_prompt_cost(s.batch, std::max(1.0, fill)) * fill;
  }

  ServePoint at(uint64_t concurrency, uint64_t max_running) {
    ServePoint p;
    p.concurrency = concurrency;
    const double c = static_cast<double>(concurrency);
    const double running = std::min(c, static_cast<double>(max_running));
    const double steps = static_cast<double>(rq_.osl - 1);  // the first output token comes with the prefill
    double ttft = 0, tpot = 0;
    if (steps == 0) {
      // One output token (osl 1): the prefill gives it, and the engine runs prefill steps only, each carrying
      // as many waiting prompts as its token budget holds. Every client waits its turn: E2EL = c / rate.
      const uint64_t carried = std::min<uint64_t>(whole_prompts_per_step(), whole(running));
      p.prefill_s = burst_step(carried) / static_cast<double>(carried);
      ttft = c * p.prefill_s;
      p.decode_bound = "none";
    } else {
      const LoadState s = settle(running, steps);
      tpot = s.tpot;
      // Little's law for the closed loop: the running requests complete running / E2EL a second, at most
      // the R the engine can; what exceeds its prefill and tokens is time queued before the prefill.
      // Clients beyond the KV pool wait for one of its slots, which free at that rate.
      const double e2el = std::max(s.ttft + steps * tpot, running / s.rate);
      ttft = e2el - steps * tpot + (c - running) * e2el / running;
      p.decode_batch = s.batch;
      p.decode_step_s = s.step;
      p.prefill_s = s.prompt;
      p.decode_bound = bound_of(decode_result(std::max<uint64_t>(1, whole(s.batch))));
    }
    // A benchmark's first round: every client sends at once, and the prompts queue for the prefill steps
    // (chunks of the step budget, one after another); the k - 1 rounds after it run in steady state.
    const double k = static_cast<double>(rq_.rounds.value_or(kBenchmarkRounds));
    if (k > 0) {
      p.first_round_ttft_s = first_round_ttft(running);
      ttft = ((k - 1) * ttft + std::max(p.first_round_ttft_s, ttft)) / k;
    }
    p.running = running;
    fill_latencies(p, ttft, tpot, steps);
    p.prefill_bound = bound_of(prefill_);
    return p;
  }

  // The latencies and the throughputs they give the closed loop (Little's law: c / E2EL requests a second).
  void fill_latencies(ServePoint& p, double ttft, double tpot, double steps) const {
    p.mean_ttft_s = ttft;
    p.mean_tpot_s = tpot;
    p.mean_itl_s = tpot * rq_.stream_interval.value_or(rules_.stream_interval);
    p.mean_e2el_s = ttft + steps * tpot;
    p.requests_per_s = static_cast<double>(p.concurrency) / p.mean_e2el_s;
    const double gpus = rq_.tp;
    p.input_tokens_per_s_per_gpu = p.requests_per_s * static_cast<double>(rq_.isl) / gpus;
    p.output_tokens_per_s_per_gpu = p.requests_per_s * static_cast<double>(rq_.osl) / gpus;
    p.throughput_tokens_per_s_per_gpu = p.input_tokens_per_s_per_gpu + p.output_tokens_per_s_per_gpu;
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
  std::map<uint64_t, double> burst_steps_;     // a prefill step, by the prompts it carries
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

// A mixing engine's step carries every running request's decode token, so its token budget must hold the
// requests it runs at once, as vLLM requires (max_num_batched_tokens >= max_num_seqs): a budget of 1 token
// gave a schedule decoding 34 requests a step. A prefill-first engine's budget bounds its prefill batches
// only.
void check_token_budget(const ServeRequest& rq, uint64_t max_running) {
  const ServeEngineRules& rules = serve_engine_rules(rq.engine);
  if (!rules.mixed_prefill) return;
  uint64_t busiest = rq.concurrency;
  for (uint64_t c : rq.sweep) busiest = std::max(busiest, c);
  const uint64_t running = std::min(busiest, max_running);
  const uint64_t budget = rq.max_batched_tokens.value_or(rules.max_batched_tokens);
  if (budget >= running) return;
  throw Error(
      ErrorKind::Usage, "", "--max-num-batched-tokens",
      "a budget of " + with_thousands(budget) + (budget == 1 ? " token" : " tokens") +
          " a step cannot carry the decode tokens of the " + with_thousands(running) + " requests " +
          std::string(rules.name) + " runs at once at " + with_thousands(busiest) +
          " clients (vLLM refuses a budget below max_num_seqs, the requests it runs): give at least " +
          with_thousands(running) + ", or fewer clients (--concurrency, --sweep)");
}

// The load point and the sweep. The performance model names the dtype flag `perf` has (--dtype) when the
// device cannot compute in the weights' precision; serve's flag for it is --precision.
void estimate_points(const Inventory& inv, const ModelReport& report, const PerfInputs& base,
                     const Hardware& hw, ServeResult& out) {
  try {
    Estimator e(inv, report, out.request, base, hw);
    out.point = e.at(out.request.concurrency, out.max_running);
    for (uint64_t c : out.request.sweep) out.sweep.push_back(e.at(c, out.max_running));
  } catch (const Error& err) {
    if (err.field() != "--dtype") throw;
    throw Error(err.kind(), err.file(), "--precision", err.rule());
  }
}

std::vector<std::string> serving_assumptions(const ServeResult& out, const std::string& speeds) {
  const ServeRequest& rq = out.request;
  const ServeEngineRules& rules = serve_engine_rules(rq.engine);
  std::vector<std::string> a = {
      "closed loop: " + with_thousands(rq.concurrency) + " clients, each sends a prompt of " +
          with_thousands(rq.isl) + " tokens, reads " + with_thousands(rq.osl) +
          " output tokens, then sends the next",
      "R = 1 / ((osl - 1) x D(b) / b + P); B = min(running - R x TTFT, R (osl - 1) x the longest token "
      "interval); b = max(1, B); TPOT = B / (R (osl - 1)), at least D(b); E2EL = TTFT + (osl - 1) TPOT; "
      "tokens/s per GPU = concurrency / E2EL x tokens / tp",
      "D(b): the performance model's decode step (efficient profile: flash attention, fused kernels, CUDA "
      "graphs) at batch b and the mean KV length isl + osl / 2 = " +
          with_thousands(rq.isl + rq.osl / 2) + ", TP " + std::to_string(rq.tp) +
          (rq.ep > 1 ? " with EP " + std::to_string(rq.ep) : "") + ", its all-reduces included",
      std::string("P: ") +
          (rules.mixed_prefill
               ? "a prompt's FLOPs (or its bytes beyond the weights the decodes stream anyway: its "
                 "activations and cache, and the routed experts its tokens pick that theirs do not) on "
                 "decode steps, whose kernels then launch eagerly (no CUDA graph), once for the prompts "
                 "sharing a step; a prompt that finds nothing decoding (one client) runs as a prefill step "
                 "of its own"
               : "its share of a prefill batch of the prompts waiting (up to the token budget), launched "
                 "eagerly, which the running decodes wait for"),
      "TTFT: what the engine is running when it arrives (nothing for one client) and its own prefill; "
      "clients beyond the KV pool (" +
          with_thousands(out.max_running) +
          " requests) wait for a slot; and never less than concurrency / R - (osl - 1) TPOT (Little's law: "
          "the engine completes at most R requests a second). A floor more than an estimate: P runs at the "
          "roofline the performance model gives a prefill, about three times what engines' prefills reach "
          "(MoE routing and dequantizing kernels, the front end's own latency), and the TTFTs InferenceMAX "
          "measured are 2-5x these (README, 'Checked against InferenceMAX')",
      "engine: " + std::string(rules.source),
      "speeds: " + speeds,
      "weights: " + out.precision_label};
  if (rq.osl == 1)
    a.insert(a.begin() + 2,
             "osl 1: no decode step; prefill steps of min(running, budget / isl) prompts each, launched "
             "eagerly: R = prompts / step, E2EL = TTFT = concurrency / R");
  return a;
}

}  // namespace

// A profile file need not give the memory size or the interconnect (perf and plan say what they cannot
// tell without them), but serving needs both: without hbm_gb the KV pool came out of "0 B" of memory, and
// without interconnect_gbps every all-reduce of a split model took forever (NaN latencies, exit 0).
void check_serving_hardware(const Hardware& hw, uint32_t tp, const std::string& where) {
  if (!(hw.hbm_gb > 0))
    throw Error(ErrorKind::Malformed, where, "hbm_gb",
                "needed by serve to size the KV pool: give the memory of one device, GB");
  if (tp > 1 && !(hw.interconnect_gbps > 0))
    throw Error(ErrorKind::Malformed, where, "interconnect_gbps",
                "must be given and positive for --tp " + std::to_string(tp) +
                    ": the all-reduces between the GPUs run over it");
}

ServeResult estimate_serving(const Inventory& inv, const ModelReport& report, const ServeRequest& rq) {
  check_serving_hardware(rq.hw, rq.tp, rq.hw.name);
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

  check_token_budget(rq, out.max_running);

  const AchievableHardware achievable = achievable_hardware(rq.hw);
  PerfInputs base = precision_perf_inputs(report, rq.precision, kv, achievable.hw, rules.memory);
  base.knobs = ExecutionKnobs::efficient();
  base.parallel = {rq.tp, 1, rq.ep, rq.dp_attention};
  out.precision_label =
      base.stored_label.empty() ? std::string(precision_name(rq.precision)) : base.stored_label;
  estimate_points(inv, report, base, achievable.hw, out);
  out.assumptions = serving_assumptions(out, achievable.how);
  if (std::optional<std::string> cast = bf16_as_fp16_note(base, achievable.hw))
    out.assumptions.push_back(std::move(*cast));
  return out;
}

}  // namespace ma
