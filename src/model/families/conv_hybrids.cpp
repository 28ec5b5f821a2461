// LFM2 and LFM2-MoE (Liquid AI): gated short convolutions with attention layers among them. A conv layer
// projects to B, C and x (in_proj, 3 x hidden), convolves B * x depthwise over the last conv_L_cache tokens
// and gates it with C (out_proj); an attention layer is GQA with per-head q/k norms. Every layer has an
// operator_norm before its mixer and an ffn_norm before a SwiGLU MLP (w1, w3, w2), or, in LFM2-MoE after
// its dense layers, routed experts. The last norm is embedding_norm. LFM2-VL puts a SigLIP 2 tower and a
// projector before LFM2.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/checked.h"
#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// Which layers attend: layer_types when listed ("full_attention"; anything else is a conv layer), else
// full_attn_idxs; with neither, Lfm2Config makes every layer attention and Lfm2MoeConfig has no rule.
std::vector<bool> attention_layers(const ModelConfig& cfg, uint64_t layers, bool derive) {
  std::vector<bool> attends(layers, derive);
  if (cfg.has("layer_types")) {
    const std::vector<std::string> types = cfg.strings("layer_types");
    cfg.check_layer_list("layer_types", types.size());
    for (uint64_t i = 0; i < layers; ++i) attends[i] = types[i] == "full_attention";
    return attends;
  }
  if (!derive) cfg.fail("layer_types", "must list each layer's type (full_attention or conv)");
  if (cfg.has("full_attn_idxs")) {
    attends.assign(layers, false);
    for (int64_t i : cfg.ints("full_attn_idxs")) {
      if (i < 0 || static_cast<uint64_t>(i) >= layers)
        cfg.fail("full_attn_idxs", "entries must be layer indices below num_hidden_layers");
      attends[static_cast<size_t>(i)] = true;
    }
  }
  return attends;
}

// Lfm2MLP's width: with block_auto_adjust_ff_dim, two thirds of the configured width, scaled by
// block_ffn_dim_multiplier and rounded up to block_multiple_of (when the multiplier is not null).
uint64_t lfm2_mlp_width(const ModelConfig& cfg, uint64_t width) {
  if (!cfg.flag_or("block_auto_adjust_ff_dim", true)) return width;
  width = 2 * width / 3;
  if (const json::Value* m = cfg.raw("block_ffn_dim_multiplier"); m && m->is_null()) return width;
  width = static_cast<uint64_t>(cfg.number_or("block_ffn_dim_multiplier", 1.0) * static_cast<double>(width));
  const uint64_t multiple = cfg.dim_or("block_multiple_of", 256);
  return multiple * ((width + multiple - 1) / multiple);
}

struct Lfm2Stack {
  std::string root = "model.";  // of the language model's modules (LFM2-VL: model.language_model.)
  std::vector<bool> attends;
  uint64_t conv_kernel = 3;
  bool conv_bias = false;
  uint64_t dense_width = 0;
  uint64_t dense_layers = 0;  // LFM2-MoE: layers before the first routed one; LFM2: all of them
  bool expert_bias = false;   // LFM2-MoE: the router's score bias, a buffer
};

LayerSpec short_conv_layer(ModelTemplate& t, const std::string& p, const ArchitectureRecord& a,
                           const Lfm2Stack& s) {
  const uint64_t h = a.hidden_size;
  t.add(p + ".conv.weight", {h, 1, s.conv_kernel});
  if (s.conv_bias) t.add(p + ".conv.bias", {h});
  blocks::linear(t, p + ".in_proj", h, 3 * h, s.conv_bias);
  blocks::linear(t, p + ".out_proj", h, h, s.conv_bias);
  LayerSpec l;
  l.mixer = Mixer::ShortConv;
  l.state.inner = h;
  l.state.conv_kernel = s.conv_kernel;
  return l;
}

void build_lfm2_stack(ModelTemplate& t, const Lfm2Stack& s) {
  const ArchitectureRecord& a = t.arch;
  const std::string embed = s.root + "embed_tokens.weight";
  token_embedding(t, embed, a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, s.root + "layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = s.root + "layers." + std::to_string(i);
    LayerSpec l;
    if (s.attends[i]) {
      blocks::Attention at = standard_attention(a);
      at.o = "out_proj";
      at.qk_norm = true;
      at.q_norm = "q_layernorm";
      at.k_norm = "k_layernorm";
      blocks::attention(t, p + ".self_attn", at);
      l = attention_layer(a);
    } else {
      l = short_conv_layer(t, p + ".conv", a, s);
    }
    const std::string ff = p + ".feed_forward";
    if (i < s.dense_layers) {
      blocks::gated_mlp(t, ff, a.hidden_size, s.dense_width, false, "w1", "w3", "w2");
      l.ffn.intermediate = s.dense_width;
    } else {
      t.add(ff + ".gate.weight", {a.num_experts, a.hidden_size});
      blocks::fused_experts(t, ff + ".experts", a.num_experts, a.hidden_size, a.moe_intermediate_size,
                            {ff + ".experts", "w1", "w3", "w2"});
      if (s.expert_bias) t.add(ff + ".expert_bias", {a.num_experts}).kind = TensorKind::Buffer;
      l.ffn.kind = Ffn::Moe;
    }
    blocks::norm(t, p + ".operator_norm", a.hidden_size, false);
    blocks::norm(t, p + ".ffn_norm", a.hidden_size, false);
    stack.layers.push_back(l);
  }
  blocks::norm(t, s.root + "embedding_norm", a.hidden_size, false);
  lm_head(t, embed, a);
}

DecoderDefaults lfm2_defaults() {
  DecoderDefaults d;
  d.vocab_size = 65536;
  d.hidden_size = 2560;
  d.intermediate_size = 12288;
  d.num_key_value_heads = 8;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 128000;
  return d;
}

// Lfm2Config also takes the original checkpoints' spellings, which win: tie_embedding, block_ff_dim.
void read_lfm2_dims(const ModelConfig& cfg, const DecoderDefaults& d, ModelTemplate& t) {
  read_decoder_dims(cfg, d, t);
  if (cfg.has("tie_embedding")) t.arch.tie_word_embeddings = cfg.flag_or("tie_embedding", true);
  if (cfg.has("block_ff_dim")) t.arch.intermediate_size = cfg.dim("block_ff_dim");
}

Lfm2Stack read_conv(const ModelConfig& cfg) {
  Lfm2Stack s;
  s.conv_kernel = cfg.dim_or("conv_L_cache", 3);
  s.conv_bias = cfg.flag_or("conv_bias", false);
  return s;
}

// LFM2's stack as Lfm2Config reads `cfg`, under `root`.
void lfm2_language_model(const ModelConfig& cfg, const std::string& root, ModelTemplate& t) {
  read_lfm2_dims(cfg, lfm2_defaults(), t);
  Lfm2Stack s = read_conv(cfg);
  s.root = root;
  s.attends = attention_layers(cfg, t.arch.num_layers, true);
  s.dense_width = lfm2_mlp_width(cfg, t.arch.intermediate_size);
  t.arch.intermediate_size = s.dense_width;
  s.dense_layers = t.arch.num_layers;
  build_lfm2_stack(t, s);
}

void build_lfm2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Lfm2ForCausalLM";
  lfm2_language_model(cfg, "model.", t);
}

// LFM2-VL: a SigLIP 2 NaFlex tower (every layer its config lists; the configs drop the last ones themselves,
// and the head with vision_use_head false), a projector that unshuffles downsample_factor^2 neighbouring
// patches into one vector (LayerNorm, linear_1, GELU, linear_2) and LFM2. The checkpoints keep the tower's
// vision_model wrapper, which transformers strips on load; the early custom-code configs say "lfm2-vl".
void build_lfm2_vl(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Lfm2VlForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  if (text.string_or("model_type", "lfm2") != "lfm2") text.fail("model_type", "must be lfm2");
  lfm2_language_model(text, "model.language_model.", t);
  t.arch.model_type = "lfm2";
  // Only the top-level flag ties the head (default: tied), spelled tie_embedding by the early configs.
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", cfg.flag_or("tie_embedding", true));
  VitDefaults vd = siglip_vision_defaults();
  vd.model_type = "siglip2_vision_model";
  const uint64_t vision = vit_tower(sub_or_empty(cfg, "vision_config"), "model.vision_tower.", vd, t);
  const std::string p = "model.multi_modal_projector.";
  const uint64_t factor = cfg.dim_or("downsample_factor", 2),
                 width = cfg.dim_or("projector_hidden_size", 2560);
  const std::optional<uint64_t> merged = checked_mul(vision, factor * factor);  // each at most 2^26
  if (!merged) cfg.fail("downsample_factor", "squared times the tower's width overflows 64-bit arithmetic");
  const bool bias = cfg.flag_or("projector_bias", true);
  if (cfg.flag_or("projector_use_layernorm", true)) blocks::norm(t, p + "layer_norm", *merged, true);
  blocks::linear(t, p + "linear_1", *merged, width, bias);
  blocks::linear(t, p + "linear_2", width, t.arch.hidden_size, bias);
  record_projector(t, p.substr(0, p.size() - 1));
  t.rename_on_disk("model.vision_tower.", "model.vision_tower.vision_model.");
}

void build_lfm2_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Lfm2MoeForCausalLM";
  DecoderDefaults d = lfm2_defaults();
  d.hidden_size = 2048;
  d.intermediate_size = 7168;
  read_lfm2_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  Lfm2Stack s = read_conv(cfg);
  s.attends = attention_layers(cfg, a.num_layers, false);
  s.dense_width = a.intermediate_size;  // the dense layers' MLP keeps the configured width
  s.dense_layers = std::min(cfg.count_or("num_dense_layers", 2), a.num_layers);
  s.expert_bias = cfg.flag_or("use_expert_bias", true);
  a.num_experts = cfg.dim_or("num_experts", 32);
  a.experts_per_token = cfg.dim_or("num_experts_per_tok", 4);
  if (a.experts_per_token > a.num_experts)
    cfg.fail("num_experts_per_tok", "must not exceed num_experts (" + std::to_string(a.num_experts) + ")");
  a.moe_intermediate_size = cfg.dim_or("moe_intermediate_size", 1792);
  build_lfm2_stack(t, s);
}

constexpr std::array kConvHybridFamilies{
    FamilyBuilder{"lfm2", build_lfm2},
    FamilyBuilder{"lfm2_moe", build_lfm2_moe},
    FamilyBuilder{"lfm2_vl", build_lfm2_vl},
    FamilyBuilder{"lfm2-vl", build_lfm2_vl},
};

}  // namespace

std::span<const FamilyBuilder> conv_hybrids() {
  return kConvHybridFamilies;
}

}  // namespace ma::families
