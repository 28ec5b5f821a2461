// How each serving engine sizes a device's memory (the rules, with their defaults), one table of facts:
//  - transformers: weights, the KV cache of batch x context, one prefill's activations, and 10% for the
//    CUDA context, fragmentation and workspaces (the report's inference_total);
//  - vLLM (V1): gpu_memory_utilization of the device; within it the weights, the activation peak it
//    profiles (a forward pass of max_num_batched_tokens, or the sampler's logits for max_num_seqs
//    sequences, whichever is larger) and non-torch memory (communication buffers); the rest is the KV pool,
//    paged in blocks of block_size tokens. CUDA graphs and the CUDA context live in the headroom;
//  - SGLang: mem_fraction_static of the memory free at its start for the weights and the KV pool;
//  - llama.cpp: the KV cache of n_ctx tokens in type_k / type_v and a compute buffer for a ubatch;
//  - TGI (3.x): after a warm-up prefill of max_batch_prefill_tokens, the KV cache takes the memory free
//    beyond a headroom of (1 - cuda_memory_fraction x 0.90) of the device (TGI_WIGGLE_ROOM 0.90), in blocks
//    of its attention backend (flashinfer: 1 token);
//  - TensorRT-LLM (PyTorch backend): after a profiling forward of max_num_tokens, the KV cache takes
//    free_gpu_memory_fraction of the memory left below the peak, in blocks of tokens_per_block, at most
//    kv_cache_config.max_tokens.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

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
  std::optional<double> mem_fraction_static;         // SGLang, default 0.88
  std::optional<uint64_t> ubatch;                    // llama.cpp's n_ubatch, default 512
  std::optional<double> cuda_memory_fraction;        // TGI, default 1.0
  std::optional<uint64_t> max_batch_prefill_tokens;  // TGI's warm-up prefill, default 4096
  std::optional<double> free_gpu_memory_fraction;    // TensorRT-LLM, default 0.9
  std::optional<uint64_t> max_num_tokens;            // TensorRT-LLM's profiling forward, default 8192
  std::optional<uint64_t> kv_cache_max_tokens;       // TensorRT-LLM's kv_cache_config.max_tokens (no default)
};

// vLLM, SGLang, TGI and TensorRT-LLM: serving engines that run a model in 16 bits and page its cache.
bool is_serving_engine(PlanEngine e);

// The knobs with every default filled for a device of `device_bytes`.
EngineKnobs engine_defaults(PlanEngine e, const EngineKnobs& given, uint64_t device_bytes);

}  // namespace ma
