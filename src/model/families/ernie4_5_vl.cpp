// ERNIE-4.5-VL (Ernie4_5_VLMoeForConditionalGeneration; the Hub's remote-code configs say ernie4_5_moe_vl,
// transformers' own ernie4_5_vl_moe): ERNIE 4.5's MoE decoder whose sparse layers hold two routed banks,
// one for text tokens (text_moe) and one, narrower, that only image and video tokens run (vision_moe), each
// with its own router and score bias, beside shared experts every token runs. A Qwen2-VL vision transformer
// with a linear patch embedding and a final LayerNorm instead of a merger feeds a resampler: a spatial and a
// temporal MLP over merged patches, a projection to the text width and an RMSNorm.
//
// The Hub checkpoints store the experts one tensor per expert, the vision bank numbered after the text one;
// both routers transposed ([hidden, experts]: mlp.gate.weight, mlp.gate.weight_1); the two score biases as
// one [2, experts] mlp.moe_statics tensor; the language model under model.*, the tower under vision_model.*
// and the resampler's MLPs as Sequentials (fc1, fc2, ln at 0, 2, 3). transformers converts them on load.
//
// The vision bank is placed with the tower (tensor_placement.h): no text token runs it, so the active count
// of a text token leaves it out as it leaves out the tower.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/moe_decoder.h"
#include "model/families/multimodal_towers.h"
#include "model/families/qwen_hybrid_blocks.h"

namespace ma::families {
namespace {

struct Bank {
  uint64_t experts = 0, width = 0;
};

struct ErnieVl {
  Bank text, vision;
  uint64_t top_k = 6, shared = 2;
  bool bias = false;  // use_bias: attention, dense and shared MLPs
  std::vector<bool> sparse;
};

// An integer or a list of them (the remote-code configs list one per bank: text, vision); `at` picks one.
uint64_t listed(const ModelConfig& cfg, std::string_view key, size_t at, uint64_t dflt) {
  const json::Value* v = cfg.raw(key);
  if (!v || v->is_null()) return dflt;
  const json::Value* item = v;
  if (v->is_array()) {
    if (v->items().empty() || v->items().size() > 2) cfg.fail(key, "must be an integer or a list of two");
    item = &v->items()[std::min(at, v->items().size() - 1)];
  }
  const std::optional<int64_t> x = item->as_int();
  if (!x || *x < 0 || static_cast<uint64_t>(*x) > ModelConfig::kMaxValue)
    cfg.fail(key, "must hold integers from 0 to " + std::to_string(ModelConfig::kMaxValue));
  return static_cast<uint64_t>(*x);
}

// The remote-code configs' rule: layers from the lower start index to the higher end index (clamped to the
// last layer), every moe_layer_interval-th, route.
std::vector<bool> flat_sparse_layers(const ModelConfig& cfg, uint64_t layers) {
  const uint64_t start =
      std::min(listed(cfg, "moe_layer_start_index", 0, 1), listed(cfg, "moe_layer_start_index", 1, 1));
  const uint64_t end = std::max(listed(cfg, "moe_layer_end_index", 0, layers - 1),
                                listed(cfg, "moe_layer_end_index", 1, layers - 1));
  const uint64_t interval = cfg.dim_or("moe_layer_interval", 1);
  std::vector<bool> sparse(layers);
  for (uint64_t i = 0; i < layers; ++i) sparse[i] = (i + 1) % interval == 0 && i >= start && i <= end;
  return sparse;
}

ErnieVl read_text(const ModelConfig& text, bool nested, ModelTemplate& t) {
  read_decoder_dims(text, ernie4_5_moe_defaults(), t);  // Ernie4_5_VLMoeTextConfig's are the same
  ErnieVl e;
  e.text = {listed(text, "moe_num_experts", 0, 64), listed(text, "moe_intermediate_size", 0, 1536)};
  e.vision = {listed(text, "moe_num_experts", 1, 64), listed(text, "moe_intermediate_size", 1, 512)};
  // transformers builds both banks with the first count, and the score biases share one [2, E] tensor.
  if (e.text.experts != e.vision.experts || e.text.experts == 0)
    text.fail("moe_num_experts", "must give both banks the same number of experts, at least one");
  if (e.text.width == 0 || e.vision.width == 0)
    text.fail("moe_intermediate_size", "must give each bank a width of at least 1");
  e.top_k = text.dim_or("moe_k", 6);
  if (e.top_k > e.text.experts) text.fail("moe_k", "must not exceed moe_num_experts");
  e.shared = text.count_or("moe_num_shared_experts", 2);
  e.bias = text.flag_or("use_bias", false);
  e.sparse = nested ? sparse_from_mlp_layer_types(text, t.arch.num_layers, 1)
                    : flat_sparse_layers(text, t.arch.num_layers);
  ArchitectureRecord& a = t.arch;
  a.num_experts = e.text.experts;
  a.experts_per_token = e.top_k;
  a.moe_intermediate_size = e.text.width;
  a.num_shared_experts = e.shared;
  return e;
}

// One routed bank of a sparse layer under `p` (…mlp.text_moe.) whose checkpoint names start at `disk`
// (model.layers.N.mlp.): its router transposed at `disk_router`, its experts from index `first` on, and its
// score bias as row `first / experts` of moe_statics' [2, E] tensor, which the first bank holds for both.
// The vision bank (`routed` false) is the tower's share of the layer: no text token runs it.
void routed_bank(ModelTemplate& t, const std::string& p, const std::string& disk,
                 const std::string& disk_router, const Bank& b, uint32_t first, bool routed) {
  const uint64_t h = t.arch.hidden_size;
  const size_t begin = t.tensors.size();
  t.add(p + "gate.weight", {b.experts, h}).disk.push_back({disk + disk_router, {h, b.experts}});
  TemplateTensor& bias = t.add(p + "gate.moe_statics.e_score_correction_bias", {1, b.experts});
  if (first == 0)
    bias.disk.push_back({disk + "moe_statics.e_score_correction_bias", {2, b.experts}});
  else
    bias.fused_on_disk = true;
  blocks::per_expert_stored(t, p + "experts.gate_up_proj", b.experts, b.width, h, disk + "experts",
                            {"gate_proj", "up_proj"}, first);
  blocks::per_expert_stored(t, p + "experts.down_proj", b.experts, h, b.width, disk + "experts",
                            {"down_proj"}, first);
  for (size_t x = begin; x < t.tensors.size(); ++x) t.tensors[x].routed_expert &= routed;
}

void ernie_vl_decoder(ModelTemplate& t, const ErnieVl& e) {
  const ArchitectureRecord& a = t.arch;
  const std::string root = "model.language_model.";
  token_embedding(t, root + "embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, root + "layers");
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = at.o_bias = e.bias;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = root + "layers." + std::to_string(i) + ".",
                      disk = "model.layers." + std::to_string(i) + ".";
    blocks::attention(t, p + "self_attn", at);
    LayerSpec l = attention_layer(a, 0, e.sparse[i] ? Ffn::Moe : Ffn::Dense);
    if (!e.sparse[i]) {
      blocks::gated_mlp(t, p + "mlp", a.hidden_size, a.intermediate_size, e.bias);
      l.ffn.intermediate = a.intermediate_size;
    } else {
      routed_bank(t, p + "mlp.text_moe.", disk + "mlp.", "gate.weight", e.text, 0, true);
      routed_bank(t, p + "mlp.vision_moe.", disk + "mlp.", "gate.weight_1", e.vision,
                  static_cast<uint32_t>(e.text.experts), false);
      if (e.shared)
        blocks::gated_mlp(t, p + "mlp.shared_experts", a.hidden_size, e.shared * e.text.width, e.bias);
      l.ffn.experts = e.text.experts;
      l.ffn.top_k = e.top_k;
      l.ffn.expert_intermediate = e.text.width;
      l.ffn.shared_experts = e.shared;
      l.ffn.shared_intermediate = e.shared * e.text.width;
    }
    blocks::norm(t, p + "input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + "post_attention_layernorm", a.hidden_size, false);
    stack.layers.push_back(l);
  }
  blocks::norm(t, root + "norm", a.hidden_size, false);
}

struct Resampler {
  uint64_t merge = 2, temporal = 2;
};

// The vision transformer: Qwen2-VL's blocks behind a bias-free linear patch embedding, a final LayerNorm.
uint64_t vision_tower(ModelTemplate& t, const ModelConfig& v, bool nested, Resampler& r) {
  qwen::VisionTower vt;
  vt.kind = qwen::VisionKind::Qwen2;
  vt.depth = v.layers_or("depth", 32);
  vt.heads = v.dim_or("num_heads", 16);
  vt.in_channels = v.dim_or("in_channels", 3);
  vt.patch = v.dim_or("patch_size", 14);
  r.merge = v.dim_or("spatial_merge_size", 2);
  if (nested) {
    vt.hidden = v.dim_or("hidden_size", 1280);
    vt.intermediate = v.dim_or("intermediate_size", 4 * vt.hidden);
    r.temporal = v.dim_or("temporal_merge_size", 2);
  } else {
    // The remote code names the width embed_dim and asserts hidden_size equals it.
    vt.hidden = v.dim_or("embed_dim", 1280);
    if (v.dim_or("hidden_size", vt.hidden) != vt.hidden) v.fail("hidden_size", "must equal embed_dim");
    const double width = static_cast<double>(vt.hidden) * v.number_or("mlp_ratio", 4.0);
    if (!(width >= 1.0) || width > static_cast<double>(ModelConfig::kMaxValue))
      v.fail("mlp_ratio", "must make an MLP width from 1 to 2^26");
    vt.intermediate = static_cast<uint64_t>(width);  // int(embed_dim * mlp_ratio)
  }
  if (vt.hidden % vt.heads != 0) v.fail("num_heads", "must divide the tower's width");
  const std::string p = "model.vision_tower.";
  t.add(p + "patch_embed.proj.weight", {vt.hidden, vt.in_channels * vt.patch * vt.patch});
  for (uint64_t i = 0; i < vt.depth; ++i) qwen::vision_block(t, p + "blocks." + std::to_string(i), vt);
  blocks::norm(t, p + "ln", vt.hidden, true);
  record_vision_tower(t, p + "blocks", vt.hidden, vt.depth, vt.heads, vt.hidden / vt.heads, vt.intermediate,
                      vt.patch, 0);
  return vt.hidden;
}

void resampler(ModelTemplate& t, uint64_t vision_hidden, const Resampler& r) {
  const std::string p = "model.resampler_model.";
  const uint64_t spatial = vision_hidden * r.merge * r.merge, text = t.arch.hidden_size;
  for (const auto& [mlp, in] :
       {std::pair{"spatial_linear", spatial}, {"temporal_linear", spatial * r.temporal}}) {
    const std::string m = p + mlp + ".";
    blocks::linear(t, m + "fc1", in, spatial, true);
    blocks::linear(t, m + "fc2", spatial, spatial, true);
    blocks::norm(t, m + "ln", spatial, true);
    // Sequentials in the checkpoints: Linear, GELU, Linear, LayerNorm.
    t.rename_on_disk(m + "fc1.", m + "0.");
    t.rename_on_disk(m + "fc2.", m + "2.");
    t.rename_on_disk(m + "ln.", m + "3.");
  }
  blocks::linear(t, p + "mlp", spatial, text, true);
  blocks::norm(t, p + "after_norm", text, false);
  record_projector(t, "model.resampler_model");
}

void build_ernie4_5_vl(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Ernie4_5_VLMoeForConditionalGeneration";
  const std::optional<ModelConfig> nested_text = cfg.sub("text_config");
  const bool nested = nested_text.has_value();
  const ModelConfig& text = nested ? *nested_text : cfg;
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const ErnieVl e = read_text(text, nested, t);
  Resampler r;
  const uint64_t width = vision_tower(t, vision, nested, r);
  if (!nested) {
    // The remote-code configs size the resampler at the top level.
    if (cfg.dim_or("pixel_hidden_size", width) != width)
      cfg.fail("pixel_hidden_size", "must equal the vision tower's width (" + std::to_string(width) + ")");
    r.merge = cfg.dim_or("spatial_conv_size", r.merge);
    r.temporal = cfg.dim_or("temporal_conv_size", r.temporal);
  }
  resampler(t, width, r);
  ernie_vl_decoder(t, e);
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, true);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  t.rename_on_disk("model.language_model.", "model.");
  t.rename_on_disk("model.vision_tower.", "vision_model.");
  t.known_extras.push_back({"model.mtp", "multi-token-prediction module: transformers skips it"});
}

constexpr std::array kErnie45VlFamilies{FamilyBuilder{"ernie4_5_vl_moe", build_ernie4_5_vl},
                                        FamilyBuilder{"ernie4_5_moe_vl", build_ernie4_5_vl}};

}  // namespace

std::span<const FamilyBuilder> ernie4_5_vl() {
  return kErnie45VlFamilies;
}

}  // namespace ma::families
