// transformers' TimmBackbone (model_type timm_backbone): timm.create_model(backbone, features_only=True,
// in_chans=num_channels, out_indices=out_indices) under _backbone, its BatchNorm2d layers made timm's
// FrozenBatchNorm2d (four buffers, no parameter) when freeze_batch_norm_2d. As for timm_wrapper, the network
// is a timm name, not config fields: the torchvision-style ResNets are modelled (timm_resnet.h), any other
// name is refused. timm's FeatureListNet keeps the model's top-level modules up to the last feature
// out_indices reads (a ResNet's features: 0 the stem's act1, 1..4 layer1..layer4), dropping pooling and head.
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/timm_resnet.h"

namespace ma::families {
namespace {

constexpr int64_t kResnetFeatures = 5;  // act1, layer1 .. layer4

// The last feature out_indices reads (TimmBackboneConfig's default [-1]: the last one). timm counts a
// negative index from the end.
uint64_t last_feature(const ModelConfig& cfg) {
  std::vector<int64_t> indices = cfg.ints("out_indices");
  if (const json::Value* v = cfg.raw("out_indices"); v == nullptr || v->is_null()) indices = {-1};
  if (indices.empty()) cfg.fail("out_indices", "must name at least one feature map");
  int64_t last = 0;
  for (int64_t i : indices) {
    const int64_t at = i < 0 ? i + kResnetFeatures : i;
    if (at < 0 || at >= kResnetFeatures)
      cfg.fail("out_indices", "must list a ResNet's features 0 to 4 (or -5 to -1)");
    last = std::max(last, at);
  }
  return static_cast<uint64_t>(last);
}

}  // namespace

void build_timm_backbone(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "TimmBackbone");
  supported_task(cfg, cls, "TimmBackbone", {""});
  if (const json::Value* b = cfg.raw("backbone"); b == nullptr || b->is_null())
    cfg.fail("backbone", "must name a timm model (TimmBackbone raises without one)");
  if (const json::Value* f = cfg.raw("out_features"); f != nullptr && !f->is_null())
    cfg.fail("out_features", "is not supported by TimmBackbone (transformers raises: it reads out_indices)");
  if (!cfg.flag_or("features_only", true))
    unsupported(cfg, "TimmBackbone with features_only false (timm's whole classifier, given out_indices)");
  const std::string name = cfg.string_or("backbone", "");
  // A pretrained tag ("resnet50.a1_in1k") picks weights, not modules.
  const TimmResnet* resnet = find_timm_resnet(name.substr(0, name.find('.')));
  if (resnet == nullptr)
    throw Error(
        ErrorKind::Unsupported, cfg.file(), "backbone",
        "unsupported architecture: the timm model " + printable(name) + " (modelled: resnet18 to resnet152)");
  const uint64_t stages = last_feature(cfg);
  const std::vector<uint64_t> features =
      timm_resnet_body(t, "_backbone.", *resnet, cfg.dim_or("num_channels", 3), stages,
                       cfg.flag_or("freeze_batch_norm_2d", false));
  uint64_t blocks = 0;
  for (uint64_t s = 0; s < stages; ++s) blocks += resnet->depths[s];
  describe_cnn_backbone(cfg, cls, "_backbone", features.back(), blocks, t);
}

}  // namespace ma::families
