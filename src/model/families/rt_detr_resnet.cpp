// RT-DETR's ResNet (model_type rt_detr_resnet, RTDetrResNetBackbone in modeling_rt_detr_resnet.py): the
// ResNet-vd of PaddleDetection's PResNet. Where transformers' ResNet has one 7 x 7 stem convolution, it has
// three 3 x 3 ones (to embedding_size / 2, embedding_size / 2, embedding_size); a striding shortcut average-
// pools before its 1 x 1 convolution (shortcut.1, behind the pooling's shortcut.0); and the first layer of a
// basic-block ResNet (R18, R34) projects its shortcut even where the widths match.
#include <string>
#include <vector>

#include "model/families/detr.h"

namespace ma::families {
namespace {

// RTDetrResNetBasicLayer / RTDetrResNetBottleNeckLayer `l` of stage `s` under `p`, reading `in` channels
// at `stride`. Both register the shortcut before the convolutions (layer.N).
void rt_detr_resnet_layer(ModelTemplate& t, const std::string& p, bool bottleneck, bool first_of_stage,
                          uint64_t in, uint64_t out, uint64_t stride, bool frozen) {
  const auto conv = [&](const std::string& c, uint64_t from, uint64_t to, uint64_t kernel) {
    detr_conv_norm(t, p + c + ".convolution", p + c + ".normalization", from, to, kernel, frozen);
  };
  if (bottleneck) {
    // Projected when the width or the stride changes; a striding one pools first (Sequential: pool, conv).
    if (in != out || stride != 1) conv(stride == 2 ? "shortcut.1" : "shortcut", in, out, 1);
  } else if (first_of_stage) {
    // RTDetrResNetStage asks every basic stage's first layer for a shortcut (should_apply_shortcut); a
    // widening one pools first, whatever the stride.
    conv(in != out ? "shortcut.1" : "shortcut", in, out, 1);
  }
  if (bottleneck) {
    const uint64_t reduced = out / 4;  // reduction = 4
    conv("layer.0", in, reduced, 1);
    conv("layer.1", reduced, reduced, 3);
    conv("layer.2", reduced, out, 1);
  } else {
    conv("layer.0", in, out, 3);
    conv("layer.1", out, out, 3);
  }
}

}  // namespace

std::vector<uint64_t> rt_detr_resnet_backbone(const ModelConfig& bb, const std::string& prefix, bool frozen,
                                              ModelTemplate& t) {
  // RTDetrResNetConfig's defaults: ResNet-50's.
  const ResNetShape shape = read_resnet_shape(bb);
  const uint64_t embedding = shape.embedding;
  const std::vector<uint64_t>&widths = shape.widths, &depths = shape.depths;
  const bool bottleneck = shape.bottleneck;
  if (embedding < 2) bb.fail("embedding_size", "must be at least 2 (the stem halves it)");
  if (bottleneck)
    for (const uint64_t w : widths)
      if (w < 4) bb.fail("hidden_sizes", "must be at least 4 wide in a bottleneck ResNet");

  const std::string e = prefix + "embedder.embedder.";
  const uint64_t stem[] = {bb.dim_or("num_channels", 3), embedding / 2, embedding / 2, embedding};
  for (uint64_t i = 0; i < 3; ++i)
    detr_conv_norm(t, e + std::to_string(i) + ".convolution", e + std::to_string(i) + ".normalization",
                   stem[i], stem[i + 1], 3, frozen);
  uint64_t in = embedding;
  for (size_t s = 0; s < widths.size(); ++s) {
    // The first stage strides only with downsample_in_first_stage; the others always do.
    const uint64_t stride = s > 0 || bb.flag_or("downsample_in_first_stage", false) ? 2 : 1;
    for (uint64_t l = 0; l < depths[s]; ++l) {
      const std::string p =
          prefix + "encoder.stages." + std::to_string(s) + ".layers." + std::to_string(l) + ".";
      rt_detr_resnet_layer(t, p, bottleneck, l == 0, in, widths[s], l == 0 ? stride : 1, frozen);
      in = widths[s];
    }
  }
  std::vector<uint64_t> features{embedding};
  features.insert(features.end(), widths.begin(), widths.end());
  return detr_backbone_channels(bb, features);
}

}  // namespace ma::families
