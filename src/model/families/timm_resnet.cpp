#include "model/families/timm_resnet.h"

#include <algorithm>

#include "model/families/detr.h"

namespace ma::families {
namespace {

constexpr std::array<TimmResnet, 5> kTimmResnets{{
    {"resnet18", false, {2, 2, 2, 2}},
    {"resnet34", false, {3, 4, 6, 3}},
    {"resnet50", true, {3, 4, 6, 3}},
    {"resnet101", true, {3, 4, 23, 3}},
    {"resnet152", true, {3, 8, 36, 3}},
}};

}  // namespace

const TimmResnet* find_timm_resnet(std::string_view architecture) {
  const auto it = std::find_if(kTimmResnets.begin(), kTimmResnets.end(),
                               [&](const TimmResnet& r) { return r.name == architecture; });
  return it == kTimmResnets.end() ? nullptr : &*it;
}

std::vector<uint64_t> timm_resnet_body(ModelTemplate& t, const std::string& prefix, const TimmResnet& r,
                                       uint64_t in_chans, uint64_t stages, bool frozen) {
  const uint64_t expansion = r.bottleneck ? 4 : 1;
  std::vector<uint64_t> features{64};  // act1's channels, feature index 0
  detr_conv_norm(t, prefix + "conv1", prefix + "bn1", in_chans, 64, 7, frozen);
  uint64_t in = 64;
  for (uint64_t s = 0; s < stages; ++s) {
    const uint64_t planes = 64ull << s, out = planes * expansion;
    for (uint64_t b = 0; b < r.depths[s]; ++b) {
      const std::string p = prefix + "layer" + std::to_string(s + 1) + "." + std::to_string(b) + ".";
      if (r.bottleneck) {
        detr_conv_norm(t, p + "conv1", p + "bn1", in, planes, 1, frozen);
        detr_conv_norm(t, p + "conv2", p + "bn2", planes, planes, 3, frozen);
        detr_conv_norm(t, p + "conv3", p + "bn3", planes, out, 1, frozen);
      } else {
        detr_conv_norm(t, p + "conv1", p + "bn1", in, planes, 3, frozen);
        detr_conv_norm(t, p + "conv2", p + "bn2", planes, planes, 3, frozen);
      }
      // make_blocks: a 1 x 1 projection shortcut on the first block of every stage that strides (all but
      // layer1) or widens (layer1 of a Bottleneck ResNet: 64 -> 256).
      if (b == 0 && (s > 0 || in != out))
        detr_conv_norm(t, p + "downsample.0", p + "downsample.1", in, out, 1, frozen);
      in = out;
    }
    features.push_back(out);
  }
  return features;
}

}  // namespace ma::families
