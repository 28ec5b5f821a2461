// OLMo Hybrid (Ai2): OLMo 3's full-attention layers (norms after each half only, q/k norms over the whole
// projection) among gated-DeltaNet linear-attention layers in Llama's pre-norm layout, three of every four by
// default. The DeltaNet keeps separate q/k/v, a/b (decay and beta, one per value head) and g (output gate)
// projections, a bias-free depthwise convolution over q, k and v, and a gated RMSNorm per value head.
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// Per layer, whether it is linear attention: layer_types (Mamba-era names map as OlmoHybridConfig maps them:
// conv / mamba / linear_attention linear, attention / full_attention full), else three linear then one full,
// the last layer full when none would be.
std::vector<bool> linear_layers(const ModelConfig& cfg, uint64_t layers) {
  std::vector<bool> linear(layers);
  const std::vector<std::string> types = cfg.strings("layer_types");
  if (types.empty()) {
    for (uint64_t i = 0; i < layers; ++i) linear[i] = i % 4 != 3;
    if (layers && layers < 4) linear[layers - 1] = false;
  } else {
    if (types.size() != layers)
      cfg.fail("layer_types", "must list one type per layer (" + std::to_string(layers) + ")");
    for (uint64_t i = 0; i < layers; ++i) {
      const std::string& ty = types[i];
      if (ty == "linear_attention" || ty == "conv" || ty == "mamba")
        linear[i] = true;
      else if (ty != "full_attention" && ty != "attention")
        cfg.fail("layer_types", "entries must be linear_attention or full_attention, not \"" + ty + "\"");
    }
  }
  bool any_linear = false, any_full = false;
  for (bool l : linear) (l ? any_linear : any_full) = true;
  if (!any_linear || !any_full)
    cfg.fail("layer_types", "must hold at least one linear-attention and one full-attention layer");
  return linear;
}

void build_olmo_hybrid(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "OlmoHybridForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 100352;
  d.hidden_size = 3840;
  d.num_attention_heads = 30;
  d.max_position_embeddings = 65536;
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  StateShape st;
  st.key_heads = cfg.dim_or("linear_num_key_heads", a.num_attention_heads);
  st.value_heads = cfg.dim_or("linear_num_value_heads", a.num_attention_heads);
  st.key_head_dim = cfg.dim_or("linear_key_head_dim", 3 * h / 4 / st.key_heads);
  if (st.key_head_dim == 0) cfg.fail("linear_key_head_dim", "must be at least 1");
  st.value_head_dim = cfg.dim_or("linear_value_head_dim", 2 * st.key_head_dim);
  st.conv_kernel = cfg.dim_or("linear_conv_kernel_dim", 4);
  const uint64_t keys = st.key_heads * st.key_head_dim, values = st.value_heads * st.value_head_dim;
  blocks::Attention attn = standard_attention(a);
  attn.qkv_bias = attn.o_bias = cfg.flag_or("attention_bias", false);
  attn.qk_norm = true;
  attn.qk_norm_width = a.num_attention_heads * a.head_dim;
  const std::vector<bool> linear = linear_layers(cfg, a.num_layers);

  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    LayerSpec l = attention_layer(a);
    if (linear[i]) {
      const std::string la = p + ".linear_attn";
      blocks::linear(t, la + ".q_proj", h, keys, false);
      blocks::linear(t, la + ".k_proj", h, keys, false);
      blocks::linear(t, la + ".v_proj", h, values, false);
      blocks::linear(t, la + ".a_proj", h, st.value_heads, false);
      blocks::linear(t, la + ".b_proj", h, st.value_heads, false);
      blocks::linear(t, la + ".g_proj", h, values, false);
      blocks::linear(t, la + ".o_proj", values, h, false);
      t.add(la + ".conv1d.weight", {2 * keys + values, 1, st.conv_kernel});
      t.add(la + ".A_log", {st.value_heads});
      t.add(la + ".dt_bias", {st.value_heads});
      blocks::norm(t, la + ".o_norm", st.value_head_dim, false);
      l.mixer = Mixer::LinearAttention;
      l.state = st;
    } else {
      blocks::attention(t, p + ".self_attn", attn);
    }
    blocks::gated_mlp(t, p + ".mlp", h, a.intermediate_size);
    for (const char* norm : linear[i] ? std::array{"input_layernorm", "post_attention_layernorm"}
                                      : std::array{"post_attention_layernorm", "post_feedforward_layernorm"})
      blocks::norm(t, p + "." + norm, h, false);
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", h, false);
  lm_head(t, "model.embed_tokens.weight", a);
}

constexpr std::array kOlmoHybridFamilies{FamilyBuilder{"olmo_hybrid", build_olmo_hybrid}};

}  // namespace

std::span<const FamilyBuilder> olmo_hybrid() {
  return kOlmoHybridFamilies;
}

}  // namespace ma::families
