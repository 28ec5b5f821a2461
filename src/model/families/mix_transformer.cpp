// The pieces SegFormer's Mix Transformer and PVTv2 share (the same modules under different names): the
// per-stage config lists, the overlapping patch embedding and the Mix-FFN with its depthwise conv.
#include <string>
#include <string_view>
#include <vector>

#include "model/blocks.h"
#include "model/families/vision_hier.h"

namespace ma::families {

std::vector<uint64_t> per_stage_dims(const ModelConfig& cfg, std::string_view key, std::vector<uint64_t> dflt,
                                     size_t stages) {
  std::vector<uint64_t> v = cfg.dims_or(key, std::move(dflt));
  if (v.size() < stages)
    cfg.fail(key, "must give a value for each of the " + std::to_string(stages) + " stages");
  return v;
}

MixStages read_mix_stages(const ModelConfig& cfg, std::vector<uint64_t> mlp_ratios) {
  MixStages s;
  s.channels = cfg.dim_or("num_channels", 3);
  // The encoder builds num_encoder_blocks stages and indexes every list by stage, so a shorter list fails in
  // transformers (an IndexError); longer ones go unread.
  const uint64_t stages = cfg.dim_or("num_encoder_blocks", 4);
  const auto list = [&](std::string_view key, std::vector<uint64_t> dflt) {
    std::vector<uint64_t> v = per_stage_dims(cfg, key, std::move(dflt), stages);
    v.resize(stages);
    return v;
  };
  s.widths = list("hidden_sizes", {32, 64, 160, 256});
  s.depths = list("depths", {2, 2, 2, 2});
  s.heads = list("num_attention_heads", {1, 2, 5, 8});
  s.reductions = list("sr_ratios", {8, 4, 2, 1});
  s.patches = list("patch_sizes", {7, 3, 3, 3});
  s.strides = list("strides", {4, 2, 2, 2});
  s.mlp_ratios = list("mlp_ratios", std::move(mlp_ratios));
  uint64_t blocks = 0;
  for (size_t i = 0; i < stages; ++i) {
    blocks += s.depths[i];
    // Both attentions raise unless the heads divide the stage's width.
    if (s.widths[i] % s.heads[i] != 0)
      cfg.fail("num_attention_heads", "must divide each stage's hidden size (stage " + std::to_string(i) +
                                          ": " + std::to_string(s.widths[i]) + ")");
    if (s.patches[i] > 4096 || s.reductions[i] > 4096)
      cfg.fail(s.patches[i] > 4096 ? "patch_sizes" : "sr_ratios", "must be at most 4096");
    if (s.mlp_ratios[i] > 4096) cfg.fail("mlp_ratios", "must be at most 4096");
  }
  cfg.check_layer_list("depths", blocks);  // each depth is at most 2^26: bound their sum like any depth
  return s;
}

void record_mix_stages(ModelTemplate& t, const MixStages& s, const std::string& cls,
                       const std::string& stack_prefix) {
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  const size_t last = s.count() - 1;
  a.hidden_size = s.widths[last];
  a.num_layers = 0;
  for (uint64_t d : s.depths) a.num_layers += d;
  a.num_attention_heads = a.num_key_value_heads = s.heads[last];
  a.head_dim = s.widths[last] / s.heads[last];
  a.intermediate_size = s.mlp(last);
  // Its stages differ in width: no stack of equal layers. As for Swin, one stack over the stages keeps the
  // output width and the stem's stride.
  StackSpec& stack = a.add_stack(StackRole::Encoder, stack_prefix, s.widths[last]);
  stack.patch_size = s.strides[0];
}

void mix_patch_embedding(ModelTemplate& t, const MixStages& s, size_t stage, const std::string& p) {
  const uint64_t in = stage == 0 ? s.channels : s.widths[stage - 1];
  blocks::conv2d(t, p + "proj", in, s.widths[stage], s.patches[stage]);
  blocks::norm(t, p + "layer_norm", s.widths[stage], true);
}

void mix_ffn(ModelTemplate& t, uint64_t width, uint64_t expanded, const std::string& p) {
  blocks::linear(t, p + "dense1", width, expanded, true);
  blocks::conv2d(t, p + "dwconv.dwconv", expanded, expanded, 3, expanded);
  blocks::linear(t, p + "dense2", expanded, width, true);
}

}  // namespace ma::families
