// DETR's convolutional backbone (DetrConvEncoder, copied by Table Transformer): a ResNet whose BatchNorm2d
// layers replace_batch_norm swaps for DetrFrozenBatchNorm2d, which registers weight, bias, running_mean and
// running_var all as buffers (and no num_batches_tracked). The backbone's parameters are therefore its
// convolutions' weights alone: resnet50's 23.45M, not the 23.51M a trainable ResNet-50 body has.
#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/multimodal_towers.h"
#include "model/families/seg_heads.h"
#include "model/families/timm_resnet.h"

namespace ma::families {

void detr_batch_norm(ModelTemplate& t, const std::string& p, uint64_t channels, bool frozen) {
  if (frozen) {
    for (const char* b : {".weight", ".bias", ".running_mean", ".running_var"})
      t.add(p + b, {channels}).kind = TensorKind::Buffer;
    return;
  }
  blocks::norm(t, p, channels, true);
  for (const char* b : {".running_mean", ".running_var"}) t.add(p + b, {channels}).kind = TensorKind::Buffer;
  t.add(p + ".num_batches_tracked", {}).kind = TensorKind::Buffer;
}

void detr_replace_batch_norms(ModelTemplate& t, size_t first) {
  std::vector<TemplateTensor> kept;
  kept.reserve(t.tensors.size() - first);
  for (size_t i = first; i < t.tensors.size(); ++i) {
    TemplateTensor& x = t.tensors[i];
    constexpr std::string_view kTracked = ".num_batches_tracked";
    if (!x.name.ends_with(kTracked)) {
      kept.push_back(std::move(x));
      continue;
    }
    // A BatchNorm2d: weight, bias, running_mean, running_var, num_batches_tracked, in that order.
    const std::string norm = x.name.substr(0, x.name.size() - kTracked.size());
    for (TemplateTensor& y : kept)
      if (y.name == norm + ".weight" || y.name == norm + ".bias") y.kind = TensorKind::Buffer;
  }
  t.tensors.resize(first);
  for (TemplateTensor& x : kept) t.tensors.push_back(std::move(x));
}

void detr_conv_norm(ModelTemplate& t, const std::string& conv, const std::string& norm, uint64_t in,
                    uint64_t out, uint64_t kernel, bool frozen) {
  t.add(conv + ".weight", {out, in, kernel, kernel});
  detr_batch_norm(t, norm, out, frozen);
}

std::vector<uint64_t> detr_backbone_channels(const ModelConfig& bb, const std::vector<uint64_t>& features) {
  std::vector<uint64_t> channels;
  for (const size_t i : backbone_out_stages(bb, features.size())) channels.push_back(features[i]);
  return channels;
}

namespace {

// timm's features_only kwargs DetrConvEncoder passes on: out_indices (DETR's default 1, 2, 3, 4:
// layer1..layer4; 0 is the stem's act1; Deformable DETR's 2, 3, 4) and in_chans (default num_channels).
// output_stride (DETR's dilation, DC5) dilates layer4 without changing a weight. Any other kwarg would
// reshape the network: refused.
struct DetrTimmKwargs {
  std::vector<uint64_t> out_indices;
  uint64_t in_chans = 3;
};

DetrTimmKwargs detr_timm_kwargs(const ModelConfig& cfg, const std::vector<uint64_t>& default_out_indices) {
  DetrTimmKwargs k;
  k.out_indices = default_out_indices;
  k.in_chans = cfg.dim_or("num_channels", 3);
  const std::optional<ModelConfig> kw = cfg.sub("backbone_kwargs");
  if (!kw) return k;
  for (const json::Member& m : cfg.raw("backbone_kwargs")->members())
    if (m.key != "out_indices" && m.key != "in_chans" && m.key != "output_stride")
      kw->fail(m.key, "is a timm kwarg this analysis does not model");
  k.in_chans = kw->dim_or("in_chans", k.in_chans);
  if (kw->has("out_indices")) {
    k.out_indices.clear();
    for (const int64_t i : kw->ints("out_indices")) {
      if (i < 0 || i > 4) kw->fail("out_indices", "must list feature indices 0 to 4");
      k.out_indices.push_back(static_cast<uint64_t>(i));
    }
    if (k.out_indices.empty()) kw->fail("out_indices", "must name at least one feature map");
  }
  return k;
}

// timm's ResNet with features_only=True: FeatureListNet keeps the model's own top-level modules (conv1, bn1,
// act1, maxpool, layer1..layerN) up to the last one out_indices reads, dropping the pooling and fc head.
std::vector<uint64_t> detr_timm_resnet(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t,
                                       const std::vector<uint64_t>& default_out_indices) {
  if (cfg.has("backbone_config"))
    cfg.fail("backbone_config", "must be absent with use_timm_backbone (DetrConfig refuses both)");
  if (const json::Value* b = cfg.raw("backbone"); b && b->is_null())
    cfg.fail("backbone", "must name a timm model with use_timm_backbone");
  const std::string name = cfg.string_or("backbone", "resnet50");
  // A pretrained tag ("resnet50.a1_in1k") picks weights, not the architecture.
  const std::string arch = name.substr(0, name.find('.'));
  const TimmResnet* resnet = find_timm_resnet(arch);
  if (resnet == nullptr) unsupported(cfg, "DETR with the timm backbone " + printable(name));
  const DetrTimmKwargs kw = detr_timm_kwargs(cfg, default_out_indices);
  const uint64_t last = *std::max_element(kw.out_indices.begin(), kw.out_indices.end());
  const std::vector<uint64_t> features = timm_resnet_body(t, prefix, *resnet, kw.in_chans, last, true);
  std::vector<uint64_t> channels;
  for (const uint64_t i : kw.out_indices) channels.push_back(features[i]);
  return channels;
}

// transformers' ResNetBackbone (models/resnet, its body built by resnet.cpp): ResNetConfig's defaults are
// ResNet-50's; DetrConfig makes one with out_features ["stage4"] when use_timm_backbone is false and
// backbone_config is absent. Every stage is built whatever out_features reads.
std::vector<uint64_t> detr_transformers_resnet(const ModelConfig& cfg, const std::string& prefix,
                                               ModelTemplate& t) {
  const ModelConfig bb =
      sub_or(cfg, "backbone_config", R"({"model_type":"resnet","out_features":["stage4"]})");
  if (bb.string_or("model_type", "") != "resnet")
    bb.fail("model_type", "must be resnet: the only AutoBackbone of DETR this analysis builds");
  return detr_backbone_channels(bb, transformers_resnet_body(bb, prefix, true, t));
}

}  // namespace

std::vector<uint64_t> detr_conv_backbone(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t,
                                         const std::vector<uint64_t>& default_out_indices) {
  const std::vector<uint64_t> channels = cfg.flag_or("use_timm_backbone", true)
                                             ? detr_timm_resnet(cfg, prefix, t, default_out_indices)
                                             : detr_transformers_resnet(cfg, prefix, t);
  // A CNN: a vision stack of its output width, without the transformer layers the record describes.
  t.arch.add_stack(StackRole::Vision, prefix.substr(0, prefix.size() - 1), channels.back());
  return channels;
}

ResNetShape read_resnet_shape(const ModelConfig& bb) {
  ResNetShape r;
  r.embedding = bb.dim_or("embedding_size", 64);
  r.widths = bb.dims_or("hidden_sizes", {256, 512, 1024, 2048});
  r.depths = bb.dims_or("depths", {3, 4, 6, 3});
  if (r.widths.size() != r.depths.size()) bb.fail("depths", "must list one depth per hidden_sizes entry");
  const std::string layer_type = bb.string_or("layer_type", "bottleneck");
  if (layer_type != "bottleneck" && layer_type != "basic")
    bb.fail("layer_type", "must be bottleneck or basic");
  r.bottleneck = layer_type == "bottleneck";
  return r;
}

}  // namespace ma::families
