// Falcon-H1 (TII): attention and a Mamba-2 mixer side by side in every layer, their outputs summed, then a
// SwiGLU MLP. transformers' FalconH1Model: one input_layernorm before both mixers, pre_ff_layernorm before
// the MLP, final_layernorm last; its µP multipliers are floats and a non-persistent buffer, no parameters.
#include <array>

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

void build_falcon_h1(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "FalconH1ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 128000;
  d.intermediate_size = 14336;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 8192;
  read_decoder_dims(cfg, d, t);
  const ArchitectureRecord& a = t.arch;
  const ssm::Mamba2Mixer mixer = read_falcon_h1_mixer(cfg, a.hidden_size);
  blocks::Attention attention = standard_attention(a);
  attention.qkv_bias = attention.o_bias = cfg.flag_or("attention_bias", false);
  const bool mlp_bias = cfg.flag_or("mlp_bias", false);
  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    blocks::attention(t, p + ".self_attn", attention);
    ssm::mamba2_mixer(t, p + ".mamba", mixer);
    blocks::gated_mlp(t, p + ".feed_forward", a.hidden_size, a.intermediate_size, mlp_bias);
    blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + ".pre_ff_layernorm", a.hidden_size, false);
    LayerSpec l = attention_layer(a);
    l.parallel = Mixer::Mamba2;
    l.state = ssm::state_of(mixer);
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.final_layernorm", a.hidden_size, false);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

constexpr std::array kParallelHybridFamilies{
    FamilyBuilder{"falcon_h1", build_falcon_h1},
};

}  // namespace

std::span<const FamilyBuilder> parallel_hybrids() {
  return kParallelHybridFamilies;
}

}  // namespace ma::families
