#include "cli/serve_args.h"

#include "analysis/perf/hardware.h"
#include "cli/arg_values.h"
#include "cli/hub_options.h"
#include "core/error.h"

namespace ma::cli {
namespace {

constexpr uint64_t kMaxServeTokens = 1ull << 24;
constexpr uint64_t kMaxClients = 1ull << 16;
constexpr uint64_t kMaxServeWays = 4096;
constexpr size_t kMaxSweepPoints = 64;  // each point times its own decode steps
// InferenceMAX's concurrencies, and their doublings on both sides.
constexpr uint64_t kDefaultSweep[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

std::vector<uint64_t> sweep_list(const std::string& text) {
  // `--sweep ''` (an unset shell variable, say) is a mistake, not a request for the default sweep.
  if (text.empty())
    throw Error(ErrorKind::Usage, "", "--sweep", "an empty list: give concurrencies such as 1,2,4,8");
  std::vector<uint64_t> out;
  size_t at = 0;
  while (at <= text.size()) {
    if (out.size() == kMaxSweepPoints)
      throw Error(ErrorKind::Usage, "", "--sweep", "at most " + std::to_string(kMaxSweepPoints) + " points");
    const size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(integer_arg("--sweep", text.substr(at, comma - at), 1, kMaxClients));
    at = comma + 1;
  }
  return out;
}

}  // namespace

CommandSpec serve_spec(ServeArgs& a) {
  CommandSpec s;
  s.name = "serve";
  s.operands = "MODEL";
  s.summary =
      "What a serving engine delivers at a load: TTFT, TPOT, inter-token and end-to-end latency and\n"
      "tokens/s per GPU for a closed loop of --concurrency clients, with a sweep over concurrency\n"
      "(the throughput-latency curve InferenceMAX draws).";
  s.operand = one_operand(a.model, s.name);
  add_result_output_options(s, a.outputs, "tokens/s per GPU against tokens/s per user: .png or .svg");
  ServeRequest& r = a.request;
  // clang-format off
  const std::vector<Option> own = {
      {{"--hw"}, "NAME|FILE.json", "accelerator from the hardware table, or a JSON profile (default h200)",
       [&a](const std::string& v) { a.hardware = v; }},
      {{"--config"}, "FILE.json", "a simulator config (build-config's, perhaps edited) instead of MODEL",
       [&a](const std::string& v) { a.config_file = v; }},
      {{"--tp"}, "N", "tensor-parallel GPUs holding one replica (default 1)",
       [&r](const std::string& v) { r.tp = static_cast<uint32_t>(integer_arg("--tp", v, 1, kMaxServeWays)); }},
      {{"--ep"}, "N", "expert parallel over the tensor-parallel group: 1 or --tp (default 1)",
       [&r](const std::string& v) { r.ep = static_cast<uint32_t>(integer_arg("--ep", v, 1, kMaxServeWays)); }},
      {{"--dp-attention"}, "", "attention data-parallel over the --tp GPUs (SGLang's --enable-dp-attention)",
       [&r](const std::string&) { r.dp_attention = true; }},
      {{"--precision"}, "P", "weights: fp8, fp4 or bf16 (default: as stored)",
       [&a](const std::string& v) { a.precision = choice_arg("--precision", v, {"fp8", "fp4", "bf16"}); }},
      {{"--kv-dtype"}, "DTYPE", "KV cache dtype (default: the checkpoint's, else the model's in 16 bits)",
       [&r](const std::string& v) {
         r.kv_dtype = dtype_from_any_name(v);
         if (!r.kv_dtype) throw Error(ErrorKind::Usage, "", "--kv-dtype", "unknown dtype '" + printable(v) + "'");
       }},
      {{"--isl"}, "N", "input tokens per request (default 1024)",
       [&r](const std::string& v) { r.isl = integer_arg("--isl", v, 1, kMaxServeTokens); }},
      {{"--osl"}, "N", "output tokens per request (default 1024)",
       [&r](const std::string& v) { r.osl = integer_arg("--osl", v, 1, kMaxServeTokens); }},
      {{"--concurrency"}, "N", "requests in flight: clients of the closed loop (default 64)",
       [&r](const std::string& v) { r.concurrency = integer_arg("--concurrency", v, 1, kMaxClients); }},
      {{"--engine"}, "E", "vllm (default), sglang, trt or atom: how prefills are scheduled, whose KV pool",
       [&r](const std::string& v) {
         r.engine = *serve_engine_from_name(choice_arg("--engine", v, {"vllm", "sglang", "trt", "trtllm", "atom"}));
       }},
      {{"--max-num-batched-tokens"}, "N", "tokens per engine step (default 8192; vllm, trt, atom: at least the requests running)",
       [&r](const std::string& v) { r.max_batched_tokens = integer_arg("--max-num-batched-tokens", v, 1, kMaxServeTokens); }},
      {{"--stream-interval"}, "N", "output tokens per streamed chunk (default: vllm 1, sglang 10)",
       [&r](const std::string& v) { r.stream_interval = static_cast<uint32_t>(integer_arg("--stream-interval", v, 1, 4096)); }},
      {{"--rounds"}, "N", "prompts per client in the benchmark, the first round sent at once (default 10; 0: steady state)",
       [&r](const std::string& v) { r.rounds = static_cast<uint32_t>(integer_arg("--rounds", v, 0, 1 << 20)); }},
      {{"--sweep"}, "C1,C2,...", "concurrencies of the curve (default 1,2,4,...,256)",
       [&a](const std::string& v) { a.sweep = v; }},
  };
  // clang-format on
  s.options.insert(s.options.end(), own.begin(), own.end());
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

ServeArgs parse_serve_args(const Args& args) {
  ServeArgs a;
  const CommandSpec spec = serve_spec(a);
  parse_command_line(args, spec);
  require_model_or_config(a.model, a.config_file, spec);
  a.hub.flags.quiet = a.common.quiet;
  a.request.hw = resolve_hardware(a.hardware);
  if (!a.sweep)
    a.request.sweep.assign(std::begin(kDefaultSweep), std::end(kDefaultSweep));
  else
    a.request.sweep = sweep_list(*a.sweep);
  if (a.request.ep != 1 && a.request.ep != a.request.tp)
    throw Error(ErrorKind::Usage, "", "--ep",
                "expert parallel must be 1 or the tensor-parallel size " + std::to_string(a.request.tp));
  require_distinct_outputs(output_claims(a.outputs));
  // Before the model is read: the profile's own file is the one to name.
  check_serving_hardware(a.request.hw, a.request.tp, a.hardware);
  return a;
}

}  // namespace ma::cli
