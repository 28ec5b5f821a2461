#include "analysis/memory.h"

#include <algorithm>
#include <array>

#include "analysis/memory_kv.h"
#include "analysis/memory_math.h"
#include "analysis/memory_training.h"
#include "model/stored_dtype.h"
#include "model/unloaded_tensors.h"

namespace ma {

std::string_view cache_kind_name(CacheKind k) {
  static constexpr std::string_view kNames[] = {"full",         "sliding", "chunked", "mla", "ssm-state",
                                                "linear-state", "cross",   "shared",  "none"};
  return kNames[static_cast<size_t>(k)];
}
namespace {

using memory::add;
using memory::ceil_div;
using memory::mul;
using memory::num;

constexpr uint64_t kInt4GroupSize = 128;    // GPTQ/AWQ's usual group size
constexpr uint64_t kInt4GroupOverhead = 4;  // fp16 scale + fp16 zero point per group
constexpr uint64_t kOverheadPercent = 10;   // CUDA context, allocator fragmentation, workspaces
constexpr uint64_t kLoraRank = 16;

// Whole-byte precisions: JSON key, label, bytes per parameter.
struct WidthRow {
  std::string_view key;
  std::string_view label;
  uint64_t bytes;
};
constexpr std::array<WidthRow, 5> kWidths{
    {{"fp32", "FP32", 4}, {"bf16", "BF16", 2}, {"fp16", "FP16", 2}, {"fp8", "FP8", 1}, {"int8", "INT8", 1}}};

// The model's compute dtype as transformers' torch_dtype="auto" picks it: the declared torch_dtype when it
// is a float of at least 16 bits, else the dtype the checkpoint stores its float weights in; nullopt when
// neither is known.
std::optional<DType> model_dtype(const Inventory& inv) {
  if (std::optional<DType> d = declared_float_dtype(inv.arch.torch_dtype)) return d;
  return inv.arch.stored_dtype;
}

// What a quantized checkpoint stores, predicted from its declaration and the template when no header was
// read: elements per stored dtype and the scale tensors, as the quantization section counts them.
std::string predicted_storage(const QuantizationInfo& q) {
  std::string parts;
  for (const auto& [dtype, elements] : q.elements_by_stored_dtype)
    parts += (parts.empty() ? "" : " + ") + num(elements) + " " + dtype;
  const std::string scales = q.quantization_scales_unpredicted
                                 ? " elements; its scale tensors are not predicted (left out)"
                                 : " elements + " + num(q.quantization_scale_tensors) + " scale tensors of " +
                                       num(q.quantization_scale_bytes) + " bytes";
  return "predicted from the " + q.source + " declaration (" + q.method + ") and the template: " + parts +
         scales;
}

std::vector<Estimate> weight_estimates(const ReportInputs& in, const QuantizationInfo& quant) {
  const uint64_t P = in.params.total;
  const std::string p = num(P) + " params";
  std::vector<Estimate> w;
  for (const WidthRow& pr : kWidths)
    w.push_back({"weights_" + std::string(pr.key),
                 mul({P, pr.bytes}, std::string(memory::kParameterFactor) + " x " + num(pr.bytes) + " bytes"),
                 p + " x " + num(pr.bytes) + (pr.bytes == 1 ? " byte" : " bytes")});
  const uint64_t groups = ceil_div(P, kInt4GroupSize);
  const std::string int4 = std::string(memory::kParameterFactor) + " x 0.5 byte + int4 groups";
  w.push_back({"weights_int4", add({ceil_div(P, 2), mul({groups, kInt4GroupOverhead}, int4)}, int4),
               p + " x 0.5 byte + " + num(groups) + " groups of " + num(kInt4GroupSize) + " x " +
                   num(kInt4GroupOverhead) + " bytes (fp16 scale + fp16 zero)"});
  if (const auto& ck = in.inventory.checkpoint) {
    const std::string predicted = "predicted from the index's tensor names and the template";
    if (ck->headers_read)
      w.push_back(
          {"weights_stored", ck->bytes,
           "tensor data in the " + ck->format + " headers of " + num(ck->files) + " file(s), as stored"});
    else if (quant.index_total_size_used)
      w.push_back({"weights_stored", *ck->index_total_size, "metadata.total_size of the checkpoint index"});
    else {
      // A quantized checkpoint's tensors in the dtypes its method stores them in, scales included.
      const uint64_t bytes = quant.quantized ? quant.stored_bytes : ck->bytes;
      const std::string how =
          quant.quantized ? predicted + ", " + quant.method + " weights in the dtype it stores" : predicted;
      w.push_back({"weights_stored", bytes,
                   ck->index_total_size
                       ? how + " (the index's metadata.total_size, " + num(*ck->index_total_size) +
                             " bytes, is below the " + num(bytes) +
                             " bytes the tensors it names take, so it is not used)"
                       : how});
    }
  } else if (quant.quantized && quant.stored_from == "template" && quant.stored_bytes) {
    w.push_back({"weights_stored", quant.stored_bytes, predicted_storage(quant)});
  }
  return w;
}

// An estimate that is unknown: bytes 0, never the known terms posing as the whole.
Estimate unknown_estimate(std::string name, std::string formula, std::string because) {
  return {std::move(name), 0, std::move(formula), false, std::move(because)};
}

// Bits per weight a quantized checkpoint declares, when its headers are not at hand.
std::optional<uint64_t> quantized_bits(const std::optional<DeclaredQuantization>& q) {
  if (!q) return std::nullopt;
  if (q->bits) return *q->bits;
  if (q->key == "bitsandbytes_4bit") return 4;
  if (q->key == "bitsandbytes_8bit" || q->key == "fp8") return 8;
  return std::nullopt;
}

// What inference does not load of a checkpoint (model/unloaded_tensors.h), sized as the stored weights are.
struct Unloaded {
  uint64_t tensors = 0, bytes = 0;
};

Unloaded unloaded(const Inventory& inv, const QuantizationInfo& q) {
  const std::vector<bool> skip = unloaded_tensors(inv);
  Unloaded u;
  for (size_t i = 0; i < skip.size() && i < q.tensor_bytes.size(); ++i)
    if (skip[i]) {
      ++u.tensors;
      u.bytes = add({u.bytes, q.tensor_bytes[i]}, "stored bytes of the tensors inference does not load");
    }
  return u;
}

// The weights as inference loads them: the checkpoint as stored less the extras it does not load, else the
// dtype the config declares.
Estimate inference_weights(const ReportInputs& in, const QuantizationInfo& quant, const MemoryReport& m,
                           DType compute) {
  if (const Estimate* s = m.find("weights_stored")) {
    const Unloaded u = unloaded(in.inventory, quant);
    if (!u.bytes || u.bytes > s->bytes) return {"inference_weights", s->bytes, "as stored: " + s->formula};
    return {"inference_weights", s->bytes - u.bytes,
            "as stored (" + num(s->bytes) + ": " + s->formula + ") less " + num(u.tensors) +
                " stored tensors of " + num(u.bytes) +
                " bytes that inference does not load (extras the model builds no module for, and their "
                "scales: an MTP layer is loaded only as a speculative-decoding draft)"};
  }
  if (auto bits = quantized_bits(in.inventory.arch.quantization)) {
    const Estimate* e = m.find(*bits <= 4 ? "weights_int4" : *bits <= 8 ? "weights_int8" : "weights_bf16");
    return {"inference_weights", e->bytes,
            "quantization_config declares " + num(*bits) + "-bit weights: " + e->formula};
  }
  const uint64_t b = dtype_bits(compute) / 8;
  return {"inference_weights",
          mul({in.params.total, b}, std::string(memory::kParameterFactor) + " x " + num(b) + " bytes"),
          num(in.params.total) + " params x " + num(b) + " bytes (" +
              std::string(dtype_info(compute).short_name) + ")"};
}

// The report's inference_activations: prefill_activations on one device, with its formula.
Estimate inference_activations(const ArchitectureRecord& a, const LogitsShape& logits, uint64_t batch,
                               uint64_t context, DType compute) {
  if (!context)
    return unknown_estimate("inference_activations", "unknown (context unknown: pass --context)",
                            "pass --context");
  const PrefillActivations p = prefill_activations(a, logits, batch, context, dtype_bits(compute) / 8);
  return {"inference_activations", add({p.layer_bytes, p.logits_bytes}, "activations + logits"),
          p.layer_formula + " + " + p.logits_formula +
              " (largest layer's intermediates, memory-efficient attention)"};
}

// What the inference terms lack, if anything: the KV cache without an architecture or, when it grows per
// token, without a context; the activations without a context or the layer widths. `what` empty: every term
// is known.
struct Missing {
  std::string what;     // "the KV cache and activations unknown (context unknown: pass --context)"
  std::string because;  // in short: what would make it known, or why nothing can
};

Missing inference_unknown(const ArchitectureRecord& a, const MemoryReport& m) {
  const bool kv = m.kv_cache_total_known(), activations = a.hidden_size && m.context;
  if (kv && activations) return {};
  std::string why;
  if (!m.kv_known) why = "no architecture";
  if (!m.context) why += (why.empty() ? "" : "; ") + std::string("context unknown: pass --context");
  if (m.context && !a.hidden_size && m.kv_known) why = "no layer widths";
  return {std::string(!kv && !activations ? "the KV cache and activations"
                      : !kv               ? "the KV cache"
                                          : "activations") +
              " unknown (" + why + ")",
          !m.kv_known  ? "no architecture"
          : !m.context ? "pass --context"
                       : "no layer widths"};
}

// A total that sums an unknown term: its formula the known terms and what is missing.
Estimate unknown_total(std::string name, const std::string& known_terms, const Missing& missing) {
  return unknown_estimate(std::move(name), "unknown: " + known_terms + "; " + missing.what, missing.because);
}

std::vector<Estimate> inference_estimates(const ReportInputs& in, const QuantizationInfo& quant,
                                          const MemoryReport& m, const LogitsShape& logits, DType compute) {
  std::vector<Estimate> out;
  out.push_back(inference_weights(in, quant, m, compute));
  const Missing missing = inference_unknown(in.inventory.arch, m);
  if (!m.kv_known)
    out.push_back(unknown_estimate("inference_kv_cache", "unknown (no architecture)", "no architecture"));
  else if (!m.kv_cache_total_known())
    out.push_back(unknown_estimate("inference_kv_cache",
                                   "unknown: the cache grows " + num(m.kv_cache_per_token_bytes) +
                                       " bytes per token and the context is unknown (pass --context)",
                                   "pass --context"));
  else
    out.push_back({"inference_kv_cache", m.kv_cache_bytes,
                   "kv_cache_bytes for batch " + num(m.batch) + " x context " + num(m.context)});
  if (in.inventory.arch.hidden_size)  // the record knows the widths (a template, or GGUF metadata)
    out.push_back(inference_activations(in.inventory.arch, logits, m.batch, m.context, compute));
  uint64_t sum = 0;
  for (const Estimate& e : out) sum = add({sum, e.bytes}, "weights + KV cache + activations");
  if (!missing.what.empty()) {
    const std::string weights = "weights " + num(out.front().bytes);
    out.push_back(unknown_total("inference_overhead",
                                num(kOverheadPercent) + "% of weights + KV cache + activations", missing));
    out.push_back(
        unknown_total("inference_total", weights + " + KV cache + activations + overhead", missing));
    return out;
  }
  const uint64_t overhead = memory::percent_of(sum, kOverheadPercent);
  out.push_back(
      {"inference_overhead", overhead,
       num(kOverheadPercent) + "% of " + num(sum) + " (CUDA context, allocator fragmentation, workspaces)"});
  out.push_back({"inference_total", add({sum, overhead}, "weights + KV cache + activations + overhead"),
                 "weights + KV cache + activations + overhead = " + num(sum) + " + " + num(overhead)});
  return out;
}

// Seed 002's "Inference (FP16)": the same sum with every term at 16 bits — fp16 weights whatever the
// checkpoint stores, the cache in fp16 (or --kv-dtype), 16-bit activations — so that models compare on one
// footing. Unknown when a term of the inference total is.
Estimate inference_total_fp16(const ReportInputs& in, const MemoryReport& m, const LogitsShape& logits) {
  const ArchitectureRecord& a = in.inventory.arch;
  const uint64_t weights = m.find("weights_fp16")->bytes;
  if (const Missing missing = inference_unknown(a, m); !missing.what.empty())
    return unknown_total("inference_total_fp16",
                         "fp16 weights " + num(weights) + " + KV cache + fp16 activations + " +
                             num(kOverheadPercent) + "% overhead",
                         missing);
  const KvCachePlan plan = plan_kv_cache(a, in.options.kv_dtype.value_or(DType::F16), DType::F16, m.context);
  const uint64_t kv = kv_cache_total(plan, m.batch, m.context);
  const uint64_t activations =
      a.hidden_size ? inference_activations(a, logits, m.batch, m.context, DType::F16).bytes : 0;
  const uint64_t sum = add({weights, kv, activations}, "fp16 weights + KV cache + activations");
  const uint64_t overhead = memory::percent_of(sum, kOverheadPercent);
  return {"inference_total_fp16", add({sum, overhead}, "fp16 weights + KV cache + activations + overhead"),
          "fp16 weights " + num(weights) + " + KV cache " + num(kv) + " (" +
              std::string(dtype_info(in.options.kv_dtype.value_or(DType::F16)).short_name) +
              ") + fp16 activations " + num(activations) + " + " + num(kOverheadPercent) + "% overhead " +
              num(overhead)};
}

}  // namespace

bool MemoryReport::kv_cache_total_known() const {
  return kv_known && (context != 0 || kv_cache_per_token_bytes == 0);
}

const Estimate* MemoryReport::find(std::string_view name) const {
  for (const std::vector<Estimate>* list : {&weights, &inference, &training})
    for (const Estimate& e : *list)
      if (e.name == name) return &e;
  return nullptr;
}

namespace {

// How the recurrent layers' states are sized: RecurrentGemma's, RWKV's and xLSTM's code fix their layout and
// dtype, where Mamba's configs name theirs.
std::string state_assumption(const ArchitectureRecord& a, DType compute) {
  const std::string dtype(dtype_info(compute).short_name);
  const auto has = [&](Mixer mixer) {
    return std::any_of(a.layers().begin(), a.layers().end(),
                       [mixer](const LayerSpec& l) { return l.mixer == mixer; });
  };
  if (has(Mixer::RgLru))
    return "RG-LRU states: the conv state in " + dtype +
           ", conv1d_width - 1 inputs as transformers keeps them, and the recurrent state in " +
           std::string(dtype_info(a.ssm_cache_dtype.value_or(compute)).short_name) +
           " (transformers keeps it in float32)";
  if (has(Mixer::Rwkv))
    return "RWKV states: the two token shifts in " + dtype +
           ", the WKV numerator, denominator and maximum in float32, as transformers keeps them";
  if (has(Mixer::Mlstm))
    return "mLSTM states (matrix memory, normaliser, maximum) in " + dtype +
           ", as transformers' cache keeps them";
  return "conv and SSM states in " + dtype +
         " unless the config names an SSM cache dtype (mamba_ssm_cache_dtype / mamba_ssm_dtype); conv states "
         "keep "
         "the whole kernel window as transformers does";
}

// The context the figures are for: --context, else min(max_context, kDefaultContext); 0: unknown.
uint64_t figures_context(const ReportInputs& in) {
  const uint64_t max = in.inventory.arch.max_position_embeddings;
  return in.options.context.value_or(max ? std::min<uint64_t>(max, kDefaultContext) : 0);
}

// The file an overflow error names: the config the record's numbers come from, else (a GGUF, an ONNX graph)
// the model as the user named it.
std::string estimate_file(const Inventory& inv) {
  return inv.config ? inv.config->file() : inv.source;
}

// The config key the maximum context is read from, for an overflow error.
std::string context_key(const ArchitectureRecord& a) {
  return a.context.declared ? a.context.declared->key : "max_position_embeddings";
}

// What an overflow error says of the flags: "--batch 1, context 8,192 = min(max_position_embeddings
// 131,072, 8,192)", "--batch 64, context 1,000,000 from --context".
std::string overflow_flags(const ReportInputs& in, uint64_t context) {
  const ArchitectureRecord& a = in.inventory.arch;
  const std::string batch = "--batch " + num(in.options.batch);
  if (!context) return batch + ", context unknown";
  const std::string c = batch + ", context " + num(context);
  if (in.options.context) return c + " from --context";
  if (context < a.max_position_embeddings)
    return c + " = min(" + context_key(a) + " " + num(a.max_position_embeddings) + ", " +
           num(kDefaultContext) + ")";
  return c + " = " + context_key(a);
}

// The activations' stacks beside the decoder, in words, when there are several: which encoder, how long, and
// that the figures hold both.
std::string stacks_assumption(const ArchitectureRecord& a, const std::vector<ActivationStack>& stacks) {
  const ActivationStack& enc = stacks.front();
  const StackSpec* encoder = a.stack(StackRole::Encoder);
  std::string decoders;
  for (size_t i = 1; i < stacks.size(); ++i)
    decoders += (decoders.empty() ? "" : ", ") + num(stacks[i].layers) + " " + stacks[i].role + " layers";
  return "activations of both stacks of the encoder-decoder: the " + num(enc.layers) +
         " encoder layers over " + num(enc.sequence) + " positions (" +
         (encoder && encoder->positions ? "its fixed input length, as the cross-attention cache counts it"
                                        : "an input as long as the context: no fixed encoder length") +
         "), the " + decoders +
         " over the context; training stores both, inference holds the larger layer; the decoder layers' "
         "cross-attention is not counted beyond the GPT-style layer's terms";
}

MemoryReport estimate_memory_named(const ReportInputs& in, const QuantizationInfo& quant,
                                   const Capabilities& caps, const std::string& file) {
  MemoryReport m;
  const Inventory& inv = in.inventory;
  const std::optional<DType> known = model_dtype(inv);
  const DType compute = known.value_or(quant.quantized ? kAssumedModelDtype : DType::F32);
  const std::optional<DType> declared_kv =
      inv.arch.quantization ? inv.arch.quantization->kv_cache_dtype : std::nullopt;
  const DType kv = in.options.kv_dtype.value_or(declared_kv.value_or(compute));
  m.kv_cache_dtype = std::string(dtype_info(kv).short_name);
  m.compute_dtype = std::string(dtype_info(compute).short_name);
  m.batch = in.options.batch;
  m.max_context = inv.arch.max_position_embeddings;
  m.context = figures_context(in);
  m.weights = weight_estimates(in, quant);

  KvCachePlan plan = plan_kv_cache(inv.arch, kv, compute, m.context);
  m.kv_cache_bytes = kv_cache_total(plan, m.batch, m.context);
  if (m.max_context)
    m.kv_cache_bytes_at_max_context = memory::naming_source(
        file,
        "--batch " + num(m.batch) + ", context = " + context_key(inv.arch) + " " + num(m.max_context) +
            " for the KV cache at the maximum context",
        [&] {
          return kv_cache_total(plan_kv_cache(inv.arch, kv, compute, m.max_context), m.batch, m.max_context);
        });
  m.kv_known = plan.known;
  m.kv_layers = std::move(plan.layers);
  m.kv_cache_per_token_bytes = plan.per_token;
  m.kv_cache_per_token_decompressed_bytes = plan.per_token_decompressed;
  m.state_bytes_per_sequence = plan.state_per_sequence;
  m.cross_attention_bytes_per_sequence = plan.cross_per_sequence;
  m.kv_convention = std::move(plan.convention);

  m.assumptions.push_back(
      "weights: exact parameter count x bytes per parameter; INT4 adds an fp16 scale and an "
      "fp16 zero point per group of 128 weights");
  if (known && !declared_float_dtype(inv.arch.torch_dtype))
    m.assumptions.push_back(
        "no floating-point torch_dtype in the config: " + std::string(dtype_info(*known).short_name) +
        " (from the " + inv.arch.stored_dtype_source + ") for inference weights, activations and the cache");
  if (!known && !quant.quantized)
    m.assumptions.push_back(
        "the config declares no floating-point torch_dtype: f32 (transformers' default, and what such "
        "checkpoints were saved in) for inference weights, activations and the cache");
  if (!known && quant.quantized)
    m.assumptions.push_back(
        "the config declares no floating-point torch_dtype: 16-bit (" +
        std::string(dtype_info(kAssumedModelDtype).short_name) +
        ", what quantized kernels compute in) assumed for inference weights, activations "
        "and the cache" +
        (quant.stored_from == "template" ? ", and for the unquantized weights as stored" : ""));
  if (!in.options.kv_dtype && declared_kv)
    m.assumptions.push_back("KV cache in " + m.kv_cache_dtype + ", as " + inv.arch.quantization->source +
                            " declares it was calibrated for; --kv-dtype changes it");
  else if (!in.options.kv_dtype)
    m.assumptions.push_back("KV cache in the model's dtype (" + m.kv_cache_dtype +
                            "); --kv-dtype changes it");
  if (!m.context)
    m.assumptions.push_back(
        "no maximum context in the config: the KV cache, the activations and the inference and training "
        "totals "
        "that hold them need --context (unknown, not the known terms alone)");
  else if (!in.options.context && m.context < m.max_context)
    m.assumptions.push_back("context = min(max_position_embeddings " + num(m.max_context) + ", " +
                            num(kDefaultContext) + ") = " + num(m.context) +
                            ", a practical serving length; the KV cache at the maximum is shown beside it; "
                            "--context changes it");
  else if (!in.options.context)
    m.assumptions.push_back("context = max_position_embeddings (" + num(m.context) +
                            "); --context changes it");
  for (std::string& a : plan.assumptions) m.assumptions.push_back(std::move(a));
  if (m.state_bytes_per_sequence) {
    m.assumptions.push_back(state_assumption(in.inventory.arch, compute));
  }

  const LogitsShape logits = logits_shape(inv);
  m.inference = inference_estimates(in, quant, m, logits, compute);
  m.inference.push_back(inference_total_fp16(in, m, logits));
  m.assumptions.push_back(
      "inference: activations of one prefill pass over batch x context with a "
      "memory-efficient attention kernel; overhead " +
      num(kOverheadPercent) + "% for the CUDA context, fragmentation and workspaces");

  TrainingInputs t;
  t.parameters = in.params.total;
  t.stacks = activation_stacks(inv.arch, m.context);
  // The projections LoRA targets: the template's, else (a GGUF file, bare weights) the stored tensors',
  // placed by block and role. None found: the adapters are unknown, not 0 parameters.
  t.adapters = inv.model ? count_adapters(*inv.model, kLoraRank) : count_adapters(inv.tensors, kLoraRank);
  t.adapters_known = t.adapters.lora_parameters != 0;
  t.batch = m.batch;
  t.lora_rank = kLoraRank;
  // Without a tensor inventory the adapters are unknown and so is QLoRA's eligibility: sized as for 16 bits.
  t.qlora_possible = !caps.adapters_known || caps.qlora_compatible;
  m.lora_rank = kLoraRank;
  if (t.adapters_known) m.lora_adapter_parameters = t.adapters.lora_parameters;
  m.training = estimate_training(t, m.assumptions);
  m.assumptions.push_back(
      "training: batch x context as above; activations by Korthikanti et al. 2022 for every "
      "layer (a GPT-style layer; an approximation for GQA, MoE, SwiGLU and Mamba layers), "
      "doubled for fp32 training; the totals assume FlashAttention (no stored attention "
      "scores), training_activations shows eager attention");
  if (t.stacks.size() > 1) m.assumptions.push_back(stacks_assumption(inv.arch, t.stacks));
  return m;
}

}  // namespace

MemoryReport estimate_memory(const ReportInputs& in, const QuantizationInfo& quant,
                             const Capabilities& caps) {
  const std::string file = estimate_file(in.inventory);
  return memory::naming_source(file, overflow_flags(in, figures_context(in)),
                               [&] { return estimate_memory_named(in, quant, caps, file); });
}

}  // namespace ma
