// ViTMatte (VitMatteForImageMatting): a ViTDet backbone (load_backbone, under "backbone.") and a detail
// capture decoder: a stream of stride-2 3x3 convolutions over the image and trimap, fusion blocks that
// upsample the ViT features and concatenate the stream's maps, and a small matting head. VitMatteConfig's
// defaults are hustvl/vitmatte-small-composition-1k's decoder widths; its default backbone is VitDetConfig()
// (out_features ["stage4"]).
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/depth.h"
#include "model/families/detection_seg.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// VitMatteBasicConv3x3 under `p`: a bias-free 3x3 conv, then nn.BatchNorm2d.
void vitmatte_conv_bn(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out) {
  t.add(p + "conv.weight", {out, in, 3, 3});
  detr_batch_norm(t, p + "batch_norm", out, false);
}

}  // namespace

void build_vitmatte(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VitMatteForImageMatting");
  supported_task(cfg, cls, "VitMatte", {"ForImageMatting"});
  const ModelConfig bb =
      depth_backbone_config(cfg, R"({"model_type":"vitdet","out_features":["stage4"]})", "vitdet");
  vitdet_body(bb, cls, "backbone.", t);
  // The decoder reads its own hidden_size (the backbone's width in every checkpoint, not checked by it).
  const uint64_t hidden = cfg.dim_or("hidden_size", 384);
  const std::vector<uint64_t> stream = cfg.dims_or("convstream_hidden_sizes", {48, 96, 192});
  const std::vector<uint64_t> fusion = cfg.dims_or("fusion_hidden_sizes", {256, 128, 64, 32});
  if (fusion.size() != stream.size() + 1)
    cfg.fail("fusion_hidden_sizes", "must have one entry more than convstream_hidden_sizes");
  // VitMatteConvStream reads the image and trimap: the backbone's num_channels of them.
  std::vector<uint64_t> chans{bb.dim_or("num_channels", 3)};
  chans.insert(chans.end(), stream.begin(), stream.end());
  for (size_t i = 0; i + 1 < chans.size(); ++i)
    vitmatte_conv_bn(t, "decoder.convstream.convs." + std::to_string(i) + ".", chans[i], chans[i + 1]);
  // Fusion block i concatenates the stream's maps from the deepest up with the upsampled features.
  uint64_t in = hidden;
  for (size_t i = 0; i < fusion.size(); ++i) {
    vitmatte_conv_bn(t, "decoder.fusion_blocks." + std::to_string(i) + ".conv.",
                     in + chans[chans.size() - 1 - i], fusion[i]);
    in = fusion[i];
  }
  // VitMatteHead.matting_convs: Conv2d(3x3, to 16), BatchNorm2d, ReLU, Conv2d(1x1, to one alpha channel).
  const std::string head = "decoder.matting_head.matting_convs.";
  blocks::conv2d(t, head + "0", fusion.back(), 16, 3);
  detr_batch_norm(t, head + "1", 16, false);
  blocks::conv2d(t, head + "3", 16, 1, 1);
}

}  // namespace ma::families
