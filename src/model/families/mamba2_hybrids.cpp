// Mamba-2 hybrids of one lineage (Bamba, then Falcon-H1): each layer's mixer after input_layernorm, a SwiGLU
// feed_forward after pre_ff_layernorm, final_layernorm last. Bamba (IBM) alternates: attention on the layers
// attn_layer_indices lists, a Mamba-2 mixer on the others. Falcon-H1 (TII) runs attention and a Mamba-2
// mixer side by side in every layer and sums them; its µP multipliers are floats and a non-persistent
// buffer, no parameters.
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/state_space_blocks.h"

namespace ma::families {
namespace {

// FalconH1Config's Mamba-2 mixer: mamba_d_ssm wide (1024; null: mamba_expand x hidden), mamba_n_heads heads.
ssm::Mamba2Mixer read_falcon_h1_mixer(const ModelConfig& cfg, uint64_t hidden) {
  ssm::Mamba2Mixer m;
  m.hidden = hidden;
  const json::Value* d_ssm = cfg.raw("mamba_d_ssm");
  m.inner = d_ssm && d_ssm->is_null() ? ssm::expanded_width(cfg, "mamba_expand", 2, hidden)
                                      : cfg.dim_or("mamba_d_ssm", 1024);
  m.heads = cfg.dim_or("mamba_n_heads", 128);
  m.head_dim = ssm::dim_or_auto(cfg, "mamba_d_head", m.inner / m.heads);
  if (m.head_dim * m.heads != m.inner)
    cfg.fail("mamba_d_head",
             "mamba_d_head x mamba_n_heads must equal mamba_d_ssm (" + std::to_string(m.inner) + ")");
  m.groups = cfg.dim_or("mamba_n_groups", 1);
  m.state = cfg.dim_or("mamba_d_state", 256);
  m.conv = cfg.dim_or("mamba_d_conv", 4);
  m.chunk = cfg.count_or("mamba_chunk_size", 256);
  m.proj_bias = cfg.flag_or("mamba_proj_bias", false);
  m.out_bias = cfg.flag_or("projectors_bias", false);
  m.conv_bias = cfg.flag_or("mamba_conv_bias", true);
  m.gated_norm = cfg.flag_or("mamba_rms_norm", false);
  return m;
}

// BambaConfig's Mamba-2 mixer: mamba_expand x hidden wide, mamba_n_heads heads of mamba_d_head ("auto": the
// width over the heads).
ssm::Mamba2Mixer read_bamba_mixer(const ModelConfig& cfg, uint64_t hidden) {
  ssm::Mamba2Mixer m;
  m.hidden = hidden;
  m.inner = ssm::expanded_width(cfg, "mamba_expand", 2, hidden);
  m.heads = cfg.dim_or("mamba_n_heads", 128);
  m.head_dim = ssm::dim_or_auto(cfg, "mamba_d_head", m.inner / m.heads);
  if (m.head_dim * m.heads != m.inner)
    cfg.fail("mamba_d_head", "mamba_d_head x mamba_n_heads must equal mamba_expand x hidden_size (" +
                                 std::to_string(m.inner) + ")");
  m.groups = cfg.dim_or("mamba_n_groups", 1);
  m.state = cfg.dim_or("mamba_d_state", 256);
  m.conv = cfg.dim_or("mamba_d_conv", 4);
  m.chunk = cfg.count_or("mamba_chunk_size", 256);
  m.proj_bias = cfg.flag_or("mamba_proj_bias", false);
  m.conv_bias = cfg.flag_or("mamba_conv_bias", true);
  return m;
}

// The layers attn_layer_indices lists attend; without the list every layer is Mamba-2, as BambaConfig has it.
std::vector<bool> bamba_attention_layers(const ModelConfig& cfg, uint64_t layers) {
  std::vector<bool> attends(layers, false);
  for (int64_t i : cfg.ints("attn_layer_indices")) {
    if (i < 0 || static_cast<uint64_t>(i) >= layers)
      cfg.fail("attn_layer_indices", "entries must be layer indices below num_hidden_layers");
    attends[static_cast<size_t>(i)] = true;
  }
  return attends;
}

// BambaConfig's and FalconH1Config's shared defaults.
void read_hybrid_dims(const ModelConfig& cfg, ModelTemplate& t, uint64_t max_positions) {
  DecoderDefaults d;
  d.vocab_size = 128000;
  d.intermediate_size = 14336;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = max_positions;
  read_decoder_dims(cfg, d, t);
}

// The stack both build: each layer attends where `attends` says and runs `mixer` where it does not or, with
// `parallel` (Falcon-H1), in every layer beside attention.
void build_hybrid_stack(const ModelConfig& cfg, ModelTemplate& t, const ssm::Mamba2Mixer& mixer,
                        const std::vector<bool>& attends, bool parallel) {
  const ArchitectureRecord& a = t.arch;
  blocks::Attention attention = standard_attention(a);
  attention.qkv_bias = attention.o_bias = cfg.flag_or("attention_bias", false);
  const bool mlp_bias = cfg.flag_or("mlp_bias", false);
  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    LayerSpec l = attention_layer(a);
    if (attends[i]) blocks::attention(t, p + ".self_attn", attention);
    if (!attends[i] || parallel) {
      ssm::mamba2_mixer(t, p + ".mamba", mixer);
      (parallel ? l.parallel : l.mixer) = Mixer::Mamba2;
      l.state = ssm::state_of(mixer);
    }
    blocks::gated_mlp(t, p + ".feed_forward", a.hidden_size, a.intermediate_size, mlp_bias);
    blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + ".pre_ff_layernorm", a.hidden_size, false);
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.final_layernorm", a.hidden_size, false);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

void build_bamba(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "BambaForCausalLM";
  read_hybrid_dims(cfg, t, 262144);
  build_hybrid_stack(cfg, t, read_bamba_mixer(cfg, t.arch.hidden_size),
                     bamba_attention_layers(cfg, t.arch.num_layers), false);
}

void build_falcon_h1(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "FalconH1ForCausalLM";
  read_hybrid_dims(cfg, t, 8192);
  build_hybrid_stack(cfg, t, read_falcon_h1_mixer(cfg, t.arch.hidden_size),
                     std::vector<bool>(t.arch.num_layers, true), true);
}

constexpr std::array kMamba2HybridFamilies{
    FamilyBuilder{"bamba", build_bamba},
    FamilyBuilder{"falcon_h1", build_falcon_h1},
};

}  // namespace

std::span<const FamilyBuilder> mamba2_hybrids() {
  return kMamba2HybridFamilies;
}

}  // namespace ma::families
