#include "model/families/qwen_hybrid_blocks.h"

#include "model/families/decoder_common.h"

namespace ma::families::qwen {
namespace {

struct VisionDefaults {
  uint64_t depth, hidden, intermediate, patch, out_hidden;
};

VisionDefaults vision_defaults(VisionKind kind) {
  switch (kind) {
    case VisionKind::Qwen2:
      return {32, 1280, 0, 14, 3584};
    case VisionKind::Qwen2_5:
      return {32, 3584, 3420, 14, 3584};
    case VisionKind::Qwen3:
      return {27, 1152, 4304, 16, 3584};
  }
  return {27, 1152, 4304, 16, 3584};
}

// Qwen2-VL spells the block width embed_dim, the merger output hidden_size and the MLP width as a ratio.
void read_qwen2_widths(const ModelConfig& vision, VisionTower& v) {
  v.hidden = vision.dim_or("embed_dim", 1280);
  v.out_hidden = vision.dim_or("hidden_size", 3584);
  double ratio = vision.number_or("mlp_ratio", 4.0);
  double width = static_cast<double>(v.hidden) * ratio;
  if (!(width >= 1.0) || width > 1e12) vision.fail("mlp_ratio", "must make a positive MLP width");
  v.intermediate = static_cast<uint64_t>(width);  // transformers truncates: int(embed_dim * mlp_ratio)
}

// Qwen3-VL patch merger: the main one normalizes before the spatial shuffle (block width), the deepstack
// ones after it (merged width).
void qwen3_merger(ModelTemplate& t, const std::string& p, const VisionTower& v, bool post_shuffle_norm) {
  const uint64_t merged = v.hidden * v.merge * v.merge;
  blocks::norm(t, p + (v.omni_names ? ".ln_q" : ".norm"), post_shuffle_norm ? merged : v.hidden, true);
  blocks::linear(t, p + (v.omni_names ? ".mlp.0" : ".linear_fc1"), merged, merged, true);
  blocks::linear(t, p + (v.omni_names ? ".mlp.2" : ".linear_fc2"), merged, v.out_hidden, true);
}

// Qwen2/2.5-VL patch merger: ln_q, then an MLP whose Linear layers sit at Sequential indices 0 and 2.
void qwen2_merger(ModelTemplate& t, const std::string& p, const VisionTower& v) {
  const uint64_t merged = v.hidden * v.merge * v.merge;
  blocks::norm(t, p + ".ln_q", v.hidden, v.kind == VisionKind::Qwen2);
  blocks::linear(t, p + ".mlp.0", merged, merged, true);
  blocks::linear(t, p + ".mlp.2", merged, v.out_hidden, true);
}

void routed_experts(ModelTemplate& t, const std::string& prefix, const SparseMoe& m) {
  if (m.storage == ExpertStorage::PerExpert) {
    blocks::fused_experts(t, prefix, m.experts, m.hidden, m.inter, {prefix});
    return;
  }
  const Shape gate_up{m.experts, 2 * m.inter, m.hidden}, down{m.experts, m.hidden, m.inter};
  if (m.storage == ExpertStorage::Fused) {
    blocks::stacked_experts(t, prefix, gate_up, down);
    return;
  }
  // Same names, last two dimensions swapped.
  blocks::stacked_experts(t, prefix, gate_up, down,
                          DiskPiece{prefix + ".gate_up_proj", {m.experts, m.hidden, 2 * m.inter}},
                          DiskPiece{prefix + ".down_proj", {m.experts, m.inter, m.hidden}});
}

}  // namespace

void vision_block(ModelTemplate& t, const std::string& p, const VisionTower& v) {
  const bool layer_norm = v.kind != VisionKind::Qwen2_5;  // Qwen2.5-VL uses bias-free RMSNorm
  blocks::norm(t, p + ".norm1", v.hidden, layer_norm);
  blocks::norm(t, p + ".norm2", v.hidden, layer_norm);
  const uint64_t kv_width = (v.kv_heads ? v.kv_heads : v.heads) * (v.hidden / v.heads);
  if (v.split_qkv) {
    blocks::linear(t, p + ".attn.q", v.hidden, v.hidden, true);
    blocks::linear(t, p + ".attn.k", v.hidden, kv_width, true);
    blocks::linear(t, p + ".attn.v", v.hidden, kv_width, true);
  } else {
    blocks::linear(t, p + ".attn.qkv", v.hidden, v.hidden + 2 * kv_width, true);
  }
  blocks::linear(t, p + ".attn.proj", v.hidden, v.hidden, true);
  switch (v.kind) {
    case VisionKind::Qwen2:
      blocks::linear(t, p + ".mlp.fc1", v.hidden, v.intermediate, true);
      blocks::linear(t, p + ".mlp.fc2", v.intermediate, v.hidden, true);
      break;
    case VisionKind::Qwen2_5:
      blocks::gated_mlp(t, p + ".mlp", v.hidden, v.intermediate, true);
      break;
    case VisionKind::Qwen3:
      blocks::linear(t, p + ".mlp.linear_fc1", v.hidden, v.intermediate, true);
      blocks::linear(t, p + ".mlp.linear_fc2", v.intermediate, v.hidden, true);
      break;
  }
}

VisionTower read_vision(const ModelConfig& vision, VisionKind kind, bool with_deepstack) {
  const VisionDefaults d = vision_defaults(kind);
  VisionTower v;
  v.kind = kind;
  v.depth = vision.layers_or("depth", d.depth, 0);
  if (kind == VisionKind::Qwen2) {
    read_qwen2_widths(vision, v);
  } else {
    v.hidden = vision.dim_or("hidden_size", d.hidden);
    v.intermediate = vision.dim_or("intermediate_size", d.intermediate);
    v.out_hidden = vision.dim_or("out_hidden_size", d.out_hidden);
  }
  const uint64_t heads = v.heads = vision.dim_or("num_heads", 16);
  if (v.hidden % heads != 0)
    vision.fail("num_heads", "must divide the vision hidden size (" + std::to_string(v.hidden) + ")");
  v.in_channels = vision.dim_or("in_channels", 3);
  v.patch = vision.dim_or("patch_size", d.patch);
  v.temporal_patch = vision.dim_or("temporal_patch_size", 2);
  v.merge = vision.dim_or("spatial_merge_size", 2);
  if (kind == VisionKind::Qwen3) {
    v.positions = vision.dim_or("num_position_embeddings", 2304);
    if (with_deepstack)
      v.deepstack =
          vision.has("deepstack_visual_indexes") ? vision.ints("deepstack_visual_indexes").size() : 3;
  }
  return v;
}

void vision_tower(ModelTemplate& t, const std::string& prefix, const VisionTower& v) {
  const bool conv_bias = v.kind == VisionKind::Qwen3;
  t.add(prefix + ".patch_embed.proj.weight", {v.hidden, v.in_channels, v.temporal_patch, v.patch, v.patch});
  if (conv_bias) t.add(prefix + ".patch_embed.proj.bias", {v.hidden});
  if (v.kind == VisionKind::Qwen3) blocks::embedding(t, prefix + ".pos_embed.weight", v.positions, v.hidden);
  for (uint64_t i = 0; i < v.depth; ++i) vision_block(t, prefix + ".blocks." + std::to_string(i), v);
  record_vision_tower(t, prefix + ".blocks", v.hidden, v.depth, v.heads, v.hidden / v.heads, v.intermediate,
                      v.patch, 0);
  record_projector(t, prefix + ".merger");
  if (v.kind != VisionKind::Qwen3) {
    qwen2_merger(t, prefix + ".merger", v);
    return;
  }
  qwen3_merger(t, prefix + ".merger", v, false);
  const std::string list = v.omni_names ? ".merger_list." : ".deepstack_merger_list.";
  for (uint64_t i = 0; i < v.deepstack; ++i) qwen3_merger(t, prefix + list + std::to_string(i), v, true);
}

GatedDeltaNet read_gated_delta_net(const ModelConfig& text, uint64_t hidden, bool split_projections) {
  GatedDeltaNet g;
  g.hidden = hidden;
  g.key_heads = text.dim_or("linear_num_key_heads", 16);
  g.value_heads = text.dim_or("linear_num_value_heads", 32);
  g.key_head_dim = text.dim_or("linear_key_head_dim", 128);
  g.value_head_dim = text.dim_or("linear_value_head_dim", 128);
  g.conv_kernel = text.dim_or("linear_conv_kernel_dim", 4);
  g.split_projections = split_projections;
  // Queries and keys are repeated across the value heads of their group.
  if (g.value_heads % g.key_heads != 0)
    text.fail("linear_num_key_heads",
              "must divide linear_num_value_heads (" + std::to_string(g.value_heads) + ")");
  return g;
}

void gated_delta_net(ModelTemplate& t, const std::string& prefix, const GatedDeltaNet& g) {
  const uint64_t key_dim = g.key_heads * g.key_head_dim;
  const uint64_t value_dim = g.value_heads * g.value_head_dim;
  const uint64_t conv_dim = 2 * key_dim + value_dim;  // the convolution runs over q, k and v
  // The module's own Parameters first, then its submodules in registration order: Qwen3.5's registers its
  // norm and out_proj before the four input projections, Qwen3-Next's after its two fused ones.
  t.add(prefix + ".dt_bias", {g.value_heads});
  t.add(prefix + ".A_log", {g.value_heads});
  t.add(prefix + ".conv1d.weight", {conv_dim, 1, g.conv_kernel});  // depthwise, no bias
  const auto norm_and_output = [&] {
    blocks::norm(t, prefix + ".norm", g.value_head_dim, false);  // gated RMSNorm shared by all value heads
    blocks::linear(t, prefix + ".out_proj", value_dim, g.hidden, false);
  };
  if (g.split_projections) {
    norm_and_output();
    blocks::linear(t, prefix + ".in_proj_qkv", g.hidden, conv_dim, false);
    blocks::linear(t, prefix + ".in_proj_z", g.hidden, value_dim, false);
    blocks::linear(t, prefix + ".in_proj_b", g.hidden, g.value_heads, false);
    blocks::linear(t, prefix + ".in_proj_a", g.hidden, g.value_heads, false);
  } else {
    blocks::linear(t, prefix + ".in_proj_qkvz", g.hidden, conv_dim + value_dim, false);
    blocks::linear(t, prefix + ".in_proj_ba", g.hidden, 2 * g.value_heads, false);
    norm_and_output();
  }
}

void qk_norm_attention(ModelTemplate& t, const std::string& prefix, const blocks::Attention& a,
                       bool output_gate) {
  const uint64_t q_width = a.heads * a.head_dim;
  blocks::linear(t, prefix + ".q_proj", a.hidden, output_gate ? 2 * q_width : q_width, a.qkv_bias);
  blocks::linear(t, prefix + ".k_proj", a.hidden, a.kv_heads * a.head_dim, a.qkv_bias);
  blocks::linear(t, prefix + ".v_proj", a.hidden, a.kv_heads * a.head_dim, a.qkv_bias);
  blocks::linear(t, prefix + ".o_proj", q_width, a.hidden, a.o_bias);
  blocks::norm(t, prefix + ".q_norm", a.head_dim, false);
  blocks::norm(t, prefix + ".k_norm", a.head_dim, false);
}

void sparse_moe(ModelTemplate& t, const std::string& prefix, const SparseMoe& m) {
  if (m.experts_first) routed_experts(t, prefix + ".experts", m);
  blocks::linear(t, prefix + ".gate", m.hidden, m.experts, false);
  if (!m.experts_first) routed_experts(t, prefix + ".experts", m);
  if (m.shared_inter == 0) return;
  blocks::gated_shared_expert(t, prefix, m.hidden, m.shared_inter);
}

}  // namespace ma::families::qwen
