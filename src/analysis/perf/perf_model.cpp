#include "analysis/perf/perf_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>

#include "analysis/memory_kv.h"
#include "analysis/perf/parallelism.h"
#include "core/error.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

constexpr double kSoftmaxFlopsPerScore =
    5;                                     // max, subtract, exp, sum, scale: on CUDA cores, not tensor cores
constexpr double kAdamBytesPerParam = 28;  // fp32 master: read w, g, m, v (16) + write w, m, v (12)
constexpr double kAdamFlopsPerParam = 10;

ComputeDType compute_dtype(const PerfInputs& in) {
  // Tensor cores run in the wider of the two: W4A16 dequantizes to bf16; W8A8 fp8 runs fp8.
  return bytes_per_element(in.weight_dtype) >= bytes_per_element(in.act_dtype) ? in.weight_dtype
                                                                               : in.act_dtype;
}

// Bytes per element of a dtype the report names (16-bit where it names none).
double element_bytes(const std::string& short_name) {
  const std::optional<DType> d = dtype_from_any_name(short_name);
  return d && dtype_bits(*d) >= 8 ? dtype_bits(*d) / 8.0 : 2.0;
}

// RecurrentGemma's RG-LRU gates: [blocks, in, out], one small matrix per diagonal block, applied to every
// token as a batched GEMM.
bool is_block_diagonal_gate(const InventoryTensor& t) {
  return t.placement.block == Block::RgLru && t.shape.size() == 3 && t.name.ends_with("gate_weight");
}

// The matrix a weight applies: its logical shape where it is stored packed (a GPTQ qweight is [in/8, out] of
// int32, an AWQ one [in, out/8], NVFP4 [out, in/2] of bytes: their stored shapes gave 1/8 to 1/2 of the FLOPs
// and, timed in another dtype, of the bytes).
const Shape& matrix_shape(const InventoryTensor& t) {
  return t.logical_shape ? *t.logical_shape : t.shape;
}

bool is_gemm_weight(const InventoryTensor& t) {
  if (t.kind != TensorKind::Parameter || t.embedding || t.routed_expert) return false;
  if (matrix_shape(t).size() != 2 && !is_block_diagonal_gate(t)) return false;
  const Block block = t.placement.block;
  // Embedding tables (and their tied copies, such as T5's encoder/decoder embed_tokens) are gathered from.
  if (block == Block::Embedding || is_tower(block) || block == Block::Norm) return false;
  // A packed matrix is one whatever its name (compressed-tensors' "weight_packed").
  return t.logical_shape || (t.name.size() >= 6 && t.name.compare(t.name.size() - 6, 6, "weight") == 0);
}

// A tied LM head ([vocab, hidden], sharing the embedding's storage) is still a GEMM every step. Its tied 1-D
// bias (BERT's `cls.predictions.decoder.bias`) is not: it is an add folded into the GEMM's epilogue.
bool is_tied_lm_head_matrix(const InventoryTensor& t) {
  return !t.tied_to.empty() && t.placement.block == Block::LmHead && t.shape.size() == 2;
}

// Encoder–decoder models: the encoder's stack ("encoder.block", "model.encoder.layers") runs once over the
// source in prefill and training; a decode step only runs the decoder. Told by the record's stack roles,
// never by name: ChatGLM's decoder layers are "transformer.encoder.layers", and a decode step that skipped
// them timed the LM head alone (6,113 tokens/s for a 6B model on one H100).
bool in_encoder(const InventoryTensor& t, const ArchitectureRecord& arch) {
  if (!arch.stack(StackRole::Decoder) || t.stack().empty()) return false;
  for (const StackSpec& s : arch.stacks)
    if (s.role == StackRole::Encoder && t.stack() == s.path) return true;
  return false;
}

class Builder {
 public:
  Builder(const Inventory& inv, const ModelReport& rep, const PerfInputs& in)
      : inv_(inv), rep_(rep), in_(in) {
    const double b = static_cast<double>(in.batch);
    if (in.mode == PerfMode::Decode) {
      tokens_ = b;
      q_len_ = 1;
    } else {
      tokens_ = b * static_cast<double>(in.seq);
      q_len_ = static_cast<double>(in.seq);
    }
    train_ = in.mode == PerfMode::Train ? 3.0 : 1.0;  // forward + backward (two matmuls per forward one)
    wb_ = bytes_per_element(in.weight_dtype);
    ab_ = bytes_per_element(in.act_dtype);
    // The report sizes K and V in its cache dtype and recurrent state in its compute dtype; the step rescales
    // both to its own.
    report_kv_bytes_ = element_bytes(rep.memory.kv_cache_dtype);
    report_state_bytes_ = element_bytes(rep.memory.compute_dtype);
    hidden_ = static_cast<double>(inv.arch.hidden_size);
    tp_ = in.parallel.tp;
    pp_ = in.parallel.pp;
    ep_ = in.parallel.ep;
    dp_ = in.parallel.dp_attention ? tp_ : 1;
    expert_wb_ = wb_;
    // Routed experts as stored: their bytes, scales included, per logical parameter. A packed tensor's
    // elements are not its parameters (gpt-oss's MXFP4 "_blocks" hold two per u8), so the count is the
    // report's, and the scales ("experts.*_scales", "experts.N.*.weight_scale_inv") ride with the weights.
    if (stored() && rep.moe && rep.moe->routed_expert_parameters > 0) {
      double bytes = 0;
      for (size_t i = 0; i < inv.tensors.size(); ++i) {
        const InventoryTensor& t = inv.tensors[i];
        const bool scale =
            t.kind == TensorKind::QuantizationScale && t.name.find(".experts.") != std::string::npos;
        if ((t.routed_expert && t.kind == TensorKind::Parameter) || scale)
          bytes += static_cast<double>(in.stored_bytes[i]);
      }
      expert_wb_ = bytes / static_cast<double>(rep.moe->routed_expert_parameters);
    }
    if (stored() && inv.checkpoint && inv.checkpoint->headers_read) scales_beside_matrices();
    if (stored()) tied_matrices();
  }

  // A tied LM head stores no bytes of its own: it reads the matrix it shares, in that one's stored dtype (a
  // GPTQ model's fp16 embedding, not 4-bit codes). Looked up once per step model, not per GEMM.
  void tied_matrices() {
    std::unordered_map<std::string_view, double> shared;  // the matrices tied copies name -> their bytes
    for (const InventoryTensor& t : inv_.tensors)
      if (!t.tied_to.empty()) shared.emplace(t.tied_to, 0.0);
    if (shared.empty()) return;
    for (size_t i = 0; i < inv_.tensors.size(); ++i)
      if (const auto it = shared.find(inv_.tensors[i].name); it != shared.end())
        it->second = static_cast<double>(in_.stored_bytes[i]);
    for (size_t i = 0; i < inv_.tensors.size(); ++i)
      if (!inv_.tensors[i].tied_to.empty())
        if (const double bytes = shared.at(inv_.tensors[i].tied_to); bytes > 0) tied_bytes_[i] = bytes;
  }

  // Read from its headers, a quantized matrix's stored bytes are its packed codes alone; its scales, zero
  // points and group indices are tensors of their own (GPTQ's scales/qzeros/g_idx, NVFP4's weight_scale,
  // bitsandbytes' weight.absmax...), which the step reads with it (a GPTQ q_proj: 32,768 + 2,304 bytes).
  // Each one joins the matrix whose module name is its nearest prefix. (Predicted from an index or the
  // config, a matrix's bytes already hold its scales.)
  void scales_beside_matrices() {
    std::unordered_map<std::string_view, size_t> matrix_of_module;
    for (size_t i = 0; i < inv_.tensors.size(); ++i)
      if (is_gemm_weight(inv_.tensors[i])) matrix_of_module.emplace(module_of(inv_.tensors[i].name), i);
    for (size_t i = 0; i < inv_.tensors.size(); ++i) {
      const InventoryTensor& t = inv_.tensors[i];
      // Routed experts' scales are in expert_wb_ already.
      if (t.kind != TensorKind::QuantizationScale || t.routed_expert ||
          t.name.find(".experts.") != std::string::npos)
        continue;
      // At most three names up: "q_proj.weight.quant_state.bitsandbytes__nf4" belongs to "q_proj".
      std::string_view m = module_of(t.name);
      for (int up = 0; up < 3 && !m.empty(); ++up, m = module_of(m))
        if (const auto it = matrix_of_module.find(m); it != matrix_of_module.end()) {
          scale_bytes_[it->second] += static_cast<double>(in_.stored_bytes[i]);
          break;
        }
    }
  }

  std::vector<OpCost> build() {
    embedding();
    for (size_t i = 0; i < inv_.tensors.size(); ++i) {
      const InventoryTensor& t = inv_.tensors[i];
      const bool cross = t.placement.block == Block::CrossAttention;
      if (!is_gemm_weight(t) && !is_tied_lm_head_matrix(t)) continue;
      // In decode the encoder output and the cross-attention keys and values already exist.
      if (in_.mode == PerfMode::Decode &&
          (in_encoder(t, inv_.arch) || (cross && (t.placement.role == "k" || t.placement.role == "v"))))
        continue;
      gemm(t, i);
    }
    const std::vector<LayerSpec>& layers = inv_.arch.layers();
    for (uint32_t l = 0; l < layers.size(); ++l) layer_ops(l);
    // Encoder–decoders: the encoder runs over the source in prefill and training only.
    const StackSpec* encoder =
        inv_.arch.stack(StackRole::Decoder) ? inv_.arch.stack(StackRole::Encoder) : nullptr;
    if (encoder && in_.mode != PerfMode::Decode)
      for (uint32_t l = 0; l < encoder->layers.size(); ++l) encoder_attention(l);
    for (uint32_t l = 0; l < layers.size(); ++l)
      if (layers[l].cross_attention) cross_attention(l);
    if (in_.mode == PerfMode::Train) optimizer();
    // Pipeline parallel: each GPU runs 1/pp of the layers; what is reported is one GPU's share.
    if (pp_ > 1) {
      for (OpCost& op : ops_) scale(op, 1.0 / pp_);
      weights_once_ /= pp_;
    }
    return std::move(ops_);
  }

  // The weight bytes the step reads with every weight read once (no residency factor), per GPU.
  double weights_once() const { return weights_once_; }

 private:
  static void scale(OpCost& op, double f) {
    op.flops_theory *= f;
    op.flops_tensorcore *= f;
    op.bytes_weights *= f;
    op.bytes_activations *= f;
    op.bytes_kv *= f;
    op.bytes_temporary *= f;
    op.bytes_net *= f;
    op.kernels *= f;
  }

  void embedding() {
    OpCost op;
    op.name = "embedding";
    op.kind = "embedding";
    op.bytes_activations = tokens_ * hidden_ * ab_ * 2 * train_;  // the rows gathered, written once
    op.kernels = 1;
    ops_.push_back(op);
    if (pp_ > 1) {
      OpCost p2p;
      p2p.name = "pipeline send/receive";
      p2p.kind = "network";
      p2p.bytes_net = tokens_ * hidden_ * ab_ * 2 * train_ * pp_;  // scaled by 1/pp with the rest
      p2p.kernels = 1;
      ops_.push_back(p2p);
    }
  }

  // A weight matrix [out, in] applied to every token: M = tokens, K = in, N = out (split over tp GPUs).
  bool stored() const { return in_.stored_bytes.size() == inv_.tensors.size(); }

  // `index`: the tensor's place in the inventory, for its stored bytes (a tied copy stores none: the
  // matrix it shares is read at the step's weight dtype).
  void gemm(const InventoryTensor& t, size_t index) {
    // A block-diagonal gate does the work of one [blocks x out, in] matrix (as many multiply-adds a token).
    const Shape& shape = matrix_shape(t);
    const double n = static_cast<double>(shape[0]) * (shape.size() == 3 ? static_cast<double>(shape[2]) : 1);
    const double k = static_cast<double>(shape[1]);
    const Block block = t.placement.block;
    const bool attention = block == Block::Attention || block == Block::CrossAttention;
    const bool lm_head = block == Block::LmHead;
    double m = tokens_;
    // The LM head of a prefill computes logits for every position (transformers' default).
    OpCost op;
    op.name = std::string(t.name);
    op.kind = "gemm";
    op.layer = t.placement.layer;
    op.m_eff = m;
    // Data-parallel attention: whole matrices for 1/dp of the tokens; else a 1/tp slice for all of them.
    const double rows = attention ? dp_ : 1, slice = attention && dp_ > 1 ? 1 : tp_;
    op.m_eff = m / rows;
    op.flops_theory = op.flops_tensorcore = 2 * m * k * n * train_ / tp_;
    const double wrf = attention ? in_.knobs.wrf_attention : in_.knobs.wrf_dense;
    const double bytes = stored_matrix_bytes(index).value_or(k * n * wb_);
    const double once = bytes / slice * (in_.mode == PerfMode::Train ? 3 : 1);
    weights_once_ += once;
    op.bytes_weights = once / wrf;
    op.bytes_activations = (m * k + m * n) * ab_ * in_.knobs.act_fusion * train_ /
                           (lm_head                ? 1
                            : attention && dp_ > 1 ? dp_
                                                   : tp_);
    op.kernels = train_;
    ops_.push_back(op);
  }

  // The bytes a matrix is stored in, scales included; a tied LM head reads the matrix it shares, stored in
  // its own dtype (a GPTQ model's fp16 embedding, not 4-bit codes). None: not stored (a config alone, or a
  // precision asked for), timed at the step's weight dtype.
  std::optional<double> stored_matrix_bytes(size_t index) const {
    if (!stored()) return std::nullopt;
    if (in_.stored_bytes[index]) {
      const auto scales = scale_bytes_.find(index);
      return static_cast<double>(in_.stored_bytes[index]) +
             (scales == scale_bytes_.end() ? 0 : scales->second);
    }
    if (const auto tied = tied_bytes_.find(index); tied != tied_bytes_.end()) return tied->second;
    return std::nullopt;
  }

  void layer_ops(uint32_t l) {
    const LayerSpec& spec = inv_.arch.layers()[l];
    const KvLayer* kv = nullptr;
    for (const KvLayer& k : rep_.memory.kv_layers)
      if (k.layer == l && k.kind != CacheKind::Cross) kv = &k;
    if (spec.mixer == Mixer::Attention)
      attention(l, spec.attention, kv);
    else if (spec.mixer != Mixer::None)
      ssm(l, spec, kv);
    if (spec.ffn.kind == Ffn::Moe && rep_.moe) moe(l, spec.ffn);
    elementwise(l, spec);
    network(l, spec);
  }

  void attention(uint32_t l, const AttentionShape& shape, const KvLayer* kv) {
    const AttentionShape* a = &shape;
    if (a->heads == 0) return;
    const double heads = static_cast<double>(a->heads) / tp_;
    const double kv_heads = std::max(1.0, static_cast<double>(a->kv_heads ? a->kv_heads : a->heads));
    const double d = static_cast<double>(a->head_dim);
    const double b = static_cast<double>(in_.batch);
    const double window = a->window ? static_cast<double>(a->window) : INFINITY;  // chunks: at most as many
    double scores;  // query-key pairs over the batch, per head
    // DeepSeek-V4's compressed attention also scores one entry per compress_ratio tokens of the context: all
    // of them, an upper bound where its indexer keeps the top index_topk.
    const double ratio = static_cast<double>(a->compress_ratio);
    // Each of the layer's attention modules (LongCat-Flash's two) scores the same keys against its own cache;
    // the cache bytes (kv) already hold every module's.
    const double modules = static_cast<double>(a->modules);
    if (in_.mode == PerfMode::Decode) {
      scores = b * std::min(static_cast<double>(in_.kv_len) + 1, window);
      if (ratio > 0) scores += b * (static_cast<double>(in_.kv_len) + 1) / ratio;
    } else {
      const double s = q_len_;
      // Causal: each query sees the keys up to itself (half the square); a window caps that at w keys.
      scores = b * (window >= s ? s * (s + 1) / 2 : window * s - window * (window - 1) / 2);
      if (ratio > 0) scores += b * s * (s + 1) / 2 / ratio;
    }
    OpCost op;
    op.name = "layers." + std::to_string(l) + ".attention";
    op.kind = "attention";
    op.layer = l;
    op.m_eff = q_len_ == 1 ? static_cast<double>(a->heads) / kv_heads : q_len_;  // GQA groups share K/V
    scores *= modules;
    op.flops_tensorcore = 2 * scores * heads * (2 * d) * train_;  // QK^T and PV
    op.flops_theory = op.flops_tensorcore + kSoftmaxFlopsPerScore * scores * heads * train_;
    const double per_token = kv ? static_cast<double>(kv->bytes_per_token) : 0;
    const double kv_scale = bytes_per_element(in_.kv_dtype) / report_kv_bytes_;
    // A GPU holds its share of the cache: by KV head under tensor parallel (MLA's latent whole on every
    // rank), its own sequences' under data-parallel attention.
    const double split = dp_ > 1 ? dp_
                         : kv    ? static_cast<double>(cache_split(*kv, inv_.arch, in_.parallel.tp))
                                 : tp_;
    if (in_.mode == PerfMode::Decode && ratio > 0 && kv) {
      // The raw window (the layer's per-sequence cache) and every compressed entry so far.
      const double entries = (static_cast<double>(in_.kv_len) + 1) * per_token;
      op.bytes_kv = b * (static_cast<double>(kv->state_bytes_per_sequence) + entries) * kv_scale / split;
    } else if (in_.mode == PerfMode::Decode) {
      // The keys the query sees: the cache's, then the new token's, written once. A window's cache holds W
      // tokens with the new one among them (the report's size), so it is never read past W.
      const double seen = std::min(static_cast<double>(in_.kv_len) + 1, window);
      op.bytes_kv = b * seen * per_token * kv_scale / split;
    } else {
      op.bytes_kv = tokens_ * per_token * kv_scale / split * train_;  // written once (read back in backward)
    }
    op.bytes_activations = modules * tokens_ * heads * d * 2 * ab_ * in_.knobs.act_fusion * train_;  // Q, O
    if (!in_.knobs.flash_attention) {
      // Eager attention writes the scores, reads them for the softmax, writes and reads the probabilities,
      // over the full (masked) square: fp32 scores, act-dtype probabilities.
      const double full = in_.mode == PerfMode::Decode ? scores : b * q_len_ * q_len_ * modules;
      op.bytes_temporary = full * heads * (4 + 4 + ab_ + ab_) * in_.knobs.elementwise * train_;
    }
    op.kernels = (in_.knobs.flash_attention ? 1 : 3) * train_;
    ops_.push_back(op);
  }

  // Bidirectional self-attention of an encoder layer over the source (taken as --seq tokens).
  void encoder_attention(uint32_t l) {
    const StackSpec* encoder = inv_.arch.stack(StackRole::Encoder);
    if (!encoder || l >= encoder->layers.size() || encoder->layers[l].attention.heads == 0) return;
    const AttentionShape& a = encoder->layers[l].attention;
    const double heads = static_cast<double>(a.heads) / tp_, d = static_cast<double>(a.head_dim);
    const double s = static_cast<double>(in_.seq), scores = static_cast<double>(in_.batch) * s * s;
    OpCost op;
    op.name = "encoder.layers." + std::to_string(l) + ".attention";
    op.kind = "attention";
    op.m_eff = s;
    op.flops_tensorcore = 2 * scores * heads * (2 * d) * train_;
    op.flops_theory = op.flops_tensorcore + kSoftmaxFlopsPerScore * scores * heads * train_;
    op.bytes_activations =
        static_cast<double>(in_.batch) * s * heads * d * 4 * ab_ * in_.knobs.act_fusion * train_;
    if (!in_.knobs.flash_attention)
      op.bytes_temporary = scores * heads * (8 + 2 * ab_) * in_.knobs.elementwise * train_;
    op.kernels = (in_.knobs.flash_attention ? 1 : 3) * train_;
    ops_.push_back(op);
  }

  // A decoder layer's cross-attention: each target token attends to the whole source, whose keys and values
  // are read from their cache: an encoder's input (--seq tokens), or, in a decoder beside a vision tower and
  // no encoder (Llama 3.2 Vision), one image's features.
  void cross_attention(uint32_t l) {
    const std::vector<LayerSpec>& layers = inv_.arch.layers();
    if (l >= layers.size() || !layers[l].cross_attention || layers[l].cross_attention->heads == 0) return;
    const AttentionShape& a = *layers[l].cross_attention;
    const double heads = static_cast<double>(a.heads) / tp_, d = static_cast<double>(a.head_dim);
    const StackSpec* vision = inv_.arch.stack(StackRole::Vision);
    const bool image = !inv_.arch.stack(StackRole::Encoder) && vision && vision->positions;
    const double source = static_cast<double>(image ? vision->positions : in_.seq), scores = tokens_ * source;
    OpCost op;
    op.name = "layers." + std::to_string(l) + ".cross_attention";
    op.kind = "attention";
    op.layer = l;
    op.m_eff = q_len_;
    op.flops_tensorcore = 2 * scores * heads * (2 * d) * train_;
    op.flops_theory = op.flops_tensorcore + kSoftmaxFlopsPerScore * scores * heads * train_;
    // The cache holds the K/V heads only (a GQA cross-attention's are fewer than its query heads).
    const double kv_heads =
        std::max(1.0, static_cast<double>(a.kv_heads ? a.kv_heads : a.heads) / static_cast<double>(tp_));
    op.bytes_kv =
        static_cast<double>(in_.batch) * source * 2 * kv_heads * d * bytes_per_element(in_.kv_dtype) * train_;
    op.bytes_activations = tokens_ * heads * d * 2 * ab_ * in_.knobs.act_fusion * train_;
    op.kernels = (in_.knobs.flash_attention ? 1 : 3) * train_;
    ops_.push_back(op);
  }

  // Mamba / linear attention: the recurrent state is read and written once per token in decode, once per
  // chunk in prefill; FLOPs ~6 per state element per token (decay, input, output products).
  void ssm(uint32_t l, const LayerSpec& spec, const KvLayer* kv) {
    const double state = kv ? static_cast<double>(kv->state_bytes_per_sequence) : 0;
    if (state == 0) return;
    const double elements = state / report_state_bytes_;
    OpCost op;
    op.name = "layers." + std::to_string(l) + "." + std::string(mixer_name(spec.mixer));
    op.kind = "ssm";
    op.layer = l;
    op.m_eff = 1;
    op.flops_theory = 6 * tokens_ * elements * train_ / tp_;
    // Read and written once a step, as the report holds it (the model's dtype, or the SSM cache dtype the
    // config names; never the K/V cache's).
    op.bytes_kv = 2 * static_cast<double>(in_.batch) * state / tp_ * train_;
    op.bytes_activations = tokens_ * hidden_ * 4 * ab_ * in_.knobs.act_fusion * train_;
    op.kernels = 2 * train_;
    ops_.push_back(op);
  }

  // Routed experts of one MoE layer: each token runs top-k experts; the weights streamed are those of the
  // experts any token picked (expected distinct experts for uniform routing).
  void moe(uint32_t l, const FfnShape& f) {
    const double experts = static_cast<double>(f.experts), k = static_cast<double>(f.top_k);
    const double per_expert = static_cast<double>(rep_.moe->parameters_per_expert);
    if (experts == 0 || k == 0 || per_expert == 0) return;
    const double touched = experts * (1 - std::pow(1 - k / experts, tokens_));
    const double inter = static_cast<double>(f.expert_intermediate);
    OpCost op;
    op.name = "layers." + std::to_string(l) + ".moe.experts";
    op.kind = "moe";
    op.layer = l;
    op.m_eff = tokens_ * k / touched;  // tokens per active expert
    // The experts spread over the whole tensor-parallel group: expert parallel gives each GPU whole
    // experts, tensor parallel alone a 1/tp slice of every expert (expert parallel runs inside the group).
    const double spread = std::max(tp_, ep_);
    op.flops_theory = op.flops_tensorcore = 2 * tokens_ * k * per_expert * train_ / spread;
    const double once = touched * per_expert * expert_wb_ / spread * (in_.mode == PerfMode::Train ? 3 : 1);
    weights_once_ += once;
    op.bytes_weights = once / in_.knobs.wrf_moe;
    // Each expert reads its input, writes its output and passes `expert_matrices` - 1 intermediate widths.
    const double widths = static_cast<double>(f.expert_matrices);
    op.bytes_activations =
        tokens_ * k * (2 * hidden_ / ep_ + widths * inter / spread) * ab_ * in_.knobs.act_fusion * train_;
    op.kernels = 4 * train_;  // route, gather, grouped GEMMs, scatter
    ops_.push_back(op);
  }

  // Norms, residual adds and the MLP activation: bandwidth-bound passes over the hidden states.
  void elementwise(uint32_t l, const LayerSpec& spec) {
    const double inter = spec.ffn.kind == Ffn::Dense ? static_cast<double>(spec.ffn.intermediate) : 0;
    OpCost op;
    op.name = "layers." + std::to_string(l) + ".elementwise";
    op.kind = "elementwise";
    op.layer = l;
    op.flops_theory = tokens_ * (10 * hidden_ + 4 * inter) * train_;
    // Two norms (read + write), two residual adds (2 reads + write), the gated activation (2 reads + write).
    op.bytes_temporary = tokens_ * (10 * hidden_ + 3 * inter / tp_) * ab_ * in_.knobs.elementwise * train_;
    op.kernels = 4 * train_;
    ops_.push_back(op);
  }

  void network(uint32_t l, const LayerSpec& spec) {
    double bytes = 0;
    const double activations = tokens_ * hidden_ * ab_;
    // Tensor parallel: an all-reduce after attention and after the MLP; a ring moves 2 (tp-1)/tp of it.
    // Data-parallel attention: an all-gather into the MLP and a reduce-scatter out, (tp-1)/tp each.
    if (tp_ > 1) bytes += (dp_ > 1 ? 2 : 4) * activations * (tp_ - 1) / tp_;
    // Expert parallel: all-to-all dispatch and combine of each token's k expert inputs.
    if (ep_ > 1 && spec.ffn.kind == Ffn::Moe)
      bytes += 2 * activations * static_cast<double>(spec.ffn.top_k) * (ep_ - 1) / ep_;
    if (bytes == 0) return;
    OpCost op;
    op.name = "layers." + std::to_string(l) + ".network";
    op.kind = "network";
    op.layer = l;
    op.bytes_net = bytes * (in_.mode == PerfMode::Train ? 2 : 1);
    op.kernels = 2;
    ops_.push_back(op);
  }

  void optimizer() {
    const double params = static_cast<double>(rep_.parameters.total) / tp_;
    OpCost op;
    op.name = "optimizer (AdamW)";
    op.kind = "elementwise";
    op.flops_theory = kAdamFlopsPerParam * params;
    op.bytes_temporary = kAdamBytesPerParam * params;
    op.kernels = 1;
    ops_.push_back(op);
  }

  const Inventory& inv_;
  const ModelReport& rep_;
  const PerfInputs& in_;
  double tokens_ = 0, q_len_ = 1, train_ = 1, wb_ = 2, ab_ = 2, hidden_ = 0;
  double report_kv_bytes_ = 2, report_state_bytes_ = 2;  // bytes per element of the report's sizes
  double expert_wb_ = 2;                            // bytes per routed-expert parameter: wb_, or as stored
  std::unordered_map<size_t, double> scale_bytes_;  // matrix index -> its scales' stored bytes (headers)
  std::unordered_map<size_t, double> tied_bytes_;   // tied copy's index -> the shared matrix's stored bytes
  double tp_ = 1, pp_ = 1, ep_ = 1;
  double dp_ = 1;  // data-parallel attention: the ways the sequences split over the group (else 1)
  double weights_once_ = 0;
  std::vector<OpCost> ops_;
};

// Seed 001's weight-residency factor says weights stay on chip between uses; only what fits on chip can.
// The step streams at least (weights read once - on-chip capacity) from HBM, so no profile beats the
// bandwidth floor: the weight bytes of every op are scaled up together when the profile asks for less.
// Returns the assumption that states the bound, with its numbers, when it applied.
std::optional<std::string> bound_weight_residency(std::vector<OpCost>& ops, double weights_once,
                                                  const Hardware& hw) {
  double streamed = 0;
  for (const OpCost& op : ops) streamed += op.bytes_weights;
  const double floor = std::max(0.0, weights_once - hw.on_chip_bytes());
  if (streamed <= 0 || streamed >= floor) return std::nullopt;
  const double f = floor / streamed;
  for (OpCost& op : ops) op.bytes_weights *= f;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "weight residency bounded by on-chip memory: the profile's factors would stream %.4g GB of "
                "%.4g GB of weights, but only %.4g MB fits on chip (L2 %.4g MB + L1/shared %.4g MB), so the "
                "step streams %.4g GB",
                streamed / 1e9, weights_once / 1e9, hw.on_chip_bytes() / 1e6, hw.l2_mb, hw.smem_mb,
                floor / 1e9);
  return std::string(buf);
}

// Times of one operation: compute at the tensor-core efficiency of its M, memory, network; they overlap
// within the operation, so its estimate is the largest.
void time_op(OpCost& op, const Hardware& hw, ComputeDType dt) {
  const double peak = hw.peak(dt) * 1e12;
  const double scalar = (hw.scalar_tflops > 0 ? hw.scalar_tflops : hw.peak(ComputeDType::FP32)) * 1e12;
  op.eta_tc = op.m_eff > 0 ? std::min(1.0, op.m_eff / hw.b_sat) : 1.0;
  const double eta_scalar = std::min(1.0, scalar / peak);
  op.flops_realizable =
      op.flops_tensorcore / op.eta_tc + (op.flops_theory - op.flops_tensorcore) / std::max(eta_scalar, 1e-9);
  op.t_comp = op.flops_realizable / peak;
  op.t_hbm = op.bytes_hbm() / (hw.hbm_gbps * 1e9);
  op.t_net = hw.interconnect_gbps > 0 ? op.bytes_net / (hw.interconnect_gbps * 1e9)
                                      : (op.bytes_net > 0 ? INFINITY : 0);
  op.t_est = std::max({op.t_comp, op.t_hbm, op.t_net});
  op.regime = op.t_est == op.t_comp ? "compute" : op.t_est == op.t_hbm ? "memory" : "network";
}

}  // namespace

std::string_view perf_mode_name(PerfMode m) {
  switch (m) {
    case PerfMode::Prefill:
      return "prefill";
    case PerfMode::Decode:
      return "decode";
    case PerfMode::Train:
      return "train";
  }
  return "decode";
}

ExecutionKnobs ExecutionKnobs::naive() {
  return {};
}

ExecutionKnobs ExecutionKnobs::efficient() {
  ExecutionKnobs k;
  k.profile = "efficient";
  k.wrf_attention = 4;
  k.wrf_dense = 4;
  k.wrf_moe = 2;
  k.act_fusion = 0.5;
  k.elementwise = 0.7;
  k.flash_attention = true;
  return k;
}

bool has_decode_step(const ModelReport& report) {
  return report.architecture.architecture_type != "encoder-only";
}

std::optional<std::string> bf16_as_fp16_note(const PerfInputs& in, const Hardware& hw) {
  if (compute_dtype(in) != ComputeDType::BF16 || hw.peak(ComputeDType::BF16) > 0 ||
      !(hw.peak(ComputeDType::FP16) > 0))
    return std::nullopt;
  return "bf16 runs as fp16 on " + hw.description +
         ": it has no bf16 tensor cores (serving engines cast the model, as vLLM does below compute "
         "capability 8.0); the bytes are the same";
}

PerfResult model_performance(const Inventory& inv, const ModelReport& report, const PerfInputs& requested,
                             const Hardware& hw) {
  if (!report.architecture_known || inv.arch.layers().empty())
    throw Error(ErrorKind::Unsupported, inv.source, "", "the performance model needs a known architecture");
  if (requested.batch == 0 || requested.seq == 0)
    throw Error(ErrorKind::Usage, "", "--batch/--seq", "must be positive");
  PerfInputs in = requested;
  const std::optional<std::string> cast = bf16_as_fp16_note(in, hw);
  if (cast)
    for (ComputeDType* d : {&in.weight_dtype, &in.act_dtype, &in.kv_dtype})
      if (*d == ComputeDType::BF16) *d = ComputeDType::FP16;
  const ComputeDType dt = compute_dtype(in);
  if (hw.peak(dt) <= 0) {
    // Name what the device does compute in (fp8 asked of an A100, fp32 of a profile without it).
    std::string supported;
    for (int d = 0; d < kComputeDTypeCount; ++d)
      if (hw.peak_tflops[d] > 0)
        supported +=
            (supported.empty() ? "" : ", ") + std::string(compute_dtype_name(static_cast<ComputeDType>(d)));
    throw Error(ErrorKind::Usage, hw.name, "--dtype",
                std::string(compute_dtype_name(dt)) + " is not supported by " + hw.description +
                    " (it computes in " + supported + ")");
  }
  if (in.parallel.tp == 0 || in.parallel.pp == 0 || in.parallel.ep == 0)
    throw Error(ErrorKind::Usage, "", "--tp/--pp/--ep", "must be at least 1");
  check_parallelism(inv.arch, in.parallel);
  // A split's collectives cross the interconnect: without its bandwidth the step would take forever.
  if ((in.parallel.tp > 1 || in.parallel.pp > 1 || in.parallel.ep > 1) && !(hw.interconnect_gbps > 0))
    throw Error(ErrorKind::Malformed, hw.name, "interconnect_gbps",
                "must be given and positive for --tp/--pp/--ep above 1 (the profile gives none)");
  if (in.mode == PerfMode::Decode && !has_decode_step(report))
    throw Error(
        ErrorKind::Usage, inv.source, "--mode",
        "decode needs a decoder; this model is encoder-only (use --mode prefill for one forward pass)");

  PerfResult r;
  r.inputs = in;
  r.hardware = hw;
  Builder builder(inv, report, in);
  r.ops = builder.build();
  const std::optional<std::string> residency = bound_weight_residency(r.ops, builder.weights_once(), hw);
  r.tokens = in.mode == PerfMode::Decode ? static_cast<double>(in.batch)
                                         : static_cast<double>(in.batch) * static_cast<double>(in.seq);
  OpCost& t = r.total;
  t.name = "step";
  t.kind = "total";
  double op_time = 0;
  for (OpCost& op : r.ops) {
    time_op(op, hw, dt);
    op_time += op.t_est;
    t.flops_theory += op.flops_theory;
    t.flops_tensorcore += op.flops_tensorcore;
    t.flops_realizable += op.flops_realizable;
    t.bytes_weights += op.bytes_weights;
    t.bytes_activations += op.bytes_activations;
    t.bytes_kv += op.bytes_kv;
    t.bytes_temporary += op.bytes_temporary;
    t.bytes_net += op.bytes_net;
    t.kernels += op.kernels;
    t.t_comp += op.t_comp;
    t.t_hbm += op.t_hbm;
    t.t_net += op.t_net;
  }
  // A step replays a CUDA graph (as serving engines replay decode steps) unless the caller says it launches
  // its kernels eagerly: the per-kernel cost of each.
  r.overhead_s = t.kernels * (in.cuda_graph ? hw.graph_kernel_overhead_s : hw.kernel_overhead_s);
  t.t_est = op_time + r.overhead_s;
  t.regime = t.t_comp >= t.t_hbm && t.t_comp >= t.t_net ? "compute"
             : t.t_hbm >= t.t_net                       ? "memory"
                                                        : "network";
  const double peak = hw.peak(dt) * 1e12;
  r.tf_est = t.flops_theory / t.t_est / 1e12;
  r.tf_roofline_hbm = std::min(peak, hw.hbm_gbps * 1e9 * t.ai_hbm()) / 1e12;
  r.p_effective = t.flops_realizable > 0 ? peak * t.flops_theory / t.flops_realizable / 1e12 : 0;
  // With pipeline parallel the figures are one stage's, and a step's tokens pass the pp stages one after
  // another: the step takes pp x T_est, and each GPU is busy 1/pp of it (micro-batches would overlap the
  // stages, but each then carries 1/pp of the batch: a memory-bound step is no faster for it).
  const double stages = static_cast<double>(in.parallel.pp);
  r.mfu_est = t.flops_theory / (peak * t.t_est * stages);
  r.tokens_per_s = r.tokens / (t.t_est * stages);
  r.assumptions = {
      "every weight matrix [out, in] is a GEMM with M = tokens (decode: batch; prefill/train: batch x seq), "
      "K = in, N = out; F = 2 M K N",
      "attention: QK^T and PV on tensor cores (4 d FLOPs per query-key pair per head), causal prefill counts "
      "the lower triangle, sliding windows cap the keys; softmax 5 FLOPs per score on CUDA cores",
      "MoE: each token runs top-k experts (2 x params per expert FLOPs); weights streamed for the expected "
      "number of distinct experts picked under uniform routing; M_eff = tokens x k / experts touched",
      "Mamba / linear attention: the recurrent state is read and written once per step, 6 FLOPs per state "
      "element per token (an approximation)",
      "operations run one after another; inside one, compute, memory and network overlap (T_est = max)",
      "training: 3x forward FLOPs, weights read twice and gradients written once, AdamW with fp32 master "
      "weights (28 bytes and 10 FLOPs per parameter)",
      "tensor parallel splits every GEMM, the heads and the KV cache; expert parallel splits the experts; "
      "pipeline parallel gives each GPU 1/pp of the layers (figures are one GPU's, the average stage); the "
      "stages run one after another, so tokens/s = tokens / (pp x T_est) and MFU counts each GPU busy 1/pp "
      "of the step",
      "compute runs in the wider of the weight and activation dtypes",
      "encoder-decoder: the encoder runs over --seq source tokens in prefill and training only; a decode "
      "step "
      "runs the decoder, its cross-attention reading the cached keys and values of the --seq source tokens "
      "(of one image's features beside a vision tower without an encoder)",
  };
  if (residency) r.assumptions.push_back(*residency);
  if (cast) r.assumptions.push_back(*cast);
  return r;
}

}  // namespace ma
