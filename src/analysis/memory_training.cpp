#include "analysis/memory_training.h"

#include <array>
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
uint64_t layer_activations(const TrainingInputs& t) {
  return mul(
      {t.context, t.batch, add({mul({34, t.hidden}, "34h"), mul({5, t.heads, t.context}, "5as")}, "act")},
      "activations per layer");
}

std::string sbh(const TrainingInputs& t) {
  return "s=" + num(t.context) + ", b=" + num(t.batch) + ", h=" + num(t.hidden) + ", a=" + num(t.heads) +
         ", L=" + num(t.layers);
}

// One parameter tensor's share: a weight matrix of the blocks (not the embedding, not the head) is what QLoRA
// stores in NF4; a 2-D weight of a projection LoRA targets gets a pair, which on a Linear [out, in] (or
// GPT-2's Conv1D [in, out]) adds A [r, in] and B [out, r].
void count_matrix(AdapterCounts& c, const Shape& shape, bool weight, const TensorPlacement& pl,
                  uint64_t rank) {
  if (shape.size() < 2 || pl.block == Block::LmHead || pl.block == Block::Embedding) return;
  uint64_t n = 1;
  for (uint64_t d : shape) n = mul({n, d}, "tensor size");
  c.quantizable_parameters = add({c.quantizable_parameters, n}, "quantizable parameters");
  if (shape.size() == 2 && weight && is_lora_target(pl))
    c.lora_parameters =
        add({c.lora_parameters, mul({rank, add({shape[0], shape[1]}, "lora")}, "lora")}, "lora");
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
  out.push_back({"training_adamw_fp32_states", mul({P, 16}, "training"),
                 p + " x (4 fp32 weights + 4 fp32 grads + 4 Adam m + 4 Adam v) = 16 bytes/param"});
  out.push_back({"training_mixed_bf16_states", mul({P, 16}, "training"),
                 p + " x (2 bf16 weights + 2 bf16 grads + 4 fp32 master weights + 4 Adam m + 4 Adam v) = "
                     "16 bytes/param"});

  const bool ctx = t.context != 0;
  const uint64_t per_layer = ctx ? layer_activations(t) : 0;
  const uint64_t act_eager = mul({per_layer, t.layers}, "activations");
  // FlashAttention never stores the s x s scores: the 5as/h term goes, 34 s*b*h bytes per layer remain (the
  // paper's "selective recomputation" figure).
  const uint64_t flash_layer = mul({34, t.context, t.batch, t.hidden}, "activations per layer");
  const uint64_t act = mul({flash_layer, t.layers}, "activations");
  // Full recomputation: each layer's 16-bit input (2*s*b*h) is kept, one layer's activations live at a time.
  const uint64_t act_ckpt =
      add({mul({2, t.context, t.batch, t.hidden, t.layers}, "checkpointed"), flash_layer}, "checkpointed");
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
  out.push_back(estimate("training_activations", act_eager,
                         "L x s*b*h*(34 + 5*a*s/h) bytes, " + sbh(t) +
                             " (Korthikanti et al. 2022, 16-bit activations, attention scores stored)",
                         ""));
  out.push_back(
      estimate("training_activations_flash", act,
               "L x 34*s*b*h bytes, " + sbh(t) + " (FlashAttention: scores recomputed, never stored)", ""));
  out.push_back(estimate(
      "training_activations_checkpointed", act_ckpt,
      "2*s*b*h*L layer inputs + one layer's 34*s*b*h, " + sbh(t) + " (full recomputation, FlashAttention)",
      ""));

  const uint64_t adam32 = out[0].bytes, mixed = out[1].bytes;
  out.push_back(estimate(
      "training_full_fp32_total", add({adam32, mul({2, act}, "fp32 activations")}, "training"),
      "fp32 AdamW states " + num(adam32) + " + fp32 activations 2 x " + num(act) + " (FlashAttention)",
      "fp32 AdamW states " + num(adam32) + " + fp32 activations"));
  out.push_back(estimate(
      "training_mixed_bf16_total", add({mixed, act}, "training"),
      "bf16 mixed-precision AdamW states " + num(mixed) + " + activations " + num(act) + " (FlashAttention)",
      "bf16 mixed-precision AdamW states " + num(mixed) + " + activations"));
  out.push_back(estimate(
      "training_mixed_bf16_checkpointed_total", add({mixed, act_ckpt}, "training"),
      "bf16 mixed-precision AdamW states " + num(mixed) + " + checkpointed activations " + num(act_ckpt),
      "bf16 mixed-precision AdamW states " + num(mixed) + " + checkpointed activations"));
  if (!t.adapters_known) {
    assumptions.push_back(
        "LoRA and QLoRA: not sized, none of the tensors is a projection the adapters target (attention q, k, "
        "v, o; a state-space mixer's in_proj, x_proj, out_proj): the adapters' parameters are unknown");
    return out;
  }

  const uint64_t A = t.adapters.lora_parameters;
  const uint64_t adapter_bytes = mul({A, 16}, "lora");
  const std::string adapters =
      num(A) + " adapter params x 16 (fp32 weights, grads, Adam m, v) = " + num(adapter_bytes);
  const std::string lora_base =
      "frozen bf16 weights " + p + " x 2 + " + adapters + " + checkpointed activations";
  out.push_back(estimate("training_lora_total",
                         add({mul({P, 2}, "lora base"), adapter_bytes, act_ckpt}, "lora"),
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
  const uint64_t nf4 = add({ceil_div(Q, 2), ceil_div(Q, 64), mul({ceil_div(Q, 64 * 256), 4}, "nf4")}, "nf4");
  const uint64_t rest = mul({P - Q, 2}, "qlora rest");
  const std::string qlora_base =
      "NF4 base " + num(Q) + " params x (0.5 + 1/64 absmax + 4/16,384 double-quant) = " + num(nf4) +
      " + bf16 rest " + num(P - Q) + " x 2 + " + adapters + " + checkpointed activations";
  out.push_back(estimate("training_qlora_total", add({nf4, rest, adapter_bytes, act_ckpt}, "qlora"),
                         qlora_base + " " + num(act_ckpt), qlora_base));
  assumptions.push_back(
      "QLoRA: every weight matrix of the blocks in NF4 (bitsandbytes, blocksize 64, double "
      "quantization), embeddings, norms, biases and the LM head in bf16; the same adapters");
  return out;
}

}  // namespace ma
