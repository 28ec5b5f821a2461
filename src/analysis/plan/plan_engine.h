// How each serving engine sizes a device's memory (the rules, with their defaults), one table of facts:
//  - transformers: weights, the KV cache of batch x context, one prefill's activations, and 10% for the
//    CUDA context, fragmentation and workspaces (the report's inference_total);
//  - vLLM (V1): gpu_memory_utilization of the device; within it the weights, the activation peak it
//    profiles (a forward pass of max_num_batched_tokens, or the sampler's logits for max_num_seqs
//    sequences, whichever is larger) and non-torch memory (communication buffers); the rest is the KV pool,
//    paged in blocks of block_size tokens. CUDA graphs and the CUDA context live in the headroom;
//  - SGLang: mem_fraction_static of the memory free at its start for the weights and the KV pool, by
//    default what its server_args derive from the GPU's memory and the parallel sizes
//    (sglang_default_fraction);
//  - llama.cpp: the KV cache of n_ctx tokens in type_k / type_v and a compute buffer for a ubatch;
//  - TGI (3.x): after a warm-up prefill of max_batch_prefill_tokens, the KV cache takes the memory free
//    beyond a headroom of (1 - cuda_memory_fraction x 0.90) of the device (TGI_WIGGLE_ROOM 0.90), in blocks
//    of its attention backend (flashinfer: 1 token);
//  - TensorRT-LLM (PyTorch backend): after a profiling forward of max_num_tokens, the KV cache takes
//    free_gpu_memory_fraction of the memory left below the peak, in blocks of tokens_per_block, at most
//    kv_cache_config.max_tokens.
// The same table says what each engine's own flags accept (cache types, weight types) and which engine reads
// each knob, so `plan` refuses a configuration the engine would not start and warns of another's knobs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"

namespace ma {

enum class PlanEngine { Transformers, Vllm, Sglang, LlamaCpp, Tgi, TensorrtLlm };
std::string_view engine_name(PlanEngine e);  // transformers, vllm, sglang, llama.cpp, tgi, tensorrt-llm
std::optional<PlanEngine> engine_from_name(std::string_view name);

// The engines' knobs; unset ones take the engine's default (engine_defaults).
struct EngineKnobs {
  std::optional<double> gpu_memory_utilization;      // vLLM, default 0.9
  std::optional<uint64_t> max_num_batched_tokens;    // vLLM: 8192 on a >= 70 GiB device, else 2048
  std::optional<uint64_t> max_num_seqs;              // vLLM: 1024 on a >= 70 GiB device, else 256
  std::optional<uint64_t> block_size;                // tokens per KV block: vLLM 16, TGI 1, TensorRT-LLM 32
  std::optional<double> mem_fraction_static;         // SGLang; default: sglang_default_fraction
  std::optional<uint64_t> ubatch;                    // llama.cpp's n_ubatch (--ubatch-size), default 512
  std::optional<double> cuda_memory_fraction;        // TGI, default 1.0
  std::optional<uint64_t> max_batch_prefill_tokens;  // TGI's warm-up prefill, default 4096
  std::optional<double> free_gpu_memory_fraction;    // TensorRT-LLM, default 0.9
  std::optional<uint64_t> max_num_tokens;            // TensorRT-LLM's profiling forward, default 8192
  std::optional<uint64_t> kv_cache_max_tokens;       // TensorRT-LLM's kv_cache_config.max_tokens (no default)
  // llama.cpp's --tensor-split: each GPU's share of its layers, one per GPU (proportions, as llama.cpp
  // normalises them); empty: its default, each GPU's free memory.
  std::vector<double> tensor_split;
  // llama.cpp's -ngl and --n-cpu-moe as the user runs them (above the model's layers: all of them); unset:
  // the offload plan chooses (the most the GPUs hold).
  std::optional<uint32_t> n_gpu_layers, n_cpu_moe;
};

// vLLM, SGLang, TGI and TensorRT-LLM: serving engines that run a model in 16 bits and page its cache.
bool is_serving_engine(PlanEngine e);

// The knobs with every default filled for a device of `device_bytes`, but SGLang's mem_fraction_static,
// which depends on the split as well (sglang_default_fraction).
EngineKnobs engine_defaults(PlanEngine e, const EngineKnobs& given, uint64_t device_bytes);

// SGLang's default mem_fraction_static (server_args.py, _handle_gpu_memory_settings, since its PR #10975 of
// October 2025): it reserves, in MiB of the GPU's memory (nvidia-smi's total), 512 for metadata, 1.5 x
// max(chunked prefill, 2048) for activations and 2 x cuda_graph_max_bs for CUDA graphs (both chosen by the
// GPU's memory bucket and TP), plus tp x pp / 8 x 1024 for communication, at least 10 GiB on a GPU of more
// than 60 GiB, and takes round((memory - reserved) / memory, 3). DP attention, piecewise CUDA graphs and
// speculative decoding, which reserve more, are not planned here. Versions before it took 0.88 at TP 1 down
// to 0.79 at TP 16. SGLang reads the memory from nvidia-smi, a few hundred MiB above the CUDA total the
// hardware table holds (81,559 against 81,090 MiB on an H100 80GB): the fraction may differ from the engine's
// in its last digit.
struct SglangFraction {
  double fraction = 0;
  uint64_t memory_mib = 0, chunked_prefill = 0, cuda_graph_max_bs = 0, reserved_mib = 0;
};
SglangFraction sglang_default_fraction(uint64_t device_bytes, uint32_t tp, uint32_t pp);

// The K and V cache types the engine's own cache-dtype flag takes (its default, the model's dtype, needs
// none): whether it runs `d`, and the types in its own spellings ("f32, f16, bf16, q8_0, ...") for a message.
bool engine_runs_kv_dtype(PlanEngine e, DType d);
std::string engine_kv_dtype_names(PlanEngine e);
// A cache type in the engine's own spelling (TGI's "fp8_e4m3fn"); nullopt: not one of its names.
std::optional<DType> engine_kv_dtype_named(PlanEngine e, std::string_view name);

// The weight precisions (plan's --dtype names: stored, bf16, fp8, int4) the engine runs. llama.cpp runs
// GGUF's types: bf16 is one, but none is fp8 (its Q8_0 takes 8.5 bits a weight) or int4 g128 (Q4_0 4.5,
// Q4_K 4.5).
bool engine_runs_precision(PlanEngine e, std::string_view precision);
std::string engine_precision_names(PlanEngine e);

// A knob given that another engine owns: `e` never reads it (engine_defaults leaves it as given), nor,
// where `offload` (a CPU offload is planned, llama.cpp's), does the offload plan. `knob` is the owners'
// spelling ("gpu_memory_utilization", llama.cpp's "ubatch_size"); `owners` names them ("vllm").
struct ForeignKnob {
  std::string_view knob;
  std::string owners;
};
std::vector<ForeignKnob> foreign_knobs(PlanEngine e, const EngineKnobs& given, bool offload);

}  // namespace ma
