// DINOv3's ConvNeXt students (DINOv3ConvNextModel: facebook/dinov3-convnext-{tiny,small,base,large}-
// pretrain-lvd1689m): four stages of ConvNeXt blocks (a 7 x 7 depthwise conv, a LayerNorm, a 4x MLP written
// as two linears, a layer-scale vector), each stage opened by a downsampling conv and LayerNorm, then one
// LayerNorm over the pooled token and the patch tokens. No classifier head and no attention.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_backbones.h"

namespace ma::families {

void build_dinov3_convnext(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DINOv3ConvNextModel");
  supported_task(cfg, cls, "DINOv3ConvNext", {"Model"});
  // DINOv3ConvNextConfig's defaults are ConvNeXt-T's; num_stages is len(hidden_sizes) and each stage reads
  // its depth from depths, so a shorter depths list fails in transformers (an IndexError).
  const std::vector<uint64_t> widths = cfg.dims_or("hidden_sizes", {96, 192, 384, 768});
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {3, 3, 9, 3});
  if (widths.empty()) cfg.fail("hidden_sizes", "must name at least one stage");
  if (depths.size() < widths.size())
    cfg.fail("depths", "must give a depth for each of the " + std::to_string(widths.size()) + " stages");
  uint64_t layers = 0;
  for (size_t stage = 0; stage < widths.size(); ++stage) layers += depths[stage];
  cfg.check_layer_list("depths", layers);  // each depth is at most 2^26: bound their sum like any depth
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = layers;
  a.intermediate_size = 4 * widths.back();
  // Its stages differ in width: no stack of equal layers. As for Swin, the record keeps one stack over the
  // stages (a tensor's layer index is its stage's) with the output width and the input size.
  StackSpec& stack = a.add_stack(StackRole::Encoder, "stages", widths.back());
  stack.patch_size = 4;  // the stem's 4 x 4 patches
  stack.image_size = cfg.dim_or("image_size", 224);
  a.hidden_size = widths.back();
  const uint64_t channels = cfg.dim_or("num_channels", 3);
  for (size_t stage = 0; stage < widths.size(); ++stage) {
    const uint64_t c = widths[stage];
    const std::string p = "stages." + std::to_string(stage) + ".";
    // Stage 0 patchifies (a 4 x 4 stride-4 conv, then a LayerNorm); the others norm, then halve the grid.
    if (stage == 0) {
      blocks::conv2d(t, p + "downsample_layers.0", channels, c, 4);
      blocks::norm(t, p + "downsample_layers.1", c, true);
    } else {
      blocks::norm(t, p + "downsample_layers.0", widths[stage - 1], true);
      blocks::conv2d(t, p + "downsample_layers.1", widths[stage - 1], c, 2);
    }
    for (uint64_t i = 0; i < depths[stage]; ++i) {
      const std::string l = p + "layers." + std::to_string(i) + ".";
      t.add(l + "gamma", {c});  // the layer's own parameter, listed before its modules'
      blocks::conv2d(t, l + "depthwise_conv", c, c, 7, c);
      blocks::norm(t, l + "layer_norm", c, true);
      blocks::linear(t, l + "pointwise_conv1", c, 4 * c, true);
      blocks::linear(t, l + "pointwise_conv2", 4 * c, c, true);
    }
  }
  blocks::norm(t, "layer_norm", widths.back(), true);
}

}  // namespace ma::families
