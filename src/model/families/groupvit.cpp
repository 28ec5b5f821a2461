// GroupViT (nvidia/groupvit-gcc-yfcc): CLIP's text transformer (GroupViTTextConfig's own defaults: 256 wide,
// 4 heads) beside a grouping vision transformer: stages of CLIP encoder layers over the patches and a set of
// learned group tokens, each stage but the last ending in a token assignment that merges the patches into
// its groups. Both pooled outputs pass a two-layer MLP projection with a BatchNorm1d between its linears.
// The towers alone (GroupViTTextModel, GroupViTVisionModel) wrap the same transformers under text_model. /
// vision_model.: unlike CLIP's, transformers 5 did not flatten them (no PrefixChange in
// conversion_mapping.py).
#include <string>
#include <utility>
#include <vector>

#include "model/blocks.h"
#include "model/families/clip_like_tower.h"
#include "model/families/detr.h"
#include "model/families/dual_encoders.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// GroupViTVisionConfig's fields; defaults are groupvit-gcc-yfcc's.
struct GroupVitVision {
  uint64_t hidden = 384, intermediate = 1536, heads = 6, image = 224, patch = 16, channels = 3;
  std::vector<uint64_t> depths{6, 3, 3};
  std::vector<uint64_t> group_tokens{64, 8, 0};  // 0: a stage without group tokens (no assignment after it)
  std::vector<uint64_t> output_groups{64, 8, 8};
  uint64_t tokens_dim = 192, channels_dim = 1536;  // int(assign_mlp_ratio[i] * hidden), ratios [0.5, 4]
};

std::vector<uint64_t> groupvit_counts(const ModelConfig& v, std::string_view key,
                                      std::vector<uint64_t> dflt) {
  if (!v.has(key)) return dflt;
  std::vector<uint64_t> out;
  for (const int64_t n : v.ints(key)) {
    if (n < 0 || n > 4096) v.fail(key, "must list counts from 0 to 4096");
    out.push_back(static_cast<uint64_t>(n));
  }
  return out;
}

GroupVitVision read_groupvit_vision(const ModelConfig& v) {
  GroupVitVision g;
  g.hidden = v.dim_or("hidden_size", g.hidden);
  g.intermediate = v.dim_or("intermediate_size", g.intermediate);
  g.heads = v.dim_or("num_attention_heads", g.heads);
  split_heads(v, "num_attention_heads", g.hidden, g.heads);
  g.image = v.dim_or("image_size", g.image);
  g.patch = v.dim_or("patch_size", g.patch);
  if (g.patch > g.image) v.fail("patch_size", "must not exceed image_size (" + std::to_string(g.image) + ")");
  g.channels = v.dim_or("num_channels", g.channels);
  g.depths = groupvit_counts(v, "depths", g.depths);
  g.group_tokens = groupvit_counts(v, "num_group_tokens", g.group_tokens);
  g.output_groups = groupvit_counts(v, "num_output_groups", g.output_groups);
  if (g.depths.empty()) v.fail("depths", "must list at least one stage");
  uint64_t layers = 0;
  for (const uint64_t d : g.depths) layers += d;
  v.check_layer_list("depths", layers);
  // GroupViTVisionEncoder reads num_group_tokens[i] and num_output_groups[i] for each of len(depths) stages.
  for (const auto& [key, list] :
       {std::pair{"num_group_tokens", &g.group_tokens}, std::pair{"num_output_groups", &g.output_groups}})
    if (list->size() < g.depths.size())
      v.fail(key, "must give a value for each of the " + std::to_string(g.depths.size()) + " stages");
  // assign_mlp_ratio: one number for both MLPs, or [tokens, channels]; each width is int(ratio * hidden).
  double tokens_ratio = 0.5, channels_ratio = 4;
  if (const json::Value* r = v.raw("assign_mlp_ratio"); r && r->is_number()) {
    tokens_ratio = channels_ratio = v.number_or("assign_mlp_ratio", 0.5);
  } else if (r) {
    if (!r->is_array() || r->items().size() != 2 || !r->items()[0].is_number() || !r->items()[1].is_number())
      v.fail("assign_mlp_ratio", "must be a number or a pair of numbers");
    tokens_ratio = r->items()[0].as_double();
    channels_ratio = r->items()[1].as_double();
  }
  for (const double ratio : {tokens_ratio, channels_ratio})
    if (!(ratio > 0) || ratio > 64) v.fail("assign_mlp_ratio", "must be above 0 (and at most 64)");
  const auto width = [&](double ratio) {
    return static_cast<uint64_t>(ratio * static_cast<double>(g.hidden));
  };
  g.tokens_dim = width(tokens_ratio);
  g.channels_dim = width(channels_ratio);
  if (g.tokens_dim == 0 || g.channels_dim == 0) v.fail("assign_mlp_ratio", "makes an MLP of width 0");
  return g;
}

// GroupViTMLP / GroupViTMixerMLP (the mixer runs the same two linears across tokens): fc1, fc2.
void groupvit_mlp(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t inner, uint64_t out) {
  blocks::linear(t, p + "fc1", in, inner, true);
  blocks::linear(t, p + "fc2", inner, out, true);
}

// GroupViTTokenAssign: the stage's group tokens, mixed into its output groups, attend over the patches and
// take them over by a hard assignment.
void groupvit_token_assign(ModelTemplate& t, const std::string& p, const GroupVitVision& g, uint64_t tokens,
                           uint64_t outputs) {
  const uint64_t h = g.hidden;
  blocks::norm(t, p + "norm_tokens", h, true);
  groupvit_mlp(t, p + "mlp_inter.", tokens, g.tokens_dim, outputs);
  blocks::norm(t, p + "norm_post_tokens", h, true);
  blocks::norm(t, p + "norm_x", h, true);
  // GroupViTCrossAttentionLayer: GroupViTAttention (CLIP's: k, v, q, out), norm2, an MLP, norm_post.
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + "pre_assign_attn.attn." + proj, h, h, true);
  blocks::norm(t, p + "pre_assign_attn.norm2", h, true);
  groupvit_mlp(t, p + "pre_assign_attn.mlp.", h, g.intermediate, h);
  blocks::norm(t, p + "pre_assign_attn.norm_post", h, true);
  // GroupViTAssignAttention: single-head q, k, v and an output proj.
  for (const char* proj : {"q_proj", "k_proj", "v_proj", "proj"})
    blocks::linear(t, p + "assign." + proj, h, h, true);
  blocks::norm(t, p + "norm_new_x", h, true);
  groupvit_mlp(t, p + "mlp_channels.", h, g.channels_dim, h);
}

// GroupViTVisionTransformer under `prefix`. Returns its width.
uint64_t groupvit_vision_tower(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const GroupVitVision g = read_groupvit_vision(v);
  const uint64_t h = g.hidden, side = g.image / g.patch;
  // GroupViTVisionEmbeddings registers its position table (a bare parameter) before its modules.
  t.add(prefix + "embeddings.position_embeddings", {1, side * side, h});
  t.add(prefix + "embeddings.patch_embeddings.projection.weight", {h, g.channels, g.patch, g.patch});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  blocks::norm(t, prefix + "embeddings.layernorm", h, true);
  for (size_t i = 0; i < g.depths.size(); ++i) {
    const std::string s = prefix + "encoder.stages." + std::to_string(i) + ".";
    const uint64_t tokens = g.group_tokens[i], previous = i > 0 ? g.output_groups[i - 1] : 0;
    if (tokens > 0) t.add(s + "group_token", {1, tokens, h});
    for (uint64_t j = 0; j < g.depths[i]; ++j)
      clip_encoder_layer(t, s + "layers." + std::to_string(j) + ".", h, g.intermediate);
    if (tokens > 0) groupvit_token_assign(t, s + "downsample.", g, tokens, g.output_groups[i]);
    // The previous stage's groups, mixed into this stage's group tokens: a LayerNorm and a mixer MLP.
    if (tokens > 0 && previous > 0) {
      blocks::norm(t, s + "group_projector.0", h, true);
      groupvit_mlp(t, s + "group_projector.1.", previous, h / 2, tokens);
    }
  }
  blocks::norm(t, prefix + "layernorm", h, true);
  // A tensor's layer index is its stage's (stages.N.layers.M): as for Swin's stages, the record keeps the
  // tower's width and input size, no stack of per-index layers.
  StackSpec& stack = t.arch.add_stack(StackRole::Vision, prefix + "encoder.stages", h);
  stack.patch_size = g.patch;
  stack.image_size = g.image;
  return h;
}

// GroupViTModel's visual_projection / text_projection: Linear, BatchNorm1d, ReLU, Linear (indices 0, 1, 3).
void groupvit_projection(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t inner, uint64_t out) {
  blocks::linear(t, p + ".0", in, inner, true);
  detr_batch_norm(t, p + ".1", inner, false);
  blocks::linear(t, p + ".3", inner, out, true);
}

}  // namespace

void build_groupvit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "GroupViTModel");
  supported_task(cfg, cls, "GroupViT", {"Model"});
  t.arch.architecture = cls;
  t.add("logit_scale", {});  // the model's own 0-dimensional parameter, listed before its modules'
  const uint64_t text = clip_text_tower(sub_or_empty(cfg, "text_config"), "text_model.",
                                        ClipTextDefaults{.hidden = 256, .intermediate = 1024, .heads = 4}, t);
  const uint64_t vision = groupvit_vision_tower(sub_or_empty(cfg, "vision_config"), "vision_model.", t);
  const uint64_t inner = cfg.dim_or("projection_intermediate_dim", 4096);
  const uint64_t projection = cfg.dim_or("projection_dim", 256);
  groupvit_projection(t, "visual_projection", vision, inner, projection);
  groupvit_projection(t, "text_projection", text, inner, projection);
}

void build_groupvit_text_model(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "GroupViTTextModel");
  clip_text_tower(cfg, "text_model.", ClipTextDefaults{.hidden = 256, .intermediate = 1024, .heads = 4}, t);
}

void build_groupvit_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "GroupViTVisionModel");
  groupvit_vision_tower(cfg, "vision_model.", t);
  // The stage stack keeps no per-layer records: the record's sizes come from the config.
  const GroupVitVision g = read_groupvit_vision(cfg);
  ArchitectureRecord& a = t.arch;
  a.hidden_size = g.hidden;
  a.intermediate_size = g.intermediate;
  a.num_attention_heads = a.num_key_value_heads = g.heads;
  a.head_dim = g.hidden / g.heads;
  for (const uint64_t depth : g.depths) a.num_layers += depth;
}

}  // namespace ma::families
