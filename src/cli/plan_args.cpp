#include "cli/plan_args.h"

#include <algorithm>

#include "cli/arg_values.h"
#include "cli/hub_options.h"
#include "core/error.h"

namespace ma::cli {
namespace {

constexpr uint64_t kMaxSequences = 1ull << 20;
// -ngl and --n-cpu-moe beyond a model's layers mean all of them (llama.cpp's users write -ngl 999).
constexpr uint64_t kMaxLayersFlag = 1ull << 20;

// --kv-dtype once the engine is known (the flags come in any order): "auto" is the engine's default, a name
// may be the engine's own spelling (TGI's fp8_e4m3fn) or any dtype name.
std::optional<DType> kv_dtype_of(const std::string& text, PlanEngine e) {
  if (text.empty() || text == "auto") return std::nullopt;  // vLLM's, SGLang's and TensorRT-LLM's default
  if (std::optional<DType> d = engine_kv_dtype_named(e, text)) return d;
  if (std::optional<DType> d = dtype_from_any_name(text)) return d;
  throw Error(ErrorKind::Usage, "", "--kv-dtype", "unknown dtype '" + printable(text) + "'");
}

// The engine's flags take only what it runs: a cache or weight type it cannot hold is a usage error naming
// what it takes, not a plan for a configuration that would not start.
void require_engine_runs(const PlanArgs& a) {
  const PlanEngine e = a.request.engine;
  const std::string engine(engine_name(e));
  if (a.kv_dtype && !engine_runs_kv_dtype(e, *a.kv_dtype))
    throw Error(ErrorKind::Usage, "", "--kv-dtype",
                "'" + printable(a.kv_dtype_text) + "' is not a cache type " + engine + " runs; it takes " +
                    engine_kv_dtype_names(e) + " (or auto, its default)");
  const std::string_view precision = precision_name(a.request.precision);
  if (!engine_runs_precision(e, precision))
    throw Error(ErrorKind::Usage, "", "--dtype",
                std::string(precision) + " is not a weight type " + engine + " runs; it takes " +
                    engine_precision_names(e) +
                    (e == PlanEngine::LlamaCpp
                         ? " (plan a quantized .gguf file: its Q8_0, Q4_K... are sized as stored)"
                         : ""));
}

// llama.cpp's -ctk and -ctv: K and V each in a type of its own, the one not given in llama.cpp's default f16.
// Only llama.cpp keeps them apart; --kv-dtype sets both.
void read_cache_types(PlanArgs& a) {
  if (a.cache_type_k_text.empty() && a.cache_type_v_text.empty()) return;
  const PlanEngine e = a.request.engine;
  if (!a.kv_dtype_text.empty())
    throw Error(ErrorKind::Usage, "", "--cache-type-k/--cache-type-v",
                "--kv-dtype sets K and V both: give it, or these two");
  if (e != PlanEngine::LlamaCpp)
    throw Error(ErrorKind::Usage, "", "--cache-type-k/--cache-type-v",
                std::string(engine_name(e)) + " keeps K and V in one type: give --kv-dtype");
  auto type_of = [&](const std::string& text, const char* flag) {
    const std::optional<DType> d = text.empty() ? DType::F16 : kv_dtype_of(text, e);
    if (!d || !engine_runs_kv_dtype(e, *d))
      throw Error(ErrorKind::Usage, "", flag,
                  "'" + printable(text) + "' is not a cache type llama.cpp runs; it takes " +
                      engine_kv_dtype_names(e));
    return *d;
  };
  a.kv_dtype = type_of(a.cache_type_k_text, "--cache-type-k");
  a.request.v_dtype = type_of(a.cache_type_v_text, "--cache-type-v");
}

// Another engine's knobs change nothing: say so rather than leave the user thinking they were applied (the
// offload plan --cpu-ram asks for is llama.cpp's, whatever the engine).
std::vector<std::string> foreign_knob_warnings(const PlanRequest& r) {
  std::vector<std::string> out;
  for (const ForeignKnob& k : foreign_knobs(r.engine, r.knobs, r.cpu_ram.has_value())) {
    std::string flag = "--" + std::string(k.knob);
    std::replace(flag.begin(), flag.end(), '_', '-');
    out.push_back(flag + " is for " + k.owners + ": it does not apply to --engine " +
                  std::string(engine_name(r.engine)) + " (ignored)");
  }
  return out;
}

// llama.cpp's --tensor-split as its common/arg.cpp reads it: proportions separated by ',' or '/', one per
// GPU in order, the GPUs not named taking 0 (no layers); all 0 is its default split by free memory (an empty
// split here), and so is any split of one GPU, which holds every layer whatever its share. More shares than
// GPUs is refused, as llama.cpp refuses more than its devices.
std::vector<double> tensor_split_of(const std::string& text, size_t gpus) {
  std::vector<double> shares;
  size_t begin = 0;
  while (true) {
    const size_t end = text.find_first_of(",/", begin);
    shares.push_back(number_arg("--tensor-split", text.substr(begin, end - begin), 0, 1e15));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  if (shares.size() > gpus)
    throw Error(ErrorKind::Usage, "", "--tensor-split",
                std::to_string(shares.size()) + " shares for " + std::to_string(gpus) +
                    " GPU(s) of --gpu: give at most one a GPU");
  shares.resize(gpus, 0.0);
  if (gpus == 1 || std::all_of(shares.begin(), shares.end(), [](double s) { return s == 0; })) shares.clear();
  return shares;
}

}  // namespace

CommandSpec plan_spec(PlanArgs& a) {
  CommandSpec s;
  s.name = "plan";
  s.operands = "MODEL";
  s.summary =
      "Will it fit, where, and how fast: bytes per device (weights, KV cache, activations, engine\n"
      "overhead), the largest context and batch, valid tensor / pipeline / expert splits ranked by\n"
      "tokens/s, the widest precision that fits, llama.cpp offload (-ngl, --n-cpu-moe, -ts) with a CPU.";
  s.operand = one_operand(a.model, s.name);
  add_result_output_options(s, a.outputs,
                            "bytes per device as stacked bars and the layer strip: .png or .svg");
  PlanRequest& r = a.request;
  EngineKnobs& k = r.knobs;
  // clang-format off
  const std::vector<Option> own = {
      {{"--gpu"}, "SPEC", "devices: 24GB, h200, 8xh200, 2xh100-sxm (a count and a hardware name, or a size; binary GB); devices that differ in order: rtx4070ti,rtx3090ti",
       [&a](const std::string& v) { a.gpu = v; }},
      {{"--cpu-ram"}, "SIZE", "CPU memory for offloaded layers, e.g. 64GB (enables the offload plan)",
       [&a](const std::string& v) { a.cpu_ram = v; }},
      {{"--context", "--n-ctx", "--max-model-len"}, "N", "tokens per sequence (default: min(the model's maximum, 8,192))",
       [&r](const std::string& v) { r.context = integer_arg("--context", v, 1, kMaxTokenCount); }},
      {{"--batch", "--concurrency"}, "N", "sequences in flight (default 1)",
       [&r](const std::string& v) { r.batch = integer_arg("--batch", v, 1, kMaxSequences); }},
      {{"--dtype"}, "P", "weights: stored (default), bf16, fp8 or int4",
       [&r](const std::string& v) {
         r.precision = *precision_from_name(choice_arg("--dtype", v, {"stored", "bf16", "fp8", "int4"}));
       }},
      {{"--kv-dtype"}, "DTYPE", "K and V cache dtype, one the engine takes (default or auto: the checkpoint's, else the model's; llama.cpp f16)",
       [&a](const std::string& v) { a.kv_dtype_text = v; }},
      {{"--cache-type-k", "-ctk"}, "T", "llama.cpp: K's cache type (the other f16 unless given)",
       [&a](const std::string& v) { a.cache_type_k_text = v; }},
      {{"--cache-type-v", "-ctv"}, "T", "llama.cpp: V's cache type (the other f16 unless given)",
       [&a](const std::string& v) { a.cache_type_v_text = v; }},
      {{"--engine"}, "E", "transformers (default), vllm, sglang, llama.cpp, tgi or tensorrt-llm: whose memory rules",
       [&r](const std::string& v) {
         r.engine = *engine_from_name(choice_arg(
             "--engine", v, {"transformers", "vllm", "sglang", "llama.cpp", "tgi", "tensorrt-llm", "trtllm"}));
       }},
      {{"--gpu-memory-utilization"}, "F", "vLLM: fraction of each device it may use (default 0.9)",
       [&k](const std::string& v) { k.gpu_memory_utilization = number_arg("--gpu-memory-utilization", v, 0.01, 1); }},
      {{"--max-num-batched-tokens"}, "N", "vLLM: tokens of its profiled forward pass (default 8192 on >= 70 GiB, else 2048)",
       [&k](const std::string& v) { k.max_num_batched_tokens = integer_arg("--max-num-batched-tokens", v, 1, kMaxTokenCount); }},
      {{"--max-num-seqs"}, "N", "vLLM: sequences its sampler is profiled for (default 1024 on >= 70 GiB, else 256)",
       [&k](const std::string& v) { k.max_num_seqs = integer_arg("--max-num-seqs", v, 1, kMaxSequences); }},
      {{"--block-size"}, "N", "tokens per KV block (default: vLLM 16, TGI 1, TensorRT-LLM 32)",
       [&k](const std::string& v) { k.block_size = integer_arg("--block-size", v, 1, 1 << 16); }},
      {{"--mem-fraction-static"}, "F", "SGLang: fraction for weights and the KV pool (default: SGLang's, from the GPU's memory, TP and PP)",
       [&k](const std::string& v) { k.mem_fraction_static = number_arg("--mem-fraction-static", v, 0.01, 1); }},
      {{"--cuda-memory-fraction"}, "F", "TGI: fraction of each device it may use (default 1.0)",
       [&k](const std::string& v) { k.cuda_memory_fraction = number_arg("--cuda-memory-fraction", v, 0.01, 1); }},
      {{"--max-batch-prefill-tokens"}, "N", "TGI: tokens of its warm-up prefill (default 4096)",
       [&k](const std::string& v) { k.max_batch_prefill_tokens = integer_arg("--max-batch-prefill-tokens", v, 1, kMaxTokenCount); }},
      {{"--free-gpu-memory-fraction"}, "F", "TensorRT-LLM: share for the KV cache of what its profiling pass leaves (default 0.9)",
       [&k](const std::string& v) { k.free_gpu_memory_fraction = number_arg("--free-gpu-memory-fraction", v, 0.01, 1); }},
      {{"--max-num-tokens"}, "N", "TensorRT-LLM: tokens of its profiling forward pass (default 8192)",
       [&k](const std::string& v) { k.max_num_tokens = integer_arg("--max-num-tokens", v, 1, kMaxTokenCount); }},
      {{"--kv-cache-max-tokens"}, "N", "TensorRT-LLM: at most this many KV tokens (kv_cache_config.max_tokens)",
       [&k](const std::string& v) { k.kv_cache_max_tokens = integer_arg("--kv-cache-max-tokens", v, 1, kMaxTokenCount); }},
      {{"--tp"}, "N", "only splits with this tensor-parallel size",
       [&r](const std::string& v) { r.tp = static_cast<uint32_t>(integer_arg("--tp", v, 1, 4096)); }},
      {{"--pp"}, "N", "only splits with this many pipeline stages",
       [&r](const std::string& v) { r.pp = static_cast<uint32_t>(integer_arg("--pp", v, 1, 4096)); }},
      {{"--weights"}, "", "read the local weights: kurtosis and outliers per block as a quantization hint",
       [&a](const std::string&) { a.read_weights = true; }},
      {{"--cpu-bw"}, "GB/S", "CPU memory bandwidth for offloaded layers (default 50)",
       [&r](const std::string& v) { r.cpu_gbps = positive_number_arg("--cpu-bw", v, 1e5); }},
      {{"--ubatch-size", "-ub"}, "N", "llama.cpp: tokens of its compute buffer's ubatch (default 512)",
       [&k](const std::string& v) { k.ubatch = integer_arg("--ubatch-size", v, 1, kMaxTokenCount); }},
      {{"--n-gpu-layers", "--gpu-layers", "-ngl"}, "N", "llama.cpp: its last N slots (the output last) on the GPUs, as you run it (default: the most they hold)",
       [&k](const std::string& v) { k.n_gpu_layers = static_cast<uint32_t>(integer_arg("--n-gpu-layers", v, 0, kMaxLayersFlag)); }},
      {{"--n-cpu-moe", "-ncmoe"}, "N", "llama.cpp: the routed experts of the first N layers in CPU RAM (default: the fewest the GPUs need)",
       [&k](const std::string& v) { k.n_cpu_moe = static_cast<uint32_t>(integer_arg("--n-cpu-moe", v, 0, kMaxLayersFlag)); }},
      {{"--cpu-moe", "-cmoe"}, "", "llama.cpp: every layer's routed experts in CPU RAM (--n-cpu-moe of every layer)",
       [&k](const std::string&) { k.n_cpu_moe = static_cast<uint32_t>(kMaxLayersFlag); }},
      {{"--tensor-split", "-ts"}, "SHARES", "llama.cpp: each GPU's share of the layers, e.g. 3,1 (default: each GPU's memory, and plan searches a split of its own)",
       [&a](const std::string& v) { a.tensor_split = v; }},
  };
  // clang-format on
  s.options.insert(s.options.end(), own.begin(), own.end());
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

PlanArgs parse_plan_args(const Args& args) {
  PlanArgs a = parse_model_command(args, plan_spec);
  if (a.gpu.empty())
    throw Error(ErrorKind::Usage, "", "--gpu", "is required: which devices to plan for (e.g. 8xh200, 24GB)");
  a.request.gpus = parse_device_spec(a.gpu, "--gpu");
  if (!a.cpu_ram.empty()) a.request.cpu_ram = parse_memory_size(a.cpu_ram, "--cpu-ram");
  if (a.tensor_split) a.request.knobs.tensor_split = tensor_split_of(*a.tensor_split, a.request.gpus.count);
  a.kv_dtype = kv_dtype_of(a.kv_dtype_text, a.request.engine);
  read_cache_types(a);
  require_engine_runs(a);
  a.warnings = foreign_knob_warnings(a.request);
  require_distinct_outputs(output_claims(a.outputs));
  return a;
}

}  // namespace ma::cli
