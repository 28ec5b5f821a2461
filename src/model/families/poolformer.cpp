// PoolFormer (poolformer: PoolFormerModel, PoolFormerForImageClassification; sail/poolformer_s12..m48):
// stages of a strided patch-embedding conv and MetaFormer blocks whose token mixer is a parameter-free
// average pooling; each block has two one-group GroupNorms, a 1 x 1 conv MLP and, by default, two layer-scale
// vectors (the layer's own parameters, listed before its modules'). The classifier norms the last stage
// first.
#include <string>
#include <string_view>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier.h"

namespace ma::families {

void build_poolformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "PoolFormerModel");
  const std::string task = supported_task(cfg, cls, "PoolFormer", {"Model", "ForImageClassification"});
  // PoolFormerConfig's defaults are poolformer_s12's. The encoder indexes every list by stage for
  // num_encoder_blocks stages (an IndexError when one is shorter).
  const uint64_t stages = cfg.dim_or("num_encoder_blocks", 4);
  const auto list = [&](std::string_view key, std::vector<uint64_t> dflt) {
    return per_stage_dims(cfg, key, std::move(dflt), stages);
  };
  const std::vector<uint64_t> widths = list("hidden_sizes", {64, 128, 320, 512});
  const std::vector<uint64_t> depths = list("depths", {2, 2, 6, 2});
  const std::vector<uint64_t> patches = list("patch_sizes", {7, 3, 3, 3});
  const std::vector<uint64_t> strides = list("strides", {4, 2, 2, 2});
  if (cfg.has("padding") && cfg.ints("padding").size() < stages)
    cfg.fail("padding", "must give a value for each of the " + std::to_string(stages) + " encoder blocks");
  const double mlp_ratio = cfg.number_or("mlp_ratio", 4.0);
  const bool layer_scale = cfg.flag_or("use_layer_scale", true);
  uint64_t blocks = 0;
  for (size_t i = 0; i < stages; ++i) {
    blocks += depths[i];
    if (patches[i] > 4096) cfg.fail("patch_sizes", "must be at most 4096");
    const double inter = mlp_ratio * static_cast<double>(widths[i]);
    if (!(inter >= 1.0) || inter > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("mlp_ratio", "times each hidden size must make an MLP width from 1 to 2^26");
  }
  cfg.check_layer_list("depths", blocks);
  const uint64_t last = widths[stages - 1];
  const auto mlp = [&](size_t i) {
    return static_cast<uint64_t>(mlp_ratio * static_cast<double>(widths[i]));
  };

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = blocks;
  a.hidden_size = last;
  a.intermediate_size = mlp(stages - 1);
  // No attention: the token mixer is a pooling. One stack over the stages, as for the other staged towers.
  const std::string p = task == "Model" ? "" : "poolformer.";
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.block", last);
  stack.patch_size = strides[0];

  // PoolFormerEncoder: every stage's patch embedding (its norm an nn.Identity), then every stage's blocks.
  for (size_t i = 0; i < stages; ++i)
    blocks::conv2d(t, p + "encoder.patch_embeddings." + std::to_string(i) + ".projection",
                   i == 0 ? cfg.dim_or("num_channels", 3) : widths[i - 1], widths[i], patches[i]);
  for (size_t i = 0; i < stages; ++i) {
    const uint64_t c = widths[i];
    for (uint64_t j = 0; j < depths[i]; ++j) {
      const std::string b = p + "encoder.block." + std::to_string(i) + "." + std::to_string(j) + ".";
      if (layer_scale) {
        t.add(b + "layer_scale_1", {c});
        t.add(b + "layer_scale_2", {c});
      }
      blocks::conv2d(t, b + "output.conv1", c, mlp(i), 1);
      blocks::conv2d(t, b + "output.conv2", mlp(i), c, 1);
      blocks::norm(t, b + "before_norm", c, true);  // GroupNorm(1, c)
      blocks::norm(t, b + "after_norm", c, true);
    }
  }
  if (task == "ForImageClassification") {
    blocks::norm(t, "norm", last, true);
    // A Linear over the normed, pooled last stage; nn.Identity for 0 labels.
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", last, labels, true);
  }
}

}  // namespace ma::families
