// ResNet (model_type resnet: ResNetModel, ResNetForImageClassification; microsoft/resnet-18 ... -152) and
// RT-DETR's ResNet-vd as a model of its own (rt_detr_resnet: RTDetrResNetBackbone, the backbone_config of
// PekingU/rtdetr_r*vd). Both keep nn.BatchNorm2d, whose running statistics and num_batches_tracked are
// buffers: the ResNet-50 classifier has 25,557,032 parameters (microsoft/resnet-50's model card: 25.6M).
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {

std::vector<uint64_t> transformers_resnet_body(const ModelConfig& bb, const std::string& prefix, bool frozen,
                                               ModelTemplate& t) {
  // ResNetConfig's defaults are ResNet-50's.
  const ResNetShape shape = read_resnet_shape(bb);
  const uint64_t embedding = shape.embedding;
  const std::vector<uint64_t>&widths = shape.widths, &depths = shape.depths;
  if (widths.empty()) bb.fail("hidden_sizes", "must name at least one stage");
  const std::string e = prefix + "embedder.embedder.";
  detr_conv_norm(t, e + "convolution", e + "normalization", bb.dim_or("num_channels", 3), embedding, 7,
                 frozen);
  uint64_t in = embedding;
  for (size_t s = 0; s < widths.size(); ++s) {
    const uint64_t out = widths[s];
    // The first stage strides only with downsample_in_first_stage; the others always do.
    const bool strides = s > 0 || bb.flag_or("downsample_in_first_stage", false);
    for (uint64_t l = 0; l < depths[s]; ++l) {
      const std::string p =
          prefix + "encoder.stages." + std::to_string(s) + ".layers." + std::to_string(l) + ".";
      // ResNetBottleNeckLayer / ResNetBasicLayer register the shortcut before the convolutions.
      if (l == 0 && (in != out || strides))
        detr_conv_norm(t, p + "shortcut.convolution", p + "shortcut.normalization", in, out, 1, frozen);
      const auto conv = [&](int k, uint64_t from, uint64_t to, uint64_t kernel) {
        const std::string c = p + "layer." + std::to_string(k) + ".";
        detr_conv_norm(t, c + "convolution", c + "normalization", from, to, kernel, frozen);
      };
      if (shape.bottleneck) {
        const uint64_t reduced = out / 4;  // reduction=4
        if (reduced == 0) bb.fail("hidden_sizes", "must be at least 4 wide in a bottleneck ResNet");
        conv(0, in, reduced, 1);
        conv(1, reduced, reduced, 3);
        conv(2, reduced, out, 1);
      } else {
        conv(0, in, out, 3);
        conv(1, out, out, 3);
      }
      in = out;
    }
  }
  std::vector<uint64_t> features{embedding};
  features.insert(features.end(), widths.begin(), widths.end());
  return features;
}

namespace {

// The residual blocks of all stages (the record's num_layers), each depth bounded like any layer count.
uint64_t resnet_blocks(const ModelConfig& cfg) {
  uint64_t blocks = 0;
  for (const uint64_t d : read_resnet_shape(cfg).depths) blocks += d;
  cfg.check_layer_list("depths", blocks);
  return blocks;
}

}  // namespace

// ResNetModel (its pooler an AdaptiveAvgPool2d, no parameter), under resnet. in the classifier, whose head
// is classifier = Sequential(Flatten, Linear): the Linear at index 1, absent when num_labels is 0.
// ResNetBackbone is refused: no Hub checkpoint names it as its architecture.
void build_resnet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ResNetModel");
  const std::string task = supported_task(cfg, cls, "ResNet", {"Model", "ForImageClassification"});
  const uint64_t blocks = resnet_blocks(cfg);
  const std::string prefix = task == "Model" ? "" : "resnet.";
  const std::vector<uint64_t> features = transformers_resnet_body(cfg, prefix, false, t);
  describe_cnn_backbone(cfg, cls, prefix + "encoder.stages", features.back(), blocks, t);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "classifier.1", features.back(), labels, true);
}

// RTDetrResNetBackbone alone: its embedder and encoder at the root, with trainable batch norms (RT-DETR
// freezes them only inside its RTDetrConvEncoder, with freeze_backbone_batch_norms).
void build_rt_detr_resnet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "RTDetrResNetBackbone");
  supported_task(cfg, cls, "RTDetrResNet", {"Backbone"});
  const uint64_t blocks = resnet_blocks(cfg);
  rt_detr_resnet_backbone(cfg, "", false, t);  // returns the feature maps' channels: no parameter of theirs
  describe_cnn_backbone(cfg, cls, "encoder.stages", read_resnet_shape(cfg).widths.back(), blocks, t);
}

}  // namespace ma::families
