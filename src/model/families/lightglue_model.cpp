// LightGlue (ETH-CVG/lightglue_superpoint): LightGlueForKeypointMatching builds SuperPoint as its
// keypoint_detector, an input projection only when descriptor_dim differs from the detector's descriptors
// (an nn.Identity otherwise: none for the SuperPoint checkpoint), the rotary positional encoder (a bias-free
// Linear from (x, y) to half a head), then per layer a self and a cross attention (LlamaAttention, biased by
// attention_bias) each followed by an MLP of twice descriptor_dim (CLIPMLP with fc1 widened and a LayerNorm
// added: registered fc1, fc2, layer_norm), a match assignment head per layer and a token confidence head per
// layer but the last (they decide the early exit).
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/matching.h"

namespace ma::families {
namespace {

// LightGlueMLP: fc1 [2D, 2D], fc2 [D, 2D], then the LayerNorm on fc1's output.
void lightglue_mlp(ModelTemplate& t, const std::string& p, uint64_t d) {
  blocks::linear(t, p + "fc1", 2 * d, 2 * d, true);
  blocks::linear(t, p + "fc2", 2 * d, d, true);
  blocks::norm(t, p + "layer_norm", 2 * d, true);
}

}  // namespace

void build_lightglue(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "LightGlueForKeypointMatching");
  supported_task(cfg, cls, "LightGlue", {"ForKeypointMatching"});
  const uint64_t d = cfg.dim_or("descriptor_dim", 256);
  const uint64_t heads = cfg.dim_or("num_attention_heads", 4);
  split_heads(cfg, "num_attention_heads", d, heads);  // LightGlueConfig raises before a module exists
  const uint64_t layers = cfg.layers_or("num_hidden_layers", 9);
  blocks::Attention attn;
  attn.hidden = d;
  attn.heads = heads;
  attn.kv_heads = cfg.dim_or("num_key_value_heads", heads);
  // LlamaAttention's getattr(config, "head_dim", hidden_size // heads): a head_dim in config.json wins.
  attn.head_dim = cfg.dim_or("head_dim", d / heads);
  attn.qkv_bias = attn.o_bias = cfg.flag_or("attention_bias", true);
  if (d / heads < 2)
    cfg.fail("num_attention_heads", "must leave heads at least 2 wide: the encoder halves them");

  const uint64_t detector = matching_keypoint_detector(cfg, t);
  if (detector != d) blocks::linear(t, "input_projection", detector, d, true);
  t.add("positional_encoder.projector.weight", {d / heads / 2, 2});

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = d;
  a.num_layers = layers;
  a.num_attention_heads = heads;
  a.num_key_value_heads = attn.kv_heads;
  a.head_dim = attn.head_dim;
  a.intermediate_size = 2 * d;
  a.attention_bias = attn.qkv_bias;
  a.mlp_bias = true;
  a.activation = cfg.string_or("hidden_act", "gelu");
  a.norm = NormKind::LayerNorm;
  a.position = PositionKind::Rope;
  StackSpec& s = a.add_stack(StackRole::Encoder, "transformer_layers", d);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = "transformer_layers." + std::to_string(i) + ".";
    blocks::attention(t, p + "self_attention", attn);
    lightglue_mlp(t, p + "self_mlp.", d);
    blocks::attention(t, p + "cross_attention", attn);
    lightglue_mlp(t, p + "cross_mlp.", d);
    LayerSpec l;
    l.attention.kind = attention_kind_of(heads, attn.kv_heads);
    l.attention.heads = heads;
    l.attention.kv_heads = attn.kv_heads;
    l.attention.head_dim = attn.head_dim;
    l.attention.modules = 2;  // the self and the cross attention, each with its MLP
    l.ffn.gated = false;
    l.ffn.intermediate = 2 * d;
    s.layers.push_back(l);
  }
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = "match_assignment_layers." + std::to_string(i) + ".";
    blocks::linear(t, p + "final_projection", d, d, true);
    blocks::linear(t, p + "matchability", d, 1, true);
  }
  for (uint64_t i = 0; i + 1 < layers; ++i)
    blocks::linear(t, "token_confidence." + std::to_string(i) + ".token", d, 1, true);
}

}  // namespace ma::families
