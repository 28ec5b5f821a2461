#include "analysis/builder/gap_analysis.h"

#include <algorithm>
#include <array>

namespace ma {
namespace {

// One row per kind: what it computes, where reference implementations live, how engines split it. File
// names are those of vLLM and SGLang as of 2025-11 (they move between releases; the model file is the
// stable entry point).
constexpr std::array<KindReference, 16> kReferences = {{
    {ComponentKind::Attention, "Softmax attention (MHA / GQA / MQA, full, sliding or chunked)",
     "q = x Wq, k = x Wk, v = x Wv (rotary positions on q and k); each query head attends to the keys of its "
     "KV group: o = softmax(q k^T / sqrt(d_head) + mask) v, where the mask limits the span (causal, a "
     "sliding "
     "window, or the current chunk); y = o Wo.",
     "torch.nn.Linear, torch.nn.functional.scaled_dot_product_attention",
     "vllm/attention/layer.py (Attention), vllm/model_executor/models/llama.py (LlamaAttention)",
     "python/sglang/srt/layers/radix_attention.py, python/sglang/srt/models/llama.py",
     "Tensor parallel by heads (q/k/v column-parallel, o row-parallel, one all-reduce per layer; KV heads "
     "replicated when fewer than the ranks); context parallel by sequence; pipeline by layers."},
    {ComponentKind::Mla, "Multi-head latent attention (MLA, DeepSeek-V2/V3)",
     "c_q = RMSNorm(x W_qa), q = c_q W_qb split into q_nope (qk_nope_head_dim) and q_rope (qk_rope_head_dim) "
     "per head; [c_kv, k_rope] = x W_kva, c_kv = RMSNorm(c_kv) (kv_lora_rank), [k_nope, v] = c_kv W_kvb per "
     "head; rotary on q_rope and the one shared k_rope; o = softmax([q_nope, q_rope] [k_nope, k_rope]^T / "
     "sqrt(d_qk)) v; y = o Wo. The cache holds only c_kv and k_rope per token; decode absorbs W_kvb into the "
     "query and output projections. DSA models (V3.2, GLM-5) add an indexer that picks the top-k keys.",
     "torch.nn.Linear, torch.nn.RMSNorm, torch.nn.functional.scaled_dot_product_attention, torch.einsum",
     "vllm/model_executor/models/deepseek_v2.py (DeepseekV2MLAAttention), vllm/model_executor/layers/mla.py, "
     "vllm/v1/attention/backends/mla/",
     "python/sglang/srt/models/deepseek_v2.py (DeepseekV2AttentionMLA), "
     "python/sglang/srt/layers/attention/flashmla_backend.py",
     "Tensor parallel by heads (q_b, kv_b column-parallel, o row-parallel); the latent down-projections "
     "(q_a, kv_a) and the latent cache are replicated on every rank, so TP does not shrink the cache; "
     "data-parallel attention (SGLang --enable-dp-attention) splits the batch instead."},
    {ComponentKind::Mamba, "Mamba (selective state space, S6)",
     "[x, z] = in_proj(u); x = SiLU(causal_conv1d(x)); [dt, B, C] = x_proj(x); dt = softplus(dt_proj(dt)); "
     "per channel and state: h_t = exp(dt A) h_{t-1} + dt B_t x_t, y_t = C_t h_t + D x_t; out = "
     "out_proj(y * SiLU(z)). The state is d_inner x d_state per sequence, constant in length.",
     "torch.nn.Linear, torch.nn.Conv1d (groups = channels), torch.exp, torch.nn.functional.softplus, a "
     "sequential or parallel scan",
     "vllm/model_executor/layers/mamba/mamba_mixer.py, vllm/model_executor/layers/mamba/ops/mamba_ssm.py",
     "python/sglang/srt/layers/attention/mamba/mamba.py, "
     "python/sglang/srt/layers/attention/mamba/ops/mamba_ssm.py",
     "Tensor parallel by channels (in_proj, conv, dt_proj, A, D column-parallel; x_proj and out_proj "
     "row-parallel); no sequence split of the recurrence beyond chunked prefill; pipeline by layers."},
    {ComponentKind::Mamba2, "Mamba-2 (state space duality, SSD)",
     "[z, x, B, C, dt] = in_proj(u); [x, B, C] = SiLU(causal_conv1d([x, B, C])); per head (scalar A): h_t = "
     "exp(dt_t A) h_{t-1} + dt_t x_t B_t^T, y_t = h_t C_t + D x_t, computed in chunks as a masked matmul "
     "(SSD); out = out_proj(RMSNormGated(y, z)).",
     "torch.nn.Linear, torch.nn.Conv1d, torch.cumsum, torch.exp, torch.einsum (chunked scan)",
     "vllm/model_executor/layers/mamba/mamba_mixer2.py, vllm/model_executor/layers/mamba/ops/ssd_combined.py",
     "python/sglang/srt/layers/attention/mamba/mamba.py, "
     "python/sglang/srt/layers/attention/mamba/ops/ssd_combined.py",
     "Tensor parallel by heads (in_proj column-parallel per part, B/C groups replicated when fewer than the "
     "ranks, out_proj row-parallel); pipeline by layers."},
    {ComponentKind::LinearAttention, "Gated DeltaNet (linear attention, Qwen3-Next / Qwen3.5)",
     "[q, k, v, z, b, a] = projections of x; q, k, v through a short causal conv and SiLU, q and k "
     "L2-normed; "
     "per head a state S (key_head_dim x value_head_dim): S_t = g_t S_{t-1} (I - beta_t k_t k_t^T) + beta_t "
     "k_t v_t^T with decay g_t = exp(-exp(A) softplus(a_t + dt_bias)) and beta_t = sigmoid(b_t); o_t = S_t^T "
     "q_t; y = out_proj(RMSNormGated(o, z)).",
     "torch.nn.Linear, torch.nn.Conv1d, torch.nn.functional.normalize, torch.sigmoid, a chunked delta-rule "
     "scan (flash-linear-attention)",
     "vllm/model_executor/models/qwen3_next.py (Qwen3NextGatedDeltaNet), vllm/model_executor/layers/fla/ops/",
     "python/sglang/srt/models/qwen3_next.py, python/sglang/srt/layers/attention/fla/",
     "Tensor parallel by heads (projections column-parallel, out_proj row-parallel); the state is per head, "
     "so it splits with them; pipeline by layers."},
    {ComponentKind::CrossAttention, "Cross-attention (decoder attending to encoder states)",
     "q = x Wq from the decoder, k = e Wk and v = e Wv from the encoder output e (computed once per request "
     "and cached); o = softmax(q k^T / sqrt(d_head)) v without a causal mask; y = o Wo.",
     "torch.nn.Linear, torch.nn.functional.scaled_dot_product_attention",
     "vllm/model_executor/models/whisper.py (WhisperCrossAttention), vllm/model_executor/models/bart.py",
     "python/sglang/srt/models/mllama.py",
     "Tensor parallel by heads as self-attention; the encoder K/V cache is sized by the encoder length, not "
     "the generated length."},
    {ComponentKind::DenseMlp, "MLP", "y = down(act(gate(x)) * up(x)) (gated) or y = down(act(up(x)))",
     "torch.nn.Linear, torch.nn.functional.silu / gelu", "vllm/model_executor/layers/activation.py",
     "python/sglang/srt/layers/activation.py",
     "Tensor parallel: up/gate column-parallel, down row-parallel."},
    {ComponentKind::Moe, "Mixture of experts",
     "router logits = x W_router; the top_k experts by score each compute an MLP, down(act(gate(x)) * up(x)) "
     "where num_projections is 3, down(act(up(x))) where it is 2 (relu², GELU); y = sum of their outputs "
     "weighted by the normalised scores, plus the shared experts' output.",
     "torch.nn.Linear, torch.topk, torch.softmax, torch.Tensor.index_add_",
     "vllm/model_executor/layers/fused_moe/", "python/sglang/srt/layers/moe/",
     "Expert parallel (experts spread over devices, all-to-all dispatch and combine), tensor parallel inside "
     "each expert, or both."},
    {ComponentKind::Norm, "Normalisation",
     "RMSNorm: x / sqrt(mean(x^2) + eps) * w; LayerNorm adds a mean and a "
     "bias",
     "torch.nn.RMSNorm, torch.nn.LayerNorm", "vllm/model_executor/layers/layernorm.py",
     "python/sglang/srt/layers/layernorm.py", "Replicated."},
    {ComponentKind::Embedding, "Token embedding", "y = E[token]", "torch.nn.Embedding",
     "vllm/model_executor/layers/vocab_parallel_embedding.py",
     "python/sglang/srt/layers/vocab_parallel_embedding.py", "Vocabulary split across TP ranks, all-reduce."},
    {ComponentKind::LmHead, "Untied LM head",
     "logits = h W_head^T (+ b): the final hidden state times its own vocabulary matrix (not the embedding's "
     "transpose), computed for the last position of each sequence in decode and for every sampled position.",
     "torch.nn.Linear, torch.softmax / torch.argmax for sampling",
     "vllm/model_executor/layers/vocab_parallel_embedding.py (ParallelLMHead), "
     "vllm/model_executor/layers/logits_processor.py",
     "python/sglang/srt/layers/vocab_parallel_embedding.py (ParallelLMHead), "
     "python/sglang/srt/layers/logits_processor.py",
     "Vocabulary-parallel: each TP rank holds vocab/TP rows and computes its slice of the logits; an "
     "all-gather (or a distributed argmax / top-k) joins them. Lives on the last pipeline stage."},
    {ComponentKind::Mtp, "Multi-token prediction module (DeepSeek-V3, GLM-4.5/5, Qwen3.5, MiMo)",
     "h' = eh_proj([RMSNorm(embed(t+1)); RMSNorm(h)]); a full decoder layer on h'; logits from its own head: "
     "predicts one extra token per step, used for speculative decoding.",
     "torch.nn.Linear, torch.cat, the decoder layer's ops", "vllm/model_executor/models/deepseek_mtp.py",
     "python/sglang/srt/models/deepseek_nextn.py",
     "As the decoder layer it holds; engines run it on the last pipeline stage as the draft model."},
    {ComponentKind::VisionTower, "Vision encoder (tower)",
     "patch embedding (a strided convolution or a Linear over flattened patches) plus positions, then "
     "encoder blocks (self-attention without a causal mask and an MLP), run once per image.",
     "torch.nn.Conv2d / Conv3d, torch.nn.Linear, torch.nn.functional.scaled_dot_product_attention",
     "vllm/model_executor/models/ (the model's vision file: siglip.py, clip.py, qwen2_5_vl.py, ...)",
     "python/sglang/srt/models/ (the same model file)",
     "Usually replicated or data-parallel over images; tensor parallel by heads in large towers."},
    {ComponentKind::AudioTower, "Audio encoder (tower)",
     "convolutional stem over mel frames, positions, encoder blocks; run once per audio clip.",
     "torch.nn.Conv1d, torch.nn.Linear, torch.nn.functional.scaled_dot_product_attention",
     "vllm/model_executor/models/whisper.py", "python/sglang/srt/models/ (the model's audio file)",
     "Replicated or data-parallel over clips."},
    {ComponentKind::Projector, "Multimodal projector",
     "maps tower outputs to the language model's width (a Linear or a small MLP, sometimes with patch "
     "merging).",
     "torch.nn.Linear, torch.nn.functional.gelu", "vllm/model_executor/models/ (the model's file)",
     "python/sglang/srt/models/ (the model's file)", "Replicated, or tensor parallel as an MLP."},
    {ComponentKind::Other, "Unclassified parameters", "see the tensors below", "", "", "",
     "None established."},
}};

bool has_part(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::string_view module_leaf(std::string_view name) {
  const size_t last = name.rfind('.');
  const std::string_view module = last == std::string_view::npos ? name : name.substr(0, last);
  const size_t dot = module.rfind('.');
  return dot == std::string_view::npos ? module : module.substr(dot + 1);
}

ShardRule rule_of(const ComponentTensor& t) {
  if (t.shape.size() < 2) return ShardRule::Replicated;
  const std::string_view m = module_leaf(t.name);
  for (std::string_view latent : {"q_a_proj", "kv_a_proj", "router", "gate"})
    if (m == latent || (latent.back() == 'j' && has_part(m, latent))) return ShardRule::Replicated;
  for (std::string_view row :
       {"o_proj", "down", "out_proj", "dense_4h_to_h", "fc2", "c_proj", "wo", "w2", "x_proj"})
    if (has_part(m, row)) return ShardRule::Columns;
  if (has_part(t.name, "experts.down_proj")) return ShardRule::Columns;
  return ShardRule::Rows;
}

// The dimension TP cuts: of a Linear [out, in], dim 0 (Rows) or 1 (Columns); of a fused expert tensor
// [E, a, b], the expert's intermediate width (`intermediate`), else the one of a and b that is not the
// model's width (Nemotron-3-Super's experts run in a latent space narrower than the model); of a
// convolution [C, 1, k], the channels.
size_t split_dim(const ComponentTensor& t, ShardRule r, uint64_t hidden, uint64_t intermediate) {
  if (t.shape.size() == 3 && t.routed_expert) {
    if (intermediate && (t.shape[1] == intermediate) != (t.shape[2] == intermediate))
      return t.shape[1] == intermediate ? 1 : 2;
    return t.shape[1] == hidden ? 2 : 1;
  }
  if (t.shape.size() == 3) return 0;
  return r == ShardRule::Columns ? t.shape.size() - 1 : 0;
}

uint64_t fact(const Facts& f, std::string_view name) {
  const FactValue* v = find_fact(f, name);
  return v && std::holds_alternative<uint64_t>(*v) ? std::get<uint64_t>(*v) : 0;
}

bool is_matmul_weight(const ComponentTensor& t) {
  const bool weight_leaf = t.name.size() > 7 && t.name.compare(t.name.size() - 7, 7, ".weight") == 0;
  return t.shape.size() >= 2 && (weight_leaf || t.routed_expert) && !has_part(t.name, "_bias") && !t.lookup;
}

// What a head multiplies by that is no tensor of its own: the decoder tied to the word embeddings (BERT's,
// RoBERTa's MLM head), 2 x vocab x hidden per token, its largest cost. Zero when it holds that matrix.
uint64_t tied_decoder_flops(const LayerTypeEntry& e) {
  const uint64_t vocab = fact(e.facts, "vocab_size"), hidden = fact(e.facts, "hidden_size");
  const bool own =
      std::any_of(e.example_tensors.begin(), e.example_tensors.end(), [&](const ComponentTensor& t) {
        return t.shape == Shape{vocab, hidden};
      });
  return e.kind == ComponentKind::LmHead && !own ? 2 * vocab * hidden : 0;
}

void core_flops(GapAnalysis& g, const Facts& f, ComponentKind k) {
  const uint64_t heads = fact(f, "num_heads"), ctx = kGapContext;
  switch (k) {
    case ComponentKind::Attention:
    case ComponentKind::CrossAttention: {
      const uint64_t window = std::max(fact(f, "sliding_window"), fact(f, "attention_chunk_size"));
      const uint64_t span = window ? std::min(window, ctx) : ctx;
      g.core_flops_per_token = 4 * heads * fact(f, "head_dim") * span;
      g.core_formula = "4 x num_heads x head_dim x span (scores and values), span = " + std::to_string(span);
      return;
    }
    case ComponentKind::Mla:
      g.core_flops_per_token = 2 * heads * (fact(f, "qk_nope_head_dim") + fact(f, "qk_rope_head_dim")) * ctx +
                               2 * heads * fact(f, "v_head_dim") * ctx;
      g.core_formula =
          "2 x num_heads x (qk_nope_head_dim + qk_rope_head_dim) x L + 2 x num_heads x v_head_dim x L "
          "(the un-absorbed form; prefill), L = " +
          std::to_string(ctx);
      return;
    case ComponentKind::Mamba:
      g.core_flops_per_token = 6 * fact(f, "d_inner") * fact(f, "d_state");
      g.core_formula =
          "6 x d_inner x d_state (state update: exp(dt A) h, dt B x, add; readout C h), independent of L";
      return;
    case ComponentKind::Mamba2:
      g.core_flops_per_token = 6 * heads * fact(f, "head_dim") * fact(f, "d_state");
      g.core_formula =
          "6 x num_heads x head_dim x d_state (recurrent form of the SSD update and readout), "
          "independent of L";
      return;
    case ComponentKind::LinearAttention:
      g.core_flops_per_token =
          7 * fact(f, "num_value_heads") * fact(f, "key_head_dim") * fact(f, "value_head_dim");
      g.core_formula =
          "7 x num_value_heads x key_head_dim x value_head_dim (decay, S k, rank-1 update, "
          "readout S^T q), independent of L";
      return;
    default:
      return;
  }
}

}  // namespace

std::string_view shard_rule_name(ShardRule r) {
  switch (r) {
    case ShardRule::Rows:
      return "split dim 0 (column-parallel)";
    case ShardRule::Columns:
      return "split the input dim (row-parallel)";
    case ShardRule::ExpertWidth:
      return "split each expert's intermediate dim";
    case ShardRule::Replicated:
      break;
  }
  return "replicated";
}

const KindReference& kind_reference(ComponentKind k) {
  for (const KindReference& r : kReferences)
    if (r.kind == k) return r;
  return kReferences.back();
}

GapAnalysis analyse_gap(const SimulatorConfig& cfg, const LayerTypeEntry& entry) {
  GapAnalysis g;
  g.entry = &entry;
  g.model_id = cfg.model_id;
  g.hf_model_id = cfg.hf_model_id;
  g.quantization = cfg.quantization;
  const Facts& f = entry.facts;
  const uint64_t hidden = fact(f, "hidden_size") ? fact(f, "hidden_size") : cfg.hidden_size;
  const uint64_t experts = fact(f, "num_experts"), top_k = fact(f, "top_k");
  const std::string dtype =
      cfg.stored_dtype ? std::string(dtype_info(*cfg.stored_dtype).short_name) : "unknown";
  for (const ComponentTensor& t : entry.example_tensors) {
    GapTensor gt{t.name, t.shape, dtype, rule_of(t), {}};
    const bool expert_3d = t.routed_expert && t.shape.size() == 3;
    if (expert_3d) gt.rule = ShardRule::ExpertWidth;  // dim 1 or 2, whichever is not the model's width
    const size_t dim = split_dim(t, gt.rule, hidden, fact(f, "intermediate_size"));
    for (size_t i = 0; i < kGapTensorParallel.size(); ++i) {
      const uint64_t tp = kGapTensorParallel[i];
      uint64_t here = numel(t.shape);
      if (gt.rule != ShardRule::Replicated && dim < t.shape.size()) {
        Shape s = t.shape;
        const bool divides = s[dim] % tp == 0;
        s[dim] = (s[dim] + tp - 1) / tp;
        here = numel(s);
        if (divides) gt.shards[i] = s;
      } else {
        gt.shards[i] = t.shape;
      }
      g.parameters_per_device[i] += here;
    }
    if (is_matmul_weight(t)) {
      const uint64_t flops = 2 * numel(t.shape);
      g.linear_flops_per_token += t.routed_expert && experts ? flops / experts * top_k : flops;
    }
    g.tensors.push_back(std::move(gt));
  }
  if (entry.kind == ComponentKind::Embedding) g.linear_flops_per_token = 0;  // a lookup
  g.linear_flops_per_token += tied_decoder_flops(entry);
  const bool row_parallel = std::any_of(g.tensors.begin(), g.tensors.end(),
                                        [](const GapTensor& t) { return t.rule == ShardRule::Columns; });
  if (entry.kind == ComponentKind::LmHead && fact(f, "vocab_size"))
    g.tp_traffic =
        TensorParallelTraffic{"all-gather of the logits", fact(f, "vocab_size"), 2 * fact(f, "vocab_size")};
  else if (row_parallel)
    g.tp_traffic = TensorParallelTraffic{"all-reduce of the output", hidden, 2 * hidden};
  if (experts && top_k) {
    ExpertParallel ep{experts, top_k, hidden, {}, 2, 0};
    for (uint64_t n = 2; n <= experts && n <= 256; n *= 2)
      if (experts % n == 0) ep.experts_per_device.emplace_back(n, experts / n);
    ep.all_to_all_bytes_per_token = 2 * top_k * hidden * ep.bytes_per_element;
    g.expert_parallel = ep;
  }
  core_flops(g, f, entry.kind);
  return g;
}

}  // namespace ma
