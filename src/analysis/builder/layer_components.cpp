#include "analysis/builder/layer_components.h"

#include <algorithm>
#include <array>

#include "core/error.h"

namespace ma {
namespace {

constexpr std::array<ComponentKindInfo, 16> kKinds = {{
    {ComponentKind::Attention, "attention", "GroupedQueryAttentionLayer"},
    {ComponentKind::Mla, "mla_attention", "MLAAttentionLayer"},
    {ComponentKind::Mamba, "mamba", "MambaLayer"},
    {ComponentKind::Mamba2, "mamba2", "Mamba2Layer"},
    {ComponentKind::LinearAttention, "linear_attention", "GatedDeltaNetLayer"},
    {ComponentKind::CrossAttention, "cross_attention", "CrossAttentionLayer"},
    {ComponentKind::DenseMlp, "mlp", "GatedMLPLayer"},
    {ComponentKind::Moe, "moe", "MoELayer"},
    {ComponentKind::Norm, "norm", "NormLayer"},
    {ComponentKind::Embedding, "embedding", "EmbeddingLayer"},
    {ComponentKind::LmHead, "lm_head", "LMHeadLayer"},
    {ComponentKind::Mtp, "mtp", "MTPLayer"},
    {ComponentKind::VisionTower, "vision_tower", "VisionTowerLayer"},
    {ComponentKind::AudioTower, "audio_tower", "AudioTowerLayer"},
    {ComponentKind::Projector, "projector", "MultimodalProjectorLayer"},
    {ComponentKind::Other, "other", "UnclassifiedLayer"},
}};

// The module a tensor belongs to: its name without the leaf ("...q_norm.weight" -> "...q_norm").
std::string_view module_path(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(0, dot);
}

// The stack whose layer holds the tensor, by the module-list prefix of its name and the layer range.
const StackSpec* stack_of(const ArchitectureRecord& a, std::string_view name, const TensorPlacement& p) {
  if (!p.layer) return nullptr;
  const std::string_view prefix = name.substr(0, p.stack_length);
  for (const StackSpec& s : a.stacks)
    if (s.path == prefix && *p.layer >= s.first_index && *p.layer - s.first_index < s.layers.size())
      return &s;
  return nullptr;
}

bool recurrent_or_latent(const LayerSpec& l) {
  return l.mixer == Mixer::Mamba || l.mixer == Mixer::Mamba2 || l.mixer == Mixer::LinearAttention ||
         (l.mixer == Mixer::Attention && l.attention.kind == AttentionKind::Mla);
}

// A norm's module by its name: "LayerNorm", "layer_norm", "ln_1", "q_norm" ("...output.LayerNorm.weight").
bool is_norm_module(std::string_view name) {
  const std::string_view module = module_path(name);
  const size_t dot = module.rfind('.');
  const std::string_view leaf = dot == std::string_view::npos ? module : module.substr(dot + 1);
  return leaf.ends_with("LayerNorm") || leaf.ends_with("layernorm") || leaf.ends_with("norm") ||
         leaf.starts_with("ln_");
}

ComponentKind mixer_kind(const LayerSpec& l) {
  switch (l.mixer) {
    case Mixer::Mamba:
      return ComponentKind::Mamba;
    case Mixer::Mamba2:
      return ComponentKind::Mamba2;
    case Mixer::LinearAttention:
      return ComponentKind::LinearAttention;
    default:
      return l.attention.kind == AttentionKind::Mla ? ComponentKind::Mla : ComponentKind::Attention;
  }
}

ComponentKind tower_kind(StackRole r, Block b) {
  if (b == Block::VisionProjector || r == StackRole::Projector) return ComponentKind::Projector;
  return r == StackRole::Audio ? ComponentKind::AudioTower : ComponentKind::VisionTower;
}

// Which component a tensor of a layer belongs to. A norm nested inside an MLA or recurrent mixer (MLA's
// kv_a_layernorm) is part of that mixer: a simulator implementing the mixer implements it too. Norms
// directly under the layer, and the q/k norms of ordinary attention, are norm instances.
ComponentKind kind_in_layer(const TensorPlacement& p, const LayerSpec& l, std::string_view name,
                            size_t layer_prefix) {
  switch (p.block) {
    case Block::Attention:
      // A norm the attention module holds after its output (BERT's attention.output.LayerNorm) is a norm
      // instance like the layer's others, except inside an MLA or recurrent mixer.
      if (is_norm_module(name) && !recurrent_or_latent(l)) return ComponentKind::Norm;
      return l.mixer == Mixer::Attention ? mixer_kind(l) : ComponentKind::Attention;
    case Block::CrossAttention:
      return ComponentKind::CrossAttention;
    case Block::Mlp:
      return ComponentKind::DenseMlp;
    case Block::MoeRouter:
    case Block::MoeExpert:
    case Block::SharedExpert:
      return ComponentKind::Moe;
    case Block::Mamba:  // the layer's mixer, or the one beside its attention (Falcon-H1)
      return l.mixer == Mixer::Mamba2 || l.parallel == Mixer::Mamba2 ? ComponentKind::Mamba2
                                                                     : ComponentKind::Mamba;
    case Block::LinearAttention:
      return ComponentKind::LinearAttention;
    case Block::ShortConv:  // LFM2's, RecurrentGemma's and RWKV's: no simulator layer of their own
    case Block::RgLru:
    case Block::Rwkv:
    case Block::Mlstm:
      return ComponentKind::Other;
    case Block::Mtp:
      return ComponentKind::Mtp;
    case Block::Norm: {
      const std::string_view rest = name.substr(std::min(layer_prefix, name.size()));
      const bool nested = std::count(rest.begin(), rest.end(), '.') >= 3;  // "3.self_attn.x.weight"
      return nested && recurrent_or_latent(l) ? mixer_kind(l) : ComponentKind::Norm;
    }
    default:
      return ComponentKind::Other;
  }
}

bool is_lookup_table(std::string_view role) {
  return role == "token-embedding" || role == "position-embedding" || role == "token-type-embedding";
}

uint64_t hidden_of(const ArchitectureRecord& a, const StackSpec* s) {
  return s && s->hidden ? s->hidden : a.hidden_size;
}

FactValue count_or_null(uint64_t n) {
  return n ? FactValue(n) : FactValue();
}

bool has_bias(const ComponentInstance& c) {
  return std::any_of(c.tensors.begin(), c.tensors.end(),
                     [](const ComponentTensor& t) { return t.name.ends_with(".bias"); });
}

uint64_t elements_named(const ComponentInstance& c, std::string_view leaf) {
  uint64_t n = 0;
  for (const ComponentTensor& t : c.tensors)
    if (t.name.ends_with(leaf)) n += numel(t.shape);
  return n;
}

// The [rows, columns] of the instance's first tensor of two or more dimensions (an embedding table, a head),
// its leading dimensions as rows (ViT's position table is [1, 197, 768]: 197 rows): {0, 0} if none.
std::pair<uint64_t, uint64_t> matrix_shape(const ComponentInstance& c) {
  for (const ComponentTensor& t : c.tensors)
    if (t.shape.size() >= 2 && t.shape.back()) return {numel(t.shape) / t.shape.back(), t.shape.back()};
  return {0, 0};
}

// An LM head's [vocabulary, width]: of the matrix that makes its logits, its own or a tied one it multiplies
// by (BERT's MLM head holds a hidden x hidden transform and multiplies by the tied word embeddings, [30,522,
// 768]; the transform is no output, so a square matrix is passed over). Without such a matrix, the length of
// its output bias (predictions.bias) by the width; else the first matrix.
std::pair<uint64_t, uint64_t> head_shape(const ComponentInstance& c, uint64_t hidden) {
  std::pair<uint64_t, uint64_t> best{0, 0};
  for (const std::vector<ComponentTensor>* list : {&c.tied, &c.tensors})
    for (const ComponentTensor& t : *list) {
      if (t.shape.size() < 2 || !t.shape.back()) continue;
      const uint64_t rows = numel(t.shape) / t.shape.back();
      if (rows != t.shape.back() && rows > best.first) best = {rows, t.shape.back()};
    }
  if (best.first) return best;
  uint64_t bias = 0;
  for (const ComponentTensor& t : c.tensors)
    if (t.shape.size() == 1 && t.name.ends_with("bias")) bias = std::max(bias, t.shape[0]);
  if (bias > hidden) return {bias, hidden};
  return matrix_shape(c);
}

// num_shared_experts in units of one routed expert, which is how MoELayer counts them: a shared MLP k times
// as wide as a routed expert, with as many projections, is k experts (Qwen1.5-MoE's one shared MLP of 5,632
// = 4 x 1,408; DeepSeek's shared experts, fused into one MLP of their summed width, the same way). A width
// that is no multiple, or other projections, keep the config's count: the class then builds another count
// and the layer is a gap.
uint64_t shared_expert_units(const ComponentInstance& c, const FfnShape& f, uint64_t hidden) {
  uint64_t elements = 0;
  for (const ComponentTensor& t : c.tensors)
    if (t.shared_expert && t.shape.size() == 2 && t.shape[0] != 1 && t.shape[1] != 1 &&
        !t.name.ends_with("bias"))
      elements += numel(t.shape);
  const uint64_t one_expert = uint64_t{f.expert_matrices} * hidden * f.expert_intermediate;
  if (!one_expert || !elements || elements % one_expert) return f.shared_experts;
  const uint64_t units = elements / one_expert;
  const bool same_width = !f.shared_intermediate || units * f.expert_intermediate == f.shared_intermediate;
  return same_width ? units : f.shared_experts;
}

// The facts of what no simulator class describes (towers, MTP layers, unclassified tensors): the width, and
// for an instance in a stack's layers the stack's shape.
Facts stack_facts(const ComponentInstance& c, const ArchitectureRecord& a, const StackSpec* s) {
  Facts f{{"hidden_size", count_or_null(hidden_of(a, s))}};
  if (!s || !c.layer) return f;
  f.emplace_back("num_layers", uint64_t{s->layers.size()});
  if (s->patch_size) f.emplace_back("patch_size", s->patch_size);
  if (s->image_size) f.emplace_back("image_size", s->image_size);
  if (s->mel_bins) f.emplace_back("mel_bins", s->mel_bins);
  return f;
}

// A dense MLP's width and projection count from its matrices: each 2-D weight is hidden x width (a fused
// gate_up, 2 x width, counts twice); {0, 0} without one.
std::pair<uint64_t, uint64_t> mlp_shape(const ComponentInstance& c, uint64_t hidden) {
  uint64_t width = 0, elements = 0;
  for (const ComponentTensor& t : c.tensors)
    if (t.shape.size() == 2 && (t.shape[0] == hidden || t.shape[1] == hidden)) {
      const uint64_t w = t.shape[0] == hidden ? t.shape[1] : t.shape[0];
      width = width ? std::min(width, w) : w;
      elements += numel(t.shape);
    }
  if (!width || !hidden || elements % (hidden * width)) return {width, 0};
  return {width, elements / (hidden * width)};
}

Facts attention_facts(const AttentionShape& at, uint64_t hidden, const ComponentInstance& c) {
  const bool sliding = at.span == Span::Sliding && at.window;
  const bool chunked = at.span == Span::Chunked && at.window;
  return {{"hidden_size", hidden},
          {"num_heads", at.heads},
          {"num_query_heads", at.heads},
          {"num_kv_heads", at.kv_heads},
          {"head_dim", at.head_dim},
          {"sliding_window", sliding ? FactValue(at.window) : FactValue()},
          {"attention_chunk_size", chunked ? FactValue(at.window) : FactValue()},
          {"num_sinks", elements_named(c, ".sinks")},
          {"has_bias", has_bias(c)}};
}

Facts facts_of(const ComponentInstance& c, const ArchitectureRecord& a, const StackSpec* s,
               const LayerSpec* l) {
  const uint64_t hidden = hidden_of(a, s);
  const auto [rows, cols] = matrix_shape(c);
  switch (c.kind) {
    case ComponentKind::Attention:
      return attention_facts(l ? l->attention : AttentionShape{}, hidden, c);
    case ComponentKind::CrossAttention:
      return attention_facts(l && l->cross_attention ? *l->cross_attention : AttentionShape{}, hidden, c);
    case ComponentKind::Mla: {
      const AttentionShape at = l ? l->attention : AttentionShape{};
      return {{"hidden_size", hidden},
              {"num_heads", at.heads},
              {"q_lora_rank", count_or_null(at.q_lora_rank)},
              {"kv_lora_rank", at.kv_lora_rank},
              {"qk_nope_head_dim", at.qk_nope_head_dim},
              {"qk_rope_head_dim", at.qk_rope_head_dim},
              {"v_head_dim", at.v_head_dim ? at.v_head_dim : at.head_dim},
              {"indexer_heads", count_or_null(at.indexer_heads)},
              {"indexer_head_dim", count_or_null(at.indexer_head_dim)},
              {"indexer_topk", count_or_null(at.indexer_topk)},
              {"has_bias", has_bias(c)}};
    }
    case ComponentKind::Mamba:
    case ComponentKind::Mamba2:
    case ComponentKind::LinearAttention: {
      const StateShape st = l ? l->state : StateShape{};
      return {{"hidden_size", hidden},
              {"d_inner", count_or_null(st.inner)},
              {"d_state", count_or_null(st.state)},
              {"conv_kernel", count_or_null(st.conv_kernel)},
              {"dt_rank", count_or_null(st.dt_rank)},
              {"num_heads", count_or_null(st.heads)},
              {"head_dim", count_or_null(st.head_dim)},
              {"n_groups", count_or_null(st.groups)},
              {"chunk_size", count_or_null(st.chunk_size)},
              {"num_key_heads", count_or_null(st.key_heads)},
              {"num_value_heads", count_or_null(st.value_heads)},
              {"key_head_dim", count_or_null(st.key_head_dim)},
              {"value_head_dim", count_or_null(st.value_head_dim)},
              {"has_bias", has_bias(c)}};
    }
    case ComponentKind::DenseMlp: {
      const FfnShape f = l ? l->ffn : FfnShape{};
      // The layer's FFN shape describes its MoE where it has one (Gemma 4's dense MLP beside it): the MLP's
      // own matrices then say its width and how many projections it has.
      if (f.kind == Ffn::Moe || !f.intermediate) {
        const auto [width, projections] = mlp_shape(c, hidden);
        return {{"hidden_size", hidden},
                {"intermediate_size", count_or_null(width)},
                {"num_projections", count_or_null(projections)},
                {"has_bias", has_bias(c)}};
      }
      return {{"hidden_size", hidden},
              {"intermediate_size", f.intermediate},
              {"num_projections", uint64_t{f.gated ? 3u : 2u}},
              {"has_bias", has_bias(c)}};
    }
    case ComponentKind::Moe: {
      const FfnShape f = l ? l->ffn : FfnShape{};
      // Shared experts only where the instance holds their weights: a dense MLP beside the experts that the
      // architecture reads as a shared expert (Gemma 4) is its own instance, and is not described twice.
      const bool shared = std::any_of(c.tensors.begin(), c.tensors.end(),
                                      [](const ComponentTensor& t) { return t.shared_expert; });
      return {{"hidden_size", hidden},
              {"intermediate_size", f.expert_intermediate},
              {"num_experts", f.experts},
              {"top_k", f.top_k},
              {"num_shared_experts", shared ? shared_expert_units(c, f, hidden) : 0},
              {"shared_intermediate_size", shared ? f.shared_intermediate : 0},
              {"num_projections", uint64_t{f.expert_matrices}},
              {"has_bias", has_bias(c)}};
    }
    case ComponentKind::Norm:
      return {{"hidden_size", elements_named(c, ".weight")}, {"has_bias", has_bias(c)}};
    case ComponentKind::Embedding:
      return {{"vocab_size", rows}, {"hidden_size", cols}, {"has_bias", has_bias(c)}};
    case ComponentKind::LmHead: {
      const auto [vocab, width] = head_shape(c, hidden);
      return {{"vocab_size", vocab}, {"hidden_size", width}, {"has_bias", has_bias(c)}};
    }
    case ComponentKind::Mtp: {
      // Its routed experts run top_k at a time: the gap report's FLOPs need both.
      Facts f = stack_facts(c, a, s);
      if (l && l->ffn.kind == Ffn::Moe) {
        f.emplace_back("num_experts", l->ffn.experts);
        f.emplace_back("top_k", l->ffn.top_k);
      }
      return f;
    }
    default:
      return stack_facts(c, a, s);
  }
}

// Where an instance lives: its kind, stack, layer and variant; tensors with the same key are one instance.
struct Key {
  ComponentKind kind;
  const StackSpec* stack;
  std::optional<uint64_t> layer;
  std::string variant;
  bool extra = false;  // outside transformers' model (an MTP layer it skips): never mixed with what it counts
  bool operator==(const Key& o) const {
    return kind == o.kind && stack == o.stack && layer == o.layer && variant == o.variant && extra == o.extra;
  }
};

// The stack a tensor outside every layer belongs to: the one whose layers' parent module holds it (T5's
// encoder.final_layer_norm is the encoder's, decoder.final_layer_norm the decoder's); null when none does,
// or when that stack is a tower's (what sits outside the stacks then belongs with the language model).
const StackSpec* owning_stack(const ArchitectureRecord& a, std::string_view name) {
  const StackSpec* owner = nullptr;
  size_t longest = 0;
  for (const StackSpec& s : a.stacks) {
    const size_t dot = s.path.rfind('.');
    if (dot == std::string::npos) continue;
    const std::string_view parent = std::string_view(s.path).substr(0, dot + 1);  // "model.encoder."
    if (name.starts_with(parent) && parent.size() > longest &&
        (s.role == StackRole::Decoder || s.role == StackRole::Encoder)) {
      owner = &s;
      longest = parent.size();
    }
  }
  return owner;
}

bool is_pooler(std::string_view name) {
  for (std::string_view rest = module_path(name); !rest.empty();) {
    const size_t dot = rest.find('.');
    if (rest.substr(0, dot) == "pooler") return true;
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  }
  return false;
}

Key key_of(const ArchitectureRecord& a, std::string_view name, const TensorPlacement& p) {
  const StackSpec* s = stack_of(a, name, p);
  // The omni models' speech output is no tower, and no component a simulator has: unclassified, a gap.
  const bool tower_block = is_tower(p.block) && p.block != Block::SpeechOutput;
  if (tower_block ||
      (s && (s->role == StackRole::Vision || s->role == StackRole::Audio || s->role == StackRole::Projector)))
    return {tower_kind(s                         ? s->role
                       : p.block == Block::Audio ? StackRole::Audio
                                                 : StackRole::Vision,
                       p.block),
            nullptr, std::nullopt, ""};
  if (p.block == Block::Mtp || (s && s->role == StackRole::Mtp)) {
    std::optional<uint64_t> layer = p.layer;
    if (s && layer)
      *layer -= s->first_index;  // in its stack: DeepSeek-V3's layer 61 is the MTP stack's first
    return {ComponentKind::Mtp, s, layer, ""};
  }
  if (s) {
    const LayerSpec& l = s->layers[*p.layer - s->first_index];
    const ComponentKind k = kind_in_layer(p, l, name, p.stack_length + 1);
    // A norm instance is its module (T5 has three "layer_norm" modules per layer).
    return {k, s, *p.layer - s->first_index,
            k == ComponentKind::Norm    ? std::string(module_path(name))
            : k == ComponentKind::Other ? std::string(block_name(p.block))
                                        : ""};
  }
  switch (p.block) {
    case Block::Embedding:
      // Lookup tables are embeddings; a tower's convolutional stem or a [CLS] token is not. Each stack's
      // own (BART's and Whisper's encoder and decoder position tables, [1,500, 512] and [448, 512] in
      // Whisper) is an instance of that stack: two tables are two EmbeddingLayers, not one of both sizes.
      return {is_lookup_table(p.role) ? ComponentKind::Embedding : ComponentKind::Other,
              owning_stack(a, name), std::nullopt, p.role};
    case Block::LmHead:
      // A pooler (BERT's and ViT's pooler.dense, which the placement files with the heads) makes no
      // logits: unclassified, not an LM head.
      if (is_pooler(name)) return {ComponentKind::Other, nullptr, std::nullopt, "pooler"};
      return {ComponentKind::LmHead, nullptr, std::nullopt, ""};
    case Block::Norm:
      return {ComponentKind::Norm, owning_stack(a, name), std::nullopt, std::string(module_path(name))};
    default:
      return {ComponentKind::Other, nullptr, std::nullopt, std::string(block_name(p.block))};
  }
}

// The module directly under the layer that holds the tensor ("model.layers.1.mixer.fc1.weight" -> "mixer").
std::string_view layer_module(const StackSpec& s, std::string_view name) {
  std::string_view rest = name.substr(std::min(s.path.size() + 1, name.size()));
  rest = rest.substr(std::min(rest.find('.') + 1, rest.size()));  // past the layer index
  return rest.substr(0, rest.find('.'));
}

// Projections that sit inside an MoE module beside its experts (Nemotron-3-Super's fc1/fc2_latent_proj into
// and out of the experts' latent space) are part of that MoE, not a dense MLP of their own: a dense MLP is a
// module of its own beside the experts (Gemma 4's "mlp").
void fold_latent_projections(std::vector<ComponentInstance>& out, std::vector<Key>& keys) {
  for (size_t i = 0; i < out.size();) {
    const Key& k = keys[i];
    const bool moe_layer = k.kind == ComponentKind::DenseMlp && k.stack && k.layer &&
                           k.stack->layers[*k.layer].ffn.kind == Ffn::Moe && !out[i].tensors.empty();
    auto moe = std::find_if(keys.begin(), keys.end(), [&](const Key& o) {
      return moe_layer && o.kind == ComponentKind::Moe && o.stack == k.stack && o.layer == k.layer;
    });
    ComponentInstance* target = moe == keys.end() ? nullptr : &out[static_cast<size_t>(moe - keys.begin())];
    if (!target || target->tensors.empty() ||
        layer_module(*k.stack, out[i].tensors.front().name) !=
            layer_module(*k.stack, target->tensors.front().name)) {
      ++i;
      continue;
    }
    target->parameters += out[i].parameters;
    target->tensors.insert(target->tensors.end(), out[i].tensors.begin(), out[i].tensors.end());
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
    keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace

const ComponentKindInfo& component_kind_info(ComponentKind k) {
  for (const ComponentKindInfo& i : kKinds)
    if (i.kind == k) return i;
  return kKinds.back();
}

const FactValue* find_fact(const Facts& facts, std::string_view name) {
  for (const auto& [key, value] : facts)
    if (key == name) return &value;
  return nullptr;
}

std::vector<ComponentInstance> split_into_components(const Inventory& inv) {
  if (!inv.model)
    throw Error(ErrorKind::Unsupported, inv.source, "config.json",
                "a simulator config is built from the architecture's template: a model with a config.json is "
                "needed");
  const ArchitectureRecord& a = inv.arch;
  std::vector<ComponentInstance> out;
  std::vector<Key> keys;
  auto instance_of = [&](Key k) -> ComponentInstance& {
    auto it = std::find(keys.begin(), keys.end(), k);
    if (it != keys.end()) return out[static_cast<size_t>(it - keys.begin())];
    ComponentInstance c;
    c.kind = k.kind;
    // What sits outside the stacks (embeddings, the final norm) belongs with the language model's stack.
    const StackSpec* main = a.main_stack();
    c.stack = k.stack ? k.stack->role : (main ? main->role : StackRole::Decoder);
    c.main_stack = !k.stack || k.stack == main;
    c.layer = k.layer;
    c.variant = k.variant;
    c.in_total_params = !k.extra;
    out.push_back(std::move(c));
    keys.push_back(std::move(k));
    return out.back();
  };
  // The same parameters count_parameters() counts: learned weights, tied copies once. Then the MTP layers
  // stored beside the model, whose routed experts the template does not flag (they are in no active count).
  for (const TemplateTensor& t : inv.model->tensors) {
    const TensorPlacement& p = t.placement;
    const bool learned = t.kind == TensorKind::Parameter && t.tied_to.empty();
    Key k = key_of(a, t.name, p);
    k.extra = t.kind == TensorKind::Extra;
    if (!learned && !(k.extra && k.kind == ComponentKind::Mtp)) continue;
    ComponentInstance& c = instance_of(std::move(k));
    c.parameters += numel(t.shape);
    const bool routed = t.routed_expert || (c.kind == ComponentKind::Mtp && p.block == Block::MoeExpert);
    c.tensors.push_back({t.name, t.shape, routed, p.block == Block::SharedExpert,
                         p.block == Block::Embedding && is_lookup_table(p.role)});
  }
  // Tied copies, for the shape of what an instance multiplies by; one whose instance holds nothing else (a
  // head tied to the embedding) adds no instance.
  for (const TemplateTensor& t : inv.model->tensors) {
    if (t.kind != TensorKind::Parameter || t.tied_to.empty()) continue;
    const auto it = std::find(keys.begin(), keys.end(), key_of(a, t.name, t.placement));
    if (it != keys.end()) out[static_cast<size_t>(it - keys.begin())].tied.push_back({t.name, t.shape});
  }
  fold_latent_projections(out, keys);
  for (size_t i = 0; i < out.size(); ++i) {
    const StackSpec* s = keys[i].stack;
    const std::optional<uint64_t> layer = keys[i].layer;
    const LayerSpec* l = s && layer && *layer < s->layers.size() ? &s->layers[*layer] : nullptr;
    out[i].facts = facts_of(out[i], a, s, l);
  }
  return out;
}

}  // namespace ma
