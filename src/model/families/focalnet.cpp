// FocalNet (focalnet: FocalNetModel, FocalNetForImageClassification; microsoft/focalnet-tiny..huge-fl4):
// Swin's stage layout (a patch-embedding stem, stages of embed_dim * 2^i channels, each but the last ending
// in a strided patch-embedding downsample with a LayerNorm) with attention replaced by focal modulation: one
// projection to query, context and focal_level + 1 gates, focal_level depthwise convs of growing kernels,
// a 1 x 1 conv modulator and an output projection.
#include <string>
#include <string_view>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier_b.h"

namespace ma::families {

void build_focalnet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "FocalNetModel");
  const std::string task = supported_task(cfg, cls, "FocalNet", {"Model", "ForImageClassification"});
  // FocalNetConfig's defaults are focalnet-tiny's (srf: focal_levels 2, focal_windows 3).
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {2, 2, 6, 2});
  const size_t stages = depths.size();
  const auto list = [&](std::string_view key, std::vector<uint64_t> dflt) {
    std::vector<uint64_t> v = cfg.dims_or(key, std::move(dflt));
    if (v.size() < stages)
      cfg.fail(key, "must give a value for each of the " + std::to_string(stages) + " stages");
    return v;
  };
  const std::vector<uint64_t> levels = list("focal_levels", {2, 2, 2, 2});
  const std::vector<uint64_t> windows = list("focal_windows", {3, 3, 3, 3});
  const uint64_t embed = cfg.dim_or("embed_dim", 96);
  if (stages > 16 || (embed << (stages - 1)) > ModelConfig::kMaxValue)
    cfg.fail("embed_dim", "times 2^(stages - 1) must be at most 2^26");
  const double mlp_ratio = cfg.number_or("mlp_ratio", 4.0);
  const auto mlp = [&](uint64_t dim) {
    const double w = mlp_ratio * static_cast<double>(dim);
    if (!(w >= 1.0) || w > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("mlp_ratio", "times each stage width must make an MLP width from 1 to 2^26");
    return static_cast<uint64_t>(w);  // int(dim * mlp_ratio)
  };
  const bool conv_embed = cfg.flag_or("use_conv_embed", false);
  const bool layerscale = cfg.flag_or("use_layerscale", false);
  const bool modulation_norm = cfg.flag_or("use_post_layernorm_in_modulation", false);
  uint64_t blocks_total = 0;
  for (size_t i = 0; i < stages; ++i) {
    blocks_total += depths[i];
    // Kernel focal_factor (2) * k + focal_window for k < focal_level.
    if (levels[i] > 64 || windows[i] > 4096)
      cfg.fail("focal_levels", "with focal_windows must make kernels of at most 4096");
  }
  cfg.check_layer_list("depths", blocks_total);
  const uint64_t last = embed << (stages - 1);  // num_features

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = blocks_total;
  a.hidden_size = last;
  a.intermediate_size = mlp(last);
  const std::string p = task == "Model" ? "" : "focalnet.";
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.stages", last);
  stack.patch_size = cfg.dim_or("patch_size", 4);
  stack.image_size = cfg.dim_or("image_size", 224);

  // FocalNetEmbeddings: the stem (a 7 x 7 stride-4 conv with use_conv_embed, else a patch_size conv), its
  // LayerNorm (the mask token exists only for FocalNetForMaskedImageModeling).
  blocks::conv2d(t, p + "embeddings.patch_embeddings.projection", cfg.dim_or("num_channels", 3), embed,
                 conv_embed ? 7 : stack.patch_size);
  blocks::norm(t, p + "embeddings.norm", embed, true);
  for (size_t s = 0; s < stages; ++s) {
    const uint64_t dim = embed << s;
    const std::string g = p + "encoder.stages." + std::to_string(s) + ".";
    for (uint64_t j = 0; j < depths[s]; ++j) {
      const std::string l = g + "layers." + std::to_string(j) + ".";
      // gamma_1 / gamma_2 are the layer's own parameters: state_dict lists them before its modules.
      if (layerscale) {
        t.add(l + "gamma_1", {dim});
        t.add(l + "gamma_2", {dim});
      }
      blocks::norm(t, l + "norm1", dim, true);
      const std::string m = l + "modulation.";
      blocks::linear(t, m + "projection_in", dim, 2 * dim + levels[s] + 1, true);
      blocks::conv2d(t, m + "projection_context", dim, dim, 1);
      blocks::linear(t, m + "projection_out", dim, dim, true);
      for (uint64_t k = 0; k < levels[s]; ++k) {
        const uint64_t kernel = 2 * k + windows[s];
        t.add(m + "focal_layers." + std::to_string(k) + ".0.weight", {dim, 1, kernel, kernel});
      }
      if (modulation_norm) blocks::norm(t, m + "layernorm", dim, true);
      blocks::norm(t, l + "norm2", dim, true);
      blocks::linear(t, l + "mlp.fc1", dim, mlp(dim), true);
      blocks::linear(t, l + "mlp.fc2", mlp(dim), dim, true);
    }
    // Every stage but the last halves the grid: a 2 x 2 stride-2 conv (3 x 3 with use_conv_embed) and a
    // LayerNorm (add_norm=True).
    if (s + 1 < stages) {
      blocks::conv2d(t, g + "downsample.projection", dim, 2 * dim, conv_embed ? 3 : 2);
      blocks::norm(t, g + "downsample.norm", 2 * dim, true);
    }
  }
  blocks::norm(t, p + "layernorm", last, true);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", last, labels, true);
}

}  // namespace ma::families
