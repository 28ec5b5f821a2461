// State-space language models and their attention hybrids: Mamba and Mamba-2 (pure SSM stacks under
// "backbone."), Jamba (Mamba-1 + attention + MoE by layer period), Nemotron-H (one mixer per block:
// Mamba-2, attention, MLP or MoE) and Granite-4 hybrid (Mamba-2 or attention, plus MoE and a shared MLP in
// every layer).
#include <array>
#include <optional>
#include <type_traits>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/state_space_blocks.h"

namespace ma::families {
namespace {

std::string layer_prefix(const std::string& stack, uint64_t i) {
  return stack + "." + std::to_string(i);
}

// ---- Pure SSM stacks: backbone.embeddings, N x (norm + mixer), backbone.norm_f, lm_head. ----

// The dimensions Mamba and Mamba-2 configs share; they have no attention heads.
void read_ssm_dims(const ModelConfig& cfg, ModelTemplate& t, const DecoderDefaults& d) {
  ArchitectureRecord& a = t.arch;
  a.vocab_size = cfg.dim_or("vocab_size", d.vocab_size);
  a.hidden_size = cfg.dim_or("hidden_size", d.hidden_size);
  a.num_layers = cfg.layers_or("num_hidden_layers", d.num_hidden_layers);
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", d.tie_word_embeddings);
  a.max_position_embeddings = cfg.count_or("max_position_embeddings", 0);
}

template <class Mixer>
void build_ssm_stack(ModelTemplate& t, ma::Mixer kind, const Mixer& m) {
  const ArchitectureRecord& a = t.arch;
  const std::string embed = "backbone.embeddings.weight";
  token_embedding(t, embed, a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, "backbone.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    std::string p = layer_prefix(stack.path, i);
    blocks::norm(t, p + ".norm", a.hidden_size, false);
    if constexpr (std::is_same_v<Mixer, ssm::Mamba1Mixer>)
      ssm::mamba1_mixer(t, p + ".mixer", m);
    else
      ssm::mamba2_mixer(t, p + ".mixer", m);
    LayerSpec l;
    l.mixer = kind;
    l.state = ssm::state_of(m);
    l.ffn.kind = Ffn::None;
    stack.layers.push_back(l);
  }
  blocks::norm(t, "backbone.norm_f", a.hidden_size, false);
  lm_head(t, embed, a);
}

// MambaConfig's stack; FalconMambaConfig's differs in its projections' bias default (none) and in taking an
// explicit intermediate_size over expand x hidden (Falcon-Mamba-7B states expand 16 and 8192). Falcon-Mamba's
// RMS norms of B, C and dt hold no parameters.
void build_mamba_kind(const ModelConfig& cfg, ModelTemplate& t, bool falcon) {
  DecoderDefaults d;
  d.vocab_size = 50280;
  d.hidden_size = 768;
  d.num_hidden_layers = 32;
  d.tie_word_embeddings = true;
  read_ssm_dims(cfg, t, d);
  ssm::Mamba1Mixer m;
  m.hidden = t.arch.hidden_size;
  m.inner = falcon && cfg.has("intermediate_size") ? cfg.dim("intermediate_size")
                                                   : ssm::expanded_width(cfg, "expand", 2, m.hidden);
  m.state = cfg.dim_or("state_size", 16);
  m.conv = cfg.dim_or("conv_kernel", 4);
  m.dt_rank = ssm::dim_or_auto(cfg, "time_step_rank", (m.hidden + 15) / 16);
  m.proj_bias = cfg.flag_or("use_bias", !falcon);
  m.conv_bias = cfg.flag_or("use_conv_bias", true);
  t.arch.intermediate_size = m.inner;
  build_ssm_stack(t, Mixer::Mamba, m);
}

void build_mamba(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MambaForCausalLM";
  build_mamba_kind(cfg, t, false);
}

void build_falcon_mamba(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "FalconMambaForCausalLM";
  build_mamba_kind(cfg, t, true);
}

void build_mamba2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Mamba2ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 32768;
  d.hidden_size = 4096;
  d.num_hidden_layers = 64;
  read_ssm_dims(cfg, t, d);
  ssm::Mamba2Mixer m;
  m.hidden = t.arch.hidden_size;
  m.inner = ssm::expanded_width(cfg, "expand", 2, m.hidden);
  m.heads = cfg.dim_or("num_heads", 128);
  m.head_dim = cfg.dim_or("head_dim", 64);
  m.groups = cfg.dim_or("n_groups", 8);
  m.state = cfg.dim_or("state_size", 128);
  m.conv = cfg.dim_or("conv_kernel", 4);
  m.chunk = cfg.dim_or("chunk_size", 0);
  m.proj_bias = cfg.flag_or("use_bias", false);
  m.conv_bias = cfg.flag_or("use_conv_bias", true);
  t.arch.intermediate_size = m.inner;
  build_ssm_stack(t, Mixer::Mamba2, m);
}

// ---- Shared pieces of the hybrids. ----

enum class Block { Ssm, Attention, Moe, Mlp };

// One entry of a hybrid's layer-type list, accepting the legacy names the Hub still carries
// ("mamba" for "linear_attention", "attention" for "full_attention").
std::optional<Block> block_of(std::string_view s) {
  if (s == "linear_attention" || s == "mamba") return Block::Ssm;
  if (s == "full_attention" || s == "attention") return Block::Attention;
  if (s == "moe") return Block::Moe;
  if (s == "mlp") return Block::Mlp;
  return std::nullopt;
}

// The key under which a config spells its layer-type list (an alias pair), or "" when it has none.
std::string layer_types_key(const ModelConfig& cfg) {
  for (std::string_view k : {"layers_block_type", "layer_types"})
    if (cfg.has(k)) return std::string(k);
  return "";
}

void check_top_k(const ModelConfig& cfg, std::string_view key, uint64_t top_k, uint64_t experts) {
  if (top_k > experts)
    cfg.fail(key, "must not exceed the number of experts (" + std::to_string(experts) + ")");
}

void set_moe_arch(ModelTemplate& t, uint64_t experts, uint64_t top_k, uint64_t shared, uint64_t inter) {
  t.arch.num_experts = experts;
  t.arch.experts_per_token = top_k;
  t.arch.num_shared_experts = shared;
  t.arch.moe_intermediate_size = inter;
}

// ---- Jamba: Mamba-1 mixers, attention every attn_layer_period layers, MoE every expert_layer_period. ----

// A (period, offset) pair selecting layers i with i % period == offset; transformers rejects
// offset >= period.
struct LayerPeriod {
  uint64_t period = 1;
  uint64_t offset = 0;
  bool selects(uint64_t i) const { return i % period == offset; }
};

LayerPeriod read_period(const ModelConfig& cfg, const std::string& stem, LayerPeriod d) {
  LayerPeriod p;
  p.period = cfg.dim_or(stem + "_period", d.period);
  p.offset = cfg.count_or(stem + "_offset", d.offset);
  if (p.offset >= p.period) cfg.fail(stem + "_offset", "must be smaller than " + stem + "_period");
  return p;
}

void build_jamba(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "JambaForCausalLM";
  t.arch.position = PositionKind::None;  // attention without positions: the Mamba layers carry order
  DecoderDefaults d;
  d.vocab_size = 65536;
  d.intermediate_size = 14336;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 262144;
  read_decoder_dims(cfg, d, t);
  const ArchitectureRecord& a = t.arch;
  const LayerPeriod attn = read_period(cfg, "attn_layer", {8, 4});
  const LayerPeriod moe = read_period(cfg, "expert_layer", {2, 1});
  const uint64_t experts = cfg.dim_or("num_experts", 16);
  const uint64_t top_k = cfg.dim_or("num_experts_per_tok", 2);
  check_top_k(cfg, "num_experts_per_tok", top_k, experts);

  ssm::Mamba1Mixer m;
  m.hidden = a.hidden_size;
  m.inner = ssm::expanded_width(cfg, "mamba_expand", 2, m.hidden);
  m.state = cfg.dim_or("mamba_d_state", 16);
  m.conv = cfg.dim_or("mamba_d_conv", 4);
  m.dt_rank = ssm::dim_or_auto(cfg, "mamba_dt_rank", (m.hidden + 15) / 16);
  m.proj_bias = cfg.flag_or("mamba_proj_bias", false);
  m.conv_bias = cfg.flag_or("mamba_conv_bias", true);
  m.dt_norms = true;
  blocks::Attention at = standard_attention(a);

  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, "model.layers");
  bool any_moe = false;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    std::string p = layer_prefix(stack.path, i);
    LayerSpec l = attention_layer(a);
    if (attn.selects(i)) {
      blocks::attention(t, p + ".self_attn", at);
    } else {
      ssm::mamba1_mixer(t, p + ".mamba", m);
      l.mixer = Mixer::Mamba;
      l.state = ssm::state_of(m);
    }
    // A layer selected for experts but given a single one keeps the dense MLP.
    if (moe.selects(i) && experts > 1) {
      std::string f = p + ".feed_forward";
      blocks::linear(t, f + ".router", a.hidden_size, experts, false);
      blocks::ExpertsOnDisk on_disk;
      on_disk.prefix = f + ".experts";
      blocks::fused_experts(t, f + ".experts", experts, a.hidden_size, a.intermediate_size, on_disk);
      l.ffn.kind = Ffn::Moe;
      any_moe = true;
    } else {
      blocks::gated_mlp(t, p + ".feed_forward", a.hidden_size, a.intermediate_size);
    }
    blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + ".pre_ff_layernorm", a.hidden_size, false);
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.final_layernorm", a.hidden_size, false);
  lm_head(t, "model.embed_tokens.weight", a);
  if (any_moe) set_moe_arch(t, experts, top_k, 0, a.intermediate_size);
}

// ---- Nemotron-H: each block is one mixer (Mamba-2, attention, ReLU^2 MLP or MoE) behind one RMSNorm. ----

// The per-block kinds as NemotronHConfig resolves them: an explicit layer-type list wins over the legacy
// hybrid_override_pattern string (M = Mamba-2, * = attention, E = MoE, - = MLP); neither gives the class
// default.
std::vector<Block> nemotron_blocks(const ModelConfig& cfg) {
  std::vector<Block> out;
  if (std::string key = layer_types_key(cfg); !key.empty()) {
    for (const std::string& s : cfg.strings(key)) {
      std::optional<Block> b = block_of(s);
      if (!b) cfg.fail(key, "entries must be linear_attention, full_attention, moe or mlp, not '" + s + "'");
      out.push_back(*b);
    }
    if (out.empty()) cfg.fail(key, "must list at least one layer");
    cfg.check_layer_list(key, out.size());
  } else if (cfg.has("hybrid_override_pattern")) {
    for (char c : cfg.string_or("hybrid_override_pattern", "")) {
      switch (c) {
        case 'M':
          out.push_back(Block::Ssm);
          break;
        case '*':
          out.push_back(Block::Attention);
          break;
        case 'E':
          out.push_back(Block::Moe);
          break;
        case '-':
          out.push_back(Block::Mlp);
          break;
        default:
          cfg.fail("hybrid_override_pattern", "may contain only M, *, E and -");
      }
    }
    if (out.empty()) cfg.fail("hybrid_override_pattern", "must name at least one layer");
    cfg.check_layer_list("hybrid_override_pattern", out.size());
  } else {
    out = {Block::Ssm, Block::Moe, Block::Attention, Block::Mlp};
  }
  return out;
}

// A field NemotronHConfig still accepts under its legacy Mamba name (e.g. mamba_n_groups for n_groups).
std::string_view nemotron_key(const ModelConfig& cfg, std::string_view key, std::string_view legacy) {
  return cfg.has(legacy) ? legacy : key;
}

// up_proj -> ReLU^2 -> down_proj, without a gate (NemotronHMLP).
void ungated_mlp(ModelTemplate& t, const std::string& prefix, uint64_t hidden, uint64_t inter, bool bias) {
  blocks::linear(t, prefix + ".up_proj", hidden, inter, bias);
  blocks::linear(t, prefix + ".down_proj", inter, hidden, bias);
}

struct NemotronMoe {
  uint64_t hidden = 0;
  uint64_t experts = 0;
  uint64_t inter = 0;         // per routed expert
  uint64_t shared_inter = 0;  // the one shared expert
  uint64_t latent = 0;        // 0: experts work at hidden width
  bool bias = false;
};

// NemotronHMoE: DeepSeek-V3-style router (weight + e_score_correction_bias buffer), ungated routed experts
// fused as [E, I, in] / [E, in, I] (stored one tensor per expert), a shared expert, and optional latent
// projections around the routed experts.
void nemotron_moe(ModelTemplate& t, const std::string& p, const NemotronMoe& m) {
  const uint64_t in = m.latent ? m.latent : m.hidden;
  const std::string experts = p + ".experts";
  blocks::per_expert_stored(t, experts + ".up_proj", m.experts, m.inter, in, experts, {"up_proj"});
  blocks::per_expert_stored(t, experts + ".down_proj", m.experts, in, m.inter, experts, {"down_proj"});
  blocks::expert_router(t, p + ".gate", m.hidden, m.experts, true);
  ungated_mlp(t, p + ".shared_experts", m.hidden, m.shared_inter, m.bias);
  if (m.latent) {
    blocks::linear(t, p + ".fc1_latent_proj", m.hidden, m.latent, m.bias);
    blocks::linear(t, p + ".fc2_latent_proj", m.latent, m.hidden, m.bias);
  }
}

void build_nemotron_h(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "NemotronHForCausalLM";
  t.arch.position = PositionKind::None;  // NoPE attention: NemotronHAttention has no rotary embedding
  DecoderDefaults d;
  d.vocab_size = 131072;
  d.intermediate_size = 21504;
  d.num_key_value_heads = 8;
  d.head_dim = 128;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  const std::vector<Block> kinds = nemotron_blocks(cfg);
  t.arch.num_layers = kinds.size();  // the layer list, not num_hidden_layers, sizes the stack
  const ArchitectureRecord& a = t.arch;

  ssm::Mamba2Mixer m;
  m.hidden = a.hidden_size;
  m.heads = cfg.dim_or("mamba_num_heads", 128);
  m.head_dim = cfg.dim_or("mamba_head_dim", 64);
  m.inner = m.heads * m.head_dim;
  m.groups = cfg.dim_or(nemotron_key(cfg, "n_groups", "mamba_n_groups"), 8);
  m.state = cfg.dim_or("ssm_state_size", 128);
  m.conv = cfg.dim_or(nemotron_key(cfg, "conv_kernel", "mamba_d_conv"), 4);
  m.chunk = cfg.dim_or("chunk_size", 0);
  m.proj_bias = cfg.flag_or("use_bias", false);
  m.conv_bias = cfg.flag_or(nemotron_key(cfg, "use_conv_bias", "mamba_conv_bias"), true);

  NemotronMoe moe;
  moe.hidden = a.hidden_size;
  moe.experts = cfg.dim_or(nemotron_key(cfg, "n_routed_experts", "num_local_experts"), 8);
  moe.inter = cfg.dim_or("moe_intermediate_size", 7688);
  moe.shared_inter = cfg.dim_or("moe_shared_expert_intermediate_size", 7688);
  moe.latent = cfg.has("moe_latent_size") ? cfg.dim("moe_latent_size") : 0;
  moe.bias = cfg.flag_or("mlp_bias", false);
  const uint64_t top_k = cfg.dim_or("num_experts_per_tok", 2);
  check_top_k(cfg, "num_experts_per_tok", top_k, moe.experts);

  blocks::Attention at = standard_attention(a);
  at.qkv_bias = at.o_bias = cfg.flag_or("attention_bias", false);

  token_embedding(t, "model.embeddings.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, "model.layers");
  bool any_moe = false;
  for (uint64_t i = 0; i < kinds.size(); ++i) {
    std::string p = layer_prefix(stack.path, i);
    blocks::norm(t, p + ".norm", a.hidden_size, false);
    // One mixer per block: a sequence mixer or a feed-forward, never both.
    LayerSpec l = attention_layer(a, 0, Ffn::None);
    l.mixer = Mixer::None;
    switch (kinds[i]) {
      case Block::Ssm:
        ssm::mamba2_mixer(t, p + ".mixer", m);
        l.mixer = Mixer::Mamba2;
        l.state = ssm::state_of(m);
        break;
      case Block::Attention:
        blocks::attention(t, p + ".mixer", at);
        l.mixer = Mixer::Attention;
        break;
      case Block::Moe:
        nemotron_moe(t, p + ".mixer", moe);
        // relu² experts and shared expert: up and down projections only, no gate.
        l.ffn.kind = Ffn::Moe;
        l.ffn.gated = false;
        l.ffn.expert_matrices = 2;
        l.ffn.shared_experts = 1;
        l.ffn.shared_intermediate = moe.shared_inter;
        any_moe = true;
        break;
      case Block::Mlp:
        ungated_mlp(t, p + ".mixer", a.hidden_size, a.intermediate_size, moe.bias);
        l.ffn.kind = Ffn::Dense;
        l.ffn.gated = false;
        break;
    }
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.norm_f", a.hidden_size, false);
  lm_head(t, "model.embeddings.weight", a);
  if (any_moe) set_moe_arch(t, moe.experts, top_k, 1, moe.inter);
  // Hub checkpoints keep the original "backbone." prefix, which transformers renames to "model." on load.
  t.rename_on_disk("model.", "backbone.");
  if (cfg.count_or("num_nextn_predict_layers", 0) > 0) {
    const std::string why = "multi-token-prediction layers (transformers ignores mtp.* on load)";
    t.known_extras.push_back({"mtp.", why});
    t.known_extras.push_back({"backbone.mtp.", why});
    t.known_extras.push_back({"model.mtp.", why});
  }
}

// ---- Granite-4 hybrid: Mamba-2 or attention per layer, each followed by MoE (optional) + shared MLP. ----

std::vector<Block> granite_blocks(const ModelConfig& cfg, uint64_t layers) {
  std::string key = layer_types_key(cfg);
  if (key.empty()) return std::vector<Block>(layers, Block::Ssm);  // the class default: all Mamba
  std::vector<Block> out;
  for (const std::string& s : cfg.strings(key)) {
    std::optional<Block> b = block_of(s);
    if (!b || (*b != Block::Ssm && *b != Block::Attention))
      cfg.fail(key, "entries must be mamba or attention, not '" + s + "'");
    out.push_back(*b);
  }
  if (out.size() != layers)
    cfg.fail(key, "must list one type per layer (num_hidden_layers = " + std::to_string(layers) + ")");
  return out;
}

ssm::Mamba2Mixer granite_mamba(const ModelConfig& cfg, uint64_t hidden) {
  ssm::Mamba2Mixer m;
  m.hidden = hidden;
  m.inner = ssm::expanded_width(cfg, "mamba_expand", 2, hidden);
  m.heads = cfg.dim_or("mamba_n_heads", 128);
  if (m.inner % m.heads != 0) cfg.fail("mamba_n_heads", "must divide mamba_expand * hidden_size");
  if (ssm::dim_or_auto(cfg, "mamba_d_head", m.inner / m.heads) * m.heads != m.inner)
    cfg.fail("mamba_d_head", "times mamba_n_heads must equal mamba_expand * hidden_size");
  m.groups = cfg.dim_or("mamba_n_groups", 1);
  m.state = cfg.dim_or("mamba_d_state", 256);
  m.conv = cfg.dim_or("mamba_d_conv", 4);
  m.chunk = cfg.dim_or("mamba_chunk_size", 0);
  m.proj_bias = cfg.flag_or("mamba_proj_bias", false);
  m.conv_bias = cfg.flag_or("mamba_conv_bias", true);
  return m;
}

// GraniteMoeHybridMoE: router + fused experts. Checkpoints store the experts already fused but under the
// older names input_linear / output_linear, and the router as router.layer.
void granite_moe(ModelTemplate& t, const std::string& p, uint64_t experts, uint64_t hidden, uint64_t inter) {
  TemplateTensor& router = t.add(p + ".router.weight", {experts, hidden});
  router.disk.push_back({p + ".router.layer.weight", router.shape});
  blocks::stacked_experts(t, p + ".experts", {experts, 2 * inter, hidden}, {experts, hidden, inter},
                          DiskPiece{p + ".input_linear.weight", {experts, 2 * inter, hidden}},
                          DiskPiece{p + ".output_linear.weight", {experts, hidden, inter}});
}

void build_granitemoehybrid(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GraniteMoeHybridForCausalLM";
  // Rotary embeddings only with position_embedding_type "rope"; otherwise NoPE attention.
  if (cfg.string_or("position_embedding_type", "") != "rope") t.arch.position = PositionKind::None;
  read_decoder_dims(cfg, {}, t);
  const ArchitectureRecord& a = t.arch;
  const std::vector<Block> kinds = granite_blocks(cfg, a.num_layers);
  const uint64_t experts = cfg.count_or("num_local_experts", 8);
  const uint64_t top_k = cfg.dim_or("num_experts_per_tok", 2);
  if (experts) check_top_k(cfg, "num_experts_per_tok", top_k, experts);
  const uint64_t shared = cfg.count_or("shared_intermediate_size", 1024);
  const ssm::Mamba2Mixer m = granite_mamba(cfg, a.hidden_size);
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = at.o_bias = cfg.flag_or("attention_bias", false);

  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    std::string p = layer_prefix(stack.path, i);
    blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + ".post_attention_layernorm", a.hidden_size, false);
    if (experts) granite_moe(t, p + ".block_sparse_moe", experts, a.hidden_size, a.intermediate_size);
    // The shared MLP is gated: input_linear holds gate and up stacked.
    if (shared) {
      blocks::linear(t, p + ".shared_mlp.input_linear", a.hidden_size, 2 * shared, false);
      blocks::linear(t, p + ".shared_mlp.output_linear", shared, a.hidden_size, false);
    }
    // Experts (when there are any) beside a gated shared MLP of shared_intermediate_size.
    LayerSpec l = attention_layer(a, 0, experts ? Ffn::Moe : Ffn::Dense);
    if (experts) {
      l.ffn.shared_experts = shared ? 1 : 0;
      l.ffn.shared_intermediate = shared;
    } else {
      l.ffn.intermediate = shared;
    }
    if (kinds[i] == Block::Ssm) {
      ssm::mamba2_mixer(t, p + ".mamba", m);
      l.mixer = Mixer::Mamba2;
      l.state = ssm::state_of(m);
    } else {
      blocks::attention(t, p + ".self_attn", at);
    }
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", a.hidden_size, false);
  lm_head(t, "model.embed_tokens.weight", a);
  if (experts) set_moe_arch(t, experts, top_k, shared ? 1 : 0, a.intermediate_size);
}

constexpr std::array kStateSpaceFamilies{
    FamilyBuilder{"mamba", build_mamba},
    FamilyBuilder{"mamba2", build_mamba2},
    FamilyBuilder{"jamba", build_jamba},
    FamilyBuilder{"nemotron_h", build_nemotron_h},
    FamilyBuilder{"falcon_mamba", build_falcon_mamba},
    FamilyBuilder{"granitemoehybrid", build_granitemoehybrid},
};

}  // namespace

std::span<const FamilyBuilder> state_space() {
  return kStateSpaceFamilies;
}

}  // namespace ma::families
