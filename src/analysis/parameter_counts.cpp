#include "analysis/parameter_counts.h"

#include <algorithm>

#include "core/error.h"

namespace ma {
namespace {

// One parameter as the counts see it.
struct Counted {
  std::string_view name;
  const TensorPlacement* placement;
  uint64_t n;
  bool embedding, routed;
};

// The stack a parameter belongs to, and which of the recorded stacks when that is known: a layer of a
// recorded stack, or a tower by its block.
struct StackHit {
  StackRole role;
  std::optional<size_t> index;  // into ArchitectureRecord::stacks
};

StackRole tower_role(Block b) {
  return b == Block::Vision ? StackRole::Vision : b == Block::Audio ? StackRole::Audio : StackRole::Projector;
}

// Where each tower's own modules are, when towers share a role (Video-LLaVA's image and video towers,
// DeepSeek-VL-7B's SAM and SigLIP): each stack's path up to the first part that differs from the others',
// "model.high_res_vision_model." beside "model.vision_model.". Empty for a stack alone in its role, which
// takes all of the role's tensors.
std::vector<std::string> tower_roots(const ArchitectureRecord& a) {
  std::vector<std::string> roots(a.stacks.size());
  for (size_t i = 0; i < a.stacks.size(); ++i) {
    const std::string& path = a.stacks[i].path;
    size_t keep = 0;  // the longest part of `path` some other stack of the role shares, in whole parts
    bool shared = false;
    for (size_t j = 0; j < a.stacks.size(); ++j) {
      if (j == i || a.stacks[j].role != a.stacks[i].role) continue;
      shared = true;
      const std::string& other = a.stacks[j].path;
      size_t same = 0;
      while (same < path.size() && same < other.size() && path[same] == other[same]) ++same;
      const size_t dot = path.rfind('.', same == 0 ? 0 : same - 1);
      keep = std::max(keep, dot == std::string::npos || same == 0 ? size_t{0} : dot + 1);
    }
    if (!shared) continue;
    const size_t end = path.find('.', keep);
    roots[i] = path.substr(0, end == std::string::npos ? path.size() : end + 1);
  }
  return roots;
}

std::optional<StackHit> stack_of(const Counted& c, const ArchitectureRecord& a,
                                 const std::vector<std::string>& roots) {
  if (is_tower(c.placement->block) && c.placement->block != Block::SpeechOutput) {
    const StackRole role = tower_role(c.placement->block);
    std::optional<size_t> alone;
    size_t of_role = 0;
    for (size_t i = 0; i < a.stacks.size(); ++i) {
      if (a.stacks[i].role != role) continue;
      ++of_role;
      alone = i;
      if (!roots[i].empty() && c.name.starts_with(roots[i])) return StackHit{role, i};
    }
    return StackHit{role, of_role == 1 ? alone : std::nullopt};
  }
  if (!c.placement->layer) return std::nullopt;
  const std::string_view stack = c.name.substr(0, c.placement->stack_length);
  for (size_t i = 0; i < a.stacks.size(); ++i) {
    const StackSpec& s = a.stacks[i];
    if (s.path == stack && *c.placement->layer >= s.first_index &&
        *c.placement->layer < s.first_index + s.layers.size())
      return StackHit{s.role, i};
  }
  return std::nullopt;
}

// The encoder stack of an encoder-decoder (whose main stack is the decoder); none otherwise.
const StackSpec* encoder_beside_decoder(const ArchitectureRecord& a) {
  const StackSpec* encoder = a.stack(StackRole::Encoder);
  return encoder && encoder != a.main_stack() ? encoder : nullptr;
}

// Adds a parameter to its layer's count when it lies in one of `stack`'s layers.
void count_in_layer(std::vector<uint64_t>& by_layer, const StackSpec* stack, const Counted& x) {
  if (!stack || !x.placement->layer || x.name.substr(0, x.placement->stack_length) != stack->path) return;
  const uint32_t layer = *x.placement->layer;
  if (layer >= stack->first_index && layer - stack->first_index < by_layer.size())
    by_layer[layer - stack->first_index] += x.n;
}

// What the counts hold that a text token does not run: the towers' own nn.Embedding tables (CLIP's position
// embedding, in `embedding`), and the multi-token-prediction layers the total holds (a GGUF's nextn layers,
// as llama.cpp counts them; MiMo's): run only to draft tokens for speculative decoding, and left out of the
// active figures DeepSeek and GLM quote, with the routed experts among them.
// Also the LoRA adapters a model keeps inline beside the weights they adapt (Phi-4-multimodal's vision and
// speech LoRAs): the model switches one on for the input it was trained for, and a text token runs the base
// weights alone.
struct NotRunPerToken {
  uint64_t tower_embedding = 0, mtp = 0, mtp_routed = 0, inline_adapters = 0;
  uint64_t input_stems = 0;  // convolutional and patch stems outside the towers (see count_parameters)
};

bool inline_adapter(const TensorPlacement& p) {
  return p.role.ends_with("-lora-a") || p.role.ends_with("-lora-b");
}

void tally(ParameterCounts& c, NotRunPerToken& aside, const ArchitectureRecord& a,
           const std::vector<std::string>& roots, const Counted& x) {
  c.total += x.n;
  if (x.embedding) c.embedding += x.n;
  if (x.routed) c.routed_experts += x.n;
  const Block b = x.placement->block;
  const bool tower = is_tower(b);
  if (tower) c.towers += x.n;
  if (tower && x.embedding) aside.tower_embedding += x.n;
  if (inline_adapter(*x.placement)) aside.inline_adapters += x.n;
  if (b == Block::Embedding && (x.placement->role == "conv-stem" || x.placement->role == "patch-embedding"))
    aside.input_stems += x.n;
  auto it = std::find_if(c.by_block.begin(), c.by_block.end(),
                         [&](const BlockParameters& p) { return p.block == b; });
  if (it == c.by_block.end()) it = c.by_block.insert(c.by_block.end(), {b, 0});
  it->parameters += x.n;
  count_in_layer(c.by_layer, a.main_stack(), x);
  count_in_layer(c.encoder_by_layer, encoder_beside_decoder(a), x);
  if (std::optional<StackHit> hit = stack_of(x, a, roots)) {
    if (hit->role == StackRole::Mtp) {
      aside.mtp += x.n;
      if (x.routed) aside.mtp_routed += x.n;
    }
    auto s = std::find_if(c.by_stack.begin(), c.by_stack.end(),
                          [&](const StackParameters& p) { return p.role == hit->role; });
    if (s == c.by_stack.end()) s = c.by_stack.insert(c.by_stack.end(), {hit->role, 0});
    s->parameters += x.n;
    if (hit->index) c.each_stack[*hit->index] += x.n;
  }
}

}  // namespace

ParameterCounts count_parameters(const Inventory& inv) {
  ParameterCounts c;
  NotRunPerToken aside;
  const ArchitectureRecord& a = inv.arch;
  if (const StackSpec* main = a.main_stack()) c.by_layer.assign(main->layers.size(), 0);
  if (const StackSpec* encoder = encoder_beside_decoder(a))
    c.encoder_by_layer.assign(encoder->layers.size(), 0);
  c.each_stack.assign(a.stacks.size(), 0);
  const std::vector<std::string> roots = tower_roots(a);
  if (inv.model) {
    c.from_template = true;
    for (const TemplateTensor& t : inv.model->tensors) {
      if (t.kind != TensorKind::Parameter || !t.tied_to.empty()) continue;
      tally(c, aside, a, roots, {t.name, &t.placement, numel(t.shape), t.embedding, t.routed_expert});
    }
  } else {
    for (const InventoryTensor& t : inv.tensors) {
      if (t.kind != TensorKind::Parameter || !t.stored) continue;
      tally(c, aside, a, roots,
            {t.name, &t.placement, t.parameters, t.embedding || t.placement.block == Block::Embedding,
             t.routed_expert});
    }
  }
  std::sort(c.by_block.begin(), c.by_block.end(),
            [](const BlockParameters& x, const BlockParameters& y) { return x.block < y.block; });
  c.outside_layers = c.total;
  for (uint64_t n : c.by_layer) c.outside_layers -= n;
  for (uint64_t n : c.encoder_by_layer) c.outside_layers -= n;
  c.non_embedding = c.total - c.embedding;
  if (c.routed_experts) {
    // Experts are equal-sized, so the active share of the routed weights is exactly top_k / experts.
    const FfnShape* moe = nullptr;
    for (const LayerSpec& l : a.layers())
      if (l.ffn.kind == Ffn::Moe && !moe) moe = &l.ffn;
    const bool valid = moe && moe->experts != 0 && moe->top_k != 0 && moe->top_k <= moe->experts;
    // A template always states them; bare weights (a GGUF without expert_used_count, safetensors without a
    // config) may not, and then the active count is not known.
    if (!valid && inv.model)
      throw Error(ErrorKind::Internal, "", a.model_type,
                  "routed experts without a valid experts/top-k count");
    const uint64_t routed = c.routed_experts - aside.mtp_routed;
    if (valid) c.active = c.total - aside.mtp - routed + routed / moe->experts * moe->top_k;
  } else if (aside.mtp) {
    c.active = c.total - aside.mtp;
  }
  // An adapter on its own (a PEFT directory read without its base) is all adapter: nothing is set aside.
  if (aside.inline_adapters == c.total) aside.inline_adapters = 0;
  // So is a model that is all tower (SAM, a codec or a vocoder alone): it runs every weight on its own
  // inputs, with no text model to set its towers aside from. An input stem beside the towers does not make a
  // text model (DAC's first convolutions are named as Whisper's audio stem, encoder.conv1 and conv2).
  if (c.towers > 0 && c.towers + aside.input_stems == c.total) {
    c.towers = 0;
    aside.tower_embedding = 0;
  }
  if (c.towers || aside.inline_adapters)
    c.active = c.active.value_or(c.total) - c.towers - aside.inline_adapters;
  if (inv.shape_contradictions && inv.checkpoint) c.as_stored = inv.checkpoint->parameters;
  if (c.active) c.active_non_embedding = *c.active - (c.embedding - aside.tower_embedding);
  return c;
}

}  // namespace ma
