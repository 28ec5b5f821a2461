// Group cnn_backbones: the model_types of cnn_backbones.h's builders (ResNet, RT-DETR's ResNet-vd alone,
// ConvNeXt, ConvNeXt V2, RegNet, MobileNetV1, MobileNetV2, EfficientNet, BiT, timm's wrapped models and
// backbones), and the helpers they share.
#include "model/families/cnn_backbones.h"

#include <algorithm>
#include <array>

#include "model/families/detr.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kCnnBackboneFamilies{
    FamilyBuilder{"resnet", build_resnet},
    FamilyBuilder{"rt_detr_resnet", build_rt_detr_resnet},
    FamilyBuilder{"convnext", build_convnext},
    FamilyBuilder{"convnextv2", build_convnextv2},
    FamilyBuilder{"regnet", build_regnet},
    FamilyBuilder{"mobilenet_v1", build_mobilenet_v1},
    FamilyBuilder{"mobilenet_v2", build_mobilenet_v2},
    FamilyBuilder{"efficientnet", build_efficientnet},
    FamilyBuilder{"bit", build_bit},
    FamilyBuilder{"timm_wrapper", build_timm_wrapper},
    FamilyBuilder{"timm_backbone", build_timm_backbone},
};

}  // namespace

std::span<const FamilyBuilder> cnn_backbones() {
  return kCnnBackboneFamilies;
}

void cnn_conv_norm(ModelTemplate& t, const std::string& conv, const std::string& norm, uint64_t in,
                   uint64_t out, uint64_t kernel, uint64_t groups) {
  t.add(conv + ".weight", {out, in / groups, kernel, kernel});
  detr_batch_norm(t, norm, out, false);
}

uint64_t cnn_make_divisible(double value, uint64_t divisor, uint64_t min_value) {
  // int(value + divisor / 2) // divisor * divisor: Python's int() truncates, as the cast does.
  const auto rounded = static_cast<uint64_t>(value + static_cast<double>(divisor) / 2) / divisor * divisor;
  uint64_t out = std::max(min_value, rounded);
  if (static_cast<double>(out) < 0.9 * value) out += divisor;
  return out;
}

void describe_cnn_backbone(const ModelConfig& cfg, const std::string& cls, const std::string& stages,
                           uint64_t features, uint64_t blocks, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = blocks;
  a.hidden_size = features;
  StackSpec& stack = a.add_stack(StackRole::Encoder, stages, features);
  // The classifiers' config classes do not define image_size; the ImageNet checkpoints run at 224.
  stack.image_size = cfg.dim_or("image_size", 224);
}

}  // namespace ma::families
