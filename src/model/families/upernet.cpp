// UperNet (model_type upernet: UperNetForSemanticSegmentation; openmmlab/upernet-convnext-{tiny,small,base,
// large,xlarge}, openmmlab/upernet-swin-{tiny,small,base,large}): a backbone's feature maps into UperNetHead
// (a PSP module over the last map, an FPN over the others, fused and classified) and, when
// use_auxiliary_head, an FCN head over the third map. Every convolution but the classifiers is
// UperNetConvModule: a bias-free conv and a trainable BatchNorm2d.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"
#include "model/families/seg_heads.h"

namespace ma::families {
namespace {

// UperNetConfig's default backbone_config: a ResNet (ResNet-50's defaults) handing on its four stages.
constexpr const char* kUperNetDefaultBackbone =
    R"({"model_type":"resnet","out_features":["stage1","stage2","stage3","stage4"]})";

// UperNetConvModule under `p`: conv (bias-free) and batch_norm.
void upernet_conv_module(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel) {
  cnn_conv_norm(t, p + "conv", p + "batch_norm", in, out, kernel);
}

// UperNetHead under decode_head.: the classifier is registered first, then the PSP blocks (an adaptive pool,
// then a 1 x 1 conv module: index 1), the bottleneck, every lateral conv, every FPN conv, the fused
// bottleneck.
void upernet_decode_head(const ModelConfig& cfg, const std::vector<uint64_t>& channels, uint64_t labels,
                         ModelTemplate& t) {
  const uint64_t h = cfg.dim_or("hidden_size", 512);
  const std::vector<uint64_t> pools = cfg.dims_or("pool_scales", {1, 2, 3, 6});
  const std::string p = "decode_head.";
  blocks::conv2d(t, p + "classifier", h, labels, 1);
  for (size_t i = 0; i < pools.size(); ++i)
    upernet_conv_module(t, p + "psp_modules." + std::to_string(i) + ".1.", channels.back(), h, 1);
  upernet_conv_module(t, p + "bottleneck.", channels.back() + pools.size() * h, h, 3);
  for (size_t i = 0; i + 1 < channels.size(); ++i)
    upernet_conv_module(t, p + "lateral_convs." + std::to_string(i) + ".", channels[i], h, 1);
  for (size_t i = 0; i + 1 < channels.size(); ++i)
    upernet_conv_module(t, p + "fpn_convs." + std::to_string(i) + ".", h, h, 3);
  upernet_conv_module(t, p + "fpn_bottleneck.", channels.size() * h, h, 3);
}

// UperNetFCNHead under auxiliary_head.: num_convs 3 x 3 conv modules, conv_cat when concat_input, then
// the classifier. Its input width is its own field, not read from the backbone.
void upernet_auxiliary_head(const ModelConfig& cfg, uint64_t labels, ModelTemplate& t) {
  // transformers 5's UperNetConfig defaults it to None, which the head cannot build: Hub configs give it.
  if (!cfg.has("auxiliary_in_channels"))
    cfg.fail("auxiliary_in_channels", "is required with use_auxiliary_head (the FCN head's input width)");
  const uint64_t in = cfg.dim_or("auxiliary_in_channels", 384);
  const uint64_t c = cfg.dim_or("auxiliary_channels", 256);
  const uint64_t convs = cfg.dim_or("auxiliary_num_convs", 1);
  const std::string p = "auxiliary_head.";
  for (uint64_t i = 0; i < convs; ++i)
    upernet_conv_module(t, p + "convs." + std::to_string(i) + ".", i == 0 ? in : c, c, 3);
  // With no convolution, convs is an nn.Identity: the classifier reads the input itself.
  if (cfg.flag_or("auxiliary_concat_input", false)) upernet_conv_module(t, p + "conv_cat.", in + c, c, 3);
  blocks::conv2d(t, p + "classifier", convs == 0 ? in : c, labels, 1);
}

}  // namespace

void build_upernet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "UperNetForSemanticSegmentation");
  supported_task(cfg, cls, "UperNet", {"ForSemanticSegmentation"});
  t.arch.architecture = cls;
  // The backbone's record (its builders keep the class set here) is the model's: the heads are no stack.
  const std::vector<uint64_t> channels = seg_backbone(cfg, kUperNetDefaultBackbone, "backbone.", false, t);
  const uint64_t labels = num_labels(cfg);
  upernet_decode_head(cfg, channels, labels, t);
  if (cfg.flag_or("use_auxiliary_head", true)) upernet_auxiliary_head(cfg, labels, t);
}

}  // namespace ma::families
