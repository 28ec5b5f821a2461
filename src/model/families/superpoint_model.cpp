// SuperPoint (magic-leap-community/superpoint): SuperPointForKeypointDetection registers a VGG-style encoder
// of 3 x 3 conv pairs over one grey channel (encoder.conv_blocks), then two heads on its last map, each a
// 3 x 3 conv to decoder_hidden_size and a 1 x 1 conv: the keypoint scores (65 = 8 x 8 cells and a "no
// keypoint" bin) and the descriptors. Matchers build the same modules as their keypoint_detector.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/matching.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {

uint64_t superpoint_body(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const std::vector<uint64_t> widths = cfg.dims_or("encoder_hidden_sizes", {64, 64, 128, 128});
  // SuperPointEncoder reads encoder_hidden_sizes[-2] for its last block: one width raises an IndexError.
  if (widths.size() < 2) cfg.fail("encoder_hidden_sizes", "must list at least two widths");
  const uint64_t decoder = cfg.dim_or("decoder_hidden_size", 256);
  const uint64_t descriptor = cfg.dim_or("descriptor_decoder_dim", 256);
  for (size_t i = 0; i < widths.size(); ++i) {  // the first block reads the image's single channel
    const std::string b = prefix + "encoder.conv_blocks." + std::to_string(i) + ".";
    blocks::conv2d(t, b + "conv_a", i == 0 ? 1 : widths[i - 1], widths[i], 3);
    blocks::conv2d(t, b + "conv_b", widths[i], widths[i], 3);
  }
  blocks::conv2d(t, prefix + "keypoint_decoder.conv_score_a", widths.back(), decoder, 3);
  blocks::conv2d(t, prefix + "keypoint_decoder.conv_score_b", decoder, cfg.dim_or("keypoint_decoder_dim", 65),
                 1);
  blocks::conv2d(t, prefix + "descriptor_decoder.conv_descriptor_a", widths.back(), decoder, 3);
  blocks::conv2d(t, prefix + "descriptor_decoder.conv_descriptor_b", decoder, descriptor, 1);
  return descriptor;
}

uint64_t matching_keypoint_detector(const ModelConfig& cfg, ModelTemplate& t) {
  // The matcher config classes fill in model_type "superpoint" for a dict without one.
  const ModelConfig detector = sub_or(cfg, "keypoint_detector_config", R"({"model_type":"superpoint"})");
  if (detector.string_or("model_type", "superpoint") != "superpoint")
    detector.fail("model_type", "must be superpoint: the only keypoint detector modelled");
  return superpoint_body(detector, "keypoint_detector.", t);
}

void build_superpoint(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "SuperPointForKeypointDetection");
  supported_task(cfg, cls, "SuperPoint", {"ForKeypointDetection"});
  superpoint_body(cfg, "", t);
  // A fully convolutional network: the record holds its encoder's blocks and final width.
  const std::vector<uint64_t> widths = cfg.dims_or("encoder_hidden_sizes", {64, 64, 128, 128});
  t.arch.architecture = cls;
  t.arch.hidden_size = widths.back();
  t.arch.num_layers = widths.size();
  t.arch.add_stack(StackRole::Encoder, "encoder.conv_blocks", widths.back());
}

}  // namespace ma::families
