#include "analysis/memory_training.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "analysis/memory_math.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

using memory::add;
using memory::ceil_div;
using memory::mul;
using memory::num;

// LoRA targets: the attention projections q, k, v, o (a fused qkv module is one target; MLA's down and up
// projections stand for q, k and v), in softmax and linear attention alike; and in a state-space mixer, the
// projections in and out of it (in_proj, x_proj, out_proj, PEFT's Mamba targets), so that a Mamba model or a
// hybrid's Mamba layers get adapters too rather than none.
constexpr std::array<std::string_view, 3> kStateSpaceLoraRoles{"in_proj", "x_proj", "o"};
constexpr std::array<std::string_view, 2> kShortConvLoraRoles{"in_proj", "out_proj"};  // PEFT's LFM2 targets
// RecurrentGemma's recurrent block: the projections in (x and y branches) and out, as for a Mamba mixer.
constexpr std::array<std::string_view, 3> kRgLruLoraRoles{"linear_x", "linear_y", "linear_out"};

constexpr std::string_view kLoraFactor = "LoRA rank x (in + out features)";

bool is_lora_target(const TensorPlacement& pl) {
  const auto any = [&](const auto& roles) {
    for (std::string_view r : roles)
      if (pl.role == r) return true;
    return false;
  };
  switch (pl.block) {
    case Block::Attention:
    case Block::CrossAttention:
    case Block::LinearAttention:
      return is_attention_projection_role(pl.role);
    case Block::Mamba:
      return any(kStateSpaceLoraRoles);
    case Block::ShortConv:
      return any(kShortConvLoraRoles);
    case Block::RgLru:
      return any(kRgLruLoraRoles);
    default:
      return false;
  }
}

// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", eq. 1: one
// transformer layer stores s*b*h*(34 + 5*a*s/h) bytes of 16-bit activations (no tensor or sequence
// parallelism). Written as s*b*(34*h + 5*a*s) to stay in integers.
uint64_t layer_activations(const ActivationStack& s, uint64_t batch) {
  const std::string& seq = s.sequence_factor;
  const std::string scores = "5 x num_attention_heads x " + seq;
  return mul({s.sequence, batch,
              add({mul({34, s.hidden}, "34 x hidden_size"), mul({5, s.heads, s.sequence}, scores)},
                  "34 x hidden_size + " + scores)},
             seq + " x --batch x (34 x hidden_size + " + scores + ")");
}

std::string sbh(const ActivationStack& s, uint64_t batch) {
  return "s=" + num(s.sequence) + ", b=" + num(batch) + ", h=" + num(s.hidden) + ", a=" + num(s.heads) +
         ", L=" + num(s.layers);
}

// What training stores of each stack's activations: with attention scores (eager), without them
// (FlashAttention), and with full recomputation (each layer's input, and one layer's activations at a time).
struct StackActivations {
  uint64_t eager = 0, flash = 0, flash_layer = 0, layer_inputs = 0;
};

StackActivations stack_activations(const ActivationStack& s, uint64_t batch) {
  const std::string& seq = s.sequence_factor;
  StackActivations a;
  a.eager = mul({layer_activations(s, batch), s.layers}, "activations per layer x num_hidden_layers");
  // FlashAttention never stores the s x s scores: the 5as/h term goes, 34 s*b*h bytes per layer remain (the
  // paper's "selective recomputation" figure).
  a.flash_layer = mul({34, s.sequence, batch, s.hidden}, "34 x " + seq + " x --batch x hidden_size");
  a.flash = mul({a.flash_layer, s.layers}, "34 x " + seq + " x --batch x hidden_size x num_hidden_layers");
  // Full recomputation: each layer's 16-bit input (2*s*b*h) is kept.
  a.layer_inputs = mul({2, s.sequence, batch, s.hidden, s.layers},
                       "2 x " + seq + " x --batch x hidden_size x num_hidden_layers");
  return a;
}

// "s=4,096, b=1, h=4,096, a=32, L=32" for the one stack of a decoder-only (or encoder-only) model; for an
// encoder-decoder each stack's role, letters and share: "encoder s=1,500, ..., L=6: 696,672,000 + decoder
// s=448, ..., L=6: 94,961,664".
std::string stacks_text(const TrainingInputs& t, const std::vector<StackActivations>& per,
                        uint64_t StackActivations::*share) {
  if (t.stacks.size() == 1) return sbh(t.stacks.front(), t.batch);
  std::string out;
  for (size_t i = 0; i < t.stacks.size(); ++i)
    out += (i ? " + " : "") + t.stacks[i].role + " " + sbh(t.stacks[i], t.batch) + ": " + num(per[i].*share);
  return out;
}

// One parameter tensor's share: a weight matrix of the blocks (not the embedding, not the head) is what QLoRA
// stores in NF4; a 2-D weight of a projection LoRA targets gets a pair, which on a Linear [out, in] (or
// GPT-2's Conv1D [in, out]) adds A [r, in] and B [out, r].
void count_matrix(AdapterCounts& c, const Shape& shape, bool weight, const TensorPlacement& pl,
                  uint64_t rank) {
  if (shape.size() < 2 || pl.block == Block::LmHead || pl.block == Block::Embedding) return;
  uint64_t n = 1;
  for (uint64_t d : shape) n = mul({n, d}, "a weight's dimensions");
  c.quantizable_parameters = add({c.quantizable_parameters, n}, "weight matrix elements");
  if (shape.size() == 2 && weight && is_lora_target(pl))
    c.lora_parameters = add(
        {c.lora_parameters, mul({rank, add({shape[0], shape[1]}, kLoraFactor)}, kLoraFactor)}, kLoraFactor);
}

}  // namespace

AdapterCounts count_adapters(const ModelTemplate& model, uint64_t rank) {
  AdapterCounts c;
  for (const TemplateTensor& t : model.tensors)
    if (t.kind == TensorKind::Parameter && t.tied_to.empty() && !t.embedding)
      count_matrix(c, t.shape, t.name.ends_with(".weight"), t.placement, rank);
  return c;
}

AdapterCounts count_adapters(const std::vector<InventoryTensor>& tensors, uint64_t rank) {
  AdapterCounts c;
  // A packed quantized matrix (X.qweight) counts as the matrix it packs, in its logical shape.
  for (const InventoryTensor& t : tensors)
    if (t.kind == TensorKind::Parameter && t.tied_to.empty() && !t.embedding && t.stored && t.shape_known)
      count_matrix(c, t.logical_shape ? *t.logical_shape : t.shape,
                   t.logical_shape != nullptr || t.name.ends_with(".weight"), t.placement, rank);
  return c;
}

std::vector<Estimate> estimate_training(const TrainingInputs& t, std::vector<std::string>& assumptions) {
  std::vector<Estimate> out;
  const uint64_t P = t.parameters;
  const std::string p = num(P) + " params";
  const std::string params16 = std::string(memory::kParameterFactor) + " x 16 bytes";
  out.push_back({"training_adamw_fp32_states", mul({P, 16}, params16),
                 p + " x (4 fp32 weights + 4 fp32 grads + 4 Adam m + 4 Adam v) = 16 bytes/param"});
  out.push_back({"training_mixed_bf16_states", mul({P, 16}, params16),
                 p + " x (2 bf16 weights + 2 bf16 grads + 4 fp32 master weights + 4 Adam m + 4 Adam v) = "
                     "16 bytes/param"});

  // Every stack's activations, summed: an encoder-decoder stores both stacks' for the backward pass. With
  // full recomputation one layer's activations are live at a time: the largest stack's.
  bool ctx = !t.stacks.empty();
  std::vector<StackActivations> per;
  uint64_t act_eager = 0, act = 0, inputs = 0, one_layer = 0;
  for (const ActivationStack& s : t.stacks) {
    ctx = ctx && s.sequence != 0;
    const StackActivations& a = per.emplace_back(stack_activations(s, t.batch));
    act_eager = add({act_eager, a.eager}, "activations of the stacks");
    act = add({act, a.flash}, "activations of the stacks");
    inputs = add({inputs, a.layer_inputs}, "layer inputs of the stacks");
    one_layer = std::max(one_layer, a.flash_layer);
  }
  const uint64_t act_ckpt = add({inputs, one_layer}, "checkpointed activations");
  // Without a context the activations are unknown, and so is every total that holds them: the states alone
  // are not the total (Estimate::known). `without_context`: the formula's known terms and the activations'
  // name.
  const std::string why = "context unknown: pass --context";
  const auto estimate = [&](std::string name, uint64_t bytes, std::string formula,
                            const std::string& without_context) {
    Estimate e{std::move(name), ctx ? bytes : 0,
               ctx ? std::move(formula)
               : without_context.empty()
                   ? "unknown (" + why + ")"
                   : "unknown: " + without_context + "; activations unknown (" + why + ")"};
    e.known = ctx;
    if (!ctx) e.unknown_because = "pass --context";
    return e;
  };
  const bool several = t.stacks.size() > 1;
  const std::string sum = several ? "the sum over the stacks of " : "";
  out.push_back(estimate("training_activations", act_eager,
                         sum + "L x s*b*h*(34 + 5*a*s/h) bytes, " +
                             stacks_text(t, per, &StackActivations::eager) +
                             " (Korthikanti et al. 2022, 16-bit activations, attention scores stored)",
                         ""));
  out.push_back(estimate("training_activations_flash", act,
                         sum + "L x 34*s*b*h bytes, " + stacks_text(t, per, &StackActivations::flash) +
                             " (FlashAttention: scores recomputed, never stored)",
                         ""));
  out.push_back(estimate("training_activations_checkpointed", act_ckpt,
                         several ? "the sum over the stacks of 2*s*b*h*L layer inputs, " +
                                       stacks_text(t, per, &StackActivations::layer_inputs) +
                                       ", + the largest stack's one layer 34*s*b*h = " + num(one_layer) +
                                       " (full recomputation, FlashAttention)"
                                 : "2*s*b*h*L layer inputs + one layer's 34*s*b*h, " +
                                       stacks_text(t, per, nullptr) + " (full recomputation, FlashAttention)",
                         ""));

  const uint64_t adam32 = out[0].bytes, mixed = out[1].bytes;
  out.push_back(estimate(
      "training_full_fp32_total",
      add({adam32, mul({2, act}, "2 x activations")}, "states + fp32 activations"),
      "fp32 AdamW states " + num(adam32) + " + fp32 activations 2 x " + num(act) + " (FlashAttention)",
      "fp32 AdamW states " + num(adam32) + " + fp32 activations"));
  out.push_back(estimate(
      "training_mixed_bf16_total", add({mixed, act}, "states + activations"),
      "bf16 mixed-precision AdamW states " + num(mixed) + " + activations " + num(act) + " (FlashAttention)",
      "bf16 mixed-precision AdamW states " + num(mixed) + " + activations"));
  out.push_back(estimate(
      "training_mixed_bf16_checkpointed_total", add({mixed, act_ckpt}, "states + checkpointed activations"),
      "bf16 mixed-precision AdamW states " + num(mixed) + " + checkpointed activations " + num(act_ckpt),
      "bf16 mixed-precision AdamW states " + num(mixed) + " + checkpointed activations"));
  if (!t.adapters_known) {
    assumptions.push_back(
        "LoRA and QLoRA: not sized, none of the tensors is a projection the adapters target (attention q, k, "
        "v, o; a state-space mixer's in_proj, x_proj, out_proj): the adapters' parameters are unknown");
    return out;
  }

  const uint64_t A = t.adapters.lora_parameters;
  const uint64_t adapter_bytes = mul({A, 16}, "LoRA adapter parameters x 16 bytes");
  const std::string adapters =
      num(A) + " adapter params x 16 (fp32 weights, grads, Adam m, v) = " + num(adapter_bytes);
  const std::string lora_base =
      "frozen bf16 weights " + p + " x 2 + " + adapters + " + checkpointed activations";
  out.push_back(estimate(
      "training_lora_total",
      add({mul({P, 2}, std::string(memory::kParameterFactor) + " x 2 bytes"), adapter_bytes, act_ckpt},
          "LoRA total"),
      lora_base + " " + num(act_ckpt), lora_base));
  assumptions.push_back(
      "LoRA: rank " + num(t.lora_rank) +
      " adapters on every attention projection (q, k, v, o; a fused qkv counts once; MLA's "
      "q_a/q_b/kv_a/kv_b) and every state-space mixer's in_proj, x_proj and out_proj, trained in fp32 with "
      "AdamW; base weights frozen in bf16; gradient checkpointing on");
  if (!t.qlora_possible) {
    assumptions.push_back(
        "QLoRA: not sized, the checkpoint is already quantized another way and QLoRA starts from 16-bit "
        "weights");
    return out;
  }
  // bitsandbytes NF4 with double quantization: 4 bits per weight, an 8-bit absmax per 64 weights and an fp32
  // constant per 256 of those blocks; everything else (embeddings, norms, head) stays bf16.
  const uint64_t Q = std::min(t.adapters.quantizable_parameters, P);
  const uint64_t nf4 = add({ceil_div(Q, 2), ceil_div(Q, 64), mul({ceil_div(Q, 64 * 256), 4}, "NF4 blocks")},
                           "NF4 weight matrices");
  const uint64_t rest = mul({P - Q, 2}, "parameters outside the weight matrices x 2 bytes");
  const std::string qlora_base =
      "NF4 base " + num(Q) + " params x (0.5 + 1/64 absmax + 4/16,384 double-quant) = " + num(nf4) +
      " + bf16 rest " + num(P - Q) + " x 2 + " + adapters + " + checkpointed activations";
  out.push_back(estimate("training_qlora_total", add({nf4, rest, adapter_bytes, act_ckpt}, "QLoRA total"),
                         qlora_base + " " + num(act_ckpt), qlora_base));
  assumptions.push_back(
      "QLoRA: every weight matrix of the blocks in NF4 (bitsandbytes, blocksize 64, double "
      "quantization), embeddings, norms, biases and the LM head in bf16; the same adapters");
  return out;
}

}  // namespace ma
