#include "analysis/memory_activations.h"

#include <algorithm>
#include <optional>

#include "analysis/memory_kv.h"
#include "analysis/memory_math.h"

namespace ma {
namespace {

using memory::add;
using memory::mul;
using memory::num;

}  // namespace

FfnWidth widest_ffn(const ArchitectureRecord& a) {
  return widest_ffn(a.layers());
}

FfnWidth widest_ffn(const std::vector<LayerSpec>& layers) {
  FfnWidth best;
  for (const LayerSpec& l : layers) {
    const FfnShape& f = l.ffn;
    FfnWidth w;
    if (f.kind == Ffn::Dense && f.intermediate) {
      const uint64_t parts = f.gated ? 3 : 2;
      w = {mul({parts, f.intermediate}, "3 (gated) or 2 x intermediate_size"),
           num(parts) + " x " + num(f.intermediate) + " ffn width (" +
               (f.gated ? "gate, up, product" : "up, activation") + ")"};
    } else if (f.kind == Ffn::Moe && f.expert_intermediate) {
      const uint64_t parts = f.expert_matrices == 3 ? 3 : 2;
      const std::string moe = "num_experts_per_tok x moe_intermediate_size + shared_expert_intermediate_size";
      const uint64_t routed = mul({f.top_k, f.expert_intermediate}, moe);
      w = {mul({parts, add({routed, f.shared_intermediate}, moe)}, "3 (gated) or 2 x (" + moe + ")"),
           num(parts) + " x (" + num(f.top_k) + " experts x " + num(f.expert_intermediate) +
               (f.shared_intermediate ? " + " + num(f.shared_intermediate) + " shared" : std::string()) +
               ") moe width"};
    }
    if (w.elements > best.elements) best = w;
  }
  return best;
}

namespace {

// The heads the attention of a stack's layers have: the first attention layer's, else the record's.
uint64_t stack_heads(const StackSpec& s, uint64_t dflt) {
  for (const LayerSpec& l : s.layers)
    if (l.mixer == Mixer::Attention && l.attention.heads) return l.attention.heads;
  return dflt;
}

}  // namespace

std::vector<ActivationStack> activation_stacks(const ArchitectureRecord& a, uint64_t context) {
  const StackSpec* main = a.main_stack();
  // The main stack with the record's widths, as the estimates have always sized it (a decoder-only model's
  // figures do not depend on how its stack is recorded).
  std::vector<ActivationStack> out{{std::string(stack_role_name(main ? main->role : StackRole::Decoder)),
                                    a.layers().size(), a.hidden_size, a.num_attention_heads, context,
                                    "context", widest_ffn(a.layers())}};
  const StackSpec* encoder = a.stack(StackRole::Encoder);
  const bool cross = main && main->role == StackRole::Decoder &&
                     std::any_of(main->layers.begin(), main->layers.end(),
                                 [](const LayerSpec& l) { return l.cross_attention.has_value(); });
  if (!encoder || !cross) return out;
  out.insert(
      out.begin(),
      ActivationStack{std::string(stack_role_name(StackRole::Encoder)), encoder->layers.size(),
                      encoder->hidden ? encoder->hidden : a.hidden_size,
                      stack_heads(*encoder, a.num_attention_heads), encoder_positions(*encoder, context),
                      encoder->positions ? "encoder positions" : "context", widest_ffn(encoder->layers)});
  return out;
}

namespace {

// The labels a token classifier scores: the rows of its `classifier` Linear in the template.
std::optional<uint64_t> classifier_labels(const Inventory& inv) {
  if (!inv.model) return std::nullopt;
  for (const TemplateTensor& t : inv.model->tensors)
    if (t.kind == TensorKind::Parameter && t.placement.block == Block::LmHead && t.shape.size() == 2 &&
        (t.name == "classifier.weight" || t.name.ends_with(".classifier.weight")))
      return t.shape[0];
  return std::nullopt;
}

}  // namespace

LogitsShape logits_shape(const Inventory& inv) {
  const ArchitectureRecord& a = inv.arch;
  const std::string& cls = a.architecture;
  // XLM's and FlauBERT's WithLMHeadModel predict masked words, as identity reads them.
  if (cls.ends_with("ForMaskedLM") || cls.ends_with("WithLMHeadModel"))
    return {true, a.vocab_size, cls + "'s masked-LM head scores every position", "vocab"};
  if (cls.ends_with("ForTokenClassification"))
    if (const std::optional<uint64_t> labels = classifier_labels(inv))
      return {true, *labels, cls + "'s classifier scores every position", "labels"};
  return {false, a.vocab_size, "", "vocab"};
}

namespace {

// One stack's peak in a prefill pass: the residual stream and the normed input (2h) plus its widest layer's
// FFN intermediates for every position.
struct StackPeak {
  uint64_t bytes = 0;
  std::string formula;
};

StackPeak stack_peak(const ActivationStack& s, uint64_t batch, uint64_t b, uint32_t tp) {
  FfnWidth ffn = s.ffn;
  if (!ffn.elements) {
    const uint64_t guess = mul({4, s.hidden}, "4 x hidden_size");
    ffn = {mul({3, guess}, "3 x 4 x hidden_size"),
           "3 x 4 x hidden = 3 x " + num(guess) + " (no ffn width in the config)"};
  }
  if (tp > 1) ffn = {ffn.elements / tp, "(" + ffn.formula + ") / " + num(tp) + " tensor-parallel devices"};
  const uint64_t width =
      add({mul({2, s.hidden}, "2 x hidden_size"), ffn.elements}, "2 x hidden_size + FFN width");
  return {mul({batch, s.sequence, width, b},
              "--batch x " + s.sequence_factor + " x (2 x hidden_size + FFN width) x bytes"),
          num(batch) + " batch x " + num(s.sequence) + " tokens x (2 x " + num(s.hidden) + " hidden + " +
              ffn.formula + ") x " + num(b) + " bytes"};
}

}  // namespace

PrefillActivations prefill_activations(const ArchitectureRecord& a, const LogitsShape& l, uint64_t batch,
                                       uint64_t context, uint64_t b, uint32_t tp) {
  const std::vector<ActivationStack> stacks = activation_stacks(a, context);
  std::vector<StackPeak> peaks;
  size_t largest = 0;
  for (const ActivationStack& s : stacks) {
    peaks.push_back(stack_peak(s, batch, b, std::max<uint32_t>(tp, 1)));
    if (peaks.back().bytes > peaks[largest].bytes) largest = peaks.size() - 1;
  }
  PrefillActivations p;
  p.layer_bytes = peaks[largest].bytes;
  p.layer_formula = peaks[largest].formula;
  if (stacks.size() > 1) {
    std::string others;
    for (size_t i = 0; i < stacks.size(); ++i)
      if (i != largest)
        others += (others.empty() ? "" : "; ") + stacks[i].role + " " + num(stacks[i].sequence) +
                  " tokens: " + num(peaks[i].bytes);
    p.layer_formula = "the " + stacks[largest].role + "'s layer, the largest of the stacks' (" + others +
                      "): " + p.layer_formula;
  }
  p.logits_bytes = l.every_position
                       ? mul({batch, context, l.width, 4}, "--batch x context x vocab_size x 4 bytes")
                       : mul({batch, l.width, 4}, "--batch x vocab_size x 4 bytes");
  p.logits_formula = l.every_position ? num(batch) + " x " + num(context) + " positions x " + num(l.width) +
                                            " " + l.unit + " x 4 bytes fp32 logits (" + l.head + ")"
                                      : num(batch) + " x " + num(l.width) + " vocab x 4 bytes fp32 logits";
  return p;
}

}  // namespace ma
