#include "analysis/plan/conversion.h"

#include <algorithm>
#include <cmath>

namespace ma {
namespace {

using S = Support;

// What each target runs, as of kCatalogueDate, from the targets' model lists and kernels: ONNX Runtime
// GenAI's model builder (GroupQueryAttention with local windows and softcap; the com.microsoft MoE/QMoE
// contrib ops; no MLA, chunked attention or state-space scans), llama.cpp (ggml: GQA, MLA for deepseek2,
// SWA, llama4's chunked attention, mul_mat_id experts, ssm_scan for Mamba-1/2, T5 cross-attention, ALiBi),
// TensorRT-LLM (its model list: DeepSeek MLA and MTP, Mamba / Mamba-2, encoder-decoders), vLLM (MLA, fused
// MoE, Mamba and Mamba-2 kernels, Gated DeltaNet for Qwen3-Next, MTP speculation; encoder-decoders only for
// Whisper and a few multimodal models). Columns: ORT GenAI, llama.cpp, TensorRT-LLM, vLLM.
constexpr std::string_view kCatalogueDate = "2025-11";
struct CatalogueRow {
  std::string_view feature;
  std::array<Support, kConversionTargets> support;
  std::string_view note;
};
constexpr CatalogueRow kCatalogue[] = {
    {"multi-head attention", {S::Native, S::Native, S::Native, S::Native}, ""},
    {"grouped-query attention", {S::Native, S::Native, S::Native, S::Native}, "GroupQueryAttention in ONNX"},
    {"multi-query attention", {S::Native, S::Native, S::Native, S::Native}, ""},
    {"multi-head latent attention (MLA)",
     {S::Custom, S::Native, S::Native, S::Native},
     "the latent cache and absorbed projections need their own kernel"},
    {"sliding-window attention",
     {S::Native, S::Native, S::Native, S::Native},
     "ONNX: GroupQueryAttention local_window_size"},
    {"chunked local attention",
     {S::Custom, S::Native, S::Native, S::Native},
     "Llama-4's attention_chunk_size"},
    {"attention logit softcap", {S::Native, S::Native, S::Native, S::Native}, ""},
    {"MoE routing (top-k experts)",
     {S::Contrib, S::Native, S::Native, S::Native},
     "ONNX Runtime: com.microsoft MoE / QMoE"},
    {"Mamba (selective scan)",
     {S::Custom, S::Native, S::Native, S::Native},
     "a recurrent scan: no ONNX operator"},
    {"Mamba-2 (SSD scan)", {S::Custom, S::Native, S::Native, S::Native}, "a chunked scan: no ONNX operator"},
    {"linear attention (Gated DeltaNet)",
     {S::Custom, S::Native, S::Custom, S::Native},
     "Qwen3-Next / Qwen3.5: a delta-rule recurrence"},
    {"short convolution (LFM2)",
     {S::Custom, S::Native, S::Custom, S::Native},
     "a gated causal conv over the last few tokens, its window kept as state"},
    {"cross-attention (encoder-decoder)",
     {S::Native, S::Native, S::Native, S::Custom},
     "vLLM serves few encoder-decoders (Whisper)"},
    {"ALiBi positions", {S::Custom, S::Native, S::Native, S::Native}, "a bias added to the scores"},
    {"multi-token prediction layers",
     {S::Custom, S::Custom, S::Native, S::Native},
     "used for speculative decoding; the model runs without them"},
};

const CatalogueRow& row(std::string_view feature) {
  for (const CatalogueRow& r : kCatalogue)
    if (r.feature == feature) return r;
  return kCatalogue[0];
}

void count(std::vector<FeatureSupport>& out, std::string_view feature, uint32_t layers = 1) {
  auto it =
      std::find_if(out.begin(), out.end(), [&](const FeatureSupport& f) { return f.feature == feature; });
  if (it == out.end()) {
    const CatalogueRow& r = row(feature);
    out.push_back({std::string(r.feature), 0, r.support, std::string(r.note)});
    it = out.end() - 1;
  }
  it->layers += layers;
}

// The catalogue row of a recurrent mixer; empty for none.
std::string_view recurrent_feature(Mixer m) {
  switch (m) {
    case Mixer::Mamba:
      return "Mamba (selective scan)";
    case Mixer::Mamba2:
      return "Mamba-2 (SSD scan)";
    case Mixer::LinearAttention:
      return "linear attention (Gated DeltaNet)";
    case Mixer::ShortConv:
      return "short convolution (LFM2)";
    case Mixer::RgLru:
      return "RG-LRU recurrence (RecurrentGemma)";
    case Mixer::Rwkv:
      return "RWKV-4 time mixing (WKV recurrence)";
    case Mixer::Mlstm:
      return "mLSTM (xLSTM's matrix memory)";
    default:
      return "";
  }
}

std::string_view attention_feature(AttentionKind k) {
  switch (k) {
    case AttentionKind::Mla:
      return "multi-head latent attention (MLA)";
    case AttentionKind::Gqa:
      return "grouped-query attention";
    case AttentionKind::Mqa:
      return "multi-query attention";
    default:
      return "multi-head attention";
  }
}

}  // namespace

bool is_quantizable_linear(const InventoryTensor& t) {
  // A stored extra's linears convert too: a converted checkpoint keeps DeepSeek-V3's multi-token-prediction
  // layer, FP8 like the rest, and the conversion advice sizes that checkpoint. (The plan's weights leave
  // extras out whatever their precision: model/unloaded_tensors.h.)
  if ((t.kind != TensorKind::Parameter && t.kind != TensorKind::Extra) || t.embedding) return false;
  // A matrix, or routed experts fused into one tensor ([experts, out, in]; MXFP4 blocks add a dimension);
  // not the biases fused experts keep as [experts, out].
  if (t.shape.size() != 2 && !(t.routed_expert && t.shape.size() > 2)) return false;
  const std::string_view name = t.name;
  if (name.size() >= 4 && name.substr(name.size() - 4) == "bias") return false;
  switch (t.placement.block) {
    case Block::Attention:
    case Block::CrossAttention:
    case Block::Mlp:
    case Block::MoeExpert:
    case Block::SharedExpert:
    case Block::Mamba:
    case Block::LinearAttention:
    case Block::RgLru:  // its linears; the conv's taps and the gates' blocks are not matrices
      return true;
    case Block::Rwkv:  // its linears; the decays and token-shift mixes are vectors
    case Block::Mlstm:
      return t.shape.size() == 2;
    case Block::ShortConv:
      return t.placement.role != "conv";  // its projections; the conv's few taps per channel stay 16-bit
    default:
      return false;  // embeddings, norms, routers and the head stay 16-bit in every recipe
  }
}

std::string_view conversion_target_name(ConversionTarget t) {
  static constexpr std::string_view kNames[] = {"onnxruntime-genai", "llama.cpp", "tensorrt-llm", "vllm"};
  return kNames[static_cast<size_t>(t)];
}

std::string_view support_name(Support s) {
  static constexpr std::string_view kNames[] = {"native", "contrib", "custom"};
  return kNames[static_cast<size_t>(s)];
}

ConversionPlan plan_conversion(const Inventory& inv, const QuantizationInfo& quantization,
                               const std::vector<uint64_t>& tensor_bytes) {
  ConversionPlan c;
  c.catalogue_date = std::string(kCatalogueDate);
  const ArchitectureRecord& a = inv.arch;
  for (const LayerSpec& l : a.layers()) {
    if (l.mixer == Mixer::Attention) {
      count(c.features, attention_feature(l.attention.kind));
      if (l.attention.span == Span::Sliding) count(c.features, "sliding-window attention");
      if (l.attention.span == Span::Chunked) count(c.features, "chunked local attention");
    }
    // The recurrent mixer: the layer's only one, or the one beside its attention (Falcon-H1).
    const Mixer recurrent = l.mixer == Mixer::Attention ? l.parallel : l.mixer;
    if (const std::string_view f = recurrent_feature(recurrent); !f.empty()) count(c.features, f);
    if (l.ffn.kind == Ffn::Moe) count(c.features, "MoE routing (top-k experts)");
    if (l.cross_attention) count(c.features, "cross-attention (encoder-decoder)");
    if (l.mixer == Mixer::Attention && a.attention_softcap > 0) count(c.features, "attention logit softcap");
    if (l.mixer == Mixer::Attention && a.position == PositionKind::Alibi)
      count(c.features, "ALiBi positions");
  }
  if (const StackSpec* mtp = a.stack(StackRole::Mtp))
    count(c.features, "multi-token prediction layers", static_cast<uint32_t>(mtp->layers.size()));

  for (size_t i = 0; i < inv.tensors.size() && i < tensor_bytes.size(); ++i) {
    const InventoryTensor& t = inv.tensors[i];
    if (!t.stored || !is_quantizable_linear(t)) continue;
    const std::string block(block_name(t.placement.block));
    auto it = std::find_if(c.quantizable.begin(), c.quantizable.end(),
                           [&](const QuantizationCandidate& q) { return q.block == block; });
    if (it == c.quantizable.end()) {
      c.quantizable.emplace_back();
      c.quantizable.back().block = block;
      it = c.quantizable.end() - 1;
    }
    // Every weight the tensor encodes: gpt-oss's MXFP4 experts pack two in each stored u8, and counted as
    // bytes they made fp8 look free and int4 save 5.04 GiB where the precisions say 0.88 GiB.
    const uint64_t n = logical_parameters(t, quantization);
    it->parameters += n;
    it->bytes_now += tensor_bytes[i];
    it->bytes_fp8 += n;                                   // plus per-tensor scales
    it->bytes_int4 += (n + 1) / 2 + (n + 127) / 128 * 4;  // g128 fp16 scale + zero
  }
  for (const QuantizationCandidate& q : c.quantizable) {
    c.saved_fp8 += q.bytes_now > q.bytes_fp8 ? q.bytes_now - q.bytes_fp8 : 0;
    c.saved_int4 += q.bytes_now > q.bytes_int4 ? q.bytes_now - q.bytes_int4 : 0;
  }
  std::sort(c.quantizable.begin(), c.quantizable.end(),
            [](const QuantizationCandidate& x, const QuantizationCandidate& y) {
              return x.bytes_now > y.bytes_now;
            });
  return c;
}

void add_sensitivity(ConversionPlan& plan, const WeightStats& stats) {
  for (QuantizationCandidate& q : plan.quantizable) {
    for (const TensorStats& t : stats.tensors) {
      if (t.block != q.block || !t.rows || t.std <= 0) continue;
      const double ratio = t.abs_max / t.std;
      // A kurtosis that is undefined (NaN: a constant, moments that overflowed) says nothing, and taken as
      // the first maximum it would hide every later one (no number compares greater than NaN).
      if (std::isfinite(t.kurtosis) && (!q.max_kurtosis || t.kurtosis > *q.max_kurtosis))
        q.max_kurtosis = t.kurtosis;
      if (!q.max_outlier_ratio || ratio > *q.max_outlier_ratio) {
        q.max_outlier_ratio = ratio;
        q.most_outlying = t.name;
      }
    }
    q.sensitive = (q.max_kurtosis && *q.max_kurtosis > kSensitiveKurtosis) ||
                  (q.max_outlier_ratio && *q.max_outlier_ratio > kSensitiveOutlierRatio);
  }
}

}  // namespace ma
