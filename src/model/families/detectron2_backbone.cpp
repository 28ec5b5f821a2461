// detectron2's build_resnet_fpn_backbone: a ResNet / ResNeXt (detectron2/modeling/backbone/resnet.py) under
// bottom_up and the FPN's lateral and output convolutions over it (fpn.py). The FPN registers its
// fpn_lateralN / fpn_outputN pairs before it takes the ResNet as bottom_up, so they come first in
// state_dict; each BottleneckBlock registers its projection shortcut before conv1. detectron2's Conv2d keeps
// its norm as a child (conv.norm), and the FrozenBN norm of detectron2's default config is a
// FrozenBatchNorm2d: weight, bias, running_mean and running_var, all buffers. The backbone's parameters
// are therefore its convolutions' weights and the FPN's biases alone.
#include "model/families/detectron2_backbone.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/detr.h"

namespace ma::families {
namespace {

// The residual stage a feature name names (res2 .. res5); 0 for any other name, which
// build_resnet_backbone's {"res2": 2, ...}[f] lookup rejects.
uint64_t detectron2_stage_of(std::string_view feature) {
  constexpr std::array<std::string_view, 4> kStages{"res2", "res3", "res4", "res5"};
  for (size_t i = 0; i < kStages.size(); ++i)
    if (feature == kStages[i]) return i + 2;
  return 0;
}

// build_resnet_backbone's blocks per stage for the bottleneck depths (18 and 34 build BasicBlocks).
std::array<uint64_t, 4> detectron2_bottleneck_blocks(const ModelConfig& args) {
  const uint64_t depth = args.dim_or("MODEL.RESNETS.DEPTH", 50);
  if (depth == 50) return {3, 4, 6, 3};
  if (depth == 101) return {3, 4, 23, 3};
  if (depth == 152) return {3, 8, 36, 3};
  args.fail("MODEL.RESNETS.DEPTH", "must be 50, 101 or 152 (the bottleneck ResNets this analysis models)");
}

// A bias-free detectron2 Conv2d (groups dividing its input) with its FrozenBatchNorm2d child.
void detectron2_frozen_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out,
                            uint64_t kernel, uint64_t groups = 1) {
  t.add(p + ".weight", {out, in / groups, kernel, kernel});
  detr_batch_norm(t, p + ".norm", out, true);
}

// The settings that change which modules detectron2 builds, refused when this analysis does not model
// them.
void detectron2_check_supported(const ModelConfig& args) {
  if (args.string_or("MODEL.META_ARCHITECTURE", "GeneralizedRCNN") != "GeneralizedRCNN")
    args.fail("MODEL.META_ARCHITECTURE", "must be GeneralizedRCNN (detectron2's default)");
  // detectron2's default, build_resnet_backbone, is no FPN: LayoutLMv2VisualBackbone asserts one.
  if (args.string_or("MODEL.BACKBONE.NAME", "build_resnet_backbone") != "build_resnet_fpn_backbone")
    args.fail("MODEL.BACKBONE.NAME", "must be build_resnet_fpn_backbone (LayoutLMv2 asserts an FPN)");
  if (args.string_or("MODEL.RESNETS.NORM", "FrozenBN") != "FrozenBN")
    args.fail("MODEL.RESNETS.NORM", "must be FrozenBN (the norm this analysis models)");
  if (args.string_or("MODEL.FPN.NORM", "") != "")
    args.fail("MODEL.FPN.NORM", "must be empty (the FPN's biased convolutions this analysis models)");
  if (const json::Value* deform = args.raw("MODEL.RESNETS.DEFORM_ON_PER_STAGE")) {
    if (!deform->is_array()) args.fail("MODEL.RESNETS.DEFORM_ON_PER_STAGE", "must be a list of flags");
    for (const json::Value& on : deform->items())
      if (!on.is_bool() || on.as_bool())
        args.fail("MODEL.RESNETS.DEFORM_ON_PER_STAGE",
                  "must be all false (deformable stages are not modelled)");
  }
}

// len(MODEL.PIXEL_MEAN): the image channels GeneralizedRCNN builds the stem for (default 3, BGR means).
uint64_t detectron2_pixel_channels(const ModelConfig& args) {
  auto length = [&](std::string_view key) -> uint64_t {
    const json::Value* v = args.raw(key);
    if (!v || v->is_null()) return 3;
    if (!v->is_array() || v->items().empty()) args.fail(key, "must be a non-empty list of numbers");
    return v->items().size();
  };
  const uint64_t channels = length("MODEL.PIXEL_MEAN");
  if (length("MODEL.PIXEL_STD") != channels)
    args.fail("MODEL.PIXEL_STD", "must have as many entries as MODEL.PIXEL_MEAN (LayoutLMv2 asserts it)");
  return channels;
}

// MODEL.FPN.IN_FEATURES as stages: res2 first (LayoutLMv2 reads p2), one stage after another (the FPN
// asserts strides doubling), each among the ResNet's OUT_FEATURES.
std::vector<uint64_t> detectron2_fpn_stages(const ModelConfig& args, uint64_t& last_stage) {
  std::vector<uint64_t> out;
  const std::vector<std::string> out_features = args.has("MODEL.RESNETS.OUT_FEATURES")
                                                    ? args.strings("MODEL.RESNETS.OUT_FEATURES")
                                                    : std::vector<std::string>{"res4"};
  if (out_features.empty()) args.fail("MODEL.RESNETS.OUT_FEATURES", "must name at least one stage");
  last_stage = 0;
  for (const std::string& f : out_features) {
    const uint64_t s = detectron2_stage_of(f);
    if (s == 0) args.fail("MODEL.RESNETS.OUT_FEATURES", "must name stages res2 to res5");
    last_stage = std::max(last_stage, s);
  }
  for (const std::string& f : args.strings("MODEL.FPN.IN_FEATURES")) {
    const uint64_t s = detectron2_stage_of(f);
    if (s == 0 || std::find(out_features.begin(), out_features.end(), f) == out_features.end())
      args.fail("MODEL.FPN.IN_FEATURES", "must name stages listed in MODEL.RESNETS.OUT_FEATURES");
    if (s != (out.empty() ? 2 : out.back() + 1))
      args.fail("MODEL.FPN.IN_FEATURES", "must list consecutive stages from res2 (LayoutLMv2 reads p2)");
    out.push_back(s);
  }
  if (out.empty())
    args.fail("MODEL.FPN.IN_FEATURES", "must list consecutive stages from res2 (LayoutLMv2 reads p2)");
  return out;
}

}  // namespace

uint64_t detectron2_resnet_fpn(const ModelConfig& args, ModelTemplate& t, const std::string& prefix) {
  detectron2_check_supported(args);
  const uint64_t channels = detectron2_pixel_channels(args);
  const std::array<uint64_t, 4> blocks = detectron2_bottleneck_blocks(args);
  uint64_t last_stage = 0;
  const std::vector<uint64_t> fpn_stages = detectron2_fpn_stages(args, last_stage);
  const uint64_t fpn_width = args.dim_or("MODEL.FPN.OUT_CHANNELS", 256);
  const uint64_t groups = args.dim_or("MODEL.RESNETS.NUM_GROUPS", 1);
  const uint64_t stem = args.dim_or("MODEL.RESNETS.STEM_OUT_CHANNELS", 64);
  uint64_t bottleneck = groups * args.dim_or("MODEL.RESNETS.WIDTH_PER_GROUP", 64);
  uint64_t width = args.dim_or("MODEL.RESNETS.RES2_OUT_CHANNELS", 256);

  // The ResNet's stage widths, which the FPN's lateral convolutions read: res2's, doubling per stage.
  for (const uint64_t s : fpn_stages) {
    const std::string n = std::to_string(s);
    blocks::conv2d(t, prefix + "fpn_lateral" + n, width << (s - 2), fpn_width, 1);
    blocks::conv2d(t, prefix + "fpn_output" + n, fpn_width, fpn_width, 3);
  }
  const std::string body = prefix + "bottom_up.";
  detectron2_frozen_conv(t, body + "stem.conv1", channels, stem, 7);
  uint64_t in = stem;
  // Stages up to the last one OUT_FEATURES names; each widens its 3 x 3 grouped bottleneck and its output.
  for (uint64_t s = 2; s <= last_stage; ++s) {
    for (uint64_t b = 0; b < blocks[s - 2]; ++b) {
      const std::string p = body + "res" + std::to_string(s) + "." + std::to_string(b) + ".";
      if (in != width) detectron2_frozen_conv(t, p + "shortcut", in, width, 1);
      detectron2_frozen_conv(t, p + "conv1", in, bottleneck, 1);
      detectron2_frozen_conv(t, p + "conv2", bottleneck, bottleneck, 3, groups);
      detectron2_frozen_conv(t, p + "conv3", bottleneck, width, 1);
      in = width;
    }
    width *= 2;
    bottleneck *= 2;
  }
  return fpn_width;
}

}  // namespace ma::families
