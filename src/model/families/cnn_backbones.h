// The convolutional image backbones of group cnn_backbones (resnet.cpp, convnext.cpp, regnet.cpp,
// mobilenet_v1.cpp, mobilenet_v2.cpp, efficientnet.cpp, bit.cpp): each file builds one family;
// cnn_backbones.cpp lists their model_types. DETR's and RT-DETR's ResNets are built from the same pieces
// (detr.h).
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// ResNetModel / ResNetForImageClassification
void build_resnet(const ModelConfig& cfg, ModelTemplate& t);
// RTDetrResNetBackbone (RT-DETR's ResNet-vd alone)
void build_rt_detr_resnet(const ModelConfig& cfg, ModelTemplate& t);
// ConvNextModel / ConvNextForImageClassification
void build_convnext(const ModelConfig& cfg, ModelTemplate& t);
// ConvNextV2Model / ConvNextV2ForImageClassification
void build_convnextv2(const ModelConfig& cfg, ModelTemplate& t);
// RegNetModel / RegNetForImageClassification
void build_regnet(const ModelConfig& cfg, ModelTemplate& t);
// MobileNetV1Model / MobileNetV1ForImageClassification
void build_mobilenet_v1(const ModelConfig& cfg, ModelTemplate& t);
// MobileNetV2Model / MobileNetV2ForImageClassification
void build_mobilenet_v2(const ModelConfig& cfg, ModelTemplate& t);
// BitModel / BitForImageClassification
void build_bit(const ModelConfig& cfg, ModelTemplate& t);
// timm's models wrapped by transformers (timm_wrapper.cpp), and timm's own Hub configs.
void build_timm_wrapper(const ModelConfig& cfg, ModelTemplate& t);
// TimmBackbone: a timm ResNet's feature layers under _backbone (timm_backbone.cpp).
void build_timm_backbone(const ModelConfig& cfg, ModelTemplate& t);
// EfficientNetModel / EfficientNetForImageClassification
void build_efficientnet(const ModelConfig& cfg, ModelTemplate& t);

// A bias-free nn.Conv2d of `groups` groups (`conv`.weight [out, in / groups, k, k]) and its trainable
// nn.BatchNorm2d under `norm` (weight and bias; running statistics and num_batches_tracked as buffers): the
// ConvLayer of RegNet, MobileNet and EfficientNet.
void cnn_conv_norm(ModelTemplate& t, const std::string& conv, const std::string& norm, uint64_t in,
                   uint64_t out, uint64_t kernel, uint64_t groups = 1);
// TF-slim's make_divisible (MobileNetV2's, EfficientNet's round_filters, BiT's make_div): the multiple of
// `divisor` nearest `value` (at least `min_value`), moved up one divisor when that is more than 10% below.
uint64_t cnn_make_divisible(double value, uint64_t divisor, uint64_t min_value);

// The record of a CNN image model: the class, and one encoder stack over its stages under `stages` (a
// tensor's layer index is its stage's, as for Swin and DINOv3's ConvNeXt) of the last stage's width
// `features`; num_layers counts the residual blocks of all stages (`blocks`).
void describe_cnn_backbone(const ModelConfig& cfg, const std::string& cls, const std::string& stages,
                           uint64_t features, uint64_t blocks, ModelTemplate& t);

}  // namespace ma::families
