// DETR (model_type detr): DetrModel, DetrForObjectDetection (facebook/detr-resnet-50, -101) and
// DetrForSegmentation (the -panoptic checkpoints), whose mask head reads the first three backbone feature
// maps beside the attention maps of the queries over the encoder's output.
#include <algorithm>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// DetrMaskHeadSmallConv(d_model + heads, the first three feature maps' channels, deepest first, d_model):
// 3 x 3 convolutions narrowing to d_model / 16, each with a GroupNorm of min(8, width) groups, an output
// convolution to one channel, and 1 x 1 adapters from the feature maps (an FPN).
void detr_mask_head(const ModelConfig& cfg, const std::vector<uint64_t>& channels, ModelTemplate& t) {
  const uint64_t d = cfg.dim_or("d_model", 256);
  const uint64_t dim = d + cfg.dim_or("encoder_attention_heads", 8);
  if (dim % 8 != 0)
    cfg.fail("encoder_attention_heads", "plus d_model must be divisible by 8 (the mask head's GroupNorm)");
  // intermediate_channel_sizes[::-1][-3:] must hold three maps (transformers fails with fewer).
  if (channels.size() < 3) {
    if (cfg.flag_or("use_timm_backbone", true))
      cfg.fail("backbone_kwargs.out_indices", "must give the mask head at least three feature maps");
    cfg.fail("backbone_config.out_features", "must give the mask head at least three feature maps");
  }
  const uint64_t widths[] = {dim, d / 2, d / 4, d / 8, d / 16};
  for (size_t i = 1; i < 5; ++i) {
    const uint64_t groups = std::min<uint64_t>(8, widths[i]);
    if (groups == 0 || widths[i] % groups != 0)
      cfg.fail("d_model", "leaves a mask-head GroupNorm without a whole number of channels per group");
  }
  for (size_t i = 0; i < 5; ++i) {
    const std::string n = std::to_string(i + 1);
    blocks::conv2d(t, "mask_head.lay" + n, i == 0 ? dim : widths[i - 1], widths[i], 3);
    blocks::norm(t, "mask_head.gn" + n, widths[i], true);
  }
  blocks::conv2d(t, "mask_head.out_lay", widths[4], 1, 3);
  // intermediate_channel_sizes[::-1][-3:]: the first three maps, the third first.
  for (size_t i = 0; i < 3; ++i)
    blocks::conv2d(t, "mask_head.adapter" + std::to_string(i + 1), channels[2 - i], widths[i + 1], 1);
}

}  // namespace

void detr_segmentation_heads(const ModelConfig& cfg, const std::vector<uint64_t>& channels,
                             ModelTemplate& t) {
  detr_mask_head(cfg, channels, t);
  // DetrMHAttentionMap(d_model, d_model, heads): the queries' attention maps over the encoder's output.
  const uint64_t d = cfg.dim_or("d_model", 256);
  blocks::linear(t, "bbox_attention.q_linear", d, d, true);
  blocks::linear(t, "bbox_attention.k_linear", d, d, true);
}

void build_detr(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DetrModel");
  const std::string task =
      supported_task(cfg, cls, "Detr", {"Model", "ForObjectDetection", "ForSegmentation"});
  t.arch.architecture = cls;
  if (task == "Model") {
    detr_model_body(cfg, "", {}, t);
    return;
  }
  // DetrForSegmentation wraps a whole DetrForObjectDetection as detr.
  const std::string heads = task == "ForSegmentation" ? "detr." : "";
  const std::vector<uint64_t> channels = detr_model_body(cfg, heads + "model.", {}, t);
  detr_detection_heads(cfg, heads, t);
  if (task == "ForSegmentation") detr_segmentation_heads(cfg, channels, t);
}

}  // namespace ma::families
