// Pyramid Vision Transformer v1 (pvt: PvtModel, PvtForImageClassification; Xrenya/pvt-tiny-224..large-224):
// four stages, each a non-overlapping patch embedding with its own learned position table (the last stage's
// also a class token), then pre-norm layers whose keys and values are computed from a grid reduced by a
// strided conv (sequence_reduction_ratios). All patch embeddings come first, then all blocks, then one
// LayerNorm. PVTv2 (pvt_v2.cpp) replaced the position tables with overlapping convs and a depthwise MLP.
#include <string>
#include <string_view>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier.h"
#include "model/families/vision_hier_b.h"

namespace ma::families {

void build_pvt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "PvtModel");
  const std::string task = supported_task(cfg, cls, "Pvt", {"Model", "ForImageClassification"});
  // PvtConfig's defaults are pvt-tiny-224's. The encoder indexes every list by stage for num_encoder_blocks
  // stages (an IndexError when one is shorter).
  const uint64_t stages = cfg.dim_or("num_encoder_blocks", 4);
  const auto list = [&](std::string_view key, std::vector<uint64_t> dflt) {
    return per_stage_dims(cfg, key, std::move(dflt), stages);
  };
  const std::vector<uint64_t> depths = list("depths", {2, 2, 2, 2});
  const std::vector<uint64_t> reductions = list("sequence_reduction_ratios", {8, 4, 2, 1});
  const std::vector<uint64_t> widths = list("hidden_sizes", {64, 128, 320, 512});
  const std::vector<uint64_t> patches = list("patch_sizes", {4, 2, 2, 2});
  const std::vector<uint64_t> strides = list("strides", {4, 2, 2, 2});
  const std::vector<uint64_t> heads = list("num_attention_heads", {1, 2, 5, 8});
  const std::vector<uint64_t> mlp_ratios = list("mlp_ratios", {8, 8, 4, 4});
  const bool qkv_bias = cfg.flag_or("qkv_bias", true);
  const uint64_t image = cfg.dim_or("image_size", 224);
  uint64_t blocks_total = 0;
  for (size_t i = 0; i < stages; ++i) {
    blocks_total += depths[i];
    split_heads(cfg, "num_attention_heads", widths[i], heads[i]);  // PvtEfficientSelfAttention raises
    if (strides[i] > 4096 || reductions[i] > 4096) cfg.fail("strides", "and reductions must be at most 4096");
  }
  cfg.check_layer_list("depths", blocks_total);
  const uint64_t last = widths[stages - 1];

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = blocks_total;
  a.hidden_size = last;
  a.num_attention_heads = heads[stages - 1];
  a.intermediate_size = last * mlp_ratios[stages - 1];
  const std::string p = task == "Model" ? "" : "pvt.";
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.block", last);
  stack.patch_size = patches[0];
  stack.image_size = image;

  for (size_t i = 0; i < stages; ++i) {
    const std::string e = p + "encoder.patch_embeddings." + std::to_string(i) + ".";
    // Stage i's table covers (size // patch_sizes[i])^2 patches of an image_size // 2^(i+1) grid (stage 0:
    // image_size), plus the class token's row in the last stage.
    const uint64_t size = i == 0 ? image : image >> (i + 1);
    const uint64_t side = size / patches[i];
    const bool cls_token = i + 1 == stages;
    if (side == 0) cfg.fail("image_size", "must hold a patch in every stage");
    t.add(e + "position_embeddings", {1, side * side + (cls_token ? 1 : 0), widths[i]});
    if (cls_token) t.add(e + "cls_token", {1, 1, widths[i]});
    // nn.Conv2d(kernel_size=strides[i], stride=patch_sizes[i]): the kernel is the stride's value.
    blocks::conv2d(t, e + "projection", i == 0 ? cfg.dim_or("num_channels", 3) : widths[i - 1], widths[i],
                   strides[i]);
    blocks::norm(t, e + "layer_norm", widths[i], true);
  }
  for (size_t i = 0; i < stages; ++i) {
    const uint64_t c = widths[i];
    for (uint64_t j = 0; j < depths[i]; ++j) {
      const std::string b = p + "encoder.block." + std::to_string(i) + "." + std::to_string(j) + ".";
      blocks::norm(t, b + "layer_norm_1", c, true);
      for (const char* proj : {"query", "key", "value"})
        blocks::linear(t, b + "attention.self." + proj, c, c, qkv_bias);
      if (reductions[i] > 1) {
        blocks::conv2d(t, b + "attention.self.sr", c, c, reductions[i]);
        blocks::norm(t, b + "attention.self.layer_norm", c, true);
      }
      blocks::linear(t, b + "attention.output.dense", c, c, true);
      blocks::norm(t, b + "layer_norm_2", c, true);
      blocks::linear(t, b + "mlp.dense1", c, c * mlp_ratios[i], true);
      blocks::linear(t, b + "mlp.dense2", c * mlp_ratios[i], c, true);
    }
  }
  blocks::norm(t, p + "encoder.layer_norm", last, true);
  if (task == "ForImageClassification") {
    // PvtConfig sets num_labels = 1000 unless config.json says num_labels (its id2label does not count: the
    // explicit default rebuilds it).
    const uint64_t labels = cfg.has("num_labels") ? cfg.count_or("num_labels", 1000) : 1000;
    if (labels > 0) blocks::linear(t, "classifier", last, labels, true);  // the class token's row
  }
}

}  // namespace ma::families
