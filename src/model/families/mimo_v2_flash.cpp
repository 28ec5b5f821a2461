// MiMo-V2-Flash (Xiaomi): a mixture-of-experts decoder of sliding and full attention layers whose shapes
// differ by kind. Queries and keys are head_dim (192) wide, values v_head_dim (128); sliding layers carry
// twice num_key_value_heads and one learned attention-sink logit per head, full layers neither (hard-coded in
// MiMoV2FlashAttention). The first layer is dense, the others route over DeepSeek-V3's sigmoid router (with
// its score-correction buffer) without shared experts. Checkpoints add multi-token-prediction blocks
// (model.mtp.*) that transformers skips.
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/moe_decoder.h"

namespace ma::families {
namespace {

// Per layer, whether the entry at i of a list the Hub's remote-code config spells as 0/1 is 1:
// hybrid_layer_pattern (1: sliding) and moe_layer_freq (1: routed), which MiMoV2FlashConfig does not read but
// transformers' converter maps to layer_types and mlp_layer_types. Empty when the config has no such list.
std::vector<bool> ones_of(const ModelConfig& cfg, std::string_view key, uint64_t layers) {
  const json::Value* v = cfg.raw(key);
  if (!v || !v->is_array()) return {};
  const std::vector<int64_t> listed = cfg.ints(key);
  if (listed.size() != layers)
    cfg.fail(key, "must list one entry per layer (" + std::to_string(layers) + ")");
  std::vector<bool> one(layers);
  for (uint64_t i = 0; i < layers; ++i) {
    if (listed[i] != 0 && listed[i] != 1) cfg.fail(key, "entries must be 0 or 1");
    one[i] = listed[i] == 1;
  }
  return one;
}

// Which layers slide: layer_types when listed, else hybrid_layer_pattern, else MiMoV2FlashConfig's default
// (the first and every sixth layer attend fully).
std::vector<bool> sliding_layers(const ModelConfig& cfg, uint64_t layers) {
  const std::vector<std::string> types = cfg.strings("layer_types");
  std::vector<bool> sliding(layers);
  if (!types.empty()) {
    if (types.size() != layers)
      cfg.fail("layer_types", "must list one type per layer (" + std::to_string(layers) + ")");
    for (uint64_t i = 0; i < layers; ++i) {
      if (types[i] != "sliding_attention" && types[i] != "full_attention")
        cfg.fail("layer_types",
                 "entries must be sliding_attention or full_attention, not \"" + types[i] + "\"");
      sliding[i] = types[i] == "sliding_attention";
    }
    return sliding;
  }
  if (std::vector<bool> pattern = ones_of(cfg, "hybrid_layer_pattern", layers); !pattern.empty())
    return pattern;
  for (uint64_t i = 0; i < layers; ++i) sliding[i] = i != 0 && (i + 1) % 6 != 0;
  return sliding;
}

// Which layers route: mlp_layer_types when listed, else moe_layer_freq as a list, else all but the first.
std::vector<bool> routed_layers(const ModelConfig& cfg, uint64_t layers) {
  if (!cfg.has("mlp_layer_types"))
    if (std::vector<bool> freq = ones_of(cfg, "moe_layer_freq", layers); !freq.empty()) return freq;
  return sparse_from_mlp_layer_types(cfg, layers, 1);
}

void build_mimo_v2_flash(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MiMoV2FlashForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 152576;
  d.intermediate_size = 16384;
  d.num_hidden_layers = 48;
  d.num_attention_heads = 64;
  d.num_key_value_heads = 4;
  d.head_dim = 192;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t v_head_dim = cfg.dim_or("v_head_dim", 128);
  read_experts(cfg, t, {"n_routed_experts", "num_local_experts"}, 256, 8,
               cfg.dim_or("moe_intermediate_size", 2048));
  const bool bias = cfg.flag_or("attention_bias", false);
  const uint64_t window = window_or_none(cfg, 128);
  const std::vector<bool> sliding = sliding_layers(cfg, a.num_layers);
  const std::vector<bool> routed = routed_layers(cfg, a.num_layers);
  const uint64_t h = a.hidden_size, heads = a.num_attention_heads;

  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    const uint64_t kv = sliding[i] ? 2 * a.num_key_value_heads : a.num_key_value_heads;
    blocks::linear(t, p + ".self_attn.q_proj", h, heads * a.head_dim, bias);
    blocks::linear(t, p + ".self_attn.k_proj", h, kv * a.head_dim, bias);
    blocks::linear(t, p + ".self_attn.v_proj", h, kv * v_head_dim, bias);
    blocks::linear(t, p + ".self_attn.o_proj", heads * v_head_dim, h, false);
    if (sliding[i]) {
      TemplateTensor& sinks = t.add(p + ".self_attn.sinks", {heads});
      sinks.disk.push_back({p + ".self_attn.attention_sink_bias", {heads}});
    }
    if (routed[i]) {
      blocks::expert_router(t, p + ".mlp.gate", h, a.num_experts, true);
      blocks::fused_experts(t, p + ".mlp.experts", a.num_experts, h, a.moe_intermediate_size,
                            {p + ".mlp.experts"});
    } else {
      blocks::gated_mlp(t, p + ".mlp", h, a.intermediate_size);
    }
    blocks::norm(t, p + ".input_layernorm", h, false);
    blocks::norm(t, p + ".post_attention_layernorm", h, false);
    LayerSpec l = attention_layer(a, sliding[i] ? window : 0, routed[i] ? Ffn::Moe : Ffn::Dense);
    l.attention.kv_heads = kv;
    l.attention.kind = attention_kind_of(heads, kv);
    l.attention.v_head_dim = v_head_dim;
    if (!routed[i]) l.ffn.intermediate = a.intermediate_size;
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", h, false);
  lm_head(t, "model.embed_tokens.weight", a);
  t.known_extras.push_back({"model.mtp.", "multi-token-prediction blocks: transformers skips them"});
}

constexpr std::array kMimoV2FlashFamilies{FamilyBuilder{"mimo_v2_flash", build_mimo_v2_flash}};

}  // namespace

std::span<const FamilyBuilder> mimo_v2_flash() {
  return kMimoV2FlashFamilies;
}

}  // namespace ma::families
