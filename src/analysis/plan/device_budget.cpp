#include "analysis/plan/device_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "analysis/memory_math.h"
#include "model/unloaded_tensors.h"

namespace ma {
namespace {

using memory::add;
using memory::mul;
using memory::num;

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kTransformersOverheadPercent = 10;  // as the report's inference_overhead
// vLLM's profile run: non-torch memory grows by ~0.25 GiB on one GPU (the CUDA kernel modules loaded as the
// first forward runs) and by ~2.1 GiB with tensor parallel (custom all-reduce and NCCL buffers), as the
// vLLM 0.19 logs in ../shared/data/engines print it.
constexpr uint64_t kVllmNonTorchSingle = kGiB / 4;
constexpr uint64_t kVllmNonTorchParallel = 2 * kGiB + kGiB / 8;
constexpr uint64_t kKernelModules = kVllmNonTorchSingle;
// What a worker holds before it loads anything: the CUDA context (0.51 GiB on an H100), and with tensor
// parallel the NCCL communicators made at start-up too (1.53 GiB) - vLLM 0.19's "worker init memory
// snapshot" lines on H100 in ../shared/data/engines. SGLang measures its total after these.
constexpr uint64_t kStartupSingle = kGiB / 2;
constexpr uint64_t kStartupParallel = kGiB + kGiB / 2;
// TGI keeps (1 - cuda_memory_fraction x TGI_WIGGLE_ROOM) of the device free of its KV cache; the wiggle room
// defaults to 0.90 (text_generation_server/models/globals.py, TGI 2.3 and later).
constexpr double kTgiWiggleRoom = 0.90;
// vLLM's sampler warm-up holds fp32 logits for max_num_seqs sequences and sorts them for top-k/top-p: the
// logits (4 bytes), the sorted values (4) and their int64 indices (8) per vocabulary entry.
constexpr uint64_t kSamplerBytesPerLogit = 16;

// The checkpoint's name of the language stack: the template's in-memory path when the tensors use it, else
// (a checkpoint that names it its own way: Nemotron-H's "backbone.layers" for "model.layers", ViT's
// "vit.encoder.layer" for transformers 5's "vit.encoder.layers") the stack with the most layered tensors,
// a decoder's towers and encoder aside.
std::string_view stored_stack_name(const Inventory& inv, const StackSpec* main) {
  if (!main) return {};
  std::vector<std::pair<std::string_view, size_t>> stacks;
  for (const InventoryTensor& t : inv.tensors) {
    if (!t.placement.layer) continue;
    const std::string_view s = t.stack();
    if (s == main->path) return s;
    auto it = std::find_if(stacks.begin(), stacks.end(), [&](const auto& e) { return e.first == s; });
    if (it == stacks.end())
      stacks.emplace_back(s, 1);
    else
      ++it->second;
  }
  std::string_view best;
  size_t most = 0;
  for (const auto& [s, n] : stacks) {
    const bool aside =
        main->role == StackRole::Decoder && (s.find("encoder") != s.npos || s.find("vision") != s.npos ||
                                             s.find("visual") != s.npos || s.find("audio") != s.npos);
    if (aside || n <= most) continue;
    best = s;
    most = n;
  }
  return best;
}

// llama.cpp rounds n_ctx up to whole 256-cell pages of its KV cache ("padding = 256" in its log).
constexpr uint64_t kLlamaCppKvPadding = 256;
uint64_t llama_cpp_cells(uint64_t context) {
  return memory::ceil_div(context, kLlamaCppKvPadding) * kLlamaCppKvPadding;
}

// Tokens a sliding-window layer caches per sequence of `cached` tokens: the window; llama.cpp's iSWA cache
// keeps a ubatch beyond it, in whole cells (llama_kv_cache_iswa: pad(n_swa + n_ubatch, 256), 768 cells for
// gpt-oss's 128-token window, where the window alone undercounted its buffer by 15.7 MB at 131k).
uint64_t window_tokens(PlanEngine engine, const EngineKnobs& k, uint64_t window, uint64_t cached) {
  if (engine == PlanEngine::LlamaCpp && k.ubatch)
    return std::min(cached, llama_cpp_cells(window + *k.ubatch));
  return std::min(window, cached);
}

struct StageCache {
  uint64_t demand = 0;     // batch x context, windows capped, state included
  uint64_t per_token = 0;  // every attention layer counted whole (how vLLM sizes its pool)
};

StageCache stage_cache(const BudgetModel& m, uint32_t first, uint32_t end, uint32_t tp, uint64_t batch,
                       uint64_t context, PlanEngine engine, const EngineKnobs& k) {
  StageCache c;
  for (const KvLayer& l : m.kv.layers) {
    if (l.layer < first || l.layer >= end) continue;
    const uint64_t split = cache_split(l, *m.arch, tp);
    const uint64_t tokens = l.window ? window_tokens(engine, k, l.window, context) : context;
    const uint64_t seq = add({mul({l.bytes_per_token, tokens}, "kv"), l.state_bytes_per_sequence}, "kv");
    c.demand = add({c.demand, mul({batch, seq}, "kv") / split}, "kv");
    c.per_token += l.bytes_per_token / split;
  }
  return c;
}

// `embedding_here`: the stage holds what runs before the layers (the first stage, except under llama.cpp,
// which keeps the token embedding on the CPU); `output_here`: the final norm and head, with a copy of a tied
// embedding where the stage does not hold it.
uint64_t stage_weights(const WeightLayout& w, uint32_t first, uint32_t end, bool embedding_here,
                       bool output_here) {
  uint64_t b = 0;
  for (uint32_t l = first; l < end; ++l) b += w.layer_bytes[l];
  if (embedding_here) b += w.before_bytes;
  if (output_here) b += w.after_bytes + (embedding_here ? 0 : w.tied_head_bytes);
  return b;
}

uint64_t fraction_of(uint64_t bytes, double f) {
  return static_cast<uint64_t>(std::floor(static_cast<double>(bytes) * f));
}

// One forward pass over `tokens` tokens: the residual stream and normed input (2h) and the widest FFN
// intermediates per token, split over the tensor-parallel group (the FFN is; the residual is not).
uint64_t forward_activations(const BudgetModel& m, uint64_t tokens, uint32_t tp) {
  const uint64_t h = m.arch->hidden_size;
  return mul({tokens, add({mul({2, h}, "2h"), m.ffn.elements / tp}, "width"), m.activation_bytes}, "act");
}

// The KV pool of an engine that gives its cache what `budget` leaves after the weights, activations and its
// own overhead (set in d), paged in blocks of `block_size` tokens, every attention layer counted whole (vLLM,
// TGI): its bytes, its tokens in whole blocks, and what it holds beyond the batch's demand.
uint64_t fill_paged_pool(uint64_t budget, uint64_t block_size, const StageCache& cache, DeviceBytes& d,
                         EngineView& v) {
  const uint64_t non_kv = d.weights + d.activations + d.overhead;
  const uint64_t pool = budget > non_kv ? budget - non_kv : 0;
  const uint64_t block = mul({block_size, std::max<uint64_t>(cache.per_token, 1)}, "block");
  v.kv_cache_tokens = cache.per_token ? pool / block * block_size : 0;
  v.kv_cache_bytes = pool;
  d.kv = cache.demand;
  d.kv_spare = pool > cache.demand ? pool - cache.demand : 0;
  return pool;
}

// vLLM's profiled peak: the larger of the forward pass and the sampler's warm-up, which only the last
// pipeline stage runs (the others hold no logits: there the peak is the forward pass, not "sampler = 0").
std::string vllm_peak_formula(const EngineKnobs& k, uint64_t vocab, uint64_t forward, uint64_t sampler,
                              bool last_stage) {
  const std::string pass =
      "forward of max_num_batched_tokens " + num(*k.max_num_batched_tokens) + " = " + num(forward);
  if (!last_stage) return "activation peak = " + pass + " (the sampler runs on the last pipeline stage only)";
  return "activation peak = max(" + pass + ", sampler " + num(*k.max_num_seqs) + " seqs x " + num(vocab) +
         " vocab x " + num(kSamplerBytesPerLogit) + " bytes = " + num(sampler) + ")";
}

// Sequences of this context a pool serves: its bytes over one sequence's (windows capped, state included),
// the rule for every layer kind. kv_cache_tokens / context is that only where every layer keeps every token:
// Gemma 3 at 32k on 2 H200s read 0.75 sequences of a pool sized for 4.
double pool_concurrency(uint64_t pool_bytes, uint64_t demand, uint64_t batch) {
  return demand ? static_cast<double>(pool_bytes) * static_cast<double>(batch) / static_cast<double>(demand)
                : 0;
}

void fill_device(const BudgetModel& m, const Split& s, uint64_t batch, uint64_t context, PlanEngine engine,
                 const EngineKnobs& k, uint64_t weights, const StageCache& cache, bool last_stage,
                 DeviceBytes& d, EngineView& v) {
  d.weights = weights;
  const uint64_t vocab = m.arch->vocab_size;
  switch (engine) {
    case PlanEngine::Transformers: {
      d.kv = cache.demand;
      // The report's inference_activations, the FFN intermediates split over the tensor-parallel group;
      // the logits where the head runs (the last pipeline stage).
      const PrefillActivations p =
          prefill_activations(*m.arch, m.logits, batch, context, m.activation_bytes, s.tp);
      d.activations = add({p.layer_bytes, last_stage ? p.logits_bytes : 0}, "act");
      const uint64_t sum = add({d.weights, d.kv, d.activations}, "sum");
      d.overhead = memory::percent_of(sum, kTransformersOverheadPercent);
      v.formulas.push_back(
          "transformers: weights + KV cache of batch x context + one prefill's activations + " +
          num(kTransformersOverheadPercent) + "% (CUDA context, fragmentation, workspaces)");
      v.formulas.push_back("activations = " + p.layer_formula +
                           (last_stage ? " + " + p.logits_formula : std::string(" (no head on this stage)")));
      break;
    }
    case PlanEngine::Vllm: {
      const uint64_t forward = forward_activations(m, *k.max_num_batched_tokens, s.tp);
      const uint64_t sampler =
          last_stage ? mul({*k.max_num_seqs, vocab, kSamplerBytesPerLogit}, "sampler") : 0;
      d.activations = std::max(forward, sampler);
      d.overhead = s.tp > 1 ? kVllmNonTorchParallel : kVllmNonTorchSingle;
      d.reserved = d.capacity - fraction_of(d.capacity, *k.gpu_memory_utilization);
      const uint64_t pool = fill_paged_pool(d.capacity - d.reserved, *k.block_size, cache, d, v);
      v.formulas.push_back("vLLM: pool = gpu_memory_utilization " +
                           std::to_string(*k.gpu_memory_utilization).substr(0, 4) + " x " + num(d.capacity) +
                           " - weights " + num(d.weights) + " - activation peak " + num(d.activations) +
                           " - non-torch " + num(d.overhead) + " = " + num(pool) + " bytes");
      v.formulas.push_back(vllm_peak_formula(k, vocab, forward, sampler, last_stage));
      v.formulas.push_back("KV tokens = floor(pool / (block_size " + num(*k.block_size) + " x " +
                           num(cache.per_token) +
                           " bytes per token)) x block_size = " + num(v.kv_cache_tokens));
      break;
    }
    case PlanEngine::Sglang: {
      // SGLang takes its total as the memory free once the CUDA context and communicators exist, keeps
      // (1 - mem_fraction_static) of that total for activations and CUDA graphs, and gives the KV pool what
      // the free memory after loading (the weights and the kernel modules loading brings in) leaves above
      // that reserve: pool = mem_fraction_static x free at start - weights - kernel modules. (Its log's
      // QwQ-32B TP4 run: 0.85 x 21.63 GiB - 15.54 GiB "mem usage" of the load = 46,611 tokens.)
      const uint64_t startup = std::min(d.capacity, worker_startup_bytes(s.tp));
      const uint64_t free_at_start = d.capacity - startup;
      const SglangFraction auto_fraction = sglang_default_fraction(d.capacity, s.tp, s.pp);
      const double fraction = k.mem_fraction_static.value_or(auto_fraction.fraction);
      const uint64_t budget = fraction_of(free_at_start, fraction);
      d.reserved = free_at_start - budget;
      d.overhead = startup + kKernelModules;
      const uint64_t non_kv = d.weights + kKernelModules;
      const uint64_t pool = budget > non_kv ? budget - non_kv : 0;
      v.kv_cache_bytes = pool;
      v.kv_cache_tokens = cache.per_token ? pool / cache.per_token : 0;
      d.kv = cache.demand;
      d.kv_spare = pool > cache.demand ? pool - cache.demand : 0;
      if (!k.mem_fraction_static)
        v.formulas.push_back(
            "SGLang's default mem_fraction_static = round((" + num(auto_fraction.memory_mib) +
            " MiB - reserved " + num(auto_fraction.reserved_mib) + " MiB) / " +
            num(auto_fraction.memory_mib) +
            " MiB, 3) = " + std::to_string(auto_fraction.fraction).substr(0, 5) +
            "; reserved = 512 + 1.5 x chunked prefill " + num(auto_fraction.chunked_prefill) +
            " + 2 x cuda_graph_max_bs " + num(auto_fraction.cuda_graph_max_bs) + " + tp x pp / 8 x 1024" +
            (auto_fraction.memory_mib > 60 * 1024 ? ", at least 10,240 on a GPU over 60 GiB" : ""));
      v.formulas.push_back("SGLang: KV pool = mem_fraction_static " + std::to_string(fraction).substr(0, 5) +
                           " x free at start " + num(free_at_start) + " (device " + num(d.capacity) +
                           " - CUDA context" + (s.tp > 1 ? " and communicators " : " ") + num(startup) +
                           ") - weights " + num(d.weights) + " - kernel modules " + num(kKernelModules) +
                           " = " + num(pool) + " bytes; activations and CUDA graphs live in the rest");
      v.formulas.push_back("KV tokens = floor(pool / " + num(cache.per_token) +
                           " bytes per token) = " + num(v.kv_cache_tokens));
      break;
    }
    case PlanEngine::Tgi: {
      // TGI warms up with one prefill of max_batch_prefill_tokens (its cache blocks allocated), measures the
      // memory free after it and gives the KV cache that, less a headroom of (1 - cuda_memory_fraction x
      // 0.90) of the device, plus the warm-up's own blocks back: pool = fraction x 0.90 x device - CUDA
      // context - weights - the warm-up's activations - kernel modules.
      const uint64_t startup = std::min(d.capacity, worker_startup_bytes(s.tp));
      d.activations = forward_activations(m, *k.max_batch_prefill_tokens, s.tp);
      d.overhead = startup + kKernelModules;
      const uint64_t budget = fraction_of(d.capacity, *k.cuda_memory_fraction * kTgiWiggleRoom);
      d.reserved = d.capacity - budget;
      const uint64_t pool = fill_paged_pool(budget, *k.block_size, cache, d, v);
      v.formulas.push_back("TGI: KV cache = cuda_memory_fraction " +
                           std::to_string(*k.cuda_memory_fraction).substr(0, 4) + " x wiggle room 0.90 x " +
                           num(d.capacity) + " - CUDA context" + (s.tp > 1 ? " and communicators " : " ") +
                           num(startup) + " - weights " + num(d.weights) + " - warm-up activations " +
                           num(d.activations) + " - kernel modules " + num(kKernelModules) + " = " +
                           num(pool) + " bytes");
      v.formulas.push_back("warm-up activations = forward of max_batch_prefill_tokens " +
                           num(*k.max_batch_prefill_tokens) + " = " + num(d.activations));
      v.formulas.push_back("KV tokens = floor(pool / (block " + num(*k.block_size) + " x " +
                           num(cache.per_token) + " bytes per token)) x block = " + num(v.kv_cache_tokens) +
                           " (MAX_BATCH_TOTAL_TOKENS)");
      break;
    }
    case PlanEngine::TensorrtLlm: {
      // TensorRT-LLM's PyTorch backend profiles a forward of max_num_tokens, then gives the KV cache
      // free_gpu_memory_fraction of what is left below that peak (the small cache it profiled with counted
      // back): pool = fraction x (device - CUDA context - weights - activations - kernel modules), in whole
      // blocks of tokens_per_block (rounded up), at most kv_cache_config.max_tokens.
      const uint64_t startup = std::min(d.capacity, worker_startup_bytes(s.tp));
      d.activations = forward_activations(m, *k.max_num_tokens, s.tp);
      d.overhead = startup + kKernelModules;
      const uint64_t peak = add({d.weights, d.activations, d.overhead}, "peak");
      const uint64_t left = d.capacity > peak ? d.capacity - peak : 0;
      const uint64_t share = fraction_of(left, *k.free_gpu_memory_fraction);
      uint64_t tokens = cache.per_token ? share / cache.per_token : 0;
      if (k.kv_cache_max_tokens) tokens = std::min(tokens, *k.kv_cache_max_tokens);
      tokens = memory::ceil_div(tokens, *k.block_size) * *k.block_size;
      v.kv_cache_tokens = tokens;
      v.kv_cache_bytes = mul({tokens, cache.per_token}, "kv pool");
      d.reserved = left > v.kv_cache_bytes ? left - v.kv_cache_bytes : 0;
      d.kv = cache.demand;
      d.kv_spare = v.kv_cache_bytes > cache.demand ? v.kv_cache_bytes - cache.demand : 0;
      v.formulas.push_back("TensorRT-LLM: KV cache = free_gpu_memory_fraction " +
                           std::to_string(*k.free_gpu_memory_fraction).substr(0, 4) + " x (" +
                           num(d.capacity) + " - CUDA context" + (s.tp > 1 ? " and communicators " : " ") +
                           num(startup) + " - weights " + num(d.weights) + " - activations " +
                           num(d.activations) + " - kernel modules " + num(kKernelModules) +
                           ") = " + num(share) + " bytes");
      v.formulas.push_back("activations = forward of max_num_tokens " + num(*k.max_num_tokens) + " = " +
                           num(d.activations));
      v.formulas.push_back(
          "KV tokens = floor(" + num(share) + " / " + num(cache.per_token) + " bytes per token)" +
          (k.kv_cache_max_tokens ? ", at most max_tokens " + num(*k.kv_cache_max_tokens) : std::string()) +
          ", rounded up to blocks of " + num(*k.block_size) + " = " + num(tokens));
      break;
    }
    case PlanEngine::LlamaCpp: {
      d.kv = cache.demand;
      // The compute buffer of one ubatch: fp32 logits and the widest intermediates of n_ubatch tokens, and
      // the f16 attention mask over every cell, with a second one over the window's cells when layers slide
      // (llama_kv_cache_iswa masks each of its two caches) — an approximation: llama.cpp sizes it from its
      // graph, MLA models need several times more.
      const uint64_t u = *k.ubatch;
      const uint64_t cells = llama_cpp_cells(context);
      uint64_t window = 0;
      for (const KvLayer& l : m.kv.layers) window = std::max(window, l.window);
      const uint64_t window_cells = window ? window_tokens(engine, k, window, cells) : 0;
      d.activations =
          add({mul({u, vocab, 4}, "logits"), mul({u, m.ffn.elements + 2 * m.arch->hidden_size, 4}, "compute"),
               mul({u, cells + window_cells, 2}, "mask")},
              "compute buffer");
      // llama.cpp's -c counts the cells of every sequence (-np of them), each one's share its context.
      const std::string flags =
          batch > 1 ? " (-c " + num(mul({cells, batch}, "cells")) + " -np " + num(batch) + ")" : "";
      v.formulas.push_back("llama.cpp: KV of n_ctx " + num(context) + " rounded up to " + num(cells) +
                           " cells x batch " + num(batch) + flags + "; compute buffer ~ n_ubatch " + num(u) +
                           " x ((vocab + widest intermediates) x 4 bytes + " +
                           (window_cells ? "(cells + " + num(window_cells) + " window cells)" : "cells") +
                           " x 2 bytes of mask)");
      break;
    }
  }
  if (engine == PlanEngine::Transformers || engine == PlanEngine::LlamaCpp) {
    // The cache is sized for the batch: its tokens are the batch's (llama.cpp: whole cells), whatever its
    // sliding-window layers and recurrent state hold for them.
    v.kv_cache_bytes = cache.demand;
    v.kv_cache_tokens =
        mul({batch, engine == PlanEngine::LlamaCpp ? llama_cpp_cells(context) : context}, "kv tokens");
  }
  v.weights_bytes = d.weights;
  v.activation_peak_bytes = d.activations;
  v.non_kv_bytes = d.weights + d.activations + d.overhead;
  v.max_concurrency = pool_concurrency(v.kv_cache_bytes, cache.demand, batch);
}

// The tokens of one sequence an engine's cache holds for a context: llama.cpp's cells (a multiple of 256),
// vLLM's, TGI's and TensorRT-LLM's whole blocks of block_size (a context one token past the pool needs one
// more block, which vLLM refuses to start without); the context itself elsewhere.
uint64_t cached_tokens(PlanEngine engine, const EngineKnobs& k, uint64_t context) {
  if (engine == PlanEngine::LlamaCpp) return llama_cpp_cells(context);
  const bool paged =
      engine == PlanEngine::Vllm || engine == PlanEngine::Tgi || engine == PlanEngine::TensorrtLlm;
  if (paged && k.block_size && *k.block_size > 0)
    return memory::ceil_div(context, uint64_t{*k.block_size}) * *k.block_size;
  return context;
}

}  // namespace

uint64_t worker_startup_bytes(uint32_t tp) {
  return tp > 1 ? kStartupParallel : kStartupSingle;
}

std::string split_name(const Split& s) {
  std::string t = "TP " + std::to_string(s.tp) + " x PP " + std::to_string(s.pp);
  if (s.ep > 1) t += ", EP " + std::to_string(s.ep);
  return t;
}

uint64_t WeightLayout::total() const {
  uint64_t t = before_bytes + after_bytes;
  for (uint64_t b : layer_bytes) t += b;
  return t;
}

namespace {

// Blocks a token passes through before the first layer: the embeddings and the towers that feed them. A
// speech output reads the last layer's states: it follows the stack.
bool runs_first(Block b) {
  return b == Block::Embedding || (is_tower(b) && b != Block::SpeechOutput);
}

}  // namespace

WeightLayout weight_layout(const Inventory& inv, const std::vector<uint64_t>& tensor_bytes) {
  WeightLayout w;
  const std::string_view stack = stored_stack_name(inv, inv.arch.main_stack());
  const size_t layers = inv.arch.layers().size();
  w.layer_bytes.assign(layers, 0);
  w.layer_expert_bytes.assign(layers, 0);
  bool after = false;
  const std::vector<bool> unloaded = unloaded_tensors(inv);
  for (size_t i = 0; i < inv.tensors.size() && i < tensor_bytes.size(); ++i) {
    const InventoryTensor& t = inv.tensors[i];
    if (!t.stored && t.placement.block == Block::LmHead && !t.tied_to.empty()) {
      for (size_t j = 0; j < inv.tensors.size() && j < tensor_bytes.size(); ++j)
        if (inv.tensors[j].name == t.tied_to) w.tied_head_bytes += tensor_bytes[j];
      continue;
    }
    if (!t.stored) continue;
    const uint64_t b = tensor_bytes[i];
    // What inference does not load stays out (model/unloaded_tensors.h). A head stored beside the embedding
    // it is tied to is that embedding: the last pipeline stage alone needs a copy of it.
    if (unloaded[i]) {
      if (t.placement.block == Block::LmHead && !t.tied_to.empty()) w.tied_head_bytes += b;
      continue;
    }
    if (!stack.empty() && t.placement.layer && t.stack() == stack && *t.placement.layer < layers) {
      w.layer_bytes[*t.placement.layer] += b;
      if (t.routed_expert) w.layer_expert_bytes[*t.placement.layer] += b;
      after = true;
    } else if (runs_first(t.placement.block)) {
      w.before_bytes += b;  // wherever it is listed: a GGUF lists token_embd after every blk.*
    } else if (after || t.placement.block == Block::LmHead) {
      w.after_bytes += b;  // the final norm and the head follow the stack
    } else {
      w.before_bytes += b;  // an embedding norm (BLOOM's) is listed before the layers
    }
  }
  return w;
}

std::vector<uint32_t> balance_stages(const WeightLayout& w, uint32_t pp) {
  const uint32_t n = static_cast<uint32_t>(w.layer_bytes.size());
  if (pp <= 1 || n == 0) return {0};
  // The smallest stage limit for which greedy filling needs at most pp stages (binary search on bytes).
  auto stages_for = [&](uint64_t limit, std::vector<uint32_t>* starts) {
    uint32_t count = 1;
    uint64_t cur = w.before_bytes;
    if (starts) starts->assign(1, 0);
    for (uint32_t l = 0; l < n; ++l) {
      const uint64_t add_b = w.layer_bytes[l] + (l + 1 == n ? w.after_bytes + w.tied_head_bytes : 0);
      const uint32_t left = n - l;  // every later stage needs a layer
      if (cur + add_b > limit && l > 0 && count < pp && left >= 1) {
        ++count;
        cur = 0;
        if (starts) starts->push_back(l);
      }
      cur += add_b;
    }
    return count;
  };
  uint64_t lo = 1, hi = w.total() + w.tied_head_bytes;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    std::vector<uint32_t> s;
    stages_for(mid, &s);
    // feasible when every stage's bytes stay within mid
    bool ok = true;
    for (size_t i = 0; i < s.size() && ok; ++i) {
      const uint32_t end = i + 1 < s.size() ? s[i + 1] : n;
      ok = stage_weights(w, s[i], end, i == 0, end == n) <= mid;
    }
    if (ok)
      hi = mid;
    else
      lo = mid + 1;
  }
  std::vector<uint32_t> starts;
  stages_for(lo, &starts);
  // Fewer stages than asked (tiny models): split the largest stages until there are pp.
  while (starts.size() < pp && starts.size() < n) {
    size_t best = 0;
    uint32_t best_len = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
      const uint32_t end = i + 1 < starts.size() ? starts[i + 1] : n;
      if (end - starts[i] > best_len) best = i, best_len = end - starts[i];
    }
    if (best_len < 2) break;
    starts.insert(starts.begin() + static_cast<std::ptrdiff_t>(best) + 1, starts[best] + best_len / 2);
  }
  return starts;
}

LayerSplit llama_cpp_layer_split(uint32_t layers, std::span<const double> shares) {
  LayerSplit s;
  std::vector<float> splits;
  float sum = 0;
  for (double share : shares) splits.push_back(sum += static_cast<float>(share));
  for (float& f : splits) f /= sum;
  const uint32_t on_gpu = layers + 1;  // every layer and the output
  auto device_of = [&](uint32_t layer) {
    const auto at = std::upper_bound(splits.begin(), splits.end(),
                                     static_cast<float>(layer) / static_cast<float>(on_gpu));
    return std::min<size_t>(static_cast<size_t>(at - splits.begin()), splits.size() - 1);
  };
  s.starts.assign(splits.size(), layers);
  for (uint32_t l = layers; l-- > 0;) s.starts[device_of(l)] = l;
  // A device given no layer starts where the next one does.
  for (size_t d = splits.size() - 1; d-- > 0;) s.starts[d] = std::min(s.starts[d], s.starts[d + 1]);
  s.output_device = device_of(layers);
  return s;
}

namespace {

// vLLM gives every pipeline stage as many KV blocks as the tightest one holds (its engine core takes the
// fewest blocks over the workers' profiles: one block table serves the whole model), so a roomier stage
// leaves the rest of its budget free rather than caching more. A stage without attention layers caches no
// token and sets no bound.
void share_fewest_blocks(std::vector<StageBudget>& stages, std::vector<EngineView>& views,
                         const std::vector<StageCache>& caches, uint64_t batch) {
  std::optional<uint64_t> fewest;
  for (size_t i = 0; i < views.size(); ++i)
    if (caches[i].per_token) fewest = std::min(fewest.value_or(UINT64_MAX), views[i].kv_cache_tokens);
  if (!fewest) return;
  for (size_t i = 0; i < views.size(); ++i) {
    EngineView& v = views[i];
    if (!caches[i].per_token || v.kv_cache_tokens == *fewest) continue;
    DeviceBytes& d = stages[i].bytes;
    v.kv_cache_tokens = *fewest;
    v.kv_cache_bytes = mul({*fewest, caches[i].per_token}, "kv pool");
    d.kv_spare = v.kv_cache_bytes > d.kv ? v.kv_cache_bytes - d.kv : 0;
    v.max_concurrency = pool_concurrency(v.kv_cache_bytes, caches[i].demand, batch);
    v.formulas.push_back(
        "the pool is the tightest stage's " + num(*fewest) +
        " tokens: vLLM gives every stage the same blocks, the rest of this one's stays free");
  }
}

// The stage the split's figures describe: under a serving engine the one whose pool holds the fewest tokens
// (what the engine logs and admits requests by; a stage without attention layers caches none and bounds
// nothing), else the device with the least room left (devices that differ fill differently); a tie goes to
// the least room. A pool fills its budget, so room alone would pick whichever stage came first.
size_t tightest_stage(const std::vector<StageBudget>& stages, const std::vector<EngineView>& views,
                      const std::vector<StageCache>& caches, PlanEngine engine) {
  auto room = [](const DeviceBytes& d) {
    return static_cast<double>(d.capacity) - static_cast<double>(d.used());
  };
  auto tokens = [&](size_t i) {
    return is_serving_engine(engine) && caches[i].per_token ? views[i].kv_cache_tokens : UINT64_MAX;
  };
  size_t worst = 0;
  for (size_t i = 1; i < stages.size(); ++i)
    if (tokens(i) < tokens(worst) ||
        (tokens(i) == tokens(worst) && room(stages[i].bytes) < room(stages[worst].bytes)))
      worst = i;
  return worst;
}

}  // namespace

std::vector<uint64_t> layer_cache_bytes(const BudgetModel& m, uint64_t batch, uint64_t context,
                                        PlanEngine engine, const EngineKnobs& knobs) {
  const uint32_t n = static_cast<uint32_t>(m.weights.layer_bytes.size());
  std::vector<uint64_t> out(n, 0);
  const uint64_t tokens = cached_tokens(engine, knobs, context);
  for (uint32_t l = 0; l < n; ++l) out[l] = stage_cache(m, l, l + 1, 1, batch, tokens, engine, knobs).demand;
  return out;
}

Budget device_budget(const BudgetModel& m, Split split, uint64_t batch, uint64_t context, PlanEngine engine,
                     const EngineKnobs& knobs, uint64_t device_bytes) {
  return device_budget(m, split, batch, context, engine, knobs, std::span<const uint64_t>(&device_bytes, 1));
}

Budget device_budget(const BudgetModel& m, Split split, uint64_t batch, uint64_t context, PlanEngine engine,
                     const EngineKnobs& knobs, std::span<const uint64_t> device_bytes) {
  Budget b;
  b.split = split;
  const uint32_t n = static_cast<uint32_t>(m.weights.layer_bytes.size());
  // Each stage's device memory: the smallest of its tensor-parallel group.
  std::vector<uint64_t> capacity(split.pp, device_bytes.front());
  if (device_bytes.size() > 1)
    for (uint32_t st = 0; st < split.pp; ++st) {
      const uint32_t first = st * split.tp;
      capacity[st] = device_bytes[std::min<size_t>(first, device_bytes.size() - 1)];
      for (uint32_t d = first; d < first + split.tp && d < device_bytes.size(); ++d)
        capacity[st] = std::min(capacity[st], device_bytes[d]);
    }
  const bool llama = engine == PlanEngine::LlamaCpp;
  std::vector<uint32_t> starts;
  size_t output_stage = split.pp - 1;
  if (llama && split.pp > 1) {
    // --tensor-split's shares where given (llama.cpp runs its layer split alone: tp 1, a stage a GPU), else
    // each stage's memory.
    std::vector<double> shares(knobs.tensor_split);
    if (shares.size() != split.pp) {
      shares.clear();
      for (uint64_t c : capacity) shares.push_back(static_cast<double>(c * split.tp));
    }
    LayerSplit ls = llama_cpp_layer_split(n, shares);
    starts = std::move(ls.starts);
    output_stage = ls.output_device;
  } else {
    starts = balance_stages(m.weights, split.pp);
    output_stage = starts.size() - 1;
  }
  std::vector<EngineView> views;
  std::vector<StageCache> caches;
  for (size_t i = 0; i < starts.size(); ++i) {
    StageBudget st;
    st.first_layer = starts[i];
    st.end_layer = i + 1 < starts.size() ? starts[i + 1] : n;
    const bool embedding_here = i == 0 && !llama, output_here = i == output_stage;
    const uint64_t weights =
        stage_weights(m.weights, st.first_layer, st.end_layer, embedding_here, output_here) / split.tp;
    caches.push_back(stage_cache(m, st.first_layer, st.end_layer, split.tp, batch,
                                 cached_tokens(engine, knobs, context), engine, knobs));
    st.bytes.capacity = capacity[std::min(i, capacity.size() - 1)];
    views.emplace_back();
    fill_device(m, split, batch, context, engine, knobs, weights, caches.back(), output_here, st.bytes,
                views.back());
    b.stages.push_back(st);
  }
  if (engine == PlanEngine::Vllm) share_fewest_blocks(b.stages, views, caches, batch);
  const size_t worst = tightest_stage(b.stages, views, caches, engine);
  b.worst = b.stages[worst].bytes;
  b.engine = std::move(views[worst]);
  b.fits =
      std::all_of(b.stages.begin(), b.stages.end(), [](const StageBudget& st) { return st.bytes.fits(); });
  return b;
}

}  // namespace ma
